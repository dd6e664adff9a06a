"""Op-table rows for the array ops: slicing, splitting, creation, padding, scatter, sort."""
from __future__ import annotations

import numpy as np

import duograd as dg
from duograd.ops.array import array_ops, manip_ops, slicing_ops
from .spec import OpSpec, inputs, normal


def _mirror_adjoint(g, paddings, mode, shape):
    """NumPy reference for MirrorPadGrad: scatter-add through the padded index map."""
    index = np.pad(np.arange(int(np.prod(shape))).reshape(shape), paddings, mode=mode)
    return np.bincount(index.ravel(), weights=g.ravel(), minlength=index.size).reshape(-1)[
        :int(np.prod(shape))].reshape(shape)


def _strided_grad_ref(dy):
    out = np.zeros((4, 3))
    out[1:3, 0:3:2] = dy
    return out


def _unique_ref(x):
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first)
    return x[np.sort(first)], np.argsort(order)[inverse].astype(np.int32)


def _scatter_ref(shape, indices, updates, base=None, sign=1):
    out = np.zeros(shape) if base is None else base.copy()
    for i, u in zip(indices, updates):
        out[tuple(i)] += sign * u
    return out


def _clip_ref(x, clip=1.0, axes=None):
    norm = np.sqrt((x * x).sum(axis=axes, keepdims=True))
    return x * clip / np.maximum(norm, clip)


def _global_clip_ref(a, b):
    norm = np.sqrt((a * a).sum() + (b * b).sum())
    return [a / max(norm, 1.0), b / max(norm, 1.0)]


MASK = np.array([True, False, True])

ROWS = [
    # -- slicing --------------------------------------------------------------------
    OpSpec("slice", lambda x: dg.slice(x, [1, 0], [2, -1]), lambda x: x[1:3, :],
           inputs(normal(4, 3))),
    OpSpec("strided_slice", lambda x: dg.strided_slice(x, [0, 1], [3, 3], [2, 1]),
           lambda x: x[0:3:2, 1:3], inputs(normal(4, 3))),
    OpSpec("strided_slice_masks", lambda x: dg.strided_slice(
        x, [1, 0, 2], [0, 0, 0], [1, 1, -1], begin_mask=0b010, end_mask=0b101,
        shrink_axis_mask=0b010), lambda x: x[1:, 0, 2::-1], inputs(normal(3, 2, 4))),
    OpSpec("getitem_steps", lambda x: x[1:, ::-2], lambda x: x[1:, ::-2], inputs(normal(4, 5))),
    OpSpec("getitem_ellipsis_int", lambda x: x[..., 1], lambda x: x[..., 1],
           inputs(normal(2, 3, 4))),
    OpSpec("getitem_newaxis_negative", lambda x: x[None, -1, 1:3, dg.newaxis],
           lambda x: x[None, -1, 1:3, None], inputs(normal(3, 4))),
    OpSpec("getitem_scalar", lambda x: x[2, -1], lambda x: x[2, -1], inputs(normal(3, 4))),
    OpSpec("getitem_tensor_index", lambda x: x[dg.constant(1), dg.constant(-3):],
           lambda x: x[1, -3:], inputs(normal(3, 4))),
    OpSpec("strided_slice_grad", lambda dy: slicing_ops.strided_slice_grad(
        dg.constant([4, 3]), dg.constant([1, 0]), dg.constant([3, 3]), dg.constant([1, 2]), dy),
        _strided_grad_ref, inputs(normal(2, 2))),
    # -- joining and splitting --------------------------------------------------------
    OpSpec("split", lambda x: dg.split(x, 2, axis=1), lambda x: np.split(x, 2, 1),
           inputs(normal(3, 4))),
    OpSpec("split_sizes", lambda x: dg.split(x, [2, -1], axis=0), lambda x: np.split(x, 2, 0),
           inputs(normal(4, 3))),
    OpSpec("unstack", lambda x: dg.unstack(x, num=3, axis=1),
           lambda x: [x[:, i] for i in range(3)], inputs(normal(2, 3, 2))),
    # -- creation -------------------------------------------------------------------
    OpSpec("range", lambda n: dg.range(n), lambda n: np.arange(n, dtype=np.int32),
           inputs(lambda rng: np.array(5, np.int32)), order=0),
    OpSpec("range_float", lambda: dg.range(1.0, 2.0, 0.25),
           lambda: np.arange(1.0, 2.0, 0.25, dtype=np.float32), lambda rng: [], order=0),
    OpSpec("linspace", lambda a, b: dg.linspace(a, b, 5), lambda a, b: np.linspace(a, b, 5),
           inputs(lambda rng: np.array(-1.5), lambda rng: np.array(2.0))),
    OpSpec("eye_dynamic", lambda n: dg.eye(n, dtype=dg.float64), lambda n: np.eye(n),
           inputs(lambda rng: np.array(3, np.int32)), order=0),
    OpSpec("shape_n", lambda a, b: dg.shape_n([a, b]),
           lambda a, b: [np.array(a.shape, np.int32), np.array(b.shape, np.int32)],
           inputs(normal(2, 3), normal(4, 1)), order=0),
    OpSpec("fill", lambda v: dg.fill([2, 3], v), lambda v: np.full((2, 3), v),
           inputs(lambda rng: np.array(1.5))),
    OpSpec("zeros_like", dg.zeros_like, np.zeros_like, inputs(normal(2, 3)), order=0),
    OpSpec("ones_like", dg.ones_like, np.ones_like, inputs(normal(2, 3)), order=0),
    # -- core array ops without rows elsewhere ------------------------------------------
    OpSpec("identity_n", lambda a, b: dg.identity_n([a, b]), lambda a, b: [a, b],
           inputs(normal(2, 3), normal(2, 3))),
    OpSpec("shape", dg.shape, lambda x: np.array(x.shape, np.int32), inputs(normal(2, 3)),
           order=0),
    OpSpec("size", dg.size, lambda x: np.array(x.size, np.int32), inputs(normal(2, 3)),
           order=0),
    OpSpec("rank", dg.rank, lambda x: np.array(x.ndim, np.int32), inputs(normal(2, 3)),
           order=0),
    OpSpec("stop_gradient", dg.stop_gradient, lambda x: x, inputs(normal(3)), order=0),
    OpSpec("sum_to_shape", lambda x: array_ops.sum_to_shape(x, [1, 4]),
           lambda x: x.sum(0, keepdims=True), inputs(normal(3, 4))),
    OpSpec("where_indices", lambda x: dg.where(x > 0), lambda x: np.argwhere(x > 0),
           inputs(normal(3, 4)), order=0),
    # -- tile, pad, reverse, one_hot -----------------------------------------------------
    OpSpec("tile", lambda x: dg.tile(x, [2, 3]), lambda x: np.tile(x, (2, 3)),
           inputs(normal(2, 3))),
    OpSpec("pad_constant", lambda x: dg.pad(x, [[1, 0], [2, 1]], constant_values=1.5),
           lambda x: np.pad(x, [[1, 0], [2, 1]], constant_values=1.5), inputs(normal(2, 3))),
    OpSpec("pad_reflect", lambda x: dg.pad(x, [[1, 2], [2, 1]], "REFLECT"),
           lambda x: np.pad(x, [[1, 2], [2, 1]], mode="reflect"), inputs(normal(3, 4))),
    OpSpec("pad_symmetric", lambda x: dg.pad(x, [[3, 1], [0, 2]], "SYMMETRIC"),
           lambda x: np.pad(x, [[3, 1], [0, 2]], mode="symmetric"), inputs(normal(3, 2))),
    OpSpec("mirror_pad_grad", lambda g: manip_ops.mirror_pad_grad(
        g, dg.constant([[1, 2], [2, 1]]), "REFLECT"),
        lambda g: _mirror_adjoint(g, [[1, 2], [2, 1]], "reflect", (3, 4)), inputs(normal(6, 7))),
    OpSpec("reverse", lambda x: dg.reverse(x, [0, -1]), lambda x: x[::-1, :, ::-1],
           inputs(normal(2, 3, 2))),
    OpSpec("one_hot", lambda i: dg.one_hot(i, 4, axis=0),
           lambda i: (np.arange(4)[:, None, None] == i[None]).astype(np.float32),
           inputs(lambda rng: np.array([[0, 3, 5], [-1, 2, 2]], np.int32)), order=0),
    # -- gather_nd, scatter_nd ----------------------------------------------------------
    OpSpec("gather_nd", lambda p: dg.gather_nd(p, [[0, 1], [2, 3], [0, 1]]),
           lambda p: p[[0, 2, 0], [1, 3, 1]], inputs(normal(3, 4))),
    OpSpec("gather_nd_slices", lambda p: dg.gather_nd(p, [[[1], [0]]]),
           lambda p: p[[[1, 0]]], inputs(normal(3, 2, 2))),
    OpSpec("scatter_nd", lambda u: dg.scatter_nd([[0], [2], [0]], u, [4, 3]),
           lambda u: _scatter_ref((4, 3), [[0], [2], [0]], u), inputs(normal(3, 3))),
    OpSpec("tensor_scatter_nd_update",
           lambda t, u: dg.tensor_scatter_nd_update(t, [[1, 0], [3, 2]], u),
           lambda t, u: np.where(np.isin(np.arange(12).reshape(4, 3), [3, 11]),
                                 np.zeros((4, 3)), t) + _scatter_ref((4, 3), [[1, 0], [3, 2]], u),
           inputs(normal(4, 3), normal(2))),
    OpSpec("tensor_scatter_nd_add", lambda t, u: dg.tensor_scatter_nd_add(t, [[1], [1]], u),
           lambda t, u: _scatter_ref((4, 3), [[1], [1]], u, base=t), inputs(normal(4, 3),
                                                                             normal(2, 3))),
    OpSpec("tensor_scatter_nd_sub", lambda t, u: dg.tensor_scatter_nd_sub(t, [[3], [0]], u),
           lambda t, u: _scatter_ref((4, 3), [[3], [0]], u, base=t, sign=-1),
           inputs(normal(4, 3), normal(2, 3))),
    OpSpec("boolean_mask", lambda x: dg.boolean_mask(x, MASK), lambda x: x[MASK],
           inputs(normal(3, 2))),
    OpSpec("boolean_mask_axis1", lambda x: dg.boolean_mask(x, MASK, axis=1),
           lambda x: x[:, MASK], inputs(normal(2, 3, 2))),
    # -- sort, unique ---------------------------------------------------------------------
    OpSpec("sort_axis0", lambda x: dg.sort(x, axis=0), lambda x: np.sort(x, 0),
           inputs(normal(4, 3))),
    OpSpec("sort_descending", lambda x: dg.sort(x, direction="DESCENDING"),
           lambda x: -np.sort(-x, -1), inputs(normal(2, 5))),
    OpSpec("argsort", lambda x: dg.argsort(x, axis=1, direction="DESCENDING"),
           lambda x: np.argsort(-x, 1).astype(np.int32), inputs(normal(3, 4)), order=0),
    OpSpec("unique_values", lambda x: dg.unique(x)[0], lambda x: _unique_ref(x)[0],
           inputs(lambda rng: np.array([4, 1, 4, 2, 1, 7], np.int32)), order=0),
    OpSpec("unique_idx", lambda x: dg.unique(x)[1], lambda x: _unique_ref(x)[1],
           inputs(lambda rng: np.array([4., 1., 4., 2., 1., 7.])), order=0),
    # -- clipping -------------------------------------------------------------------------
    OpSpec("clip_by_norm", lambda x: dg.clip_by_norm(x, 1.0), _clip_ref, inputs(normal(3, 4))),
    OpSpec("clip_by_norm_axes", lambda x: dg.clip_by_norm(x, 1.0, axes=[1]),
           lambda x: _clip_ref(x, 1.0, axes=1), inputs(normal(3, 4))),
    OpSpec("clip_by_global_norm", lambda a, b: dg.clip_by_global_norm([a, b], 1.0)[0],
           _global_clip_ref, inputs(normal(2, 3), normal(2, 3))),
]
