"""NaN propagates through every op of the op table and its gradient as in TensorFlow.

For each row and each real floating input, element 0 of that input is NaN;
wherever TensorFlow's output or gradient is NaN (recorded from TF 2.21 in
nan_reference.py by tf_reference/gen_nan_table.py), ours is NaN too: no op and
no gradient turns a NaN into a number. (Ours may be NaN where TF's kernel
happens to drop the NaN, e.g. max-pooling compares NaN false in TF.)
"""
from __future__ import annotations

import pytest

import duograd as dg
import nan_probe
from nan_reference import TF_NAN

# Cases where TF's NaN positions are not a property to copy, with why.
EXEMPT = {
    "sort_axis0[0]": "TF's sort/top_k place NaN by heap order, not a NaN-ordering rule",
    "top_k[0]": "TF's sort/top_k place NaN by heap order, not a NaN-ordering rule",
}
CASES = nan_probe.all_cases()


def test_reference_covers_the_table():
    assert len(TF_NAN) >= 280
    assert set(TF_NAN) <= set(CASES)


@pytest.mark.parametrize("key", sorted(k for k in TF_NAN if k not in EXEMPT))
def test_nan_stays_nan_where_tensorflow_keeps_it(key):
    spec, args = CASES[key]
    tf_forward, tf_backward = TF_NAN[key]
    forward, backward = nan_probe.probe(dg, spec.fn, args)
    assert len(forward) == len(tf_forward)
    for i, (theirs, ours) in enumerate(zip(tf_forward, forward)):
        lost = sorted(set(theirs) - set(ours))
        assert not lost, f"output {i}: NaN became a number at flat positions {lost}"
    assert len(backward) == len(tf_backward)
    for i, (theirs, ours) in enumerate(zip(tf_backward, backward)):
        lost = sorted(set(theirs) - set(ours))
        assert not lost, f"gradient of input {i}: NaN became a number at flat positions {lost}"
