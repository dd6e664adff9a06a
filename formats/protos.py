"""TensorFlow's protocol-buffer messages (GraphDef, MetaGraphDef, SavedObjectGraph, ...).

They come from the `tensorboard` package's `tensorboard.compat.proto` (TF's
own .proto files compiled, maintained with TensorBoard) and `protobuf`: the
optional extra `duograd[formats]`. Imported on first use, never by
`import duograd`; a missing package is an ImportError naming the extra.
"""
from __future__ import annotations

import types

from ..framework.extras import optional_module

_MODULES = {name: f"tensorboard.compat.proto.{name}" for name in (
    "graph_pb2", "node_def_pb2", "attr_value_pb2", "tensor_pb2", "tensor_shape_pb2",
    "types_pb2", "versions_pb2", "function_pb2", "meta_graph_pb2",
    "saved_object_graph_pb2", "struct_pb2", "saver_pb2", "trackable_object_graph_pb2",
    "variable_pb2")}


def proto(name: str) -> types.ModuleType:
    """One compiled proto module by its short name (e.g. "graph_pb2")."""
    return optional_module(_MODULES[name], "formats",
                           f"Reading and writing TensorFlow's {name[:-4]} protos")


def decode_error() -> type:
    """protobuf's DecodeError class (raised by ParseFromString on malformed bytes)."""
    proto("graph_pb2")
    from google.protobuf.message import DecodeError
    return DecodeError
