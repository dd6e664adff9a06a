"""dg.compat.v1.summary: TF1's summary ops and FileWriter (graph mode).

`scalar`/`histogram` add ops producing serialized Summary protos and add
them to the graph's "summaries" collection; `merge_all` merges that
collection; `FileWriter(logdir, graph)` writes what `add_summary` gets and
the graph (forward and gradient ops, with their name scopes) for
TensorBoard's graph dashboard.
"""
from __future__ import annotations

import logging
import os
import re
from typing import Any, List, Optional

import numpy as np

from ...eager import context
from ...ops.constant_op import convert_to_tensor
from ...ops.dispatch import apply_op
from ...formats.graph_export import graph_to_graph_def
from .summary_ops import HISTOGRAM_SUMMARY, MERGE_SUMMARY, SCALAR_SUMMARY
from .tensorboard_support import tb
from .writer import SummaryWriter

_state = context.state
_log = logging.getLogger("duograd")
SUMMARIES = "summaries"


_ILLEGAL_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name: str) -> str:
    """TF1's summary name rule: characters other than letters, digits, `_-/.` become
    `_`, and leading slashes go (`"loss value (avg)"` -> `"loss_value__avg_"`)."""
    cleaned = _ILLEGAL_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        _log.info("Summary name %s is illegal; using %s instead.", name, cleaned)
    return cleaned


def _summary_op(op_def: Any, name: str, tensor: Any, collections: Optional[List[str]],
                family: Optional[str]) -> Any:
    graph = _state.graph
    name = clean_tag(name)
    base = f"{family}/{name}" if family else name
    if graph is None:  # eager: the serialized bytes (eager dg tensors hold no strings)
        return bytes(op_def.kernel(convert_to_tensor(tensor).numpy(), tag=base))
    tag = graph.unique_name(base, mark_as_used=False)  # the op's name: TF1's tag
    out = apply_op(op_def, (convert_to_tensor(tensor),), {"tag": tag}, base)
    for key in (collections if collections is not None else [SUMMARIES]):
        graph.add_to_collection(key, out)
    return out


def scalar(name: str, tensor: Any, collections: Optional[List[str]] = None,
           family: Optional[str] = None) -> Any:
    """A string tensor: a Summary with `tensor`'s value (`simple_value`); the tag is the
    op's scoped, uniquified name, as in TF1."""
    return _summary_op(SCALAR_SUMMARY, name, tensor, collections, family)


def histogram(name: str, values: Any, collections: Optional[List[str]] = None,
              family: Optional[str] = None) -> Any:
    """A string tensor: a Summary with TF's HistogramProto of `values`."""
    return _summary_op(HISTOGRAM_SUMMARY, name, values, collections, family)


def merge(inputs: List[Any], collections: Optional[List[str]] = None,
          name: Optional[str] = None) -> Any:
    """One Summary holding the values of every input Summary (duplicate tags are an error)."""
    if _state.graph is None:
        raise RuntimeError("Merging tf.summary.* ops is not compatible with eager execution. "
                           "Use tf.contrib.summary instead.")
    with _state.graph.name_scope(name or "Merge"):
        out = apply_op(MERGE_SUMMARY, [convert_to_tensor(t) for t in inputs], {}, "MergeSummary")
    for key in collections or ():
        _state.graph.add_to_collection(key, out)
    return out


def merge_all(key: str = SUMMARIES, scope: Optional[str] = None, name: Optional[str] = None) -> Any:
    """Merges the graph's summaries in collection `key` (None if there are none)."""
    if _state.graph is None:
        raise RuntimeError("Merging tf.summary.* ops is not compatible with eager execution. "
                           "Use tf.contrib.summary instead.")
    summaries = [t for t in _state.graph.get_collection(key)
                 if scope is None or t.op.name.startswith(scope)]
    return merge(summaries, name=name) if summaries else None


class FileWriter:
    """Writes Summary protos and graphs to an events file (TF1's `summary.FileWriter`)."""

    def __init__(self, logdir: str, graph: Any = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def: Any = None,
                 filename_suffix: Optional[str] = None, session: Any = None) -> None:
        if _state.graph is None and graph is None and graph_def is None:
            raise RuntimeError("v1.summary.FileWriter is not compatible with eager execution. "
                               "Use `tf.summary.create_file_writer`,or a "
                               "`with v1.Graph().as_default():` context")
        self._writer = SummaryWriter(os.fspath(logdir), max_queue=max_queue,
                                     flush_secs=flush_secs, filename_suffix=filename_suffix)
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self) -> str:
        return self._writer.logdir

    def add_summary(self, summary: Any, global_step: Optional[int] = None) -> None:
        """Appends a Summary (serialized bytes, as `Session.run` returns, or a proto)."""
        if isinstance(summary, np.ndarray):
            summary = summary[()]
        if isinstance(summary, bytes):
            proto = tb("summary_pb2").Summary()
            proto.ParseFromString(summary)
            summary = proto
        self._writer.write_summary(summary, 0 if global_step is None else int(global_step))

    def add_graph(self, graph: Any, global_step: Optional[int] = None,
                  graph_def: Any = None) -> None:
        """Appends `graph` (a dg.Graph) or `graph_def` (a GraphDef proto)."""
        if graph_def is None:
            graph_def = graph_to_graph_def(graph, add_shapes=True)
        self._writer.write_graph_def(graph_def, 0 if global_step is None else int(global_step))

    def add_event(self, event: Any) -> None:
        self._writer.add_event(event)

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


COMPAT_V1_SUMMARY_NAMES = {"scalar": scalar, "histogram": histogram, "merge": merge,
                           "merge_all": merge_all, "FileWriter": FileWriter}
