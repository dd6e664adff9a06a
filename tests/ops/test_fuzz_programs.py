"""Differential fuzzing: random programs agree across every way of differentiating them.

Hypothesis generates programs (fuzz_programs.py); for each, the loss and its
gradients from the eager tape, from graph `dg.gradients` run by a Session,
from a tape inside `dg.function`, from a tape around a `dg.function` call and
from central finite differences must agree; a third of them also check
Hessian-vector products (nested tapes, gradients of gradients in a graph,
finite differences of the gradient).

Budget: `make test` runs the "dev" profile (a few dozen derandomized
programs); `make fuzz` runs the "fuzz" profile (DUOGRAD_FUZZ_EXAMPLES
programs, 3000 by default, new random ones each run).
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_programs import (BINARY, KINK_MARGIN, REDUCTIONS, UNARY, Node, Program, directions, finite_differences,
                           forward_arrays, hvp_eager, hvp_finite_differences, hvp_graph,
                           inputs_of, programs, run_eager, run_function,
                           run_function_outer_tape, run_graph)

settings.register_profile("fuzz-dev", max_examples=40, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("fuzz", max_examples=int(os.environ.get("DUOGRAD_FUZZ_EXAMPLES",
                                                                  "3000")),
                          deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
PROFILE = settings.get_profile("fuzz" if os.environ.get("DUOGRAD_FUZZ") else "fuzz-dev")

RTOL, ATOL = 1e-6, 1e-8      # between exact settings
FD_RTOL, FD_ATOL = 2e-5, 2e-6  # against finite differences


def _close(actual, expected, rtol, atol, what, program, extra_atol=0.0):
    for k, (a, e) in enumerate(zip(actual, expected)):
        scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol * scale + extra_atol,
                                   err_msg=f"{what}, input {k}\n{program.describe()}")


def check_program(program: Program, second_order: bool) -> None:
    args = inputs_of(program)
    loss, smallest_margin = forward_arrays(program, args)
    eager_loss, eager = run_eager(program, args)
    for name, run in (("graph gradients", run_graph), ("tape inside dg.function", run_function),
                      ("tape around dg.function", run_function_outer_tape)):
        other_loss, other = run(program, args)
        np.testing.assert_allclose(other_loss, eager_loss, rtol=RTOL, atol=ATOL,
                                   err_msg=f"{name} loss\n{program.describe()}")
        _close(other, eager, RTOL, ATOL, f"{name} vs eager tape", program)
    np.testing.assert_allclose(eager_loss, loss, rtol=RTOL, atol=ATOL)
    if smallest_margin < KINK_MARGIN:
        return  # finite differences would straddle a kink
    # Central differences lose about eps_machine * |loss| / eps to rounding.
    rounding = 1e-8 * abs(loss)
    _close(eager, finite_differences(program, args), FD_RTOL, FD_ATOL,
           "eager tape vs finite differences", program, rounding)
    if second_order:
        vs = directions(program, args)
        hvp = hvp_eager(program, args, vs)
        _close(hvp_graph(program, args, vs), hvp, RTOL, ATOL,
               "graph gradients of gradients vs nested tapes", program)
        _close(hvp, hvp_finite_differences(program, args, vs), 1e-4, 1e-5,
               "nested tapes vs finite differences of the gradient", program)


@PROFILE
@given(program=programs(), second_order=st.integers(0, 2).map(lambda k: k == 0))
def test_random_programs_agree(program, second_order):
    with np.errstate(all="ignore"):
        check_program(program, second_order)


# Shrunk failures found by the fuzzer, kept as regressions. Each failed before
# gradient functions accepted an IndexedSlices upstream gradient (from gather):
# Mean's gradient divided it, MirrorPad's kernel and BroadcastTo/Add's
# sum_to_shape could not take it as an input.
REGRESSIONS = {
    "mean_then_gather": Program(
        [(1, 1), (1, 1)],
        [Node("atan", (0,)), Node("reduce_mean", (2,), (0, False)),
         Node("gather", (3,), (0, (0, 0)))],
        [(1, 1), (1, 1), (1, 1), (1,), (2,)], seed=3),
    "reflect_pad_then_gather": Program(
        [(1, 3)],
        [Node("sqrt1p_sq", (0,)), Node("pad", (1,), (((0, 0), (1, 1)), "REFLECT")),
         Node("gather", (2,), (0, (0, 0, 0, 0)))],
        [(1, 3), (1, 3), (1, 5), (4, 5)], seed=477),
    "add_then_gather": Program(
        [(3, 2, 3), ()], [Node("add", (0, 0)), Node("gather", (2,), (0, (1,)))],
        [(3, 2, 3), (), (3, 2, 3), (1, 2, 3)], seed=943),
    "broadcast_to_then_gather": Program(
        [(), (1, 1, 1)],
        [Node("expand_dims", (0,), (0,)), Node("gather", (2,), (0, (0, 0, 0))),
         Node("stack", (3, 3), (1,)), Node("concat", (4, 4), (1,)),
         Node("reduce_prod", (5,), (None, True)), Node("transpose", (6,), ((1, 0),)),
         Node("reshape", (7,), ((1, 1),)), Node("gather", (8,), (1, (0, 0, 0, 0))),
         Node("reshape", (9,), ((4,),)), Node("broadcast_to", (10,), ((4,),)),
         Node("gather", (11,), (0, (0, 1, 1)))],
        [(), (1, 1, 1), (1,), (3,), (3, 2), (3, 4), (1, 1), (1, 1), (1, 1), (1, 4), (4,),
         (4,), (3,)], seed=4484),
}


@pytest.mark.parametrize("program", list(REGRESSIONS.values()), ids=list(REGRESSIONS))
def test_regressions(program):
    with np.errstate(all="ignore"):
        check_program(program, second_order=True)


def test_generated_programs_use_every_op_kind():
    """The generator reaches every kind of op (the fuzzer is not vacuous)."""
    seen = set()

    @settings(max_examples=300, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(program):
        seen.update(n.op for n in program.nodes)
    collect()
    for op in ("matmul", "gather", "concat", "stack", "where", "cond", "slice", "reshape",
               "transpose", "broadcast_to", "tile", "expand_dims"):
        assert op in seen, op
    assert len(seen & set(UNARY)) >= 10 and len(seen & set(BINARY)) >= 5
    assert len(seen & set(REDUCTIONS)) >= 4
