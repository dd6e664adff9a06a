"""dg.saved_model.save: a trackable object as a SavedModel TensorFlow 2.21 loads.

Written:
- `variables/variables.{index,data-00000-of-00001}`: the checkpoint of the
  object graph (formats.bundle), whose TrackableObjectGraph numbers its nodes
  as the SavedObjectGraph does (TF's loader matches them by number);
- `saved_model.pb`: a SavedModel (schema version 1) holding one MetaGraphDef
  tagged "serve": the FunctionDefs of every saved trace in its graph's
  library (function_export), the SavedObjectGraph (user objects, variables,
  functions and the `signatures` map), and a SignatureDef per signature.

Functions are saved when they are `dg.function`s with an `input_signature`
(found as attributes of a saved object) and for each signature; a signature
returns a dict (a single tensor becomes {"output_0": tensor}, as TF does).
"""
from __future__ import annotations

import inspect
import os
from collections import deque
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..framework import nest
from ..framework.tensor_spec import TensorSpec
from . import structure, tf_types, wire
from . import object_graph as checkpoint_graph
from .atomic import atomic_output
from .bundle import write_bundle
from .function_export import CalledFunctions, function_def
from .graph_export import GRAPH_DEF_PRODUCER
from .protos import proto
from .saved_model_graph import add_serving_graph
from .tensor_proto import shape_to_proto

FORMAT_TF_VERSION = "2.21.0"  # the TF release whose SavedModel layout this writes


def _is_dg_function(value: Any) -> bool:
    from ..ops.functions.function import Function
    return isinstance(value, Function)


def _saved_functions(obj: Any) -> List[Tuple[str, Any]]:
    """(attribute, bound dg.function with an input_signature) of an object's class."""
    found = []
    seen = set()
    for klass in type(obj).__mro__:
        for name, value in vars(klass).items():
            if name in seen or not _is_dg_function(value):
                continue
            seen.add(name)
            if value.input_signature is not None:
                found.append((name, getattr(obj, name)))
    for name, value in vars(obj).items() if hasattr(obj, "__dict__") else ():
        if _is_dg_function(value) and value.input_signature is not None and name not in seen:
            found.append((name, value))
    return found


class _Signatures:
    """The `signatures` map object of the saved graph."""

    def __init__(self, functions: Dict[str, Any]) -> None:
        self.functions = functions


class _Saver:
    def __init__(self, root: Any, signatures: Any) -> None:
        self.root = root
        self.signatures = self._signature_functions(signatures)
        self.library: List[Any] = []
        self.concrete: Dict[str, Any] = {}   # SavedConcreteFunction messages by name
        self.counter = 0
        self.called = CalledFunctions()
        self.function_nodes: List[_FunctionNode] = []

    def _function_node(self, function: Any, signature: Optional[str] = None) -> "_FunctionNode":
        node = _FunctionNode(function, signature)
        self.function_nodes.append(node)
        return node

    # -- signatures ----------------------------------------------------------------------
    def _signature_functions(self, signatures: Any) -> Dict[str, Any]:
        if signatures is None:
            candidates = [f for _, f in _saved_functions(self.root)]
            return {"serving_default": candidates[0]} if len(candidates) == 1 else {}
        if not isinstance(signatures, dict):
            signatures = {"serving_default": signatures}
        return dict(signatures)

    # -- the object graph ------------------------------------------------------------------
    def objects(self) -> Tuple[List[Any], List[List[Tuple[str, int]]], List[str]]:
        """Every saved object breadth first (each once), its children and checkpoint path."""
        from ..training.trackable import children_of, escape_name
        objects: List[Any] = [self.root]
        paths = [""]
        children: List[List[Tuple[str, int]]] = []
        index_of = {id(self.root): 0}
        queue = deque([0])
        while queue:
            index = queue.popleft()
            obj = objects[index]
            named: List[Tuple[str, Any]] = []
            if isinstance(obj, _Signatures):
                named = sorted(obj.functions.items())
            elif not isinstance(obj, _FunctionNode):
                named = list(children_of(obj).items())
                named += [(name, self._function_node(f)) for name, f in _saved_functions(obj)]
                if index == 0 and self.signatures:
                    named.append(("signatures", _Signatures(
                        {k: self._function_node(f, k) for k, f in self.signatures.items()})))
            links = []
            for name, child in named:
                if id(child) not in index_of:
                    index_of[id(child)] = len(objects)
                    objects.append(child)
                    paths.append(f"{paths[index]}/{escape_name(name)}" if paths[index]
                                 else escape_name(name))
                    children.append([])
                    queue.append(index_of[id(child)])
                links.append((name, index_of[id(child)]))
            if len(children) <= index:
                children.extend([] for _ in range(index + 1 - len(children)))
            children[index] = links
        while len(children) < len(objects):
            children.append([])
        return objects, children, paths

    def save(self, export_dir: str) -> None:
        from ..ops.state.variables import Variable
        from ..training.trackable import read_value
        objects, children, paths = self.objects()
        index_of = {id(obj): i for i, obj in enumerate(objects)}
        meta_graph = proto("meta_graph_pb2").MetaGraphDef()
        meta_graph.meta_info_def.tags.append("serve")
        meta_graph.meta_info_def.tensorflow_version = FORMAT_TF_VERSION
        meta_graph.meta_info_def.tensorflow_git_version = "duograd"
        meta_graph.graph_def.versions.producer = GRAPH_DEF_PRODUCER
        meta_graph.graph_def.versions.min_consumer = 12
        graph = meta_graph.object_graph_def
        checkpoint_nodes: List[dict] = []
        tensors: List[Tuple[str, Any, Any]] = []
        saved_variables: List[Tuple[Any, str]] = []
        for index, obj in enumerate(objects):
            node = graph.nodes.add()
            for name, child in children[index]:
                node.children.add(node_id=child, local_name=name)
            entry: dict = {"children": [{"name": n, "node": c} for n, c in children[index]]}
            if isinstance(obj, Variable):
                saved = node.variable
                saved.dtype = tf_types.enum_of(obj.dtype)
                saved.shape.CopyFrom(shape_to_proto(obj.shape))
                saved.trainable = bool(obj.trainable)
                saved.name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
                key = f"{paths[index]}/.ATTRIBUTES/VARIABLE_VALUE"
                entry.update(key=key, full_name=saved.name)
                tensors.append((key, np.asarray(read_value(obj)), obj.dtype))
                saved_variables.append((obj, key))
            elif isinstance(obj, _FunctionNode):
                name = self._add_function(obj, index_of)
                bare = node.bare_concrete_function
                bare.concrete_function_name = name
                bare.argument_keywords.extend(self._keywords(obj))
                bare.allowed_positional_arguments = len(self._keywords(obj)) \
                    if obj.signature is None else 0
            else:
                user = node.user_object
                user.identifier = "signature_map" if isinstance(obj, _Signatures) else (
                    "trackable_list_wrapper" if isinstance(obj, (list, tuple)) else (
                        "trackable_dict_wrapper" if isinstance(obj, dict) else
                        "_generic_user_object"))
                user.version.producer = 1
                user.version.min_consumer = 1
            checkpoint_nodes.append(entry)
        for name, message in self.concrete.items():
            graph.concrete_functions[name].CopyFrom(message)
        while self.called.pending:  # functions the saved ones call (a worklist: no recursion)
            graph_function, called_name = self.called.pending.pop()
            self.library.append(function_def(graph_function, called_name,
                                             called=self.called)[0])
        meta_graph.graph_def.library.function.extend(self.library)
        add_serving_graph(meta_graph, saved_variables, self._serving_signatures())
        encoded = np.array(checkpoint_graph.encode(checkpoint_nodes), dtype=object)
        from ..framework import dtypes
        tensors.append((checkpoint_graph.OBJECT_GRAPH_KEY, encoded, dtypes.string))
        os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
        write_bundle(os.path.join(export_dir, "variables", "variables"), tensors)
        saved_model = wire.Writer().varint(1, 1).bytes_field(
            2, meta_graph.SerializeToString(), keep_empty=True).finish()
        with atomic_output(os.path.join(export_dir, "saved_model.pb")) as stream:
            stream.write(saved_model)

    # -- functions -----------------------------------------------------------------------
    def _keywords(self, node: "_FunctionNode") -> List[str]:
        concrete = node.concrete
        specs = list(concrete.structured_input_signature[0])
        names = []
        python = getattr(node.function, "python_function", None)
        parameters: List[str] = []
        if python is not None:
            try:
                parameters = [p for p in inspect.signature(python).parameters]
            except (TypeError, ValueError):
                parameters = []
        for index, spec in enumerate(specs):
            if isinstance(spec, TensorSpec) and spec.name:
                names.append(spec.name)
            elif index < len(parameters):
                names.append(parameters[index])
            else:
                names.append(f"arg_{index}")
        return names

    def _add_function(self, node: "_FunctionNode", index_of: Dict[int, int]) -> str:
        concrete = node.concrete
        self.counter += 1
        keywords = self._keywords(node)
        prefix = "signature_wrapper_" if node.signature else ""
        base = getattr(node.function, "__name__", "function")
        name = f"__inference_{prefix}{base}_{self.counter}"
        outputs = concrete.structured_outputs
        if node.signature is None:
            fdef, captures = function_def(concrete, name, input_names=keywords,
                                          called=self.called)
            inputs: Any = (tuple(concrete.structured_input_signature[0]), {})
            output_structure = outputs
        else:
            if not isinstance(outputs, dict):
                outputs = {"output_0": outputs} if not isinstance(outputs, (list, tuple)) \
                    else {f"output_{i}": o for i, o in enumerate(outputs)}
            order = sorted(range(len(keywords)), key=lambda i: keywords[i])
            flat_keys = sorted(outputs)
            fdef, captures = function_def(concrete, name, input_names=sorted(keywords),
                                          output_names=flat_keys, order=order,
                                          called=self.called)
            specs = list(concrete.structured_input_signature[0])
            inputs = ((), {k: TensorSpec(s.shape, s.dtype, name=k)
                           for k, s in zip(keywords, specs, strict=True)})
            output_structure = {k: TensorSpec(outputs[k].shape, outputs[k].dtype, name=k)
                                for k in flat_keys}
            if [id(t) for t in nest.flatten(outputs)] != \
                    [id(t) for t in concrete.outputs]:
                raise ValueError(f"signature {node.signature}: outputs must be a tensor or a "
                                 "dict of tensors")
        missing = [v for v in captures if id(v) not in index_of]
        if missing:
            raise ValueError(f"saving function {base}: it captures {missing[0].name}, which "
                             "is not reachable from the saved object")
        saved = proto("saved_object_graph_pb2").SavedConcreteFunction()
        saved.bound_inputs.extend(index_of[id(v)] for v in captures)
        saved.canonicalized_input_signature.CopyFrom(structure.encode(_specs(inputs)))
        saved.output_signature.CopyFrom(structure.encode(_specs(output_structure)))
        self.concrete[name] = saved
        self.library.append(fdef)
        node.saved_name = name
        node.keywords = keywords
        node.captures = captures
        node.output_specs = output_structure if isinstance(output_structure, dict) else {}
        return name

    def _serving_signatures(self) -> List[Dict[str, Any]]:
        """What add_serving_graph needs of each signature (inputs in argument order)."""
        found = []
        for key, node in self._signature_nodes():
            specs = dict(zip(node.keywords, node.concrete.structured_input_signature[0],
                             strict=True))
            found.append({"key": key, "function": node.saved_name,
                          "inputs": [(k, specs[k]) for k in sorted(specs)],
                          "captures": node.captures,
                          "outputs": sorted(node.output_specs.items())})
        return found

    def _signature_nodes(self) -> List[Tuple[str, "_FunctionNode"]]:
        return sorted(((n.signature, n) for n in self.function_nodes
                       if n.signature is not None), key=lambda pair: pair[0])


def _specs(value: Any) -> Any:
    """Tensors of a structure replaced by their TensorSpecs."""
    leaves = nest.flatten(value)
    specs = [TensorSpec(v.shape, v.dtype) if hasattr(v, "dtype") and
             not isinstance(v, TensorSpec) else v for v in leaves]
    return nest.pack_sequence_as(value, specs)


class _FunctionNode:
    """A saved trace: one dg.function's concrete function (or a signature's)."""

    def __init__(self, function: Any, signature: Optional[str] = None) -> None:
        self.function = function
        self.signature = signature
        self.concrete = function if hasattr(function, "graph") else \
            function.get_concrete_function()
        self.saved_name = ""
        self.keywords: List[str] = []
        self.captures: List[Any] = []
        self.output_specs: Dict[str, Any] = {}


def save(obj: Any, export_dir: str, signatures: Any = None, options: Any = None) -> None:
    """Writes `obj` (its variables, its input_signature dg.functions and `signatures`) as
    a SavedModel in `export_dir`."""
    _Saver(obj, signatures).save(os.fspath(export_dir))
