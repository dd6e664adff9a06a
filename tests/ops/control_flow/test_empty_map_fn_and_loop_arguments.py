"""dg.map_fn over zero elements and dg.while_loop's parallel_iterations check, as TF 2.21.

Every expected shape, dtype and exception class below was recorded from TF 2.21.
"""
import numpy as np
import pytest

import duograd as dg


def test_map_fn_over_no_elements_eagerly_gives_shape_0():
    # TF 2.21 eager: fn never runs, so the element shape is unknown: shape (0,)
    out = dg.map_fn(lambda x: x * 2, dg.zeros([0, 3]))
    assert out.shape.as_list() == [0] and out.dtype == dg.float32
    out = dg.map_fn(lambda x: dg.cast(x, dg.int32), dg.zeros([0, 3]),
                    fn_output_signature=dg.int32)
    assert out.shape.as_list() == [0] and out.dtype == dg.int32
    out = dg.map_fn(dg.reduce_sum, dg.zeros([0, 3]),
                    fn_output_signature=dg.TensorSpec([], dg.float64))
    assert out.shape.as_list() == [0] and out.dtype == dg.float64
    pair = dg.map_fn(lambda x: (x, x[0]), dg.zeros([0, 3]),
                     fn_output_signature=(dg.float32, dg.float32))
    assert [(t.shape.as_list(), t.dtype) for t in pair] == [([0], dg.float32)] * 2


def test_map_fn_over_no_elements_in_graphs_keeps_the_traced_element_shape():
    # TF 2.21: in tf.function and in a tf.compat.v1 Session the result is (0, 3)
    doubled = dg.function(lambda a: dg.map_fn(lambda x: x * 2, a))
    out = doubled(dg.zeros([0, 3]))
    assert out.shape.as_list() == [0, 3] and out.dtype == dg.float32
    np.testing.assert_array_equal(doubled(dg.ones([2, 3])).numpy(), np.full([2, 3], 2.0))
    with dg.Graph().as_default():
        static = dg.map_fn(lambda x: x * 2, dg.zeros([0, 3]))
        fed = dg.compat.v1.placeholder(dg.float32, [None, 3])
        dynamic = dg.map_fn(lambda x: x * 2, fed)
        assert static.shape.as_list() == [0, 3] and dynamic.shape.as_list() == [None, 3]
        with dg.compat.v1.Session() as sess:
            values = sess.run([static, dynamic], {fed: np.zeros([0, 3], np.float32)})
    assert [(v.shape, v.dtype) for v in values] == [((0, 3), np.float32)] * 2


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize("parallel_iterations", [0, -1, "a", None])
def test_while_loop_rejects_non_positive_parallel_iterations(graph, parallel_iterations):
    # TF 2.21 raises TypeError for all of these, eagerly and in a graph
    def loop():
        return dg.while_loop(lambda i: i < 3, lambda i: i + 1, [dg.constant(0)],
                             parallel_iterations=parallel_iterations)
    with pytest.raises(TypeError):
        if graph:
            with dg.Graph().as_default():
                loop()
        else:
            loop()


def test_while_loop_accepts_positive_parallel_iterations():
    out = dg.while_loop(lambda i: i < 3, lambda i: i + 1, [dg.constant(0)],
                        parallel_iterations=1)
    assert int(out[0]) == 3
