"""Programs for the ops whose gradients issue 22 adds, written once against TF's public API
so that the same function runs with TensorFlow (tf_reference/gen_gradient_reference.py
records its values into gradient_reference.py) and with duograd (ops/test_tf_recorded_
gradients.py compares). Each case takes the library module and returns a list of arrays:
forward values, then gradients (None where TF gives None)."""
from __future__ import annotations

import numpy as np

CASES = {}


def case(function):
    CASES[function.__name__] = function
    return function


def _np(value):
    return None if value is None else np.asarray(value).tolist()


def value_and_grads(lib, fn, *args, dtype=np.float64):
    """fn(*args) and the gradient of sum(fn * weights) for every arg (eager tape)."""
    tensors = [lib.constant(np.asarray(a, dtype)) for a in args]
    with lib.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        y = fn(*tensors)
        weights = lib.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape)
                               .astype(y.dtype.as_numpy_dtype))
        loss = lib.reduce_sum(y * weights)
    return [_np(y)] + [_np(g) for g in tape.gradient(loss, tensors)]


_XS = [0.0, 0.3, 1.7, 4.5]
_XPOS = [0.3, 1.7, 4.5]


def _special(name, xs):
    def run(lib):
        return value_and_grads(lib, getattr(lib.math.special, name), xs)
    run.__name__ = name
    return case(run)


for _name in ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
              "dawsn", "fresnel_cos", "fresnel_sin"]:
    _special(_name, _XS)
for _name in ["bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1",
              "expint", "spence"]:
    _special(_name, _XPOS)


@case
def erfinv(lib):
    return value_and_grads(lib, lib.math.erfinv, [-0.9, -0.2, 0.0, 0.6])


@case
def ndtri(lib):
    return value_and_grads(lib, lib.math.ndtri, [0.05, 0.5, 0.8])


@case
def igamma(lib):
    return value_and_grads(lib, lib.math.igamma, [0.5, 2.0, 7.5], [0.4, 2.5, 6.0])


@case
def igammac(lib):
    return value_and_grads(lib, lib.math.igammac, [[0.5], [2.0]], [0.4, 2.5, 6.0])


@case
def betainc(lib):
    return value_and_grads(lib, lib.math.betainc, [0.5, 2.0, 3.0], 1.5, [0.2, 0.5, 0.9])


@case
def zeta(lib):
    return value_and_grads(lib, lib.math.zeta, [2.0, 3.5, 1.5], [0.5, 1.0, 4.0])


@case
def special_edges(lib):
    """Domains' edges: NaN, +-inf and the constants TF gives there (float32)."""
    f32 = np.float32
    c = lib.constant
    m, s = lib.math, lib.math.special
    return [_np(v) for v in [
        m.igamma(c([0.0, -1.0, 2.0, 2.0], f32), c([1.0, 1.0, -1.0, 0.0], f32)),
        m.igammac(c([0.0, -1.0, 2.0, 2.0], f32), c([1.0, 1.0, -1.0, 0.0], f32)),
        m.betainc(c([0.0, 1.0, 1.0, 1.0], f32), c([1.0, -1.0, 1.0, 1.0], f32),
                  c([0.5, 0.5, -0.1, 1.1], f32)),
        m.zeta(c([0.5, 1.0, 2.0, 2.0, 2.0], f32), c([1.0, 1.0, 0.0, -1.0, -1.5], f32)),
        m.erfinv(c([-1.0, 1.0, 1.5], f32)), m.ndtri(c([0.0, 1.0, -0.5], f32)),
        s.spence(c([-1.0, 0.0], f32)), s.bessel_k0(c([0.0, -1.0], f32)),
        s.bessel_y0(c([0.0, -1.0], f32)), s.expint(c([0.0, -1.0], f32)),
        m.bessel_i1(c([0.5, 3.0], f32)),
    ]]


# -- array: space/batch/depth, reverse_sequence, patches, scatter max/min ------------------
def _arange(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) / 7.0 - 1.0


@case
def space_to_batch(lib):
    return value_and_grads(lib, lambda x: lib.space_to_batch(x, [2, 3], [[1, 1], [0, 1]]),
                           _arange(2, 4, 5, 3))


@case
def batch_to_space(lib):
    return value_and_grads(lib, lambda x: lib.batch_to_space(x, [2, 2], [[0, 1], [1, 0]]),
                           _arange(8, 2, 3, 1))


@case
def space_to_batch_nd_one_dim(lib):
    return value_and_grads(lib, lambda x: lib.space_to_batch_nd(x, [2], [[1, 1]]),
                           _arange(2, 4, 3))


@case
def space_to_depth(lib):
    return value_and_grads(lib, lambda x: lib.nn.space_to_depth(x, 2), _arange(2, 4, 6, 3))


@case
def depth_to_space(lib):
    return value_and_grads(lib, lambda x: lib.nn.depth_to_space(x, 2), _arange(1, 2, 3, 8))


@case
def reverse_sequence(lib):
    return value_and_grads(lib, lambda x: lib.reverse_sequence(x, [0, 2, 4], seq_axis=1,
                                                               batch_axis=0), _arange(3, 4, 2))


@case
def reverse_sequence_batch_axis_2(lib):
    return value_and_grads(lib, lambda x: lib.reverse_sequence(x, [3, 1], seq_axis=0,
                                                               batch_axis=2), _arange(3, 4, 2))


@case
def extract_patches_same(lib):
    return value_and_grads(lib, lambda x: lib.image.extract_patches(
        x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"), _arange(2, 4, 5, 2))


@case
def extract_patches_valid_rates(lib):
    return value_and_grads(lib, lambda x: lib.image.extract_patches(
        x, [1, 2, 2, 1], [1, 2, 1, 1], [1, 2, 2, 1], "VALID"), _arange(1, 5, 5, 2))


@case
def extract_volume_patches(lib):
    return value_and_grads(lib, lambda x: lib.extract_volume_patches(
        x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"), _arange(1, 3, 4, 3, 2))


@case
def tensor_scatter_nd_max(lib):
    return value_and_grads(lib, lambda x, u: lib.tensor_scatter_nd_max(
        x, [[0], [2], [0]], u), [[1.0, 5.0], [3.0, -1.0], [0.0, 2.0]],
        [[4.0, 5.0], [0.0, 2.0], [0.5, 7.0]])


@case
def tensor_scatter_nd_min(lib):
    return value_and_grads(lib, lambda x, u: lib.tensor_scatter_nd_min(
        x, [[1, 0], [2, 1]], u), [[1.0, 5.0], [3.0, -1.0], [0.0, 2.0]], [3.0, 0.5])


@case
def tensor_strided_slice_update(lib):
    update = getattr(lib, "raw_ops", None)
    if update is not None:  # TF: reached through tf.raw_ops only
        def fn(x, v):
            return lib.raw_ops.TensorStridedSliceUpdate(
                input=x, begin=[0, 1], end=[3, 4], strides=[2, 2], value=v)
    else:
        from duograd.ops.array.strided_slice_update_ops import tensor_strided_slice_update

        def fn(x, v):
            return tensor_strided_slice_update(x, [0, 1], [3, 4], [2, 2], v)
    return value_and_grads(lib, fn, _arange(4, 5), [[1.0], [2.0]])


# -- math: cumulative_logsumexp, sparse segment reductions ------------------------------------
@case
def cumulative_logsumexp(lib):
    return value_and_grads(lib, lambda x: lib.math.cumulative_logsumexp(x, axis=1),
                           [[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]])


@case
def cumulative_logsumexp_exclusive_reverse(lib):
    return value_and_grads(lib, lambda x: lib.math.cumulative_logsumexp(
        x, axis=0, exclusive=True, reverse=True), [[0.5, -1.0], [3.0, 0.0], [1.0, 1.0]])


_DATA = [[1.0, 2.0], [3.0, -4.0], [5.0, 6.0], [0.5, 1.5]]


@case
def sparse_segment_sum(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_sum(d, [0, 2, 1, 0], [0, 0, 1, 3]),
                           _DATA)


@case
def sparse_segment_mean(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_mean(d, [0, 2, 1, 0], [0, 0, 1, 3]),
                           _DATA)


@case
def sparse_segment_sqrt_n(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_sqrt_n(d, [3, 2, 2], [0, 0, 0]),
                           _DATA)


@case
def sparse_segment_with_num_segments(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_sum(d, [0, 1], [1, 1],
                                                                 num_segments=4), _DATA)


@case
def sparse_segment_mean_with_num_segments(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_mean(d, [0, 1, 3], [0, 2, 2],
                                                                  num_segments=3), _DATA)


@case
def sparse_segment_sqrt_n_with_num_segments(lib):
    return value_and_grads(lib, lambda d: lib.sparse.segment_sqrt_n(d, [0, 1, 3], [0, 2, 2],
                                                                    num_segments=5), _DATA)


# -- linalg: qr, eig, sqrtm, lstsq, tridiagonal, banded -------------------------------------------
_A43 = [[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [-0.2, 0.8, 1.1], [0.9, -0.4, 0.6]]
_A33 = [[2.0, -1.0, 0.5], [0.3, 1.5, -0.7], [-0.2, 0.8, 3.1]]


@case
def qr_deep(lib):
    def fn(a):
        q, r = lib.linalg.qr(a)
        return lib.concat([lib.reshape(q, [-1]), lib.reshape(r, [-1])], 0)
    return value_and_grads(lib, fn, _A43)


@case
def qr_wide(lib):
    def fn(a):
        q, r = lib.linalg.qr(a)
        return lib.concat([lib.reshape(q, [-1]), lib.reshape(r, [-1])], 0)
    return value_and_grads(lib, fn, np.transpose(_A43))


@case
def eig(lib):
    def fn(a):
        e, v = lib.linalg.eig(a)
        # eigenvector phases are arbitrary: use |v|^2 and the eigenvalues
        return lib.concat([lib.math.real(e), lib.math.imag(e),
                           lib.reshape(lib.math.real(v * lib.math.conj(v)), [-1])], 0)
    return value_and_grads(lib, fn, _A33)


@case
def eigvals(lib):
    return value_and_grads(lib, lambda a: lib.math.real(lib.linalg.eigvals(a)), _A33)


@case
def sqrtm(lib):
    return value_and_grads(lib, lib.linalg.sqrtm, [[4.0, 1.0, 0.5], [0.5, 3.0, 0.2],
                                                   [0.1, 0.3, 2.0]])


@case
def lstsq_overdetermined(lib):
    return value_and_grads(lib, lambda a, b: lib.linalg.lstsq(a, b, l2_regularizer=0.1), _A43,
                           [[1.0], [2.0], [-1.0], [0.5]])


@case
def lstsq_underdetermined(lib):
    return value_and_grads(lib, lambda a, b: lib.linalg.lstsq(a, b), np.transpose(_A43),
                           [[1.0, 0.0], [2.0, 1.0], [-1.0, 3.0]])


_DIAGS = [[1.0, 0.5, -0.3, 9.0], [4.0, 3.5, 5.0, 2.5], [9.0, 0.2, -0.6, 0.8]]
_RHS = [[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]]


@case
def tridiagonal_matmul(lib):
    return value_and_grads(lib, lib.linalg.tridiagonal_matmul, _DIAGS, _RHS)


@case
def tridiagonal_solve(lib):
    return value_and_grads(lib, lib.linalg.tridiagonal_solve, _DIAGS, _RHS)


@case
def tridiagonal_solve_sequence_vector(lib):
    return value_and_grads(lib, lambda u, d, s, b: lib.linalg.tridiagonal_solve(
        (u, d, s), b, diagonals_format="sequence"), *_DIAGS, [1.0, 0.5, 3.0, -2.0])


@case
def tridiagonal_matmul_matrix_format(lib):
    m = [[4.0, 1.0, 0.0], [0.5, 3.0, -0.3], [0.0, 0.2, 5.0]]
    return value_and_grads(lib, lambda a, b: lib.linalg.tridiagonal_matmul(
        a, b, diagonals_format="matrix"), m, _RHS[:3])


@case
def banded_triangular_solve_lower(lib):
    return value_and_grads(lib, lib.linalg.banded_triangular_solve,
                           [[4.0, 3.0, 5.0, 2.5], [9.0, 0.2, -0.6, 0.8]], _RHS)


@case
def banded_triangular_solve_upper_adjoint(lib):
    return value_and_grads(lib, lambda a, b: lib.linalg.banded_triangular_solve(
        a, b, lower=False, adjoint=True),
        [[0.3, -0.5, 0.7, 9.0], [1.0, 0.5, -0.3, 9.0], [4.0, 3.0, 5.0, 2.5]], _RHS)


@case
def lstsq_large_batch_kernel(lib):
    """3000 matrices of 4 x 3 (288 kB > TF's cache guess, batch > order): TF runs the
    MatrixSolveLs kernel and its gradient; batch sums keep the record small."""
    k = np.arange(3000 * 12, dtype=np.float64)
    a = lib.constant((np.sin(k) + 2.0 * (k % 12 % 4 == k % 12 // 4)).reshape(3000, 4, 3))
    b = lib.constant(np.cos(np.arange(3000 * 4, dtype=np.float64)).reshape(3000, 4, 1))
    with lib.GradientTape() as tape:
        tape.watch([a, b])
        x = lib.linalg.lstsq(a, b, l2_regularizer=0.05)
        loss = lib.reduce_sum(x * x)
    ga, gb = tape.gradient(loss, [a, b])
    return [_np(lib.reduce_sum(x, 0)), _np(lib.reduce_sum(ga, 0)), _np(lib.reduce_sum(gb, 0))]


# -- nn: conv3d, depthwise_conv2d ---------------------------------------------------------------
@case
def conv3d_same(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
                           _arange(2, 3, 4, 3, 2), _arange(2, 2, 2, 2, 3) / 3.0)


@case
def conv3d_valid_dilated(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID",
                                                           dilations=[1, 2, 1, 1, 1]),
                           _arange(1, 4, 3, 3, 2), _arange(2, 2, 1, 2, 2) / 3.0)


@case
def conv3d_transpose(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.conv3d_transpose(
        x, w, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"), _arange(1, 2, 2, 2, 3),
        _arange(2, 2, 2, 2, 3) / 5.0)


@case
def depthwise_conv2d(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
                           _arange(2, 4, 5, 3), _arange(3, 2, 3, 2) / 4.0)


@case
def depthwise_conv2d_strided_valid(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.depthwise_conv2d(x, w, [1, 2, 2, 1],
                                                                     "VALID"),
                           _arange(1, 5, 5, 2), _arange(2, 2, 2, 3) / 4.0)


@case
def depthwise_conv2d_dilated(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "SAME", dilations=[2, 2]), _arange(1, 5, 5, 2),
        _arange(2, 2, 2, 1) / 4.0)


@case
def depthwise_conv2d_backprop_ops(lib):
    def fn(x, w, dy):
        dx = lib.nn.depthwise_conv2d_backprop_input([1, 4, 4, 2], w, dy, [1, 1, 1, 1], "SAME")
        dw = lib.nn.depthwise_conv2d_backprop_filter(x, [2, 2, 2, 2], dy, [1, 1, 1, 1], "SAME")
        return lib.concat([lib.reshape(dx, [-1]), lib.reshape(dw, [-1])], 0)
    return value_and_grads(lib, fn, _arange(1, 4, 4, 2), _arange(2, 2, 2, 2) / 3.0,
                           _arange(1, 4, 4, 4) / 2.0)


# -- nn: 3-D pools, max_pool_with_argmax ------------------------------------------------------
def _wavy(*shape):
    """Distinct values (no ties in any window)."""
    k = np.arange(int(np.prod(shape)), dtype=np.float64)
    return (np.sin(k * 1.7) * 3.0 + k * 0.01).reshape(shape)


@case
def max_pool3d(lib):
    return value_and_grads(lib, lambda x: lib.nn.max_pool3d(x, [2, 2, 2], [1, 2, 1], "SAME"),
                           _wavy(2, 3, 4, 3, 2), dtype=np.float32)


@case
def max_pool3d_float64_is_rejected(lib):
    return value_and_grads(lib, lambda x: lib.nn.max_pool3d(x, 2, 2, "SAME"), _wavy(1, 2, 2, 2, 1))


@case
def avg_pool3d_float64_has_no_kernel(lib):
    return value_and_grads(lib, lambda x: lib.nn.avg_pool3d(x, 2, 2, "SAME"), _wavy(1, 2, 2, 2, 1))


@case
def max_pool3d_second_order(lib):
    """d/dw of <c, d/dx sum(w * max_pool3d(x))>: through MaxPool3DGrad to MaxPool3DGradGrad."""
    x = lib.constant(_wavy(1, 4, 4, 2, 1).astype(np.float32))
    w = lib.constant(np.linspace(-1, 1, 4).reshape(1, 2, 2, 1, 1).astype(np.float32))
    c = lib.constant(_wavy(1, 4, 4, 2, 1).astype(np.float32) / 3)
    with lib.GradientTape() as outer:
        outer.watch(w)
        with lib.GradientTape() as inner:
            inner.watch(x)
            y = lib.reduce_sum(w * lib.nn.max_pool3d(x, 2, 2, "VALID"))
        g = inner.gradient(y, x)
        loss = lib.reduce_sum(g * c)
    return [_np(g), _np(outer.gradient(loss, w))]


@case
def avg_pool3d(lib):
    return value_and_grads(lib, lambda x: lib.nn.avg_pool3d(x, [1, 2, 3], [2, 1, 2], "SAME"),
                           _wavy(2, 3, 4, 5, 2), dtype=np.float32)


@case
def avg_pool3d_ncdhw_valid(lib):
    return value_and_grads(lib, lambda x: lib.nn.avg_pool3d(x, 2, 1, "VALID",
                                                            data_format="NCDHW"),
                           _wavy(1, 2, 3, 3, 3), dtype=np.float32)


@case
def max_pool_with_argmax(lib):
    def fn(x):
        out, argmax = lib.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 1, 1], "SAME")
        return lib.concat([lib.reshape(out, [-1]), lib.cast(lib.reshape(argmax, [-1]),
                                                            out.dtype)], 0)
    return value_and_grads(lib, fn, _wavy(2, 4, 3, 2))


@case
def max_pool_with_argmax_batch_index(lib):
    out, argmax = lib.nn.max_pool_with_argmax(lib.constant(_wavy(2, 3, 3, 2)), 2, 1, "VALID",
                                              include_batch_in_index=True)
    return [_np(out), _np(argmax)]


# -- nn: lrn, dilation2d / erosion2d, isotonic_regression, approx_max_k, nth_element ------------
@case
def local_response_normalization(lib):
    return value_and_grads(lib, lambda x: lib.nn.local_response_normalization(
        x, depth_radius=2, bias=0.5, alpha=0.3, beta=0.75), _wavy(2, 2, 3, 6),
        dtype=np.float32)


@case
def lrn_float64_is_rejected(lib):
    return value_and_grads(lib, lib.nn.lrn, _wavy(1, 2, 2, 3))


@case
def dilation2d(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.dilation2d(
        x, w, [1, 1, 2, 1], "SAME", "NHWC", [1, 1, 1, 1]), _wavy(2, 4, 5, 2),
        _wavy(2, 3, 2) / 2)


@case
def dilation2d_valid_rates(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.dilation2d(
        x, w, [1, 1, 1, 1], "VALID", "NHWC", [1, 2, 1, 1]), _wavy(1, 5, 4, 1),
        _wavy(2, 2, 1) / 2)


@case
def erosion2d(lib):
    return value_and_grads(lib, lambda x, w: lib.nn.erosion2d(
        x, w, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]), _wavy(1, 4, 4, 2),
        _wavy(2, 2, 2) / 2)


@case
def isotonic_regression(lib):
    def fn(x):
        fit, segments = lib.nn.isotonic_regression(x)
        return lib.concat([fit, lib.cast(segments, fit.dtype)], 0)
    return value_and_grads(lib, fn, [[1.0, 3.0, 2.0, 4.0, 0.5], [5.0, 4.0, 3.0, 6.0, 1.0]])


@case
def isotonic_regression_increasing_axis0(lib):
    def fn(x):
        fit, segments = lib.nn.isotonic_regression(x, decreasing=False, axis=0)
        return lib.concat([fit, lib.cast(segments, fit.dtype)], 0)
    return value_and_grads(lib, fn, [[1.0, 3.0, 2.0], [0.5, 4.0, 3.0], [6.0, 1.0, 2.5]])


@case
def isotonic_regression_int_input(lib):
    fit, segments = lib.nn.isotonic_regression(lib.constant([[3, 1, 2]], dtype=lib.int16))
    return [_np(fit), _np(segments), fit.dtype.name]


@case
def approx_max_k(lib):
    def fn(x):
        values, indices = lib.math.approx_max_k(x, 2)
        return lib.concat([values, lib.cast(indices, values.dtype)], 0)
    return value_and_grads(lib, fn, _wavy(3, 5), dtype=np.float32)


@case
def approx_min_k_axis0(lib):
    def fn(x):
        values, indices = lib.nn.approx_min_k(x, 2, reduction_dimension=0)
        return lib.concat([values, lib.cast(indices, values.dtype)], 0)
    return value_and_grads(lib, fn, _wavy(4, 3), dtype=np.float32)


@case
def nth_element(lib):
    if hasattr(lib, "raw_ops"):
        def fn(x):
            return lib.raw_ops.NthElement(input=x, n=1, reverse=True)
    else:
        from duograd.ops.nn.ranking_ops import nth_element as nth

        def fn(x):
            return nth(x, 1, reverse=True)
    return value_and_grads(lib, fn, [[1.0, 3.0, 3.0, 0.5], [2.0, -1.0, 4.0, 4.5]])


# -- random: the gamma reparameterization gradient, categorical's shape -------------------------
@case
def random_gamma_grad(lib):
    """TF's RandomGammaGrad at fixed (alpha, sample) pairs: -dP/dalpha / dP/dsample."""
    alpha = lib.constant([[0.3, 1.0, 2.5, 7.0]], dtype=lib.float64)
    sample = lib.constant([[0.05, 0.7, 2.0, 9.5], [1.5, 0.2, 4.0, 3.0]], dtype=lib.float64)
    if hasattr(lib, "raw_ops"):
        value = lib.raw_ops.RandomGammaGrad(alpha=alpha, sample=sample)
    else:
        from duograd.ops.random.more_random_ops import random_gamma_grad as grad_fn
        value = grad_fn(alpha, sample)
    return [_np(value)]


@case
def random_gamma_gradient_shape(lib):
    """The alpha gradient sums over the sample dimensions (values are the RNG's own)."""
    alpha = lib.constant([[0.5, 2.0, 5.0]], dtype=lib.float64)
    with lib.GradientTape() as tape:
        tape.watch(alpha)
        s = lib.random.gamma([4, 2], alpha, beta=2.0, dtype=lib.float64, seed=1)
    g = tape.gradient(s, alpha)
    return [list(s.shape), list(g.shape), s.dtype.name]


@case
def categorical_shape(lib):
    s = lib.random.categorical(lib.constant([[0.0, 1.0, 2.0], [1.0, 1.0, -9.0]]), 5, seed=3)
    return [list(s.shape), s.dtype.name]


@case
def stateless_parameterized_truncated_normal_mixed_dtypes(lib):
    """Python float bounds become float32 against float64 means: the op rejects them."""
    mean = lib.constant([0.2, -0.4], dtype=lib.float64)
    return [_np(lib.random.stateless_parameterized_truncated_normal([3, 2], [7, 8], mean,
                                                                    mean + 1.0, -1.0, 2.0))]


@case
def stateless_parameterized_truncated_normal_mean_stddev_gradient(lib):
    """TF's gradient in mean and stddev, d = (1, standardized sample), summed over samples:
    the sum of standardized samples is compared through sum(dstddev) vs the samples."""
    mean = lib.constant([0.2, -0.4], dtype=lib.float64)
    std = lib.constant([1.3, 0.7], dtype=lib.float64)
    with lib.GradientTape() as tape:
        tape.watch([mean, std])
        s = lib.random.stateless_parameterized_truncated_normal(
            [3, 2], [7, 8], mean, std, lib.constant(-1.0, lib.float64),
            lib.constant(2.0, lib.float64))
    gm, gs = tape.gradient(s, [mean, std])
    standardized = lib.reduce_sum((s - mean) / std, 0)
    return [_np(gm), _np(gs - standardized)]


# -- nn: fused batch norm ------------------------------------------------------------------------
def _fused_bn(lib):
    return getattr(lib, "compat").v1.nn.fused_batch_norm


@case
def fused_batch_norm_training(lib):
    def fn(x, s, o):
        y, m, v = _fused_bn(lib)(x, s, o, epsilon=0.01)
        return lib.concat([lib.reshape(y, [-1]), m, v], 0)
    return value_and_grads(lib, fn, _wavy(2, 2, 3, 2), [1.5, -0.5], [0.2, 0.1],
                           dtype=np.float32)


@case
def fused_batch_norm_inference_nchw(lib):
    def fn(x, s, o, m, v):
        return _fused_bn(lib)(x, s, o, m, v, epsilon=0.01, data_format="NCHW",
                              is_training=False)[0]
    return value_and_grads(lib, fn, _wavy(2, 2, 3, 2), [1.5, -0.5], [0.2, 0.1], [0.3, -0.1],
                           [2.0, 0.5], dtype=np.float32)


@case
def fused_batch_norm_running_average(lib):
    def fn(x, m, v):
        y, rm, rv = _fused_bn(lib)(x, [1.0, 2.0], [0.0, 0.5], m, v,
                                   exponential_avg_factor=0.25)
        return lib.concat([lib.reshape(y, [-1]), rm, rv], 0)
    return value_and_grads(lib, fn, _wavy(1, 2, 2, 2), [0.3, -0.1], [2.0, 0.5],
                           dtype=np.float32)


@case
def fused_batch_norm_5d_needs_ndhwc(lib):
    return [_np(_fused_bn(lib)(lib.constant(_wavy(1, 2, 2, 2, 2), lib.float32), [1.0, 1.0],
                               [0.0, 0.0])[0])]


@case
def fused_batch_norm_ndhwc(lib):
    def fn(x, s, o):
        return _fused_bn(lib)(x, s, o, data_format="NCDHW")[0]
    return value_and_grads(lib, fn, _wavy(1, 2, 2, 2, 3), [1.0, 2.0], [0.0, 0.5],
                           dtype=np.float32)


@case
def fused_batch_norm_float64_is_rejected(lib):
    return [_np(_fused_bn(lib)(lib.constant(_wavy(1, 2, 2, 2)), lib.constant([1.0, 1.0],
                                                                            lib.float64),
                              lib.constant([0.0, 0.0], lib.float64))[0])]


@case
def batch_norm_with_global_normalization(lib):
    def fn(x, m, v, b, g):
        return lib.nn.batch_norm_with_global_normalization(x, m, v, b, g, 0.01, True)
    return value_and_grads(lib, fn, _wavy(2, 2, 3), [0.3, -0.1, 0.2], [2.0, 0.5, 1.0],
                           [0.1, 0.0, -0.2], [1.5, 0.7, -1.0])


@case
def batch_norm_with_global_normalization_no_scale(lib):
    def fn(x, m, v, b, g):
        return lib.nn.batch_norm_with_global_normalization(x, m, v, b, g, 0.01, False)
    return value_and_grads(lib, fn, _wavy(2, 3), [0.3, -0.1, 0.2], [2.0, 0.5, 1.0],
                           [0.1, 0.0, -0.2], [1.5, 0.7, -1.0])


# -- nn: fractional pools (ratios that divide the sizes: TF's exact boundaries) ------------------
@case
def fractional_max_pool(lib):
    def fn(x):
        out, rows, cols = lib.nn.fractional_max_pool(x, [1, 2, 2, 1])
        return lib.concat([lib.reshape(out, [-1]), lib.cast(rows, out.dtype),
                           lib.cast(cols, out.dtype)], 0)
    return value_and_grads(lib, fn, _wavy(2, 4, 6, 2))


@case
def fractional_max_pool_overlapping(lib):
    return value_and_grads(lib, lambda x: lib.nn.fractional_max_pool(
        x, [1, 2, 3, 1], overlapping=True)[0], _wavy(1, 4, 6, 2))


@case
def fractional_avg_pool(lib):
    return value_and_grads(lib, lambda x: lib.nn.fractional_avg_pool(x, [1, 2, 3, 1])[0],
                           _wavy(2, 4, 6, 1))


@case
def fractional_avg_pool_overlapping(lib):
    return value_and_grads(lib, lambda x: lib.nn.fractional_avg_pool(
        x, [1, 2, 2, 1], overlapping=True)[0], _wavy(1, 4, 4, 2))


@case
def fractional_pool_random_boundaries(lib):
    """A ratio that does not divide: sizes n // out or n // out + 1, ending at n."""
    out, rows, cols = lib.nn.fractional_max_pool(lib.constant(_wavy(1, 7, 9, 1)), [1, 1.5, 2, 1],
                                                 seed=5)
    r, c = np.asarray(rows), np.asarray(cols)
    return [list(out.shape), [int(r[0]), int(r[-1]), int(c[0]), int(c[-1])],
            sorted(set(np.diff(r).tolist()) | set(np.diff(c).tolist()))]


# -- ops reached through tf.raw_ops only ---------------------------------------------------------
def _raw(lib, tf_name, dg_name):
    """TF's tf.raw_ops.<tf_name> (keyword arguments) or duograd's positional function."""
    if hasattr(lib, "raw_ops"):
        return getattr(lib.raw_ops, tf_name)
    from duograd.ops.array import raw_only_ops
    return getattr(raw_only_ops, dg_name)


@case
def approximate_equal(lib):
    x = lib.constant([1.0, 2.0, 3.0, np.nan])
    y = lib.constant([1.0 + 1e-6, 2.1, 3.0, np.nan])
    if hasattr(lib, "raw_ops"):
        out = lib.raw_ops.ApproximateEqual(x=x, y=y, tolerance=1e-4)
    else:
        out = _raw(lib, "", "approximate_equal")(x, y, 1e-4)
    return [_np(out)]


@case
def scatter_nd_non_aliasing_add(lib):
    def fn(x, u):
        if hasattr(lib, "raw_ops"):
            return lib.raw_ops.ScatterNdNonAliasingAdd(input=x, indices=[[0], [2], [0]],
                                                       updates=u)
        return _raw(lib, "", "scatter_nd_non_aliasing_add")(x, [[0], [2], [0]], u)
    return value_and_grads(lib, fn, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                           [[0.5, 0.5], [1.0, -1.0], [2.0, 3.0]])


@case
def broadcast_gradient_args(lib):
    if hasattr(lib, "raw_ops"):
        r0, r1 = lib.raw_ops.BroadcastGradientArgs(s0=[2, 1, 3], s1=[4, 3])
    else:
        r0, r1 = _raw(lib, "", "broadcast_gradient_args")([2, 1, 3], [4, 3])
    return [_np(r0), _np(r1)]


@case
def concat_offset(lib):
    if hasattr(lib, "raw_ops"):
        out = lib.raw_ops.ConcatOffset(concat_dim=1, shape=[[2, 3, 5], [2, 7, 5], [2, 1, 5]])
    else:
        out = _raw(lib, "", "concat_offset")(1, [[2, 3, 5], [2, 7, 5], [2, 1, 5]])
    return [_np(o) for o in out]


@case
def check_numerics_v2_neg_inf(lib):
    x = lib.constant([1.0, -np.inf])
    if hasattr(lib, "raw_ops"):
        return [_np(lib.raw_ops.CheckNumericsV2(tensor=x, message="m"))]
    return [_np(_raw(lib, "", "check_numerics_v2")(x, "m"))]


@case
def check_numerics_v2_gradient(lib):
    def fn(x):
        if hasattr(lib, "raw_ops"):
            return lib.raw_ops.CheckNumericsV2(tensor=x, message="m") ** 2
        return _raw(lib, "", "check_numerics_v2")(x, "m") ** 2
    return value_and_grads(lib, fn, [1.0, -2.0, 3.0])


@case
def conjugate_transpose(lib):
    def fn(re, im):
        z = lib.complex(re, im)
        if hasattr(lib, "raw_ops"):
            t = lib.raw_ops.ConjugateTranspose(x=z, perm=[1, 2, 0])
        else:
            t = _raw(lib, "", "conjugate_transpose")(z, [1, 2, 0])
        w = lib.constant((np.arange(1, 7, dtype=np.float64) * (0.5 - 1.5j)).reshape(3, 1, 2))
        return lib.math.real(t * w)
    return value_and_grads(lib, fn, _arange(2, 3, 1), _arange(2, 3, 1) / 3)


@case
def parallel_dynamic_stitch(lib):
    def fn(a, b):
        if hasattr(lib, "raw_ops"):
            return lib.raw_ops.ParallelDynamicStitch(indices=[[0, 2], [1, 3]], data=[a, b])
        return _raw(lib, "", "parallel_dynamic_stitch")([[0, 2], [1, 3]], [a, b])
    return value_and_grads(lib, fn, [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]])


# -- behaviours found by TensorFlow's kernel tests (conformance/tfsuite_more.sh) -----------------
def _nth(lib):
    if hasattr(lib, "raw_ops"):
        return lambda x, n, reverse=False: lib.raw_ops.NthElement(input=x, n=n, reverse=reverse)
    from duograd.ops.nn.ranking_ops import nth_element
    return nth_element


@case
def nth_element_of_a_scalar_is_rejected(lib):
    return [_np(_nth(lib)(lib.constant(5.0), 0))]


@case
def nth_element_negative_n_is_rejected(lib):
    return [_np(_nth(lib)(lib.constant([5.0]), -1))]


@case
def nth_element_n_past_the_end_is_rejected(lib):
    return [_np(_nth(lib)(lib.constant([[0.1, 0.2], [0.3, 0.4]]), 2))]


@case
def nth_element_ties_share_the_gradient(lib):
    return value_and_grads(lib, lambda x: _nth(lib)(x, 3),
                           [[2.0, -1.0, 1000.0, 3.0, 1000.0], [2.0, 2.0, 2.0, 2.0, 2.0]])


@case
def banded_triangular_solve_singular_is_rejected(lib):
    singular = lib.constant([[1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [0.0, -1.0, 1.0]])
    return [_np(lib.linalg.banded_triangular_solve(singular, singular, lower=False))]


@case
def qr_of_a_vector_is_rejected(lib):
    return [_np(lib.linalg.qr(lib.constant([1.0, 2.0]))[0])]


@case
def conv3d_backprop_filter_v2_sizes_must_be_a_vector(lib):
    nn = lib.compat.v1.nn
    x = lib.constant(np.full((2, 2, 2, 2, 1), 0.5, np.float32))
    return [_np(nn.conv3d_backprop_filter_v2(x, lib.constant(0), x, [1, 1, 1, 1, 1],
                                             "VALID"))]


@case
def reverse_sequence_lengths_must_be_a_vector(lib):
    return [_np(lib.reverse_sequence([[1, 2], [3, 4]], [[2, 2]], seq_axis=1))]
