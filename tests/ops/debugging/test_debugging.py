"""dg.debugging: TF's checks eagerly, in graphs (static and runtime) and in functions.

Messages were recorded from TensorFlow 2.21.
"""
import numpy as np
import pytest

import duograd as dg

InvalidArgument = dg.errors.InvalidArgumentError


# -- eager ---------------------------------------------------------------------------
def test_eager_assert_equal_message_and_success():
    assert dg.debugging.assert_equal(dg.constant([1, 2]), dg.constant([1, 2])) is None
    expected = ("custom\nCondition x == y did not hold.\nIndices of first 1 different values:\n"
                "[[1]]\nCorresponding x values:\n[2]\nCorresponding y values:\n[3]\n"
                "First 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 3]")
    with pytest.raises(InvalidArgument) as info:
        dg.debugging.assert_equal(dg.constant([1, 2]), dg.constant([1, 3]), message="custom")
    assert str(info.value) == expected


@pytest.mark.parametrize("check, symbol, index", [
    (dg.debugging.assert_less, "<", 1), (dg.debugging.assert_less_equal, "<=", 1),
    (dg.debugging.assert_greater, ">", 0), (dg.debugging.assert_greater_equal, ">=", 0),
    (dg.debugging.assert_none_equal, "!=", 1)])
def test_eager_comparisons(check, symbol, index):
    y = [2, 5] if symbol == "!=" else [2, 3]
    with pytest.raises(InvalidArgument,
                       match=rf"Condition x {symbol} y did not hold.\nIndices of first 1 "
                             rf"different values:\n\[\[{index}\]\]"):
        check(dg.constant([1, 5]), dg.constant(y))


@pytest.mark.parametrize("check, symbol", [
    (dg.debugging.assert_positive, ">"), (dg.debugging.assert_negative, "<"),
    (dg.debugging.assert_non_negative, ">="), (dg.debugging.assert_non_positive, "<=")])
def test_eager_sign_checks(check, symbol):
    with pytest.raises(InvalidArgument, match=rf"Condition x {symbol} 0 did not hold "
                                              r"element-wise:\nx \(shape=\(2,\) dtype=int32\) = "
                                              r"\n\['1', '-5'\]"):
        check(dg.constant([1, -5]))
    assert check(dg.constant([0]) if "=" in symbol else
                 dg.constant([3 if symbol == ">" else -3])) is None


def test_check_numerics_eager_graph_function_and_gradient():
    with pytest.raises(InvalidArgument, match="bad x : Tensor had NaN values"):
        dg.debugging.check_numerics(dg.constant([1.0, np.nan]), "bad x")
    with pytest.raises(InvalidArgument, match="bad : Tensor had Inf values"):
        dg.debugging.check_numerics(dg.constant([np.inf]), "bad")
    np.testing.assert_array_equal(dg.check_numerics(dg.constant([1.0]), "ok").numpy(), [1.0])
    with pytest.raises(InvalidArgument, match="CheckNumerics"):
        dg.debugging.check_numerics(dg.constant([1]), "int")  # float dtypes only, as in TF

    with dg.Graph().as_default():
        p = dg.placeholder(dg.float64, [2])
        checked = dg.debugging.check_numerics(dg.log(p), "log")
        with dg.Session() as sess:
            np.testing.assert_allclose(sess.run(checked, {p: [1.0, np.e]}), [0.0, 1.0])
            with pytest.raises(InvalidArgument, match="log : Tensor had NaN values"):
                sess.run(checked, {p: [-1.0, 1.0]})

    f = dg.function(lambda x: dg.debugging.check_numerics(x, "in fn"))
    with pytest.raises(InvalidArgument, match="in fn : Tensor had NaN values"):
        f(dg.constant([1.0, np.nan]))

    x = dg.constant([0.0, 1.0], dg.float64)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.log(dg.debugging.check_numerics(x, "log")))
    with pytest.raises(InvalidArgument, match="detected in gradient. log : Tensor had Inf"):
        tape.gradient(y, x)  # the gradient reaching the check, 1 / x, is inf at 0


def test_eager_Assert_message():
    with pytest.raises(InvalidArgument, match=r"Expected 'tf.Tensor\(False, shape=\(\), "
                                              r"dtype=bool\)' to be true. Summarized data: "
                                              r"b'msg'\n1, 2"):
        dg.debugging.Assert(dg.constant(False), ["msg", dg.constant([1, 2])])
    assert dg.debugging.Assert(dg.constant(True), ["msg"]) is None


def test_assert_near():
    dg.debugging.assert_near(dg.constant([1.0, 2.0]), dg.constant([1.0, 2.000001]))
    with pytest.raises(InvalidArgument, match="x and y not equal to tolerance"):
        dg.debugging.assert_near(dg.constant([1.0, 2.0]), dg.constant([1.0, 2.1]))
    dg.debugging.assert_near(dg.constant([1.0]), dg.constant([1.05]), atol=0.1)


# -- static checks: rank, shapes, dtypes ----------------------------------------------
def test_rank_checks():
    assert dg.debugging.assert_rank(dg.constant([1, 5]), 1) is None
    with pytest.raises(ValueError, match=r"Tensor  must have rank 2.  Received rank 1, "
                                         r"shape \(2,\)"):
        dg.debugging.assert_rank(dg.constant([1, 5]), 2)
    with pytest.raises(ValueError, match=r"must have rank at least 2.  Received rank 1"):
        dg.debugging.assert_rank_at_least(dg.constant([1, 5]), 2)
    with pytest.raises(ValueError, match=r"must have rank in \(0, 2\).  Received rank 1"):
        dg.debugging.assert_rank_in(dg.constant([1, 5]), [0, 2])
    f = dg.function(lambda x: dg.debugging.assert_rank(x, 2))
    with pytest.raises(ValueError, match=r"Tensor \S+:0 must have rank 2.  Received rank 1"):
        f(dg.ones([3]))


def test_assert_shapes_static():
    ok = [(dg.ones([2, 3]), ("N", "D")), (dg.ones([2]), ("N",)), (dg.ones([]), ("N",)),
          (dg.ones([2, 3]), (".", 3)), (dg.ones([2, 3, 4]), ("*", 4))]
    assert dg.debugging.assert_shapes(ok) is None
    with pytest.raises(ValueError, match=r"Specified by tensor shape=\(2, 3\) dtype=float32 "
                                         r"dimension 0.  Tensor shape=\(3,\) dtype=float32 "
                                         r"dimension 0 must have size 2.  Received size 3, "
                                         r"shape \(3,\)"):
        dg.debugging.assert_shapes([(dg.ones([2, 3]), ("N", "D")), (dg.ones([3]), ("N",))])
    with pytest.raises(ValueError, match=r"Specified explicitly.  Tensor shape=\(2, 3\) "
                                         r"dtype=float32 dimension 1 must have size 4."):
        dg.debugging.assert_shapes([(dg.ones([2, 3]), (2, 4))])
    with pytest.raises(ValueError, match=r"Tensor  must have rank 2.  Received rank 1"):
        dg.debugging.assert_shapes([(dg.ones([2]), ("N", "M"))])


def test_assert_shapes_at_run_time_in_a_function():
    @dg.function(input_signature=[dg.TensorSpec([None, None])])
    def f(x):
        check = dg.debugging.assert_shapes([(x, ("N", 2))])
        with dg.control_dependencies([check]):
            return dg.identity(x)

    assert f(dg.ones([3, 2])).shape == [3, 2]
    with pytest.raises(InvalidArgument, match="assertion failed"):
        f(dg.ones([3, 3]))


def test_dtype_checks():
    with pytest.raises(TypeError, match="tensor must be of type dg.int32; got dg.float32"):
        dg.debugging.assert_type(dg.constant([1.0]), dg.int32)
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        dg.debugging.assert_integer(dg.constant([1.0]))
    with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(1,\)."):
        dg.debugging.assert_scalar(dg.constant([1.0]))
    assert dg.debugging.is_numeric_tensor(dg.constant([1.0]))
    assert not dg.debugging.is_numeric_tensor([1.0])
    with pytest.raises(ValueError, match="must be of the same type"):
        dg.debugging.assert_same_float_dtype([dg.constant(1.0), dg.constant(1.0, dg.float64)])


# -- graphs: static values raise while building, runtime values when run --------------
def test_graph_assert_with_known_values_raises_while_building():
    with dg.Graph().as_default():
        with pytest.raises(InvalidArgument, match=r"Condition x == y did not hold element-wise:"
                                                  r"\nx \(\S+:0\) = \n\[1 2\]\ny \(\S+:0\) = "
                                                  r"\n\[1 3\]"):
            dg.debugging.assert_equal(dg.constant([1, 2]), dg.constant([1, 3]))


def test_graph_assert_runs_as_an_op():
    with dg.Graph().as_default():
        p = dg.placeholder(dg.int32, [2])
        check = dg.debugging.assert_equal(p, dg.constant([1, 3]))
        assert isinstance(check, dg.Operation) and check.type == "Assert"
        with dg.control_dependencies([check]):
            out = dg.identity(p)
        with dg.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {p: [1, 3]}), [1, 3])
            with pytest.raises(InvalidArgument,
                               match=r"assertion failed: \[Condition x == y did not hold "
                                     r"element-wise:\] \[x \(Placeholder:0\) = \] \[1 2\] "
                                     r"\[y \(\S+:0\) = \] \[1 3\]"):
                sess.run(out, {p: [1, 2]})


def test_asserts_inside_a_function():
    @dg.function
    def safe_divide(a, b):
        checks = [dg.debugging.assert_positive(b), dg.debugging.assert_less(a, b * 10)]
        with dg.control_dependencies(checks):
            return a / b

    assert float(safe_divide(dg.constant(4.0), dg.constant(2.0))) == 2.0
    with pytest.raises(InvalidArgument, match=r"Condition x > y did not hold"):
        safe_divide(dg.constant(4.0), dg.constant(-2.0))
    with pytest.raises(InvalidArgument, match=r"Condition x < y did not hold"):
        safe_divide(dg.constant(40.0), dg.constant(2.0))

    @dg.function
    def guarded(x):
        check = dg.debugging.Assert(x > 0, ["x is", x, "!"], summarize=5)
        with dg.control_dependencies([check]):
            return dg.identity(x)

    with pytest.raises(InvalidArgument, match=r"assertion failed: \[x is\] \[-1.5\] \[!\]"):
        guarded(dg.constant(-1.5))
