"""Op-table rows for space/batch/depth moves, reverse_sequence, patches, scatter max/min and
TensorStridedSliceUpdate (issue 22), with NumPy references."""
from __future__ import annotations

import numpy as np

import duograd as dg
from duograd.ops.array.strided_slice_update_ops import tensor_strided_slice_update
from .spec import OpSpec, inputs, normal


def _s2b_ref(x, block, pads):
    padded = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - 1 - len(block)))
    b = padded.shape[0]
    out = []
    for offsets in np.ndindex(*block):
        index = [slice(None)] + [slice(o, None, k) for o, k in zip(offsets, block)]
        out.append(padded[tuple(index)])
    return np.concatenate(out, 0).reshape((-1, b) + out[0].shape[1:]).reshape(
        (len(out) * b,) + out[0].shape[1:])


def _d2s_ref(x, bs):
    b, h, w, c = x.shape
    out = np.zeros((b, h * bs, w * bs, c // (bs * bs)))
    for i in range(bs):
        for j in range(bs):
            k = (i * bs + j) * (c // (bs * bs))
            out[:, i::bs, j::bs, :] = x[:, :, :, k:k + c // (bs * bs)]
    return out


def _reverse_seq_ref(x, lengths):
    out = x.copy()
    for i, n in enumerate(lengths):
        out[i, :n] = x[i, :n][::-1]
    return out


def _patches_ref(x, k, s):
    b, h, w, c = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    out = np.zeros((b, oh, ow, k[0] * k[1] * c))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = x[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].reshape(b, -1)
    return out


def _scatter_ref(fold, indices):
    def ref(x, u):
        out = x.copy()
        fold.at(out, tuple(np.moveaxis(np.array(indices), -1, 0)), u)
        return out
    return ref


def _distinct(*shape):
    """Values far apart, so max/min are never tied under the gradient check's steps."""
    return lambda rng: rng.permutation(int(np.prod(shape))).reshape(shape) * 0.5 + \
        rng.uniform(0, 0.1, shape)


def _update_ref(x, v):
    out = x.copy()
    out[0:3:2, 1:4:2] = v
    return out


ROWS = [
    OpSpec("space_to_batch", lambda x: dg.space_to_batch(x, [2, 3], [[1, 1], [0, 1]]),
           lambda x: _s2b_ref(x, [2, 3], [(1, 1), (0, 1)]), inputs(normal(2, 4, 5, 3))),
    OpSpec("space_to_batch_nd_1d", lambda x: dg.space_to_batch_nd(x, [2], [[1, 1]]),
           lambda x: _s2b_ref(x, [2], [(1, 1)]), inputs(normal(2, 4, 3))),
    OpSpec("batch_to_space", lambda x: dg.batch_to_space(x, [2, 2], [[0, 1], [1, 0]]),
           None, inputs(normal(8, 2, 3, 1))),
    OpSpec("nn.space_to_depth", lambda x: dg.nn.space_to_depth(x, 2),
           lambda x: np.transpose(x.reshape(2, 2, 2, 3, 2, 3), (0, 1, 3, 2, 4, 5)).reshape(
               2, 2, 3, 12), inputs(normal(2, 4, 6, 3))),
    OpSpec("nn.depth_to_space", lambda x: dg.nn.depth_to_space(x, 2),
           lambda x: _d2s_ref(x, 2), inputs(normal(1, 2, 3, 8))),
    OpSpec("reverse_sequence", lambda x: dg.reverse_sequence(x, [0, 2, 4], seq_axis=1,
                                                             batch_axis=0),
           lambda x: _reverse_seq_ref(x, [0, 2, 4]), inputs(normal(3, 4, 2))),
    OpSpec("image.extract_patches", lambda x: dg.image.extract_patches(
        x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
        lambda x: _patches_ref(x, (2, 3), (1, 2)), inputs(normal(2, 4, 5, 2))),
    OpSpec("image.extract_patches_same_rates", lambda x: dg.image.extract_patches(
        x, [1, 2, 2, 1], [1, 2, 1, 1], [1, 2, 1, 1], "SAME"), None, inputs(normal(1, 5, 4, 2))),
    OpSpec("extract_volume_patches", lambda x: dg.extract_volume_patches(
        x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"), None, inputs(normal(1, 3, 4, 3, 2))),
    OpSpec("tensor_scatter_nd_max", lambda x, u: dg.tensor_scatter_nd_max(x, [[0], [2]], u),
           _scatter_ref(np.maximum, [[0], [2]]), inputs(_distinct(3, 2), _distinct(2, 2))),
    OpSpec("tensor_scatter_nd_min", lambda x, u: dg.tensor_scatter_nd_min(x, [[1, 0], [2, 1]], u),
           _scatter_ref(np.minimum, [[1, 0], [2, 1]]), inputs(_distinct(3, 2), _distinct(2))),
    OpSpec("raw_ops.TensorStridedSliceUpdate", lambda x, v: tensor_strided_slice_update(
        x, [0, 1], [3, 4], [2, 2], v), _update_ref, inputs(normal(4, 5), normal(2, 1))),
]
