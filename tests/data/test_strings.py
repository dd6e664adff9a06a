"""Datasets of strings as TF 2.21: element_spec, cardinality and elements (bytes from
as_numpy_iterator, string EagerTensors from iteration) eagerly, in a Session and in a
dg.function loop; recorded into tf_strings.json by record_tf_strings.py."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from string_pipelines import STRING_CASES, encode, encode_spec  # noqa: E402

import duograd as dg  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "tf_strings.json")) as _f:
    TF = json.load(_f)


def build(source):
    return eval(source, {"D": dg.data.Dataset, "T": dg, "np": np})  # noqa: S307


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_spec_cardinality_and_numpy_elements_match_tf(name):
    dataset = build(STRING_CASES[name])
    expected = TF[name]
    assert encode_spec(dataset.element_spec) == expected["spec"]
    assert int(dataset.cardinality()) == expected["cardinality"]
    assert [encode(e) for e in dataset.as_numpy_iterator()] == expected["elements"]


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_iteration_gives_string_tensors(name):
    dataset = build(STRING_CASES[name])
    elements = list(dataset)
    for element, spec in zip(elements, [dataset.element_spec] * len(elements), strict=True):
        for leaf, leaf_spec in zip(dg.nest.flatten(element), dg.nest.flatten(spec),
                                   strict=True):
            assert isinstance(leaf, dg.Tensor) and leaf.dtype == leaf_spec.dtype
    numpy = [dg.nest.map_structure(lambda t: t.numpy(), e) for e in elements]
    assert [encode(e) for e in numpy] == TF[name]["elements"]


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_session_elements_match_tf(name):
    with dg.Graph().as_default():
        next_value = dg.compat.v1.data.make_one_shot_iterator(
            build(STRING_CASES[name])).get_next()
        got = []
        with dg.compat.v1.Session() as session:
            while True:
                try:
                    got.append(encode(session.run(next_value)))
                except dg.errors.OutOfRangeError:
                    break
    assert got == TF[name]["session"]


def _joined(encoded):
    """What the function below computes from TF's elements: each element's strings
    joined with '|', each followed by ';'."""
    out = ""
    for element in encoded:
        strings = element["strings"] if "strings" in element else [element]
        out += "|".join(s["bytes"] for s in strings) + ";"
    return out.encode("latin-1")


STRING_ONLY = sorted(n for n in STRING_CASES if TF[n]["spec"].get("dtype") == "string")


@pytest.mark.parametrize("name", STRING_ONLY)
def test_for_loop_in_a_function_matches_tf(name):
    @dg.function
    def joined(dataset):
        out = dg.constant("")
        for x in dataset:
            out = out + dg.strings.reduce_join(dg.reshape(x, [-1]), separator="|") + ";"
        return out

    assert joined(build(STRING_CASES[name])).numpy() == _joined(TF[name]["elements"])


def test_cache_file_of_strings(tmp_path):
    # TF 2.21: [b'a', b'\x00b', b'a', b'\x00b'], the second pass read from the files
    path = str(tmp_path / "strings")
    dataset = dg.data.Dataset.from_tensor_slices(["a", b"\x00b"]).cache(path)
    assert list(dataset.as_numpy_iterator()) == [b"a", b"\x00b"]
    assert os.path.exists(path + ".index")
    assert list(dataset.as_numpy_iterator()) == [b"a", b"\x00b"]
    batched = dg.data.Dataset.from_tensor_slices([["x", "y"], ["zz", ""]]).cache(path + "2")
    first = list(batched.as_numpy_iterator())
    second = list(batched.as_numpy_iterator())
    for a, b in zip(first, second, strict=True):
        assert a.dtype == object and a.tolist() == b.tolist()
    assert [a.tolist() for a in second] == [[b"x", b"y"], [b"zz", b""]]


def test_shuffle_of_strings_is_a_permutation_and_seeded():
    dataset = dg.data.Dataset.from_tensor_slices([str(i) for i in range(20)]).shuffle(
        5, seed=3)
    first = list(dataset.as_numpy_iterator())
    assert sorted(first) == sorted(str(i).encode() for i in range(20))
    again = dg.data.Dataset.from_tensor_slices([str(i) for i in range(20)]).shuffle(
        5, seed=3)
    assert list(again.as_numpy_iterator()) == first
