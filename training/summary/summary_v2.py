"""dg.summary: TF2's summary API (create_file_writer, scalar, histogram, text, graph).

A summary call adds a WriteSummary op: in eager mode it runs at once; in a
graph or a dg.function it runs whenever the graph runs (so a function
writes on every call, not when traced). Without a default writer nothing is
written and the call returns False, as in TF.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator, Optional

import numpy as np

from ...eager import context
from ...framework import dtypes
from ...ops.math import math_ops
from ...ops.constant_op import constant, convert_to_tensor
from ...ops.array.array_ops import identity
from ...ops.dispatch import apply_op
from ...ops.functions.function import log_traced_graphs
from ...formats.graph_export import graph_to_graph_def
from .summary_ops import WRITE_SUMMARY
from .writer import SummaryWriter, current_step, current_writer

_state = context.state


class _RecordIf(context.OwnedThreadState):
    """This thread's dg.summary.record_if condition."""

    def __init__(self) -> None:
        self.condition: Any = True


_record_if = context.owned_state(_RecordIf)
DEFAULT_BUCKET_COUNT = 30


def create_file_writer(logdir: str, max_queue: Optional[int] = None,
                       flush_millis: Optional[int] = None, filename_suffix: Optional[str] = None,
                       name: Optional[str] = None,
                       experimental_trackable: bool = False) -> SummaryWriter:
    """A writer of a new events file in `logdir` (created if missing)."""
    if logdir is None:
        raise ValueError("Expected logdir to be a string, got None")
    return SummaryWriter(os.fspath(logdir), max_queue=10 if max_queue is None else max_queue,
                         flush_secs=120.0 if flush_millis is None else flush_millis / 1000.0,
                         filename_suffix=filename_suffix)


def _tag(name: str) -> str:
    graph = _state.graph
    scope = graph.get_name_scope() if graph is not None else _state.name_scope.rstrip("/")
    return f"{scope}/{name}" if scope else name


def _step_tensor(step: Any) -> Any:
    if step is None:
        step = current_step()
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tf.summary.experimental.set_step()")
    step = convert_to_tensor(step)
    if step.dtype != dtypes.int64:
        step = math_ops.cast(step, dtypes.int64)
    return step


def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None,
          name: Optional[str] = None, plugin: str = "scalars", description: str = "",
          buckets: Any = None, options: Any = None) -> Any:
    """Writes `tensor` under `tag` at `step` to the default writer; returns a bool tensor
    (False when there is no default writer)."""
    writer = current_writer()
    if writer is None or not _recording():
        return constant(False)
    attrs = {"writer": writer, "tag": tag, "plugin": plugin, "description": description or "",
             "buckets": buckets, "options": options}
    inputs: tuple
    if _is_text(tensor):  # strings travel as an attr: dg tensors hold no strings
        inputs = (_step_tensor(step),)
        attrs["constant"] = np.array(tensor, dtype=object)
    else:
        inputs = (_step_tensor(step), convert_to_tensor(tensor))
    op = apply_op(WRITE_SUMMARY, inputs, attrs, name or "write_summary")
    if op is None:  # eager: already written
        return constant(True)
    with _state.graph.control_dependencies([op]):
        return identity(constant(True))


def _recording() -> bool:
    """record_if's condition now: a bool, a callable returning one, or an eager tensor
    (a graph tensor counts as True: the condition is read when the summary is built)."""
    condition = _record_if.condition
    if callable(condition):
        condition = condition()
    if getattr(condition, "graph", None) is not None and _state.graph is not None:
        return True
    return bool(condition)


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Summaries written inside are recorded only while `condition` holds."""
    outer = _record_if.condition
    _record_if.condition = condition
    try:
        yield
    finally:
        _record_if.condition = outer


def should_record_summaries() -> bool:
    return current_writer() is not None and _recording()


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir: Any = None) -> None:
    """Starts recording the graphs that dg.function traces from now on (`trace_export`
    writes them); the profiler is not available (duograd records no kernel timings)."""
    log_traced_graphs(graph)


def trace_off() -> None:
    """Stops and discards the trace."""
    log_traced_graphs(False)


def trace_export(name: str, step: Any = None, profiler_outdir: Any = None) -> None:
    """Writes the graphs traced since trace_on to the default writer, then stops tracing
    (as TF; without a default writer nothing is written)."""
    graphs = log_traced_graphs(False)
    writer = current_writer()
    if writer is None:
        return
    step_value = current_step() if step is None else step
    if step_value is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tf.summary.experimental.set_step()")
    for traced in graphs:
        writer.write_graph_def(graph_to_graph_def(traced, add_shapes=True), step=int(step_value))


def _is_text(value: Any) -> bool:
    """Python strings (or nested lists / object arrays of them), not tensors."""
    if isinstance(value, (str, bytes)):
        return True
    if not isinstance(value, (list, tuple, np.ndarray)):
        return False
    flat = np.asarray(value, dtype=object).ravel()
    return len(flat) > 0 and all(isinstance(v, (str, bytes)) for v in flat)


def scalar(name: str, data: Any, step: Any = None, description: Optional[str] = None) -> Any:
    """Writes a scalar (as float32) for the scalars dashboard."""
    return write(_tag(name), math_ops.cast(convert_to_tensor(data), dtypes.float32), step,
                 plugin="scalars", description=description or "")


def histogram(name: str, data: Any, step: Any = None, buckets: Optional[int] = None,
              description: Optional[str] = None) -> Any:
    """Writes a histogram of `data` ([buckets, 3]: left edge, right edge, count)."""
    return write(_tag(name), math_ops.cast(convert_to_tensor(data), dtypes.float64), step,
                 plugin="histograms", description=description or "",
                 buckets=DEFAULT_BUCKET_COUNT if buckets is None else int(buckets))


def text(name: str, data: Any, step: Any = None, description: Optional[str] = None) -> Any:
    """Writes a string tensor for the text dashboard."""
    return write(_tag(name), data, step, plugin="text",
                 description=description or "")


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: Optional[str] = None) -> Any:
    """Writes up to `max_outputs` images ([k, h, w, c]; floats in [0, 1] or uint8) as PNG."""
    return write(_tag(name), convert_to_tensor(data), step, plugin="images",
                 description=description or "", options={"max_outputs": int(max_outputs)})


def audio(name: str, data: Any, sample_rate: Any, step: Any = None, max_outputs: int = 3,
          encoding: Optional[str] = None, description: Optional[str] = None) -> Any:
    """Writes up to `max_outputs` clips ([k, frames, channels] in [-1, 1]) as WAV."""
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}")
    return write(_tag(name), math_ops.cast(convert_to_tensor(data), dtypes.float32), step,
                 plugin="audio", description=description or "",
                 options={"max_outputs": int(max_outputs), "sample_rate": int(sample_rate)})


def graph(graph_data: Any) -> bool:
    """Writes a graph (a dg.Graph, a dg.function's concrete function, or a GraphDef proto)
    for the graph dashboard; False when there is no default writer."""
    writer = current_writer()
    if writer is None:
        return False
    if hasattr(graph_data, "get_operations"):
        graph_def = graph_to_graph_def(graph_data, add_shapes=True)
    elif hasattr(graph_data, "graph") and hasattr(graph_data.graph, "get_operations"):
        graph_def = graph_to_graph_def(graph_data.graph, add_shapes=True)
    elif hasattr(graph_data, "SerializeToString"):
        graph_def = graph_data
    else:
        raise ValueError(f"Expected a dg.Graph or a GraphDef proto, got {type(graph_data)}")
    writer.write_graph_def(graph_def, step=0)
    return True


def flush(writer: Optional[SummaryWriter] = None, name: Optional[str] = None) -> None:
    """Flushes `writer` (default: the default writer)."""
    writer = writer if writer is not None else current_writer()
    if writer is not None:
        writer.flush()


SUMMARY_NAMES = {"create_file_writer": create_file_writer, "SummaryWriter": SummaryWriter,
                 "scalar": scalar, "histogram": histogram, "text": text, "graph": graph,
                 "write": write, "flush": flush, "image": image, "audio": audio,
                 "record_if": record_if, "should_record_summaries": should_record_summaries,
                 "trace_on": trace_on, "trace_off": trace_off, "trace_export": trace_export}
