"""dg.strings.reduce_join with axis / keepdims / separator, dg.strings.split of tensors of
rank >= 1 (a RaggedTensor, as TF) and the minimal dg.RaggedTensor / dg.ragged.constant:
values, shapes, reprs and exception classes recorded from TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg

X = [["a", "b", "c"], ["d", "e", "f"]]

# axis: (TF's result, keepdims=True with separator "-")
REDUCE_JOIN = {
    None: (b"abcdef", [[b"a-b-c-d-e-f"]]),
    0: ([b"ad", b"be", b"cf"], [[b"a-d", b"b-e", b"c-f"]]),
    1: ([b"abc", b"def"], [[b"a-b-c"], [b"d-e-f"]]),
    -1: ([b"abc", b"def"], [[b"a-b-c"], [b"d-e-f"]]),
    -2: ([b"ad", b"be", b"cf"], [[b"a-d", b"b-e", b"c-f"]]),
    (0, 1): (b"adbecf", [[b"a-d-b-e-c-f"]]),
    (1, 0): (b"abcdef", [[b"a-b-c-d-e-f"]]),
    (): ([[b"a", b"b", b"c"], [b"d", b"e", b"f"]],) * 2,
}


def _value(t):
    v = t.numpy()
    return v.tolist() if isinstance(v, np.ndarray) else v


@pytest.mark.parametrize("axis", list(REDUCE_JOIN), ids=str)
def test_reduce_join_along_axes_as_tensorflow(axis):
    ax = list(axis) if isinstance(axis, tuple) else axis
    plain, kept = REDUCE_JOIN[axis]
    assert _value(dg.strings.reduce_join(X, axis=ax)) == plain
    assert _value(dg.strings.reduce_join(X, axis=ax, keepdims=True, separator="-")) == kept


def test_reduce_join_more_cases_as_tensorflow():
    cube = dg.reshape(dg.constant([str(i) for i in range(8)]), [2, 2, 2])
    assert _value(dg.strings.reduce_join(cube, axis=[0, 2], separator=",")) == \
        [b"0,4,1,5", b"2,6,3,7"]
    assert _value(dg.strings.reduce_join(dg.zeros([0, 2], dg.string), axis=0)) == [b"", b""]
    assert dg.strings.reduce_join(dg.zeros([0, 2], dg.string), axis=1).shape == [0]
    assert _value(dg.strings.reduce_join(X, axis=dg.constant(1))) == [b"abc", b"def"]
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.string, [2, None])
        out = dg.strings.reduce_join(p, axis=1, separator=" ")
        assert out.shape.as_list() == [2]
        with dg.Session(graph=g) as sess:
            assert sess.run(out, {p: X}).tolist() == [b"a b c", b"d e f"]


@pytest.mark.parametrize("call, error", [
    (lambda: dg.strings.reduce_join(X, axis=2), dg.errors.OutOfRangeError),
    (lambda: dg.strings.reduce_join(X, axis=-3), dg.errors.OutOfRangeError),
    (lambda: dg.strings.reduce_join(dg.constant("ab"), axis=0), dg.errors.OutOfRangeError),
    (lambda: dg.strings.reduce_join(X, axis=[0, 0]), dg.errors.InvalidArgumentError),
    (lambda: dg.strings.reduce_join(X, axis=1.5), TypeError),
    (lambda: dg.strings.reduce_join(X, axis="a"), TypeError),
    (lambda: dg.strings.reduce_join([1, 2]), dg.errors.InvalidArgumentError),
])
def test_reduce_join_errors_are_tensorflows(call, error):
    with pytest.raises(error):
        call()


def test_reduce_join_axis_out_of_range_building_a_graph_is_a_value_error():
    with dg.Graph().as_default():
        with pytest.raises(ValueError):
            dg.strings.reduce_join(dg.constant([["a"]]), axis=2)


def test_split_of_a_vector_is_a_ragged_tensor_as_tensorflow():
    s = dg.strings.split(["a b", "c", "", "d  e f"])
    assert isinstance(s, dg.RaggedTensor)
    assert s.to_list() == [[b"a", b"b"], [b"c"], [], [b"d", b"e", b"f"]]
    assert s.shape.as_list() == [4, None]
    assert s.row_splits.numpy().tolist() == [0, 2, 3, 3, 6]
    assert s.values.numpy().tolist() == [b"a", b"b", b"c", b"d", b"e", b"f"]
    assert s.flat_values.numpy().tolist() == s.values.numpy().tolist()
    assert s.row_lengths().numpy().tolist() == [2, 1, 0, 3]
    assert int(s.nrows()) == 4 and s.bounding_shape().numpy().tolist() == [4, 3]
    assert repr(s) == "<tf.RaggedTensor [[b'a', b'b'], [b'c'], [], [b'd', b'e', b'f']]>"
    assert s.to_tensor().numpy().tolist() == [[b"a", b"b", b""], [b"c", b"", b""],
                                              [b"", b"", b""], [b"d", b"e", b"f"]]
    assert s.to_tensor(default_value="x").numpy().tolist()[1] == [b"c", b"x", b"x"]
    assert dg.strings.split("a b").numpy().tolist() == [b"a", b"b"]   # a scalar: a tensor
    assert dg.strings.split(["a,b", "c"], sep=",").to_list() == [[b"a", b"b"], [b"c"]]
    assert dg.strings.split(["a,b,c", "c"], sep=",", maxsplit=1).to_list() == \
        [[b"a", b"b,c"], [b"c"]]


def test_split_of_a_matrix_has_two_ragged_levels_as_tensorflow():
    s = dg.strings.split([["a b", "c"], ["d", "e f g"]])
    assert s.to_list() == [[[b"a", b"b"], [b"c"]], [[b"d"], [b"e", b"f", b"g"]]]
    assert s.shape.as_list() == [2, 2, None] and s.ragged_rank == 2
    assert repr(s) == ("<tf.RaggedTensor [[[b'a', b'b'], [b'c']],\n"
                       " [[b'd'], [b'e', b'f', b'g']]]>")
    assert s.to_tensor().numpy().tolist() == [
        [[b"a", b"b", b""], [b"c", b"", b""]], [[b"d", b"", b""], [b"e", b"f", b"g"]]]


def test_split_in_a_graph_gives_symbolic_rows():
    g = dg.Graph()
    with g.as_default():
        p = dg.placeholder(dg.string, [None])
        s = dg.strings.split(p)
        assert s.shape.as_list() == [None, None]
        dense = s.to_tensor()
        with dg.Session(graph=g) as sess:
            assert sess.run(dense, {p: ["a b", "c"]}).tolist() == [[b"a", b"b"], [b"c", b""]]
            assert sess.run(s.row_splits, {p: ["a b", "c"]}).tolist() == [0, 2, 3]


def test_ragged_constant_as_tensorflow():
    r = dg.ragged.constant([[1, 2], [3]])
    assert repr(r) == str(r) == "<tf.RaggedTensor [[1, 2], [3]]>"
    assert r.dtype == dg.int32 and r.shape.as_list() == [2, None]
    assert r.to_tensor().numpy().tolist() == [[1, 2], [3, 0]]
    assert r.to_tensor(default_value=9).numpy().tolist() == [[1, 2], [3, 9]]
    assert repr(dg.ragged.constant([["a"], []])) == "<tf.RaggedTensor [[b'a'], []]>"
    assert dg.ragged.constant([[1.5], []]).dtype == dg.float32
    assert dg.ragged.constant([[1, 2], [3]], dtype=dg.float32).to_list() == [[1.0, 2.0], [3.0]]
    r3 = dg.ragged.constant([[[1], [2, 3]], [[4]]])
    assert r3.to_list() == [[[1], [2, 3]], [[4]]] and r3.shape.as_list() == [2, None, None]
    assert dg.ragged.constant(5).numpy() == 5   # a scalar: a plain tensor
    with pytest.raises(ValueError):
        dg.ragged.constant([[1, [2]], [3]])


def test_ragged_tensors_are_not_differentiable_values():
    x = dg.constant(["a b"])
    with dg.GradientTape() as tape:
        tape.watch(x)
        s = dg.strings.split(x)
    assert tape.gradient(s.to_tensor(), x) is None
