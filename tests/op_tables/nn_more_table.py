"""Op-table rows for conv3d, depthwise_conv2d and their backprop ops, the 3-D pools,
max_pool_with_argmax and the other nn ops of issue 22, with NumPy references."""
from __future__ import annotations

import itertools

import numpy as np

import duograd as dg
from duograd.ops.nn import dilation_ops, fractional_pool_ops, lrn_ops, pool_nd_ops, ranking_ops
from .spec import OpSpec, inputs, normal

nn = dg.nn


def _conv_ref(x, w, strides, padding, depthwise=False):
    """Direct N-d (depthwise) convolution, channels last, TF's padding."""
    n = x.ndim - 2
    ks = w.shape[:n]
    outs, pads = [], []
    for size, k, s in zip(x.shape[1:1 + n], ks, strides):
        if padding == "VALID":
            o = (size - k) // s + 1
            pads.append((0, 0))
        else:
            o = -(-size // s)
            total = max((o - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(o)
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    c = x.shape[-1]
    out_c = c * w.shape[-1] if depthwise else w.shape[-1]
    out = np.zeros((x.shape[0],) + tuple(outs) + (out_c,))
    for pos in itertools.product(*[range(o) for o in outs]):
        index = (slice(None),) + tuple(slice(p * s, p * s + k) for p, s, k in
                                       zip(pos, strides, ks)) + (slice(None),)
        window = xp[index]
        if depthwise:
            value = np.einsum("bijc,ijcm->bcm", window, w).reshape(x.shape[0], -1)
        else:
            value = np.tensordot(window, w, axes=(list(range(1, n + 2)), list(range(n + 1))))
        out[(slice(None),) + pos] = value
    return out


ROWS = [
    OpSpec("nn.conv3d_same", lambda x, w: nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
           lambda x, w: _conv_ref(x, w, (1, 2, 1), "SAME"),
           inputs(normal(2, 3, 4, 3, 2), normal(2, 2, 2, 2, 3))),
    OpSpec("nn.conv3d_valid_ncdhw", lambda x, w: nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID",
                                                           data_format="NCDHW"),
           lambda x, w: np.moveaxis(_conv_ref(np.moveaxis(x, 1, -1), w, (1, 1, 1), "VALID"),
                                    -1, 1),
           inputs(normal(1, 2, 3, 3, 3), normal(2, 1, 2, 2, 2))),
    OpSpec("nn.conv3d_transpose", lambda x, w: nn.conv3d_transpose(
        x, w, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"), None,
        inputs(normal(1, 2, 2, 2, 3), normal(2, 2, 2, 2, 3))),
    OpSpec("compat.v1.nn.conv3d_backprop_filter_v2", lambda x, dy:
           dg.compat.v1.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1, 1, 1, 1, 1],
                                                     "VALID"), None,
           inputs(normal(1, 3, 3, 3, 2), normal(1, 2, 2, 2, 3))),
    OpSpec("nn.depthwise_conv2d", lambda x, w: nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
           lambda x, w: _conv_ref(x, w, (1, 1), "SAME", True),
           inputs(normal(2, 4, 5, 3), normal(3, 2, 3, 2))),
    OpSpec("nn.depthwise_conv2d_strided", lambda x, w: nn.depthwise_conv2d(
        x, w, [1, 2, 2, 1], "VALID"), lambda x, w: _conv_ref(x, w, (2, 2), "VALID", True),
        inputs(normal(1, 5, 5, 2), normal(2, 2, 2, 3))),
    OpSpec("nn.depthwise_conv2d_nchw", lambda x, w: nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "VALID", data_format="NCHW"),
        lambda x, w: np.moveaxis(_conv_ref(np.moveaxis(x, 1, -1), w, (1, 1), "VALID", True),
                                 -1, 1), inputs(normal(1, 2, 4, 4), normal(2, 2, 2, 2))),
    OpSpec("nn.depthwise_conv2d_backprop_input", lambda w, dy:
           nn.depthwise_conv2d_backprop_input([1, 4, 4, 2], w, dy, [1, 1, 1, 1], "SAME"),
           None, inputs(normal(2, 2, 2, 2), normal(1, 4, 4, 4))),
    OpSpec("nn.depthwise_conv2d_backprop_filter", lambda x, dy:
           nn.depthwise_conv2d_backprop_filter(x, [2, 2, 2, 2], dy, [1, 1, 1, 1], "SAME"),
           None, inputs(normal(1, 4, 4, 2), normal(1, 4, 4, 4))),
]


def _pool_ref(x, k, s, padding, reduce):
    """Direct N-d pool, channels last (mean over the in-bounds elements)."""
    n = x.ndim - 2
    fill = -np.inf if reduce == "max" else np.nan
    outs, pads = [], []
    for size, kk, ss in zip(x.shape[1:1 + n], k, s):
        if padding == "VALID":
            outs.append((size - kk) // ss + 1)
            pads.append((0, 0))
        else:
            o = -(-size // ss)
            total = max((o - 1) * ss + kk - size, 0)
            outs.append(o)
            pads.append((total // 2, total - total // 2))
    xp = np.pad(x.astype(np.float64), [(0, 0)] + pads + [(0, 0)], constant_values=fill)
    out = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[-1],))
    for pos in itertools.product(*[range(o) for o in outs]):
        index = (slice(None),) + tuple(slice(p * ss, p * ss + kk) for p, ss, kk in
                                       zip(pos, s, k)) + (slice(None),)
        window = xp[index].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None),) + pos] = window.max(1) if reduce == "max" else np.nanmean(window, 1)
    return out.astype(x.dtype)


def _distinct32(*shape):
    return lambda rng: (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.25
                        ).astype(np.float32)


def _argmax_parts(x):
    out, argmax = nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 1, 1], "SAME")
    return [out, argmax]


_F32 = {"rtol": 1e-6, "atol": 1e-6, "eps": 1e-2, "grad_rtol": 5e-3}
ROWS += [
    OpSpec("nn.max_pool3d", lambda x: nn.max_pool3d(x, [2, 2, 2], [1, 2, 1], "SAME"),
           lambda x: _pool_ref(x, (2, 2, 2), (1, 2, 1), "SAME", "max"),
           inputs(_distinct32(2, 3, 4, 3, 2)), **_F32),
    OpSpec("nn.max_pool3d_ncdhw", lambda x: nn.max_pool3d(x, 2, 1, "VALID", "NCDHW"),
           lambda x: np.moveaxis(_pool_ref(np.moveaxis(x, 1, -1), (2, 2, 2), (1, 1, 1),
                                           "VALID", "max"), -1, 1),
           inputs(_distinct32(1, 2, 3, 3, 3)), **_F32),
    OpSpec("nn.avg_pool3d", lambda x: nn.avg_pool3d(x, [1, 2, 3], [2, 1, 2], "SAME"),
           lambda x: _pool_ref(x, (1, 2, 3), (2, 1, 2), "SAME", "mean"),
           inputs(_distinct32(2, 3, 4, 5, 2)), **_F32),
    # MaxPoolGradWithArgmax has no gradient (as in TF): first order only.
    OpSpec("nn.max_pool_with_argmax", _argmax_parts, None, inputs(_distinct32(2, 4, 3, 2)),
           order=1, **_F32),
    OpSpec("raw_ops.MaxPoolGradWithArgmax", lambda x, g: pool_nd_ops.max_pool_grad_with_argmax(
        x, g, nn.max_pool_with_argmax(x, 2, 2, "VALID")[1], [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        None, inputs(_distinct32(2, 4, 4, 1), _distinct32(2, 2, 2, 1)), order=0),
    OpSpec("raw_ops.MaxPool3DGradGrad", lambda x, g: pool_nd_ops.max_pool3d_grad_grad(
        x, nn.max_pool3d(x, 2, 2, "VALID"), g, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        None, inputs(_distinct32(1, 4, 4, 2, 1), _distinct32(1, 4, 4, 2, 1)), **_F32),
    OpSpec("raw_ops.AvgPool3DGrad", lambda g: pool_nd_ops.avg_pool3d_grad(
        [1, 4, 4, 2, 1], g, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        None, inputs(_distinct32(1, 2, 2, 1, 1)), **_F32),
]
ROWS.append(OpSpec("raw_ops.MaxPool3DGrad", lambda x, g: pool_nd_ops.max_pool3d_grad(
    x, nn.max_pool3d(x, 2, 2, "VALID"), g, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
    None, inputs(_distinct32(1, 4, 4, 2, 1), _distinct32(1, 2, 2, 1, 1)), **_F32))


def _lrn_ref(x, r=2, bias=0.5, alpha=0.3, beta=0.75):
    x64 = x.astype(np.float64)
    sq = np.pad(x64 * x64, [(0, 0)] * 3 + [(r, r)])
    sums = sum(sq[..., i:i + x.shape[-1]] for i in range(2 * r + 1))
    return (x64 / (bias + alpha * sums) ** beta).astype(x.dtype)


def _dilation_ref(x, w):
    kh, kw, _ = w.shape
    n, h, wd, c = x.shape
    out = np.full((n, h - kh + 1, wd - kw + 1, c), -np.inf)
    for i in range(kh):
        for j in range(kw):
            out = np.maximum(out, x[:, i:i + h - kh + 1, j:j + wd - kw + 1] + w[i, j])
    return out


def _small32(*shape):
    return lambda rng: rng.uniform(0, 0.1, shape).astype(np.float32)


_DILATION_ATTRS = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "VALID"}


def _isotonic_parts(x):
    fit, _ = nn.isotonic_regression(x)
    return fit


def _isotonic_ref(x):
    out = np.empty_like(x)
    for r, row in enumerate(x):
        blocks = []
        for v in row:
            blocks.append([v, 1])
            while len(blocks) > 1 and blocks[-2][0] <= blocks[-1][0]:
                (a, m), (b, k) = blocks[-2], blocks[-1]
                blocks[-2:] = [[(a * m + b * k) / (m + k), m + k]]
        out[r] = np.repeat([b[0] for b in blocks], [b[1] for b in blocks])
    return out


def _top2(x):
    values, indices = dg.math.approx_max_k(x, 2)
    return values


ROWS += [
    OpSpec("nn.local_response_normalization", lambda x: nn.local_response_normalization(
        x, 2, 0.5, 0.3, 0.75), _lrn_ref, inputs(_distinct32(2, 2, 3, 6)), order=1,
        rtol=1e-5, atol=1e-6, eps=1e-2, grad_rtol=1e-2),
    # The backprop ops have no gradient (as in TF): first order. Filters in [0, 0.1) against
    # inputs 0.25 apart keep every window's maximum unique.
    OpSpec("nn.dilation2d", lambda x, w: nn.dilation2d(x, w, [1, 1, 1, 1], "VALID", "NHWC",
                                                       [1, 1, 1, 1]),
           _dilation_ref, inputs(_distinct32(1, 4, 5, 2), _small32(2, 3, 2)), order=1, **_F32),
    OpSpec("nn.dilation2d_same_strided", lambda x, w: nn.dilation2d(
        x, w, [1, 2, 1, 1], "SAME", "NHWC", [1, 1, 2, 1]), None,
        inputs(_distinct32(1, 5, 5, 1), _small32(2, 2, 1)), order=1, **_F32),
    OpSpec("nn.erosion2d", lambda x, w: nn.erosion2d(x, w, [1, 1, 1, 1], "VALID", "NHWC",
                                                     [1, 1, 1, 1]),
           lambda x, w: -_dilation_ref(-x, w[::-1, ::-1]),
           inputs(_distinct32(1, 4, 4, 2), _small32(2, 2, 2)), order=1, **_F32),
    OpSpec("raw_ops.Dilation2DBackpropInput_and_Filter", lambda x, w, g: dg.concat([
        dg.reshape(dilation_ops.dilation2d_backprop("input", x, w, g, _DILATION_ATTRS), [-1]),
        dg.reshape(dilation_ops.dilation2d_backprop("filter", x, w, g, _DILATION_ATTRS),
                   [-1])], 0), None,
        inputs(_distinct32(1, 3, 3, 1), _small32(2, 2, 1), _distinct32(1, 2, 2, 1)), order=0),
    OpSpec("raw_ops.LRNGrad", lambda g, x: lrn_ops.lrn_grad(g, x, nn.lrn(x, 1), 1), None,
           inputs(_distinct32(1, 2, 2, 3), _distinct32(1, 2, 2, 3)), order=0),
    OpSpec("nn.isotonic_regression", _isotonic_parts, _isotonic_ref, inputs(normal(3, 6))),
    OpSpec("math.approx_max_k", _top2, lambda x: -np.sort(-x, axis=-1)[:, :2],
           inputs(_distinct32(3, 5)), **_F32),
    OpSpec("raw_ops.NthElement", lambda x: ranking_ops.nth_element(x, 1, reverse=True),
           lambda x: -np.sort(-x, axis=-1)[:, 1], inputs(normal(3, 5))),
]


def _seeded_nn(fn):
    """fn under a fixed global seed, so both modes draw the same region boundaries."""
    def run(*args):
        dg.random.set_seed(1234)
        try:
            return fn(*args)
        finally:
            dg.random.set_seed(None)
    return run


def _fractional_ref(x, k, reduce):
    n, h, w, c = x.shape
    windows = x.reshape(n, h // k[0], k[0], w // k[1], k[1], c)
    return windows.max(axis=(2, 4)) if reduce == "max" else windows.mean(axis=(2, 4))


ROWS += [
    # Ratios dividing the sizes give fixed regions (TF's exact boundaries); the gradient ops
    # have no gradient (as in TF): first order.
    OpSpec("nn.fractional_max_pool", lambda x: nn.fractional_max_pool(x, [1, 2, 3, 1])[0],
           lambda x: _fractional_ref(x, (2, 3), "max"), inputs(normal(2, 4, 6, 2)), order=1),
    OpSpec("nn.fractional_avg_pool", lambda x: nn.fractional_avg_pool(x, [1, 2, 2, 1])[0],
           lambda x: _fractional_ref(x, (2, 2), "mean"), inputs(normal(2, 4, 6, 2)), order=1),
    OpSpec("nn.fractional_max_pool_random_overlapping", _seeded_nn(
        lambda x: nn.fractional_max_pool(x, [1, 1.5, 1.5, 1], overlapping=True, seed=3)[0]),
        None, inputs(normal(1, 7, 7, 1)), order=1),
    OpSpec("raw_ops.FractionalMaxPoolGrad_and_AvgPoolGrad", lambda x, g: dg.concat([
        dg.reshape(fractional_pool_ops.fractional_pool_grad(
            "max", x, g, [0, 2, 4], [0, 2, 4], False, nn.fractional_max_pool(x, 2)[0]), [-1]),
        dg.reshape(fractional_pool_ops.fractional_pool_grad(
            "avg", [1, 4, 4, 1], g, [0, 2, 4], [0, 2, 4], False), [-1])], 0), None,
        inputs(normal(1, 4, 4, 1), normal(1, 2, 2, 1)), order=0),
]
