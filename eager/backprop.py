"""GradientTape: records eager (or graph) ops and differentiates them."""
from __future__ import annotations

import contextlib
import logging
import weakref
from typing import Any, Iterator, List, Optional

import numpy as np

from ..framework import nest
from ..framework.func_graph import inner_tensor
from ..framework.gc_pause import hold_gc
from ..framework.tensor_shape import TensorShape
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..grad_registry.unconnected import UnconnectedGradients, as_unconnected_gradients
from ..ops.array import array_ops, join_ops
from ..ops.constant_op import convert_to_tensor
from . import context
from .imperative_grad import array_gradients, arrays_mode_allowed, imperative_grad
from .gradient_replay import replay_allowed, replayed_gradient
from .jacobian_plans import plan_cache, plans_allowed
from .jacobians import column_seeds, one_hot_seeds, vectorized_backward
from .tape import Tape

_state = context.state
_log = logging.getLogger("duograd")


def _source_id(source: Any) -> int:
    handle = getattr(source, "handle", None)
    if handle is not None and not isinstance(source, Tensor):
        return handle.tensor_id
    return inner_tensor(source, capture=False).tensor_id


def _is_variable(value: Any) -> bool:
    return not isinstance(value, Tensor) and getattr(value, "handle", None) is not None


def _check_sources(what: str, sources: List[Any]) -> None:
    """TF's TypeError for a source that is no tensor or variable (TF raises it while
    converting the source's dtype, or leaks an AttributeError for an int)."""
    for s in sources:
        if not isinstance(s, Tensor) and not _is_variable(s):
            raise TypeError(f"{what}: sources must be tensors or variables, got {s!r}")


class GradientTape:
    """Records operations on watched tensors so that gradients can be computed.

    Trainable variables read inside the block are watched automatically unless
    `watch_accessed_variables=False`. A non-persistent tape computes one set of
    gradients; a persistent one any number (and `hessian`).
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._tape: Optional[Tape] = None
        self._recording = False
        self._used = False
        self._watched_variables: tuple = ()

    # -- recording --------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("Tape is still recording; it cannot be entered twice.")
        if self._tape is None:
            self._tape = Tape(self._persistent, self._watch_accessed_variables)
        self._push()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        assert self._tape is not None, "a tape exists before recording starts"
        context.push_tape(self._tape)
        self._recording = True
        # The collector is held off while this tape records (framework/gc_pause.py);
        # a tape abandoned while recording (never exited) releases its hold, and leaves
        # its thread's tape stack, when it is freed: nobody can use it any more.
        hold = hold_gc()
        self._gc_release = weakref.finalize(self, _abandoned, hold, context.state.tapes,
                                            self._tape)

    def _pop(self) -> None:
        context.pop_tape(self._tape)
        self._recording = False
        self._gc_release()

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside are not recorded on this tape."""
        if not self._recording:
            raise ValueError("Tape.stop_recording: the tape is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        was = self._recording
        if was:
            self._pop()
        self._tape = Tape(self._persistent, self._watch_accessed_variables)
        self._used = False
        if was:
            self._push()

    def watch(self, tensor: Any) -> None:
        """Marks tensors or variables (any nesting) as sources to differentiate."""
        if self._tape is None:
            self._tape = Tape(self._persistent, self._watch_accessed_variables)
        for t in nest.flatten(tensor):
            if _is_variable(t):
                self._tape.watch_variable(t)
                continue
            if not isinstance(t, Tensor):
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 "tf.Tensor or tf.Variable or ExtensionType.")
            if not t.dtype.is_differentiable:
                _log.warning("The dtype of the watched tensor must be floating (e.g. "
                             "float32), got %s", t.dtype.name)
            self._tape.watch_id(t.tensor_id)
            inner = inner_tensor(t)   # an outer tensor watched inside a traced function
            if inner is not t:
                self._tape.watch_id(inner.tensor_id)

    def watched_variables(self) -> tuple:
        """Variables watched (explicitly or by being read), in first-watch order."""
        if self._tape is not None:
            self._watched_variables = tuple(self._tape.variables.values())
        return self._watched_variables

    # -- differentiation ----------------------------------------------------
    def _check_usable(self, what: str) -> Tape:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if self._tape is None:
            raise RuntimeError(f"GradientTape.{what} called on a tape that never recorded: "
                               "use it as a context manager (or call watch) first.")
        return self._tape

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """d(sum of targets)/d(source) for each source, nested like `sources`."""
        tape = self._check_usable("gradient")
        unconnected = as_unconnected_gradients(unconnected_gradients)
        flat_sources = nest.flatten(sources)
        flat_targets: List[Any] = [convert_to_tensor(t) if not isinstance(t, Tensor) and not _is_variable(t)
                        else t for t in nest.flatten(target)]
        # A variable target is its handle, as in TF: the seed reaches a variable
        # source directly, so tape.gradient(v, v) is ones like v.
        target_ids = [_source_id(t) for t in flat_targets]
        flat_targets = [t.read_value() if _is_variable(t) else t for t in flat_targets]
        if output_gradients is not None:
            output_gradients = [None if g is None else convert_to_tensor(g)
                                for g in nest.flatten(output_gradients)]
            if len(output_gradients) != len(flat_targets):
                raise ValueError(f"Passed {len(output_gradients)} output_gradients for "
                                 f"{len(flat_targets)} targets")
        _check_sources("GradientTape.gradient", flat_sources)
        grads = self._backprop(tape, flat_targets, target_ids, flat_sources, output_gradients)
        self._finish()
        result = []
        for source, grad in zip(flat_sources, grads, strict=True):
            if not source.dtype.is_differentiable:
                _log.warning("The dtype of the source tensor must be floating (e.g. tf.float32) "
                             "when calling GradientTape.gradient, got %s", source.dtype.name)
                grad = None
            if grad is None and unconnected is UnconnectedGradients.ZERO:
                grad = _zeros_like_source(source)
            result.append(grad)
        return nest.pack_sequence_as(sources, result)

    def _backprop(self, tape: Tape, targets: List[Any], target_ids: List[Any],
                  sources: List[Any], output_gradients: Optional[List[Any]]) -> list:
        """Runs imperative_grad; a non-persistent tape is paused (its gradient ops are not
        its own), a persistent one inside its context records them, as in TF, so that
        gradients of those gradients can be taken from it."""
        was = self._recording and not self._persistent
        if was:
            self._pop()
        hold = hold_gc()
        try:
            source_ids = [_source_id(s) for s in sources]
            if arrays_mode_allowed(tape, targets, output_gradients):
                grads = array_gradients(tape.producers, targets, target_ids, source_ids,
                                        output_gradients)
                if grads is not None:
                    return grads
            elif replay_allowed(targets, output_gradients) and target_ids[0] == \
                    targets[0].tensor_id:
                grads = replayed_gradient(tape.producers, targets[0], source_ids)
                if grads is not None:
                    return grads
            return imperative_grad(tape.producers, targets, target_ids, source_ids,
                                   output_gradients, release=not self._persistent)
        finally:
            hold.release()
            if was:
                self._push()

    def _check_loop_allowed(self, what: str, use_pfor: bool) -> None:
        """The per-element loop differentiates the tape many times: eagerly, only a
        persistent tape may (as TF)."""
        if not use_pfor and not self._persistent and context.executing_eagerly():
            raise RuntimeError(f"GradientTape must be created with persistent=True to compute "
                               f"the {what} with eager execution enabled and with "
                               "experimental_use_pfor set to False.")

    def _finish(self) -> None:
        """A non-persistent tape is spent after one gradient/jacobian: drop its entries."""
        if not self._persistent:
            self._used = True
            if self._recording:
                self._pop()
            if self._tape is not None:
                self._watched_variables = tuple(self._tape.variables.values())
            self._tape = None

    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Optional[int] = None,
                 experimental_use_pfor: bool = True) -> Any:
        """d target[i...] / d source[j...], shaped target.shape + source.shape.

        With `experimental_use_pfor` (the default) the backward pass runs once,
        vectorized over all one-hot output gradients; otherwise once per element.
        """
        tape = self._check_usable("jacobian")
        self._check_loop_allowed("jacobian", experimental_use_pfor)
        unconnected = as_unconnected_gradients(unconnected_gradients)
        target = convert_to_tensor(target)
        flat_sources = nest.flatten(sources)
        _check_sources("GradientTape.jacobian", flat_sources)
        n = target.shape.num_elements()
        if n is None:
            raise ValueError(f"jacobian needs a statically known target shape, got {target.shape}")
        source_ids = [_source_id(s) for s in flat_sources]
        was = self._recording
        if was:
            self._pop()
        try:
            if experimental_use_pfor and n > 0:
                stacked = vectorized_backward(tape.producers, target, source_ids,
                                              one_hot_seeds(target), n)
            else:
                stacked = _jacobian_loop(tape, target, flat_sources, source_ids, n)
        finally:
            if was:
                self._push()
        self._finish()
        result = []
        for source, rows in zip(flat_sources, stacked, strict=True):
            if rows is None:
                result.append(_zeros_jacobian(target, source) if unconnected is
                              UnconnectedGradients.ZERO else None)
                continue
            shape = target.shape.as_list() + list(_source_shape(source))
            same = rows.shape.rank is not None and rows.shape.as_list() == shape
            result.append(rows if same else
                          array_ops.reshape(rows, shape))
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Optional[int] = None,
                       experimental_use_pfor: bool = True) -> Any:
        """Per-example Jacobians: result[b] = d target[b] / d source[b]."""
        tape = self._check_usable("batch_jacobian")
        self._check_loop_allowed("batch_jacobian", experimental_use_pfor)
        unconnected = as_unconnected_gradients(unconnected_gradients)
        target = convert_to_tensor(target)
        _check_sources("GradientTape.batch_jacobian", [source])
        for shape in (target.shape, _source_tensor_shape(source)):
            if shape.rank is not None and shape.rank < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        tshape = target.shape.as_list()
        sshape = list(_source_shape(source))
        if tshape[0] != sshape[0]:
            raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape "
                             f"({sshape}) to match.")
        batch = tshape[0]
        inner = 1
        for d in tshape[1:]:
            inner *= d
        was = self._recording
        if was:
            self._pop()
        try:
            if experimental_use_pfor and batch is not None and inner > 0 and \
                    None not in sshape:
                (rows,) = vectorized_backward(tape.producers, target, [_source_id(source)],
                                              column_seeds(target, batch, inner), inner,
                                              seed_key=("columns", batch, inner))
                if rows is not None:
                    rank = len(sshape) + 1
                    rows = array_ops.transpose(rows, [1, 0] + list(range(2, rank)))
                parts = None if rows is None else [rows]
            else:
                parts = _batch_jacobian_loop(tape, target, source, batch, inner)
        finally:
            if was:
                self._push()
        self._finish()
        if parts is None:
            if unconnected is UnconnectedGradients.ZERO:
                return array_ops.zeros(tshape + sshape[1:], target.dtype)
            return None
        stacked = parts[0] if len(parts) == 1 else join_ops.stack(parts, axis=1)
        return array_ops.reshape(stacked, tshape + sshape[1:])  # [batch, inner, ...] before

    def hessian(self, target: Any, sources: Any) -> Any:
        """Hessian blocks of a scalar target, each shaped source.shape + source.shape.

        Needs `persistent=True`: the recorded forward pass is differentiated twice.
        """
        if not self._persistent:
            raise RuntimeError("GradientTape.hessian requires a persistent tape "
                               "(GradientTape(persistent=True)).")
        tape = self._check_usable("hessian")
        flat_sources = nest.flatten(sources)
        was = self._recording
        if was:
            self._pop()
        try:
            if plans_allowed(target):   # a repeated structure: one compiled plan
                blocks = plan_cache().hessian(tape, target,
                                              [_source_id(s) for s in flat_sources])
                if blocks is not None:
                    return nest.pack_sequence_as(sources, blocks)
            outer = GradientTape(persistent=True)
            outer._tape = Tape(persistent=True)
            outer._tape.record_entry_copy(tape)
            with outer:
                grads = imperative_grad(tape.producers, [target], [target.tensor_id],
                                        [_source_id(s) for s in flat_sources], None, release=False)
            result = []
            for source, grad in zip(flat_sources, grads, strict=True):
                if grad is None:
                    shape = list(_source_shape(source)) * 2
                    result.append(array_ops.zeros(shape, source.dtype))
                    continue
                result.append(outer.jacobian(grad, source,
                                             unconnected_gradients=UnconnectedGradients.ZERO))
        finally:
            if was:
                self._push()
        return nest.pack_sequence_as(sources, result)


def _abandoned(hold: Any, tapes: list, tape: Tape) -> None:
    """Finalizer of a recording GradientTape (also run by `_pop`): release its hold on
    the collector and take its tape off the stack it was pushed on, if still there."""
    hold.release()
    for i in range(len(tapes) - 1, -1, -1):
        if tapes[i] is tape:
            del tapes[i]
            break


def _jacobian_loop(tape: Tape, target: Any, flat_sources: list, source_ids: list,
                   n: int) -> list:
    """The unvectorized Jacobian: one backward pass per target element, rows stacked."""
    rows: List[List[Any]] = [[] for _ in flat_sources]
    if n == 0:   # no rows, but a connected source still has a (zero-size) Jacobian
        grads = imperative_grad(tape.producers, [target], [target.tensor_id], source_ids,
                                [array_ops.zeros_like(target)], release=False)
        return [None if g is None else
                array_ops.zeros(target.shape.as_list() + list(_source_shape(s)), s.dtype)
                for s, g in zip(flat_sources, grads, strict=True)]
    for j in range(n):
        grads = imperative_grad(tape.producers, [target], [target.tensor_id], source_ids,
                                [_one_hot_like(target, j)], release=False)
        for k, g in enumerate(grads):
            rows[k].append(convert_to_tensor(g) if isinstance(g, IndexedSlices) else g)
    stacked: List[Optional[Any]] = []
    for source, parts in zip(flat_sources, rows, strict=True):
        if all(p is None for p in parts):
            stacked.append(None)
            continue
        parts = [p if p is not None else _zeros_like_source(source) for p in parts]
        stacked.append(join_ops.stack(parts))
    return stacked


def _batch_jacobian_loop(tape: Tape, target: Any, source: Any, batch: int,
                         inner: int) -> Optional[list]:
    """Per-example Jacobian columns, one backward pass each (None: unconnected)."""
    if inner == 0:   # no columns, but a connected source still has a (zero-size) result
        (g,) = imperative_grad(tape.producers, [target], [target.tensor_id],
                               [_source_id(source)], [array_ops.zeros_like(target)],
                               release=False)
        if g is None:
            return None
        return [array_ops.zeros([target.shape.as_list()[0], 0] +
                                list(_source_shape(source))[1:], source.dtype)]
    parts = []
    for j in range(inner):
        seed = _column_seed(target, batch, inner, j)
        (g,) = imperative_grad(tape.producers, [target], [target.tensor_id],
                               [_source_id(source)], [seed], release=False)
        parts.append(convert_to_tensor(g) if isinstance(g, IndexedSlices) else g)
    if all(p is None for p in parts):
        return None
    return [p if p is not None else _zeros_like_source(source) for p in parts]


def _source_tensor_shape(source: Any) -> Any:
    """A source's static TensorShape (a variable's, or a tensor's)."""
    return source.shape if isinstance(source.shape, TensorShape) else TensorShape(source.shape)


def _source_shape(source: Any) -> tuple:
    return tuple(source.shape.as_list())


def _zeros_like_source(source: Any) -> Any:
    if _is_variable(source):
        return array_ops.zeros(source.shape, source.dtype)
    return array_ops.zeros_like(source)


def _zeros_jacobian(target: Any, source: Any) -> Any:
    return array_ops.zeros(target.shape.as_list() + list(_source_shape(source)), source.dtype)


def _one_hot_like(target: Any, j: int) -> Any:
    seed = np.zeros(target.shape.num_elements(), dtype=target.dtype.as_numpy_dtype)
    seed[j] = 1
    return convert_to_tensor(seed.reshape(target.shape.as_list()))


def _column_seed(target: Any, batch: int, inner: int, j: int) -> Any:
    seed = np.zeros((batch, inner), dtype=target.dtype.as_numpy_dtype)
    seed[:, j] = 1
    return convert_to_tensor(seed.reshape(target.shape.as_list()))
