"""OpDef: the one declaration of an op, shared by graph mode, eager mode and Session.

An op is a type name, a NumPy kernel, and a static rule that infers the
dtype and shape of each output from the inputs' dtypes and shapes (handling
unknown dimensions). The declaration also says which inputs and outputs the
op's gradient reads, so the tape keeps nothing else alive.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, Tuple

from .registry import op_defs

ALL = None  # retain every input / output


class OpDef:
    """One op type: kernel, shape/dtype rule, and what its gradient reads.

    kernel(*arrays, **attrs) -> array (or a tuple of arrays when `num_outputs`
    is not 1). infer(inputs, attrs) -> list of (DType, TensorShape), where
    `inputs` are tensors with static `.dtype` and `.shape`. A stateful op's
    kernel receives the resource store (Session or eager store) first.
    `is_stateful` is TensorFlow's flag (the op reads or changes state, so it is
    never pruned as a duplicate and makes a cond/while around it `If`/`While`
    instead of `StatelessIf`/`StatelessWhile`); it defaults to `stateful`.
    `side_effects` marks ops that must run inside a function even when nothing
    reads their outputs (assignments, prints, py functions), in program order,
    as TensorFlow's automatic control dependencies guarantee.
    `grad_inputs` is None (the gradient reads every input), a tuple of input
    indices, or a dict {input index: inputs its gradient reads}, so that an
    input nobody differentiates keeps nothing alive (e.g. Mul by a constant).
    `same_dtype` (a slice of the inputs) names the inputs that must share one
    dtype: eager execution checks it (graph mode's `infer` does it there), so
    mixed dtypes raise instead of NumPy promoting them silently.
    """

    __slots__ = ("type", "kernel", "infer", "num_outputs", "grad_inputs",
                 "grad_outputs", "stateful", "attr_defaults", "input_kinds", "simple",
                 "is_stateful", "side_effects", "same_dtype", "_reads_by_skip", "eager_cache")

    def __init__(self, type: str, kernel: Callable, infer: Callable, *,
                 num_outputs: int = 1,
                 grad_inputs: Optional[Sequence[int]] = ALL,
                 grad_outputs: Optional[Sequence[int]] = (),
                 stateful: bool = False,
                 attr_defaults: Optional[dict] = None,
                 input_kinds: Optional[str] = None,
                 is_stateful: Optional[bool] = None,
                 side_effects: bool = False,
                 same_dtype: Optional[slice] = None) -> None:
        self.type = type
        self.kernel = kernel
        self.infer = infer
        self.num_outputs = num_outputs  # -1: decided by `infer` per call
        # A dict {input: inputs its gradient reads} stays a dict (the tape reads it).
        self.grad_inputs = grad_inputs if grad_inputs is None or isinstance(grad_inputs, dict) \
            else tuple(grad_inputs)
        self.grad_outputs = None if grad_outputs is None else tuple(grad_outputs)
        self.stateful = stateful
        self.is_stateful = stateful if is_stateful is None else is_stateful
        self.side_effects = side_effects
        self.attr_defaults = attr_defaults or {}
        # NumPy dtype kinds ('f', 'c', 'i', 'u', 'b') the first input may have.
        self.input_kinds = input_kinds
        self.same_dtype = same_dtype
        # One output, no resource store: eligible for the eager fast paths.
        self.simple = num_outputs == 1 and not stateful
        self._reads_by_skip: dict = {}
        # The eager layer's memos of this op (eager/op_cache.py, which alone writes it):
        # None until the op first runs eagerly.
        self.eager_cache: Any = None

    def inputs_read_by_gradient(self, skip: frozenset) -> Any:
        """The input indices the gradient reads when the inputs in `skip` need no
        gradient: None for all of them, else a frozenset (memoised per skip set)."""
        reads = self.grad_inputs
        if type(reads) is not dict:
            return reads
        found = self._reads_by_skip.get(skip)
        if found is None:
            needed = set()
            for i, inputs in reads.items():
                if i not in skip:
                    needed.update(inputs)
            found = self._reads_by_skip[skip] = frozenset(needed)
        return found

    def dtype_error(self, dtype: Any) -> str:
        """The message for a first input of a dtype this op does not accept."""
        return (f"Value for attr 'T' of {dtype.name} is not in the list of allowed values "
                f"for op {self.type} (allowed NumPy kinds: {self.input_kinds})")

    def mixed_dtype_error(self, inputs: Sequence[Any]) -> Optional[str]:
        """TF's eager message for inputs in `same_dtype` of differing dtypes, or None."""
        if self.same_dtype is None:
            return None
        chosen = range(len(inputs))[self.same_dtype]
        if not chosen:
            return None
        first = inputs[chosen[0]].dtype
        for i in chosen:
            if inputs[i].dtype is not first:
                return (f"cannot compute {self.type} as input #{i}(zero-based) was expected to "
                        f"be a {first.name} tensor but is a {inputs[i].dtype.name} tensor "
                        f"[Op:{self.type}]")
        return None

    def __repr__(self) -> str:
        return f"OpDef({self.type!r})"


def declare_op(type: str, kernel: Callable, infer: Callable, **options: Any) -> OpDef:
    """Declares and registers an op type; a second declaration is a KeyError."""
    op_def = OpDef(type, kernel, infer, **options)
    op_defs.register(type, op_def)
    return op_def


@functools.lru_cache(maxsize=1024, typed=True)
def shared_attrs(names: Tuple[str, ...], *values: Any) -> dict:
    """One attrs dict per distinct (names, values), shared by every call that builds it:
    an op's attrs are never written, and a loop's eager records of the op then find
    their tape cell by identity (eager/tape.py). Typed, so that 1 and True stay apart;
    a tuple value must hold Python ints only (its items are compared, not typed)."""
    return dict(zip(names, values, strict=True))


def lookup_op(type: str) -> OpDef:
    return op_defs.lookup(type)


OutputSpecs = Sequence[Tuple[Any, Any]]
