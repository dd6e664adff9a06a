"""TF1 graph mode: map/filter functions capturing graph tensors and variables.

Values and error messages recorded from TF 2.21 (tf.compat.v1 in a Session)."""
import numpy as np
import pytest

import duograd as dg

D = dg.compat.v1.data.Dataset
v1 = dg.compat.v1

# TF 2.21's message for a one-shot iterator over a dataset capturing a variable
STATEFUL_MESSAGE = (
    "Cannot capture a stateful node (name:w, type:VarHandleOp) by value.: A likely cause of "
    "this error is that the dataset for which you are calling `make_one_shot_iterator()` "
    "captures a stateful object, such as a `tf.Variable` or `tf.lookup.StaticHashTable`, which "
    "is not supported. Use `make_initializable_iterator()` instead.")


def _drain(sess, next_element):
    out = []
    with pytest.raises(dg.errors.OutOfRangeError):
        while True:
            out.append(sess.run(next_element))
            assert len(out) < 100
    return out


def test_map_capturing_a_fed_placeholder_takes_each_initializers_feed():
    with dg.Graph().as_default():
        scale = v1.placeholder(dg.float32, [])
        dataset = D.range(4).map(lambda x: dg.cast(x, dg.float32) * scale)
        iterator = v1.data.make_initializable_iterator(dataset)
        next_element = iterator.get_next()
        with v1.Session() as sess:
            sess.run(iterator.initializer, feed_dict={scale: 2.0})
            assert [sess.run(next_element), sess.run(next_element)] == [0.0, 2.0]
            sess.run(iterator.initializer, feed_dict={scale: 3.0})   # TF: 0, 3, 6, 9
            assert _drain(sess, next_element) == [0.0, 3.0, 6.0, 9.0]
            with pytest.raises(dg.errors.InvalidArgumentError,
                               match="must feed a value for placeholder"):
                sess.run(iterator.initializer)


def test_filter_capturing_a_placeholder():
    with dg.Graph().as_default():
        limit = v1.placeholder(dg.int64, [])
        iterator = v1.data.make_initializable_iterator(D.range(6).filter(lambda x: x < limit))
        next_element = iterator.get_next()
        with v1.Session() as sess:
            sess.run(iterator.initializer, feed_dict={limit: 2})
            assert _drain(sess, next_element) == [0, 1]          # TF: [0, 1]
            sess.run(iterator.initializer, feed_dict={limit: 4})
            assert _drain(sess, next_element) == [0, 1, 2, 3]


def test_one_shot_iterator_captures_constants_and_what_is_computed_from_them():
    with dg.Graph().as_default():
        scale = dg.constant(2.0) * 3.0
        dataset = D.range(3).map(lambda x: dg.cast(x, dg.float32) * scale)
        next_element = v1.data.make_one_shot_iterator(dataset).get_next()
        with v1.Session() as sess:
            out = _drain(sess, next_element)
        assert out == [0.0, 6.0, 12.0]                               # TF: 0, 6, 12
        assert all(np.asarray(v).dtype == np.float32 for v in out)


def test_one_shot_iterator_refuses_placeholders_and_variables_as_tf():
    with dg.Graph().as_default():
        scale = v1.placeholder(dg.float32, [])
        with pytest.raises(ValueError, match=r"^Cannot capture a placeholder "
                           r"\(name:Placeholder, type:Placeholder\) by value\.$"):
            v1.data.make_one_shot_iterator(D.range(3).map(lambda x: dg.cast(x, dg.float32)
                                                          * (scale + 1.0)))
        with pytest.raises(ValueError, match=r"^Cannot capture a placeholder"):
            v1.data.make_one_shot_iterator(D.from_tensor_slices(
                v1.placeholder(dg.float32, [3])))
        w = v1.get_variable("w", initializer=2.0, use_resource=True)
        with pytest.raises(ValueError) as raised:
            v1.data.make_one_shot_iterator(D.range(3).map(lambda x: dg.cast(x, dg.float32) * w))
        assert str(raised.value) == STATEFUL_MESSAGE


def test_map_reads_a_graph_variable_from_the_session():
    with dg.Graph().as_default():
        w = v1.get_variable("w", initializer=2.0, use_resource=True)
        iterator = v1.data.make_initializable_iterator(
            D.range(3).map(lambda x: dg.cast(x, dg.float32) * w))
        next_element = iterator.get_next()
        assign = w.assign(5.0)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(iterator.initializer)
            assert sess.run(next_element) == 0.0
            sess.run(assign)
            sess.run(iterator.initializer)        # a fresh iteration reads the new value
            assert _drain(sess, next_element) == [0.0, 5.0, 10.0]
        with v1.Session() as other:               # each Session holds its own variable
            other.run(v1.global_variables_initializer())
            other.run(iterator.initializer)
            assert _drain(other, next_element) == [0.0, 2.0, 4.0]


def test_map_reading_an_uninitialized_variable_raises_tf_class():
    with dg.Graph().as_default():
        w = v1.get_variable("w", initializer=2.0, use_resource=True)
        iterator = v1.data.make_initializable_iterator(
            D.range(3).map(lambda x: dg.cast(x, dg.float32) * w))
        next_element = iterator.get_next()
        with v1.Session() as sess:
            sess.run(iterator.initializer)
            with pytest.raises(dg.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(next_element)


def test_scan_capturing_a_placeholder():
    with dg.Graph().as_default():
        step = v1.placeholder(dg.int64, [])
        dataset = D.range(4).scan(dg.constant(0, dg.int64),
                                  lambda total, x: (total + x * step, total))
        iterator = v1.data.make_initializable_iterator(dataset)
        next_element = iterator.get_next()
        with v1.Session() as sess:
            sess.run(iterator.initializer, feed_dict={step: 2})
            assert _drain(sess, next_element) == [0, 0, 2, 6]     # TF: [0, 0, 2, 6]
