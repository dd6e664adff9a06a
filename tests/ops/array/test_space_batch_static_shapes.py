"""Static shapes of SpaceToBatch/BatchToSpace with unknown inputs, as TF 2.21's shape
functions give them (recorded with tf.compat.v1 in a graph)."""
from __future__ import annotations

import pytest

import duograd as dg


def _ph(dtype, shape=None):
    return dg.compat.v1.placeholder(dtype, shape=shape)


@pytest.mark.parametrize("fn", ["batch_to_space", "space_to_batch"])
def test_tf1_square_block_forms_are_4d_for_an_unknown_rank_input(fn):
    with dg.Graph().as_default():
        out = getattr(dg.compat.v1, fn)(_ph(dg.float32), _ph(dg.int32), block_size=4)
        assert out.shape.as_list() == [None, None, None, None]   # TF 2.21: rank 4


@pytest.mark.parametrize("fn", [dg.compat.v1.batch_to_space_nd, dg.space_to_batch_nd])
def test_nd_forms_keep_the_dims_after_the_block_dims(fn):
    with dg.Graph().as_default():
        out = fn(_ph(dg.float32, (None, None, None, 2)), _ph(dg.int32, (2,)), _ph(dg.int32))
        assert out.shape.as_list() == [None, None, None, 2]      # TF 2.21
        out = fn(_ph(dg.float32, (None, None, None, None)), _ph(dg.int32, (2,)),
                 _ph(dg.int32))
        assert out.shape.as_list() == [None, None, None, None]
        out = fn(_ph(dg.float32), _ph(dg.int32, (2,)), _ph(dg.int32))
        assert out.shape.rank is None                            # TF 2.21: unknown


def test_batch_to_space_nd_is_the_v1_public_name_of_the_op():
    x = dg.reshape(dg.range(8.0), [4, 1, 1, 2])
    out = dg.compat.v1.batch_to_space_nd(x, [2, 2], [[0, 0], [0, 0]])
    # TF 2.21: tf.compat.v1.batch_to_space_nd gives shape (1, 2, 2, 2) and these values
    assert out.numpy().tolist() == [[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]]


def test_a_static_block_shape_with_unknown_crops_or_paddings_still_gives_the_batch():
    with dg.Graph().as_default():
        out = dg.compat.v1.batch_to_space_nd(_ph(dg.float32, (18, None, None, 2)), [2, 3],
                                             _ph(dg.int32))
        assert out.shape.as_list() == [3, None, None, 2]          # TF 2.21
        out = dg.space_to_batch_nd(_ph(dg.float32, (3, None, None, 2)), [2, 3],
                                   _ph(dg.int32))
        assert out.shape.as_list() == [18, None, None, 2]         # TF 2.21
