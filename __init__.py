"""duograd: TensorFlow's differentiation machinery, graph and eager mode, on NumPy.

`import duograd as dg`; names mirror TensorFlow's (see API.md).
"""
from .framework import errors
from .framework.dtypes import (DType, as_dtype, bool_ as bool, complex64, complex128,  # noqa: A004
                               double, float16, float32, float64, half, int8, int16, int32,
                               int64, resource, string, uint8, uint16, uint32, uint64,
                               variant)
from .framework.graph import Graph, Operation, SymbolicTensor
from .framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from .framework.session import Session, get_default_graph, get_default_session, reset_default_graph
from .framework.tensor import Tensor
from .framework.tensor_shape import TensorShape
from .framework.tensor_spec import TensorSpec
from .eager.context import executing_eagerly
from .eager.backprop import GradientTape
from .ops.constant_op import constant, convert_to_tensor, is_tensor
from .ops.array.array_ops import *  # noqa: F401,F403
from .ops.math.math_ops import *  # noqa: F401,F403
from .ops.math.reduction_ops import *  # noqa: F401,F403
from .ops.math.matmul_ops import *  # noqa: F401,F403
from .ops.array.join_ops import *  # noqa: F401,F403
from .ops.array.indexed_slices_ops import gather, unsorted_segment_sum
from .ops.math.math_extra import *  # noqa: F401,F403 (math: special, trig, complex, cumulative, einsum, ...)
from .grad_registry import (complex_grad, cumulative_grad, einsum_grad, selection_grad,  # noqa: F401
                            special_math_grad, trig_grad)
from .ops.array.array_api import *  # noqa: F401,F403,A004 (arrays: slicing, creation, scatter, sort, ...)
from .grad_registry import (creation_grad, manip_grad, scatter_grad,  # noqa: F401
                            slicing_grad, sort_grad)
from .ops.control_flow.control_flow_ops import group, no_op, tuple  # noqa: A004
from .ops.gradients_impl import gradients, hessian_vector_product, hessians
from .ops.parallel_for.pfor import vectorized_map
from .grad_registry.registry import (NoGradient, NotDifferentiable, RegisterGradient,
                                     get_gradient_function)
from .grad_registry.unconnected import UnconnectedGradients
from .grad_registry.aggregation import AggregationMethod
from .grad_registry import (array_grad, indexed_slices_grad, join_grad,  # noqa: F401
                            math_grad, matmul_grad, reduction_grad)
from .ops.state.variables import (Variable, global_variables, global_variables_initializer,  # noqa: F401
                                  trainable_variables, variables_initializer)
from .grad_registry import variable_grad  # noqa: F401
from .namespaces import test  # noqa: F401
from .grad_registry import linalg_grad, matrix_diag_grad  # noqa: F401
from .namespaces import math, control_dependencies, device  # noqa: A004
from .namespaces import name_scope_v2 as name_scope  # noqa: F401 (TF2: the name must be a string)
from .namespaces import linalg  # noqa: F401
from .ops.custom_gradient import custom_gradient, gradient_override_map  # noqa: F401
from .ops.recompute import grad_pass_through, recompute_grad  # noqa: F401
from .ops.functions.numpy_function import numpy_function  # noqa: F401
from .grad_registry import numpy_function_grad  # noqa: F401
from .namespaces import autodiff  # noqa: F401
from .namespaces import nn, random  # noqa: F401,A004
from .grad_registry import conv_grad, nn_grad, pooling_grad, random_grad, softmax_grad  # noqa: F401
from .ops.control_flow.control_flow_api import *  # noqa: F401,F403 (function, cond, while_loop, TensorArray)
from .grad_registry import control_flow_grad, function_grad  # noqa: F401
from .framework.func_graph import init_scope  # noqa: F401
from .namespaces import config  # noqa: F401
from .ops.state.variables import variable_creator_scope  # noqa: F401
from . import distribute  # noqa: F401 (dg.distribute; its engines load on first use)

from .ops.linalg.norm_ops import norm  # noqa: F401
from .ops.array.meshgrid_ops import meshgrid  # noqa: F401
from .grad_registry import nan_safe_grad, segment_grad  # noqa: F401
from .ops.array.static_value_ops import get_static_value, placeholder_with_default  # noqa: F401
from . import autograph  # noqa: F401 (dg.function's source conversion; dg.autograph)
from .ops.debugging.print_ops import print  # noqa: F401,A004 (tf.print)
from .ops.functions.py_function_ops import py_function  # noqa: F401
from .ops.debugging.check_ops import (Assert, assert_equal, assert_greater, assert_less,  # noqa: F401
                                      assert_rank, check_numerics)
from .grad_registry import check_grad, py_function_grad  # noqa: F401
from .namespaces import debugging, nest  # noqa: F401
from .namespaces import strings  # noqa: F401 (dg.strings)
from .grad_registry import string_grad  # noqa: F401
from .grad_registry import nn_extra_grad, static_value_grad  # noqa: F401
from .ops.math.rounding_ops import *  # noqa: F401,F403,A004 (acosh, floor, round, truncatediv, ...)
from .ops.array.array_more_ops import *  # noqa: F401,F403 (roll, ensure_shape, repeat, ...)
from .grad_registry import array_more_grad, gamma_grad, rounding_grad  # noqa: F401
from .ops.control_flow.fold_ops import foldl, foldr  # noqa: F401
from .ops.array.partition_ops import dynamic_partition, dynamic_stitch  # noqa: F401
from .grad_registry import partition_grad  # noqa: F401

__version__ = "0.1.0"
from .ops.control_flow.functional_ops import map_fn, scan  # noqa: E402,F401 (tf.map_fn, tf.scan)

# -- training (training/): Module, Keras-style and TF1 optimizers, schedules ------------
from .namespaces import compat  # noqa: E402,F401 (dg.compat.v1 / v2)
from .training.module import Module  # noqa: E402
from .training.namespaces import extend as _extend, keras, optimizers, train, v1_train  # noqa: E402,F401
_extend(compat.v1, {"train": v1_train})
from .namespaces import summary  # noqa: E402,F401 (dg.summary, dg.compat.v1.summary)

# -- keep this block last: `dir(dg)` and `dg.__all__` list the public API only --------
from .namespaces import hide_implementation_modules as _hide, public_names as _public_names  # noqa: E402,E501

_hide(globals())
__all__ = _public_names(globals())


def __dir__() -> list:
    return _public_names(globals())


def __getattr__(name: str) -> object:
    """dg.bfloat16, made on first use: it needs the optional ml_dtypes package, which
    `import duograd` never imports (ImportError naming the extra without it)."""
    if name == "bfloat16":
        from .framework.dtypes import bfloat16_dtype
        return bfloat16_dtype()
    raise AttributeError(f"module 'duograd' has no attribute '{name}'")
