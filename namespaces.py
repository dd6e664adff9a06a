"""Sub-namespaces (dg.math, ...) and the mode-agnostic scope context managers."""
from __future__ import annotations

import contextlib
import re
import sys
import types
from typing import Any, Iterator, Optional, Sequence

from .eager import context
from .ops.array import array_ops, indexed_slices_ops
from .ops.math import math_ops, matmul_ops, reduction_ops
from .ops.linalg import linalg_ops, matrix_diag_ops, norm_ops
from .ops.math import math_extra
from .ops.nn import embedding_ops, nn_extra_ops
from .ops.math import math_only
from .ops.math import count_ops
from .ops.strings import string_ops
from .ops.array import partition_ops, selection_ops
from .ops import gradient_checker, gradient_checker_v1
from .eager import forwardprop
from .ops.nn import conv_ops, nn_ops, pooling_ops, softmax_ops
from .ops.random import random_ops
from .eager import execution_mode
from .framework.interactive_session import InteractiveSession
from .framework.session import Session, get_default_graph, get_default_session, reset_default_graph
from .ops.state import init_ops, state_ops, variable_scope, variables
from .ops.gradients_impl import gradients, hessians
from .ops.debugging import check_ops
from .framework import nest_api
from .distribute import losses

_state = context.state


def _namespace(name: str, *modules: Any, extra: Optional[dict] = None) -> types.SimpleNamespace:
    members = {}
    for module in modules:
        for key in getattr(module, "__all__", ()):
            members[key] = getattr(module, key)
    members.update(extra or {})
    space = types.SimpleNamespace(**members)
    space.__name__ = name
    return space


math = _namespace("duograd.math", math_ops, reduction_ops, matmul_ops, math_extra, math_only,
                  extra={"unsorted_segment_sum": indexed_slices_ops.unsorted_segment_sum,
                         "where": array_ops.where, **partition_ops.MATH_NAMES})
linalg = _namespace("duograd.linalg", linalg_ops, matrix_diag_ops, norm_ops,
                    extra=partition_ops.LINALG_NAMES)
test = _namespace("duograd.test", gradient_checker_v1, gradient_checker)  # v2 wins
nn = _namespace("duograd.nn", nn_ops, softmax_ops, conv_ops, pooling_ops, embedding_ops,
                nn_extra_ops, extra={"top_k": selection_ops.top_k,
                                     "compute_average_loss": losses.compute_average_loss})
random = _namespace("duograd.random", random_ops)  # noqa: A001
autodiff = _namespace("duograd.autodiff", forwardprop,
                      extra={"GradientTape": forwardprop.GradientTape})
debugging = _namespace("duograd.debugging", check_ops)
nest = _namespace("duograd.nest", nest_api)
strings = _namespace("duograd.strings", string_ops)


@contextlib.contextmanager
def name_scope(name: Optional[str]) -> Iterator[str]:
    """A scope for op names in graph mode; in eager mode it prefixes variable names.

    Eager mode follows TF2: names are not made unique, and a name ending in
    '/' replaces the enclosing scope instead of nesting in it."""
    graph = _state.graph
    if graph is None:
        outer = _state.name_scope
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = f"{outer}{name}/"
        _state.name_scope = scope
        try:
            yield scope
        finally:
            _state.name_scope = outer
        return
    with graph.name_scope(name) as scope:
        yield scope


_ROOT_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def name_scope_v2(name: str) -> Any:
    """TF2's `tf.name_scope`: the name must be a string (ValueError otherwise), and
    while a graph is built a valid op-name prefix. `name_scope` (TF1's rules,
    None resets the scope) serves the library's own code."""
    if not isinstance(name, str):
        raise ValueError(f"name for name_scope must be a string, got {name!r}")
    graph = _state.graph
    if graph is not None and name and not name.endswith("/"):
        pattern = _SCOPE if graph.get_name_scope() else _ROOT_SCOPE
        if not pattern.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match "
                             f"the pattern {pattern.pattern}")
    return name_scope(name)


@contextlib.contextmanager
def control_dependencies(control_inputs: Optional[Sequence[Any]]) -> Iterator[None]:
    """Ops built inside run after `control_inputs` (eager mode: already done)."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.control_dependencies(control_inputs):
        yield


@contextlib.contextmanager
def device(name: Optional[str]) -> Iterator[None]:
    """Recorded on graph ops; has no effect on where they run."""
    graph = _state.graph
    if graph is None:
        yield
        return
    with graph.device(name):
        yield


# dg.config: process-wide settings (run_functions_eagerly).
from .ops.functions import function_config  # noqa: E402 - kept beside the namespace it fills
config = _namespace("duograd.config", function_config)


# -- dg.compat: tf.compat.v1 and tf.compat.v2 ----------------------------------
# tf.compat.v1 holds (nearly) all of tf's names plus TF1's graph-mode API; its
# namespace here lists the TF1 names and answers every other name from the dg
# package itself. To add TF1 names (e.g. `train`, `summary`), add them to
# `_V1_NAMES` or to `compat.v1` in this one place.
class FallbackNamespace(types.SimpleNamespace):
    """A namespace whose missing names come from another object (`dg` by default)."""

    def __init__(self, name: str, parent: Optional[str] = None, **members: Any) -> None:
        super().__init__(**members)
        object.__setattr__(self, "_parent_path", parent)
        self.__name__ = name

    def _parent(self) -> Any:
        target: Any = sys.modules["duograd"]
        for part in self._parent_path.split(".") if self._parent_path else ():
            target = getattr(target, part)
        return target

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return getattr(self._parent(), name)
        except AttributeError:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'") from None

    def __dir__(self) -> list:
        own = [k for k in self.__dict__ if not k.startswith("_")]
        return sorted(set(own) | set(dir(self._parent())))


def _compat_v1() -> FallbackNamespace:
    names = {}
    for module in (init_ops, state_ops, variable_scope, execution_mode):
        names.update({key: getattr(module, key) for key in module.__all__})
    names.update(
        placeholder=array_ops.placeholder, Session=Session, InteractiveSession=InteractiveSession,
        gradients=gradients, hessians=hessians, get_default_graph=get_default_graph,
        get_default_session=get_default_session, reset_default_graph=reset_default_graph,
        global_variables_initializer=variables.global_variables_initializer,
        variables_initializer=variables.variables_initializer,
        initialize_all_variables=variables.global_variables_initializer,
        global_variables=variables.global_variables,
        trainable_variables=variables.trainable_variables,
        count_nonzero=count_ops.count_nonzero_v1,
        test=FallbackNamespace("duograd.compat.v1.test", "test",
                               compute_gradient=gradient_checker_v1.compute_gradient,
                               compute_gradient_error=gradient_checker_v1.compute_gradient_error))
    return FallbackNamespace("duograd.compat.v1", **names)


compat = types.SimpleNamespace(v1=_compat_v1(), v2=FallbackNamespace("duograd.compat.v2"))
compat.__name__ = "duograd.compat"


# -- Summaries (training/summary/): dg.summary and dg.compat.v1.summary ----------------------
from .training.summary import summary_v1, summary_v2  # noqa: E402

summary = _namespace("duograd.summary", extra=summary_v2.SUMMARY_NAMES)
compat.v1.summary = _namespace("duograd.compat.v1.summary",
                               extra=summary_v1.COMPAT_V1_SUMMARY_NAMES)


# -- the public surface of `dg` ----------------------------------------------------
PUBLIC_MODULES = ("errors", "autograph", "distribute")   # modules that are API (no other is)


def public_names(package_globals: dict) -> list:
    """What `dir(dg)` and `dg.__all__` list: the API, without implementation modules
    (`ops`, `framework`, `math_grad`, ...), which importing a submodule can re-add."""
    return sorted(name for name, value in package_globals.items()
                  if not name.startswith("_") and (not isinstance(value, types.ModuleType)
                                                   or name in PUBLIC_MODULES))


def hide_implementation_modules(package_globals: dict) -> None:
    """Drops the package attributes that name implementation submodules (they stay
    importable: `from duograd.ops import ...` finds them in sys.modules)."""
    for name, value in list(package_globals.items()):
        if isinstance(value, types.ModuleType) and not name.startswith("_") \
                and name not in PUBLIC_MODULES and \
                value.__name__.startswith(package_globals["__name__"] + "."):
            del package_globals[name]
