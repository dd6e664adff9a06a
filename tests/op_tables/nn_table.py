"""Op-table rows for dg.nn (activations, softmax, losses, conv, pooling) and dg.random."""
from __future__ import annotations

import math

import numpy as np

import duograd as dg
import nn_reference as ref
from duograd.ops.nn import pooling_ops
from .spec import OpSpec, inputs, normal, positive

nn = dg.nn
_erf = np.vectorize(math.erf)


def _log_softmax(x, axis=-1):
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def _softmax(x, axis=-1):
    return np.exp(_log_softmax(x, axis))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _elu(x):
    return np.where(x > 0, x, np.expm1(x))


def _seeded(fn):
    """fn run under a fixed global seed, so every call (either mode) draws the same numbers."""
    def run(*args):
        dg.random.set_seed(1234)
        try:
            return fn(*args)
        finally:
            dg.random.set_seed(None)
    return run


def _spread(low, high, *shape):
    return lambda rng: rng.uniform(low, high, shape)


_SPARSE = np.array([0, 3, 1], np.int32)
_SPARSE_3D = np.array([[0, 2], [1, 1]], np.int64)


def _nchw(f):
    return lambda x: np.transpose(f(np.transpose(x, (0, 2, 3, 1))), (0, 3, 1, 2))


ACTIVATIONS = [
    OpSpec("nn.relu", nn.relu, lambda x: np.maximum(x, 0), inputs(normal(3, 4))),
    OpSpec("nn.relu6", nn.relu6, lambda x: np.clip(x, 0, 6), inputs(_spread(-3, 9, 3, 4))),
    OpSpec("nn.elu", nn.elu, _elu, inputs(normal(3, 4))),
    OpSpec("nn.selu", nn.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x)), inputs(normal(3, 4))),
    OpSpec("nn.leaky_relu", lambda x: nn.leaky_relu(x, alpha=0.3),
           lambda x: np.where(x > 0, x, 0.3 * x), inputs(normal(3, 4))),
    OpSpec("nn.gelu_exact", nn.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
           inputs(normal(3, 4))),
    OpSpec("nn.gelu_tanh", lambda x: nn.gelu(x, approximate=True),
           lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
           inputs(normal(3, 4))),
    OpSpec("nn.softmax", nn.softmax, _softmax, inputs(normal(3, 4))),
    OpSpec("nn.softmax_axis0", lambda x: nn.softmax(x, axis=0), lambda x: _softmax(x, 0),
           inputs(normal(3, 4))),
    OpSpec("nn.log_softmax", nn.log_softmax, _log_softmax, inputs(normal(2, 3, 4))),
    OpSpec("nn.log_softmax_axis1", lambda x: nn.log_softmax(x, axis=1),
           lambda x: _log_softmax(x, 1), inputs(normal(2, 3, 4))),
    OpSpec("nn.l2_loss", nn.l2_loss, lambda x: np.sum(x * x) / 2, inputs(normal(3, 4))),
    OpSpec("nn.bias_add", nn.bias_add, lambda v, b: v + b, inputs(normal(2, 3, 4), normal(4))),
    OpSpec("nn.bias_add_nchw", lambda v, b: nn.bias_add(v, b, data_format="NCHW"),
           lambda v, b: v + b[:, None, None], inputs(normal(2, 3, 2, 2), normal(3))),
    OpSpec("nn.moments", lambda x: list(nn.moments(x, [0])),
           lambda x: [x.mean(0), x.var(0)], inputs(normal(4, 3))),
    OpSpec("nn.moments_keepdims", lambda x: list(nn.moments(x, [0, 2], keepdims=True)),
           lambda x: [x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)],
           inputs(normal(3, 2, 4))),
]

LOSSES = [
    # Closed forms: -sum(z * log_softmax(x)), -log_softmax(x)[label], and
    # z * -log(sigmoid(x)) + (1 - z) * -log(1 - sigmoid(x)).
    OpSpec("nn.softmax_cross_entropy", nn.softmax_cross_entropy_with_logits,
           lambda z, x: -np.sum(z * _log_softmax(x), -1),
           inputs(_spread(0, 1, 3, 4), normal(3, 4))),
    OpSpec("nn.softmax_cross_entropy_axis0",
           lambda z, x: nn.softmax_cross_entropy_with_logits(z, x, axis=0),
           lambda z, x: -np.sum(z * _log_softmax(x, 0), 0),
           inputs(_spread(0, 1, 4, 3), normal(4, 3))),
    # Integer labels are constants of the row (the gradient check perturbs every input).
    OpSpec("nn.sparse_softmax_cross_entropy",
           lambda x: nn.sparse_softmax_cross_entropy_with_logits(_SPARSE, x),
           lambda x: -_log_softmax(x)[np.arange(3), _SPARSE], inputs(normal(3, 4))),
    OpSpec("nn.sparse_softmax_cross_entropy_3d",
           lambda x: nn.sparse_softmax_cross_entropy_with_logits(_SPARSE_3D, x),
           lambda x: -np.take_along_axis(_log_softmax(x), _SPARSE_3D[..., None], -1)[..., 0],
           inputs(normal(2, 2, 3))),
    OpSpec("nn.sigmoid_cross_entropy", nn.sigmoid_cross_entropy_with_logits,
           lambda z, x: -z * np.log(_sigmoid(x)) - (1 - z) * np.log(1 - _sigmoid(x)),
           inputs(_spread(0, 1, 5), lambda rng: np.array([0.0, 1.5, -2.0, 0.3, -0.7]))),
]

_X = normal(2, 5, 5, 2)
_W = normal(3, 3, 2, 3)
CONV = [
    OpSpec("nn.conv2d_same", lambda x, w: nn.conv2d(x, w, 1, "SAME"),
           lambda x, w: ref.conv2d(x, w, (1, 1), "SAME"), inputs(_X, _W)),
    OpSpec("nn.conv2d_valid_stride2", lambda x, w: nn.conv2d(x, w, [2, 2], "VALID"),
           lambda x, w: ref.conv2d(x, w, (2, 2), "VALID"), inputs(_X, _W)),
    OpSpec("nn.conv2d_same_stride2_rect", lambda x, w: nn.conv2d(x, w, [1, 2, 1, 1], "SAME"),
           lambda x, w: ref.conv2d(x, w, (2, 1), "SAME"),
           inputs(normal(1, 6, 4, 2), normal(2, 3, 2, 2))),
    OpSpec("nn.conv2d_dilated", lambda x, w: nn.conv2d(x, w, 1, "SAME", dilations=2),
           lambda x, w: ref.conv2d(x, w, (1, 1), "SAME", (2, 2)),
           inputs(normal(1, 5, 5, 1), normal(2, 2, 1, 2))),
    OpSpec("nn.conv2d_nchw", lambda x, w: nn.conv2d(x, w, 1, "VALID", data_format="NCHW"),
           lambda x, w: _nchw(lambda t: ref.conv2d(t, w, (1, 1), "VALID"))(x),
           inputs(normal(1, 2, 4, 4), normal(2, 2, 2, 2))),
    OpSpec("nn.conv2d_backprop_input",
           lambda w, dy: nn.conv2d_backprop_input([2, 5, 5, 2], w, dy, 2, "SAME"),
           lambda w, dy: ref.conv2d_backprop_input((2, 5, 5, 2), w, dy, (2, 2), "SAME"),
           inputs(_W, normal(2, 3, 3, 3))),
    OpSpec("nn.conv2d_backprop_filter",
           lambda x, dy: nn.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, 2, "SAME"),
           lambda x, dy: ref.conv2d_backprop_filter(x, (3, 3, 2, 3), dy, (2, 2), "SAME"),
           inputs(_X, normal(2, 3, 3, 3))),
    OpSpec("nn.conv2d_transpose",
           lambda x, w: nn.conv2d_transpose(x, w, [1, 4, 4, 2], 2, "VALID"),
           lambda x, w: ref.conv2d_backprop_input((1, 4, 4, 2), w, x, (2, 2), "VALID"),
           inputs(normal(1, 2, 2, 3), normal(2, 2, 2, 3))),
]

POOLING = [
    OpSpec("nn.max_pool2d_same", lambda x: nn.max_pool2d(x, 3, 2, "SAME"),
           lambda x: ref.max_pool2d(x, (3, 3), (2, 2), "SAME"), inputs(_X)),
    OpSpec("nn.max_pool2d_valid", lambda x: nn.max_pool2d(x, [2, 3], 1, "VALID"),
           lambda x: ref.max_pool2d(x, (2, 3), (1, 1), "VALID"), inputs(_X)),
    OpSpec("nn.avg_pool2d_same", lambda x: nn.avg_pool2d(x, 3, 2, "SAME"),
           lambda x: ref.avg_pool2d(x, (3, 3), (2, 2), "SAME"), inputs(_X)),
    OpSpec("nn.avg_pool2d_valid_nchw",
           lambda x: nn.avg_pool2d(x, 2, 1, "VALID", data_format="NCHW"),
           lambda x: _nchw(lambda t: ref.avg_pool2d(t, (2, 2), (1, 1), "VALID"))(x),
           inputs(normal(1, 2, 3, 3))),
    OpSpec("nn.max_pool_grad",
           lambda x, g: pooling_ops.max_pool_grad(x, nn.max_pool2d(x, 3, 2, "SAME"), g, 3, 2,
                                                  "SAME"),
           lambda x, g: ref.max_pool_grad(x, g, (3, 3), (2, 2), "SAME"),
           inputs(_X, normal(2, 3, 3, 2))),
    OpSpec("nn.max_pool_grad_grad",
           lambda x, g: pooling_ops.max_pool_grad_grad(x, nn.max_pool2d(x, 2, 2, "VALID"), g, 2,
                                                       2, "VALID"),
           None, inputs(normal(1, 4, 4, 2), normal(1, 4, 4, 2))),
    OpSpec("nn.avg_pool_grad",
           lambda g: pooling_ops.avg_pool_grad([2, 5, 5, 2], g, 3, 2, "SAME"), None,
           inputs(normal(2, 3, 3, 2))),
]

RANDOM = [
    # Seeded inside the row: eager and graph must draw identical numbers.
    OpSpec("random.normal", _seeded(lambda m, s: dg.random.normal(
        [3, 2], mean=m, stddev=s, dtype=dg.float64, seed=7)), None,
        inputs(normal(), positive())),
    OpSpec("random.uniform", _seeded(lambda lo, hi: dg.random.uniform(
        [4], minval=lo, maxval=hi, dtype=dg.float64)), None,
        inputs(normal(), lambda rng: np.array(3.0))),
    OpSpec("random.uniform_int", _seeded(lambda x: x + dg.cast(dg.random.uniform(
        [2, 3], 0, 10, dtype=dg.int32, seed=3), dg.float64)), None, inputs(normal(2, 3))),
    OpSpec("nn.dropout", _seeded(lambda x: nn.dropout(x, 0.4, seed=5)), None,
           inputs(normal(4, 5))),
    OpSpec("nn.dropout_noise_shape", _seeded(lambda x: nn.dropout(x, 0.5, noise_shape=[1, 5])),
           None, inputs(normal(4, 5))),
]

ROWS = ACTIVATIONS + LOSSES + CONV + POOLING + RANDOM
