"""dg.data against TF 2.21: element_spec, cardinality and the element sequence of every
pipeline in pipelines.py (recorded into tf_reference.json), and TF's exception classes."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from pipelines import CARDINALITY_CASES, ELEMENT_CASES, ERROR_CASES  # noqa: E402
from reference import TF, build, encode, encode_spec, tf_message  # noqa: E402

import duograd as dg  # noqa: E402


@pytest.mark.parametrize("name", sorted(ELEMENT_CASES))
def test_elements_match_tf(name):
    expected = TF["elements"][name]
    dataset = build(ELEMENT_CASES[name])
    assert encode_spec(dataset.element_spec) == expected["spec"]
    assert int(dataset.cardinality()) == expected["cardinality"]
    assert [encode(e) for e in dataset.as_numpy_iterator()] == expected["elements"]


@pytest.mark.parametrize("name", sorted(ELEMENT_CASES))
def test_eager_iteration_gives_the_same_tensors(name):
    """`for x in dataset` gives EagerTensors with the values as_numpy_iterator gives."""
    expected = TF["elements"][name]["elements"]
    dataset = build(ELEMENT_CASES[name])
    got = [encode(dg.nest.map_structure(lambda t: t.numpy(), e)) for e in dataset]
    assert got == expected


@pytest.mark.parametrize("name", sorted(CARDINALITY_CASES))
def test_cardinality_matches_tf(name):
    dataset = build(CARDINALITY_CASES[name])
    assert int(dataset.cardinality()) == TF["cardinality"][name]
    assert int(dg.data.experimental.cardinality(dataset)) == TF["cardinality"][name]


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_tf(name):
    expected = TF["errors"][name]
    error_class = getattr(dg.errors, expected["type"], None) or __builtins__.get(expected["type"]) \
        if isinstance(__builtins__, dict) else getattr(dg.errors, expected["type"], None) or \
        getattr(__builtins__, expected["type"])
    with pytest.raises(error_class) as raised:
        build(ERROR_CASES[name])
    assert type(raised.value) is error_class
    message = tf_message(expected["message"])
    if "Shapes are:" in message:   # TF batches in parallel: which element is first varies
        message = message.split("Shapes are:")[0]
    assert message in str(raised.value)


def test_constants_match_tf():
    assert dg.data.AUTOTUNE == -1 and dg.data.experimental.AUTOTUNE == -1
    assert dg.data.INFINITE_CARDINALITY == -1 and dg.data.UNKNOWN_CARDINALITY == -2
