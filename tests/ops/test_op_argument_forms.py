"""Regressions for the bugs the static checks (ruff, mypy; `make lint`) found, and
the PEP 561 marker the package ships."""
from importlib import resources

import numpy as np
import pytest

import duograd as dg


def test_package_ships_py_typed_marker():
    assert resources.files("duograd").joinpath("py.typed").is_file()


def test_conv2d_backprop_input_nchw_accepts_a_tensor_of_sizes():
    # mypy: `_nchw_sizes` called a `gather` that array_ops does not define, so a
    # tensor `input_sizes` with NCHW raised AttributeError.
    rng = np.random.RandomState(0)
    w = rng.rand(3, 3, 2, 5)
    dy_nchw = rng.rand(1, 5, 4, 4)
    kwargs = dict(strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW")
    from_tensor = dg.nn.conv2d_backprop_input(dg.constant([1, 2, 4, 4]), w, dy_nchw, **kwargs)
    from_list = dg.nn.conv2d_backprop_input([1, 2, 4, 4], w, dy_nchw, **kwargs)
    nhwc = dg.nn.conv2d_backprop_input([1, 4, 4, 2], w, dy_nchw.transpose(0, 2, 3, 1),
                                       strides=[1, 1, 1, 1], padding="SAME")
    assert from_tensor.shape == (1, 2, 4, 4)
    np.testing.assert_allclose(from_tensor.numpy(), from_list.numpy())
    np.testing.assert_allclose(from_tensor.numpy(), nhwc.numpy().transpose(0, 3, 1, 2))


def test_repeat_of_a_scalar_along_an_axis_is_a_vector():
    # mypy: `axis % rank` with rank 0 raised ZeroDivisionError. TF 2.21:
    # tf.repeat(3, 2, axis=0) and axis=-1 are [3, 3].
    for axis in (0, -1):
        np.testing.assert_array_equal(dg.repeat(3, 2, axis=axis).numpy(), [3, 3])
        np.testing.assert_array_equal(dg.repeat(3, [2], axis=axis).numpy(), [3, 3])


@pytest.mark.parametrize("value, axis, bounds", [([1, 2], 1, "-1<=axis<1"),
                                                 ([1, 2], -2, "-1<=axis<1"),
                                                 (3, 1, "-1<=axis<1")])
def test_repeat_rejects_an_axis_out_of_bounds(value, axis, bounds):
    # Before, the axis wrapped around silently. TF 2.21: ValueError
    # "axis=1 out of bounds: expected -1<=axis<1".
    with pytest.raises(ValueError, match=f"axis={axis} out of bounds: expected {bounds}"):
        dg.repeat(value, 2, axis=axis)
