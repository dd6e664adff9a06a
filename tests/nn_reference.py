"""Straightforward Python-loop references for conv2d and pooling (NHWC), for small inputs.

Written from the definitions, independently of the stride-trick kernels: every
output element is a sum (or max, or mean) over its window, index by index.
"""
from __future__ import annotations

import math

import numpy as np


def geometry(size, k, stride, dilation, padding):
    """(output size, padding before) along one axis."""
    effective = (k - 1) * dilation + 1
    if padding == "SAME":
        out = math.ceil(size / stride)
        return out, max((out - 1) * stride + effective - size, 0) // 2
    return (size - effective) // stride + 1, 0


def _taps(x_shape, k_shape, strides, padding, dilations, b, i, j):
    """The in-bounds input coordinates (row, col, tap row, tap col) of window (i, j)."""
    _, h, w, _ = x_shape
    kh, kw = k_shape
    _, top = geometry(h, kh, strides[0], dilations[0], padding)
    _, left = geometry(w, kw, strides[1], dilations[1], padding)
    for p in range(kh):
        for q in range(kw):
            r = i * strides[0] - top + p * dilations[0]
            c = j * strides[1] - left + q * dilations[1]
            if 0 <= r < h and 0 <= c < w:
                yield r, c, p, q


def conv2d(x, w, strides, padding, dilations=(1, 1)):
    n, h, wd, _ = x.shape
    kh, kw, cin, cout = w.shape
    oh, _ = geometry(h, kh, strides[0], dilations[0], padding)
    ow, _ = geometry(wd, kw, strides[1], dilations[1], padding)
    out = np.zeros((n, oh, ow, cout), x.dtype)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for r, c, p, q in _taps(x.shape, (kh, kw), strides, padding, dilations, b, i, j):
                    out[b, i, j, :] += x[b, r, c, :] @ w[p, q, :, :]
    return out


def conv2d_backprop_input(x_shape, w, dy, strides, padding, dilations=(1, 1)):
    dx = np.zeros(x_shape, dy.dtype)
    n, oh, ow, _ = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for r, c, p, q in _taps(x_shape, w.shape[:2], strides, padding, dilations, b, i, j):
                    dx[b, r, c, :] += w[p, q, :, :] @ dy[b, i, j, :]
    return dx


def conv2d_backprop_filter(x, w_shape, dy, strides, padding, dilations=(1, 1)):
    dw = np.zeros(w_shape, x.dtype)
    n, oh, ow, _ = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for r, c, p, q in _taps(x.shape, w_shape[:2], strides, padding, dilations, b, i, j):
                    dw[p, q, :, :] += np.outer(x[b, r, c, :], dy[b, i, j, :])
    return dw


def _pool(x, ksize, strides, padding, reduce):
    n, h, w, ch = x.shape
    oh, _ = geometry(h, ksize[0], strides[0], 1, padding)
    ow, _ = geometry(w, ksize[1], strides[1], 1, padding)
    out = np.zeros((n, oh, ow, ch), x.dtype)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                window = [x[b, r, c, :] for r, c, _, _ in
                          _taps(x.shape, ksize, strides, padding, (1, 1), b, i, j)]
                out[b, i, j, :] = reduce(np.stack(window))
    return out


def max_pool2d(x, ksize, strides, padding):
    return _pool(x, ksize, strides, padding, lambda window: window.max(axis=0))


def avg_pool2d(x, ksize, strides, padding):
    return _pool(x, ksize, strides, padding, lambda window: window.mean(axis=0))


def max_pool_grad(x, dy, ksize, strides, padding):
    """dy routed to the first (row-major) maximum of each window."""
    dx = np.zeros(x.shape, dy.dtype)
    n, oh, ow, ch = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                taps = list(_taps(x.shape, ksize, strides, padding, (1, 1), b, i, j))
                for k in range(ch):
                    r, c, _, _ = max(taps, key=lambda t: (x[b, t[0], t[1], k], -t[2], -t[3]))
                    dx[b, r, c, k] += dy[b, i, j, k]
    return dx
