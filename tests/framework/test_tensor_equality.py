"""TF2 tensor semantics (values recorded from TF 2.21): `==`/`!=` compare by
value on eager tensors, variables and inside functions (identity in v1
graphs); tensors and variables are unhashable there, with `.ref()`/`.deref()`."""
import numpy as np
import pytest

import duograd as dg


def test_eager_tensors_compare_by_value():
    a = dg.constant([1, 2, 3])
    np.testing.assert_array_equal((a == dg.constant([1, 0, 3])).numpy(), [True, False, True])
    np.testing.assert_array_equal((a != [1, 0, 3]).numpy(), [False, True, False])
    assert (a == dg.constant([1, 2])).numpy().item() is False   # incompatible: scalar False
    assert (a != dg.constant([1, 2])).numpy().item() is True
    assert (a == None) is False and (a != None) is True          # noqa: E711
    np.testing.assert_array_equal((dg.constant([1.0, 2.0]) == 1).numpy(), [True, False])
    with pytest.raises(dg.errors.InvalidArgumentError):          # float32 vs int32
        dg.constant([1.0, 2.0]) == dg.constant([1, 2])           # noqa: B015


def test_eager_tensors_are_unhashable_with_ref():
    a = dg.constant(1.0)
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    with pytest.raises(TypeError):
        {a}                                                       # noqa: B018
    table = {a.ref(): "a"}
    assert table[a.ref()] == "a" and a.ref().deref() is a
    assert a.ref() != dg.constant(1.0).ref()


def test_variables_compare_by_value_and_are_unhashable_eagerly():
    v = dg.Variable([1.0, 2.0])
    np.testing.assert_array_equal((v == [1.0, 3.0]).numpy(), [True, False])
    np.testing.assert_array_equal((v == v).numpy(), [True, True])
    np.testing.assert_array_equal((v != [1.0, 3.0]).numpy(), [False, True])
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(v)
    assert v.ref().deref() is v and {v.ref(): 1}[v.ref()] == 1


def test_inside_a_function_tensors_and_variables_compare_by_value():
    v = dg.Variable([1.0, 1.0])
    hashed = []

    @dg.function
    def f(x, y):
        for value in (x, v):
            try:
                hash(value)
                hashed.append(True)
            except TypeError:
                hashed.append(False)
        assert x.ref().deref() is x
        hashed.append(x == None)  # noqa: E711 - a Python False, no op
        return x == y, x != y, x == dg.constant([1.0, 2.0, 3.0]), v == x

    eq, ne, incompatible, var_eq = f(dg.constant([1.0, 2.0]), dg.constant([1.0, 3.0]))
    np.testing.assert_array_equal(eq.numpy(), [True, False])
    np.testing.assert_array_equal(ne.numpy(), [False, True])
    assert incompatible.numpy().item() is False
    np.testing.assert_array_equal(var_eq.numpy(), [True, False])
    assert hashed == [False, False, False] and hashed[2] is False


def test_cond_on_a_value_comparison_inside_a_function():
    @dg.function
    def f(i, x):
        return dg.cond(i % 2 == 0, lambda: x * 2.0, lambda: x - 1.0)

    assert f(dg.constant(2), dg.constant(3.0)).numpy() == 6.0
    assert f(dg.constant(3), dg.constant(3.0)).numpy() == 2.0


def test_v1_graph_tensors_and_variables_compare_by_identity_and_hash():
    with dg.Graph().as_default():
        x = dg.constant([1.0])
        y = dg.constant([1.0])
        assert (x == y) is False and (x == x) is True and (x != y) is True
        assert hash(x) == hash(x) and len({x, y}) == 2
        w = dg.Variable([1.0])
        assert (w == w) is True and {w: 1}[w] == 1
        seen = []

        def body(i):
            seen.append((i == i) is True)      # a while body of a v1 graph: identity
            with pytest.raises(TypeError):      # but function-graph tensors never hash
                hash(i)
            return i + 1

        dg.while_loop(lambda i: i < 3, body, [dg.constant(0)])
        assert seen == [True]
