"""dg.nn behaviour beyond the op table: loop references, TF's error types, extremes, dropout."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from modes import run_graph
import nn_reference as ref

nn = dg.nn
InvalidArgumentError = dg.errors.InvalidArgumentError




def _eager_grads(fn, *args):
    ts = [dg.constant(a) for a in args]
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = dg.reduce_sum(fn(*ts))
    return [np.asarray(g) for g in tape.gradient(y, ts)]


# -- conv2d and pooling against Python loops -------------------------------------------------
CONV_CASES = [  # (input shape, filter shape, strides, padding, dilations)
    ((1, 4, 4, 1), (2, 2, 1, 1), (1, 1), "VALID", (1, 1)),
    ((2, 5, 6, 3), (3, 2, 3, 2), (2, 3), "SAME", (1, 1)),
    ((1, 7, 7, 2), (3, 3, 2, 2), (2, 2), "VALID", (1, 1)),
    ((1, 6, 5, 1), (4, 4, 1, 3), (3, 2), "SAME", (1, 1)),
    ((1, 6, 6, 2), (2, 3, 2, 1), (1, 1), "VALID", (2, 2)),
    ((1, 2, 2, 1), (3, 3, 1, 1), (1, 1), "SAME", (1, 1)),
]


@pytest.mark.parametrize("x_shape,w_shape,strides,padding,dilations", CONV_CASES)
def test_conv2d_and_its_gradients_match_loops(x_shape, w_shape, strides, padding, dilations):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape)
    expected = ref.conv2d(x, w, strides, padding, dilations)
    y = nn.conv2d(x, w, list(strides), padding, dilations=list(dilations))
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)
    graph = run_graph(lambda a, b: nn.conv2d(a, b, list(strides), padding,
                                              dilations=list(dilations)), x, w)
    np.testing.assert_allclose(graph, expected, rtol=1e-12, atol=1e-12)
    dy = np.ones(expected.shape)
    dx, dw = _eager_grads(lambda a, b: nn.conv2d(a, b, list(strides), padding,
                                                 dilations=list(dilations)), x, w)
    np.testing.assert_allclose(dx, ref.conv2d_backprop_input(x.shape, w, dy, strides, padding,
                                                             dilations), atol=1e-12)
    np.testing.assert_allclose(dw, ref.conv2d_backprop_filter(x, w.shape, dy, strides, padding,
                                                              dilations), atol=1e-12)


def test_conv2d_keeps_float32_and_accepts_nchw():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    y = nn.conv2d(x, w, [1, 1, 2, 2], "SAME", data_format="NCHW")
    assert y.dtype == dg.float32 and y.shape == [2, 2, 2, 2]
    nhwc = ref.conv2d(x.transpose(0, 2, 3, 1).astype(np.float64), w.astype(np.float64),
                      (2, 2), "SAME")
    np.testing.assert_allclose(y, nhwc.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)


POOL_CASES = [  # (input shape, ksize, strides, padding)
    ((1, 4, 4, 1), (2, 2), (2, 2), "VALID"),
    ((2, 5, 5, 3), (3, 3), (2, 2), "SAME"),
    ((1, 5, 4, 2), (2, 3), (1, 2), "SAME"),
    ((1, 6, 6, 1), (3, 2), (3, 1), "VALID"),
]


@pytest.mark.parametrize("shape,ksize,strides,padding", POOL_CASES)
def test_pooling_and_its_gradients_match_loops(shape, ksize, strides, padding):
    x = np.random.default_rng(2).standard_normal(shape)
    for fn, reference in ((nn.max_pool2d, ref.max_pool2d), (nn.avg_pool2d, ref.avg_pool2d)):
        expected = reference(x, ksize, strides, padding)
        np.testing.assert_allclose(fn(x, list(ksize), list(strides), padding), expected,
                                   rtol=1e-12)
        np.testing.assert_allclose(
            run_graph(lambda a: fn(a, list(ksize), list(strides), padding), x), expected,
            rtol=1e-12)
    dy = np.random.default_rng(3).standard_normal(ref.max_pool2d(x, ksize, strides, padding).shape)
    ts = dg.constant(x)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(ts)
        y_max = nn.max_pool2d(ts, list(ksize), list(strides), padding)
        y_avg = nn.avg_pool2d(ts, list(ksize), list(strides), padding)
    np.testing.assert_allclose(tape.gradient(y_max, ts, output_gradients=dg.constant(dy)),
                               ref.max_pool_grad(x, dy, ksize, strides, padding), atol=1e-12)
    # Average pooling is linear: its gradient is the adjoint <avg(x), dy> = <x, grad>.
    grad = np.asarray(tape.gradient(y_avg, ts, output_gradients=dg.constant(dy)))
    probe = np.random.default_rng(4).standard_normal(shape)
    np.testing.assert_allclose(np.sum(ref.avg_pool2d(probe, ksize, strides, padding) * dy),
                               np.sum(probe * grad), rtol=1e-10)


def test_max_pool_gradient_goes_to_the_first_maximum_of_a_tie():
    x = np.zeros((1, 2, 2, 1))
    ts = dg.constant(x)
    with dg.GradientTape() as tape:
        tape.watch(ts)
        y = nn.max_pool2d(ts, 2, 2, "VALID")
    np.testing.assert_array_equal(np.asarray(tape.gradient(y, ts))[0, :, :, 0], [[1, 0], [0, 0]])


def test_max_pool_accepts_integers_and_same_padding_never_wins():
    x = np.array([[-5, -7], [-9, -6]], np.int32).reshape(1, 2, 2, 1)
    y = nn.max_pool2d(x, 3, 1, "SAME")
    assert y.dtype == dg.int32
    np.testing.assert_array_equal(np.asarray(y)[0, :, :, 0], [[-5, -5], [-5, -5]])


def test_static_shapes_with_unknown_dimensions():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float32, [None, 5, None, 2])
        assert nn.conv2d(x, np.zeros((3, 3, 2, 4), np.float32), 2, "SAME").shape.as_list() == \
            [None, 3, None, 4]
        assert nn.max_pool2d(x, 2, 2, "VALID").shape.as_list() == [None, 2, None, 2]
        logits = dg.placeholder(dg.float32, [None, 3])
        assert nn.softmax_cross_entropy_with_logits(logits, logits).shape.as_list() == [None]
        labels = dg.placeholder(dg.int32, [None])
        assert nn.sparse_softmax_cross_entropy_with_logits(labels, logits).shape.as_list() == \
            [None]
        assert nn.softmax(dg.placeholder(dg.float32)).shape.rank is None
        assert nn.bias_add(dg.placeholder(dg.float32, [None, None]), [1., 2.]).shape.as_list() \
            == [None, 2]


# -- errors: TF's exception types, naming the op ----------------------------------------------
def _raises_in_both_modes(fn, args, eager_type, graph_type, op_name):
    with pytest.raises(eager_type, match=op_name):
        fn(*[dg.constant(a) for a in args])
    g = dg.Graph()
    with g.as_default():
        with pytest.raises(graph_type, match=op_name):
            fn(*[dg.placeholder(dg.as_dtype(a.dtype), a.shape) for a in args])


F32 = np.float32
BAD_INPUTS = [
    ("conv2d depth", lambda x, w: nn.conv2d(x, w, 1, "SAME"),
     [np.zeros((1, 4, 4, 3), F32), np.zeros((2, 2, 2, 1), F32)], ValueError, "Conv2D"),
    ("conv2d rank", lambda x, w: nn.conv2d(x, w, 1, "SAME"),
     [np.zeros((4, 4, 3), F32), np.zeros((2, 2, 3, 1), F32)], ValueError, "Conv2D"),
    ("conv2d dtypes", lambda x, w: nn.conv2d(x, w, 1, "SAME"),
     [np.zeros((1, 4, 4, 1), F32), np.zeros((2, 2, 1, 1))], TypeError, "Conv2D"),
    ("conv2d integer", lambda x, w: nn.conv2d(x, w, 1, "SAME"),
     [np.zeros((1, 4, 4, 1), np.int32), np.zeros((2, 2, 1, 1), np.int32)], TypeError, "Conv2D"),
    ("conv2d batch stride", lambda x, w: nn.conv2d(x, w, [2, 1, 1, 1], "SAME"),
     [np.zeros((1, 4, 4, 1), F32), np.zeros((2, 2, 1, 1), F32)], ValueError, "Conv2D"),
    ("conv2d too small", lambda x, w: nn.conv2d(x, w, 1, "VALID"),
     [np.zeros((1, 2, 2, 1), F32), np.zeros((4, 4, 1, 1), F32)], ValueError, "Conv2D"),
    ("max_pool rank", lambda x: nn.max_pool2d(x, 2, 2, "SAME"),
     [np.zeros((4, 4), F32)], ValueError, "MaxPool"),
    ("max_pool depth window", lambda x: nn.max_pool2d(x, [1, 2, 2, 2], 1, "SAME"),
     [np.zeros((1, 4, 4, 2), F32)], ValueError, "MaxPool"),
    ("avg_pool integer", lambda x: nn.avg_pool2d(x, 2, 2, "SAME"),
     [np.zeros((1, 4, 4, 1), np.int32)], TypeError, "AvgPool"),
    ("bias_add size", nn.bias_add, [np.zeros((2, 3), F32), np.zeros(4, F32)], ValueError,
     "BiasAdd"),
    ("bias_add bias rank", nn.bias_add, [np.zeros((2, 3), F32), np.zeros((1, 3), F32)],
     ValueError, "BiasAdd"),
    ("softmax integer", nn.softmax, [np.zeros((2, 3), np.int32)], TypeError, "Softmax"),
    ("softmax scalar", nn.softmax, [np.zeros((), F32)], ValueError, "Softmax"),
    ("log_softmax axis", lambda x: nn.log_softmax(x, axis=2), [np.zeros((2, 3), F32)],
     InvalidArgumentError, "LogSoftmax"),  # TF 2.21: InvalidArgumentError in both modes
    ("elu integer", nn.elu, [np.zeros(3, np.int32)], TypeError, "Elu"),
    ("l2_loss integer", nn.l2_loss, [np.zeros(3, np.int32)], TypeError, "L2Loss"),
    ("softmax xent shapes", nn.softmax_cross_entropy_with_logits,
     [np.zeros((2, 4), F32), np.zeros((2, 3), F32)], ValueError, "SoftmaxCrossEntropyWithLogits"),
    ("sparse xent float labels", nn.sparse_softmax_cross_entropy_with_logits,
     [np.zeros(2, F32), np.zeros((2, 3), F32)], TypeError, "SparseSoftmaxCrossEntropyWithLogits"),
]


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda c: c[0])
def test_bad_shapes_and_dtypes_raise_tf_exception_types(case):
    _, fn, args, graph_type, op_name = case
    _raises_in_both_modes(fn, args, InvalidArgumentError, graph_type, op_name)


def test_errors_raised_by_the_python_wrappers_in_both_modes():
    labels = np.zeros(3, np.int32)
    logits = np.zeros((2, 4), F32)
    with pytest.raises(ValueError, match="Shape mismatch"):
        nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    with pytest.raises(ValueError, match="same shape"):
        nn.sigmoid_cross_entropy_with_logits(np.zeros(3, F32), np.zeros(4, F32))
    with pytest.raises(ValueError, match="rate"):
        nn.dropout(np.ones(3, F32), 1.0)
    with pytest.raises(ValueError, match="floating"):
        nn.dropout(np.ones(3, np.int32), 0.5)
    with pytest.raises(ValueError, match="padding"):
        nn.conv2d(np.zeros((1, 2, 2, 1), F32), np.zeros((1, 1, 1, 1), F32), 1, "FULL")
    g = dg.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="Shape mismatch"):
            nn.sparse_softmax_cross_entropy_with_logits(
                dg.placeholder(dg.int32, [3]), dg.placeholder(dg.float32, [2, 4]))


def test_invalid_sparse_label_is_invalid_argument_in_both_modes():
    logits = np.zeros((2, 3), F32)
    for bad in (3, -1):
        labels = np.array([0, bad], np.int32)
        with pytest.raises(InvalidArgumentError, match="SparseSoftmaxCrossEntropyWithLogits.*"
                                                       f"label value of {bad}"):
            nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        g = dg.Graph()
        with g.as_default():
            p = dg.placeholder(dg.int32, [2])
            loss = nn.sparse_softmax_cross_entropy_with_logits(p, logits)
            with dg.Session() as sess, pytest.raises(InvalidArgumentError,
                                                     match="SparseSoftmaxCrossEntropyWithLogits"):
                sess.run(loss, {p: labels})


# -- numerics -----------------------------------------------------------------------------------
EXTREME = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, 1000.0]], F32)
EXTREME_FUNCTIONS = [
    ("softmax", nn.softmax),
    ("log_softmax", nn.log_softmax),
    ("softmax_xent", lambda x: nn.softmax_cross_entropy_with_logits(
        np.array([[0, 1, 0], [0.5, 0.5, 0]], F32), x)),
    ("sparse_xent", lambda x: nn.sparse_softmax_cross_entropy_with_logits(
        np.array([1, 0], np.int32), x)),
    ("sigmoid_xent", lambda x: nn.sigmoid_cross_entropy_with_logits(
        np.array([[1, 0, 1], [0, 1, 1]], F32), x)),
    ("softplus", nn.softplus),
    ("sigmoid", nn.sigmoid),
    ("elu", nn.elu),
    ("selu", nn.selu),
    ("gelu", nn.gelu),
    ("gelu_tanh", lambda x: nn.gelu(x, approximate=True)),
]


@pytest.mark.parametrize("fn", [f for _, f in EXTREME_FUNCTIONS],
                         ids=[n for n, _ in EXTREME_FUNCTIONS])
def test_extreme_logits_stay_finite_in_values_and_gradients(fn):
    y = fn(dg.constant(EXTREME))
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(run_graph(fn, EXTREME), y, rtol=1e-6)
    (grad,) = _eager_grads(fn, EXTREME)
    assert np.all(np.isfinite(grad))


def test_extreme_cross_entropy_values():
    loss = nn.softmax_cross_entropy_with_logits(np.array([[0., 1.]], F32),
                                                np.array([[1000., -1000.]], F32))
    np.testing.assert_allclose(loss, [2000.0])
    loss = nn.sigmoid_cross_entropy_with_logits(np.array([1., 0., 1.], F32),
                                                np.array([-1000., -1000., 1000.], F32))
    np.testing.assert_allclose(loss, [1000.0, 0.0, 0.0])


def test_relu_gradient_at_zero_is_zero_and_sigmoid_xent_gradient_at_zero_is_exact():
    (drelu,) = _eager_grads(nn.relu, np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(drelu, [0, 0, 1])
    z = np.array([0.0, 0.3, 1.0])
    dz, dx = _eager_grads(nn.sigmoid_cross_entropy_with_logits, z, np.zeros(3))
    np.testing.assert_allclose(dx, 0.5 - z)
    np.testing.assert_allclose(dz, np.zeros(3))


def test_softmax_cross_entropy_gradients_are_tfs():
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((2, 4))
    labels = rng.dirichlet(np.ones(4), 2)
    dlabels, dlogits = _eager_grads(nn.softmax_cross_entropy_with_logits, labels, logits)
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    np.testing.assert_allclose(dlogits, np.exp(log_probs) - labels, rtol=1e-12)
    np.testing.assert_allclose(dlabels, -log_probs, rtol=1e-12)


def test_activation_closed_forms_in_float32():
    x = np.array([-3.0, -0.5, 0.0, 0.5, 7.0], F32)
    np.testing.assert_allclose(nn.relu6(x), [0, 0, 0, 0.5, 6])
    np.testing.assert_allclose(nn.leaky_relu(x), [-0.6, -0.1, 0, 0.5, 7], rtol=1e-6)
    np.testing.assert_allclose(nn.gelu(np.array([1.0], F32)), [0.8413447], rtol=1e-6)
    np.testing.assert_allclose(nn.gelu(np.array([1.0], F32), approximate=True), [0.8411920],
                               rtol=1e-6)
    for fn in (nn.relu, nn.relu6, nn.elu, nn.selu, nn.leaky_relu, nn.gelu, nn.softmax,
               nn.log_softmax, nn.l2_loss):
        assert fn(x).dtype == dg.float32
    assert nn.leaky_relu(np.array([-2, 3], np.int32)).dtype == dg.float32


def test_l2_loss_bias_add_and_moments_values():
    x = np.arange(6, dtype=F32).reshape(2, 3)
    np.testing.assert_allclose(nn.l2_loss(x), 27.5)
    np.testing.assert_allclose(nn.bias_add(x, np.array([1, 2, 3], F32)), x + [1, 2, 3])
    mean, variance = nn.moments(x, axes=[1])
    np.testing.assert_allclose(mean, [1, 4])
    np.testing.assert_allclose(variance, [2 / 3, 2 / 3], rtol=1e-6)
    mean, variance = nn.moments(x, axes=[0, 1], keepdims=True)
    assert mean.shape == [1, 1] and variance.shape == [1, 1]
    half = nn.moments(x.astype(np.float16), [0])
    assert half[0].dtype == dg.float16 and half[1].dtype == dg.float16


# -- dropout ---------------------------------------------------------------------------------------
def test_dropout_scales_kept_values_and_drops_about_rate():
    x = np.ones((200, 50), F32)
    y = np.asarray(nn.dropout(x, 0.3, seed=1))
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((y == 0).mean() - 0.3) < 0.02
    np.testing.assert_array_equal(nn.dropout(x, 0.0), x)


def test_dropout_masks_are_identical_in_both_modes_for_one_seed():
    x = np.arange(1, 41, dtype=F32).reshape(4, 10)
    dg.random.set_seed(11)
    eager = np.asarray(nn.dropout(x, 0.5, seed=4))
    dg.random.set_seed(11)
    graph = run_graph(lambda t: nn.dropout(t, 0.5, seed=4), x)
    np.testing.assert_array_equal(eager, graph)
    # Without a global seed an op seed alone is reproducible too, in both modes.
    dg.random.set_seed(None)
    first = np.asarray(nn.dropout(x, 0.5, seed=4))
    dg.random.set_seed(None)
    np.testing.assert_array_equal(run_graph(lambda t: nn.dropout(t, 0.5, seed=4), x), first)
    dg.random.set_seed(None)


def test_dropout_noise_shape_broadcasts_one_mask_and_gradient_is_the_mask():
    x = np.ones((6, 8))
    y = np.asarray(nn.dropout(x, 0.5, noise_shape=[6, 1], seed=2))
    assert np.all(y == y[:, :1])
    (grad,) = _eager_grads(lambda t: nn.dropout(t, 0.5, noise_shape=[6, 1], seed=2), x)
    dg.random.set_seed(None)
    assert set(np.unique(grad)) <= {0.0, 2.0}
    y = np.asarray(nn.dropout(x, 0.5, noise_shape=[None, 1], seed=3))
    assert np.all(y == y[:, :1])


def test_dropout_with_a_tensor_rate_in_a_graph():
    x = np.ones((50, 40), F32)
    g = dg.Graph()
    with g.as_default():
        rate = dg.placeholder(dg.float32, [])
        out = nn.dropout(dg.constant(x), rate, seed=9)
        with dg.Session() as sess:
            y = sess.run(out, {rate: 0.75})
    assert set(np.unique(y)) <= {0.0, 4.0}
    assert abs((y == 0).mean() - 0.75) < 0.05
