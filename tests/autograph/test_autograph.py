"""AutoGraph: Python control flow on tensors inside dg.function becomes cond/while_loop.

Expected exception classes and messages were recorded from TensorFlow 2.21
(`tf.function` with AutoGraph) on the same programs.
"""
import functools
import traceback

import numpy as np
import pytest

import duograd as dg

F64 = dg.float64


def _op_types(fn, *specs):
    """Op types of the trace; StatelessIf/StatelessWhile (TF's names when no branch or
    body has side effects) are counted as If/While."""
    graph = fn.get_concrete_function(*specs).graph
    return {op.type.replace("Stateless", "") for op in graph.get_operations()}


def _scalar(value, dtype=F64):
    return dg.constant(value, dtype)


# -- if / elif / else ------------------------------------------------------------------
def test_if_elif_else_on_tensors_becomes_cond():
    @dg.function
    def sign_square(x):
        if x > 0:
            y = x * x
        elif x < 0:
            y = -x * x
        else:
            y = x + 100.0
        return y

    assert float(sign_square(_scalar(3.0))) == 9.0
    assert float(sign_square(_scalar(-2.0))) == -4.0
    assert float(sign_square(_scalar(0.0))) == 100.0
    assert sign_square.experimental_get_tracing_count() == 1
    assert "If" in _op_types(sign_square, dg.TensorSpec([], F64))


def test_python_condition_stays_python():
    @dg.function
    def scaled(x, double):
        if double:
            x = x * 2.0
        return x

    assert float(scaled(_scalar(3.0), True)) == 6.0
    assert float(scaled(_scalar(3.0), False)) == 3.0
    assert "If" not in _op_types(scaled, dg.TensorSpec([], F64), True)


def test_if_without_else_keeps_the_value_from_before():
    @dg.function
    def clip_negative(x):
        y = x
        if y < 0:
            y = 0.0 * y
        return y

    assert float(clip_negative(_scalar(-3.0))) == 0.0
    assert float(clip_negative(_scalar(2.0))) == 2.0


def test_variables_local_to_a_branch_are_not_outputs():
    @dg.function
    def f(x):
        if x > 0:
            temp = x * 3.0  # only in this branch and never read after: no error
            x = temp
        return x

    assert float(f(_scalar(2.0))) == 6.0


# -- while / break / continue ----------------------------------------------------------
def test_while_on_tensor_becomes_while_loop():
    @dg.function
    def collatz_steps(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:  # `==` compares values in functions, as in TF2
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert int(collatz_steps(dg.constant(27))) == 111
    assert int(collatz_steps(dg.constant(1))) == 0
    assert "While" in _op_types(collatz_steps, dg.TensorSpec([], dg.int32))


def test_python_while_is_unrolled():
    @dg.function
    def power(x):
        i = 0
        while i < 10:
            x = x * 2.0
            i += 1
        return x

    assert float(power(_scalar(1.0))) == 1024.0
    assert "While" not in _op_types(power, dg.TensorSpec([], F64))


def test_break_and_continue_in_tensor_loops():
    @dg.function
    def f(limit):
        i = 0
        total = 0
        while i < limit:
            i += 1
            if dg.equal(i % 3, 0):
                continue
            if total > 20:
                break
            total += i
        return i, total

    # i: 1 2 (3 skipped) 4 5 (6) 7 8: total 1+2+4+5+7+8 = 27 > 20 at i = 10 -> break
    i, total = f(dg.constant(100))
    assert (int(i), int(total)) == (10, 27)
    i, total = f(dg.constant(4))
    assert (int(i), int(total)) == (4, 7)


def test_break_in_python_for_over_range():
    @dg.function
    def f(x):
        for i in range(10):
            if i == 3:
                break
            x = x + 1.0
        return x

    assert float(f(_scalar(0.0))) == 3.0


def test_loop_else_runs_when_no_break():
    @dg.function
    def f(n):
        found = -1
        for i in dg.range(n):
            if dg.equal(i * i, 16):
                found = i
                break
        else:
            found = -2
        return found

    assert int(f(dg.constant(10))) == 4
    assert int(f(dg.constant(3))) == -2


# -- for ---------------------------------------------------------------------------------
def test_for_over_range_with_n_known_only_at_run_time():
    @dg.function(input_signature=[dg.TensorSpec([], dg.int32)])
    def triangular(n):
        total = 0
        for i in dg.range(n):
            total += i
        return total

    assert [int(triangular(n)) for n in (0, 1, 5, 10)] == [0, 0, 10, 45]
    assert triangular.experimental_get_tracing_count() == 1


def test_for_over_range_with_placeholder_in_a_graph():
    def triangular(n):
        total = 0
        for i in dg.range(2, n, 3):
            total += i
        return total

    converted = dg.autograph.to_graph(triangular)
    with dg.Graph().as_default():
        n = dg.placeholder(dg.int32, [])
        total = converted(n)
        with dg.Session() as sess:
            assert sess.run(total, {n: 12}) == 2 + 5 + 8 + 11
            assert sess.run(total, {n: 2}) == 0


def test_for_over_the_rows_of_a_tensor_and_a_tensor_array():
    @dg.function
    def row_sums(m):
        ta = dg.TensorArray(F64, size=0, dynamic_size=True)
        k = 0
        for row in m:
            ta = ta.write(k, dg.reduce_sum(row))
            k += 1
        total = dg.constant(0.0, F64)
        for s in ta:
            total += s
        return ta.stack(), total

    m = np.arange(12.0).reshape(4, 3)
    sums, total = row_sums(dg.constant(m))
    np.testing.assert_allclose(sums.numpy(), m.sum(axis=1))
    assert float(total) == m.sum()
    assert "While" in _op_types(row_sums, dg.TensorSpec([None, 3], F64))


def test_for_over_a_python_list_of_tensors_is_unrolled():
    @dg.function
    def f(a, b):
        total = 0.0
        for t in [a, b, a]:
            total += t
        return total

    assert float(f(_scalar(1.0), _scalar(10.0))) == 12.0


def test_loop_target_and_loop_locals_after_the_loop():
    @dg.function
    def f(n):
        s = 0
        for i in dg.range(n):
            s += i
            last = i * 10
        return s, i, last

    s, i, last = f(dg.constant(3))
    assert (int(s), int(i), int(last)) == (3, 2, 20)


# -- return --------------------------------------------------------------------------------
def test_return_in_branches():
    @dg.function
    def abs_value(x):
        if x > 0:
            return x
        return -x

    assert float(abs_value(_scalar(-2.0))) == 2.0
    assert float(abs_value(_scalar(5.0))) == 5.0

    @dg.function
    def classify(x):
        if x > 10:
            return 2
        elif x > 0:
            return 1
        else:
            return 0

    assert [int(classify(_scalar(v))) for v in (20.0, 5.0, -1.0)] == [2, 1, 0]


def test_return_in_python_loop():
    @dg.function
    def first_index(x, values):
        for i, v in enumerate(values):
            if v > 2:
                return x * i
        return x * 0

    assert float(first_index(_scalar(3.0), [1, 2, 5, 7])) == 6.0


def test_return_missing_from_one_tensor_branch_raises():
    # TF 2.21: ValueError "the else branch must also have a return statement."
    @dg.function
    def f(x):
        if x > 0:
            return x

    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        f(_scalar(1.0))


def test_return_inside_tensor_loop_is_not_implemented():
    # TF 2.21: NotImplementedError "a return statement cannot be placed inside this
    # TensorFlow loop; ..."
    @dg.function
    def f(x):
        for i in dg.range(10):
            if i > x:
                return i
        return -1

    with pytest.raises(NotImplementedError, match="return statement cannot be placed"):
        f(dg.constant(3))


# -- nested -------------------------------------------------------------------------------
def test_nested_loops_and_conditions():
    @dg.function
    def count_pairs(n):
        count = 0
        for i in dg.range(n):
            j = 0
            while j < i:
                if dg.equal((i + j) % 2, 0):
                    count += 1
                j += 1
        return count

    expected = sum(1 for i in range(6) for j in range(i) if (i + j) % 2 == 0)
    assert int(count_pairs(dg.constant(6))) == expected


# -- boolean operators and conditional expressions --------------------------------------
def test_and_or_not_and_ternary_on_tensors():
    @dg.function
    def f(x):
        inside = x > 0 and x < 5
        outside = x < -10 or x > 10
        return inside, outside, not inside, (1.0 if inside else -1.0)

    values = [tuple(v.numpy().item() for v in f(_scalar(x))) for x in (3.0, 20.0)]
    assert values == [(True, False, False, 1.0), (False, True, True, -1.0)]


def test_python_and_or_keep_python_semantics():
    @dg.function
    def f(x, flag, items):
        if flag and items:
            x = x + len(items)
        return x

    assert float(f(_scalar(1.0), True, [1, 2])) == 3.0
    assert float(f(_scalar(1.0), True, [])) == 1.0


# -- errors (classes and messages from TF 2.21) -----------------------------------------
def test_undefined_in_one_branch():
    @dg.function
    def only_main(x):
        if x > 0:
            y = x
        return y

    @dg.function
    def only_else(x):
        if x > 0:
            pass
        else:
            y = x
        return y

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        only_main(_scalar(1.0))
    with pytest.raises(ValueError, match="'y' must also be initialized in the main branch"):
        only_else(_scalar(1.0))


def test_branches_disagreeing_in_dtype_structure_or_none():
    @dg.function
    def dtypes_differ(x):
        if x > 0:
            y = x
        else:
            y = dg.constant(1, dg.int32)
        return y

    @dg.function
    def python_values_differ(x):
        if x > 0:
            z = 1
        else:
            z = 2.5
        return z

    @dg.function
    def structures_differ(x):
        if x > 0:
            y = (x, x)
        else:
            y = x
        return y

    @dg.function
    def none_in_main(x):
        if x > 0:
            y = None
        else:
            y = x
        return y

    x = dg.constant(1.0)
    with pytest.raises(TypeError, match="'y' has dtype float32 in the main branch, but dtype "
                                        "int32 in the else branch"):
        dtypes_differ(x)
    with pytest.raises(TypeError, match="'z' has dtype int32 in the main branch, but dtype "
                                        "float32 in the else branch"):
        python_values_differ(x)
    with pytest.raises(TypeError, match="'y' must have the same nested structure in the main "
                                        "and else branches"):
        structures_differ(x)
    with pytest.raises(ValueError, match="'y' is None at the end of the main branch"):
        none_in_main(x)


def test_loop_variables_changing_dtype_or_shape():
    @dg.function
    def dtype_changes(x):
        while x > 0:
            x = dg.constant(1, dg.int32)
        return x

    @dg.function
    def shape_changes(x):
        y = dg.constant([1.0])
        while x > 0:
            y = dg.concat([y, y], 0)
            x -= 1
        return y

    with pytest.raises(TypeError, match="'x' has dtype float32 before the loop, but dtype "
                                        "int32 after one iteration"):
        dtype_changes(dg.constant(1.0))
    with pytest.raises(ValueError, match=r"'y' has shape \(1,\) before the loop, but shape "
                                         r"\(2,\) after one iteration"):
        shape_changes(dg.constant(1.0))


def test_loop_variable_first_defined_in_the_loop():
    @dg.function
    def defined_in_body(x):
        while x > 0:
            y = x
            x = x - 1
        return y

    @dg.function
    def read_before_defined(x):
        while x > 0:
            y = y + x  # noqa: F821 (read before any assignment, on purpose)
            x = x - 1
        return y

    assert float(defined_in_body(dg.constant(3.0))) == 1.0
    with pytest.raises(ValueError, match="'y' must be defined before the loop\nNote: AutoGraph "
                                         "tried to define it automatically, but ran into a "
                                         "UnboundLocalError"):
        read_before_defined(dg.constant(2.0))


def test_reading_a_variable_a_python_branch_left_unassigned():
    @dg.function
    def f(x, flag):
        if flag:
            y = x
        return y

    with pytest.raises(UnboundLocalError, match="'y' is used before assignment"):
        f(_scalar(1.0), False)


def test_without_autograph_a_tensor_condition_is_an_error():
    def f(x):
        if x > 0:
            x = -x
        return x

    with pytest.raises(TypeError, match="as a Python bool"):
        dg.function(f, autograph=False)(_scalar(1.0))
    assert float(dg.function(f)(_scalar(1.0))) == -1.0


def test_traceback_points_at_the_users_line():
    def f(x):
        if dg.reduce_sum(x) > 0:
            y = dg.reshape(x, [7])  # the failing line
        else:
            y = x
        return y

    failing_line = f.__code__.co_firstlineno + 2
    with pytest.raises(ValueError) as info:
        dg.function(f)(dg.constant([1.0, 2.0]))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(fr.filename == __file__ and fr.lineno == failing_line for fr in frames), frames
    # the frame of `f` itself is at the `if` statement
    assert any(fr.filename == __file__ and fr.lineno == failing_line - 1 and fr.name == "f"
               for fr in frames), frames
    assert any("dg.reshape(x, [7])" in (fr.line or "") for fr in frames)


# -- gradients through converted code in the three settings --------------------------------
def _program(x, n):
    y = x
    for _ in dg.range(n):
        if dg.reduce_sum(y) > 1.0:
            y = y * 0.5 + dg.sin(x)
        else:
            y = y * x
    return dg.reduce_sum(y * y)


def _program_np(x, n):
    y = x.copy()
    for _ in range(n):
        y = y * 0.5 + np.sin(x) if y.sum() > 1.0 else y * x
    return float((y * y).sum())


def _numeric_gradient(x, n, eps=1e-6):
    grad = np.zeros_like(x)
    for k in range(x.size):
        step = np.zeros_like(x)
        step[k] = eps
        grad[k] = (_program_np(x + step, n) - _program_np(x - step, n)) / (2 * eps)
    return grad


X0 = np.array([0.3, 0.9])


def test_gradient_eager_tape_over_a_converted_function():
    f = dg.function(_program)
    x = dg.constant(X0)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = f(x, dg.constant(4))
    assert float(y) == pytest.approx(_program_np(X0, 4), rel=1e-12)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _numeric_gradient(X0, 4), rtol=1e-6)


def test_gradient_in_a_graph_calling_a_converted_function():
    f = dg.function(_program)
    with dg.Graph().as_default():
        x = dg.placeholder(F64, [2])
        n = dg.placeholder(dg.int32, [])
        y = f(x, n)
        (dx,) = dg.gradients(y, [x])
        with dg.Session() as sess:
            for steps in (0, 3):
                value, grad = sess.run([y, dx], {x: X0, n: steps})
                assert value == pytest.approx(_program_np(X0, steps), rel=1e-12)
                np.testing.assert_allclose(grad, _numeric_gradient(X0, steps), rtol=1e-6)


def test_gradient_from_a_tape_inside_a_converted_function():
    @dg.function
    def value_and_grad(x, n):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = _program(x, n)
        return y, tape.gradient(y, x)

    y, dx = value_and_grad(dg.constant(X0), dg.constant(5))
    assert float(y) == pytest.approx(_program_np(X0, 5), rel=1e-12)
    np.testing.assert_allclose(dx.numpy(), _numeric_gradient(X0, 5), rtol=1e-6)


# -- what gets converted: called functions, closures, globals, methods ---------------------
SCALE = 3.0


def _helper_with_tensor_if(x):
    if x > 0:
        return x * SCALE
    return x


def test_called_user_functions_are_converted_recursively():
    @dg.function
    def f(x):
        return _helper_with_tensor_if(x) + dg.abs(x)

    assert float(f(_scalar(2.0))) == 8.0
    assert float(f(_scalar(-2.0))) == 0.0


def test_closures_defaults_and_nested_functions():
    offset = dg.constant(10.0, F64)

    def outer(x, times=3):
        def step(v):
            if v > 15.0:
                v = v - offset
            return v + 1.0

        for _ in range(times):
            x = step(x + offset)
        return x

    f = dg.function(outer)
    # 1 -> 12 -> 23-10=13+1=14... computed in Python with the same rule:
    v = 1.0
    for _ in range(3):
        v = v + 10.0
        v = (v - 10.0 if v > 15.0 else v) + 1.0
    assert float(f(_scalar(1.0))) == v
    assert float(f(_scalar(1.0), times=1)) == 12.0


def test_globals_stay_live():
    global SCALE
    f = dg.function(_helper_with_tensor_if)
    assert float(f(_scalar(2.0))) == 6.0
    old, SCALE = SCALE, 5.0
    try:
        g = dg.function(_helper_with_tensor_if)  # a new trace reads the new global
        assert float(g(_scalar(2.0))) == 10.0
    finally:
        SCALE = old


class _Base:
    def describe(self, x):
        return x


class _Counter(_Base):
    def __init__(self, limit):
        self.limit = limit

    @dg.function
    def count_up(self, x):
        steps = 0
        while x < self.limit:
            x = x + 1.0
            steps += 1
        return super().describe(steps)


def test_methods_with_self_decorator_and_super():
    counter = _Counter(dg.constant(5.0, F64))
    assert int(counter.count_up(_scalar(1.5))) == 4


def test_conversion_is_cached_per_code_object():
    def f(x):
        if x > 0:
            x = -x
        return x

    first, second = dg.autograph.to_graph(f), dg.autograph.to_graph(f)
    assert first is not f and first.__code__ is second.__code__


def test_library_code_and_do_not_convert_run_as_is():
    assert dg.autograph.to_graph(dg.reduce_sum) is dg.reduce_sum
    assert dg.autograph.to_graph(np.sum) is np.sum

    @dg.autograph.experimental.do_not_convert
    def python_only(x):
        if x > 0:
            x = -x
        return x

    assert dg.autograph.to_graph(python_only) is python_only
    with pytest.raises(TypeError, match="as a Python bool"):
        dg.function(python_only)(_scalar(1.0))


def test_converted_code_runs_eagerly_as_python():
    f = dg.autograph.to_graph(_program)
    assert float(f(dg.constant(X0), dg.constant(3))) == pytest.approx(_program_np(X0, 3))


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


@_logged
def _wrapped_user_function(x):
    if x > 0:
        x = x * 10.0
    return x


def test_wrapped_functions_convert_their_own_code():
    # functools.wraps copies __module__, __name__ and __wrapped__: conversion must read the
    # wrapper's own source and the wrapped function is converted when the wrapper calls it
    assert float(dg.function(_wrapped_user_function)(_scalar(2.0))) == 20.0


def test_functions_without_source_run_unconverted():
    namespace = {}
    exec("def no_source(x, flag):\n    if flag:\n        x = x + 1.0\n    return x\n", namespace)
    f = dg.function(namespace["no_source"])
    assert float(f(_scalar(1.0), True)) == 2.0  # Python conditions still work


def test_loop_variable_first_defined_in_the_loop_needs_one_iteration():
    # TF 2.21: InvalidArgumentError "... loop must iterate at least once to initialize y"
    @dg.function
    def f(x):
        while x > 0:
            y = x
            x = x - 1
        return y

    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="loop must iterate at least once to initialize y"):
        f(dg.constant(-1.0))


def test_nested_function_with_nonlocal_and_lambdas_in_a_tensor_loop():
    @dg.function
    def f(n):
        calls = 0

        def bump(v):
            nonlocal calls
            calls += 1  # runs while tracing: once for the loop body
            return v + 1

        total = dg.constant(0)
        for i in dg.range(n):
            scale = lambda t: t * 2  # noqa: E731
            total = bump(total) + scale(i)
        return total, calls

    total, calls = f(dg.constant(4))
    assert int(total) == 4 + 2 * (0 + 1 + 2 + 3) and calls == 1


def _body_with_tensor_if(i, v):
    if v > 10.0:
        v = v - 10.0
    return i + 1, v * 3.0


def test_functions_given_to_cond_and_while_loop_are_converted():
    @dg.function
    def f(x):
        _, v = dg.while_loop(lambda i, v: i < 3, _body_with_tensor_if, (0, x))
        return v

    v = 2.0
    for _ in range(3):
        v = (v - 10.0 if v > 10.0 else v) * 3.0
    assert float(f(_scalar(2.0))) == v


def test_to_code_shows_the_conversion():
    def f(x):
        if x > 0:
            x = -x
        return x

    code = dg.autograph.to_code(f)
    assert "ag__.if_stmt(" in code and "nonlocal x" in code
    with pytest.raises(ValueError, match="does not convert"):
        dg.autograph.to_code(dg.reduce_sum)


# -- reference checks: a converted function gives what plain Python gives eagerly ---------
# (the approach of TF's autograph/tests/reference_test_base: same program, both ways)
def _count_up(n):
    k = 0
    while k < n:
        k = k * 3 + 1
    return k


def _digits(n):
    total, k = 0, 0
    while k < n:
        total = total * 10 + k
        k += 1
    return total


def _fold(items):
    total = 0
    for item in items:
        total = total * 10 + item
    return total


def _last_item(items):
    last = 0
    for last in items:  # noqa: B007 (the loop variable outlives the loop)
        pass
    return last


def _two_loops(n1, n2):
    total, k = 0, 0
    while k < n1:
        total = total * 10 + k
        k += 1
    k = 0
    while k < n2:
        total = total * 10 + k
        k += 1
    return total


def _grid(n1, n2):
    rows = dg.TensorArray(dg.int32, size=0, dynamic_size=True, element_shape=())
    i = 0
    while i < n1:
        j, total = 0, 0
        while j < n2:
            total = total * 10 + i * j
            j += 1
        rows = rows.write(i, total)
        i += 1
    return rows.stack()


def _row_folds(matrix):
    out = dg.TensorArray(dg.int32, size=0, dynamic_size=True, element_shape=())
    for row in matrix:
        total = 0
        for item in row:
            total = total * 10 + item
        out = out.write(out.size(), total)
    return out.stack()


def _early_exit(n, stop):
    total = 0
    for k in dg.range(n):
        if k > stop:
            break
        if dg.equal(k % 2, 1):
            continue
        total += k
    return total


def _int(v):
    return dg.constant(v, dg.int32)


REFERENCE_CASES = [
    (_count_up, (n,)) for n in (0, 1, 2, 50)] + [
    (_digits, (n,)) for n in (0, 1, 3)] + [
    (_fold, (items,)) for items in ([1], [1, 2], [3, 1, 4])] + [
    (_last_item, (items,)) for items in ([5], [1, 2])] + [
    (_two_loops, (a, b)) for a in (0, 2) for b in (0, 3)] + [
    (_grid, (a, b)) for a in (1, 3) for b in (0, 2)] + [
    (_row_folds, (m,)) for m in ([[1]], [[1, 2], [3, 4]], [[1, 2, 3]])] + [
    (_early_exit, (n, s)) for n in (0, 5, 12) for s in (3, 100)]


@pytest.mark.parametrize("fn, args", REFERENCE_CASES,
                         ids=[f"{fn.__name__}{args}" for fn, args in REFERENCE_CASES])
def test_converted_function_matches_eager_python(fn, args):
    tensors = [_int(a) for a in args]
    expected = np.asarray(fn(*tensors))            # plain Python on eager tensors
    staged = np.asarray(dg.function(fn)(*tensors))  # converted, loops as While ops
    np.testing.assert_array_equal(staged, expected)
    if fn not in (_fold, _last_item, _row_folds):
        np.testing.assert_array_equal(np.asarray(dg.function(fn)(*args)), expected)  # Python ints


def _nested_returns(x):
    if x > 0:
        if x < 5:
            return x
        else:
            return x * x
    else:
        return x * x * x


def _return_in_with(x):
    with dg.name_scope("outer"):
        if x > 0:
            with dg.name_scope("inner"):
                return x * 2
        return x - 1


def _return_in_try_finally(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


def _raising():
    raise KeyError("no")


def _return_raising_caught(x):
    if x > 100:
        return 2
    try:
        return _raising()
    except KeyError:
        pass
    return 1


def _return_then_loop(x, n):
    if x > 3:
        return x
    for _ in range(n):
        x = x + 1
    return x


RETURN_CASES = [(fn, (v,)) for fn in (_nested_returns, _return_in_with, _return_in_try_finally,
                                      _return_raising_caught) for v in (-2, 3, 7)] + [
    (_return_then_loop, (v, 2)) for v in (1, 5)]


@pytest.mark.parametrize("fn, args", RETURN_CASES,
                         ids=[f"{fn.__name__}{args}" for fn, args in RETURN_CASES])
def test_early_returns_match_eager_python(fn, args):
    expected = np.asarray(fn(*[_int(a) for a in args]))
    np.testing.assert_array_equal(np.asarray(dg.function(fn)(*[_int(a) for a in args])),
                                  expected)
    np.testing.assert_array_equal(np.asarray(dg.function(fn)(*args)), expected)


def test_return_possibly_undefined():
    def f(x):
        if x > 0:
            if x < 5:
                return x
        else:
            return x * x * x

    assert dg.function(f)(3) == 3 and dg.function(f)(7) is None  # Python: None
    with pytest.raises(ValueError, match="else branch must also have a return"):
        dg.function(f)(_int(3))


# -- composite symbols: attributes and constant subscripts are state like variables ---------
def _dict_branch(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x


def _list_loop(n, a):
    y = [a, 0]
    while n > 0:
        n -= 1
        y[0] += 1
        y[1] = y[1] * 2 + 1
    return y


def _dict_for(n, a):
    acc = {"total": a}
    for i in dg.range(n):
        acc["total"] += i
        acc["last"] = i
    return acc


class _Accumulator:
    def __init__(self):
        self.total = 0

    def add_until(self, n):
        k = 0
        while k < n:
            self.total = self.total + k
            k += 1
        return self.total


COMPOSITE_CASES = [(_dict_branch, (v,)) for v in (-1, 1)] + [
    (_list_loop, (n, 5)) for n in (0, 3)] + [(_dict_for, (n, 10)) for n in (1, 4)]


@pytest.mark.parametrize("fn, args", COMPOSITE_CASES,
                         ids=[f"{fn.__name__}{args}" for fn, args in COMPOSITE_CASES])
def test_composite_symbols_match_eager_python(fn, args):
    expected = fn(*[_int(a) for a in args])
    staged = dg.function(fn)(*[_int(a) for a in args])
    assert dg.nest.map_structure(lambda t: np.asarray(t).item(), staged) == \
        dg.nest.map_structure(lambda t: np.asarray(t).item(), expected)


def test_attribute_state_in_a_tensor_loop():
    acc = _Accumulator()
    assert int(dg.function(acc.add_until)(_int(5))) == 10


def test_composite_symbol_errors_name_the_symbol():
    # TF 2.21: ValueError "'x['b']' must also be initialized in the else branch" and
    # InvalidArgumentError "loop must iterate at least once to initialize y['a']"
    def one_branch(a):
        x = {"a": a}
        if x["a"] > 0:
            x["b"] = 1
        return x

    def first_set_in_loop(b):
        y = {"b": b}
        while y["b"] <= 10:
            y["a"] = y["b"] + 1
            y["b"] *= 2
        return y

    with pytest.raises(ValueError, match=r"'x\['b'\]' must also be initialized in the else"):
        dg.function(one_branch)(_int(1))
    assert dg.function(one_branch)(1)["b"] == 1  # a Python condition: plain Python
    out = dg.function(first_set_in_loop)(_int(3))
    assert (int(out["a"]), int(out["b"])) == (7, 12)
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match=r"loop must iterate at least once to initialize y\['a'\]"):
        dg.function(first_set_in_loop)(_int(11))


def test_lambdas_are_converted():
    sign = dg.function(lambda x: 1.0 if x > 0 else -1.0)
    assert float(sign(_scalar(3.0))) == 1.0 and float(sign(_scalar(-3.0))) == -1.0
    both = dg.function(lambda x, y: x > 0 and y > 0)
    assert not bool(both(_scalar(1.0), _scalar(-1.0)))
    spread = dg.function(
        lambda x: (
            x * 2.0 if x > 0
            else x * 3.0))
    assert float(spread(_scalar(-2.0))) == -6.0

    @dg.function
    def f(x):  # two lambdas on one line: each is found by its own code positions
        return dg.cond(x > 0, lambda: _helper_with_tensor_if(x * 3.0), lambda: x - 1.0)

    assert float(f(_scalar(2.0))) == 2.0 * 3.0 * SCALE
    assert float(f(_scalar(-2.0))) == -3.0


def test_assert_statements():
    @dg.function
    def checked(x, limit):
        assert limit > 0, "limit must be positive"  # a Python value: Python's assert
        assert x < limit, "x is too large"  # a tensor: an Assert op
        return x * 2.0

    graph = checked.get_concrete_function(dg.TensorSpec([], F64), 3).graph
    asserts = [op for op in graph.get_operations() if op.type == "Assert"]
    assert len(asserts) == 1
    with pytest.raises(AssertionError, match="limit must be positive"):
        checked(_scalar(1.0), -1)
    with pytest.raises(AssertionError, match="x is too large"):  # eagerly: Python's assert
        dg.autograph.to_graph(checked.python_function)(_scalar(5.0), 3)
    assert float(checked(_scalar(1.0), 3)) == 2.0
    with pytest.raises(dg.errors.InvalidArgumentError, match=r"assertion failed: \[x is too "
                                                             r"large\]"):
        checked(_scalar(5.0), 3)  # the Assert op runs with the function's side effects


def _clip_row(row):
    if dg.reduce_sum(row) > 1.0:
        row = row / dg.reduce_sum(row)
    return row


def test_functions_given_to_map_fn_are_converted():
    m = np.array([[0.2, 0.3], [2.0, 2.0], [1.0, 3.0]])

    @dg.function
    def normalize(x):
        return dg.map_fn(_clip_row, x)

    expected = np.array([r / r.sum() if r.sum() > 1.0 else r for r in m])
    np.testing.assert_allclose(normalize(dg.constant(m)).numpy(), expected)


def test_set_loop_options_shape_invariants_and_maximum_iterations():
    @dg.function
    def doubling(x, n):
        y = dg.constant([1.0])
        for _ in dg.range(n):
            dg.autograph.experimental.set_loop_options(
                shape_invariants=[(y, dg.TensorShape([None]))])
            y = dg.concat([y, y * x], 0)
        return y

    np.testing.assert_allclose(doubling(dg.constant(2.0), dg.constant(2)).numpy(),
                               [1.0, 2.0, 2.0, 4.0])

    @dg.function
    def capped(x):
        while x < 100.0:
            dg.autograph.experimental.set_loop_options(maximum_iterations=3)
            x = x * 2.0
        return x

    assert float(capped(dg.constant(1.0))) == 8.0


def test_builtins_with_tensor_meaning():
    @dg.function
    def f(x, m):
        total = 0.0
        for i in range(len(m)):  # len: the static first dimension; range of a Python int
            total += float(int(x * 10.0)) + dg.reduce_sum(m[i])
        return total, len(m), int("7"), float("0.5")

    total, n, seven, half = f(_scalar(0.25), dg.ones([3, 2]))
    assert float(total) == 3 * (2.0 + 2.0) and (n, seven, half) == (3, 7, 0.5)

    @dg.function(input_signature=[dg.TensorSpec([None], dg.float32)])
    def count(v):
        k = 0
        for _ in range(len(v)):  # unknown length: dg.shape(v)[0] and a dg.range loop
            k += 1
        return k

    assert int(count(dg.ones([5]))) == 5


def test_branch_shapes_may_differ_and_mixed_boolean_operands():
    # TF 2.21: the output of a cond whose branches give shapes () and (2,) has unknown shape;
    # `x > 0 or 5` on a tensor is a cond of a bool and an int32 branch: TypeError
    @dg.function
    def scalar_or_pair(x):
        if x > 0:
            y = x
        else:
            y = dg.constant([1.0, 2.0])
        return y

    assert scalar_or_pair(dg.constant(1.0)).shape == []
    np.testing.assert_array_equal(scalar_or_pair(dg.constant(-1.0)).numpy(), [1.0, 2.0])

    with pytest.raises(TypeError):
        dg.function(lambda x: x > 0 or 5)(dg.constant(3))
