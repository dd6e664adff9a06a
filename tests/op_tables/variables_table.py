"""Op-table rows for variable ops: forward values in both modes (no gradient through
assignments, as in TensorFlow; ReadVariableOp's gradient is in ops/state/test_variables.py)."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal


def _then(first, make_second):
    """`make_second()` built after `first` has run (control dependency in graph mode)."""
    with dg.control_dependencies([first]):
        return make_second()


def _assign_read(x):
    v = dg.Variable(dg.zeros_like(x))
    return dg.identity(v.assign(x)) * 2.0


def _assign_add(x):
    v = dg.Variable(dg.zeros_like(x))
    a = v.assign(x)
    return dg.identity(_then(a, lambda: v.assign_add(x)))


def _assign_sub(x):
    v = dg.Variable(dg.zeros_like(x))
    a = v.assign(x)
    return dg.identity(_then(a, lambda: v.assign_sub(x * 3.0)))


def _scatter(method):
    def fn(x, updates):
        v = dg.Variable(dg.zeros_like(x))
        a = v.assign(x)
        slices = dg.IndexedSlices(updates, dg.constant([0, 2, 0]))
        return dg.identity(_then(a, lambda: getattr(v, method)(slices)))
    return fn


def _scatter_ref(sign):
    def ref(x, updates):
        out = x.copy()
        np.add.at(out, [0, 2, 0], sign * updates)
        return out
    return ref


def _scatter_update(x, updates):
    v = dg.Variable(dg.zeros_like(x))
    a = v.assign(x)
    slices = dg.IndexedSlices(updates, dg.constant([0, 2]))
    return dg.identity(_then(a, lambda: v.scatter_update(slices)))


def _scatter_update_ref(x, updates):
    out = x.copy()
    out[[0, 2]] = updates
    return out


def _is_initialized(x):
    v = dg.Variable(dg.zeros_like(x))
    a = v.assign(x)
    return _then(a, v.is_initialized)


ROWS = [
    OpSpec("variable_assign_read", _assign_read, lambda x: 2 * x, inputs(normal(2, 3)), order=0),
    OpSpec("variable_assign_add", _assign_add, lambda x: 2 * x, inputs(normal(3)), order=0),
    OpSpec("variable_assign_sub", _assign_sub, lambda x: -2 * x, inputs(normal(3)), order=0),
    OpSpec("variable_scatter_add", _scatter("scatter_add"), _scatter_ref(1),
           inputs(normal(4, 2), normal(3, 2)), order=0),
    OpSpec("variable_scatter_sub", _scatter("scatter_sub"), _scatter_ref(-1),
           inputs(normal(4, 2), normal(3, 2)), order=0),
    OpSpec("variable_scatter_update", _scatter_update, _scatter_update_ref,
           inputs(normal(4, 2), normal(2, 2)), order=0),
    OpSpec("variable_is_initialized", _is_initialized, lambda x: np.array(True),
           inputs(normal(2)), order=0),
]
