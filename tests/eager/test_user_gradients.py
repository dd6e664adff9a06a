"""A gradient function the user wrote runs as Python on every backward pass, as in
TensorFlow's eager mode: only duograd's own (pure) gradient functions may be traced
once and replayed (the reuse rule, grad_registry/registry.py). Each test runs the
backward pass several times so that every reuse path (adjoint programs of the raw
sweep, replayed gradients under another tape, Jacobian plans) has seen the
structure before."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.framework.registry import gradient_functions
from duograd.grad_registry.registry import is_pure

X = np.array([0.5, 1.0], dtype=np.float32)


@pytest.fixture
def user_gradient():
    """Registers `fn` under a fresh name for the test (unregistered after)."""
    names = []

    def register(fn):
        name = f"TestUserGradient{len(names)}_{id(fn)}"
        dg.RegisterGradient(name)(fn)
        names.append(name)
        return name
    yield register
    for name in names:
        gradient_functions.unregister(name)


def _sin_gradient(name, *, outer=False, persistent=False):
    """d sum(sin(x))/dx with Sin's gradient overridden by `name`; `outer`: another
    tape records meanwhile (the gradient ops are recorded on it)."""
    x = dg.constant(X)
    outer_tape = dg.GradientTape() if outer else None
    if outer_tape is not None:
        outer_tape.__enter__()
        outer_tape.watch(x)
    try:
        with dg.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            with dg.gradient_override_map({"Sin": name}):
                y = dg.sin(x)
        return tape, y, x
    finally:
        if outer_tape is not None:
            outer_tape.__exit__(None, None, None)


@pytest.mark.parametrize("outer", [False, True], ids=["plain tape", "another tape active"])
def test_a_user_gradient_reading_python_state_is_not_frozen(user_gradient, outer):
    """The issue's reproduction: with scale[0] set to 1, 2, 3 the gradient is 1, 2, 3
    times the output gradient (it was [1, 1] three times from a plain tape)."""
    scale = [1.0]
    name = user_gradient(lambda op, grad: grad * scale[0])
    for s in (1.0, 2.0, 3.0):
        scale[0] = s
        tape, y, x = _sin_gradient(name, outer=outer)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [s, s])


def test_a_user_gradient_that_prints_prints_on_every_pass_with_values(user_gradient, capsys):
    """A print (or a breakpoint) fires once per backward pass, on eager values."""
    def noisy(op, grad):
        print("grad", grad.numpy().tolist())
        return grad * dg.cos(op.inputs[0])
    name = user_gradient(noisy)
    for _ in range(3):
        tape, y, x = _sin_gradient(name)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(X), rtol=1e-6)
    assert capsys.readouterr().out.splitlines() == ["grad [1.0, 1.0]"] * 3


def test_a_user_gradient_counting_its_calls_counts_each_pass(user_gradient):
    """Python state read and written by the gradient function: each pass sees the last."""
    calls = {"n": 0}

    def counting(op, grad):
        calls["n"] += 1
        return grad * float(calls["n"])
    name = user_gradient(counting)
    for n in (1, 2, 3, 4):
        tape, y, x = _sin_gradient(name)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [n, n])
    assert calls["n"] == 4


def test_a_user_gradient_that_raises_propagates_and_the_tape_stays_usable(user_gradient):
    """The exception reaches the caller unchanged (TF: the same); a persistent tape
    then computes the gradient once the function no longer raises."""
    fail = [True]

    def flaky(op, grad):
        if fail[0]:
            raise ValueError("boom from the user's gradient")
        return grad * 2.0
    name = user_gradient(flaky)
    for _ in range(2):   # a second sighting of the structure must raise too
        fail[0] = True
        tape, y, x = _sin_gradient(name, persistent=True)
        with pytest.raises(ValueError, match="boom from the user's gradient"):
            tape.gradient(y, x)
        fail[0] = False
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_a_custom_gradient_reading_python_state_runs_every_time():
    """custom_gradient's grad_fn, through the raw path, under another tape, and in a
    Jacobian (whose plans are reused per structure)."""
    scale = [1.0]

    @dg.custom_gradient
    def f(x):
        def grad(dy):
            return dy * scale[0]
        return dg.sin(x), grad
    for s in (1.0, 2.0, 3.0):
        scale[0] = s
        x = dg.constant(X)
        with dg.GradientTape(persistent=True) as outer:
            outer.watch(x)
            with dg.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [s, s])
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [s, s])
        np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), np.diag([s, s]))


def test_a_user_gradient_in_a_jacobian_is_not_frozen(user_gradient):
    scale = [1.0]
    name = user_gradient(lambda op, grad: grad * scale[0])
    for s in (1.0, 2.0, 3.0):
        scale[0] = s
        tape, y, x = _sin_gradient(name, persistent=True)
        np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), np.diag([s, s]))


def test_only_duograds_own_gradient_functions_are_pure(user_gradient):
    """The reuse rule itself: own functions yes (None: no gradient, too); a user's, a
    custom_gradient's and those that run user code (py_function, function bodies) no."""
    assert is_pure("Sin") and is_pure("MatMul") and is_pure("Shape")
    assert not is_pure(user_gradient(lambda op, grad: grad))
    for name in ("CustomGradient", "EagerPyFunc", "PartitionedCall", "While", "If"):
        assert not is_pure(name)
    assert not is_pure("NoSuchGradientEverRegistered")


def test_every_engine_hands_a_gradient_function_an_op_view(user_gradient):
    """The graph `Operation`, the tape's entry and the accumulator's view all provide
    the `OpView` protocol (type, name, gradient_name, inputs, outputs,
    skip_input_indices, get_attr), which is all a gradient function may read."""
    from duograd.eager.forwardprop import OpView as AccumulatorView
    from duograd.grad_registry.op_view import OpView
    from duograd.ops.math import math_ops
    seen = []

    def spy(op, grad):
        seen.append(op)
        return grad * dg.cos(op.inputs[0])
    name = user_gradient(spy)
    tape, y, x = _sin_gradient(name)
    tape.gradient(y, x)
    graph = dg.Graph()
    with graph.as_default():
        p = dg.compat.v1.placeholder(dg.float32, [2])
        with graph.gradient_override_map({"Sin": name}):
            q = dg.sin(p)
        dg.gradients(q, p)
    x = dg.constant(X)
    view = AccumulatorView(math_ops.SIN, {}, (x,), (dg.sin(x),), frozenset())
    assert [type(op).__name__ for op in seen] == ["TapeEntry", "Operation"]
    for op in seen + [view]:
        assert isinstance(op, OpView)
        assert op.gradient_name in (name, "Sin") and op.type == "Sin"
        assert len(op.inputs) == 1 and op.skip_input_indices == frozenset()
