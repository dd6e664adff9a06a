"""The optional `tensorboard` package, imported on first use (extra `duograd[tensorboard]`)."""
from __future__ import annotations

import types

from ...framework.extras import optional_module

_MODULES = {
    "event_pb2": "tensorboard.compat.proto.event_pb2",
    "summary_pb2": "tensorboard.compat.proto.summary_pb2",
    "graph_pb2": "tensorboard.compat.proto.graph_pb2",
    "attr_value_pb2": "tensorboard.compat.proto.attr_value_pb2",
    "tensor_shape_pb2": "tensorboard.compat.proto.tensor_shape_pb2",
    "tensor_pb2": "tensorboard.compat.proto.tensor_pb2",
    "types_pb2": "tensorboard.compat.proto.types_pb2",
    "event_file_writer": "tensorboard.summary.writer.event_file_writer",
    "tensor_util": "tensorboard.util.tensor_util",
    "scalar_metadata": "tensorboard.plugins.scalar.metadata",
    "histogram_summary": "tensorboard.plugins.histogram.summary_v2",
    "text_summary": "tensorboard.plugins.text.summary_v2",
    "image_metadata": "tensorboard.plugins.image.metadata",
    "audio_metadata": "tensorboard.plugins.audio.metadata",
}


def tb(name: str) -> types.ModuleType:
    """One tensorboard module by its short name; a clear error if the extra is missing."""
    return optional_module(_MODULES[name], "tensorboard", "Writing summaries")
