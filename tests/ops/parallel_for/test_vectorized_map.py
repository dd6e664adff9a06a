"""dg.vectorized_map: results equal a Python loop, in eager, graph and dg.function."""
import logging

import numpy as np
import pytest

import duograd as dg

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3, 2))
W = RNG.standard_normal((2, 5))
V = RNG.standard_normal((3,))
U = RNG.standard_normal((5, 3, 2))
IDX = np.array([[2, 0], [1, 1], [0, 2], [2, 2]], np.int32)

CASES = {
    "elementwise": lambda x: dg.tanh(x) * 2.0 + dg.sin(x) - dg.exp(x) / (1.0 + x * x),
    "broadcast_rank": lambda x: x + dg.constant(U),
    "matmul_lhs": lambda x: dg.matmul(x, dg.constant(W)),
    "matmul_rhs_t": lambda x: dg.matmul(dg.constant(W), x, transpose_a=True, transpose_b=True),
    "matmul_both": lambda x: dg.matmul(x, x, transpose_b=True),
    "col_vector": lambda x: dg.matmul(dg.constant(W.T), dg.reshape(x[:, 0], [3, 1])[:2]),
    "reductions": lambda x: (dg.reduce_sum(x, axis=1), dg.reduce_mean(x),
                             dg.reduce_max(x, -1, keepdims=True)),
    "shapes": lambda x: dg.squeeze(dg.expand_dims(dg.transpose(dg.reshape(x, [2, 3]), [1, 0]), 0)),
    "joins": lambda x: (dg.concat([x, dg.constant(np.ones((3, 1)))], 1), dg.stack([x, x * 2], -1)),
    "broadcast_to": lambda x: dg.broadcast_to(x[:, :1], [2, 3, 2]),
    "where": lambda x: dg.where(x > 0.0, x, dg.constant(V[:, None]) * x),
    "gather_params": lambda x: dg.gather(x, [2, 0], axis=0),
    "unbatched_out": lambda x: dg.constant(V) * 3.0,
    "add_n": lambda x: dg.add_n([x, x * x, dg.cos(x)]),
    "axis_ops": lambda x: (dg.cumsum(x, axis=1), dg.nn.softmax(x, axis=0), dg.sort(x, axis=-1),
                           dg.reverse(x, [0])),
    "trailing": lambda x: (dg.linalg.inv(dg.matmul(x, x, transpose_a=True) + np.eye(2)),
                           dg.nn.bias_add(x, dg.constant(V[:2])), dg.nn.l2_loss(x)),
    "bounds": lambda x: (dg.tile(x, [2, 1]), dg.slice(x, [1, 0], [2, 1]),
                         dg.pad(x, [[1, 0], [0, 2]]), dg.fill([2, 2], dg.reduce_sum(x))),
    "cast_like": lambda x: dg.cast(x > 0.0, dg.float64) + dg.zeros_like(x) + dg.ones_like(x),
}


def _loop(fn, elems):
    outs = [fn(dg.constant(e)) for e in elems]
    return dg.nest.map_structure(lambda *xs: np.stack([np.asarray(x) for x in xs]), *outs) \
        if isinstance(outs[0], (tuple, list)) else np.stack([o.numpy() for o in outs])


def _numpy(value):
    if isinstance(value, (tuple, list)):
        return [_numpy(v) for v in value]
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _expected(fn):
    outs = [fn(dg.constant(e)) for e in X]
    if isinstance(outs[0], (tuple, list)):
        return [np.stack([_numpy(o[k]) for o in outs]) for k in range(len(outs[0]))]
    return np.stack([_numpy(o) for o in outs])


def _check(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_equals_loop(case, caplog):
    fn = CASES[case]
    with caplog.at_level(logging.WARNING, logger="duograd"):
        got = _numpy(dg.vectorized_map(fn, dg.constant(X)))
    _check(got, _expected(fn))
    assert "using a loop" not in caplog.text  # every op here has a batching rule


@pytest.mark.parametrize("case", ["elementwise", "matmul_lhs", "reductions", "joins",
                                  "gather_params"])
def test_graph_and_function_equal_loop(case):
    fn = CASES[case]
    want = _expected(fn)
    graph = dg.Graph()
    with graph.as_default():
        x = dg.placeholder(dg.float64, X.shape)
        out = dg.vectorized_map(fn, x)
        with dg.Session() as sess:
            _check(_numpy(sess.run(out, {x: X})), want)
    traced = dg.function(lambda x: dg.vectorized_map(fn, x))
    _check(_numpy(traced(dg.constant(X))), want)


def test_nested_elems_and_outputs():
    def fn(elem):
        x, (idx, scale) = elem["x"], elem["rest"]
        return {"g": dg.gather(dg.constant(V), idx), "y": dg.reduce_sum(x) * scale}

    scales = RNG.standard_normal(4)
    got = dg.vectorized_map(fn, {"x": dg.constant(X), "rest": (dg.constant(IDX),
                                                                   dg.constant(scales))})
    np.testing.assert_array_equal(got["g"].numpy(), V[IDX])
    np.testing.assert_allclose(got["y"].numpy(), X.sum(axis=(1, 2)) * scales, rtol=1e-12)


def test_gather_with_batched_indices():
    got = dg.vectorized_map(lambda i: dg.gather(dg.constant(W), i, axis=1), dg.constant(IDX))
    np.testing.assert_array_equal(got.numpy(), np.stack([W[:, i] for i in IDX]))


def test_fallback_loop_warns_and_is_correct(caplog):
    with caplog.at_level(logging.WARNING, logger="duograd"):
        got = dg.vectorized_map(lambda x: dg.linalg.tensor_diag(x[0] * 2.0), dg.constant(X))
    np.testing.assert_allclose(got.numpy(), np.stack([np.diag(x[0] * 2) for x in X]), rtol=1e-12)
    assert "Diag" in caplog.text  # Diag has no batching rule: the warning names it


def test_no_fallback_raises():
    with pytest.raises(ValueError, match="Diag"):
        dg.vectorized_map(lambda x: dg.linalg.tensor_diag(x[0]), dg.constant(X),
                          fallback_to_while_loop=False)


def test_errors():
    with pytest.raises(ValueError, match="leading"):
        dg.vectorized_map(lambda x: x, (dg.constant(X), dg.constant(V)))
    with pytest.raises(ValueError, match="leading axis"):
        dg.vectorized_map(lambda x: x, dg.constant(1.0))


def test_recorded_by_outer_tape():
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.vectorized_map(lambda e: dg.tanh(dg.matmul(e, dg.constant(W))), x))
    want = (1 - np.tanh(X @ W) ** 2) @ W.T
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-12)
