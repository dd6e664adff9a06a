"""dg.function's tracing rules as TF 2.21's: concrete functions bind non-tensor
arguments and check dtypes, a more general trace serves a specific call,
reduce_retracing, input_signature conversion and errors, leaked graph tensors,
run_functions_eagerly."""
import numpy as np
import pytest

import duograd as dg


def test_concrete_function_binds_non_tensor_arguments_and_checks_dtypes():
    @dg.function
    def f(a, b):
        return a * b

    concrete = f.get_concrete_function(a=dg.TensorSpec([None], dg.float32), b=2)
    np.testing.assert_allclose(concrete(dg.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(concrete(dg.constant([1.0]), b=2).numpy(), [2.0])
    with pytest.raises(TypeError):            # TF 2.21: TypeError "Can not cast 3 to Literal[2]"
        concrete(dg.constant([1.0]), b=3)
    # TF 2.21: InvalidArgumentError "cannot compute __inference_g as input #0(zero-based)
    # was expected to be a float tensor but is a int32 tensor"
    with pytest.raises(dg.errors.InvalidArgumentError, match="input #0"):
        concrete(dg.constant([1, 2]))
    assert f.experimental_get_tracing_count() == 1


def test_a_more_general_trace_serves_a_specific_call():
    @dg.function
    def f(x):
        return x + 1.0

    f.get_concrete_function(dg.TensorSpec([None], dg.float32))
    np.testing.assert_allclose(f(dg.constant([1.0, 2.0, 3.0])).numpy(), [2.0, 3.0, 4.0])
    np.testing.assert_allclose(f(dg.constant([5.0])).numpy(), [6.0])
    assert f.experimental_get_tracing_count() == 1   # TF 2.21: 1
    f(dg.constant([[1.0]]))                          # another rank: a new trace
    assert f.experimental_get_tracing_count() == 2


def test_reduce_retracing_relaxes_shapes_after_a_retrace():
    @dg.function(reduce_retracing=True)
    def f(x):
        return x + 1.0

    for n in (1, 2, 3, 4):
        np.testing.assert_allclose(f(dg.ones([n])).numpy(), 2 * np.ones(n))
    # TF 2.21: 2 traces, of shapes (1,) and (None,)
    assert f.experimental_get_tracing_count() == 2
    shapes = [f.get_concrete_function(dg.ones([n])).inputs[0].shape.as_list() for n in (1, 7)]
    assert shapes == [[1], [None]]
    assert f.experimental_get_tracing_count() == 2


def test_without_reduce_retracing_each_shape_traces():
    @dg.function
    def f(x):
        return x + 1.0

    for n in (1, 2, 3):
        f(dg.ones([n]))
    assert f.experimental_get_tracing_count() == 3


def test_input_signature_converts_lists_and_raises_type_error_on_mismatch():
    @dg.function(input_signature=[dg.TensorSpec([None], dg.float32)])
    def f(x):
        return x * 2.0

    np.testing.assert_allclose(f([1.0, 2.0]).numpy(), [2.0, 4.0])   # TF 2.21: converts
    np.testing.assert_allclose(f([1, 2]).numpy(), [2.0, 4.0])       # to the spec's dtype
    with pytest.raises(TypeError, match="cast"):                    # rank mismatch
        f(dg.ones([2, 2]))
    with pytest.raises(TypeError, match="cast"):                    # dtype mismatch
        f(dg.constant([1, 2]))
    assert f.experimental_get_tracing_count() == 1


def test_graph_tensors_leaked_out_of_a_function_raise_tf_exceptions():
    leaked = []

    @dg.function
    def f(x):
        leaked.append(x * 2.0)
        return x

    f(dg.constant(1.0))
    with pytest.raises(AttributeError):   # TF 2.21: 'SymbolicTensor' has no attribute 'numpy'
        leaked[0].numpy()
    with pytest.raises(TypeError, match="out of scope"):   # TF 2.21: TypeError, out of scope
        leaked[0] + 1.0
    with pytest.raises(TypeError, match="out of scope"):
        dg.sin(leaked[0])


def test_run_functions_eagerly_runs_the_python_function():
    seen = []

    @dg.function
    def f(x):
        seen.append(dg.executing_eagerly())
        return x * 2.0

    assert dg.config.functions_run_eagerly() is False   # TF 2.21's default
    dg.config.run_functions_eagerly(True)
    try:
        assert f(dg.constant(2.0)).numpy() == 4.0
        assert dg.config.functions_run_eagerly() is True
    finally:
        dg.config.run_functions_eagerly(False)
    assert f(dg.constant(2.0)).numpy() == 4.0
    assert seen == [True, False]
    assert f.experimental_get_tracing_count() == 1


def test_calls_in_graph_mode_and_functions_inside_functions_bind_the_same_way():
    @dg.function
    def inner(x, scale=2.0):
        return x * scale

    @dg.function
    def outer(x):
        return inner(x) + inner(x, scale=3.0)

    assert outer(dg.constant(1.0)).numpy() == 5.0
    graph = dg.Graph()
    with graph.as_default():
        out = outer(dg.constant(2.0))
        with dg.Session() as sess:
            assert sess.run(out) == 10.0


def _flat(structure):
    """A helper with an annotated local reassigned in a loop (AutoGraph cannot convert it)."""
    if not isinstance(structure, (list, tuple)):
        return [structure]
    out: list = []
    for child in structure:
        out.extend(_flat(child))
    return out


def test_a_helper_autograph_cannot_convert_runs_as_is():
    """TF 2.21: "AutoGraph could not transform ... and will run it as-is"."""
    @dg.function
    def f(x):
        return _flat([x, [x * 3.0]])[1] * 2.0

    assert f(dg.constant(1.0)).numpy() == 6.0


def test_repeated_eager_tensor_calls_reuse_the_trace_the_full_lookup_chose():
    """Calls with only eager tensors take a per-(dtype, shape) shortcut; it must pick the
    trace the full argument lookup would. Tracing counts recorded from TF 2.21."""
    @dg.function
    def scaled(x, k=2.0):
        return x * k

    a = dg.constant([1.0, 2.0])
    calls = [((a,), [2.0, 4.0]), ((a,), [2.0, 4.0]), ((a, 3.0), [3.0, 6.0]),
             ((dg.constant([1.0, 2.0, 3.0]),), [2.0, 4.0, 6.0]),
             ((dg.constant([1.0, 2.0], dtype=dg.float32),), [2.0, 4.0]),
             ((dg.constant([4.0, 5.0]),), [8.0, 10.0]),
             ((dg.constant([5.0, 6.0, 7.0, 8.0]),), [10.0, 12.0, 14.0, 16.0]),
             ((dg.constant([1.0, 2.0], dtype=dg.float64),), [2.0, 4.0])]
    counts = []
    for args, expected in calls:
        assert scaled(*args).numpy().tolist() == expected
        counts.append(scaled.experimental_get_tracing_count())
    assert counts == [1, 1, 2, 3, 3, 3, 4, 5]  # TF 2.21

    @dg.function
    def add(x, y):
        return x + y

    assert add(a, a).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match="int32"):
        add(a, dg.constant([1, 2]))   # TF 2.21: TypeError from AddV2 while tracing
