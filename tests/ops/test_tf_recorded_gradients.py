"""The ops and gradients of issue 22 against TensorFlow 2.21's recorded values: each case of
gradient_cases.py runs with duograd (eager) and must give TF's numbers, NaN and inf included,
and None exactly where TF's gradient is None; where TF raises, the same class."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

import duograd as dg
import gradient_cases
from gradient_reference import TF_VALUES


@pytest.mark.parametrize("name", sorted(gradient_cases.CASES))
def test_values_and_gradients_are_tensorflows(name):
    assert name in TF_VALUES, f"{name}: no recorded TF values (run gen_gradient_reference.py)"
    theirs = TF_VALUES[name]
    if isinstance(theirs, dict):  # TF raised: so must we, with TF's class
        expected = getattr(dg.errors, theirs["raises"], None) or getattr(builtins,
                                                                        theirs["raises"])
        with pytest.raises(expected):
            gradient_cases.CASES[name](dg)
        return
    ours = gradient_cases.CASES[name](dg)
    assert len(ours) == len(theirs)
    for i, (mine, tf_value) in enumerate(zip(ours, theirs)):
        assert (mine is None) == (tf_value is None), (name, i, mine, tf_value)
        if isinstance(tf_value, str) or (isinstance(tf_value, list) and tf_value and
                                         all(isinstance(v, int) for v in tf_value)):
            # a dtype name or a shape
            assert mine == tf_value, (name, i, mine, tf_value)
        elif mine is not None:
            np.testing.assert_allclose(np.asarray(mine, np.float64),
                                       np.asarray(tf_value, np.float64),
                                       rtol=1e-5, atol=1e-9, err_msg=f"{name} output {i}")


def test_prevent_gradient_raises_lookup_error_naming_its_message_in_both_modes():
    from duograd.ops.array.raw_only_ops import prevent_gradient
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = prevent_gradient(x * 2, message="a reason")
    with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: a reason"):
        tape.gradient(y, x)
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.float32, [2])
        with pytest.raises(LookupError, match="a reason"):
            dg.gradients(prevent_gradient(p, message="a reason"), p)
