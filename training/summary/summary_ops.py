"""Summary ops, so summaries inside graphs and dg.function are written when the op runs.

WriteSummary (TF2): a stateful op with no outputs (so a dg.function runs it
on every call, as TF's automatic control dependencies do) that turns its
step and tensor into a Summary proto and appends it to the writer in its
attrs. ScalarSummary, HistogramSummary, MergeSummary (TF1): pure ops that
produce a serialized Summary proto as a string scalar.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...framework import dtypes
from ...framework.errors import InvalidArgumentError
from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ...grad_registry.registry import NotDifferentiable
from . import media
from .histogram import histogram_fields
from .tensorboard_support import tb


def summary_proto(plugin: str, tag: str, value: np.ndarray, description: str,
                  buckets: Any, options: Any = None) -> Any:
    """A TF2-style Summary (a tensor with its plugin's metadata) for one value."""
    if plugin == "images":
        return media.image_summary(tag, value, description, options["max_outputs"])
    if plugin == "audio":
        return media.audio_summary(tag, value, description, options["max_outputs"],
                                   options["sample_rate"])
    if plugin == "histograms":
        return tb("histogram_summary").histogram_pb(tag, value, buckets=buckets,
                                                    description=description or None)
    if plugin == "text":
        return tb("text_summary").text_pb(tag, _text(value), description=description or None)
    metadata = tb("scalar_metadata").create_summary_metadata(display_name=tag,
                                                             description=description)
    summary = tb("summary_pb2").Summary()
    summary.value.add(tag=tag, metadata=metadata,
                      tensor=tb("tensor_util").make_tensor_proto(np.float32(value)))
    return summary


def _text(value: np.ndarray) -> np.ndarray:
    out = np.empty(np.shape(value), dtype=object)
    out.ravel()[:] = [v.decode() if isinstance(v, bytes) else str(v)
                      for v in np.asarray(value, dtype=object).ravel()]
    return out


def _write_kernel(resources: Any, step: np.ndarray, *tensor: np.ndarray, writer: Any, tag: str,
                  plugin: str, description: str, buckets: Any, constant: Any = None,
                  options: Any = None) -> None:
    """Writes the tensor input, or (strings, which tensors cannot hold) the `constant` attr."""
    value = tensor[0] if tensor else constant
    writer.write_summary(summary_proto(plugin, tag, value, description, buckets, options),
                         int(step))


def _no_outputs(inputs, attrs):
    return []


def _string_scalar(inputs, attrs):
    return [(dtypes.string, TensorShape(()))]


def _serialized(summary: Any) -> Any:
    """The serialized proto as a string scalar: `bytes` (a np.bytes_), as TF's Session returns."""
    return np.bytes_(summary.SerializeToString())


def _scalar_summary_kernel(values: np.ndarray, *, tag: str) -> np.ndarray:
    if np.ndim(values) != 0:
        raise InvalidArgumentError(None, None, f"ScalarSummary '{tag}': tags and values are "
                                   f"not the same shape: [] != {list(np.shape(values))}")
    summary = tb("summary_pb2").Summary()
    summary.value.add(tag=tag, simple_value=float(values))
    return _serialized(summary)


def _histogram_summary_kernel(values: np.ndarray, *, tag: str) -> np.ndarray:
    data = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(data)):
        raise InvalidArgumentError(None, None, f"HistogramSummary '{tag}': Nan in summary "
                                   "histogram for: " + tag)
    summary = tb("summary_pb2").Summary()
    summary.value.add(tag=tag, histo=tb("summary_pb2").HistogramProto(**histogram_fields(data)))
    return _serialized(summary)


def _merge_summary_kernel(*inputs: np.ndarray) -> np.ndarray:
    merged = tb("summary_pb2").Summary()
    seen = set()
    for serialized in inputs:
        part = tb("summary_pb2").Summary()
        part.ParseFromString(bytes(serialized[()] if isinstance(serialized, np.ndarray)
                                   else serialized))
        for value in part.value:
            if value.tag in seen:
                raise InvalidArgumentError(None, None, f"MergeSummary: Duplicate tag {value.tag} "
                                           "found in summary inputs")
            seen.add(value.tag)
            merged.value.add().CopyFrom(value)
    return _serialized(merged)


WRITE_SUMMARY = declare_op("WriteSummary", _write_kernel, _no_outputs, stateful=True,
                           num_outputs=0, grad_inputs=())
SCALAR_SUMMARY = declare_op("ScalarSummary", _scalar_summary_kernel, _string_scalar,
                            grad_inputs=())
HISTOGRAM_SUMMARY = declare_op("HistogramSummary", _histogram_summary_kernel, _string_scalar,
                               grad_inputs=())
MERGE_SUMMARY = declare_op("MergeSummary", _merge_summary_kernel, _string_scalar,
                           grad_inputs=())
for _op_type in ("WriteSummary", "ScalarSummary", "HistogramSummary", "MergeSummary"):
    NotDifferentiable(_op_type)
