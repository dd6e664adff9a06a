"""The public control-flow API: dg.function, dg.cond, dg.while_loop, dg.TensorArray."""
from .cond_ops import cond
from ..functions.function import function
from .functional_ops import map_fn
from .switch_case import switch_case
from .tensor_array_ops import TensorArray
from .while_loop_ops import while_loop

__all__ = ["function", "cond", "while_loop", "TensorArray", "switch_case", "map_fn"]
