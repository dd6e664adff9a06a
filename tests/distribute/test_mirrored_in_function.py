"""MirroredStrategy.run with several replicas inside dg.function (one trace of the
replica function, run on a thread per replica by one MirroredReplicaCall op): the
same results, bit for bit, as the eager multi-replica run, and TF 2.21's values."""
import numpy as np
import pytest

import duograd as dg

D = dg.data.Dataset


def _regression(num_devices):
    strategy = dg.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(num_devices)])
    with strategy.scope():
        w = dg.Variable(np.array([[0.5], [-0.25]], np.float32))
    x = np.arange(20, dtype=np.float32).reshape(10, 2) / 10
    y = (x @ np.array([[1.0], [2.0]], np.float32)).astype(np.float32)
    dataset = strategy.experimental_distribute_dataset(D.from_tensor_slices((x, y)).batch(4))

    def step(inputs):
        xb, yb = inputs
        with dg.GradientTape() as tape:
            loss = dg.reduce_sum(dg.square(dg.matmul(xb, w) - yb)) / 4.0
        grads = tape.gradient(loss, [w])
        grads = dg.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.1 * grads[0])
        return loss
    return strategy, w, dataset, step


@pytest.mark.parametrize("replicas", [2, 3])
def test_training_epoch_in_a_function_equals_the_eager_run(replicas):
    strategy, w, dataset, step = _regression(replicas)
    eager_total = np.float32(0.0)
    for batch in dataset:
        eager_total += strategy.reduce("SUM", strategy.run(step, args=(batch,)), axis=None)
    eager_w = w.numpy()

    strategy, w, dataset, step = _regression(replicas)

    @dg.function
    def epoch():
        total = dg.constant(0.0)
        for batch in dataset:
            total += strategy.reduce("SUM", strategy.run(step, args=(batch,)), axis=None)
        return total
    total = epoch()
    assert float(total) == float(eager_total)
    np.testing.assert_array_equal(w.numpy(), eager_w)
    for copy in w.values:   # every replica's copy of the variable took the same updates
        np.testing.assert_array_equal(copy, eager_w)
    if replicas == 2:
        # TF 2.21 (two logical CPUs, the same step in a tf.function):
        # 12.961581230163574, w = [1.6249768733978271, 0.9765584468841553]
        assert float(total) == pytest.approx(12.961581230163574, rel=1e-6)
        np.testing.assert_allclose(w.numpy().ravel(), [1.6249768733978271, 0.9765584468841553],
                                   rtol=1e-6)


def test_the_replica_function_is_traced_once_and_reads_its_replica_id():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    traces = []

    def replica_fn(scale):
        traces.append(1)
        ctx = dg.distribute.get_replica_context()
        return dg.cast(ctx.replica_id_in_sync_group, dg.float32) * scale, ctx.all_reduce(
            "MEAN", dg.cast(ctx.replica_id_in_sync_group, dg.float32))

    @dg.function
    def call(scale):
        ids, mean = strategy.run(replica_fn, args=(scale,))
        return strategy.experimental_local_results(ids), strategy.reduce("SUM", mean, axis=None)
    ids, summed = call(dg.constant(2.0))
    assert [float(v) for v in ids] == [0.0, 2.0, 4.0]
    assert float(summed) == 3.0            # each replica's mean of 0, 1, 2 is 1; summed: 3
    assert len(traces) == 1
    ids, _ = call(dg.constant(3.0))
    assert [float(v) for v in ids] == [0.0, 3.0, 6.0] and len(traces) == 1


def test_uneven_shards_and_integer_mean_in_a_function():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    dataset = strategy.experimental_distribute_dataset(D.range(10).batch(5))

    @dg.function
    def sizes():
        out = dg.constant(0.0, dg.float64)
        for batch in dataset:
            per = strategy.run(lambda b: dg.shape(b)[0], args=(batch,))
            out += strategy.reduce("MEAN", per, axis=None)
        return out
    # shards of 5 over 3 replicas: 2, 2, 1 (twice); MEAN of ints is float64 (5/3 twice)
    eager = 0.0
    for batch in dataset:
        eager += float(strategy.reduce(
            "MEAN", strategy.run(lambda b: dg.shape(b)[0], args=(batch,)), axis=None))
    assert float(sizes()) == eager == pytest.approx(10.0 / 3.0)


def test_a_replica_error_in_a_function_is_raised_and_nothing_hangs():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def replica_fn(x):
        ctx = dg.distribute.get_replica_context()
        bad = dg.debugging.check_numerics(
            x / dg.cast(ctx.replica_id_in_sync_group, dg.float32), "replica 0 divides by 0")
        return ctx.all_reduce("SUM", bad)

    @dg.function
    def call(x):
        return strategy.experimental_local_results(strategy.run(replica_fn, args=(x,)))
    with pytest.raises(dg.errors.InvalidArgumentError, match="replica 0 divides by 0"):
        call(dg.constant(1.0))


def test_several_replicas_in_a_tf1_graph_are_refused():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with dg.Graph().as_default():
        with pytest.raises(dg.errors.UnimplementedError, match="TF1 graph"):
            strategy.run(lambda: dg.constant(1.0))
