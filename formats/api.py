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


def load(export_dir: str, tags: Any = None, options: Any = None) -> Any:
    """dg.saved_model.load: a SavedModel TF wrote, as duograd objects (formats extra)."""
    from .saved_model_load import load as load_saved_model
    return load_saved_model(export_dir, tags, options)


def save(obj: Any, export_dir: str, signatures: Any = None, options: Any = None) -> None:
    """dg.saved_model.save: `obj` as a SavedModel TF 2.21 loads (formats extra)."""
    from .saved_model_save import save as save_saved_model
    save_saved_model(obj, export_dir, signatures, options)


def contains_saved_model(export_dir: str) -> bool:
    import os
    return os.path.isfile(os.path.join(os.fspath(export_dir), "saved_model.pb"))


SAVED_MODEL_NAMES = {"load": load, "save": save, "contains_saved_model": contains_saved_model,
                     "DEFAULT_SERVING_SIGNATURE_DEF_KEY": "serving_default",
                     "SAVED_MODEL_FILENAME_PB": "saved_model.pb",
                     "VARIABLES_DIRECTORY": "variables", "VARIABLES_FILENAME": "variables",
                     "SERVING": "serve"}
def load_v1(sess: Any, tags: Any, export_dir: str, import_scope: Any = None,
            **saver_kwargs: Any) -> Any:
    """dg.compat.v1.saved_model.load: a SavedModel's main graph into `sess`."""
    from .saved_model_v1 import load as load_into_session
    return load_into_session(sess, tags, export_dir, import_scope, **saver_kwargs)


TAG_CONSTANTS = {"SERVING": "serve", "TRAINING": "train", "GPU": "gpu", "TPU": "tpu"}
GRAPH_UTIL_NAMES = {"convert_variables_to_constants": convert_variables_to_constants,
                    "extract_sub_graph": extract_sub_graph}
IO_NAMES = {"write_graph": write_graph}
COMPAT_V1_NAMES = {"import_graph_def": import_graph_def}

__all__ = ["import_graph_def", "write_graph", "convert_variables_to_constants", "as_graph_def"]
