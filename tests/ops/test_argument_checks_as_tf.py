"""Argument checks and edge values fixed for the bad-input table (issue 22), each recorded
from TF 2.21 (/work/main/.venv-conformance): the calls TF accepts keep working, the ones
it rejects raise its class."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

IAE = dg.errors.InvalidArgumentError
X = [[1.0, 2.0], [3.0, 4.0]]


def _v(t):
    return [o.numpy().tolist() for o in t] if isinstance(t, (list, tuple)) else t.numpy().tolist()


def test_values_tensorflow_gives():
    assert _v(dg.sequence_mask([-3, 2])) == [[False, False], [True, True]]
    assert dg.sequence_mask(-3).shape == [0]                     # max(0, -3) columns
    assert _v(dg.sequence_mask([1, 2], 3.0)) == [[True, False, False], [True, True, False]]
    assert _v(dg.dynamic_stitch(dg.constant([[0, 1], [2, 3]]), dg.constant(X))) == \
        [1.0, 2.0, 3.0, 4.0]                                     # eager: two tensors
    assert _v(dg.shape_n(dg.constant(X))) == [[2], [2]]
    assert _v(dg.shape_n([dg.zeros([2, 3])], out_type=dg.int64)) == [[2, 3]]
    mean, var = dg.nn.moments(dg.constant([[1.0, 2.0], [3.0, 5.0]]), None)
    assert (float(mean), float(var)) == (2.75, 2.1875)           # axes None: all
    assert _v(dg.math.multiply_no_nan(dg.constant([1.0, 2.0]), 2)) == [2.0, 4.0]
    assert _v(dg.nn.crelu(dg.constant([[1.0, -2.0]]), axis=dg.constant(0))) == \
        [[1.0, 0.0], [0.0, 2.0]]
    two = dg.switch_case(dg.constant(1), [(0, lambda: dg.constant(1)),
                                          (1, lambda: dg.constant(2))])
    assert int(two) == 2
    assert _v(dg.broadcast_dynamic_shape([2, 1], [1, 3])) == [2, 3]
    assert dg.debugging.assert_rank(dg.zeros([2, 2]), dg.constant(2)) is None
    assert dg.debugging.assert_less(dg.constant([1.0, 2.0]), 3.0) is None
    assert _v(dg.boolean_mask(dg.constant([1.0, 2.0, 3.0]), dg.constant([0.5, 0.0, 2.0]))) == \
        [1.0, 3.0]


@pytest.mark.parametrize("call, error", [
    (lambda: dg.debugging.assert_equal(dg.constant([1.0, 2.0]), 1), IAE),  # int32 y
    (lambda: dg.debugging.Assert(dg.constant([True, True]), [1]), ValueError),
    (lambda: dg.debugging.Assert(dg.constant(0.0), [1]), IAE),
    (lambda: dg.where(dg.constant(3.0)), IAE),
    (lambda: dg.switch_case(1, [lambda: dg.constant(1), lambda: dg.constant(2)]), TypeError),
    (lambda: dg.switch_case(dg.constant(1), [[0, lambda: 1], [1, lambda: 2]]), TypeError),
    (lambda: dg.broadcast_dynamic_shape(dg.constant([2.0, 1.0]), [1, 3]), IAE),
    (lambda: dg.nn.log_poisson_loss([1, 2], dg.constant([0.5, 0.2])), IAE),
    (lambda: dg.norm(dg.constant([3.0, 4.0]), ord=dg.constant(2.0)), TypeError),
    (lambda: dg.cumsum(3.0), IAE),
])
def test_eager_classes_are_tensorflows(call, error):
    with pytest.raises(error):
        call()


@pytest.mark.parametrize("build, error", [
    (lambda x: dg.debugging.Assert(x, [1]), TypeError),            # condition not bool
    (lambda x: dg.debugging.assert_equal(x, dg.constant(True)), TypeError),
    (lambda x: dg.dynamic_stitch(dg.constant([[0, 1]]), x), TypeError),   # not a list
    (lambda x: dg.shape_n(x), TypeError),
    (lambda x: dg.norm(x, ord=dg.constant(2.0)), NotImplementedError),
    (lambda x: dg.nn.crelu(x, axis=dg.constant(1.0)), TypeError),
])
def test_graph_classes_are_tensorflows(build, error):
    with dg.Graph().as_default():
        x = dg.placeholder(dg.float32, [2, 2])
        with pytest.raises(error):
            build(x)


def test_scalars_fail_when_the_graph_runs_as_in_tensorflow():
    g = dg.Graph()
    with g.as_default():
        outs = [dg.cumsum(dg.constant(7)), dg.argmax(dg.constant(7)), dg.where(dg.constant(3.0))]
        with dg.Session(graph=g) as sess:
            for out in outs:
                with pytest.raises(IAE):
                    sess.run(out)
    np.testing.assert_equal(dg.argmax(dg.constant([1.0, 3.0])).numpy(), 1)


def test_silu_casts_beta_to_the_features_dtype_as_tensorflow():
    # TF 2.21 accepts a beta tensor of another dtype (cast to the features' dtype)
    x = np.array(X, np.float32)
    beta = np.array([[1, 2], [3, 4]], np.int32)
    expected = x / (1 + np.exp(-beta * x))
    np.testing.assert_allclose(dg.nn.silu(dg.constant(x), dg.constant(beta)).numpy(),
                               expected, rtol=1e-6)
    with pytest.raises(dg.errors.UnimplementedError):   # TF: Cast string to float
        dg.nn.silu(dg.constant(x), "abc")
    with pytest.raises(dg.errors.InvalidArgumentError):  # beta [3] against [2, 2]
        dg.nn.silu(dg.constant(x), dg.constant([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("values", [[True, False], [1j, 2j], ["a", "b"]])
def test_sort_refuses_what_topk_cannot_order(values):
    with pytest.raises(IAE):
        dg.sort(dg.constant(values))
    with dg.Graph().as_default():
        with pytest.raises(TypeError):
            dg.argsort(dg.constant(values))
