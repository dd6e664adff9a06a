"""The cyclic collector is held off while tapes record or backprop, with counted,
thread-safe holds restored on every exit path (framework/gc_pause.py)."""
from __future__ import annotations

import gc
import threading

import pytest

import duograd as dg
from duograd.eager import context
from duograd.framework import gc_pause


@pytest.fixture(autouse=True)
def collector_enabled():
    was = gc.isenabled()
    gc.enable()
    base = gc_pause.active_holds()
    yield base
    assert gc_pause.active_holds() == base
    assert gc.isenabled()
    if not was:
        gc.disable()


def test_held_while_recording_and_restored_after(collector_enabled):
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        assert not gc.isenabled()
        assert gc_pause.active_holds() == collector_enabled + 1
        y = dg.reduce_sum(x * x)
    assert gc.isenabled()
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]
    assert gc.isenabled()


def test_nested_tapes_count_holds(collector_enabled):
    with dg.GradientTape():
        with dg.GradientTape():
            assert gc_pause.active_holds() == collector_enabled + 2
        assert not gc.isenabled()  # the outer tape still holds it
        with dg.GradientTape() as t:
            with t.stop_recording():
                assert gc_pause.active_holds() == collector_enabled + 1
            assert gc_pause.active_holds() == collector_enabled + 2
    assert gc.isenabled()


def test_restored_after_an_exception_in_the_block():
    x = dg.constant([1.0, 2.0])
    with pytest.raises(dg.errors.InvalidArgumentError):
        with dg.GradientTape() as tape:
            tape.watch(x)
            x + dg.constant([1.0, 2.0], dtype=dg.float64)  # mixed dtypes: raises at the op
    assert gc.isenabled()


def test_restored_after_an_exception_in_backprop():
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(x * x)
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=[1.0, 2.0])  # two seeds for one target
    assert gc.isenabled()


def test_abandoned_tape_releases_its_hold_and_leaves_the_stack(collector_enabled):
    tape = dg.GradientTape()
    tape.__enter__()  # never exited
    assert not gc.isenabled()
    depth = len(context.state.tapes)
    del tape  # freed by reference counting: its finalizer runs
    assert gc.isenabled()
    assert len(context.state.tapes) == depth - 1
    assert gc_pause.active_holds() == collector_enabled


def test_abandoned_tape_in_a_cycle_is_freed_by_the_watchdog(monkeypatch, collector_enabled):
    monkeypatch.setattr(gc_pause, "WATCHDOG_SECONDS", 0.0)

    class Holder:
        pass
    holder = Holder()
    holder.tape = dg.GradientTape()
    holder.self = holder  # a reference cycle: only the collector can free it
    holder.tape.__enter__()
    del holder
    assert not gc.isenabled()
    with dg.GradientTape():  # the next hold runs one collection first
        pass
    assert gc.isenabled()


def test_counted_holds_across_threads(collector_enabled):
    entered = threading.Barrier(3)
    leave = threading.Event()
    errors = []

    def worker():
        try:
            x = dg.constant([1.0])
            with dg.GradientTape() as tape:
                tape.watch(x)
                y = x * x
                entered.wait(timeout=10)
                leave.wait(timeout=10)
            assert tape.gradient(y, x).numpy().tolist() == [2.0]
        except Exception as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    entered.wait(timeout=10)
    assert gc_pause.active_holds() == collector_enabled + 2
    assert not gc.isenabled()
    leave.set()
    for t in threads:
        t.join(timeout=10)
    assert not errors
    assert gc.isenabled()


def test_a_program_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        with dg.GradientTape():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_graph_gradients_hold_and_release():
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float64, [2])
        (grad,) = dg.gradients(dg.reduce_sum(dg.sin(x)), [x])
    assert grad is not None
    assert gc.isenabled()
