"""The one accumulation of the backward loop (eager/imperative_grad.add_part):
arrays summed as they arrive, in place only when nothing else can see the sum;
tensors gathered and summed once (add_n, as TF), early once they are large."""
from __future__ import annotations

import weakref

import numpy as np

import duograd as dg
from duograd.eager.imperative_grad import (MIN_AGGREGATE_BYTES, Parts, add_part,
                                           total)
from duograd.framework.indexed_slices import IndexedSlices
from duograd.ops.math import reduction_ops


def test_arrays_are_summed_in_place_when_only_the_dict_holds_the_sum():
    grads = {}
    add_part(grads, 1, np.ones(3))
    first = weakref.ref(grads[1])                # (a strong reference would share it)
    add_part(grads, 1, np.full(3, 2.0))
    assert grads[1] is first()                   # in place
    np.testing.assert_array_equal(grads[1], [3.0, 3.0, 3.0])


def test_an_array_seen_elsewhere_is_never_written():
    seen = np.ones(3)
    grads = {1: seen}
    keep = seen                                  # another reference: not the loop's own
    add_part(grads, 1, np.full(3, 2.0))
    np.testing.assert_array_equal(keep, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(grads[1], [3.0, 3.0, 3.0])
    view = np.arange(6.0)[::2]                   # a view: its base may be seen
    grads = {2: view}
    del view
    add_part(grads, 2, np.ones(3))
    np.testing.assert_array_equal(grads[2].base is None, True)
    np.testing.assert_array_equal(grads[2], [1.0, 3.0, 5.0])


def test_array_scalars_add():
    grads = {}
    add_part(grads, 1, np.float64(2.0))
    add_part(grads, 1, np.float64(0.5))
    assert grads[1] == 2.5


def test_tensor_parts_are_summed_once_by_add_n_when_taken(monkeypatch):
    a, b, c = (dg.constant([1.0, 2.0]) * k for k in (1.0, 2.0, 4.0))
    grads = {}
    for g in (a, b, c):
        add_part(grads, 7, g)
    assert type(grads[7]) is Parts and [p is q for p, q in zip(grads[7], (a, b, c))] == \
        [True, True, True]
    calls = []
    real = reduction_ops.add_n

    def spy(inputs, *args, **kwargs):
        calls.append(len(inputs))
        return real(inputs, *args, **kwargs)
    monkeypatch.setattr(reduction_ops, "add_n", spy)
    summed = total(grads[7])
    np.testing.assert_array_equal(summed.numpy(), [7.0, 14.0])
    assert calls == [3]                          # one add_n of all three parts
    assert total(None) is None and total(a) is a


def test_large_tensor_parts_are_summed_early():
    n = MIN_AGGREGATE_BYTES // 8                 # float64: each part is 1 MiB
    x = dg.ones([n], dg.float64)
    grads = {}
    add_part(grads, 3, x)
    add_part(grads, 3, x * 2.0)
    assert type(grads[3]) is not Parts           # summed at once: one array alive
    np.testing.assert_array_equal(grads[3].numpy()[:2], [3.0, 3.0])


def test_sparse_parts_stay_sparse():
    values = dg.constant([[1.0, 2.0]])
    s1 = IndexedSlices(values, dg.constant([0]), dg.constant([3, 2]))
    s2 = IndexedSlices(values * 3.0, dg.constant([2]), dg.constant([3, 2]))
    grads = {}
    add_part(grads, 5, s1)
    add_part(grads, 5, s2)
    summed = total(grads[5])
    assert isinstance(summed, IndexedSlices)
    np.testing.assert_array_equal(dg.convert_to_tensor(summed).numpy(),
                                  [[1.0, 2.0], [0.0, 0.0], [3.0, 6.0]])


def test_both_modes_give_one_gradient_for_a_fan_out():
    """x feeds three consumers: both modes sum its three parts to the same value."""
    x = dg.constant([0.3, -1.2])

    def f():
        return dg.sin(x) * dg.exp(x) + x * x

    with dg.GradientTape() as tape:             # arrays mode
        tape.watch(x)
        y = dg.reduce_sum(f())
    arrays = tape.gradient(y, x).numpy()
    with dg.GradientTape() as outer:            # an outer tape: tensors mode
        outer.watch(x)
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(f())
        tensors = tape.gradient(y, x).numpy()
    xv = np.array([0.3, -1.2])
    expected = np.cos(xv) * np.exp(xv) + np.sin(xv) * np.exp(xv) + 2 * xv
    np.testing.assert_allclose(arrays, expected, rtol=1e-6)
    np.testing.assert_allclose(tensors, expected, rtol=1e-6)
