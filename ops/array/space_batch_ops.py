"""Moving spatial blocks into the batch or depth dimension and back, as TF's ops:
SpaceToBatchND / BatchToSpaceND (`dg.space_to_batch`, `dg.batch_to_space`,
`dg.space_to_batch_nd`, and TF 1's forms with a square block) and SpaceToDepth /
DepthToSpace (`dg.nn.space_to_depth`, `dg.nn.depth_to_space`, NHWC as TF's CPU kernels).
Each pair is the other's adjoint: their gradients (grad_registry/space_batch_grad.py)
apply the inverse op to the incoming gradient."""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ...framework.errors import NotFoundError
from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, unknown_shape
from ..constant_op import constant, convert_to_tensor
from ..dispatch import apply_op
from ..tensor_util import constant_value


def _int_input(value: Any, what: str) -> Any:
    """An int32/int64 tensor for a block shape, paddings or crops argument."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer:
            raise TypeError(f"{what} must be int32 or int64, got {value.dtype.name}")
        return value
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers, got {array.dtype}")
    return constant(array.astype(np.int64 if array.dtype == np.int64 else np.int32))


def _check_block(block: np.ndarray, pads: np.ndarray, rank: int, what: str) -> int:
    if block.ndim != 1:
        raise ValueError(f"block_shape must be one-dimensional, got shape {list(block.shape)}")
    m = block.shape[0]
    if pads.shape != (m, 2):
        raise ValueError(f"{what} should have shape [{m}, 2] instead of {list(pads.shape)}")
    if rank < 1 + m:
        raise ValueError(f"input rank should be >= {1 + m} instead of {rank}")
    if np.any(block < 1):
        raise ValueError(f"All values in block_shape must be positive, got {block.tolist()}")
    if np.any(pads < 0):
        raise ValueError(f"All values in {what} must be non-negative, got {pads.tolist()}")
    return m


def _space_to_batch_nd(x, block_shape, paddings):
    block, pads = np.asarray(block_shape).astype(np.int64), np.asarray(paddings).astype(np.int64)
    m = _check_block(block, pads, x.ndim, "paddings")
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    batch, spatial, rest = padded.shape[0], padded.shape[1:1 + m], padded.shape[1 + m:]
    for i, (size, b) in enumerate(zip(spatial, block, strict=True)):
        if size % b:
            raise ValueError(f"padded_shape[{i}]={size} is not divisible by "
                             f"block_shape[{i}]={b}")
    split: List[int] = [batch]
    for size, b in zip(spatial, block, strict=True):
        split += [size // b, int(b)]
    moved = padded.reshape(split + list(rest))
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] \
        + list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    out = moved.transpose(order)
    return np.ascontiguousarray(out.reshape([batch * int(np.prod(block))]
                                            + [s // b for s, b in zip(spatial, block, strict=True)]
                                            + list(rest)))


def _batch_to_space_nd(x, block_shape, crops):
    block, crop = np.asarray(block_shape).astype(np.int64), np.asarray(crops).astype(np.int64)
    m = _check_block(block, crop, x.ndim, "crops")
    total = int(np.prod(block))
    if x.shape[0] % total:
        raise ValueError(f"Input batch dimension ({x.shape[0]}) is not divisible by the product "
                         f"of block sizes ({total})")
    batch = x.shape[0] // total
    spatial, rest = x.shape[1:1 + m], x.shape[1 + m:]
    moved = x.reshape([int(b) for b in block] + [batch] + list(spatial) + list(rest))
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    full = moved.transpose(order).reshape([batch] + [s * int(b) for s, b in
                                                      zip(spatial, block, strict=True)]
                                          + list(rest))
    index = [slice(None)]
    for i, (size, (before, after)) in enumerate(zip(full.shape[1:1 + m], crop, strict=True)):
        if before + after > size:
            raise ValueError(f"Cropped size must be non-negative: crop_start[{i}]={before}, "
                             f"crop_end[{i}]={after}, size {size}")
        index.append(slice(int(before), int(size - after)))
    return np.ascontiguousarray(full[tuple(index)])


def _nd_infer(to_batch: bool):
    def infer(inputs, attrs):
        x, block_t, pads_t = inputs
        for t, what in ((block_t, "block_shape"), (pads_t, "paddings" if to_batch else "crops")):
            if not t.dtype.is_integer:
                raise TypeError(f"{what} must be int32 or int64, got {t.dtype.name}")
        block, pads = constant_value(block_t), constant_value(pads_t)
        if x.shape.rank is None:
            return [(x.dtype, unknown_shape())]
        if block is None or pads is None:
            # As TF: the M block dims (block_shape's length, when static) and the batch
            # become unknown; the dims after them are kept.
            # A static block_shape still gives the batch (times or over its product).
            m_dim = block_t.shape.dims[0] if block_t.shape.rank == 1 else None
            if m_dim is None or m_dim + 1 > x.shape.rank:
                return [(x.dtype, TensorShape((None,) * x.shape.rank))]
            batch = None
            if block is not None and x.shape.dims[0] is not None:
                total = int(np.prod(np.asarray(block).astype(np.int64)))
                if to_batch:
                    batch = x.shape.dims[0] * total
                elif total > 0 and x.shape.dims[0] % total == 0:
                    batch = x.shape.dims[0] // total
            return [(x.dtype, TensorShape([batch] + [None] * m_dim
                                          + list(x.shape.dims[1 + m_dim:])))]
        block, pads = np.asarray(block).astype(np.int64), np.asarray(pads).astype(np.int64)
        m = _check_block(block, pads, x.shape.rank, "paddings" if to_batch else "crops")
        dims = list(x.shape.dims)
        total = int(np.prod(block))
        out = list(dims)
        if to_batch:
            out[0] = None if dims[0] is None else dims[0] * total
            for i in range(m):
                d = dims[1 + i]
                if d is not None:
                    padded = d + int(pads[i].sum())
                    if padded % block[i]:
                        raise ValueError(f"padded_shape[{i}]={padded} is not divisible by "
                                         f"block_shape[{i}]={block[i]}")
                    out[1 + i] = padded // int(block[i])
        else:
            if dims[0] is not None:
                if dims[0] % total:
                    raise ValueError(f"Input batch dimension ({dims[0]}) is not divisible by "
                                     f"the product of block sizes ({total})")
                out[0] = dims[0] // total
            for i in range(m):
                d = dims[1 + i]
                out[1 + i] = None if d is None else d * int(block[i]) - int(pads[i].sum())
        return [(x.dtype, TensorShape(out))]
    return infer


SPACE_TO_BATCH_ND = declare_op("SpaceToBatchND", _space_to_batch_nd, _nd_infer(True),
                               grad_inputs=(1, 2))
BATCH_TO_SPACE_ND = declare_op("BatchToSpaceND", _batch_to_space_nd, _nd_infer(False),
                               grad_inputs=(1, 2))


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any,  # noqa: A002 (TF's name)
                      name: Optional[str] = None):
    """Zero-pads the M spatial dims of `input` by `paddings`, then moves each block of
    `block_shape` into the batch dimension (batch grows by prod(block_shape))."""
    return apply_op(SPACE_TO_BATCH_ND, (convert_to_tensor(input),
                                        _int_input(block_shape, "block_shape"),
                                        _int_input(paddings, "paddings")), name=name)


def space_to_batch(input: Any, block_shape: Any, paddings: Any,  # noqa: A002 (TF's name)
                   name: Optional[str] = None):
    """TF 2's tf.space_to_batch: space_to_batch_nd."""
    return space_to_batch_nd(input, block_shape, paddings, name)


def batch_to_space(input: Any, block_shape: Any, crops: Any,  # noqa: A002 (TF's name)
                   name: Optional[str] = None):
    """The inverse of space_to_batch: batch blocks back into space, then `crops` removed."""
    return apply_op(BATCH_TO_SPACE_ND, (convert_to_tensor(input),
                                        _int_input(block_shape, "block_shape"),
                                        _int_input(crops, "crops")), name=name)


def space_to_batch_v1(input: Any, paddings: Any, block_size: Any = None,  # noqa: A002
                      name: Optional[str] = None, block_shape: Any = None):
    """TF 1's tf.compat.v1.space_to_batch: a square block over the 2 spatial dims of NHWC."""
    size = block_size if block_size is not None else block_shape
    return _rank_4(space_to_batch_nd(input, np.array([size, size], np.int64), paddings, name))


def batch_to_space_v1(input: Any, crops: Any, block_size: Any,  # noqa: A002
                      name: Optional[str] = None, block_shape: Any = None):
    """TF 1's tf.compat.v1.batch_to_space: a square block over the 2 spatial dims of NHWC."""
    size = block_size if block_size is not None else block_shape
    return _rank_4(batch_to_space(input, np.array([size, size], np.int64), crops, name))


def _rank_4(out: Any) -> Any:
    """TF 1's SpaceToBatch/BatchToSpace take a 4-D input: an unknown-rank graph input
    still gives a 4-D static output shape, as TF's shape function says."""
    if out.shape.rank is None and hasattr(out, "set_shape"):
        out.set_shape(TensorShape((None,) * 4))
    return out


# -- depth ----------------------------------------------------------------------
def _check_depth_args(x, block_size: int, op_type: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"{op_type}: input rank should be 4 instead of {x.ndim}")
    if block_size < 2:
        raise ValueError(f"Value for attr 'block_size' of {block_size} must be at least 2")


def _space_to_depth(x, *, block_size, data_format):
    _check_depth_args(x, block_size, "SpaceToDepth")
    b, h, w, c = x.shape
    if h % block_size or w % block_size:
        raise ValueError(f"Image width {w} and height {h} should be divisible by block_size: "
                         f"{block_size}")
    bs = block_size
    out = x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(out.reshape(b, h // bs, w // bs, c * bs * bs))


def _depth_to_space(x, *, block_size, data_format):
    _check_depth_args(x, block_size, "DepthToSpace")
    b, h, w, c = x.shape
    bs = block_size
    if c % (bs * bs):
        raise ValueError(f"Input depth dimension {c} should be divisible by: {bs * bs}")
    out = x.reshape(b, h, w, bs, bs, c // (bs * bs)).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(out.reshape(b, h * bs, w * bs, c // (bs * bs)))


def _depth_infer(to_depth: bool):
    def infer(inputs, attrs):
        x = inputs[0]
        bs = attrs["block_size"]
        if bs < 2:
            raise ValueError(f"Value for attr 'block_size' of {bs} must be at least 2")
        if x.shape.rank is None:
            return [(x.dtype, TensorShape((None,) * 4))]
        if x.shape.rank != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
        b, h, w, c = x.shape.dims
        if to_depth:
            for d in (h, w):
                if d is not None and d % bs:
                    raise ValueError(f"Dimension size must be evenly divisible by {bs} but "
                                     f"is {d}")
            out = (b, None if h is None else h // bs, None if w is None else w // bs,
                   None if c is None else c * bs * bs)
        else:
            if c is not None and c % (bs * bs):
                raise ValueError(f"Dimension size must be evenly divisible by {bs * bs} but "
                                 f"is {c}")
            out = (b, None if h is None else h * bs, None if w is None else w * bs,
                   None if c is None else c // (bs * bs))
        return [(x.dtype, TensorShape(out))]
    return infer


SPACE_TO_DEPTH = declare_op("SpaceToDepth", _space_to_depth, _depth_infer(True), grad_inputs=())
DEPTH_TO_SPACE = declare_op("DepthToSpace", _depth_to_space, _depth_infer(False), grad_inputs=())


def _depth_op(op_def, input, block_size, data_format, name):  # noqa: A002
    if data_format != "NHWC":
        # TF's CPU kernels are NHWC only; NCHW / NCHW_VECT_C find no kernel.
        raise NotFoundError(None, None, f"Could not find device for node {op_def.type} with "
                                        f"data_format=\"{data_format}\": CPU kernels are NHWC")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)):
        raise TypeError(f"Expected int for argument 'block_size' not {block_size!r}.")
    return apply_op(op_def, (convert_to_tensor(input),),
                    {"block_size": int(block_size), "data_format": data_format}, name)


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: Optional[str] = None):
    """Each block_size x block_size block of H, W moved into the depth dimension."""
    return _depth_op(SPACE_TO_DEPTH, input, block_size, data_format, name)


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: Optional[str] = None):
    """The inverse of space_to_depth: depth moved back into block_size x block_size blocks."""
    return _depth_op(DEPTH_TO_SPACE, input, block_size, data_format, name)


__all__ = ["space_to_batch_nd", "space_to_batch", "batch_to_space"]
NN_NAMES = {"space_to_depth": space_to_depth, "depth_to_space": depth_to_space,
            "space_to_batch": space_to_batch}
V1_NAMES = {"space_to_batch": space_to_batch_v1, "batch_to_space": batch_to_space_v1,
            "batch_to_space_nd": batch_to_space,   # tf.compat.v1.batch_to_space_nd (the op)
            "space_to_depth": space_to_depth, "depth_to_space": depth_to_space}
