"""The first-order raw sweep runs the registered gradient functions on NumPy values
(eager/raw_backward.py); it must agree with the general pass for every op it takes."""
from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import duograd as dg
import op_tables
from duograd.eager import backprop
from duograd.grad_registry.raw_capable import RAW_CAPABLE_OPS

# Graph op types a row may build besides the op under test (feeds and constants).
_PLUMBING = {"Placeholder", "Const"}


def _rows():
    rows = []
    for info in sorted(pkgutil.iter_modules(op_tables.__path__), key=lambda m: m.name):
        if info.name.endswith("_table"):
            rows.extend(importlib.import_module(f"op_tables.{info.name}").ROWS)
    return rows


def _op_types(spec):
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
    g = dg.Graph()
    with g.as_default():
        spec.fn(*[dg.placeholder(dg.as_dtype(a.dtype), a.shape) for a in args])
    return {op.type for op in g.get_operations()}


def _raw_rows():
    """Differentiable rows built only from raw-capable ops, and the ops they cover."""
    rows, covered = [], set()
    for spec in _rows():
        if not spec.order:
            continue
        types = _op_types(spec) - _PLUMBING
        if types and types <= set(RAW_CAPABLE_OPS):
            rows.append(spec)
            covered |= types
    return rows, covered


RAW_ROWS, COVERED = _raw_rows()


@pytest.fixture
def raw_calls(monkeypatch):
    """Results of the raw sweep as GradientTape.gradient uses it (None: fell back)."""
    calls = []
    real = backprop.raw_gradient

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append(result)
        return result
    monkeypatch.setattr(backprop, "raw_gradient", spy)
    return calls


def test_every_raw_capable_op_has_a_checked_row():
    assert set(RAW_CAPABLE_OPS) <= COVERED, sorted(set(RAW_CAPABLE_OPS) - COVERED)


def _gradients(spec, args, seeds, general: bool):
    """tape.gradient of the row's outputs w.r.t. every float/complex arg; the general
    pass is forced by an enclosing tape that records (nothing it watches)."""
    xs = [dg.constant(a) for a in args]
    sources = [x for x in xs if x.dtype.is_differentiable]
    outer = dg.GradientTape() if general else None
    if outer is not None:
        outer.__enter__()
    try:
        with dg.GradientTape() as tape:
            tape.watch(sources)
            out = spec.fn(*xs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        grads = tape.gradient(outs, sources, output_gradients=[
            dg.constant(s(o)) for s, o in zip(seeds, outs)])
    finally:
        if outer is not None:
            outer.__exit__(None, None, None)
    return grads


@pytest.mark.parametrize("spec", RAW_ROWS, ids=repr)
def test_raw_sweep_agrees_with_general_pass(spec, raw_calls):
    rng = np.random.default_rng(3)
    args = [np.asarray(a) for a in spec.make(rng)]

    def seed(out):  # a random upstream gradient shaped like each output
        value = rng.standard_normal(out.shape.as_list())
        if out.dtype.is_complex:
            value = value + 1j * rng.standard_normal(out.shape.as_list())
        return value.astype(out.dtype.as_numpy_dtype)
    seeds = [seed] * 4
    general = _gradients(spec, args, seeds, general=True)
    assert raw_calls == []  # an enclosing recording tape: never the raw sweep
    rng = np.random.default_rng(3)
    args = [np.asarray(a) for a in spec.make(rng)]
    raw = _gradients(spec, args, seeds, general=False)
    assert len(raw_calls) == 1 and raw_calls[0] is not None, "the raw sweep fell back"
    assert len(raw) == len(general)
    for r, g in zip(raw, general):
        assert (r is None) == (g is None)
        if r is None:
            continue
        assert type(r) is type(g)
        assert r.dtype == g.dtype
        assert r.shape.as_list() == g.shape.as_list()
        np.testing.assert_allclose(r.numpy(), g.numpy(), rtol=1e-12, atol=1e-14)


def test_float32_stays_float32_with_python_scalars(raw_calls):
    x = dg.constant([0.5, -1.5, 2.0], dtype=dg.float32)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_mean(dg.sigmoid(x * 3.0 - 1.0) / (x * x + 0.5))
    g = tape.gradient(y, x)
    assert raw_calls and raw_calls[0] is not None
    assert g.dtype == dg.float32 and g.numpy().dtype == np.float32


def test_broadcast_inputs_are_summed_back(raw_calls):
    a = dg.constant(np.arange(6.0).reshape(2, 3))
    b = dg.constant(np.array([1.0, 2.0, 3.0]))
    c = dg.constant(np.array([[2.0], [3.0]]))
    with dg.GradientTape() as tape:
        tape.watch([a, b, c])
        y = dg.reduce_sum((a * b - c) * (a + c))
    ga, gb, gc_ = tape.gradient(y, [a, b, c])
    assert raw_calls and raw_calls[0] is not None
    av, bv, cv = a.numpy(), b.numpy(), c.numpy()
    # y = sum((a b - c)(a + c)): the partial derivatives, written out by hand
    np.testing.assert_allclose(ga.numpy(), b * (av + cv) + (av * bv - cv))
    np.testing.assert_allclose(gb.numpy(), (av * (av + cv)).sum(0))
    np.testing.assert_allclose(gc_.numpy(), (-(av + cv) + (av * bv - cv)).sum(1, keepdims=True))


def test_ops_without_raw_gradient_fall_back_to_the_general_pass(raw_calls):
    x = dg.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.sin(dg.matmul(x, x)))
    g = tape.gradient(y, x)
    assert raw_calls == [None]
    xv = x.numpy()
    u = np.cos(xv @ xv)
    np.testing.assert_allclose(g.numpy(), u @ xv.T + xv.T @ u)


def test_unconnected_and_intermediate_sources(raw_calls):
    x = dg.constant([1.0, 2.0])
    z = dg.constant([3.0, 4.0])
    with dg.GradientTape() as tape:
        tape.watch([x, z])
        h = dg.sin(x)
        y = dg.reduce_sum(h * h)
    gx, gz, gh = tape.gradient(y, [x, z, h])
    assert raw_calls and raw_calls[0] is not None
    assert gz is None
    np.testing.assert_allclose(gh.numpy(), 2 * np.sin([1.0, 2.0]))
    np.testing.assert_allclose(gx.numpy(), 2 * np.sin([1.0, 2.0]) * np.cos([1.0, 2.0]))


def test_nested_tapes_still_give_second_derivatives(raw_calls):
    x = dg.constant(0.7, dtype=dg.float64)
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = dg.sin(x) * x
        dy = inner.gradient(y, x)   # outer records: the general pass
    d2y = outer.gradient(dy, x)     # nothing else records: the raw sweep
    assert raw_calls[0] is not None
    np.testing.assert_allclose(dy.numpy(), np.cos(0.7) * 0.7 + np.sin(0.7))
    np.testing.assert_allclose(d2y.numpy(), -np.sin(0.7) * 0.7 + 2 * np.cos(0.7))


def test_backward_errors_are_the_general_pass_errors(raw_calls):
    x = dg.constant([1.0, 2.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y, _ = dg.unique(x)  # TF registers no gradient for Unique
        z = dg.reduce_sum(dg.sin(y))
    with pytest.raises(LookupError, match="Unique"):
        tape.gradient(z, x)
    assert raw_calls == [None]  # the sweep gave up; the general pass raised


def test_forward_over_reverse_takes_the_general_pass(raw_calls):
    x = dg.constant([0.3, 1.1], dtype=dg.float64)
    v = dg.constant([1.0, -2.0], dtype=dg.float64)
    with dg.autodiff.ForwardAccumulator(x, v) as acc:
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.sin(x) * x)
        g = tape.gradient(y, x)  # an accumulator is active: the general pass
    assert raw_calls == []
    xv = np.array([0.3, 1.1])
    np.testing.assert_allclose(g.numpy(), np.cos(xv) * xv + np.sin(xv))
    # Hessian-vector product: d/dx (cos x * x + sin x) = 2 cos x - x sin x
    np.testing.assert_allclose(acc.jvp(g).numpy(),
                               (2 * np.cos(xv) - xv * np.sin(xv)) * [1.0, -2.0])


def test_tapes_inside_dg_function_take_the_general_pass(raw_calls):
    @dg.function
    def grad_of(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.tanh(x) * 2.0)
        return tape.gradient(y, x)
    xv = np.array([0.5, -0.25])
    np.testing.assert_allclose(grad_of(dg.constant(xv)).numpy(), 2 * (1 - np.tanh(xv) ** 2))
    assert raw_calls == []  # traced in a graph
