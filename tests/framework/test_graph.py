"""Graph construction: names, scopes, control dependencies, finalize, threads, errors."""
import threading

import numpy as np
import pytest

import duograd as dg


def test_unique_names_and_nested_scopes():
    g = dg.Graph()
    with g.as_default():
        a = dg.constant(1.0, name="x")
        b = dg.constant(2.0, name="x")
        c = dg.constant(3.0, name="x")
        with dg.name_scope("outer"):
            with dg.name_scope("inner"):
                d = dg.add(a, b, name="sum")
            e = dg.add(a, b)
        with dg.name_scope("outer"):
            f = dg.add(a, b)
    assert [a.op.name, b.op.name, c.op.name] == ["x", "x_1", "x_2"]
    assert d.name == "outer/inner/sum:0" and e.name == "outer/AddV2:0"
    assert f.op.name == "outer_1/AddV2"
    assert g.get_operation_by_name("outer/inner/sum") is d.op
    assert g.get_tensor_by_name("x_1:0") is b
    assert [op.name for op in g.get_operations()][:3] == ["x", "x_1", "x_2"]
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("x_1")


def test_operation_and_tensor_attributes():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float32, [None, 3], name="x")
        y = dg.reduce_sum(x, axis=1, keepdims=True)
    op = y.op
    assert op.type == "Sum" and op.graph is g and op.inputs[0] is x and op.outputs[0] is y
    assert op.get_attr("keepdims") is True and y.value_index == 0
    assert x.consumers() == [op] and y.shape.as_list() == [None, 1]
    assert x.op.id < op.id
    with pytest.raises(ValueError):
        op.get_attr("missing")


def test_set_shape_merges_and_rejects_conflicts():
    with dg.Graph().as_default():
        x = dg.placeholder(dg.float32, [None, 3])
        x.set_shape([4, None])
        assert x.shape == [4, 3]
        with pytest.raises(ValueError):
            x.set_shape([5, 3])


def test_control_dependencies_and_group():
    g = dg.Graph()
    with g.as_default():
        a = dg.constant(1.0)
        b = dg.constant(2.0)
        with dg.control_dependencies([a]):
            c = dg.identity(b)
            with dg.control_dependencies(None):
                d = dg.identity(b)
        grouped = dg.group(a, c)
    assert c.op.control_inputs == [a.op] and d.op.control_inputs == []
    assert grouped.type == "NoOp" and set(grouped.control_inputs) == {a.op, c.op}
    assert dg.Session(graph=g).run(grouped) is None


def test_finalize_blocks_new_ops():
    g = dg.Graph()
    with g.as_default():
        dg.constant(1.0)
        g.finalize()
        with pytest.raises(RuntimeError):
            dg.constant(2.0)


def test_default_graph_stack_and_modes():
    assert dg.executing_eagerly()
    g1, g2 = dg.Graph(), dg.Graph()
    with g1.as_default():
        assert not dg.executing_eagerly() and dg.get_default_graph() is g1
        with g2.as_default():
            assert dg.get_default_graph() is g2
        assert dg.get_default_graph() is g1
    assert dg.executing_eagerly()


def test_tensors_from_another_graph_are_rejected():
    with dg.Graph().as_default():
        a = dg.constant(1.0)
    with dg.Graph().as_default():
        with pytest.raises(ValueError, match="same graph"):
            dg.add(a, 1.0)


def test_static_shape_errors_name_the_op():
    with dg.Graph().as_default():
        a = dg.placeholder(dg.float32, [2, 3])
        b = dg.placeholder(dg.float32, [4, 5])
        with pytest.raises(ValueError, match="MatMul"):
            dg.matmul(a, b)
        with pytest.raises(ValueError, match="AddV2"):
            a + dg.placeholder(dg.float32, [3, 2])
        with pytest.raises(ValueError, match="Reshape"):
            dg.reshape(a, [5])


def test_unknown_dims_flow_through_shape_inference():
    with dg.Graph().as_default():
        x = dg.placeholder(dg.float32, [None, 3])
        w = dg.constant(np.ones((3, 4), np.float32))
        h = dg.matmul(x, w)
        assert h.shape.as_list() == [None, 4]
        assert (h + dg.constant(np.ones(4, np.float32))).shape.as_list() == [None, 4]
        assert dg.reduce_sum(h, axis=0).shape.as_list() == [4]
        assert dg.reduce_sum(h, axis=1).shape.as_list() == [None]
        assert dg.reshape(h, [-1, 2, 2]).shape.as_list() == [None, 2, 2]
        assert dg.concat([h, h], axis=0).shape.as_list() == [None, 4]
        assert dg.concat([h, h], axis=1).shape.as_list() == [None, 8]
        assert dg.placeholder(dg.float32).shape.rank is None


def test_ops_from_several_threads_get_unique_names():
    g = dg.Graph()
    errors = []

    def build():
        try:
            with g.as_default():
                for _ in range(200):
                    dg.constant(1.0, name="c")
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    names = [op.name for op in g.get_operations()]
    assert len(names) == 800 and len(set(names)) == 800
    ids = [op.id for op in g.get_operations()]
    assert ids == sorted(ids) and len(set(ids)) == 800


def test_chain_of_100000_ops_builds_and_runs_in_both_modes():
    n = 100_000
    x = dg.constant(np.float64(0.0))
    y = x
    for _ in range(n):
        y = y + 1.0
    assert float(y) == n
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [])
        y = x
        for _ in range(n):
            y = y + 1.0
        assert dg.Session(graph=g).run(y, {x: 0.0}) == n
