"""The public names of TensorFlow's file formats (assembled into dg.* in namespaces.py).

Importing this module imports no protobuf: each function loads the `formats`
extra when called.
"""
from __future__ import annotations

from typing import Any

from .graph_import import import_graph_def
from .graph_io import convert_variables_to_constants, write_graph


def as_graph_def(graph: Any, from_version: Any = None, add_shapes: bool = False) -> Any:
    """`graph` as a GraphDef in TensorFlow's conventions (Graph.as_graph_def)."""
    from .graph_export import graph_to_graph_def
    return graph_to_graph_def(graph, add_shapes=add_shapes)


def extract_sub_graph(graph_def: Any, dest_nodes: Any) -> Any:
    from .graph_export import extract_sub_graph as extract
    return extract(graph_def, list(dest_nodes))


GRAPH_UTIL_NAMES = {"convert_variables_to_constants": convert_variables_to_constants,
                    "extract_sub_graph": extract_sub_graph}
IO_NAMES = {"write_graph": write_graph}
COMPAT_V1_NAMES = {"import_graph_def": import_graph_def}

__all__ = ["import_graph_def", "write_graph", "convert_variables_to_constants", "as_graph_def"]
