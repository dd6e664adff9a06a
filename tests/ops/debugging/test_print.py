"""dg.print: TF's tf.print text (recorded from TF 2.21), eagerly, in graphs and in functions."""
import sys

import numpy as np
import pytest

import duograd as dg


def _printed(capsys, *inputs, **kwargs):
    dg.print(*inputs, output_stream=sys.stdout, **kwargs)
    return capsys.readouterr().out


@pytest.mark.parametrize("inputs, kwargs, expected", [
    (("hello", dg.constant(3), dg.constant(2.5)), {}, "hello 3 2.5\n"),
    ((dg.constant([1, 2, 3, 4, 5, 6, 7]),), {}, "[1 2 3 ... 5 6 7]\n"),
    ((dg.constant([[1.0, 2.0], [3.0, 4.0]]),), {}, "[[1 2]\n [3 4]]\n"),
    ((dg.range(10),), {"summarize": -1}, "[0 1 2 3 4 5 6 7 8 9]\n"),
    ((dg.range(10),), {"summarize": 2}, "[0 1 ... 8 9]\n"),
    (("a", "b"), {"sep": ",", "end": "!\n"}, "a,b!\n"),
    (({"a": dg.constant(1), "b": [dg.constant(2.0), 3]},), {}, "{'a': 1, 'b': [2, 3]}\n"),
    ((dg.constant(True), dg.constant([True, False])), {}, "1 [1 0]\n"),
    ((dg.constant(1.0, dg.float64) / 3, dg.constant(1.0 / 3)), {},
     "0.33333333333333331 0.333333343\n"),
    ((dg.constant([1e-8, 1e8]),), {}, "[1e-08 1e+08]\n"),
    ((dg.constant(np.arange(1, 9).reshape(2, 2, 2)),), {},
     "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]\n"),
    ((5, 2.5, None), {}, "5 2.5 None\n"),
    ((dg.constant(-0.5), dg.constant([1.5, -2.25]), dg.constant(np.nan)), {},
     "-0.5 [1.5 -2.25] nan\n"),
    ((dg.constant([100000.0, 1.0]), dg.constant(123456789.0), dg.constant(1e20)), {},
     "[100000 1] 123456792 1e+20\n"),
    ((dg.Variable([1.0, 2.0]),), {}, "[1 2]\n"),
])
def test_eager_print_text_matches_tf(capsys, inputs, kwargs, expected):
    assert _printed(capsys, *inputs, **kwargs) == expected


def test_large_matrix_is_summarized_like_tf(capsys):
    expected = ("[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
                " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n")
    assert _printed(capsys, dg.reshape(dg.range(100), [10, 10])) == expected


def test_default_stream_is_stderr_and_eager_print_returns_none(capsys):
    assert dg.print("to stderr", dg.constant(1)) is None
    captured = capsys.readouterr()
    assert captured.err == "to stderr 1\n" and captured.out == ""


def test_file_stream_and_bad_stream(tmp_path):
    path = tmp_path / "log.txt"
    dg.print("x =", dg.constant([1, 2]), output_stream=f"file://{path}")
    dg.print("again", output_stream=f"file://{path}")
    assert path.read_text() == "x = [1 2]\nagain\n"
    with pytest.raises(ValueError, match="Unsupported output stream, logging level, or file"):
        dg.print("x", output_stream="bogus")


def test_graph_print_is_an_op_that_prints_when_run_in_dependency_order(capsys):
    with dg.Graph().as_default():
        x = dg.placeholder(dg.int32, [None])
        first = dg.print("first", x, output_stream=sys.stdout)
        assert isinstance(first, dg.Operation) and first.type == "PrintV2"
        with dg.control_dependencies([first]):
            second = dg.print("second", x * 2, output_stream=sys.stdout)
        assert capsys.readouterr().out == ""  # building prints nothing
        with dg.Session() as sess:
            sess.run(second, {x: [1, 2]})
            sess.run(second, {x: [5]})
    assert capsys.readouterr().out == "first [1 2]\nsecond [2 4]\nfirst [5]\nsecond [10]\n"


def test_print_inside_a_function_runs_at_every_call(capsys):
    @dg.function
    def f(x):
        printed = dg.print("in f", x, output_stream=sys.stdout)
        with dg.control_dependencies([printed]):
            return x + 1

    assert int(f(dg.constant(1))) == 2
    assert int(f(dg.constant(7))) == 8
    assert capsys.readouterr().out == "in f 1\nin f 7\n"
    assert f.experimental_get_tracing_count() == 1


def test_prints_in_functions_run_in_program_order_without_control_dependencies(capsys):
    # TF's guide example: tf.print in the branches of an if inside a tensor for loop
    @dg.function
    def fizzbuzz(n):
        for i in dg.range(1, n + 1):
            if i % 15 == 0:
                dg.print("fizzbuzz", output_stream=sys.stdout)
            elif i % 3 == 0:
                dg.print("fizz", output_stream=sys.stdout)
            elif i % 5 == 0:
                dg.print("buzz", output_stream=sys.stdout)
            else:
                dg.print(i, output_stream=sys.stdout)

    fizzbuzz(dg.constant(15))
    expected = ["fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0 else
                "buzz" if i % 5 == 0 else str(i) for i in range(1, 16)]
    assert capsys.readouterr().out.split("\n")[:-1] == expected

    @dg.function
    def three(x):
        dg.print("a", x, output_stream=sys.stdout)
        y = x * 2
        dg.print("b", y, output_stream=sys.stdout)
        dg.print("c", output_stream=sys.stdout)
        return y

    three(dg.constant(1))
    three(dg.constant(2))
    assert capsys.readouterr().out == "a 1\nb 2\nc\na 2\nb 4\nc\n"
