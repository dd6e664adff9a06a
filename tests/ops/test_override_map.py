"""gradient_override_map: checked names, and the same override in graph and eager mode."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


@dg.RegisterGradient("TestOverrideTripleSquare")
def _triple_square_grad(op, grad):
    """grad * 6x: three times Square's gradient (so the override is visible)."""
    return grad * 6.0 * op.inputs[0]


MAPPING = {"Square": "TestOverrideTripleSquare"}
X = np.array([1.0, -2.0])


def test_graph_method_typo_in_op_type_is_a_key_error_at_the_with():
    g = dg.Graph()
    with pytest.raises(KeyError, match="'Sqaure' is not a declared op type"):
        with g.gradient_override_map({"Sqaure": "TestOverrideTripleSquare"}):
            pass


def test_graph_method_typo_in_gradient_name_is_a_key_error_at_the_with():
    g = dg.Graph()
    with pytest.raises(KeyError, match="no gradient registered under 'TestOverideTripleSquare'"):
        with g.gradient_override_map({"Square": "TestOverideTripleSquare"}):
            pass


@pytest.mark.parametrize("mode", ["eager", "graph"])
@pytest.mark.parametrize("bad", [{"Sqaure": "TestOverrideTripleSquare"},
                                 {"Square": "NoSuchGradient"}])
def test_context_manager_typo_is_a_key_error_in_both_modes(mode, bad):
    def enter():
        with dg.gradient_override_map(bad):
            raise AssertionError("the body must not run")
    if mode == "eager":
        with pytest.raises(KeyError):
            enter()
    else:
        with dg.Graph().as_default(), pytest.raises(KeyError):
            enter()


def test_not_a_dict_is_a_type_error():
    with pytest.raises(TypeError):
        with dg.gradient_override_map([("Square", "TestOverrideTripleSquare")]):
            pass


def _eager_grad(override):
    x = dg.constant(X)
    with dg.GradientTape() as tape:
        tape.watch(x)
        if override:
            with dg.gradient_override_map(MAPPING):
                y = dg.square(x)
        else:
            y = dg.square(x)
    return np.asarray(tape.gradient(y, x))


def _graph_grad(override, via_graph_method=False):
    g = dg.Graph()
    with g.as_default():
        x = dg.constant(X)
        if override:
            ctx = g.gradient_override_map(MAPPING) if via_graph_method \
                else dg.gradient_override_map(MAPPING)
            with ctx:
                y = dg.square(x)
        else:
            y = dg.square(x)
        with dg.Session(graph=g) as sess:
            return sess.run(dg.gradients(y, x)[0])


def test_eager_override_is_honoured_by_the_tape():
    np.testing.assert_array_equal(_eager_grad(True), 6 * X)
    np.testing.assert_array_equal(_eager_grad(False), 2 * X)


@pytest.mark.parametrize("via_graph_method", [False, True])
def test_graph_override(via_graph_method):
    np.testing.assert_array_equal(_graph_grad(True, via_graph_method), 6 * X)
    np.testing.assert_array_equal(_graph_grad(False), 2 * X)


def test_override_applies_only_inside_the_block_and_nests():
    x = dg.constant(X)
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with dg.gradient_override_map(MAPPING):
            a = dg.square(x)
            with dg.gradient_override_map({"Square": "Square"}):
                b = dg.square(x)
        c = dg.square(x)
    np.testing.assert_array_equal(tape.gradient(a, x), 6 * X)
    np.testing.assert_array_equal(tape.gradient(b, x), 2 * X)
    np.testing.assert_array_equal(tape.gradient(c, x), 2 * X)


def test_tape_inside_a_graph_honours_the_graph_override():
    g = dg.Graph()
    with g.as_default():
        x = dg.constant(X)
        with dg.GradientTape() as tape:
            tape.watch(x)
            with dg.gradient_override_map(MAPPING):
                y = dg.square(x)
        dx = tape.gradient(y, x)
        with dg.Session(graph=g) as sess:
            np.testing.assert_array_equal(sess.run(dx), 6 * X)
