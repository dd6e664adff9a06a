"""dg.saved_model.load: a SavedModel written by TensorFlow, as duograd objects.

The directory holds `saved_model.pb` (a `SavedModel`: schema version 1 and
MetaGraphDefs, read by hand with `wire` for the outer message and with TF's
compiled protos for the MetaGraphDef) and `variables/variables.{index,data-*}`
(a checkpoint: formats.bundle). The MetaGraphDef's `object_graph_def` lists
the saved objects: user objects become `LoadedObject`s, variables
`dg.Variable`s holding the checkpoint's values (the checkpoint's object graph
numbers its nodes as the SavedObjectGraph does), functions callables running
their FunctionDefs on duograd's kernels (formats.function_run).
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from ..framework.errors import (DataLossError, InvalidArgumentError, NotFoundError,
                                UnimplementedError)
from . import structure, wire
from . import object_graph as checkpoint_graph
from .bundle import BundleReader
from .function_run import FunctionLibrary
from .protos import decode_error, proto
from .saved_model_objects import (LoadedConcreteFunction, LoadedFunction, LoadedObject,
                                  SignatureMap)
from .tensor_proto import dtype_from_enum, shape_from_proto

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"


def read_meta_graph(export_dir: str, tags: Optional[Any] = None) -> Any:
    """The MetaGraphDef of `export_dir` (the one with `tags`, default the first)."""
    path = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(None, None, f"SavedModel file does not exist at: {export_dir}"
                            f"{os.sep}{{saved_model.pbtxt|saved_model.pb}}") from None
    try:
        fields = wire.parse(data)
        graphs = wire.messages(fields, 2)
    except wire.WireError as error:
        raise DataLossError(None, None, f"{path} is not a SavedModel ({error})") from None
    if not graphs:
        raise DataLossError(None, None, f"{path} holds no MetaGraphDef")
    wanted = None if tags is None else sorted([tags] if isinstance(tags, str) else tags)
    for raw in graphs:
        meta_graph = proto("meta_graph_pb2").MetaGraphDef()
        try:
            meta_graph.ParseFromString(bytes(raw))
        except decode_error() as error:  # type: ignore[misc]  # protobuf's DecodeError class
            raise DataLossError(None, None, f"{path}: a malformed MetaGraphDef "
                                f"({error})") from None
        if wanted is None or sorted(meta_graph.meta_info_def.tags) == wanted:
            return meta_graph
    raise RuntimeError(f"MetaGraphDef associated with tags {wanted} could not be found in "
                       f"SavedModel, with available tags "
                       f"'{[list(proto_tags(g)) for g in graphs]}'.")


def proto_tags(raw: Any) -> List[str]:
    meta_graph = proto("meta_graph_pb2").MetaGraphDef()
    meta_graph.ParseFromString(bytes(raw))
    return list(meta_graph.meta_info_def.tags)


class _Loader:
    def __init__(self, export_dir: str, meta_graph: Any) -> None:
        self.export_dir = export_dir
        self.meta_graph = meta_graph
        self.graph = meta_graph.object_graph_def
        self.library = FunctionLibrary(meta_graph.graph_def.library,
                                       meta_graph.meta_info_def.stripped_op_list,
                                       f"SavedModel {export_dir}")
        self.objects: Dict[int, Any] = {}
        self.values = self._checkpoint_values()

    def _checkpoint_values(self) -> Dict[int, Any]:
        """node id -> saved value of each variable node (reader, key)."""
        prefix = os.path.join(self.export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
        if not any(n.WhichOneof("kind") == "variable" for n in self.graph.nodes):
            return {}
        reader = BundleReader(prefix)
        try:
            nodes = checkpoint_graph.decode(bytes(
                reader.get_tensor(checkpoint_graph.OBJECT_GRAPH_KEY)[()]))
        except wire.WireError as error:
            raise reader.corrupt(f"its object graph is malformed ({error})") from None
        except NotFoundError:
            raise reader.corrupt("it holds no object graph") from None
        return {index: (reader, node["key"]) for index, node in enumerate(nodes) if "key" in node}

    def load(self) -> Any:
        nodes = self.graph.nodes
        if not nodes:
            raise UnimplementedError(None, None, f"SavedModel {self.export_dir} holds no object "
                                     "graph (a TF1 SavedModel): load it into a Session with "
                                     "dg.compat.v1.saved_model.load(sess, tags, export_dir)")
        for index, node in enumerate(nodes):  # objects first, then functions (captures)
            kind = node.WhichOneof("kind")
            if kind == "user_object":
                identifier = node.user_object.identifier
                self.objects[index] = SignatureMap() if identifier == "signature_map" else (
                    [] if identifier == "trackable_list_wrapper" else (
                        {} if identifier == "trackable_dict_wrapper" else
                        LoadedObject(identifier)))
            elif kind == "variable":
                self.objects[index] = self._variable(index, node.variable)
            elif kind in ("function", "bare_concrete_function"):
                continue
            else:
                raise InvalidArgumentError(None, None, f"SavedModel {self.export_dir}: saved "
                                           f"object {index} is a {kind}, which duograd does "
                                           "not load")
        for index, node in enumerate(nodes):
            kind = node.WhichOneof("kind")
            if kind == "bare_concrete_function":
                bare = node.bare_concrete_function
                self.objects[index] = self._concrete(bare.concrete_function_name,
                                                     list(bare.argument_keywords),
                                                     bare.allowed_positional_arguments)
        for index, node in enumerate(nodes):
            if node.WhichOneof("kind") == "function":
                self.objects[index] = LoadedFunction(
                    [self._concrete(name) for name in node.function.concrete_functions])
        for index, node in enumerate(nodes):
            self._attach(index, node)
        return self.objects[0]

    def _attach(self, index: int, node: Any) -> None:
        parent = self.objects[index]
        for child in node.children:
            if not 0 <= child.node_id < len(self.graph.nodes):
                raise DataLossError(None, None, f"SavedModel {self.export_dir}: object {index} "
                                    f"names child {child.node_id}")
            value = self.objects.get(child.node_id)
            if isinstance(parent, LoadedObject):
                parent.set_child(child.local_name, value)
            elif isinstance(parent, dict):
                parent[child.local_name] = value
            elif isinstance(parent, list):
                parent.append(value)

    def _variable(self, index: int, saved: Any) -> Any:
        from ..ops.state.variables import Variable
        from ..training.lifting import outside_functions
        where = f"SavedModel {self.export_dir}: variable {saved.name}"
        dtype = dtype_from_enum(saved.dtype, where)
        found = self.values.get(index)
        if found is None:
            raise DataLossError(None, None, f"{where} has no value in the variables checkpoint")
        reader, key = found
        value = reader.get_tensor(key)
        if reader.dtype(key) != dtype or not shape_from_proto(saved.shape).is_compatible_with(
                list(value.shape)):
            raise DataLossError(None, None, f"{where}: the checkpoint holds {reader.dtype(key).name}"
                                f" {list(value.shape)} for a {dtype.name} variable")
        with outside_functions():
            return Variable(value, trainable=saved.trainable, name=saved.name or None,
                            dtype=dtype)

    def _concrete(self, name: str, keywords: Optional[List[str]] = None,
                  positional: Optional[int] = None) -> LoadedConcreteFunction:
        saved = self.graph.concrete_functions.get(name)
        if saved is None:
            raise DataLossError(None, None, f"SavedModel {self.export_dir}: no concrete "
                                f"function {name}")
        self.library.check(name)
        where = f"SavedModel {self.export_dir}: function {name}"
        inputs = structure.decode(saved.canonicalized_input_signature, where)
        if not (isinstance(inputs, tuple) and len(inputs) == 2):
            raise InvalidArgumentError(None, None, f"{where}: unexpected input signature")
        outputs = structure.decode(saved.output_signature, where)
        captures = []
        for node_id in saved.bound_inputs:
            captured = self.objects.get(node_id)
            if captured is None:
                raise InvalidArgumentError(None, None, f"{where} captures object {node_id}, "
                                           "which is not a variable duograd loaded")
            captures.append(captured)
        return LoadedConcreteFunction(self.library, name, inputs, outputs, captures,
                                      keywords or (), positional)


def load(export_dir: str, tags: Optional[Any] = None, options: Any = None) -> Any:
    """Loads the SavedModel at `export_dir` (TF 2.x's object-based format)."""
    export_dir = os.fspath(export_dir)
    meta_graph = read_meta_graph(export_dir, tags)
    return _Loader(export_dir, meta_graph).load()


def contains_saved_model(export_dir: str) -> bool:
    return os.path.isfile(os.path.join(os.fspath(export_dir), SAVED_MODEL_FILENAME_PB))
