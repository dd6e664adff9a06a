"""Which public name answers `tensorflow.<module>.<attr>` as imported by a test.

Every TensorFlow module a test file imports has an entry.  An entry says
  ns     the public namespaces searched for an attribute of the same name
         ("" = top level, "nn" = dg.nn / tf.nn, ...).  A module without `ns`
         is TF-internal: only the names listed in `names` resolve.
  names  explicit mappings, attr -> a path, a list of paths (first that
         exists), None (no public equivalent; never searched),
         {"dg": path, "tf": path} when the two differ, or Shim(obj) for a
         harness-level helper implemented here for both backends.
Names starting with "_" are private and never searched for.

Under the tf backend a name that has no public path falls back to the real
TensorFlow-internal attribute, so a test can still pass there; under the dg
backend it is a missing API.  The shim-implemented modules (test_util, test,
googletest, tf_logging, compat, nest, context) live in harness.py.
"""
from __future__ import annotations

from typing import Any, Dict, Optional


class Shim:
    """A mapping target implemented by the harness (a small pure-NumPy helper of
    TensorFlow's test utilities), the same object under both backends."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj


def _max_error(grad1, grad2):
    """gradient_checker_v2.max_error: the largest |theoretical - numerical|."""
    import numpy as np
    error = 0
    for j_t, j_n in zip(grad1, grad2):
        if j_t.size or j_n.size:
            error = np.maximum(error, np.fabs(j_t - j_n).max())
    return error


def _while_v2_while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
                         maximum_iterations=None, name=None, return_same_structure=True,
                         back_prop=True):
    """while_v2.while_loop (TF-private) on top of the public while_loop.

    It is tf.compat.v1.while_loop except that `return_same_structure` defaults
    to True; with False a single loop variable comes back bare.  The public
    function is called with only the arguments the test gave, then the
    structure rule is applied here, identically for both backends."""
    from . import backend, nest
    be = backend.get()
    kwargs = {}
    if shape_invariants is not None:
        kwargs["shape_invariants"] = shape_invariants
    if parallel_iterations != 10:
        kwargs["parallel_iterations"] = parallel_iterations
    if maximum_iterations is not None:
        kwargs["maximum_iterations"] = maximum_iterations
    if name is not None:
        kwargs["name"] = name
    if back_prop is not True:
        kwargs["back_prop"] = back_prop
    if be.name == "tf":
        kwargs["return_same_structure"] = True
        outputs = be.lookup("compat.v1.while_loop")(cond, body, loop_vars, **kwargs)
    else:
        outputs = be.lookup("while_loop")(cond, body, loop_vars, **kwargs)
    if return_same_structure:
        return outputs
    flat = nest.flatten(outputs)
    return flat[0] if len(flat) == 1 else outputs


class Spec:
    __slots__ = ("ns", "names")

    def __init__(self, ns: tuple = (), names: Optional[Dict[str, Any]] = None) -> None:
        self.ns = ns
        self.names = names or {}


P = "tensorflow.python."
MODULES: Dict[str, Spec] = {
    # -- the public top level: `import tensorflow as tf` -------------------
    "tensorflow": Spec(("",)),
    # -- framework ------------------------------------------------------------
    P + "framework.constant_op": Spec(("",)),
    P + "framework.dtypes": Spec(("",)),
    P + "framework.ops": Spec(("",), {
        "IndexedSlices": "IndexedSlices",
        "get_name_scope": None,   # only Graph.get_name_scope() is public
    }),
    P + "framework.indexed_slices": Spec(("",)),
    P + "framework.tensor_shape": Spec(("",)),
    P + "framework.tensor_spec": Spec(("",)),
    P + "framework.sparse_tensor": Spec(("sparse",)),
    P + "framework.errors": Spec(("errors",)),
    P + "framework.errors_impl": Spec(("errors",)),
    P + "framework.tensor_util": Spec((), {"constant_value": "get_static_value"}),
    P + "framework.function": Spec(()),          # TF1 Defun
    P + "framework.test_ops": Spec(()),          # C++ test kernels
    P + "framework.importer": Spec((), {"import_graph_def": "compat.v1.import_graph_def"}),
    P + "framework.meta_graph": Spec(()),
    P + "framework.memory_checker": Spec(()),
    P + "client.session": Spec((), {"Session": "compat.v1.Session"}),
    # random_seed.set_random_seed is tf.compat.v1.set_random_seed
    P + "framework.random_seed": Spec((), {"set_random_seed": "compat.v1.set_random_seed"}),
    P + "pywrap_tfe": Spec(()),
    # -- eager ----------------------------------------------------------------
    P + "eager.backprop": Spec((), {"GradientTape": "GradientTape"}),
    P + "eager.def_function": Spec((), {
        "function": "function",
        "run_functions_eagerly": "config.run_functions_eagerly",
        "functions_run_eagerly": "config.functions_run_eagerly",
    }),
    # `defun` is TF1's name for a tf.function without AutoGraph; TF 2.21 no
    # longer has it, so both backends answer with the public `function`.
    P + "eager.function": Spec((), {"defun": "function"}),
    P + "eager.forwardprop": Spec((), {"ForwardAccumulator": "autodiff.ForwardAccumulator"}),
    P + "eager.forwardprop_util": Spec(()),
    P + "eager.tape": Spec(()),
    P + "eager.remote": Spec(()),
    # -- ops ------------------------------------------------------------------
    P + "ops.array_ops": Spec(("",), {
        "diag": "linalg.tensor_diag",        # array_ops.diag is tf.linalg.tensor_diag
        "matrix_diag": "linalg.diag",        # array_ops.matrix_diag is tf.linalg.diag
        "gather_v2": "gather",               # array_ops.gather_v2 is tf.gather
        "squeeze_v2": "squeeze",
        "prevent_gradient": None,
        # these array_ops names are TF 1's forms: array_ops.X is tf.compat.v1.X, not tf.X
        **{n: "compat.v1." + n for n in (
            "batch_to_space", "batch_to_space_nd", "boolean_mask", "depth_to_space",
            "expand_dims", "gather", "space_to_depth",
            "gather_nd", "ones_like", "pad", "reverse_sequence", "shape", "size",
            "space_to_batch", "squeeze", "transpose", "where", "zeros_like")},
    }),
    P + "ops.math_ops": Spec(("", "math"), {
        "add_v2": "add",                      # tf.add builds AddV2
        "mul": "multiply",
        "floormod": ["math.floormod", "math.mod"],   # TF aliases of one function
        "div_no_nan": ["math.divide_no_nan", "div_no_nan"],
        "mul_no_nan": "math.multiply_no_nan",
    }),
    P + "ops.nn": Spec(("nn",)),
    # nn_ops.conv2d is TF 1's form (tf.compat.v1.nn.conv2d: explicit padding, use_cudnn_on_gpu)
    P + "ops.nn_ops": Spec(("nn",), {"conv2d": "compat.v1.nn.conv2d"}),
    P + "ops.nn_impl": Spec(("nn",), {"swish": ["nn.silu", "nn.swish"]}),
    P + "ops.random_ops": Spec(("random",), {
        "random_uniform": "random.uniform",
        "random_normal": "random.normal",
        "truncated_normal": "random.truncated_normal",
        "random_gamma": "random.gamma",
        "random_poisson_v2": "compat.v2.random.poisson",   # (shape, lam), the v2 order
        "parameterized_truncated_normal": None,
    }),
    # stateless_random_ops.stateless_random_normal is tf.random.stateless_normal
    P + "ops.stateless_random_ops": Spec((), {"stateless_random_normal": "random.stateless_normal"}),
    P + "ops.gradients": Spec(("",)),
    P + "ops.gradients_impl": Spec(("",), {
        # duograd makes TF's private _hessian_vector_product public
        "_hessian_vector_product": {"dg": "hessian_vector_product", "tf": None},
    }),
    P + "ops.variables": Spec(("",), {
        "Variable": "compat.v2.Variable",
        "VariableV1": "compat.v1.Variable",
        "RefVariable": None,
    }),
    P + "ops.resource_variable_ops": Spec((), {"ResourceVariable": "compat.v2.Variable"}),
    P + "ops.custom_gradient": Spec((), {
        "custom_gradient": "custom_gradient",
        "recompute_grad": "recompute_grad",
        "grad_pass_through": "grad_pass_through",
    }),
    P + "ops.control_flow_ops": Spec((), {
        "cond": "cond", "while_loop": "while_loop", "group": "group",
        "tuple": "tuple", "no_op": "no_op",
    }),
    # cond_v2 has tf.cond's TF2 (strict) output structure
    P + "ops.cond_v2": Spec((), {"cond_v2": "compat.v2.cond", "indexed_case": "switch_case"}),
    P + "ops.while_v2": Spec((), {"while_loop": Shim(_while_v2_while_loop)}),
    P + "ops.tensor_array_ops": Spec((), {"TensorArray": "TensorArray"}),
    P + "ops.embedding_ops": Spec((), {"embedding_lookup": "nn.embedding_lookup"}),
    P + "ops.gradient_checker_v2": Spec((), {"compute_gradient": "compat.v2.test.compute_gradient",
                                             "max_error": Shim(_max_error)}),
    P + "ops.gradient_checker": Spec((), {
        "compute_gradient": "compat.v1.test.compute_gradient",
        "compute_gradient_error": "compat.v1.test.compute_gradient_error",
    }),
    P + "ops.unconnected_gradients": Spec(("",)),
    P + "ops.state_ops": Spec((), {"assign": "compat.v1.assign"}),
    P + "ops.init_ops": Spec((), {"constant_initializer": "compat.v1.constant_initializer"}),
    P + "ops.variable_scope": Spec((), {
        "variable_scope": "compat.v1.variable_scope",
        "get_variable": "compat.v1.get_variable",
        "AUTO_REUSE": "compat.v1.AUTO_REUSE",
    }),
    P + "ops.map_fn": Spec((), {"map_fn": "map_fn"}),
    P + "ops.functional_ops": Spec((), {"scan": "scan"}),
    P + "ops.gen_array_ops": Spec(()),
    P + "ops.logging_ops": Spec((), {"print_v2": "print"}),
    P + "ops.sparse_ops": Spec((), {
        "sparse_reshape": "sparse.reshape",
        "sparse_reduce_sum_v2": "sparse.reduce_sum",
    }),
    P + "ops.data_flow_ops": Spec((), {"FIFOQueue": "queue.FIFOQueue"}),
    P + "ops.linalg_ops": Spec(("linalg",), {
        "matrix_solve_ls": "linalg.lstsq",   # linalg_ops.matrix_solve_ls is tf.linalg.lstsq
        "matrix_solve": "linalg.solve",      # linalg_ops.matrix_solve is tf.linalg.solve
    }),
    P + "ops.clip_ops": Spec(("",)),
    P + "ops.list_ops": Spec(()),
    P + "ops.gen_list_ops": Spec(()),
    P + "ops.gen_dataset_ops": Spec(()),
    P + "ops.control_flow_util": Spec(()),
    P + "ops.control_flow_util_v2": Spec(()),
    P + "ops.control_flow_v2_toggles": Spec((), {
        "control_flow_v2_enabled": "compat.v1.control_flow_v2_enabled"}),
    P + "ops.rnn": Spec(()),
    P + "ops.rnn_cell": Spec(()),
    P + "ops.losses.losses": Spec(()),
    P + "ops.ragged.ragged_factory_ops": Spec((), {"constant": "ragged.constant"}),
    P + "ops.ragged.ragged_tensor": Spec((), {
        "RaggedTensor": "RaggedTensor", "RaggedTensorSpec": "RaggedTensorSpec"}),
    P + "ops.parallel_for.control_flow_ops": Spec((), {"vectorized_map": "vectorized_map"}),
    P + "ops.parallel_for.gradients": Spec(()),
    # gradient-registration modules, imported for their side effects only
    P + "ops.array_grad": Spec(()),
    P + "ops.math_grad": Spec(()),
    P + "ops.nn_grad": Spec(()),
    P + "ops.data_flow_grad": Spec(()),
    P + "ops.state_grad": Spec(()),
    P + "ops.control_flow_grad": Spec(()),
    P + "ops.tensor_array_grad": Spec(()),
    # -- outside the ops ------------------------------------------------------
    P + "training.training": Spec((), {
        "GradientDescentOptimizer": "compat.v1.train.GradientDescentOptimizer"}),
    P + "training.saver": Spec(()),
    P + "module.module": Spec((), {"Module": "Module"}),
    P + "distribute.mirrored_strategy": Spec((), {
        "MirroredStrategy": "distribute.MirroredStrategy"}),
    P + "grappler.tf_optimizer": Spec(()),
    P + "keras.engine.training": Spec(()),
    P + "layers.core": Spec(()),
    P + "layers.layers": Spec(()),
    P + "layers.pooling": Spec(()),
    "tensorflow.core.framework.graph_pb2": Spec(()),
    "tensorflow.core.protobuf.config_pb2": Spec(()),
    "tensorflow.core.protobuf.rewriter_config_pb2": Spec(()),
}

# `import tensorflow as tf` then tf.compat.v1.X / tf.test.X / tf.nn.X ...
TOP_LEVEL_SUBSPACES = ("compat", "nn", "math", "linalg", "random", "autodiff", "errors",
                       "sparse", "ragged", "config", "queue", "distribute")

# Modules implemented by the harness itself (harness.py); every attribute is ours.
SHIM_MODULES = (
    P + "framework.test_util",
    P + "platform.test",
    P + "eager.test",
    P + "platform.googletest",
    P + "platform.tf_logging",
    P + "util.compat",
    P + "util.nest",
    P + "eager.context",
)

# ---------------------------------------------------------------------------
# The TF-internal criterion.  A test is "tf-internal" when, run against
# TensorFlow, it touches one of these names (module prefix or module.attr),
# whatever duograd does.  The same list applies to every file.
# ---------------------------------------------------------------------------
INTERNAL: Dict[str, str] = {
    P + "pywrap_tfe": "C API (pywrap_tfe)",
    P + "framework.test_ops": "C++ test kernels",
    P + "eager.backprop.op_attr_type": "C API op attributes",
    P + "eager.backprop.make_attr": "C API op attributes",
    P + "eager.context.context": "runtime/device configuration",
    P + "eager.context.LogicalDeviceConfiguration": "runtime/device configuration",
    P + "eager.context._reset_context": "runtime/device configuration",
    P + "eager.context.function_executor_type": "runtime/device configuration",
    P + "eager.context.device": "device placement",
    P + "eager.remote": "distributed runtime",
    P + "framework.test_util.create_local_cluster": "distributed runtime",
    P + "framework.ops.colocate_with": "device placement",
    P + "framework.test_util.run_gpu_only": "GPU",
    P + "ops.control_flow_ops.XLAControlFlowContext": "XLA",
    P + "framework.test_util.is_xla_enabled": "XLA",
    P + "ops.gen_dataset_ops": "tf.data",
    P + "keras": "Keras",
    P + "layers": "Keras/tf.layers",
    P + "ops.rnn": "Keras/tf.layers (RNN cells)",
    P + "ops.rnn_cell": "Keras/tf.layers (RNN cells)",
    P + "ops.losses": "Keras/tf.losses",
    P + "module.module": "tf.Module object tracking",
    P + "training.saver": "serialization (MetaGraph/Saver)",
    P + "framework.meta_graph": "serialization (MetaGraph/Saver)",
    P + "framework.importer": "serialization (GraphDef import)",
    "tensorflow.core": "protocol buffers / session config",
    P + "grappler": "Grappler graph optimizer",
    P + "distribute": "distribution strategies",
    P + "framework.dtypes.string": "string tensors",
    P + "ops.data_flow_ops": "queues",
    P + "framework.ops.GraphKeys": "TF1 graph collections",
    P + "framework.ops.add_to_collection": "TF1 graph collections",
    P + "framework.ops.get_collection": "TF1 graph collections",
    P + "framework.ops.get_collection_ref": "TF1 graph collections",
    P + "framework.ops.container": "TF1 resource containers",
    P + "ops.variable_scope": "TF1 variable scopes",
    P + "ops.init_ops": "TF1 initializers",
    P + "ops.state_ops": "TF1 ref-variable state ops",
    P + "training.training": "TF1 optimizers",
    P + "ops.variables.RefVariable": "TF1 ref variables",
    P + "ops.variables.VariableV1": "TF1 ref variables",
    P + "framework.function": "TF1 Defun functions",
    P + "ops.control_flow_ops.CondContext": "TF1 control-flow contexts",
    P + "ops.control_flow_util": "control-flow implementation switches",
    P + "ops.control_flow_util_v2": "control-flow implementation switches",
    P + "ops.control_flow_v2_toggles": "control-flow implementation switches",
    P + "framework.test_util.enable_output_all_intermediates": "control-flow implementation switches",
    P + "ops.list_ops": "TensorList/variant internals",
    P + "ops.gen_list_ops": "TensorList/variant internals",
    P + "framework.dtypes.variant": "TensorList/variant internals",
    P + "ops.ragged": "RaggedTensor",
    P + "framework.sparse_tensor": "SparseTensor",
    P + "ops.sparse_ops": "SparseTensor",
    P + "framework.dtypes.qint8": "quantized dtypes",
    P + "framework.test_util.enable_quantized_dtypes_training": "quantized dtypes",
    P + "eager.tape": "TF engine internals (tape hooks)",
    P + "eager.forwardprop_util": "TF engine internals (forwardprop hooks)",
    P + "eager.forwardprop._jvp_dispatch": "TF engine internals (forwardprop hooks)",
    P + "eager.forwardprop._TRACE_COUNT_LIMIT": "TF engine internals (forwardprop hooks)",
    P + "ops.while_v2._get_graph": "TF engine internals (while_v2 body graphs)",
    P + "ops.gen_array_ops": "TF engine internals (raw generated op wrappers)",
    P + "ops.cond_v2.get_func_graphs": "TF engine internals (cond_v2 branch graphs)",
    P + "ops.custom_gradient._get_dependent_variables": "TF engine internals (variable capture)",
    P + "ops.custom_gradient.get_variable_by_name": "TF engine internals (variable capture)",
    P + "framework.memory_checker": "memory-leak checker",
}


# ... or when its code (the test method and the helpers of the test file it
# calls) uses one of these attributes of TensorFlow objects, which name TF
# graph/runtime internals rather than anything a user differentiates with.
INTERNAL_ATTRS: Dict[str, str] = {
    "capture_call_time_value": "TF engine internals (FuncGraph deferred captures)",
    "is_control_flow_graph": "TF engine internals (FuncGraph flags)",
    "_get_control_flow_context": "TF1 control-flow contexts",
    "_functions": "TF engine internals (graph function library)",
    "_get_function": "TF engine internals (graph function library)",
    "_original_op": "TF engine internals (gradient-op bookkeeping)",
    "_batch_accumulator": "TF engine internals (batched forwardprop)",
    "_ref": "TF1 ref variables",
    "colocation_groups": "device placement",
    "device": "device placement",
}


def internal_reason(full_name: str) -> Optional[str]:
    """The INTERNAL category of `module.attr` (or of a module), if any."""
    best = None
    for prefix, reason in INTERNAL.items():
        if full_name == prefix or full_name.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, reason)
    return best[1] if best else None
