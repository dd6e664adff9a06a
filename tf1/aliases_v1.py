"""TF1 names of functions duograd has under their TF2 names: v1 name -> (namespace,
name), resolved where the namespaces are assembled (namespaces.py). Each pair is
TF's own aliasing (`tf.compat.v1.matrix_inverse is tf.linalg.inv`)."""
from __future__ import annotations

from typing import Dict, Tuple

V1_ALIASES: Dict[str, Tuple[str, str]] = {
    # linear algebra
    "matrix_inverse": ("linalg", "inv"), "matrix_determinant": ("linalg", "det"),
    "matrix_solve": ("linalg", "solve"), "matrix_triangular_solve": ("linalg", "triangular_solve"),
    "matrix_transpose": ("linalg", "matrix_transpose"), "matrix_band_part": ("linalg", "band_part"),
    "matrix_diag": ("linalg", "diag"), "matrix_diag_part": ("linalg", "diag_part"),
    "matrix_set_diag": ("linalg", "set_diag"), "self_adjoint_eig": ("linalg", "eigh"),
    "self_adjoint_eigvals": ("linalg", "eigvalsh"), "cholesky": ("linalg", "cholesky"),
    "svd": ("linalg", "svd"), "trace": ("linalg", "trace"), "cross": ("linalg", "cross"),
    "diag": ("linalg", "tensor_diag"), "diag_part": ("linalg", "tensor_diag_part"),
    # math
    "angle": ("math", "angle"), "ceil": ("math", "ceil"), "digamma": ("math", "digamma"),
    "erfc": ("math", "erfc"), "floormod": ("math", "floormod"), "floor_div": ("math", "floordiv"),
    "realdiv": ("math", "truediv"), "invert_permutation": ("math", "invert_permutation"),
    "is_inf": ("math", "is_inf"), "lgamma": ("math", "lgamma"), "polygamma": ("math", "polygamma"),
    "rint": ("math", "rint"), "segment_max": ("math", "segment_max"),
    "segment_mean": ("math", "segment_mean"), "segment_min": ("math", "segment_min"),
    "segment_prod": ("math", "segment_prod"), "segment_sum": ("math", "segment_sum"),
    "unsorted_segment_max": ("math", "unsorted_segment_max"),
    "unsorted_segment_mean": ("math", "unsorted_segment_mean"),
    "unsorted_segment_min": ("math", "unsorted_segment_min"),
    "unsorted_segment_prod": ("math", "unsorted_segment_prod"),
    "unsorted_segment_sqrt_n": ("math", "unsorted_segment_sqrt_n"),
    "lin_space": ("", "linspace"), "py_func": ("", "numpy_function"),
    # checks
    **{name: ("debugging", name) for name in (
        "assert_greater_equal", "assert_integer", "assert_less_equal", "assert_near",
        "assert_negative", "assert_non_negative", "assert_non_positive", "assert_none_equal",
        "assert_positive", "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype",
        "assert_scalar", "assert_type", "is_numeric_tensor")},
}
