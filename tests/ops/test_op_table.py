"""The one data-driven op test (STYLE.md 10): every row, forward and gradients, both modes."""
from __future__ import annotations


import numpy as np
import pytest

import duograd as dg
import op_tables
from duograd.framework.registry import gradient_functions, op_defs
from gradcheck import check_grads
from modes import run_eager



TABLE = op_tables.all_rows()


def _graph(spec, args, unknown_dims=False):
    g = dg.Graph()
    with g.as_default():
        ps = [dg.placeholder(dg.as_dtype(a.dtype), [None] * a.ndim if unknown_dims else a.shape)
              for a in args]
        out = spec.fn(*ps)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        with dg.Session(graph=g) as sess:
            values = sess.run(outs, dict(zip(ps, args)))
    for t, v in zip(outs, values):
        assert t.dtype.as_numpy_dtype == np.asarray(v).dtype, (t, v.dtype)
        assert t.shape.is_compatible_with(np.shape(v)), (t.shape, np.shape(v))
    return values if isinstance(out, (list, tuple)) else values[0]


@pytest.mark.parametrize("spec", TABLE, ids=repr)
def test_forward_matches_numpy_and_graph_matches_eager(spec):
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(0))]
    eager = run_eager(spec.fn, *args)
    if spec.ref is not None:
        np.testing.assert_allclose(np.asarray(eager, dtype=np.asarray(eager).dtype),
                                   spec.ref(*args), rtol=spec.rtol, atol=spec.atol)
    for unknown in (False, True):
        graph = _graph(spec, args, unknown)
        for e, g in zip(eager if isinstance(eager, list) else [eager],
                        graph if isinstance(eager, list) else [graph]):
            assert np.asarray(e).dtype == np.asarray(g).dtype
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=0)


@pytest.mark.parametrize("spec", [s for s in TABLE if s.order], ids=repr)
def test_gradients_match_central_differences(spec):
    args = [np.asarray(a) for a in spec.make(np.random.default_rng(1))]
    check_grads(spec.fn, args, order=spec.order, eps=spec.eps, rtol=spec.grad_rtol)


# Op types exercised elsewhere (not reachable from a table row), with where.
EXEMPT = {
    "Placeholder": "every graph-mode row feeds placeholders",
    "NoOp": "framework/test_graph.py (group, control_dependencies)",
    "PrintV2": "ops/debugging/test_print.py (no outputs; prints in both modes)",
    "Assert": "ops/debugging/test_debugging.py (no outputs; raises in both modes)",
    "WriteSummary": "training/test_summary.py (eager, graph, dg.function)",
    "ScalarSummary": "training/test_summary.py (TF1 protos)",
    "HistogramSummary": "training/test_summary.py (TF1 protos)",
    "MergeSummary": "training/test_summary.py (TF1 protos)",
    "ResourceSparseApplyRule": "ops/array/test_lazy_sparse.py, ops/array/test_sparse_updates.py (eager, graph, dg.function)",
    "MakeIterator": "data/test_graph_modes.py (Session, dg.function)",
    "IteratorGetNext": "data/test_graph_modes.py (Session, against TF's sequences)",
    "IteratorGetNextAsOptional": "data/test_graph_modes.py (for-loops in dg.function)",
    "OptionalGetValue": "data/test_graph_modes.py (for-loops in dg.function)",
    "RandomPoissonV2": "ops/random/test_poisson.py (eager and Session; samples by moments)",
    "DatasetCardinality": "data/test_function_datasets.py (a dataset argument in dg.function)",
    "DatasetVariant": "data/test_function_datasets.py (a dataset made in a graph, passed on)",
    "ObjectVariant": "data/test_function_datasets.py (an iterator passed on inside a function)",
    **{op: "data/test_function_datasets.py (an eager iterator as a dg.function argument)"
       for op in ("IteratorArgumentGetNext", "IteratorArgumentGetNextAsOptional",
                  "IteratorArgumentOptionalGetValue")},
    "MirroredReplicaCall": "distribute/test_mirrored_in_function.py (against the eager run, TF)",
    **{op: "ops/nn/test_gelu_op.py (eager only: graphs keep TF's composite, which the "
           "nn.gelu rows cover; against TF 2.21 to second order, numerically, forward mode)"
       for op in ("Gelu", "GeluGrad")},
    "Moments": "ops/nn/test_moments_op.py (eager only: graphs keep TF's composite, which the "
               "nn.moments rows cover; against TF 2.21, bit-equal to the composite, "
               "numerically, second order, forward mode)",
    **{op: "ops/strings/test_string_ops.py (string inputs or outputs, never differentiable; "
           "eager, Session and dg.function)"
       for op in ("AsString", "ReduceJoin", "StaticRegexFullMatch", "StringCase", "StringFormat",
                  "StringJoin", "StringLength", "StringSplitScalar", "StringToNumber")},
    **{op: "ops/strings/test_reduce_join_axis_and_ragged_split.py (strings.split of tensors "
           "and dg.RaggedTensor.to_tensor; eager and Session)"
       for op in ("StringSplitV2", "RaggedTensorToTensor")},
}

# Ops TensorFlow registers no gradient for (differentiating through them raises
# LookupError, tested in ops/array/test_arrays.py), so they have neither a gradient nor
# NotDifferentiable here either.
NO_GRADIENT_AS_IN_TF = {"Unique", "TruncateMod", "IgammaGradA", "MaxPoolGradWithArgmax",
                        "LRNGrad", "Dilation2DBackpropInput", "Dilation2DBackpropFilter",
                        "RandomGammaGrad", "FractionalMaxPoolGrad", "FractionalAvgPoolGrad",
                        # dg.data's iterator ops: sources of a graph, no gradient to ask for
                        "MakeIterator", "IteratorGetNext", "IteratorGetNextAsOptional",
                        "OptionalGetValue", "DatasetCardinality", "DatasetVariant",
                        "ObjectVariant", "IteratorArgumentGetNext",
                        "IteratorArgumentGetNextAsOptional",
                        "IteratorArgumentOptionalGetValue",
                        # the replicas' calls of MirroredStrategy.run in a graph: the
                        # replica function differentiates inside (its tape), not through it
                        "MirroredReplicaCall"}


def test_every_declared_op_has_a_row_and_a_gradient_decision():
    covered = set()
    for spec in TABLE:
        covered |= op_tables.op_types_of(spec)
    missing = sorted(t for t in op_defs if t not in covered and t not in EXEMPT)
    assert not missing, f"ops with no op-table row: {missing}"
    undecided = sorted(t for t in op_defs
                       if t not in gradient_functions and t not in NO_GRADIENT_AS_IN_TF)
    assert not undecided, f"ops with neither a gradient nor NotDifferentiable: {undecided}"
