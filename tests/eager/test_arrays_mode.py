"""The arrays mode of the backward loop runs each op's adjoint program: its registered gradient
function traced once per signature (eager/adjoint_programs.py). It must agree with
the tensors mode for every op that takes it."""
from __future__ import annotations


import numpy as np
import pytest

import duograd as dg
import op_tables
from duograd.eager import backprop
from duograd.eager.adjoint_programs import UNSUPPORTED, cached_programs
from duograd.eager.tape import BinaryRecord, Tape, UnaryRecord, entry_view
from duograd.ops.math import math_ops, reduction_ops
from duograd.ops.array.indexed_slices_ops import GATHER


def _rows():
    return [spec for spec in op_tables.all_rows() if spec.order]


ROWS = _rows()
# Rows whose every op must take the fast path (the eager workloads' ops and their kin).
MUST_BE_FAST = {"add", "subtract", "multiply", "divide", "negative", "sin", "cos", "tanh",
                "exp", "log", "square", "sigmoid", "reduce_sum", "reduce_mean", "add_n",
                "matmul", "nn.relu", "nn.softmax", "nn.bias_add", "reshape", "transpose",
                "maximum", "nn.softmax_cross_entropy"}


@pytest.fixture
def arrays_calls(monkeypatch):
    """Results of the arrays mode as GradientTape.gradient uses it (None: fell back)."""
    calls = []
    real = backprop.array_gradients

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append(result)
        return result
    monkeypatch.setattr(backprop, "array_gradients", spy)
    return calls


def test_the_workloads_ops_have_rows():
    assert MUST_BE_FAST <= {spec.name for spec in ROWS}, sorted(MUST_BE_FAST - {
        spec.name for spec in ROWS})


def _gradients(spec, args, seeds, general: bool):
    """tape.gradient of the row's outputs w.r.t. every float/complex arg; the general
    pass is forced by an enclosing tape that records (nothing it watches)."""
    xs = [dg.constant(a) for a in args]
    sources = [x for x in xs if x.dtype.is_differentiable]
    outer = dg.GradientTape() if general else None
    if outer is not None:
        outer.__enter__()
    try:
        with dg.GradientTape() as tape:
            tape.watch(sources)
            out = spec.fn(*xs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        grads = tape.gradient(outs, sources, output_gradients=[
            dg.constant(s(o)) for s, o in zip(seeds, outs)])
    finally:
        if outer is not None:
            outer.__exit__(None, None, None)
    return grads


@pytest.mark.parametrize("spec", ROWS, ids=repr)
def test_arrays_mode_agrees_with_tensors_mode(spec, arrays_calls):
    """Every differentiable op-table row: where the arrays mode runs (it may fall back, e.g.
    for IndexedSlices), it gives the tensors mode's values, dtypes, shapes and Nones."""
    rng = np.random.default_rng(3)
    args = [np.asarray(a) for a in spec.make(rng)]

    def seed(out):  # a random upstream gradient shaped like each output
        value = rng.standard_normal(out.shape.as_list())
        if out.dtype.is_complex:
            value = value + 1j * rng.standard_normal(out.shape.as_list())
        return value.astype(out.dtype.as_numpy_dtype)
    seeds = [seed] * 4
    general = _gradients(spec, args, seeds, general=True)
    assert arrays_calls == []  # an enclosing recording tape: never the arrays mode
    rng = np.random.default_rng(3)
    args = [np.asarray(a) for a in spec.make(rng)]
    raw = _gradients(spec, args, seeds, general=False)
    assert len(arrays_calls) == 1
    if arrays_calls[0] is None:
        assert spec.name not in MUST_BE_FAST, "the arrays mode fell back"
        return
    assert len(raw) == len(general)
    for r, g in zip(raw, general):
        assert (r is None) == (g is None)
        if r is None:
            continue
        assert type(r) is type(g)
        assert r.dtype == g.dtype
        assert r.shape.as_list() == g.shape.as_list()
        np.testing.assert_allclose(r.numpy(), g.numpy(), rtol=1e-12, atol=1e-14)


def test_float32_stays_float32_with_python_scalars(arrays_calls):
    x = dg.constant([0.5, -1.5, 2.0], dtype=dg.float32)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_mean(dg.sigmoid(x * 3.0 - 1.0) / (x * x + 0.5))
    g = tape.gradient(y, x)
    assert arrays_calls and arrays_calls[0] is not None
    assert g.dtype == dg.float32 and g.numpy().dtype == np.float32


def test_broadcast_inputs_are_summed_back(arrays_calls):
    a = dg.constant(np.arange(6.0).reshape(2, 3))
    b = dg.constant(np.array([1.0, 2.0, 3.0]))
    c = dg.constant(np.array([[2.0], [3.0]]))
    with dg.GradientTape() as tape:
        tape.watch([a, b, c])
        y = dg.reduce_sum((a * b - c) * (a + c))
    ga, gb, gc_ = tape.gradient(y, [a, b, c])
    assert arrays_calls and arrays_calls[0] is not None
    av, bv, cv = a.numpy(), b.numpy(), c.numpy()
    # y = sum((a b - c)(a + c)): the partial derivatives, written out by hand
    np.testing.assert_allclose(ga.numpy(), b * (av + cv) + (av * bv - cv))
    np.testing.assert_allclose(gb.numpy(), (av * (av + cv)).sum(0))
    np.testing.assert_allclose(gc_.numpy(), (-(av + cv) + (av * bv - cv)).sum(1, keepdims=True))


def test_indexed_slices_gradients_fall_back_to_the_general_pass(arrays_calls):
    params = dg.constant(np.arange(6.0).reshape(3, 2))
    with dg.GradientTape() as tape:
        tape.watch(params)
        y = dg.reduce_sum(dg.sin(dg.gather(params, [2, 0, 2])))
    g = tape.gradient(y, params)
    assert arrays_calls == [None]
    assert isinstance(g, dg.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0, 2])
    np.testing.assert_allclose(g.values.numpy(), np.cos(params.numpy()[[2, 0, 2]]))


def test_matmul_takes_the_fast_path(arrays_calls):
    x = dg.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.reduce_sum(dg.sin(dg.matmul(x, x)))
    g = tape.gradient(y, x)
    assert arrays_calls and arrays_calls[0] is not None
    xv = x.numpy()
    u = np.cos(xv @ xv)
    np.testing.assert_allclose(g.numpy(), u @ xv.T + xv.T @ u)


def test_programs_are_keyed_by_shape_attrs_and_skip(arrays_calls):
    """One op type, several signatures: each gets its own program and right values."""
    a = dg.constant(np.arange(6.0).reshape(2, 3))
    row = dg.constant(np.array([1.0, 2.0, 3.0]))
    results = []
    for other in (a, row, 2.0):
        for axis in (0, 1, None):
            with dg.GradientTape() as tape:
                tape.watch(a)
                if isinstance(other, dg.Tensor):
                    tape.watch(other)
                y = dg.reduce_sum(a * other, axis=axis)
            results.append(tape.gradient(y, a))
    assert all(r is not None for r in arrays_calls) and len(arrays_calls) == 9
    av = a.numpy()
    expected = [2 * av] * 3 + [np.tile([1.0, 2.0, 3.0], (2, 1))] * 3 + [np.full((2, 3), 2.0)] * 3
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r.numpy(), e)
    mul_keys = list(cached_programs(math_ops.MUL))
    assert len({k for k in mul_keys}) >= 3  # broadcast, same-shape, scalar operand
    sum_keys = [k for k in cached_programs(reduction_ops.SUM) if k[0] == "Sum"]
    assert len({k[2] for k in sum_keys}) >= 3  # axis 0, 1 and None are different attrs


def test_untraceable_gradients_are_remembered_as_unsupported(arrays_calls):
    params = dg.constant(np.ones((4, 2)))
    for _ in range(2):
        with dg.GradientTape() as tape:
            tape.watch(params)
            y = dg.reduce_sum(dg.gather(params, [1, 3]))
        tape.gradient(y, params)
    assert arrays_calls == [None, None]
    assert UNSUPPORTED in cached_programs(GATHER).values()


def test_unconnected_and_intermediate_sources(arrays_calls):
    x = dg.constant([1.0, 2.0])
    z = dg.constant([3.0, 4.0])
    with dg.GradientTape() as tape:
        tape.watch([x, z])
        h = dg.sin(x)
        y = dg.reduce_sum(h * h)
    gx, gz, gh = tape.gradient(y, [x, z, h])
    assert arrays_calls and arrays_calls[0] is not None
    assert gz is None
    np.testing.assert_allclose(gh.numpy(), 2 * np.sin([1.0, 2.0]))
    np.testing.assert_allclose(gx.numpy(), 2 * np.sin([1.0, 2.0]) * np.cos([1.0, 2.0]))


def test_nested_tapes_still_give_second_derivatives(arrays_calls):
    x = dg.constant(0.7, dtype=dg.float64)
    with dg.GradientTape() as outer:
        outer.watch(x)
        with dg.GradientTape() as inner:
            inner.watch(x)
            y = dg.sin(x) * x
        dy = inner.gradient(y, x)   # outer records: the tensors mode
    d2y = outer.gradient(dy, x)     # nothing else records: the arrays mode
    assert arrays_calls[0] is not None
    np.testing.assert_allclose(dy.numpy(), np.cos(0.7) * 0.7 + np.sin(0.7))
    np.testing.assert_allclose(d2y.numpy(), -np.sin(0.7) * 0.7 + 2 * np.cos(0.7))


def test_backward_errors_are_the_general_pass_errors(arrays_calls):
    x = dg.constant([1.0, 2.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y, _ = dg.unique(x)  # TF registers no gradient for Unique
        z = dg.reduce_sum(dg.sin(y))
    with pytest.raises(LookupError, match="Unique"):
        tape.gradient(z, x)
    assert arrays_calls == [None]  # the arrays mode gave up; the tensors mode raised


def test_forward_over_reverse_takes_the_general_pass(arrays_calls):
    x = dg.constant([0.3, 1.1], dtype=dg.float64)
    v = dg.constant([1.0, -2.0], dtype=dg.float64)
    with dg.autodiff.ForwardAccumulator(x, v) as acc:
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.sin(x) * x)
        g = tape.gradient(y, x)  # an accumulator is active: the tensors mode
    assert arrays_calls == []
    xv = np.array([0.3, 1.1])
    np.testing.assert_allclose(g.numpy(), np.cos(xv) * xv + np.sin(xv))
    # Hessian-vector product: d/dx (cos x * x + sin x) = 2 cos x - x sin x
    np.testing.assert_allclose(acc.jvp(g).numpy(),
                               (2 * np.cos(xv) - xv * np.sin(xv)) * [1.0, -2.0])


def test_tapes_inside_dg_function_take_the_general_pass(arrays_calls):
    @dg.function
    def grad_of(x):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = dg.reduce_sum(dg.tanh(x) * 2.0)
        return tape.gradient(y, x)
    xv = np.array([0.5, -0.25])
    np.testing.assert_allclose(grad_of(dg.constant(xv)).numpy(), 2 * (1 - np.tanh(xv) ** 2))
    assert arrays_calls == []  # traced in a graph


def test_gradient_sums_never_write_into_arrays_they_do_not_own(arrays_calls):
    """Parts of one gradient are summed in place only into the arrays mode's own sums:
    never into a seed, an aliased part (AddV2 hands one array to both inputs) or a
    value returned to the caller before."""
    xv = np.array([0.5, 2.0])
    x = dg.constant(xv)
    seed_values = np.array([1.0, -2.0])
    seed = dg.constant(seed_values)
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = x + x
        z = y * 3.0 + y + dg.sin(y) + y + y * y
    g = tape.gradient(z, x, output_gradients=seed)
    assert arrays_calls and arrays_calls[0] is not None
    np.testing.assert_array_equal(seed.numpy(), seed_values)
    dz_dy = 3.0 + 1.0 + np.cos(2 * xv) + 1.0 + 2 * (2 * xv)
    np.testing.assert_allclose(g.numpy(), 2 * dz_dy * seed_values)


def _sin_gradient(x, seed):
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = dg.sin(x)
    return tape.gradient(y, x, output_gradients=seed)


def test_a_cached_program_is_not_run_on_a_gradient_of_another_dtype(arrays_calls):
    """Sin's program cached for float64 gradients never runs on a float32 one (it would
    multiply silently): the arrays mode falls back and the tensors mode raises, as TF does."""
    x = dg.constant([0.5, 1.0, 2.0], dtype=dg.float64)
    g = _sin_gradient(x, dg.constant([1.0, 2.0, 3.0], dtype=dg.float64))
    np.testing.assert_allclose(g.numpy(), np.cos([0.5, 1.0, 2.0]) * [1.0, 2.0, 3.0])
    with pytest.raises(dg.errors.InvalidArgumentError):
        _sin_gradient(x, dg.constant([1.0, 1.0, 1.0], dtype=dg.float32))
    assert arrays_calls[0] is not None and arrays_calls[1] is None


def test_a_cached_program_is_not_run_on_a_gradient_of_another_shape(arrays_calls):
    """AddV2's program for equal shapes hands the gradient on unchanged; a gradient of
    another shape gets its own program, which sums it back to the inputs' shape as the
    tensors mode does (a stale program would return the (2, 3) gradient)."""
    x = dg.constant([0.5, 1.0, 2.0], dtype=dg.float64)

    def twice(seed):
        with dg.GradientTape() as tape:
            tape.watch(x)
            y = x + x
        return tape.gradient(y, x, output_gradients=dg.constant(seed))
    np.testing.assert_array_equal(twice(np.ones(3)).numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(twice(np.ones((2, 3))).numpy(), [4.0, 4.0, 4.0])
    assert len(arrays_calls) == 2 and None not in arrays_calls


def test_unary_and_binary_records_share_a_cell_per_signature():
    """Records of one op, watched-input pattern and signature share one cell (no shape
    tuples per record); another shape starts a new cell. A record's `inputs` and
    `outputs` give the (shape, dtype) of each value the gradient does not read."""
    x = dg.constant(np.ones(3))
    a, b = dg.sin(x), dg.sin(dg.sin(x))
    m = dg.constant(np.ones((2, 2)))
    tape = Tape()
    for value in (x, a, b, m):
        tape.watch_id(value.tensor_id)
    for value in (x, a, b, m):
        tape.record_unary(math_ops.SIN, value, dg.sin(value))
    first, second, third, fourth = tape.producers.values()
    assert type(first) is UnaryRecord
    assert first.cell is second.cell is third.cell and fourth.cell is not first.cell
    assert (first.op_def, first.gradient_name, first.input_ids, first.skip) == \
        (math_ops.SIN, "Sin", (x.tensor_id,), frozenset())
    assert first.inputs == (x,) and first.outputs == (((3,), np.dtype(np.float64)),)  # Sin reads x only
    y = dg.constant(2.0, dtype=dg.float64)
    out = x * y
    tape.record_binary(math_ops.MUL, x, y, out)  # y is not watched: skipped
    record = tape.producers[out.tensor_id]
    assert type(record) is BinaryRecord
    assert record.input_ids == (x.tensor_id, y.tensor_id)
    assert record.output_ids == (out.tensor_id,)
    assert record.skip == frozenset([1]) and record.inputs == (((3,), np.dtype(np.float64)), y)
    assert entry_view(record).inputs[0].shape.as_list() == [3]


_FLOAT32_GRADIENT = "TestRawSweepFloat32Identity"
dg.RegisterGradient(_FLOAT32_GRADIENT)(lambda op, grad: dg.cast(grad, dg.float32))


def test_a_program_that_changes_a_gradients_dtype_ends_the_trust(arrays_calls):
    """A user's gradient that casts runs as Python (the reuse rule: it is never traced
    into a program), so the arrays mode hands the tape to the tensors mode: Sin's float64
    program (cached by the first gradient) never runs on the float32 gradient, and the
    tensors mode raises, as TF does for a gradient of the wrong dtype."""
    x = dg.constant([0.5, 1.0], dtype=dg.float64)
    g = _sin_gradient(x, None)
    np.testing.assert_allclose(g.numpy(), np.cos([0.5, 1.0]))
    with dg.GradientTape() as tape:
        tape.watch(x)
        h = dg.sin(x)
        with dg.gradient_override_map({"Identity": _FLOAT32_GRADIENT}):
            y = dg.identity(h)
    with pytest.raises(dg.errors.InvalidArgumentError):
        tape.gradient(y, x)
    assert arrays_calls[0] is not None and arrays_calls[1] is None


def test_a_tensor_used_by_several_ops_sums_all_their_gradients(arrays_calls):
    """h feeds tanh, exp and a product, recorded in that order: each consumer's part
    reaches h (none is lost when the arrays mode hands a chain's gradient straight on)."""
    xv = np.array([0.3, -0.8, 1.5])
    x = dg.constant(xv)
    with dg.GradientTape() as tape:
        tape.watch(x)
        h = dg.sin(x)
        a = dg.tanh(h)
        b = dg.exp(h)
        d = h * 2.0
        y = dg.reduce_sum(a + b + d)
    g = tape.gradient(y, x)
    assert arrays_calls and arrays_calls[0] is not None
    hv = np.sin(xv)
    dy_dh = (1 - np.tanh(hv) ** 2) + np.exp(hv) + 2.0
    np.testing.assert_allclose(g.numpy(), dy_dh * np.cos(xv), rtol=1e-12)


def _taped_chain(x, layers):
    """(tape, y): y = sum of h <- tanh(0.5 sin(h) + x), `layers` times, recorded."""
    with dg.GradientTape() as tape:
        tape.watch(x)
        h = x
        for _ in range(layers):
            h = dg.tanh(dg.sin(h) * 0.5 + x)
        y = dg.reduce_sum(h)
    return tape, y


def test_the_sweep_keeps_no_finished_gradient_alive():
    """W6's peak: while the arrays mode walks a (sin, * 0.5, + x, tanh) chain back, at most
    three gradient-sized arrays exist beside the tape's kept values (the gradient
    arriving, the one being made, x's running sum), as in the hand-written floor."""
    import tracemalloc
    x = dg.constant(np.random.default_rng(0).normal(size=(256, 256)))
    tape, y = _taped_chain(x, 10)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        tape.gradient(y, x)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak < 3.5 * x.numpy().nbytes, peak / x.numpy().nbytes


def test_a_cell_compares_outputs_unless_the_kernel_is_a_ufunc():
    """A ufunc's output shape and dtype follow from its inputs', so a record whose
    inputs match its op's last cell shares it unread; Reshape's depend on a value
    (the target shape), so equal input specs with another output start a new cell."""
    from duograd.ops.array import array_ops
    x = dg.constant(np.arange(6.0))
    shapes = [dg.constant([2, 3]), dg.constant([3, 2]), dg.constant([3, 2])]
    outs = [dg.reshape(x, s) for s in shapes]
    tape = Tape()
    tape.watch_id(x.tensor_id)
    for s, out in zip(shapes, outs, strict=True):
        tape.record_binary(array_ops.RESHAPE, x, s, out)
    first, second, third = (tape.producers[o.tensor_id] for o in outs)
    assert first.cell is not second.cell and second.cell is third.cell
    float64 = np.dtype(np.float64)
    assert first.outputs == (((2, 3), float64),) and second.outputs == (((3, 2), float64),)
    products = [x * 2.0, x * 3.0]
    for out in products:
        tape.record_binary(math_ops.MUL, x, dg.constant(2.0, dtype=dg.float64), out)
    a, b = (tape.producers[o.tensor_id] for o in products)
    assert a.cell is b.cell and a.cell[0][5:] == ((6,), float64)


def _chain_and_derivative(xv):
    """`_taped_chain`'s h with 5 layers, and dh/dx by the chain rule in NumPy."""
    h, dh = xv, np.ones_like(xv)
    for _ in range(5):
        new = np.tanh(0.5 * np.sin(h) + xv)
        dh = (1 - new * new) * (0.5 * np.cos(h) * dh + 1)
        h = new
    return dh


def test_threads_recording_other_shapes_and_dtypes_share_op_cells_safely(arrays_calls):
    """Threads replace an op's last cell under each other (each with its own shape and
    dtype); every record keeps its own cell, so every gradient stays exact."""
    import threading
    failures = []

    def work(shape, dtype, seed):
        rng = np.random.default_rng(seed)
        for _ in range(40):
            xv = rng.random(shape).astype(dtype)
            x = dg.constant(xv)
            tape, y = _taped_chain(x, 5)
            g = tape.gradient(y, x).numpy()
            want = _chain_and_derivative(xv.astype(np.float64))
            if g.shape != shape or g.dtype != dtype or \
                    not np.allclose(g, want, rtol=1e-4 if dtype == np.float32 else 1e-12):
                failures.append((shape, dtype))
    threads = [threading.Thread(target=work, args=(shape, dtype, i)) for i, (shape, dtype) in
               enumerate([((4,), np.float64), ((3, 2), np.float32), ((4,), np.float32),
                          ((2,), np.float64)])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(arrays_calls) == 160 and all(r is not None for r in arrays_calls)


def test_records_alternating_between_signatures_find_their_cells_again():
    """An op whose records alternate between two signatures (an LSTM step's bias add
    and state add) shares one cell per signature, not a new cell per record; the
    gradients are those of each record."""
    x = dg.constant(np.ones((4, 3)))
    bias = dg.constant(np.arange(3.0))
    state = dg.constant(np.full((4, 3), 2.0))
    tape = Tape()
    for value in (x, bias, state):
        tape.watch_id(value.tensor_id)
    h, bias_sums, state_sums = x, [], []
    for _ in range(3):
        for addend, sums in ((bias, bias_sums), (state, state_sums)):
            out = h + addend
            tape.record_binary(math_ops.ADD, h, addend, out)
            sums.append(tape.producers[out.tensor_id])
            h = out
    assert bias_sums[0].cell is bias_sums[1].cell is bias_sums[2].cell
    assert state_sums[0].cell is state_sums[1].cell is state_sums[2].cell
    assert bias_sums[0].cell is not state_sums[0].cell
    with dg.GradientTape() as recorded:
        recorded.watch([x, bias, state])
        h = x
        for _ in range(3):
            h = (h + bias) + state
        loss = dg.reduce_sum(h * h)
    gx, gb, gs = recorded.gradient(loss, [x, bias, state])
    final = np.ones((4, 3)) + 3 * np.arange(3.0) + 6.0
    np.testing.assert_allclose(gx.numpy(), 2 * final)
    np.testing.assert_allclose(gb.numpy(), 3 * (2 * final).sum(axis=0))
    np.testing.assert_allclose(gs.numpy(), 3 * 2 * final)
