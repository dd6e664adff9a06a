"""Graph-mode dg.gradients (ops/gradients_util.py): the seeds' semantics and errors."""
from __future__ import annotations

import doctest
import os
import subprocess
import sys
import textwrap
import time
import uuid

import numpy as np
import pytest

import duograd as dg
from repo_paths import REPO_ROOT


def _run(g, fetches, feeds=None):
    with dg.Session(graph=g) as sess:
        return sess.run(fetches, feeds)


# -- the seed docstring examples ----------------------------------------------
def test_stop_gradients_partial_vs_total_derivatives():
    g = dg.Graph()
    with g.as_default():
        a = dg.constant(0.0)
        b = 2 * a
        partial = dg.gradients(a + b, [a, b], stop_gradients=[a, b])
        total = dg.gradients(a + b, [a, b])
        a2 = dg.stop_gradient(dg.constant(0.0))
        b2 = dg.stop_gradient(2 * a2)
        equivalent = dg.gradients(a2 + b2, [a2, b2])
    assert [float(v) for v in _run(g, partial)] == [1.0, 1.0]
    assert [float(v) for v in _run(g, total)] == [3.0, 1.0]
    assert [float(v) for v in _run(g, equivalent)] == [1.0, 1.0]


def test_unconnected_gradients_none_and_zero_seed_example():
    g = dg.Graph()
    with g.as_default():
        a = dg.ones([1, 2])
        b = dg.ones([3, 1])
        assert dg.gradients([b], [a], unconnected_gradients="none") == [None]
        assert dg.gradients([b], [a], unconnected_gradients=dg.UnconnectedGradients.NONE) == [None]
        (zero,) = dg.gradients([b], [a], unconnected_gradients="zero")
        (zero64,) = dg.gradients([b], [dg.zeros([2, 3], dg.float64)],
                                 unconnected_gradients=dg.UnconnectedGradients.ZERO)
    value, value64 = _run(g, [zero, zero64])
    np.testing.assert_array_equal(value, np.zeros((1, 2), np.float32))
    assert value.dtype == np.float32 and value64.dtype == np.float64 and value64.shape == (2, 3)


def test_cost_example_ws_bs():
    g = dg.Graph()
    with g.as_default():
        ws = dg.constant(0.0)
        bs = 2 * ws
        cost = ws + bs
        d_w, d_b = dg.gradients(cost, [ws, bs])
    assert [float(v) for v in _run(g, [d_w, d_b])] == [3.0, 1.0]


# -- errors -------------------------------------------------------------------
def test_wrong_grad_ys_count():
    with dg.Graph().as_default():
        x = dg.constant(1.0)
        with pytest.raises(ValueError, match=r"^Passed 2 grad_ys for 1 ys$"):
            dg.gradients(x * 2.0, x, grad_ys=[1.0, 2.0])


def test_complex_y_needs_grad_ys_and_grad_ys_dtype_checked():
    with dg.Graph().as_default():
        z = dg.constant(np.array([1 + 2j], np.complex64))
        with pytest.raises(TypeError, match=r"Gradients of complex tensors .* must set "
                           r"grad_ys \(y\.dtype = complex64\)"):
            dg.gradients(z * z, z)
        x = dg.constant(1.0)
        with pytest.raises(TypeError, match="must be real or integer"):
            dg.gradients(x * 2.0, x, grad_ys=[dg.constant(True)])
        (dz,) = dg.gradients(z * z, z, grad_ys=[dg.constant(np.array([1 + 0j], np.complex64))])
        np.testing.assert_allclose(_run(dz.graph, dz), [2 - 4j])  # conj(2z), TF's convention


def test_bad_unconnected_gradients_value():
    with dg.Graph().as_default():
        x = dg.constant(1.0)
        with pytest.raises(ValueError, match="^Unknown value for unconnected_gradients: 'nope'$"):
            dg.gradients(x * 2.0, x, unconnected_gradients="nope")
    x = dg.constant(1.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="^Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="nope")


def test_missing_gradient_is_lookup_error_naming_op_and_type():
    # Declared in a child process so the shared op registry of this run stays clean.
    op_type = f"TestNoGrad{uuid.uuid4().hex[:8]}"
    script = textwrap.dedent(f"""
        import duograd as dg
        from duograd.framework.op_def import declare_op
        from duograd.ops.dispatch import apply_op
        from duograd.ops.shape_rules import same_as_input
        OP = declare_op("{op_type}", lambda x: x * 2, same_as_input)
        with dg.Graph().as_default():
            x = dg.constant([1.0])
            y = apply_op(OP, (x,), name="mystery") * 3.0
            try:
                dg.gradients(y, x)
            except LookupError as e:
                print("GRAPH", e)
        x = dg.constant([1.0])
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = apply_op(OP, (x,))
        try:
            tape.gradient(y, x)
        except LookupError as e:
            print("EAGER", e)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert f"GRAPH No gradient defined for operation 'mystery' (op type: {op_type})" in lines
    assert any(line.startswith("EAGER No gradient defined for operation") and op_type in line
               for line in lines)


def test_gradients_and_hessians_raise_in_eager_mode():
    x = dg.constant(1.0)
    with pytest.raises(RuntimeError, match="GradientTape"):
        dg.gradients(x, x)
    with pytest.raises(RuntimeError, match=r"GradientTape\(persistent=True\)\.hessian"):
        dg.hessians(x, x)


def test_register_gradient_twice_is_key_error():
    with pytest.raises(KeyError, match="Sin"):
        dg.RegisterGradient("Sin")(lambda op, grad: grad)


_BAD_COUNT = f"TestBadCount{uuid.uuid4().hex[:8]}"
_BAD_SHAPE = f"TestBadShape{uuid.uuid4().hex[:8]}"
dg.RegisterGradient(_BAD_COUNT)(lambda op, grad: (grad, grad))
dg.RegisterGradient(_BAD_SHAPE)(lambda op, grad: dg.ones([3]))


def test_gradient_count_mismatch_message():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        with g.gradient_override_map({"Identity": _BAD_COUNT}):
            y = dg.identity(x, name="ident")
        with pytest.raises(ValueError, match=r"^Num gradients 2 generated for op ident = "
                                             r"Identity\(Const:0\) do not match num inputs 1$"):
            dg.gradients(y, x)


def test_incompatible_gradient_shape():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        with g.gradient_override_map({"Identity": _BAD_SHAPE}):
            y = dg.identity(x, name="ident")
        with pytest.raises(ValueError, match="Incompatible shapes between op input and "
                                             "calculated input gradient. Forward operation: "
                                             "ident. Input index: 0"):
            dg.gradients(y, x)


# -- semantics ----------------------------------------------------------------
def test_integer_tensors_are_constants():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.5, 2.5])
        i = dg.cast(x, dg.int32)
        y = dg.cast(i, dg.float32) * 2.0 + x
        dx, di = dg.gradients(y, [x, i])
        assert di is None
    np.testing.assert_array_equal(_run(g, dx), [1.0, 1.0])


@pytest.mark.parametrize("method", [dg.AggregationMethod.ADD_N, dg.AggregationMethod.DEFAULT,
                                    dg.AggregationMethod.EXPERIMENTAL_TREE,
                                    dg.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N])
def test_aggregation_methods_agree(method):
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([0.5, -1.0, 2.0])
        y = x * x + dg.sin(x) * x + x + dg.exp(x)
        (dx,) = dg.gradients(y, x, aggregation_method=method)
        add_ns = [op for op in g.get_operations() if op.type == "AddN"
                  and op.name.startswith("gradients")]
        if method == dg.AggregationMethod.EXPERIMENTAL_TREE:
            assert add_ns and all(len(op.inputs) == 2 for op in add_ns)
    xv = np.array([0.5, -1.0, 2.0], np.float32)
    expected = 2 * xv + np.cos(xv) * xv + np.sin(xv) + 1 + np.exp(xv)
    np.testing.assert_allclose(_run(g, dx), expected, rtol=1e-6)


def test_bad_aggregation_method():
    with dg.Graph().as_default():
        x = dg.constant(1.0)
        with pytest.raises(ValueError, match="Invalid aggregation_method specified 7"):
            dg.gradients(x * x, x, aggregation_method=7)


def test_indexed_slices_aggregate_without_densifying():
    g = dg.Graph()
    with g.as_default():
        p = dg.constant(np.arange(8.0).reshape(4, 2))
        y = dg.reduce_sum(dg.gather(p, [0, 2])) + dg.reduce_sum(dg.gather(p, [1, 2]) * 2.0)
        (dp,) = dg.gradients(y, p)
        assert isinstance(dp, dg.IndexedSlices)
        assert not any(op.type == "UnsortedSegmentSum" for op in g.get_operations())
        dense = dg.convert_to_tensor(dp)
        value, dense_value = _run(g, [dp, dense])
    assert isinstance(value, dg.IndexedSlicesValue) and value.values.shape == (4, 2)
    np.testing.assert_array_equal(value.indices, [0, 2, 1, 2])
    np.testing.assert_array_equal(dense_value, [[1, 1], [2, 2], [3, 3], [0, 0]])
    # mixing slices with a dense part densifies
    with g.as_default():
        (mixed,) = dg.gradients(y + dg.reduce_sum(p), p)
        assert isinstance(mixed, dg.Tensor)
    np.testing.assert_array_equal(_run(g, mixed), [[2, 2], [3, 3], [4, 4], [1, 1]])


def test_gate_gradients_groups_with_control_dependencies():
    g = dg.Graph()
    with g.as_default():
        a = dg.constant([1.0, 2.0])
        b = dg.constant([3.0, 4.0])
        y = dg.multiply(a, b, name="prod")
        da, db = dg.gradients(y, [a, b], gate_gradients=True)
        grad_ops = [op for op in g.get_operations() if op.name.startswith("gradients/prod_grad/")]
        assert any(op.type == "NoOp" for op in grad_ops)
        assert da.op.control_inputs and db.op.control_inputs
    np.testing.assert_array_equal(_run(g, [da, db]), [[3.0, 4.0], [1.0, 2.0]])


def test_gradient_op_names_and_colocate_accepted():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        y = dg.sin(x, name="mysin")
        (dx,) = dg.gradients(y, x, colocate_gradients_with_ops=True)
        (dx2,) = dg.gradients(y, x, name="second")
    assert dx.op.name.startswith("gradients/mysin_grad/")
    assert dx2.op.name.startswith("second/mysin_grad/")


def test_multiple_ys_sum_and_grad_ys_weights():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant([1.0, 2.0])
        y1, y2 = x * x, 3.0 * x
        (d,) = dg.gradients([y1, y2], x, grad_ys=[dg.constant([1.0, 0.0]), None])
    np.testing.assert_array_equal(_run(g, d), [5.0, 3.0])


# -- both engines agree ---------------------------------------------------------------
_PROGRAMS = [
    ("mlp", lambda x, w: dg.reduce_sum(dg.tanh(dg.matmul(x, w)) ** 2)),
    ("shared", lambda x, w: dg.reduce_mean(x * dg.reduce_sum(w) + dg.exp(x) * x)),
    ("broadcast", lambda x, w: dg.reduce_sum(dg.sigmoid(x) * w[0])),
    ("gather", lambda x, w: dg.reduce_sum(dg.gather(w, [0, 0, 2]) * 2.0) + dg.reduce_sum(x)),
]


@pytest.mark.parametrize("name,fn", _PROGRAMS, ids=[p[0] for p in _PROGRAMS])
def test_graph_gradients_equal_tape_gradients(name, fn):
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((2, 3)), rng.standard_normal((3, 3))
    x, w = dg.constant(xv), dg.constant(wv)
    with dg.GradientTape() as tape:
        tape.watch([x, w])
        y = fn(x, w)
    eager = [np.asarray(dg.convert_to_tensor(t)) for t in tape.gradient(y, [x, w])]
    g = dg.Graph()
    with g.as_default():
        xp, wp = dg.placeholder(dg.float64, [2, 3]), dg.placeholder(dg.float64, [3, 3])
        grads = [dg.convert_to_tensor(t) for t in dg.gradients(fn(xp, wp), [xp, wp])]
        graph = _run(g, grads, {xp: xv, wp: wv})
    for e, gr in zip(eager, graph):
        np.testing.assert_allclose(gr, e, rtol=1e-12, atol=1e-12)


# -- a long chain -----------------------------------------------------------------------
N_CHAIN = 100_000


def test_100k_op_chain_graph_mode():
    start = time.perf_counter()
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [])
        c = dg.constant(1.00001, dg.float64)
        y = x
        for _ in range(N_CHAIN):
            y = dg.multiply(y, c)
        (dx,) = dg.gradients(y, x)
        value, grad = _run(g, [y, dx], {x: 2.0})
    np.testing.assert_allclose([value, grad], [2.0 * 1.00001 ** N_CHAIN, 1.00001 ** N_CHAIN])
    assert time.perf_counter() - start < 300  # ~12 s on an idle 2-core machine; catches O(n^2)


def test_100k_op_chain_tape():
    start = time.perf_counter()
    x = dg.constant(2.0, dg.float64)
    c = dg.constant(1.00001, dg.float64)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(N_CHAIN):
            y = y * c
    grad = tape.gradient(y, x)
    np.testing.assert_allclose(float(grad), 1.00001 ** N_CHAIN)
    assert time.perf_counter() - start < 300  # ~6 s on an idle 2-core machine


def test_docs_examples_run():
    path = os.path.join(REPO_ROOT, "docs", "gradients.md")
    failures, tried = doctest.testfile(path, module_relative=False,
                                       optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 10 and failures == 0


def test_skip_sets_are_per_thread_while_building_gradients():
    """Two threads differentiating one graph w.r.t. different inputs get their own
    skip_input_indices (a shared one could drop a gradient the other needs)."""
    import threading
    g = dg.Graph()
    with g.as_default():
        a = dg.constant(np.arange(1.0, 4.0))
        b = dg.constant(np.arange(4.0, 7.0))
        y = dg.reduce_sum(a * b)
    results, errors = {}, []

    def differentiate(name, x):
        try:
            with g.as_default():
                for _ in range(200):
                    (grad,) = dg.gradients(y, [x])
                results[name] = dg.Session(graph=g).run(grad)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=differentiate, args=("a", a)),
               threading.Thread(target=differentiate, args=("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    np.testing.assert_array_equal(results["a"], [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(results["b"], [1.0, 2.0, 3.0])
