"""One attr key for every cache of traced gradients (eager/attr_key.py): equal
only for attrs equal by value and type, Unkeyable for what is not plain data."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg
from duograd.eager.attr_key import MAX_KEYED_ELEMENTS, Unkeyable, attrs_key


def test_values_of_another_type_are_another_key():
    keys = {attrs_key({"axis": 1}), attrs_key({"axis": 1.0}), attrs_key({"axis": True})}
    assert len(keys) == 3
    assert attrs_key({"axis": 1}) == attrs_key({"axis": 1}) and attrs_key({}) is None


def test_dtypes_shapes_sequences_and_small_arrays_are_keyed_by_value():
    a = {"T": dg.float32, "shape": dg.TensorShape([2, None]), "perm": [1, 0],
         "np": np.dtype(np.float64), "value": np.arange(3)}
    b = dict(a, value=np.arange(3))
    assert attrs_key(a) == attrs_key(b)
    assert attrs_key(a) != attrs_key(dict(a, value=np.arange(1, 4)))
    assert attrs_key(a) != attrs_key(dict(a, perm=(1, 0)))   # list and tuple differ


@pytest.mark.parametrize("value", [lambda: 0, np.zeros(MAX_KEYED_ELEMENTS + 1), object()],
                         ids=["function", "large array", "object"])
def test_what_is_not_plain_data_is_unkeyable(value):
    with pytest.raises(Unkeyable):
        attrs_key({"f": value})
