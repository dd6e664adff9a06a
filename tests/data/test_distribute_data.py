"""dg.data through dg.distribute: experimental_distribute_dataset and
distribute_datasets_from_function, with MirroredStrategy (threads) against TF 2.21's
splits, and with MultiWorkerMirroredStrategy under mpiexec (sharded by worker as TF's
auto-shard policy DATA: every worker reads the data and keeps its part of each batch)."""
import json
import os
import subprocess
import sys

import numpy as np

import duograd as dg

D = dg.data.Dataset


def local_lists(strategy, value):
    return [np.asarray(v).tolist() for v in strategy.experimental_local_results(value)]


def test_mirrored_experimental_distribute_dataset_splits_as_tf():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    got = [local_lists(strategy, b)
           for b in strategy.experimental_distribute_dataset(D.range(10).batch(4))]
    # TF 2.21, MirroredStrategy over 2 logical CPUs
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]
    dataset = D.from_tensor_slices(({"x": np.arange(6)}, np.arange(6) * 10)).batch(3)
    got = [(local_lists(strategy, f["x"]), local_lists(strategy, y))
           for f, y in strategy.experimental_distribute_dataset(dataset)]
    assert got == [([[0, 1], [2]], [[0, 10], [20]]), ([[3, 4], [5]], [[30, 40], [50]])]
    batch = next(iter(strategy.experimental_distribute_dataset(D.range(4).batch(4))))
    assert all(isinstance(v, dg.Tensor) for v in strategy.experimental_local_results(batch))
    spec = strategy.experimental_distribute_dataset(
        D.range(8).batch(4, drop_remainder=True)).element_spec
    assert spec.shape.as_list() == [None]


def test_mirrored_distribute_datasets_from_function_as_tf():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    contexts = []

    def dataset_fn(context):
        contexts.append((context.num_input_pipelines, context.input_pipeline_id,
                         context.num_replicas_in_sync,
                         context.get_per_replica_batch_size(4)))
        return D.range(10).shard(context.num_input_pipelines, context.input_pipeline_id) \
            .batch(context.get_per_replica_batch_size(4))

    got = [local_lists(strategy, b) for b in strategy.distribute_datasets_from_function(
        dataset_fn)]
    # TF 2.21: one pipeline; the last step's second replica gets an empty batch
    assert contexts == [(1, 0, 2, 2)]
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]


def test_training_step_fed_by_a_distributed_dataset():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    x = np.linspace(-1, 1, 16).astype(np.float32)
    y = 2.0 * x
    with strategy.scope():
        w = dg.Variable(0.0)

    def step(xb, yb):
        with dg.GradientTape() as tape:
            loss = dg.nn.compute_average_loss((w * xb - yb) ** 2, global_batch_size=8)
        grad = tape.gradient(loss, w)
        grad = dg.distribute.get_replica_context().all_reduce("SUM", grad)
        w.assign_sub(0.5 * grad)

    dataset = strategy.experimental_distribute_dataset(D.from_tensor_slices((x, y)).batch(8))
    for _ in range(20):
        for xb, yb in dataset:
            strategy.run(step, args=(xb, yb))
    assert abs(float(w.numpy()) - 2.0) < 1e-3


MPIEXEC = os.path.join(os.path.dirname(sys.executable), "mpiexec")
WORKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "distributed", "data_worker.py")


def test_multi_worker_shards_by_worker(tmp_path):
    env = dict(os.environ, HYDRA_IFACE="lo", MPIR_CVAR_CH3_INTERFACE_HOSTNAME="127.0.0.1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    out = str(tmp_path / "data")
    result = subprocess.run([MPIEXEC, "-n", "2", sys.executable, WORKER, out], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = [json.load(open(f"{out}.rank{r}.json")) for r in range(2)]
    # experimental_distribute_dataset: each worker keeps its half of every global batch
    assert ranks[0]["distributed"] == [[0, 1], [4, 5], [8, 9]]
    assert ranks[1]["distributed"] == [[2, 3], [6, 7], [10, 11]]
    # distribute_datasets_from_function: one pipeline per worker, sharded by the user
    assert [r["contexts"] for r in ranks] == [[[2, 0, 2]], [[2, 1, 2]]]
    assert ranks[0]["from_function"] == [[0, 2], [4, 6], [8, 10]]
    assert ranks[1]["from_function"] == [[1, 3], [5, 7], [9, 11]]


def test_a_python_loop_does_not_unroll_a_distributed_dataset_into_a_graph():
    import pytest
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    dataset = strategy.experimental_distribute_dataset(D.range(4).batch(2))

    @dg.function(autograph=False)
    def loop():
        for batch in dataset:
            strategy.run(lambda b: b, args=(batch,))
        return dg.constant(0)

    with pytest.raises(RuntimeError, match="iterated eagerly"):
        loop()


def _training_epoch(strategy):
    x = np.linspace(-1, 1, 16).astype(np.float32)
    y = 2.0 * x
    with strategy.scope():
        w = dg.Variable(0.0)

    def step(xb, yb):
        with dg.GradientTape() as tape:
            loss = dg.nn.compute_average_loss((w * xb - yb) ** 2, global_batch_size=8)
        grad = tape.gradient(loss, w)
        grad = dg.distribute.get_replica_context().all_reduce("SUM", grad)
        w.assign_sub(0.5 * grad)
        return loss

    dataset = strategy.experimental_distribute_dataset(D.from_tensor_slices((x, y)).batch(8))
    traces = []

    @dg.function
    def epoch():
        total = dg.constant(0.0)
        for xb, yb in dataset:
            traces.append(1)
            total += strategy.reduce("SUM", strategy.run(step, args=(xb, yb)), axis=None)
        return total

    return w, epoch, traces


def test_for_loop_over_a_distributed_dataset_inside_a_function_as_tf():
    for strategy in (dg.distribute.MirroredStrategy(["/cpu:0"]), dg.distribute.get_strategy()):
        w, epoch, traces = _training_epoch(strategy)
        for _ in range(20):
            loss = epoch()
        # TF 2.21, MirroredStrategy on one CPU, the same loop in a tf.function
        assert float(w.numpy()) == 1.9999998807907104
        assert float(loss) == 1.6264767310758543e-14
        assert len(traces) == 1          # one trace: the loop is a graph loop, not unrolled


def test_distributed_dataset_loop_in_a_function_gives_per_replica_shards():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    dataset = strategy.experimental_distribute_dataset(
        D.from_tensor_slices((np.arange(10.0), np.arange(10) * 10)).batch(4))

    @dg.function
    def sums():
        first = dg.constant(0.0, dg.float64)
        second = dg.constant(0, dg.int64)
        for x, y in dataset:
            first += dg.reduce_sum(x.values[0])
            second += dg.reduce_sum(y.values[1])
        return first, second

    # TF's split of batches of 4, 4, 2: replica 0 gets [0, 1], [4, 5], [8];
    # replica 1 gets [20, 30], [60, 70], [90]
    for _ in range(2):
        first, second = sums()
        assert float(first) == 18.0 and int(second) == 270


def test_datasets_from_function_loop_inside_a_function_with_one_replica():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0"])
    datasets = strategy.distribute_datasets_from_function(
        lambda context: D.range(10).batch(context.get_per_replica_batch_size(4)))

    @dg.function
    def total():
        t = dg.constant(0, dg.int64)
        for batch in datasets:
            t += strategy.run(lambda b: dg.reduce_sum(b) * dg.size(b, out_type=dg.int64),
                              args=(batch,))
        return t

    # batches [0..3], [4..7], [8, 9]: 6 * 4 + 22 * 4 + 17 * 2
    assert int(total()) == int(total()) == 146


def test_datasets_from_function_loop_inside_a_function_with_two_replicas():
    strategy = dg.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    datasets = strategy.distribute_datasets_from_function(
        lambda context: D.range(10).batch(context.get_per_replica_batch_size(4)))

    @dg.function
    def per_replica_totals():
        first = dg.constant(0, dg.int64)
        second = dg.constant(0, dg.int64)
        steps = dg.constant(0)
        for batch in datasets:
            sums = strategy.experimental_local_results(
                strategy.run(lambda b: dg.reduce_sum(b), args=(batch,)))
            first += sums[0]
            second += sums[1]
            steps += 1
        return first, second, steps

    # TF 2.21's steps: [[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]: replica 0 gets
    # 0+1+4+5+8+9 = 27, replica 1 gets 2+3+6+7 = 18, in 3 steps (the eager loop too)
    first, second, steps = per_replica_totals()
    assert (int(first), int(second), int(steps)) == (27, 18, 3)
    eager = [local_lists(strategy, b) for b in datasets]
    assert eager == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]
