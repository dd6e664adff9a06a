"""duograd: TensorFlow's differentiation machinery, graph and eager mode, on NumPy.

`import duograd as dg`; names mirror TensorFlow's (see API.md).
"""
from .framework.dtypes import (DType, as_dtype, bool_ as bool, complex64, complex128,  # noqa: A004
                               double, float16, float32, float64, half, int8, int16, int32,
                               int64, resource, string, uint8, uint16, uint32, uint64,
                               variant)
from .framework.graph import Graph, Operation, SymbolicTensor
from .framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from .framework.default_session import get_default_session
from .framework.session import Session, get_default_graph, reset_default_graph
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
from .ops.array.array_api import *  # noqa: F401,F403,A004 (arrays: slicing, creation, scatter, sort, ...)
from .ops.control_flow.control_flow_ops import group, no_op, tuple  # noqa: A004
from .ops.gradients_impl import gradients, hessian_vector_product, hessians
from .ops.parallel_for.pfor import vectorized_map
from .grad_registry.registry import (NoGradient, NotDifferentiable, RegisterGradient,
                                     get_gradient_function)
from .grad_registry.unconnected import UnconnectedGradients
from .grad_registry.aggregation import AggregationMethod
from .ops.state.variables import (Variable, global_variables, global_variables_initializer,  # noqa: F401
                                  trainable_variables, variables_initializer)
from .framework.scopes import control_dependencies, device  # noqa: F401
from .framework.scopes import name_scope_v2 as name_scope  # noqa: F401 (TF2: the name must be a string)
from .ops.custom_gradient import custom_gradient, gradient_override_map  # noqa: F401
from .ops.recompute import grad_pass_through, recompute_grad  # noqa: F401
from .ops.functions.numpy_function import numpy_function  # noqa: F401
from .ops.control_flow.control_flow_api import *  # noqa: F401,F403 (function, cond, while_loop, TensorArray)
from .framework.func_graph import init_scope  # noqa: F401
from .ops.state.variables import variable_creator_scope  # noqa: F401
from . import distribute  # noqa: F401 (dg.distribute; its engines load on first use)

from .ops.linalg.norm_ops import norm  # noqa: F401
from .ops.array.meshgrid_ops import meshgrid  # noqa: F401
from .ops.array.static_value_ops import get_static_value, placeholder_with_default  # noqa: F401
from . import autograph  # noqa: F401 (dg.function's source conversion; dg.autograph)
from .ops.debugging.print_ops import print  # noqa: F401,A004 (tf.print)
from .ops.functions.py_function_ops import py_function  # noqa: F401
from .ops.debugging.check_ops import (Assert, assert_equal, assert_greater, assert_less,  # noqa: F401
                                      assert_rank, check_numerics)
from .ops.math.rounding_ops import *  # noqa: F401,F403,A004 (acosh, floor, round, truncatediv, ...)
from .ops.array.array_more_ops import *  # noqa: F401,F403 (roll, ensure_shape, repeat, ...)
from .ops.control_flow.fold_ops import foldl, foldr  # noqa: F401
from .ops.array.partition_ops import dynamic_partition, dynamic_stitch  # noqa: F401
from .ops.array.space_batch_ops import batch_to_space, space_to_batch, space_to_batch_nd  # noqa: F401
from .ops.array.reverse_sequence_ops import reverse_sequence  # noqa: F401
from .ops.array.patches_ops import extract_volume_patches  # noqa: F401
from .ops.array.scatter_minmax_ops import tensor_scatter_nd_max, tensor_scatter_nd_min  # noqa: F401
from .namespaces import image  # noqa: F401
from .namespaces import sparse  # noqa: F401 (dg.sparse: the sparse segment reductions)
from .namespaces import ragged  # noqa: F401 (dg.ragged.constant)
from .ops.ragged.ragged_tensor import RaggedTensor  # noqa: F401

__version__ = "0.1.0"
from .ops.control_flow.functional_ops import map_fn, scan  # noqa: E402,F401 (tf.map_fn, tf.scan)

# -- every op's gradient: grad_registry registers all its gradient modules ------------
from .grad_registry import register_all as _register_gradients  # noqa: E402
_register_gradients()

# -- training (training/): Module, Keras-style and TF1 optimizers, schedules ------------
from .training.module import Module  # noqa: E402

# -- the public namespaces: real modules, all assembled in namespaces.py ---------------
from .namespaces import (autodiff, compat, config, debugging, errors, keras, linalg,  # noqa: E402,F401,A004
                         math, nest, nn, optimizers, random, summary, test, train)
from .namespaces import initializers, losses, metrics, strings, types  # noqa: E402,F401
from .namespaces import graph_util, io, saved_model  # noqa: E402,F401 (TF's files: formats/)
from . import data  # noqa: E402,F401 (dg.data: input pipelines, a real package)

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
