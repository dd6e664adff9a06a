"""Block execution: a pipeline's consecutive elements as one block of arrays.

`from_tensor_slices(...)[.shuffle(...)][.map(f)].batch(n)` need not move its
elements one at a time: a batch of n consecutive elements is the source's rows
at n indices (a slice, or the shuffle's next n indices) with `f` applied once to
the whole block. That is TensorFlow's map-and-batch fusion plus map
vectorization: `f` is vectorized with pfor (dg.vectorized_map) and traced once.
A stage offers blocks only where the result is the same as element by element:

- a source with random access (`BlockReader`): from_tensor_slices, and a
  `map` over one whose function is stateless (its vectorized form reads rows);
- `shuffle` over random access: the same buffer algorithm, same random draws,
  run on row indices (so the order is the one the element path gives);
- `map` over blocks (a parallel map runs blocks on its thread pool).

Anything else (a stateful function such as a random op or a py_function, a
function pfor cannot convert, or options.experimental_optimization.
map_vectorization = False) falls back to elements. A reduction inside a
vectorized function may differ from the element-wise one in the last bit.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

from ..eager.execute import EAGER_RESOURCES
from ..framework.tensor_shape import TensorShape
from ..ops.constant_op import constant
from ..ops.dispatch import apply_op
from ..ops.functions.function import Function
from ..ops.parallel_for.pfor import vectorized_map
from . import structure


class BlockReader:
    """Random access to a dataset's elements: `read(indices)` gives the block of
    those elements (a flat tuple of arrays with a leading dimension)."""

    def __init__(self, count: int, read: Callable[[Any], tuple]) -> None:
        self.count = count
        self.read = read


def sequential_blocks(reader: BlockReader, size: int) -> Iterator[tuple]:
    for start in range(0, reader.count, size):
        yield reader.read(slice(start, min(start + size, reader.count)))


def replay(graph: Any, values: dict) -> list:
    """Rebuilds `graph`'s ops in the graph being built (inlines a trace): `values` maps
    id(placeholder) to what stands for it; returns the outputs' counterparts. The
    ops are applied in creation order (a topological order); no recursion."""
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        inputs = [values[id(t)] for t in op.inputs]
        made = apply_op(op.op_def, inputs, op.attrs, op.name)
        outs = [] if not op.outputs else ([made] if len(op.outputs) == 1 else list(made))
        for tensor, new in zip(op.outputs, outs, strict=True):
            values[id(tensor)] = new
    return [values[id(t)] for t in graph.outputs]


class VectorizedFunction:
    """A traced per-element function vectorized over a leading block dimension (its
    trace replayed under pfor: the Python function is not called again), made on
    first use, once, under a lock; None when it cannot be (see the module doc)."""

    def __init__(self, function: Any) -> None:
        self._function = function
        self._lock = threading.Lock()
        self._done = False
        self._run: Optional[Callable[[Sequence[Any], Any], tuple]] = None

    def get(self) -> Optional[Callable[[Sequence[Any], Any], tuple]]:
        if not self._done:
            with self._lock:
                if not self._done:
                    try:
                        self._run = self._build()
                    except Exception:  # noqa: BLE001 - pfor cannot convert: use elements
                        self._run = None
                    self._done = True
        return self._run

    def _build(self) -> Optional[Callable[[Sequence[Any], Any], tuple]]:
        function = self._function
        if function.is_stateful:
            return None
        in_specs = structure.flat_specs(function.input_spec)
        out_specs = structure.flat_specs(function.output_spec)
        graph = function.graph
        arguments = graph.inputs[:len(in_specs)]
        captured = [(placeholder, getattr(source, "array", None))
                    for source, placeholder in graph.captures]
        if any(not isinstance(value, np.ndarray) for _, value in captured):
            return None   # a variable (read when run) or a graph tensor: elements

        def vectorized(*blocks: Any) -> list:
            def one(element: Any) -> tuple:
                leaves = list(element) if isinstance(element, tuple) else [element]
                values = {id(p): leaf for p, leaf in zip(arguments, leaves, strict=True)}
                for placeholder, value in captured:
                    values[id(placeholder)] = constant(value)
                return tuple(replay(graph, values))

            out = vectorized_map(one, tuple(blocks) if len(blocks) > 1 else blocks[0])
            return list(out) if isinstance(out, (list, tuple)) else [out]

        traced = Function(vectorized, input_signature=[
            structure.batched_spec(s, None) for s in in_specs], autograph=False,
            name="vectorized_map_fn")
        concrete = traced.get_concrete_function()
        outputs = concrete.outputs
        if len(outputs) != len(out_specs) or any(
                t.dtype != s.dtype or not t.shape.is_compatible_with(
                    TensorShape([None]).concatenate(s.shape))
                for t, s in zip(outputs, out_specs, strict=True)):
            return None
        graph_function = concrete.function
        captures = [getattr(c, "array", c) for c in concrete.captured_inputs]

        def run(block: Sequence[Any], resources: Any) -> tuple:
            return graph_function.run(resources or EAGER_RESOURCES, list(block) + captures)

        return run


__all__ = ["BlockReader", "sequential_blocks", "VectorizedFunction", "replay"]
