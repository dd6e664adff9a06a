"""Variables left undefined by tensor control flow raise TF 2.21's classes, and
`del` inside a branch or loop body makes a variable undefined (TF's AutoGraph)."""
from __future__ import annotations

import pytest

import duograd as dg


def test_defined_in_one_branch_only_is_value_error():
    @dg.function
    def f(x):
        if x > 0:
            y = x
        return y

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        f(dg.constant(1))


def test_del_in_an_unused_branch_is_fine():
    @dg.function
    def f(x):
        if x > 0:
            y = x  # noqa: F841 - never read, as in TF's test
        else:
            del x
        return 1

    assert f(dg.constant(1)).numpy() == 1   # TF 2.21: 1


def test_del_of_a_live_variable_in_a_branch_is_value_error():
    @dg.function
    def f(x):
        y = x
        if x > 0:
            del y
        return y

    with pytest.raises(ValueError, match="'y' must also be initialized in the main branch"):
        f(dg.constant(1))


def test_del_of_a_loop_variable_is_value_error():
    @dg.function
    def f(x):
        while x < 3:
            x = x + 1
            del x
        return x

    with pytest.raises(ValueError):   # TF 2.21: ValueError
        f(dg.constant(0))


def test_del_in_python_control_flow_reads_as_python():
    @dg.function
    def f(x):
        y = x
        if True:
            del y
        return y

    with pytest.raises(UnboundLocalError):
        f(dg.constant(1))


def test_loop_that_never_runs_cannot_define_its_variable():
    @dg.function
    def f(x):
        for i in dg.range(x):
            z = i
        return z

    assert f(dg.constant(2)).numpy() == 1
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="loop must iterate at least once to initialize z"):
        f(dg.constant(0))


def test_packed_shape_of_a_loop_counter():
    @dg.function
    def f(n):
        return dg.zeros([n, 2])

    assert f(dg.constant(3)).shape == (3, 2)


def test_a_return_under_a_tensor_condition_inside_a_tensor_loop_is_tfs_not_implemented():
    # TF 2.21: NotImplementedError "a return statement cannot be placed inside this
    # TensorFlow loop; ..." (the return value has no value when the loop starts)
    @dg.function
    def f(x):
        while x > 0:
            x = x - 1
            if x < 5:
                return x
        return x

    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside"):
        f(dg.constant(3))
