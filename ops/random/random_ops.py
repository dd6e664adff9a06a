"""Random ops (`dg.random`) with TensorFlow's global-seed / op-seed rules.

Seeds (TF's `get_seed`): with a global seed and no op seed, each random op
takes the next op seed of a counter (per thread in eager mode, per graph in
graph mode; `set_seed` restarts both), so the same program with the same
seeds draws the same numbers in both modes. An op seed without a global seed
pairs with TF's default graph seed. With neither, numbers are not
reproducible.

Streams: a seeded op draws from a generator that advances, so repeated calls
or runs give new numbers (TF's stateful kernels). In graph mode each op owns
its stream, kept in the Session (a new Session starts it again); in eager
mode streams are keyed by (op type, dtype, seeds) in the thread's context and
`set_seed` clears them. Random ops are not differentiable (random_grad.py).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from ...eager import context
from ...framework.allocation import check_allocation
from ...framework import dtypes
from ...framework.errors import FailedPreconditionError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..math.math_ops import add, multiply
from ..tensor_util import shape_from_tensor

_state = context.state


class _SeedState(context.OwnedThreadState):
    """This thread's seeds: the global seed (`dg.random.set_seed`), the counter that
    gives ops without a seed of their own theirs, and eager mode's seeded random
    streams {(op type, dtype, seed, seed2): generator}, which `set_seed` clears (TF
    resets its eager kernel cache)."""

    def __init__(self) -> None:
        self.global_seed: Optional[int] = None
        self.op_seed_counter = 0
        self.random_streams: dict = {}


_seeds = context.owned_state(_SeedState)
DEFAULT_GRAPH_SEED = 87654321
_GRAPH_SEEDS = "duograd.random.op_seeds"  # graph collection: op seeds handed out so far


class RandomStream:
    """The resource a seeded random op draws from (a NumPy Generator).

    `Session.read/write` key it by identity (one stream per graph op); eager
    mode reads it through `eager_value`, shared by every op with the same key.
    A stream whose op seed came from the counter is used once in eager mode,
    so it is not kept there.
    """

    __slots__ = ("key", "name", "keep")

    def __init__(self, op_type: str, dtype: Any, seed: int, seed2: int, keep: bool) -> None:
        self.key = (op_type, dtype, seed, seed2)
        self.name = f"{op_type}(seed={seed}, seed2={seed2})"
        self.keep = keep

    def new_generator(self) -> np.random.Generator:
        seeds = [int(s) & 0xFFFFFFFFFFFFFFFF for s in self.key[2:]]
        return np.random.Generator(np.random.Philox(np.random.SeedSequence(seeds)))

    def eager_value(self) -> np.random.Generator:
        if not self.keep:
            return self.new_generator()
        streams = _seeds.random_streams
        generator = streams.get(self.key)
        if generator is None:
            generator = streams[self.key] = self.new_generator()
        return generator

    def set_eager_value(self, value: np.random.Generator) -> None:
        if self.keep:
            _seeds.random_streams[self.key] = value

    def generator(self, resources: Any) -> np.random.Generator:
        """This stream's generator in `resources` (a Session or the eager store)."""
        try:
            return resources.read(self)
        except FailedPreconditionError:
            generator = self.new_generator()
            resources.write(self, generator)
            return generator

    def __repr__(self) -> str:
        return f"RandomStream({self.name})"


def set_seed(seed: Optional[int]) -> None:
    """Sets the global seed and restarts the op-seed counter and the eager streams."""
    _seeds.global_seed = None if seed is None else int(seed)
    _seeds.op_seed_counter = 0
    _seeds.random_streams = {}
    graph = _state.graph
    if graph is not None:
        graph.collections.pop(_GRAPH_SEEDS, None)


def get_seed(op_seed: Optional[int]) -> Tuple[Optional[int], Optional[int]]:
    """(seed, seed2) of a new random op from the global seed and `op_seed` (TF's rule)."""
    global_seed = _seeds.global_seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = _next_op_seed()
        return global_seed, int(op_seed)
    if op_seed is not None:
        return DEFAULT_GRAPH_SEED, int(op_seed)
    return None, None


def _next_op_seed() -> int:
    graph = _state.graph
    if graph is None:
        seed = _seeds.op_seed_counter
        _seeds.op_seed_counter = seed + 1
        return seed
    seed = len(graph.get_collection(_GRAPH_SEEDS))
    graph.add_to_collection(_GRAPH_SEEDS, seed)
    return seed


def _random_attrs(op_type: str, dtype: dtypes.DType, op_seed: Optional[int]) -> dict:
    keep = op_seed is not None or _state.graph is not None
    seed, seed2 = get_seed(op_seed)
    stream = None if seed is None or seed2 is None else RandomStream(op_type, dtype, seed, seed2, keep)
    return {"dtype": dtype, "stream": stream}


def _generator(resources: Any, stream: Optional[RandomStream]) -> np.random.Generator:
    return np.random.default_rng() if stream is None else stream.generator(resources)


def _dims(shape: np.ndarray) -> tuple:
    if np.ndim(shape) != 1:
        raise ValueError(f"shape must be a vector, got a tensor of shape {np.shape(shape)}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"shape must not have negative dimensions, got {list(dims)}")
    check_allocation("Random", dims, np.float32)
    return dims


# -- kernels and shape rules ---------------------------------------------------
def _normal_kernel(resources, shape, *, dtype, stream):
    draw_type = np.float64 if dtype is dtypes.float64 else np.float32
    values = _generator(resources, stream).standard_normal(_dims(shape), dtype=draw_type)
    return values.astype(dtype.as_numpy_dtype, copy=False)


def _uniform_kernel(resources, shape, *, dtype, stream):
    draw_type = np.float64 if dtype is dtypes.float64 else np.float32
    values = _generator(resources, stream).random(_dims(shape), dtype=draw_type)
    values = values.astype(dtype.as_numpy_dtype, copy=False)
    if dtype is dtypes.float16:  # rounding to half precision must not reach 1.0
        values = np.minimum(values, np.nextafter(np.float16(1), np.float16(0)))
    return values


def _uniform_int_kernel(resources, shape, minval, maxval, *, dtype, stream):
    if np.ndim(minval) or np.ndim(maxval):
        raise ValueError(f"minval and maxval must be scalars, got shapes {np.shape(minval)} "
                         f"and {np.shape(maxval)}")
    if not minval < maxval:
        raise ValueError(f"Need minval < maxval: {minval} >= {maxval}")
    return _generator(resources, stream).integers(minval, maxval, _dims(shape),
                                                  dtype=dtype.as_numpy_dtype)


def _check_shape_input(shape_tensor: Any) -> None:
    if not shape_tensor.dtype.is_integer:
        raise TypeError(f"shape must be an integer tensor, got {shape_tensor.dtype.name}")
    if shape_tensor.shape.rank not in (None, 1):
        raise ValueError(f"shape must be a vector, got shape {shape_tensor.shape}")


def _random_infer(inputs, attrs):
    _check_shape_input(inputs[0])
    return [(attrs["dtype"], shape_from_tensor(inputs[0]))]


def _uniform_int_infer(inputs, attrs):
    _check_shape_input(inputs[0])
    for bound in inputs[1:]:
        if bound.dtype is not attrs["dtype"]:
            raise TypeError(f"minval and maxval must be {attrs['dtype'].name}, "
                            f"got {bound.dtype.name}")
        if bound.shape.rank not in (None, 0):
            raise ValueError(f"minval and maxval must be scalars, got shape {bound.shape}")
    return [(attrs["dtype"], shape_from_tensor(inputs[0]))]


def _shuffle_kernel(resources, value, *, dtype, stream):
    if value.ndim == 0:
        raise ValueError("shuffle needs a tensor of rank >= 1, got a scalar")
    return value[_generator(resources, stream).permutation(value.shape[0])]


def _shuffle_infer(inputs, attrs):
    if inputs[0].shape.rank == 0:
        raise ValueError("shuffle needs a tensor of rank >= 1, got a scalar")
    return [(inputs[0].dtype, inputs[0].shape)]


def _truncated_normal_kernel(resources, shape, *, dtype, stream):
    """Standard normal samples, those beyond two standard deviations drawn again."""
    generator = _generator(resources, stream)
    draw_type = np.float64 if dtype is dtypes.float64 else np.float32
    values = generator.standard_normal(_dims(shape), dtype=draw_type)
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = generator.standard_normal(int(outside.sum()), dtype=draw_type)
        outside = np.abs(values) > 2
    return values.astype(dtype.as_numpy_dtype, copy=False)


TRUNCATED_NORMAL = declare_op("TruncatedNormal", _truncated_normal_kernel, _random_infer,
                              stateful=True, grad_inputs=())
RANDOM_SHUFFLE = declare_op("RandomShuffle", _shuffle_kernel, _shuffle_infer,
                            stateful=True, grad_inputs=())
RANDOM_STANDARD_NORMAL = declare_op("RandomStandardNormal", _normal_kernel, _random_infer,
                                    stateful=True, grad_inputs=())
RANDOM_UNIFORM = declare_op("RandomUniform", _uniform_kernel, _random_infer,
                            stateful=True, grad_inputs=())
RANDOM_UNIFORM_INT = declare_op("RandomUniformInt", _uniform_int_kernel, _uniform_int_infer,
                                stateful=True, grad_inputs=())


# -- public functions ------------------------------------------------------------
def _shape_input(shape: Any):
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    dims = np.asarray(shape)
    if dims.dtype.kind in "iu" and dims.size and (dims.max() > 2**31 - 1):
        return constant(dims.astype(np.int64).reshape(-1), name="shape")   # TF: int64
    return constant(np.asarray(shape, dtype=np.int32).reshape(-1), name="shape")


def _float_dtype(dtype: Any, what: str) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype.name} for {what}: expected a floating dtype")
    return dtype


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
           seed: Optional[int] = None, name: Optional[str] = None):
    """Samples of N(mean, stddev**2) of `shape` (`mean`/`stddev` are differentiable)."""
    dtype = _float_dtype(dtype, "random.normal")
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    attrs = _random_attrs(RANDOM_STANDARD_NORMAL.type, dtype, seed)
    values = apply_op(RANDOM_STANDARD_NORMAL, (_shape_input(shape),), attrs, name)
    return add(multiply(values, stddev), mean)


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
            seed: Optional[int] = None, name: Optional[str] = None):
    """Samples uniform in [minval, maxval); integer dtypes require `maxval` (as TF)."""
    dtype = dtypes.as_dtype(dtype)
    shape = _shape_input(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
        attrs = _random_attrs(RANDOM_UNIFORM_INT.type, dtype, seed)
        bounds = (convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype))
        return apply_op(RANDOM_UNIFORM_INT, (shape,) + bounds, attrs, name)
    dtype = _float_dtype(dtype, "random.uniform")
    unit_range = _is_number(minval, 0) and (maxval is None or _is_number(maxval, 1))
    maxval = 1 if maxval is None else maxval
    attrs = _random_attrs(RANDOM_UNIFORM.type, dtype, seed)
    values = apply_op(RANDOM_UNIFORM, (shape,), attrs, name)
    if unit_range:
        return values
    minval = convert_to_tensor(minval, dtype)
    maxval = convert_to_tensor(maxval, dtype)
    return add(multiply(values, maxval - minval), minval)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: Optional[int] = None, name: Optional[str] = None):
    """Normal samples kept within two standard deviations of `mean` (differentiable in
    `mean` and `stddev`, as random.normal)."""
    dtype = _float_dtype(dtype, "random.truncated_normal")
    mean = convert_to_tensor(mean, dtype)
    stddev = convert_to_tensor(stddev, dtype)
    attrs = _random_attrs(TRUNCATED_NORMAL.type, dtype, seed)
    values = apply_op(TRUNCATED_NORMAL, (_shape_input(shape),), attrs, name)
    return add(multiply(values, stddev), mean)


def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None):
    """`value` with its first dimension randomly permuted (not differentiable, as TF)."""
    value = convert_to_tensor(value)
    attrs = _random_attrs(RANDOM_SHUFFLE.type, value.dtype, seed)
    return apply_op(RANDOM_SHUFFLE, (value,), attrs, name)


def _is_number(value: Any, target: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == target


__all__ = ["normal", "uniform", "set_seed", "shuffle", "truncated_normal"]

# For the other random op modules (ops/random/more_random_ops.py): the seed and stream rules.
random_attrs = _random_attrs
generator_of = _generator
shape_dims = _dims
shape_input = _shape_input
