"""dg.compat.v1.saved_model.load: a SavedModel's main graph into a Session (TF1's loader).

TF1 SavedModels (simple_save, SavedModelBuilder) hold no object graph: their
MetaGraphDef's `graph_def` is run in a Session by signature tensor names. The
loader imports the part of that graph the SignatureDefs need (not the saver's
or the initializers' nodes), with every variable of it made a duograd graph
variable holding its value from `variables/` (read by its node name, the key a
TF1 Saver writes, or its shared_name) and initialized in `sess`; tensor names
stay those of the file, so `sess.run(signature.outputs[k].name, {...})` works.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, List, Optional

from ..framework.errors import DataLossError
from .bundle import BundleReader
from .graph_export import extract_sub_graph
from .graph_import import VARIABLE_NODE_OPS, _Importer
from .saved_model_load import VARIABLES_DIRECTORY, VARIABLES_FILENAME, read_meta_graph
from .tensor_proto import dtype_from_enum


def _signature_nodes(meta_graph: Any) -> List[str]:
    names = []
    for signature in meta_graph.signature_def.values():
        for info in list(signature.inputs.values()) + list(signature.outputs.values()):
            if info.name:
                names.append(info.name.split(":")[0])
    return sorted(set(names))


def load(sess: Any, tags: Any, export_dir: str, import_scope: Optional[str] = None,
         **saver_kwargs: Any) -> Any:
    """Imports the SavedModel's signature graph into `sess.graph`; returns its MetaGraphDef."""
    import duograd as dg
    export_dir = os.fspath(export_dir)
    meta_graph = read_meta_graph(export_dir, tags)
    needed = extract_sub_graph(meta_graph.graph_def, _signature_nodes(meta_graph))
    variable_nodes = [n for n in needed.node if n.op in VARIABLE_NODE_OPS]
    variables: Dict[str, Any] = {}
    graph = sess.graph
    if variable_nodes:
        reader = BundleReader(os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME))
        with graph.as_default():
            for node in variable_nodes:
                shared = node.attr["shared_name"].s.decode() if "shared_name" in node.attr \
                    else ""
                key = node.name if node.name in reader.entries else shared
                if key not in reader.entries:
                    raise DataLossError(None, None, f"SavedModel {export_dir}: no value for "
                                        f"variable {node.name} in its variables checkpoint")
                dtype = dtype_from_enum(node.attr["dtype"].type, f"variable {node.name}")
                value = reader.get_tensor(key)
                if reader.dtype(key) != dtype:
                    raise DataLossError(None, None, f"SavedModel {export_dir}: variable "
                                        f"{node.name} is {dtype.name}, its value "
                                        f"{reader.dtype(key).name}")
                variables[node.name] = dg.Variable(value, name=node.name, dtype=dtype)
        sess.run([v.initializer for v in variables.values()])
    importer = _Importer(needed, {}, variables)
    order = importer.check()
    with graph.as_default():
        with (graph.name_scope(import_scope) if import_scope else contextlib.nullcontext()):
            importer.build(order)
    return meta_graph
