"""A `return` inside a tensor-dependent loop (TF 2.21's AutoGraph, values and classes
recorded with /work/main/.venv-conformance): the return value is a loop variable whose
dtype and shape the body gives it, so a return the body always reaches (under a static
Python condition, or none) works; a loop that runs no iteration fails TF's "must
iterate at least once" assertion; a body that never sets it is a ValueError; a return
under a tensor condition, or a bare return, stays TF's NotImplementedError."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

FLAG = False


@dg.function
def static_true_for(x):
    for i in dg.range(x):
        if True:
            return i
    return -1


@dg.function
def static_false_for(x):
    for i in dg.range(x):
        if FLAG:
            return i
    return -1


@dg.function
def unconditional_for(x):
    for i in dg.range(x):
        return i * 2
    return -1


@dg.function
def static_true_while(x):
    while x > 0:
        x = x - 1
        if True:
            return x
    return x + 100


@dg.function
def accumulate_then_return(x):
    s = dg.constant(0)
    for i in dg.range(x):
        s = s + i
        if True:
            return s
    return s


@dg.function
def float_return(x):
    for i in dg.range(x):
        if True:
            return dg.cast(i, dg.float32) * 1.5
    return 7.0


@dg.function
def python_argument_condition(x, n):
    for i in dg.range(x):
        if n > 2:
            return i + 10
    return -1


@dg.function
def bare_return(x):
    for _ in dg.range(x):
        if True:
            return
    return


@dg.function
def list_return(x):
    for i in dg.range(x):
        if True:
            return [i, i + 1]
    return [0, 0]


@pytest.mark.parametrize("f, args, expected, dtype", [
    (static_true_for, (5,), 0, dg.int32),
    (unconditional_for, (5,), 0, dg.int32),
    (static_true_while, (5,), 4, dg.int32),
    (accumulate_then_return, (5,), 0, dg.int32),
    (float_return, (5,), 0.0, dg.float32),
    (python_argument_condition, (5, 3), 10, dg.int32),
])
def test_a_return_the_body_always_reaches_returns_tensorflows_value(f, args, expected, dtype):
    out = f(dg.constant(args[0]), *args[1:])
    assert out.dtype == dtype and out.shape == () and float(out) == expected


def test_a_returned_list():
    out = list_return(dg.constant(3))
    assert [int(v) for v in out] == [0, 1]


@pytest.mark.parametrize("f", [static_true_for, unconditional_for, static_true_while,
                               float_return])
def test_no_iteration_fails_tensorflows_assertion(f):
    with pytest.raises(dg.errors.InvalidArgumentError, match="iterate at least once"):
        f(dg.constant(0))


@pytest.mark.parametrize("f, args", [(static_false_for, (5,)),
                                     (python_argument_condition, (5, 1))])
def test_a_body_that_never_returns_is_tensorflows_value_error(f, args):
    with pytest.raises(ValueError, match="return value from a TensorFlow loop"):
        f(dg.constant(args[0]), *args[1:])


def test_a_bare_return_is_tensorflows_not_implemented_error():
    with pytest.raises(NotImplementedError, match="return statement cannot be placed"):
        bare_return(dg.constant(3))


def test_the_loop_still_computes_in_a_session():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.int32, [])
        out = static_true_while(x)
        with dg.Session(graph=g) as sess:
            assert sess.run(out, {x: 7}) == 6
            with pytest.raises(dg.errors.InvalidArgumentError):
                sess.run(out, {x: 0})
    np.testing.assert_equal(static_true_while(dg.constant(7)).numpy(), 6)
