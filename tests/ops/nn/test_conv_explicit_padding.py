"""Explicit padding ([[0, 0], [top, bottom], [left, right], [0, 0]]) in nn.conv2d_transpose,
compat.v1.nn.conv2d_backprop_input and conv2d_backprop_filter: TF 2.21's values and
gradients (conv_explicit_padding_reference.py), numerical gradient checks in both modes,
and TF's exception classes."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from conv_explicit_padding_reference import TF
from gradcheck import check_grads

CASES = {  # name: (dy shape, filter shape, output_shape, stride, padding)
    "s1": ([1, 4, 6, 2], [3, 3, 3, 2], [1, 3, 1, 3], 1, [[0, 0], [1, 2], [3, 4], [0, 0]]),
    "s2": ([1, 3, 4, 2], [3, 3, 3, 2], [1, 5, 7, 3], 2, [[0, 0], [1, 2], [2, 1], [0, 0]]),
}


def _values(shape, k):
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * 0.7 + k).reshape(shape).astype(np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_tensorflows(name):
    dys, ws, outs, stride, pad = CASES[name]
    dy, w, up = (dg.constant(_values(dys, 1)), dg.constant(_values(ws, 2)),
                 dg.constant(_values(outs, 3)))
    with dg.GradientTape() as tape:
        tape.watch([dy, w])
        y = dg.nn.conv2d_transpose(dy, w, outs, stride, padding=pad)
        loss = dg.reduce_sum(y * up)
    gdy, gw = tape.gradient(loss, [dy, w])
    ref = TF[name]
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gdy.numpy(), ref["gdy"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gw.numpy(), ref["gw"], rtol=1e-4, atol=1e-5)
    strides = [1, stride, stride, 1]
    v1 = dg.compat.v1.nn.conv2d_backprop_input(outs, w, dy, strides, pad)
    np.testing.assert_array_equal(v1.numpy(), y.numpy())   # TF: the same op
    f1 = dg.compat.v1.nn.conv2d_backprop_filter(dg.constant(_values(outs, 4)), ws, dy,
                                                strides, pad)
    np.testing.assert_allclose(f1.numpy(), ref["f1"], rtol=1e-4, atol=1e-5)


def test_nchw_is_the_nhwc_problem_transposed():
    dys, ws, outs, stride, pad = CASES["s2"]
    dy, w = _values(dys, 1), _values(ws, 2)
    nchw = dg.nn.conv2d_transpose(dy.transpose(0, 3, 1, 2), w, [1, 3, 5, 7], [1, 1, 2, 2],
                                  padding=[[0, 0], [0, 0], [1, 2], [2, 1]], data_format="NCHW")
    np.testing.assert_allclose(nchw.numpy().transpose(0, 2, 3, 1), TF["s2"]["y"],
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_numerically_in_both_modes(name):
    dys, ws, outs, stride, pad = CASES[name]
    check_grads(lambda dy, w: dg.nn.conv2d_transpose(dy, w, outs, stride, padding=pad),
                [_values(dys, 1).astype(np.float64), _values(ws, 2).astype(np.float64)],
                order=2)
    check_grads(lambda x, dy: dg.compat.v1.nn.conv2d_backprop_filter(
        x, ws, dy, [1, stride, stride, 1], pad),
        [_values(outs, 4).astype(np.float64), _values(dys, 1).astype(np.float64)], order=1)


def test_the_graph_and_a_fed_output_shape_agree_with_eager():
    dys, ws, outs, stride, pad = CASES["s2"]
    g = dg.Graph()
    with g.as_default():
        shape = dg.placeholder(dg.int32, [4])
        y = dg.nn.conv2d_transpose(dg.constant(_values(dys, 1)), dg.constant(_values(ws, 2)),
                                   shape, stride, padding=pad)
        with dg.Session(graph=g) as sess:
            value = sess.run(y, {shape: outs})
    np.testing.assert_allclose(value, TF["s2"]["y"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("label, padding, output_shape", [
    ("negative pad", [[0, 0], [-1, 2], [3, 4], [0, 0]], [1, 3, 1, 3]),
    ("batch pad", [[1, 0], [1, 2], [3, 4], [0, 0]], [1, 3, 1, 3]),
    ("3 pairs", [[1, 2], [3, 4], [0, 0]], [1, 3, 1, 3]),
    ("wrong output_shape", [[0, 0], [1, 2], [3, 4], [0, 0]], [1, 4, 1, 3]),
])
def test_bad_padding_gets_tensorflows_class(label, padding, output_shape):
    expected = {"InvalidArgumentError": dg.errors.InvalidArgumentError,
                "ValueError": ValueError}[TF["errors"][label]]
    with pytest.raises(expected):
        dg.nn.conv2d_transpose(dg.constant(_values([1, 4, 6, 2], 1)),
                               dg.constant(_values([3, 3, 3, 2], 2)), output_shape, 1,
                               padding=padding)
