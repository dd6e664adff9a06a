"""Automatic control dependencies inside dg.function (TF 2.21's structure): ops
with side effects run in program order and before the function returns, also
inside called functions, cond branches and loop bodies; cond/while/call op
types are stateless unless their bodies hold stateful ops; cond's outputs are
Identity ops; ops sharing a resource get control edges."""
import numpy as np

import duograd as dg


def _types(graph):
    return [op.type for op in graph.get_operations()]


def test_side_effects_run_in_program_order_before_the_function_returns():
    log = []
    v = dg.Variable(1.0)

    def note(tag):
        def record(value):
            log.append((tag, float(value)))
            return value
        return record

    @dg.function
    def f(x):
        dg.numpy_function(note("before"), [v.read_value()], dg.float32)  # output unused
        v.assign_add(x)
        dg.numpy_function(note("after"), [v.read_value()], dg.float32)
        v.assign(v * 2.0)
        return dg.constant(0.0)

    f(dg.constant(3.0))
    assert log == [("before", 1.0), ("after", 4.0)] and v.numpy() == 8.0
    f(dg.constant(1.0))
    assert log[2:] == [("before", 8.0), ("after", 9.0)] and v.numpy() == 18.0


def test_side_effects_inside_called_functions_branches_and_loops_run():
    v = dg.Variable(0.0)

    @dg.function
    def bump(x):
        v.assign_add(x)
        return x * 0.0            # the caller ignores it

    @dg.function
    def f(x):
        bump(x)                                                  # a call, output unused
        dg.cond(x > 0.0, lambda: bump(x * 10.0), lambda: x)      # a branch, output unused
        dg.while_loop(lambda i: i < 3, lambda i: (bump(100.0 + x * 0.0), i + 1)[1], [0])
        return x

    f(dg.constant(1.0))
    assert v.numpy() == 1.0 + 10.0 + 300.0
    f(dg.constant(-1.0))           # the cond's other branch has no effect
    assert v.numpy() == 311.0 - 1.0 + 300.0


def test_stateless_and_stateful_op_types_as_tf():
    v = dg.Variable(2.0)

    @dg.function
    def f(x):
        a = dg.cond(x > 0.0, lambda: x * 2.0, lambda: x - 1.0, name="pure")
        b = dg.cond(x > 0.0, lambda: v * x, lambda: x, name="reads")
        c = dg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), [0, x])[1]
        d = dg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * v), [0, x])[1]
        return a + b + c + d

    graph = f.get_concrete_function(dg.TensorSpec([], dg.float32)).graph
    ops = {op.name: op.type for op in graph.get_operations()}
    # TF 2.21: StatelessIf / If (a variable read is stateful), StatelessWhile / While
    assert ops["pure"] == "StatelessIf" and ops["reads"] == "If"
    assert _types(graph).count("StatelessWhile") == 1 and _types(graph).count("While") == 1
    assert f(dg.constant(1.0)).numpy() == 2.0 + 2.0 + 8.0 + 8.0

    pure = dg.function(lambda x: x * 2.0)
    stateful = dg.function(lambda x: x * v)

    @dg.function
    def g(x):
        return pure(x) + stateful(x)

    types = _types(g.get_concrete_function(dg.TensorSpec([], dg.float32)).graph)
    assert types.count("PartitionedCall") == 1 and types.count("StatefulPartitionedCall") == 1


def test_cond_outputs_are_identity_ops_of_the_if_op_as_tf():
    with dg.Graph().as_default():
        x = dg.constant(1.0, name="x")
        out = dg.cond(dg.constant(True), lambda: x, lambda: x + 1.0)
        # TF 2.21: cond/Identity <- StatelessIf 'cond'
        assert out.op.type == "Identity" and out.op.name == "cond/Identity"
        if_op = out.op.inputs[0].op
        assert if_op.type == "StatelessIf" and if_op.name == "cond"
        assert if_op.get_attr("then_branch").name.startswith("cond_true_")
        assert if_op.get_attr("else_branch").name.startswith("cond_false_")
        with dg.name_scope("foo"):
            second = dg.cond(dg.constant(True), lambda: x, lambda: x + 1.0)
        assert second.op.inputs[0].op.name == "foo/cond"
        assert second.op.inputs[0].op.get_attr("then_branch").name.startswith("foo_cond_true_")
        with dg.Session() as sess:
            assert sess.run(out) == 1.0


def test_ops_sharing_a_resource_get_control_edges_as_tf():
    v1 = dg.Variable(2.0)
    v2 = dg.Variable(4.0)

    def update_v1():
        v1.assign(v1)
        return v1.read_value()

    @dg.function
    def f():
        dg.cond(dg.constant(True), update_v1, lambda: dg.constant(0.0), name="cond_1")
        c2 = dg.cond(dg.constant(False), lambda: dg.constant(0.0), update_v1, name="cond_2")
        dg.cond(dg.constant(True), lambda: (v2.assign(v2), v2.read_value())[1],
                lambda: dg.constant(0.0), name="cond_3")
        c4 = dg.cond(dg.constant(False), lambda: dg.constant(0.0), lambda: v2.read_value(),
                     name="cond_4")
        c5 = dg.cond(dg.constant(False), lambda: dg.constant(5.0), lambda: dg.constant(6.0),
                     name="stateless_cond")
        return c2, c4, c5

    concrete = f.get_concrete_function()
    graph = concrete.graph
    op = graph.get_operation_by_name
    # TF 2.21 (cond_v2_test.testFuncCondWithVariable): the same edges
    assert op("cond_1").control_inputs == []
    assert op("cond_2").control_inputs == [op("cond_1")]
    assert op("cond_3").control_inputs == []
    assert op("cond_4").control_inputs == [op("cond_3")]
    assert op("stateless_cond").control_inputs == []
    np.testing.assert_allclose([t.numpy() for t in concrete()], [2.0, 4.0, 6.0])
