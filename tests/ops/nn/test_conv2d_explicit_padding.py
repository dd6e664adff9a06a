"""conv2d / conv2d_backprop_filter with TF's explicit padding (a list of 4 [before, after]
pairs), values recorded from TF 2.21 (tf.compat.v1.nn.conv2d and
tf.compat.v1.nn.conv2d_backprop_filter, NHWC on CPU), and their gradients."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

PAD = [(0, 0), (1, 2), (3, 4), (0, 0)]
# stride -> (conv2d output shape, sum of conv2d, sum of conv2d_backprop_filter(dy = ones))
TF_2_21 = {1: ((2, 6, 11, 4), -217.15574645996094, 288.0656433105469),
           2: ((2, 3, 6, 4), -38.406742095947266, -39.05706787109375)}


def _data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((2, 5, 6, 3)).astype(np.float32),
            rng.standard_normal((3, 3, 3, 4)).astype(np.float32))


@pytest.mark.parametrize("stride", [1, 2])
def test_explicit_padding_values(stride):
    x, w = _data()
    shape, conv_sum, filter_sum = TF_2_21[stride]
    strides = [1, stride, stride, 1]
    y = dg.compat.v1.nn.conv2d(x, w, strides=strides, padding=PAD)
    assert y.shape == shape
    np.testing.assert_allclose(float(dg.reduce_sum(y)), conv_sum, rtol=1e-5)
    dw = dg.compat.v1.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], np.ones(shape, np.float32),
                                                strides=strides, padding=PAD)
    np.testing.assert_allclose(float(dg.reduce_sum(dw)), filter_sum, rtol=1e-5)
    # the same as padding first and a VALID convolution
    valid = dg.nn.conv2d(np.pad(x, PAD), w, strides=strides, padding="VALID")
    np.testing.assert_allclose(y.numpy(), valid.numpy(), rtol=1e-6)


def test_nchw_explicit_padding_pairs_follow_the_data_format():
    x, w = _data()
    y = dg.nn.conv2d(x, w, strides=1, padding=PAD)
    y_nchw = dg.nn.conv2d(np.transpose(x, [0, 3, 1, 2]), w, strides=1, data_format="NCHW",
                          padding=[(0, 0), (0, 0), (1, 2), (3, 4)])
    np.testing.assert_allclose(np.transpose(y_nchw.numpy(), [0, 2, 3, 1]), y.numpy(), rtol=1e-6)


def test_gradients_with_explicit_padding_match_numerical_ones():
    x, w = _data()
    x, w = x[:1, :4, :4].astype(np.float64), w[:, :, :, :2].astype(np.float64)
    theoretical, numerical = dg.test.compute_gradient(
        lambda a, b: dg.nn.conv2d(a, b, strides=[1, 2, 2, 1], padding=PAD), [x, w])
    for t, n in zip(theoretical, numerical):
        np.testing.assert_allclose(t, n, atol=1e-6)


def test_explicit_padding_of_the_wrong_size_is_tf_s_value_error():
    x, w = _data()
    with pytest.raises(ValueError, match="When padding is a list, it must be of size 4"):
        dg.nn.conv2d(x, w, strides=1, padding=[(0, 0), (1, 2), (3, 4)])   # TF 2.21: same


@pytest.mark.parametrize("padding", [[(1, 0), (1, 2), (3, 4), (0, 0)],
                                     [(0, 0), (-1, 2), (3, 4), (0, 0)]])
def test_batch_depth_or_negative_explicit_padding_is_refused(padding):
    # TF 2.21's oneDNN CPU kernel ignores batch/depth padding and aborts on a negative
    # one (AbortedError); duograd refuses both up front (docs/differences.md).
    x, w = _data()
    with pytest.raises(ValueError):
        dg.nn.conv2d(x, w, strides=1, padding=padding)
