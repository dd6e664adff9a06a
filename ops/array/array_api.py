"""The array part of the public API in one place (re-exports only), so the package
__init__ needs one line for all of it (their gradients: grad_registry/*_grad.py)."""
from __future__ import annotations

from ..math.clip_norm_ops import clip_by_global_norm, clip_by_norm, global_norm
from .creation_ops import eye, linspace, range, shape_n  # noqa: A004
from .manip_ops import one_hot, pad, reverse, tile
from .scatter_ops import (boolean_mask, gather_nd, scatter_nd, tensor_scatter_nd_add,
                          tensor_scatter_nd_sub, tensor_scatter_nd_update)
from .slicing_ops import slice, strided_slice  # noqa: A004
from .sort_ops import argsort, sort, unique

newaxis = None  # TF's alias for None in indexing

__all__ = ["clip_by_global_norm", "clip_by_norm", "global_norm", "eye", "linspace", "range",
           "shape_n", "one_hot", "pad", "reverse", "tile", "boolean_mask", "gather_nd",
           "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
           "tensor_scatter_nd_update", "slice", "strided_slice", "argsort", "sort", "unique",
           "newaxis"]
