"""Block execution (map + batch fused, the map vectorized) gives what element-by-element
execution gives; iterating holds only the buffers the pipeline asks for (tracemalloc)."""
import gc
import tracemalloc

import numpy as np
import pytest

import duograd as dg

D = dg.data.Dataset


def element_by_element(dataset):
    options = dg.data.Options()
    options.experimental_optimization.map_vectorization = False
    return dataset.with_options(options)


def batches(dataset):
    return [tuple(np.asarray(part) for part in b) if isinstance(b, tuple) else np.asarray(b)
            for b in dataset.as_numpy_iterator()]


def assert_same_batches(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x if isinstance(x, tuple) else (x,), y if isinstance(y, tuple) else (y,)):
            assert u.dtype == v.dtype and u.shape == v.shape
            np.testing.assert_array_equal(u, v)


def normalise(image, label):
    return (image - 0.5) / 0.25, label * 2


@pytest.mark.parametrize("drop", [False, True])
def test_shuffle_map_batch_blocks_equal_elements(drop):
    rng = np.random.default_rng(0)
    x = rng.random((103, 4, 3), dtype=np.float32)
    y = np.arange(103)
    make = lambda: D.from_tensor_slices((x, y)).shuffle(17, seed=3).map(normalise) \
        .batch(10, drop_remainder=drop)  # noqa: E731
    fused, plain = make(), element_by_element(make())
    for _ in range(2):   # reshuffled epochs agree too
        assert_same_batches(batches(fused), batches(plain))
    assert fused.element_spec == plain.element_spec


def test_blocks_equal_elements_for_functions_with_reductions_and_control_flow():
    x = np.arange(60, dtype=np.float64).reshape(20, 3)

    def f(v):
        if dg.reduce_sum(v) > 50.0:
            v = v * 2.0
        return dg.reduce_max(v) - dg.reduce_min(v), dg.nn.softmax(v)

    fused = D.from_tensor_slices(x).map(f).batch(6)
    plain = element_by_element(D.from_tensor_slices(x).map(f).batch(6))
    a, b = batches(fused), batches(plain)
    assert len(a) == len(b)
    for (u1, u2), (v1, v2) in zip(a, b):
        np.testing.assert_allclose(u1, v1, rtol=1e-12)
        np.testing.assert_allclose(u2, v2, rtol=1e-12)


def test_parallel_map_over_blocks_keeps_order():
    x = np.arange(200, dtype=np.float32)
    fused = D.from_tensor_slices(x).map(lambda v: v * 3.0, num_parallel_calls=2).batch(7)
    assert np.concatenate(batches(fused)).tolist() == (x * 3).tolist()


def test_stateful_map_runs_element_by_element():
    dg.random.set_seed(1)
    dataset = D.range(8).map(lambda i: dg.random.uniform([])).batch(4)
    values = np.concatenate(batches(dataset))
    dg.random.set_seed(None)
    assert len(set(values.tolist())) == 8   # one draw per element, not one per block


def test_blocks_are_slices_of_the_source():
    x = np.arange(12).reshape(6, 2)
    assert [b.tolist() for b in batches(D.from_tensor_slices(x).batch(4))] == \
        [x[:4].tolist(), x[4:].tolist()]


# -- memory -------------------------------------------------------------------------------
ELEMENT = 100_000   # float32 values: 400 kB an element


def peak_while_iterating(dataset):
    gc.collect()
    tracemalloc.start()
    try:
        count = 0
        for element in dataset:
            count += 1
            del element
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return count, peak


def big_source(n):
    def gen():
        for i in range(n):
            yield np.full(ELEMENT, i, np.float32)
    return D.from_generator(gen, output_signature=dg.TensorSpec([ELEMENT], dg.float32))


@pytest.mark.parametrize("make, held", [
    # (pipeline over 120 MB of elements, elements it may hold at once)
    (lambda: big_source(300), 2),
    (lambda: big_source(300).prefetch(4), 4 + 3),
    (lambda: big_source(300).map(lambda v: v * 2.0, num_parallel_calls=3).prefetch(2),
     3 + 2 + 6),
    (lambda: big_source(300).batch(5).prefetch(2), 5 * (2 + 3)),
    (lambda: big_source(300).shuffle(8, seed=0), 8 + 3),
], ids=["plain", "prefetch", "parallel_map_prefetch", "batch_prefetch", "shuffle"])
def test_iteration_holds_only_its_buffers(make, held):
    count, peak = peak_while_iterating(make())
    assert count in (300, 60)
    total = 300 * ELEMENT * 4
    budget = held * ELEMENT * 4 + 2_000_000   # the buffers, plus interpreter noise
    assert peak < budget < total / 4, f"peak {peak / 1e6:.1f} MB, budget {budget / 1e6:.1f} MB"
