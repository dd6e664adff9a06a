"""Op-table rows for function calls, If, While and the TensorArray ops."""
from __future__ import annotations

import numpy as np

import duograd as dg
from duograd.ops.control_flow.tensor_array_ops import dense_gradient, mask_rows
from .spec import OpSpec, inputs, normal

_sin_x = dg.function(lambda x: dg.sin(x) * x)


def _stateful_zero(x):
    """0 from a stateful (random) op: makes the enclosing call/If/While stateful
    (StatefulPartitionedCall/If/While, as in TF) without changing any value."""
    return 0.0 * dg.reduce_sum(dg.random.uniform([1], dtype=x.dtype))


_stateful_sin_x = dg.function(lambda x: dg.sin(x) * x + _stateful_zero(x))


def _np_loop(x):
    y = x
    for _ in range(3):
        y = np.sin(y) * x
    return y


def _np_mask_rows(g):
    out = np.zeros((4,) + g.shape[1:])
    out[:3] = g
    out[1] = 0
    return out


def _np_scatter_rows(v):
    out = np.zeros((4, 2))
    np.add.at(out, [2, 0, 2], v)
    return out


ROWS = [
    OpSpec("function_call", _sin_x, lambda x: np.sin(x) * x, inputs(normal(2, 3)),
           op_types=("PartitionedCall",)),
    OpSpec("stateful_function_call", _stateful_sin_x, lambda x: np.sin(x) * x,
           inputs(normal(2, 3)), op_types=("StatefulPartitionedCall",)),
    OpSpec("cond_stateful_branch",
           lambda x: dg.cond(dg.reduce_sum(x) > -100.0, lambda: x * x + _stateful_zero(x),
                             lambda: dg.sin(x)),
           lambda x: x * x, inputs(normal(3))),
    OpSpec("while_loop_stateful_body",
           lambda x: dg.while_loop(lambda i, y: i < 3,
                                   lambda i, y: (i + 1, dg.sin(y) * x + _stateful_zero(x)),
                                   (0, x))[1],
           _np_loop, inputs(normal(2, 2))),
    OpSpec("switch_case",
           lambda x: dg.switch_case(dg.constant(1), [lambda: dg.sin(x), lambda: x * x,
                                                     lambda: dg.exp(x)]),
           lambda x: x * x, inputs(normal(3))),
    OpSpec("switch_case_stateful_branch",
           lambda x: dg.switch_case(dg.constant(5), [lambda: dg.sin(x)],
                                    default=lambda: x * x + _stateful_zero(x)),
           lambda x: x * x, inputs(normal(3))),
    OpSpec("cond_true", lambda x: dg.cond(dg.reduce_sum(x) > -100.0, lambda: x * x,
                                          lambda: dg.sin(x)),
           lambda x: x * x, inputs(normal(3))),
    OpSpec("cond_false", lambda x: dg.cond(dg.reduce_sum(x) > 100.0, lambda: x * x,
                                           lambda: dg.sin(x)),
           np.sin, inputs(normal(3))),
    OpSpec("while_loop", lambda x: dg.while_loop(lambda i, y: i < 3,
                                                 lambda i, y: (i + 1, dg.sin(y) * x), (0, x))[1],
           _np_loop, inputs(normal(2, 2))),
    OpSpec("tensor_array", lambda x: dg.TensorArray(dg.float64, size=2).unstack(x)
           .write(1, dg.sin(x[0])).stack(),
           lambda x: np.stack([x[0], np.sin(x[0])]), inputs(normal(2, 3))),
    OpSpec("tensor_array_mask_rows", lambda g: mask_rows(g, [1], 4), _np_mask_rows,
           inputs(normal(3, 2))),
    OpSpec("scatter_rows_to_dense",
           lambda v: dense_gradient(dg.IndexedSlices(v, dg.constant([2, 0, 2]),
                                                     dg.constant([4, 2]))),
           _np_scatter_rows, inputs(normal(3, 2))),
]
