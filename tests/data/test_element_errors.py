"""An element's error (check_numerics in a map, a py_function's exception) passes
through every transformation to the element that raised it, and the iteration
goes on after it where TF's does: eagerly, in a TF1 Session (get_next raises it,
the next run goes on) and inside dg.function (the call raises it; ignore_errors()
drops it). Sequences, classes and totals recorded from TF 2.21 into
tf_error_sequences.json by record_tf_error_sequences.py."""
import json
import os
import sys
import threading

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from error_pipelines import (FUNCTION_CASES, SEQUENCE_CASES, drain,  # noqa: E402
                             drain_session, make_helpers)

import duograd as dg  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "tf_error_sequences.json")) as _f:
    TF = json.load(_f)


def build(source):
    B, P = make_helpers(dg)
    return eval(source, {"D": dg.data.Dataset, "T": dg, "B": B, "P": P})  # noqa: S307


def _rounded(sequence):
    """float32 values as TF's JSON has them (both sides are float32 numbers)."""
    return json.loads(json.dumps(sequence))


@pytest.mark.parametrize("name", sorted(SEQUENCE_CASES))
def test_eager_sequence_matches_tf(name):
    before = threading.active_count()
    assert _rounded(drain(iter(build(SEQUENCE_CASES[name])))) == TF["eager"][name]
    assert threading.active_count() <= before   # no pipeline thread left behind


@pytest.mark.parametrize("name", sorted(SEQUENCE_CASES))
def test_session_sequence_matches_tf(name):
    with dg.Graph().as_default():
        dataset = build(SEQUENCE_CASES[name])
        next_value = dg.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        with dg.compat.v1.Session() as session:
            got = drain_session(session, next_value)
    assert _rounded(got) == TF["session"][name]


@dg.function
def total(dataset):
    t = dg.constant(0.0, dg.float64)
    for x in dataset:
        for leaf in dg.nest.flatten(x):
            t += dg.reduce_sum(dg.cast(leaf, dg.float64))
    return t


@pytest.mark.parametrize("name", FUNCTION_CASES)
def test_inside_a_function_as_tf(name):
    expected = TF["function"][name]
    error_class = getattr(dg.errors, expected["raises"])
    with pytest.raises(error_class):
        total(build(SEQUENCE_CASES[name]))
    ignoring = total(build(SEQUENCE_CASES[name]).ignore_errors())
    assert float(ignoring) == pytest.approx(expected["ignore_errors_total"], rel=1e-6)


def test_error_message_names_the_element_error():
    iterator = iter(build("D.range(5).map(B(2)).padded_batch(2)"))
    next(iterator)
    with pytest.raises(dg.errors.InvalidArgumentError, match="Tensor had Inf values"):
        next(iterator)


def test_py_function_error_classes_as_tf():
    # TF 2.21, eagerly and in tf.function: ValueError/TypeError -> InvalidArgumentError,
    # StopIteration -> OutOfRangeError, NotImplementedError -> UnimplementedError,
    # MemoryError -> ResourceExhaustedError, anything else -> UnknownError
    table = {ValueError: dg.errors.InvalidArgumentError, TypeError: dg.errors.InvalidArgumentError,
             RuntimeError: dg.errors.UnknownError, KeyError: dg.errors.UnknownError,
             IndexError: dg.errors.UnknownError, ZeroDivisionError: dg.errors.UnknownError,
             StopIteration: dg.errors.OutOfRangeError,
             NotImplementedError: dg.errors.UnimplementedError,
             MemoryError: dg.errors.ResourceExhaustedError}
    for python_class, op_class in table.items():
        def raising(x, python_class=python_class):
            raise python_class("m")

        @dg.function(autograph=False)
        def in_graph(x, raising=raising):
            return dg.py_function(raising, [x], dg.int64)

        for call in (lambda: dg.py_function(raising, [dg.constant(2)], dg.int64),
                     lambda: in_graph(dg.constant(2))):
            with pytest.raises(op_class) as raised:
                call()
            assert type(raised.value) is op_class, python_class
