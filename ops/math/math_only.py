"""The names TF has under tf.math but not at the top level (dg.math only)."""
from .gamma_ops import digamma, lgamma, polygamma
from .math_ops import mod as floormod
from .moments_ops import reduce_std, reduce_variance
from .nan_safe_ops import multiply_no_nan, nextafter, xlog1py
from .reduction_ops import reduce_euclidean_norm
from ..nn.nn_extra_ops import l2_normalize
from .rounding_ops import (acosh, asinh, atanh, ceil, erfc, floor, is_inf, reciprocal_no_nan, rint,
                           round)
from ..nn.softmax_ops import log_softmax
from .segment_ops import (segment_max, segment_mean, segment_min, segment_prod, segment_sum,
                          unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
                          unsorted_segment_prod, unsorted_segment_sqrt_n)

__all__ = ["floormod", "reduce_std", "reduce_variance", "multiply_no_nan", "nextafter", "xlog1py",
           "reduce_euclidean_norm", "segment_max", "segment_mean", "segment_min",
           "segment_prod", "segment_sum", "unsorted_segment_max", "unsorted_segment_mean",
           "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n",
           "l2_normalize", "log_softmax", "acosh", "asinh", "atanh", "ceil", "erfc", "floor",
           "is_inf", "reciprocal_no_nan", "rint", "round", "digamma", "lgamma", "polygamma"]
