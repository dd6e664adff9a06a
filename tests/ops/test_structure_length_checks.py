"""Regressions for ops/ bugs that `zip(strict=True)` (ruff B905) exposed: mismatched
lengths that a plain zip silently truncated, or that surfaced as Python's own zip
message. Exception classes recorded from TF 2.21."""
import numpy as np
import pytest

import duograd as dg
from duograd.framework import errors


def test_scan_rejects_fn_output_of_another_structure():
    # A plain zip dropped the extra output (or the missing one) without a word;
    # TF 2.21: ValueError "The two structures don't have the same nested structure".
    elems = dg.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="same nested structure"):
        dg.scan(lambda a, x: (a, a), elems, initializer=dg.constant(0.0))
    with pytest.raises(ValueError, match="same nested structure"):
        dg.scan(lambda a, x: a[0], elems, initializer=(dg.constant(0.0), dg.constant(1.0)))


def test_scan_with_matching_structure_still_runs():
    elems = dg.constant([1.0, 2.0, 3.0])
    total, ones = dg.scan(lambda a, x: (a[0] + x, a[1]), elems,
                          initializer=(dg.constant(0.0), dg.constant(1.0)))
    np.testing.assert_allclose(total.numpy(), [1.0, 3.0, 6.0])
    np.testing.assert_allclose(ones.numpy(), [1.0, 1.0, 1.0])


def test_scan_structure_checked_when_traced():
    with dg.Graph().as_default():
        elems = dg.constant([1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="same nested structure"):
            dg.scan(lambda a, x: (a, a), elems, initializer=dg.constant(0.0))


def test_tile_multiples_must_be_a_vector():
    # TF 2.21: eager InvalidArgumentError "Expected multiples to be 1-D, but got
    # shape []"; in a graph ValueError "Shape must be rank 1 but is rank 0".
    with pytest.raises(errors.InvalidArgumentError, match="1-D"):
        dg.tile(dg.ones([2, 3]), 3)
    with pytest.raises(errors.InvalidArgumentError, match="1-D"):
        dg.tile(dg.ones([3]), [[3]])
    with dg.Graph().as_default():
        x = dg.compat.v1.placeholder(dg.float32, [2, 3])
        with pytest.raises(ValueError, match="rank 1 but is rank 0"):
            dg.tile(x, 3)


def test_slice_size_of_wrong_length_in_a_graph():
    # Was IndexError from the shape function; TF 2.21: ValueError.
    with dg.Graph().as_default():
        x = dg.compat.v1.placeholder(dg.float32, [2, 3])
        with pytest.raises(ValueError, match="size 2"):
            dg.slice(x, [0, 0], [1])
        with pytest.raises(ValueError, match="size 2"):
            dg.slice(x, [0], [1, 1])


def test_v1_compute_gradient_lists_of_different_lengths():
    # A plain zip checked only the first pairs; now a ValueError naming the counts.
    with dg.Graph().as_default(), dg.compat.v1.Session():
        a = dg.constant([1.0, 2.0])
        b = dg.constant([3.0])
        y = dg.reduce_sum(a) * dg.reduce_sum(b)
        with pytest.raises(ValueError, match="2 x tensors but 1 x_shape"):
            dg.compat.v1.test.compute_gradient([a, b], [[2]], y, [])


def test_get_concrete_function_with_more_arguments_than_input_signature():
    # The spec check zipped and dropped the extra argument; TF 2.21: TypeError
    # ("too many positional arguments"). Fewer arguments stay fine, as in TF.
    spec = dg.TensorSpec([], dg.float32)
    f = dg.function(lambda a: a, input_signature=[spec])
    with pytest.raises(TypeError):
        f.get_concrete_function(spec, spec)
    g = dg.function(lambda a, b=1.0: a, input_signature=[spec, spec])
    assert g.get_concrete_function(spec) is g.get_concrete_function(spec, spec)
