"""dg.switch_case (TF's Case/StatelessCase) and dg.map_fn, in every mode, with
gradients to second order against central differences."""
import numpy as np
import pytest

import duograd as dg
from cf_check import all_modes

XV = np.array([0.4, -1.2, 0.9])


@pytest.mark.parametrize("index", [0, 1, 2, 7, -1])
def test_switch_case_values_and_gradients_all_modes(index):
    """An index out of range runs the default (TF's rule)."""
    def fn(x):
        return dg.reduce_sum(dg.switch_case(
            dg.constant(index), [lambda: dg.sin(x) * x, lambda: dg.exp(x * 0.5)],
            default=lambda: x * x * x))
    results = all_modes(fn, XV)
    expected = {0: np.sin(XV) * XV, 1: np.exp(XV * 0.5)}.get(index, XV ** 3)
    np.testing.assert_allclose(results["eager"][0], np.sum(expected))


def test_switch_case_op_types_and_structure_as_tf():
    with dg.Graph().as_default():
        x = dg.constant(1)
        out = dg.switch_case(dg.constant(0), [lambda: x + 1, lambda: x + 2])
        case = out.op.inputs[0].op
        assert out.op.type == "Identity" and case.type == "StatelessCase"  # TF 2.21
        v = dg.Variable(3)
        stateful = dg.switch_case(dg.constant(1), {0: lambda: x, 1: lambda: v + x})
        assert stateful.op.inputs[0].op.type == "Case"
        with dg.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(out) == 2 and sess.run(stateful) == 4
        with pytest.raises(TypeError, match="same number, type, and overall structure"):
            dg.switch_case(dg.constant(0), [lambda: (x, x), lambda: x])
        with pytest.raises(TypeError, match="int32"):
            dg.switch_case(dg.constant(0.0), [lambda: x])


def test_map_fn_values_and_gradients():
    """TF 2.21 (while_v2_test.testWhileAndTensorArray): [2, 4, ..., 12], d/dparam = 21."""
    with dg.Graph().as_default():
        param = dg.constant(2.0)
        elems = dg.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        out = dg.map_fn(lambda x: x * param, elems)
        (grad,) = dg.gradients(out, param)
        with dg.Session() as sess:
            value, g = sess.run([out, grad])
    np.testing.assert_allclose(value, [2.0, 4.0, 6.0, 8.0, 10.0, 12.0])
    assert g == 21.0

    def fn(x):
        rows = dg.reshape(x, [3, 1])
        return dg.reduce_sum(dg.map_fn(lambda r: dg.sin(r) * dg.reduce_sum(x), rows))

    all_modes(fn, XV)   # to second order, tapes over a dg.function included
    expected = np.cos(XV) * np.sum(XV) + np.sum(np.sin(XV))   # d/dx_i of sum(sin x) sum(x)
    x = dg.constant(XV)
    for f in (fn, dg.function(fn)):                            # eager, tape over a function
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-12)
    with dg.Graph().as_default():
        xp = dg.placeholder(dg.float64, [3])
        (g,) = dg.gradients(fn(xp), xp)
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(g, {xp: XV}), expected, rtol=1e-12)


def test_map_fn_nested_elems_and_output_signature():
    out = dg.map_fn(lambda ab: ab[0] * 10 + ab[1], (dg.constant([1, 2]), dg.constant([3, 4])),
                    fn_output_signature=dg.int32)
    np.testing.assert_array_equal(out.numpy(), [13, 24])
    graph_fn = dg.function(lambda a, b: dg.map_fn(lambda ab: (ab[1], ab[0]), (a, b)))
    first, second = graph_fn(dg.constant([1.0, 2.0]), dg.constant([3.0, 4.0]))
    np.testing.assert_allclose(first.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(second.numpy(), [1.0, 2.0])
