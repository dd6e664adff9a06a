"""write_graph and graph_util.convert_variables_to_constants (TF1's freezing)."""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

from ..framework import dtypes
from .atomic import atomic_output
from .graph_export import extract_sub_graph
from .protos import proto


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a Graph's (or a GraphDef's) GraphDef to `logdir/name`, as text or binary;
    returns the path."""
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    path = os.path.join(os.fspath(logdir), name)
    if as_text:
        from google.protobuf import text_format
        with atomic_output(path, "w") as stream:
            stream.write(text_format.MessageToString(graph_def))
    else:
        with atomic_output(path) as stream:
            stream.write(graph_def.SerializeToString())
    return path


def convert_variables_to_constants(sess: Any, input_graph_def: Any,
                                   output_node_names: Sequence[str],
                                   variable_names_whitelist: Optional[Sequence[str]] = None,
                                   variable_names_blacklist: Optional[Sequence[str]] = None
                                   ) -> Any:
    """The part of `input_graph_def` that `output_node_names` need, with each variable
    replaced by a Const of its value in `sess` and each read by an Identity (TF1)."""
    from ..training.trackable import read_value
    from .tensor_proto import from_ndarray
    graph_def = extract_sub_graph(input_graph_def, list(output_node_names))
    graph = sess.graph
    frozen: List[Any] = []
    out = proto("graph_pb2").GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    for node in graph_def.node:
        wanted = node.op == "VarHandleOp" and (
            variable_names_whitelist is None or node.name in variable_names_whitelist) and (
            not variable_names_blacklist or node.name not in variable_names_blacklist)
        if wanted:
            variable = graph.get_operation_by_name(node.name).get_attr("variable")
            value = read_value(variable, sess)
            const = out.node.add(name=node.name, op="Const", device=node.device)
            dtype = dtypes.as_dtype(variable.dtype)
            const.attr["dtype"].type = node.attr["dtype"].type
            const.attr["value"].tensor.CopyFrom(from_ndarray(value, dtype))
            frozen.append(node.name)
        elif node.op == "ReadVariableOp" and _source(node.input[0]) in frozen:
            identity = out.node.add(name=node.name, op="Identity", device=node.device)
            identity.input.extend(node.input)
            identity.attr["T"].type = node.attr["dtype"].type
        else:
            out.node.add().CopyFrom(node)
    return out


def _source(text: str) -> str:
    return text.lstrip("^").split(":")[0]
