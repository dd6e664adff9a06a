"""The eager fast path of one- and two-input ops (ops/op_helpers.py): its per-op memo of
the last accepted input dtype never lets a wrong dtype through, and the errors stay
TF's (exception classes recorded from TF 2.21)."""
import numpy as np
import pytest

import duograd as dg
from duograd.framework.errors import InvalidArgumentError

F64 = np.array([0.5, -1.0])


def test_unary_rejects_a_wrong_dtype_after_accepting_a_right_one():
    for _ in range(2):  # the second round runs with the memo set by the first
        np.testing.assert_allclose(dg.sin(dg.constant(F64)).numpy(), np.sin(F64))
        # TF 2.21: tf.sin(int32) -> InvalidArgumentError "Value for attr 'T' of int32 ..."
        with pytest.raises(InvalidArgumentError, match="int32.*Sin"):
            dg.sin(dg.constant([1, 2]))
    f32 = dg.sin(dg.constant(F64, dtype=dg.float32))  # another accepted dtype: a memo miss
    assert f32.dtype == dg.float32
    np.testing.assert_allclose(f32.numpy(), np.sin(F64.astype(np.float32)), rtol=1e-6)


def test_binary_rejects_a_wrong_dtype_after_accepting_a_right_one():
    x = dg.constant(F64)
    for _ in range(2):
        np.testing.assert_allclose(dg.maximum(x, -x).numpy(), np.abs(F64))
        # TF 2.21: tf.maximum(complex128, complex128) -> InvalidArgumentError
        with pytest.raises(InvalidArgumentError, match="complex128.*Maximum"):
            dg.maximum(dg.constant([1j]), dg.constant([2j]))
        # TF 2.21: "cannot compute Mul as input #1(zero-based) was expected to be a double
        # tensor but is a float tensor" (InvalidArgumentError), also after Mul ran on doubles
        np.testing.assert_allclose((x * x).numpy(), F64 * F64)
        with pytest.raises(InvalidArgumentError, match="input #1"):
            x * dg.constant(F64, dtype=dg.float32)
        with pytest.raises(InvalidArgumentError, match="input #1"):
            dg.maximum(dg.constant(F64, dtype=dg.float32), x)


def test_python_scalar_operands_after_the_memo_is_set():
    x = dg.constant(F64)
    np.testing.assert_allclose((x * 0.5).numpy(), F64 * 0.5)
    np.testing.assert_allclose((2.0 - x).numpy(), 2.0 - F64)
    # TF 2.21: tf.constant([1], tf.int32) * 0.5 -> TypeError (a lossy conversion)
    with pytest.raises(TypeError):
        dg.constant([1]) * 0.5
    assert (dg.constant([3]) * 2).numpy().tolist() == [6]


def test_graph_mode_ignores_the_eager_memo():
    x = dg.constant(F64)
    dg.sin(x), x * x  # memos set eagerly
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float64, [2])
        assert not dg.executing_eagerly()
        y = dg.sin(p) * p
        assert y.op.type == "Mul" and y.op.inputs[0].op.type == "Sin"
        with dg.compat.v1.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {p: F64}), np.sin(F64) * F64)


def test_a_graph_tensor_given_to_an_eager_op_is_a_type_error():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.float64, [2])
    x = dg.constant(F64)
    dg.sin(x), x * x
    with pytest.raises(TypeError):
        dg.sin(p)
    with pytest.raises(TypeError):
        x * p


def test_fast_path_tensors_are_complete_eager_tensors():
    from duograd.eager.eager_tensor import EagerTensor

    x = dg.constant(F64)
    made = [dg.sin(x), x * 0.5, x + x]
    built = EagerTensor(np.sin(F64))  # the constructor: what the fast path builds inline
    for t in made:
        assert type(t) is EagerTensor
        for slot in EagerTensor.__slots__:
            if slot != "__weakref__":
                assert hasattr(t, slot) == hasattr(built, slot), slot
        assert t.shape == [2] and t.shape.rank == 1
    assert len({t.tensor_id for t in made + [x, built]}) == 5


def test_generated_op_functions_are_named_like_the_ops():
    import inspect
    import pickle

    for function, params in [(dg.sin, ["x", "name"]), (dg.multiply, ["x", "y", "name"]),
                             (dg.math.tanh, ["x", "name"])]:
        assert list(inspect.signature(function).parameters) == params
        assert pickle.loads(pickle.dumps(function)) is function  # found by module and name
    assert dg.add.__name__ == "add" and "broadcasting" in dg.add.__doc__


def test_fast_path_in_a_fresh_thread_whose_first_context_use_it_is():
    import threading

    x = dg.constant(F64)
    results = []

    def work():  # the thread's context starts here, from the fast path's look-up
        results.append(dg.sin(x).numpy())
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.sin(x) * 0.5)
        results.append(tape.gradient(y, x).numpy())

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    np.testing.assert_allclose(results[0], np.sin(F64))
    np.testing.assert_allclose(results[1], 0.5 * np.cos(F64))


def test_scalar_operands_convert_as_constants_do():
    for dtype in (dg.float16, dg.float32, dg.float64, dg.complex64, dg.complex128):
        x = dg.constant([1.0, 2.0], dtype=dtype)
        np_dtype = x.numpy().dtype
        for value in (0.1, -0.0, 3, 1e300, float("nan"), 2**62):
            with np.errstate(over="ignore"):  # 1e300 in float16/32: inf, as NumPy casts
                expected = np.array([1.0, 2.0], dtype=np_dtype) + np.array(value, dtype=np_dtype)
                got = x + value
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.numpy(), expected)
        assert np.signbit((x * -0.0).numpy().real).all()
    # TF 2.21: an int32 tensor + 0.5 is a TypeError (a lossy conversion)
    with pytest.raises(TypeError):
        dg.constant([1, 2]) + 0.5


def test_general_eager_path_still_rejects_mixed_dtypes():
    f64 = dg.constant([[1.0]], dg.float64)
    f32 = dg.constant([[1.0]], dg.float32)
    assert dg.matmul(f64, f64).dtype == dg.float64  # identical dtypes: the quick check
    # TF 2.21: "cannot compute MatMul as input #1(zero-based) was expected to be a double
    # tensor but is a float tensor" (InvalidArgumentError); ConcatV2 names input #2 here
    with pytest.raises(InvalidArgumentError, match="MatMul as input #1"):
        dg.matmul(f64, f32)
    with pytest.raises(InvalidArgumentError, match="ConcatV2 as input #2"):
        dg.concat([f64, f64, f32], 0)
