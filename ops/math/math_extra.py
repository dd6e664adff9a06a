"""The math ops beyond ops/math/math_ops.py, gathered for `dg.*` and `dg.math.*` exports."""
from .complex_ops import *  # noqa: F401,F403
from .cumulative_ops import *  # noqa: F401,F403
from .einsum_ops import *  # noqa: F401,F403
from ..array.selection_ops import *  # noqa: F401,F403
from .special_math_ops import *  # noqa: F401,F403
from .trig_ops import *  # noqa: F401,F403
from . import complex_ops, cumulative_ops, einsum_ops, special_math_ops, trig_ops
from ..array import selection_ops

__all__ = (complex_ops.__all__ + cumulative_ops.__all__ + einsum_ops.__all__
           + selection_ops.__all__ + special_math_ops.__all__ + trig_ops.__all__)
