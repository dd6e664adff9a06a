"""dg.distribute with the thread engine (MirroredStrategy) and the default strategy.

Values marked "TF 2.21" were recorded with tensorflow-cpu 2.21 (MirroredStrategy on
logical CPU devices); the others follow from the definitions (sums in replica order).
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import duograd as dg

ReduceOp = dg.distribute.ReduceOp


def strategy_of(n: int, timeout: float = 20.0):
    options = dg.distribute.experimental.CommunicationOptions(timeout_seconds=timeout)
    return dg.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)],
                                          communication_options=options)


def replica_values(rng, n):
    """Per replica: mixed shapes and dtypes."""
    return [[rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(5),
             rng.integers(-9, 9, size=(2,)).astype(np.int32), np.array(rng.standard_normal())]
            for _ in range(n)]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("op", [ReduceOp.SUM, ReduceOp.MEAN])
def test_all_reduce_mixed_shapes_and_dtypes(n, op):
    values = replica_values(np.random.default_rng(n), n)
    strategy = strategy_of(n)

    def fn(parts):
        ctx = dg.distribute.get_replica_context()
        return ctx.all_reduce(op, [dg.constant(p) for p in parts])

    out = strategy.run(fn, args=(dg.distribute.PerReplica(values),))
    for i, column in enumerate(zip(*values)):
        total = np.array(column[0], copy=True)
        for part in column[1:]:
            total += part  # replica order: the same bits on every replica
        if op is ReduceOp.MEAN:
            total = total / (np.float64(n) if total.dtype.kind == "i" else total.dtype.type(n))
        for replica in range(n):
            got = out[i].values[replica].numpy()
            assert got.dtype == total.dtype and got.shape == total.shape
            assert np.array_equal(got, total)


def test_integer_mean_is_float64_as_tf():
    # TF 2.21: all_reduce(MEAN, [1, 4] + replica_id) on 2 replicas -> [1.5, 4.5] float64
    out = strategy_of(2).run(lambda: dg.distribute.get_replica_context().all_reduce(
        "MEAN", dg.constant([1, 4]) + dg.distribute.get_replica_context().replica_id_in_sync_group))
    for value in out.values:
        assert value.dtype == dg.float64
        np.testing.assert_array_equal(value.numpy(), [1.5, 4.5])


def test_a_list_is_one_fused_collective_in_a_graph():
    strategy = strategy_of(2)

    def fn():
        graph = dg.Graph()
        with graph.as_default():
            xs = [dg.constant(np.ones((2, 2))), dg.constant([1.0, 2.0], dtype=dg.float32),
                  dg.constant(3.0, dtype=dg.float64)]
            reduced = dg.distribute.get_replica_context().all_reduce("SUM", xs)
            ops = [op.type for op in graph.get_operations()]
            with dg.Session(graph=graph) as sess:
                return ops.count("CollectiveAllReduce"), sess.run(reduced)

    counts, results = strategy.run(fn)
    assert counts.values == (1, 1)
    for values in zip(*[r.values for r in results]):  # a list of PerReplica, as TF regroups
        np.testing.assert_array_equal(values[0], 2 * np.ones((2, 2)))
        np.testing.assert_array_equal(values[1], np.float32([2, 4]))
        assert values[2] == 6.0


def _weighted_loss_grad(x, function: bool):
    """d/dx of sum over replicas r of (r + 1) * sum(all_reduce(x * x)): 2 x * sum(r + 1)."""
    def grad(x):
        ctx = dg.distribute.get_replica_context()
        with dg.GradientTape() as tape:
            tape.watch(x)
            (y,) = ctx.all_reduce(ReduceOp.SUM, [x * x])
            weight = 1.0 + dg.cast(ctx.replica_id_in_sync_group, dg.float64)
            loss = dg.reduce_sum(y * weight)
        return tape.gradient(loss, x)
    return dg.function(grad)(x) if function else grad(x)


@pytest.mark.parametrize("function", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("n", [2, 3])
def test_gradient_of_all_reduce_all_reduces_the_upstream_gradients(n, function):
    xs = [np.arange(1.0, 4.0) * (r + 1) for r in range(n)]
    out = strategy_of(n).run(_weighted_loss_grad, args=(
        dg.distribute.PerReplica([dg.constant(x) for x in xs]), function))
    weight_sum = n * (n + 1) / 2
    for r in range(n):
        np.testing.assert_allclose(out.values[r].numpy(), 2 * xs[r] * weight_sum, rtol=1e-15)


def test_gradient_of_all_reduce_in_a_session():
    """Graph mode: dg.gradients through the op. Replica r's loss is sum(y * y) with
    y = mean over s of sin(x_s + shift_s); the total loss n * sum(y * y) has
    d/dx_r = 2 y cos(x_r + shift_r), what the gradient's MEAN all-reduce gives."""
    x0, shifts = np.array([0.3, -1.2]), [0.0, 0.5]

    def fn(shift):
        graph = dg.Graph()
        with graph.as_default():
            x = dg.placeholder(dg.float64, [2])
            (y,) = dg.distribute.get_replica_context().all_reduce("MEAN", [dg.sin(x + shift)])
            (grad,) = dg.gradients(dg.reduce_sum(y * y), [x])
            with dg.Session(graph=graph) as sess:
                return sess.run(grad, {x: x0})

    out = strategy_of(2).run(fn, args=(dg.distribute.PerReplica(shifts),))
    y = (np.sin(x0 + shifts[0]) + np.sin(x0 + shifts[1])) / 2
    for r in range(2):
        np.testing.assert_allclose(out.values[r], 2 * y * np.cos(x0 + shifts[r]), rtol=1e-14)


def test_a_replica_that_skips_a_collective_makes_the_others_time_out():
    strategy = strategy_of(2, timeout=0.5)

    def fn():
        ctx = dg.distribute.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 1:
            return None  # skips the all-reduce
        return ctx.all_reduce("SUM", dg.constant(1.0))

    with pytest.raises(dg.errors.DeadlineExceededError, match="replicas \\[1\\] did not join"):
        strategy.run(fn)
    with pytest.raises(dg.errors.UnavailableError, match="aborted"):  # the group stays down
        strategy.run(lambda: dg.distribute.get_replica_context().all_reduce("SUM", 1.0))


def test_a_failing_replica_aborts_the_others_at_once():
    strategy = strategy_of(3, timeout=60.0)

    def fn():
        ctx = dg.distribute.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 2:
            raise ValueError("replica 2 failed")
        return ctx.all_reduce("SUM", dg.constant(1.0))

    with pytest.raises(ValueError, match="replica 2 failed"):  # not a 60 s timeout
        strategy.run(fn)


def test_replicas_passing_different_shapes_get_invalid_argument():
    def fn(x):
        return dg.distribute.get_replica_context().all_reduce("SUM", x)

    with pytest.raises(dg.errors.InvalidArgumentError, match="same shapes"):
        strategy_of(2).run(fn, args=(dg.distribute.PerReplica(
            [dg.constant([1.0, 2.0]), dg.constant([1.0, 2.0, 3.0])]),))


def test_mirrored_variables_one_copy_per_replica_and_the_divergence_check():
    strategy = strategy_of(2)
    with strategy.scope():
        v = dg.Variable([1.0, 2.0])
        w = dg.Variable(0.0, name="w")
    assert isinstance(v, dg.distribute.MirroredVariable)
    with strategy.scope():
        assert dg.distribute.in_cross_replica_context()
        assert dg.distribute.get_replica_context() is None

    def step(x):
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(v * x)
        (g,) = dg.distribute.get_replica_context().all_reduce("SUM", [tape.gradient(loss, v)])
        v.assign_sub(0.5 * g)

    strategy.run(step, args=(dg.distribute.PerReplica([dg.constant([1.0, 1.0]),
                                                       dg.constant([3.0, 5.0])]),))
    for copy in v.values:
        np.testing.assert_array_equal(copy, [-1.0, -1.0])
    dg.distribute.experimental.assert_replicas_in_sync([v, w], strategy)
    strategy.run(lambda: w.assign(dg.cast(
        dg.distribute.get_replica_context().replica_id_in_sync_group, dg.float32)))
    with pytest.raises(dg.errors.InternalError, match="w:0"):
        dg.distribute.experimental.assert_replicas_in_sync([v, w], strategy)
    w.assign(7.0)  # cross-replica context: every copy
    assert [float(c) for c in w.values] == [7.0, 7.0]


def test_reduce_in_cross_replica_context():
    strategy = strategy_of(2)
    per_replica = strategy.run(lambda: dg.constant([1.0, 2.0]))
    # TF 2.21: reduce(SUM, axis=None) -> [2, 4]; reduce(MEAN, axis=0) -> 1.5
    np.testing.assert_array_equal(strategy.reduce("SUM", per_replica, axis=None).numpy(), [2, 4])
    assert float(strategy.reduce("MEAN", per_replica, axis=0)) == 1.5
    values = dg.distribute.PerReplica([dg.constant([1.0, 2.0, 3.0]), dg.constant([10.0])])
    assert float(strategy.reduce(ReduceOp.MEAN, values, axis=0)) == 4.0  # 16 / 4 examples
    assert float(strategy.reduce(ReduceOp.SUM, values, axis=0)) == 16.0


def test_experimental_distribute_dataset_splits_as_tf():
    strategy = strategy_of(4)
    # TF 2.21 rebatching of one global batch of B examples over 4 replicas.
    expected = {5: [[0, 1], [2, 3], [4], []], 6: [[0, 1], [2, 3], [4, 5], []],
                3: [[0], [1], [2], []], 9: [[0, 1, 2], [3, 4, 5], [6, 7, 8], []]}
    for size, shards in expected.items():
        (batch,) = list(strategy.experimental_distribute_dataset([np.arange(size)]))
        assert [list(s) for s in batch.values] == shards
    features = {"x": np.arange(8.0).reshape(4, 2), "y": np.arange(4)}
    (batch,) = list(strategy_of(2).experimental_distribute_dataset([features]))
    # A dict of PerReplica, as TF's distributed iterators give.
    np.testing.assert_array_equal(batch["x"].values[1], [[4.0, 5.0], [6.0, 7.0]])
    with pytest.raises(ValueError, match="same first"):
        list(strategy.experimental_distribute_dataset([(np.arange(4), np.arange(3))]))


def test_distribute_datasets_from_function_and_input_context():
    strategy = strategy_of(4)
    seen = []

    def dataset_fn(context):
        seen.append((context.num_input_pipelines, context.input_pipeline_id,
                     context.num_replicas_in_sync))
        return [np.arange(8)[i:i + 2] for i in range(0, 8, 2)]

    (batch,) = list(strategy.distribute_datasets_from_function(dataset_fn))
    assert seen == [(1, 0, 4)]  # TF 2.21, MirroredStrategy with 4 replicas
    assert [list(b) for b in batch.values] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    context = dg.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1,
                                         num_replicas_in_sync=4)
    assert context.get_per_replica_batch_size(16) == 4
    assert str(context) == "tf.distribute.InputContext(input pipeline id 1, total: 2)"
    with pytest.raises(ValueError, match="The `global_batch_size` 15 is not divisible by "
                                         "`num_replicas_in_sync` 4"):
        context.get_per_replica_batch_size(15)


def test_compute_average_loss_as_tf():
    loss = dg.nn.compute_average_loss
    assert float(loss([1.0, 2.0, 3.0, 4.0])) == 2.5  # TF 2.21
    assert float(loss([1.0, 2.0, 3.0, 4.0], global_batch_size=8)) == 1.25
    assert float(loss([[1.0, 2.0], [3.0, 4.0]], global_batch_size=8)) == 1.25
    assert float(loss([1.0, 2.0, 3.0, 4.0], sample_weight=[1.0, 0.0, 1.0, 2.0],
                      global_batch_size=8)) == 1.5
    assert float(loss([1.0, 2.0], global_batch_size=0)) == 0.0
    with pytest.raises(ValueError, match="Expected a tensor with at least rank 1"):
        loss(3.0)
    with pytest.raises(dg.errors.InvalidArgumentError, match="non-negative"):
        loss([1.0, 2.0], global_batch_size=-1)
    out = strategy_of(2).run(lambda: loss([1.0, 2.0, 3.0, 4.0]))  # TF 2.21: 1.25 per replica
    assert [float(v) for v in out.values] == [1.25, 1.25]
    strategy = strategy_of(2)
    with strategy.scope(), pytest.raises(RuntimeError, match="cross replica context"):
        loss([1.0, 2.0])


def test_default_strategy_and_scopes():
    default = dg.distribute.get_strategy()
    assert default.num_replicas_in_sync == 1 and not dg.distribute.has_strategy()
    assert not dg.distribute.in_cross_replica_context()
    ctx = dg.distribute.get_replica_context()
    assert ctx.num_replicas_in_sync == 1 and int(ctx.replica_id_in_sync_group) == 0
    x = dg.constant([1.0, 2.0])
    np.testing.assert_array_equal(ctx.all_reduce("SUM", x).numpy(), [1.0, 2.0])
    assert default.run(lambda a: a * 2, args=(3,)) == 6
    first, second = strategy_of(2), strategy_of(2)
    with first.scope():
        assert dg.distribute.get_strategy() is first and dg.distribute.has_strategy()
        with pytest.raises(ValueError, match="Mixing different tf.distribute.Strategy"):
            with second.scope():
                pass
    with pytest.raises(ValueError, match="not a valid ReduceOp"):
        ctx.all_reduce("MAX", x)


def test_variable_creator_scope_chains_innermost_first():
    calls = []

    def outer(next_creator, **kwargs):
        calls.append("outer")
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        calls.append(("inner", kwargs["name"]))
        kwargs["initial_value"] = 5.0
        return next_creator(**kwargs)

    with dg.variable_creator_scope(outer), dg.variable_creator_scope(inner):
        v = dg.Variable(1.0, name="v")
    assert calls == [("inner", "v"), "outer"] and float(v.numpy()) == 5.0


def test_import_duograd_loads_no_mpi():
    code = "import sys, duograd; assert 'mpi4py' not in sys.modules, 'mpi4py imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_keras_optimizers_apply_all_reduced_gradients_bit_identically(name):
    """Two replicas with an optimizer built in scope() end where one process ends that
    applies the sum of the two shards' gradients (added in replica order)."""
    rng = np.random.default_rng(3)
    x, y, w0 = rng.standard_normal((8, 3)), rng.standard_normal((8, 1)), rng.standard_normal((3, 1))
    make = getattr(dg.keras.optimizers, name)

    def grads_of(w, xs, ys):
        with dg.GradientTape() as tape:
            loss = dg.nn.compute_average_loss(dg.reshape((dg.matmul(xs, w) - ys) ** 2, [-1]),
                                              global_batch_size=8)
        return tape.gradient(loss, [w])

    w_ref, opt_ref = dg.Variable(w0), make(learning_rate=0.1)
    for _ in range(3):
        g0, g1 = grads_of(w_ref, x[:4], y[:4]), grads_of(w_ref, x[4:], y[4:])
        opt_ref.apply_gradients([(g0[0] + g1[0], w_ref)])

    strategy = strategy_of(2)
    with strategy.scope():
        w, optimizer = dg.Variable(w0), make(learning_rate=0.1)
        optimizer.build([w])

    def step(xs, ys):
        grads = dg.distribute.get_replica_context().all_reduce("SUM", grads_of(w, xs, ys))
        optimizer.apply_gradients(zip(grads, [w]))

    shards = (dg.distribute.PerReplica([x[:4], x[4:]]), dg.distribute.PerReplica([y[:4], y[4:]]))
    for _ in range(3):
        strategy.run(step, args=shards)
    for copy in w.values:
        assert copy.tobytes() == w_ref.numpy().tobytes()
    assert [int(c) for c in optimizer.iterations.values] == [3, 3]


def test_one_function_trace_serves_every_replica():
    """replica_id_in_sync_group and mirrored variables are read when the function runs,
    not baked into the trace of whichever replica traced first."""
    strategy = strategy_of(3)
    with strategy.scope():
        v = dg.Variable(10.0)

    @dg.function
    def fn():
        ctx = dg.distribute.get_replica_context()
        v.assign_add(dg.cast(ctx.replica_id_in_sync_group, dg.float32))
        return ctx.replica_id_in_sync_group

    def first_replica_traces():
        if int(dg.distribute.get_replica_context().replica_id_in_sync_group) == 0:
            fn()  # adds 0

    strategy.run(first_replica_traces)
    assert [int(r) for r in strategy.run(fn).values] == [0, 1, 2]
    assert [float(c) for c in v.values] == [10.0, 11.0, 12.0]
    assert fn.experimental_get_tracing_count() == 1


def test_indexed_slices_gradients_are_all_reduced_dense():
    strategy = strategy_of(2)
    with strategy.scope():
        table = dg.Variable(np.zeros((4, 2)))

    def fn(ids):
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(dg.gather(table, ids))
        grads = [tape.gradient(loss, table)]  # IndexedSlices
        (grad,) = dg.distribute.get_replica_context().all_reduce("SUM", grads)
        return grad

    out = strategy.run(fn, args=(dg.distribute.PerReplica([np.array([0, 1]), np.array([1, 3])]),))
    for value in out.values:
        np.testing.assert_array_equal(value.numpy(), [[1, 1], [2, 2], [0, 0], [1, 1]])


def test_public_names_and_graph_mode_limit_of_thread_replicas():
    for name in ["MirroredStrategy", "MultiWorkerMirroredStrategy", "get_strategy",
                 "get_replica_context", "ReduceOp", "InputContext", "has_strategy",
                 "in_cross_replica_context", "experimental"]:
        assert hasattr(dg.distribute, name), name
    assert dg.distribute.ReduceOp("MEAN") is ReduceOp.MEAN
    assert issubclass(dg.errors.DeadlineExceededError, dg.errors.OpError)
    assert issubclass(dg.errors.UnavailableError, dg.errors.OpError)
    with dg.Graph().as_default(), pytest.raises(dg.errors.UnimplementedError,
                                                match="in a TF1 graph"):
        strategy_of(2).run(lambda: None)
