"""`python -m benchmarks.profile CASE [--n N] [--top K]`: cProfile one duograd workload.

CASE is one of W1-eager, W1-graph, W2-eager, W2-graph, W4, W5-eager, W5-graph,
or micro (unprofiled per-call costs of the pieces of one eager op).
Prints the top functions by own time and by cumulative time, and the time
split by duograd module (dispatch, tape, backprop, gradient functions,
Session plan, NumPy kernels) that docs/performance.md quotes.
"""
from __future__ import annotations

from .pinning import pin_process

if __name__ == "__main__":
    pin_process("benchmarks.profile")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
from typing import Any, Callable, Dict, Tuple  # noqa: E402

import duograd as dg  # noqa: E402

from . import dg_workloads as w  # noqa: E402
from . import floor  # noqa: E402


def _case(name: str, n: int) -> Tuple[Callable[[], Any], int]:
    """(callable to profile, how many times to call it)."""
    if name in ("W1-eager", "W1-graph", "W5-eager"):
        data = floor.chain_data(n, (4,))
        step = w.chain_eager(data) if name.endswith("eager") else w.chain_session(data)
        step()
        return step, max(1, 20000 // n)
    if name == "W5-graph":
        data = floor.chain_data(n, (4,))
        return (lambda: w.chain_graph_oneshot(data)), 1
    if name in ("W2-eager", "W2-graph"):
        data = floor.mlp_data()
        step = w.mlp_eager(data) if name.endswith("eager") else w.mlp_session(data)
        step()
        return step, 10
    if name == "W4":
        data = floor.chain_data(n, (4,))
        graph = dg.Graph()
        with graph.as_default():
            x = dg.placeholder(dg.float64, [4])
            value = dg.reduce_sum(floor.chain(x, n, dg.sin, dg.tanh))

        def call():
            with graph.as_default():
                dg.gradients(value, x)
        return call, 1
    raise SystemExit(f"unknown case {name}")


# Where time goes, by the file a function lives in (own time, not cumulative).
BUCKETS = (("eager/execute.py", "eager execute (kernel call, wrap)"),
           ("ops/dispatch.py", "apply_op"),
           ("ops/op_helpers.py", "op helpers (scalar conversion, binary operands)"),
           ("ops/constant_op.py", "convert_to_tensor / constant"),
           ("eager/tape.py", "tape record"),
           ("eager/imperative_grad.py", "eager backprop loop"),
           ("<backward walk", "eager backprop loop (generated walk)"),
           ("eager/adjoint_programs.py", "adjoint program signatures and traces"),
           ("<duograd adjoint", "generated adjoint programs"),
           ("eager/eager_tensor.py", "EagerTensor (init, dtype, shape)"),
           ("framework/tensor.py", "Tensor operators"),
           ("framework/dtypes.py", "dtypes"),
           ("framework/tensor_shape.py", "TensorShape"),
           ("framework/tensor_spec.py", "TensorSpec"),
           ("grad_registry/", "gradient functions and registry"),
           ("framework/graph.py", "graph building (create_op, names)"),
           ("ops/gradients_util.py", "graph backprop (dg.gradients)"),
           ("framework/session.py", "Session (plan compile and run)"),
           ("<duograd", "generated Session plan"),
           ("ops/", "other op wrappers and shape rules"),
           ("benchmarks/", "the benchmark's own loop"))


def by_module(stats: pstats.Stats) -> Dict[str, float]:
    totals: Dict[str, float] = {}
    for (filename, _, func), (_, _, tottime, _, _) in stats.stats.items():
        label = "NumPy / builtins (kernels)"
        for fragment, name in BUCKETS:
            if fragment in filename:
                label = name
                break
        else:
            if filename == "~" or "numpy" in filename:
                label = "NumPy / builtins (kernels)"
            else:
                label = "other Python"
        totals[label] = totals.get(label, 0.0) + tottime
    return totals


def micro() -> None:
    """Unprofiled per-call costs (microseconds) of the pieces of one eager op."""
    import timeit  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415
    x_np = np.linspace(0.1, 0.4, 4)
    x = dg.constant(x_np)
    half = dg.constant(0.5, dtype=dg.float64)
    shape = x.shape
    cases = {
        "np.sin on (4,)": lambda: np.sin(x_np),
        "np.multiply(a, 0.5) on (4,)": lambda: np.multiply(x_np, 0.5),
        "dg.sin eager, no tape": lambda: dg.sin(x),
        "x * 0.5 eager, no tape (scalar converted)": lambda: x * 0.5,
        "x * half eager, no tape (tensor operand)": lambda: x * half,
        "EagerTensor.shape (builds a TensorShape)": lambda: x.shape,
        "EagerTensor.dtype": lambda: x.dtype,
        "dg.TensorShape((4,))": lambda: dg.TensorShape((4,)),
        "shape == shape": lambda: shape == shape,
        "dg.convert_to_tensor(0.5)": lambda: dg.convert_to_tensor(0.5),
    }
    number = 20000
    for label, fn in cases.items():
        best = min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6
        print(f"  {best:8.2f} us  {label}")
    with dg.GradientTape() as tape:
        tape.watch(x)
        taped = {"dg.sin eager, tape watching": lambda: dg.sin(x),
                 "x * 0.5 eager, tape watching": lambda: x * 0.5}
        for label, fn in taped.items():
            best = min(timeit.repeat(fn, number=2000, repeat=5)) / 2000 * 1e6
            print(f"  {best:8.2f} us  {label}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case")
    parser.add_argument("--n", type=int, default=1000, help="chain length (W1/W4/W5)")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if args.case == "micro":
        micro()
        return
    fn, calls = _case(args.case, args.n)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(v[2] for v in stats.stats.values())
    print(f"{args.case}, n={args.n}, {calls} calls, {total:.3f} s profiled "
          f"({total / calls * 1e3:.2f} ms per call)")
    print("\nOwn time by module:")
    for label, seconds in sorted(by_module(stats).items(), key=lambda kv: -kv[1]):
        print(f"  {seconds / total * 100:5.1f}%  {seconds / calls * 1e3:8.2f} ms/call  {label}")
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(args.top)
        print(f"\nTop {args.top} by {key}:")
        print("\n".join(out.getvalue().splitlines()[6:]))


if __name__ == "__main__":
    main()
