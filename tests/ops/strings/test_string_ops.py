"""dg.string tensors and dg.strings ops, with TF 2.21's values and classes."""
from __future__ import annotations

import numpy as np
import pytest

import duograd as dg


def _values(t):
    return np.asarray(t).tolist()


def test_string_constants():
    a = dg.constant("abc")
    assert a.dtype == dg.string and a.shape == () and a.numpy() == b"abc"
    b = dg.constant([["a", "bc"], ["d", "é"]])
    assert b.shape == (2, 2) and _values(b) == [[b"a", b"bc"], [b"d", "é".encode()]]
    assert dg.constant(b"x").numpy() == b"x"
    assert dg.constant(np.array(["p", "q"])).dtype == dg.string
    with pytest.raises(TypeError):
        dg.constant(["a", 1])
    with pytest.raises(TypeError):
        dg.constant("a", dg.float32)
    with pytest.raises(TypeError):
        dg.constant(1, dg.string)


def test_join_and_format():
    b = dg.constant(["x", "yz"])
    assert _values(dg.strings.join([b, "!"])) == [b"x!", b"yz!"]
    assert _values(dg.strings.join(["a", "b", b], separator="-")) == [b"a-b-x", b"a-b-yz"]
    with pytest.raises(dg.errors.InvalidArgumentError, match=r"Input shapes do not match: "
                                                             r"\[2\] vs. \[3\]"):
        dg.strings.join([b, dg.constant(["1", "2", "3"])])
    with pytest.raises(dg.errors.InvalidArgumentError, match="was expected to be a string"):
        dg.strings.join([b, dg.constant([1, 2])])
    assert dg.strings.format("x={} y={}", (dg.constant(1.5), b)).numpy() == \
        b'x=1.5 y=["x" "yz"]'
    assert dg.strings.format("{}", dg.constant([[1, 2], [3, 4]])).numpy() == b"[[1 2]\n [3 4]]"
    assert dg.strings.format("{}", dg.range(10)).numpy() == b"[0 1 2 ... 7 8 9]"
    assert dg.strings.format("s: {}", dg.constant("abc")).numpy() == b's: "abc"'
    with pytest.raises(ValueError, match="The template expects 2 tensors"):
        dg.strings.format("{} {}", [dg.constant("a")])


def test_length_and_split():
    words = dg.constant(["ab", "héllo", ""])
    assert _values(dg.strings.length(words)) == [2, 6, 0]
    assert dg.strings.length(words).dtype == dg.int32
    assert _values(dg.strings.length(words, unit="UTF8_CHAR")) == [2, 5, 0]
    assert _values(dg.strings.split(dg.constant("a b  c"))) == [b"a", b"b", b"c"]
    assert _values(dg.strings.split(dg.constant("a,b,,c"), sep=",")) == [b"a", b"b", b"", b"c"]
    assert _values(dg.strings.split(dg.constant("a,b,,c"), sep=",", maxsplit=1)) == \
        [b"a", b"b,,c"]
    # a vector: a RaggedTensor, as TF (test_reduce_join_axis_and_ragged_split.py)
    assert dg.strings.split(dg.constant(["a b"])).to_list() == [[b"a", b"b"]]


def test_to_number():
    np.testing.assert_array_equal(dg.strings.to_number(dg.constant(["1.5", "-2", "3e2"])),
                                  np.float32([1.5, -2.0, 300.0]))
    ints = dg.strings.to_number(dg.constant(["12", "-3"]), out_type=dg.int32)
    assert ints.dtype == dg.int32 and _values(ints) == [12, -3]
    for bad, out_type in (("1.5x", dg.float32), ("1.5", dg.int64)):
        with pytest.raises(dg.errors.InvalidArgumentError,
                           match=f"StringToNumberOp could not correctly convert string: {bad}"):
            dg.strings.to_number(dg.constant([bad]), out_type=out_type)
    special = dg.strings.to_number(dg.constant(["nan", "inf"])).numpy()
    assert np.isnan(special[0]) and special[1] == np.inf


@pytest.mark.parametrize("value,kwargs,expected", [
    (np.float32([1.5, 2.0, 1e-7, 12345678.9]), {},
     [b"1.500000", b"2.000000", b"0.000000", b"12345679.000000"]),
    (np.float32([1.5, 2.0]), {"precision": 3}, [b"1.500", b"2.000"]),
    (np.int32([1, -20]), {}, [b"1", b"-20"]),
    (np.int32([1, -20]), {"width": 5, "fill": "0"}, [b"00001", b"-0020"]),
    (np.array([True, False]), {}, [b"true", b"false"]),
    (np.float32([1234.5]), {"scientific": True}, [b"1.234500e+03"]),
    (np.float32([0.1, 1.0 / 3]), {"shortest": True}, [b"0.1", b"0.333333"]),
    (np.float64([1.0 / 3]), {}, [b"0.333333"]),
])
def test_as_string(value, kwargs, expected):
    assert _values(dg.strings.as_string(dg.constant(value), **kwargs)) == expected


def test_regex_full_match():
    out = dg.strings.regex_full_match(dg.constant(["abc", "ab", "xabc"]), "a.c")
    assert out.dtype == dg.bool and _values(out) == [True, False, False]
    with pytest.raises(dg.errors.InvalidArgumentError, match="Invalid pattern: a\\("):
        dg.strings.regex_full_match(dg.constant(["abc"]), "a(")


def test_tensor_ops_that_take_strings():
    a, b = dg.constant("abc"), dg.constant(["x", "yz"])
    assert _values(dg.equal(b, "x")) == [True, False]
    assert (a + a).numpy() == b"abcabc"
    assert _values(dg.stack([a, a])) == [b"abc", b"abc"]
    assert _values(dg.zeros_like(b)) == [b"", b""]
    assert _values(dg.strings.upper(b)) == [b"X", b"YZ"]
    assert dg.strings.reduce_join(b).numpy() == b"xyz"
    with pytest.raises(dg.errors.UnimplementedError, match="Cast string to float32"):
        dg.cast(a, dg.float32)


def test_variable_function_and_py_function():
    v = dg.Variable("hi")
    assert v.dtype == dg.string and v.numpy() == b"hi"
    v.assign("ho")
    assert v.numpy() == b"ho"

    @dg.function
    def f(x):
        return dg.strings.join([x, "!"]), dg.strings.length(x)

    text, size = f(dg.constant("ab"))
    assert text.numpy() == b"ab!" and size.numpy() == 2

    @dg.function
    def g(n):
        return dg.strings.as_string(n)

    assert g(dg.constant(3)).numpy() == b"3"
    out = dg.py_function(lambda s: dg.strings.join([s, s]), [dg.constant("abc")],
                         Tout=dg.string)
    assert out.numpy() == b"abcabc"
    assert dg.py_function(lambda: "q", [], Tout=dg.string).numpy() == b"q"


def test_strings_in_a_session():
    with dg.Graph().as_default():
        p = dg.compat.v1.placeholder(dg.string, [None])
        joined = dg.strings.join([p, dg.constant("?")])
        with dg.compat.v1.Session() as sess:
            assert _values(sess.run(joined, {p: ["q", "r"]})) == [b"q?", b"r?"]


def test_never_differentiable():
    x = dg.constant(1.0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.strings.to_number(dg.strings.as_string(x))
    assert tape.gradient(y, x) is None   # TF 2.21: None


def test_print_quotes_strings_inside_tensors(capsys):
    import sys
    dg.print("msg", dg.constant("abc"), dg.constant(["x", "yz"]), dg.constant(1.5),
             output_stream=sys.stdout)
    dg.print(dg.constant([["a", "b"]]), output_stream=sys.stdout)
    # recorded from TF 2.21's tf.print
    assert capsys.readouterr().out == 'msg "abc" ["x" "yz"] 1.5\n[["a" "b"]]\n'
