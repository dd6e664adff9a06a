"""Every public namespace of duograd, assembled in this one module.

Each namespace (`dg.nn`, `dg.math`, `dg.keras.optimizers`, `dg.compat.v1.train`,
...) is a real module, a `Namespace` registered in `sys.modules` under its dotted
name, so `import duograd.compat.v1 as tf`, `from duograd.keras.optimizers import
Adam` and `dg.nn is sys.modules['duograd.nn']` hold as in TensorFlow. A missing
name raises `AttributeError: module 'duograd.keras' has no attribute 'layers'`,
and `dir()` lists the public names only.

Library code never imports from here: a name is imported from the module that
owns it (the scope managers from `framework/scopes.py`, ops from `ops/`, ...).

To add a namespace, add one line in its block below:
    data = namespace("duograd.data", some_module, extra={"Dataset": Dataset})
(it becomes `dg.data` / `import duograd.data` at once: `namespace` attaches it
to its parent); to add names to an existing one, `extend(train, {...})`.
"""
from __future__ import annotations

import importlib.machinery
import sys
from types import ModuleType
from typing import Any, Dict, Iterable, Optional

from .framework import errors as errors_module
from .eager import execution_mode, forwardprop
from .framework import device_config, nest_api
from .framework.interactive_session import InteractiveSession
from .framework.default_session import get_default_session
from .framework.session import Session, get_default_graph, reset_default_graph
from .ops.array import array_ops, indexed_slices_ops
from .ops.math import math_ops, matmul_ops, reduction_ops
from .ops.linalg import linalg_ops, matrix_diag_ops, norm_ops
from .ops.math import math_extra
from .ops.nn import embedding_ops, nn_extra_ops
from .ops.math import math_only
from .ops.strings import string_ops
from .ops.array import partition_ops, selection_ops
from .ops import gradient_checker, gradient_checker_v1
from .ops.nn import conv_ops, nn_ops, pooling_ops, softmax_ops
from .ops.random import random_ops
from .ops.state import init_ops, state_ops, variable_scope, variables
from .ops.debugging import check_ops
from .ops.math import clip_norm_ops
from .ops.functions import function_config, function_types
from .ops.gradients_impl import gradients, hessians
from .distribute import losses as distribute_losses
from .training import optimizers as keras_optimizers, schedules as keras_schedules
from .training import checkpoint_api
from .training.keras import initializers as keras_initializers, losses as keras_losses
from .training.keras import metrics as keras_metrics
from .training.keras import naming as keras_naming
from .training.summary import summary_v1, summary_v2, writer as summary_writer
from .training.v1 import learning_rate_decay, optimizers as v1_optimizers, training_util
from .training.v1.optimizer import Optimizer as V1Optimizer
from .tf1 import collections_v1, layers_v1, losses_v1, math_v1, nn_v1, queue_runners, random_v1
from .tf1 import aliases_v1, initializers_v1, metrics_v1, session_config, shapes_v1, state_v1
from . import data as data_package
from .data import compat_v1 as data_v1
from .formats import api as formats_api
from .ops.math import (cumulative_logsumexp_ops, incomplete_gamma_ops, sparse_segment_ops,
                       special_functions_ops)
from .ops.array import patches_ops, reverse_sequence_ops, space_batch_ops
from .ops.linalg import decomposition_ops, structured_solve_ops
from .ops.nn import (conv_nd_ops, dilation_ops, fractional_pool_ops, fused_batch_norm_ops,
                     lrn_ops, pool_nd_ops, ranking_ops)
from .ops.random import more_random_ops, poisson_ops
from .ops.random import stateless_random_ops
from .ops.ragged import ragged_tensor

ROOT = "duograd"


class Namespace(ModuleType):
    """A public namespace of duograd: a module whose members come from the layers
    that own them. `fallback` (a dotted name) answers names it lacks, as
    `tf.compat.v1` answers every `tf` name it does not redefine."""

    def __init__(self, name: str, members: Dict[str, Any], fallback: Optional[str] = None,
                 doc: Optional[str] = None) -> None:
        super().__init__(name, doc)
        self.__spec__ = importlib.machinery.ModuleSpec(name, None)
        self.__package__ = name
        self.__dict__["_fallback"] = fallback
        self.__dict__.update(members)

    def __getattr__(self, name: str) -> Any:
        fallback = self.__dict__.get("_fallback")
        if fallback is not None and not name.startswith("_"):
            try:
                return getattr(sys.modules[fallback], name)
            except AttributeError:
                pass
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __dir__(self) -> list:
        own = {key for key in self.__dict__ if not key.startswith("_")}
        fallback = self.__dict__.get("_fallback")
        if fallback is not None:
            own |= set(dir(sys.modules[fallback]))
        return sorted(own)


def _register(name: str, space: ModuleType) -> None:
    """Puts `space` in sys.modules under `name` and on its parent module."""
    sys.modules[name] = space
    parent, _, attribute = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], attribute, space)


def _public(modules: Iterable[Any]) -> Dict[str, Any]:
    members: Dict[str, Any] = {}
    for module in modules:
        members.update({key: getattr(module, key) for key in getattr(module, "__all__", ())})
    return members


def namespace(name: str, *modules: Any, extra: Optional[Dict[str, Any]] = None,
              fallback: Optional[str] = None) -> Namespace:
    """A new public namespace: the `__all__` names of `modules`, then `extra`."""
    space = Namespace(name, {**_public(modules), **(extra or {})}, fallback=fallback)
    _register(name, space)
    return space


def alias(name: str, space: ModuleType) -> ModuleType:
    """Makes `space` (and its sub-namespaces) reachable under a second dotted name
    too: `dg.optimizers`, `import duograd.optimizers.schedules`."""
    prefix = space.__name__ + "."
    for dotted, module in list(sys.modules.items()):
        if dotted.startswith(prefix) and isinstance(module, Namespace):
            sys.modules[name + "." + dotted[len(prefix):]] = module
    _register(name, space)
    return space


def extend(space: ModuleType, members: Dict[str, Any]) -> None:
    """Adds names to a public namespace (sub-namespaces are attached by `namespace`)."""
    for key, value in members.items():
        setattr(space, key, value)


# -- the core namespaces ---------------------------------------------------------
errors = namespace("duograd.errors", errors_module)
math = namespace("duograd.math", math_ops, reduction_ops, matmul_ops, math_extra, math_only,
                 extra={"unsorted_segment_sum": indexed_slices_ops.unsorted_segment_sum,
                        "where": array_ops.where, **partition_ops.MATH_NAMES})
linalg = namespace("duograd.linalg", linalg_ops, matrix_diag_ops, norm_ops,
                   extra={**partition_ops.LINALG_NAMES, "global_norm": clip_norm_ops.global_norm})
test = namespace("duograd.test", gradient_checker_v1, gradient_checker)  # v2 wins
nn = namespace("duograd.nn", nn_ops, softmax_ops, conv_ops, pooling_ops, embedding_ops,
               nn_extra_ops, extra={"top_k": selection_ops.top_k,
                                    "compute_average_loss": distribute_losses.compute_average_loss})
random = namespace("duograd.random", random_ops)  # noqa: A001
autodiff = namespace("duograd.autodiff", forwardprop,
                     extra={"GradientTape": forwardprop.GradientTape})
debugging = namespace("duograd.debugging", check_ops)
nest = namespace("duograd.nest", nest_api)
strings = namespace("duograd.strings", string_ops)
types = namespace("duograd.types")
namespace("duograd.types.experimental", extra=function_types.EXPERIMENTAL_NAMES)
config = namespace("duograd.config", function_config, extra={  # process-wide settings
    **device_config.CONFIG_NAMES,
    "experimental_run_functions_eagerly": function_config.run_functions_eagerly,
    "experimental_functions_run_eagerly": function_config.functions_run_eagerly})
namespace("duograd.config.threading", extra=device_config.THREADING_NAMES)
namespace("duograd.config.experimental", extra=device_config.EXPERIMENTAL_NAMES)

# -- training: Keras-style optimizers and schedules, TF1 train.*, checkpoints -------
keras = namespace("duograd.keras")
optimizers = namespace("duograd.keras.optimizers", keras_optimizers)
namespace("duograd.keras.optimizers.schedules", keras_schedules)
alias("duograd.optimizers", optimizers)  # tf.optimizers is tf.keras.optimizers
initializers = alias("duograd.initializers",
                     namespace("duograd.keras.initializers", extra=keras_initializers.NAMES))
losses = alias("duograd.losses", namespace("duograd.keras.losses", extra=keras_losses.NAMES))
metrics = alias("duograd.metrics", namespace("duograd.keras.metrics", extra=keras_metrics.NAMES))
namespace("duograd.keras.backend", extra=keras_naming.BACKEND_NAMES)

_TRAIN_V1 = {**_public([v1_optimizers, training_util, learning_rate_decay]),
             "Optimizer": V1Optimizer}
train = namespace("duograd.train", extra={**_TRAIN_V1, **checkpoint_api.CHECKPOINT_NAMES})

# -- summaries (training/summary/) ---------------------------------------------------
summary = namespace("duograd.summary", extra=summary_v2.SUMMARY_NAMES)
namespace("duograd.summary.experimental", extra={"get_step": summary_writer.get_step,
                                                 "set_step": summary_writer.set_step})

# -- dg.compat: tf.compat.v1 and tf.compat.v2 ----------------------------------------
# tf.compat.v1 holds (nearly) all of tf's names plus TF1's graph-mode API: its
# namespace lists the TF1 names and answers every other name from `duograd`.
compat = namespace("duograd.compat")
v1 = namespace("duograd.compat.v1", init_ops, state_ops, variable_scope, execution_mode, extra=dict(
    placeholder=array_ops.placeholder, Session=Session, InteractiveSession=InteractiveSession,
    gradients=gradients, hessians=hessians, get_default_graph=get_default_graph,
    get_default_session=get_default_session, reset_default_graph=reset_default_graph,
    global_variables_initializer=variables.global_variables_initializer,
    variables_initializer=variables.variables_initializer,
    initialize_all_variables=variables.global_variables_initializer,
    global_variables=variables.global_variables,
    trainable_variables=variables.trainable_variables, **math_v1.NAMES, **random_v1.NAMES,
    **session_config.NAMES, **collections_v1.NAMES, **state_v1.NAMES,
    **initializers_v1.TOP_LEVEL, **shapes_v1.NAMES), fallback=ROOT)
namespace("duograd.compat.v1.initializers", extra=initializers_v1.INITIALIZERS)
namespace("duograd.compat.v1.math", extra=math_v1.MATH_NAMES, fallback="duograd.math")
namespace("duograd.compat.v1.random", extra=random_v1.RANDOM_NAMES, fallback="duograd.random")
namespace("duograd.compat.v1.nn", extra=nn_v1.NN_NAMES, fallback="duograd.nn")
namespace("duograd.compat.v1.losses", extra=losses_v1.NAMES)
namespace("duograd.compat.v1.layers", extra=layers_v1.NAMES)
namespace("duograd.compat.v1.metrics", extra=metrics_v1.NAMES)
namespace("duograd.compat.v1.test", fallback="duograd.test", extra={
    "compute_gradient": gradient_checker_v1.compute_gradient,
    "compute_gradient_error": gradient_checker_v1.compute_gradient_error})
namespace("duograd.compat.v1.train", extra={
    **_TRAIN_V1, **checkpoint_api.COMPAT_V1_CHECKPOINT_NAMES, **queue_runners.NAMES})
namespace("duograd.compat.v1.summary", extra=summary_v1.COMPAT_V1_SUMMARY_NAMES)
v2 = namespace("duograd.compat.v2", fallback=ROOT)

# -- dg.data is a real package (data/); TF1's iterator functions in compat.v1.data ----
namespace("duograd.compat.v1.data", extra=data_v1.NAMES, fallback="duograd.data")
alias("duograd.compat.v2.data", data_package)

# TF1 names of TF2 functions (tf.compat.v1.matrix_inverse is tf.linalg.inv, ...)
extend(v1, {old: getattr(sys.modules[f"{ROOT}.{space}" if space else ROOT], new)
            for old, (space, new) in aliases_v1.V1_ALIASES.items()})

# -- TensorFlow's files (formats/): GraphDef import/export, graph_util, SavedModel -----
io = namespace("duograd.io", extra=formats_api.IO_NAMES)
graph_util = namespace("duograd.graph_util",
                       extra={"import_graph_def": formats_api.import_graph_def})
namespace("duograd.compat.v1.graph_util", extra={
    "import_graph_def": formats_api.import_graph_def, **formats_api.GRAPH_UTIL_NAMES})
saved_model = namespace("duograd.saved_model", extra=formats_api.SAVED_MODEL_NAMES)
namespace("duograd.compat.v1.saved_model",
          extra={**formats_api.SAVED_MODEL_NAMES, "load": formats_api.load_v1})
namespace("duograd.compat.v1.saved_model.loader", extra={"load": formats_api.load_v1})
namespace("duograd.compat.v1.saved_model.tag_constants", extra=formats_api.TAG_CONSTANTS)
extend(v1, {"import_graph_def": formats_api.import_graph_def})
extend(sys.modules["duograd.compat.v1.train"], formats_api.IO_NAMES)

# -- the ops of TF's special functions, space/batch moves, patches, sparse segments,
# decompositions, structured solves, N-d convolution and pooling, more random ops ---
extend(math, _public([special_functions_ops, incomplete_gamma_ops]))
namespace("duograd.math.special", extra=special_functions_ops.SPECIAL_NAMES)
extend(math, {"cumulative_logsumexp": cumulative_logsumexp_ops.cumulative_logsumexp,
              "cross": partition_ops.cross, **ranking_ops.MATH_NAMES})
image = namespace("duograd.image", extra=patches_ops.IMAGE_NAMES)
sparse = namespace("duograd.sparse", extra=sparse_segment_ops.SPARSE_NAMES)
extend(linalg, {**decomposition_ops.LINALG_NAMES, **structured_solve_ops.LINALG_NAMES})
extend(nn, {**space_batch_ops.NN_NAMES, **conv_nd_ops.NN_NAMES, **pool_nd_ops.NN_NAMES,
            **lrn_ops.NN_NAMES, **dilation_ops.NN_NAMES, **ranking_ops.NN_NAMES,
            **fused_batch_norm_ops.NN_NAMES, **fractional_pool_ops.NN_NAMES})
extend(random, {**more_random_ops.RANDOM_NAMES, **poisson_ops.RANDOM_NAMES})
extend(random, stateless_random_ops.RANDOM_NAMES)
namespace("duograd.random.experimental", extra=stateless_random_ops.EXPERIMENTAL_NAMES)
ragged = namespace("duograd.ragged", extra=ragged_tensor.RAGGED_NAMES)
extend(v1, {**space_batch_ops.V1_NAMES, **patches_ops.V1_NAMES, **sparse_segment_ops.V1_NAMES,
            "reverse_sequence": reverse_sequence_ops.reverse_sequence_v1,
            "multinomial": more_random_ops.multinomial, **poisson_ops.V1_NAMES})
extend(sys.modules["duograd.compat.v1.nn"], {**conv_nd_ops.V1_NN_NAMES,
                                             **fused_batch_norm_ops.V1_NN_NAMES})
extend(sys.modules["duograd.compat.v1.random"], {**more_random_ops.V1_RANDOM_NAMES,
                                                 **poisson_ops.V1_RANDOM_NAMES})

# -- keep this block last: every top-level namespace is also a compat.v1/v2 module --
TOP_LEVEL = {name: value for name, value in dict(globals()).items()
             if isinstance(value, Namespace) and value.__name__.count(".") == 1}
for _name, _space in TOP_LEVEL.items():
    for _compat in (v1, v2):
        if _name != "compat" and f"{_compat.__name__}.{_name}" not in sys.modules:
            alias(f"{_compat.__name__}.{_name}", _space)



# -- the public surface of `dg` ----------------------------------------------------
PUBLIC_MODULES = ("autograph", "data", "distribute")   # real packages that are API (no other is)


def public_names(package_globals: dict) -> list:
    """What `dir(dg)` and `dg.__all__` list: the API, without implementation modules
    (`ops`, `framework`, `math_grad`, ...), which importing a submodule can re-add."""
    return sorted(name for name, value in package_globals.items()
                  if not name.startswith("_") and (not isinstance(value, ModuleType)
                                                   or isinstance(value, Namespace)
                                                   or name in PUBLIC_MODULES))


def hide_implementation_modules(package_globals: dict) -> None:
    """Drops the package attributes that name implementation submodules (they stay
    importable: `from duograd.ops import ...` finds them in sys.modules)."""
    for name, value in list(package_globals.items()):
        if isinstance(value, ModuleType) and not isinstance(value, Namespace) \
                and not name.startswith("_") and name not in PUBLIC_MODULES and \
                value.__name__.startswith(package_globals["__name__"] + "."):
            del package_globals[name]
