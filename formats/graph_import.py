"""dg.compat.v1.import_graph_def: a TensorFlow GraphDef into the default duograd graph.

Nodes are added in a topological order found without recursion (Kahn's
algorithm over data and control inputs), each through its translator in
graph_import_ops, under the name scope `name` ("import" by default, as TF).
Every node's op type and attrs are checked before anything is built, so an
unsupported op (named in the error) leaves the graph unchanged. No code from
the file ever runs: ops that would call Python (PyFunc) are refused.
"""
from __future__ import annotations

import contextlib
from collections import deque
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.registry import op_defs
from . import graph_import_ops as ops_table
from .protos import decode_error, proto
from .tensor_proto import dtype_from_enum, shape_from_proto, to_ndarray

CALL_OPS = ("StatefulPartitionedCall", "PartitionedCall")


def parse_graph_def(data: Any, where: str = "GraphDef") -> Any:
    """A GraphDef message from a message or its serialized bytes (DataLossError if bad)."""
    graph_pb2 = proto("graph_pb2")
    if isinstance(data, graph_pb2.GraphDef):
        return data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(data).__name__}")
    graph_def = graph_pb2.GraphDef()
    try:
        graph_def.ParseFromString(bytes(data))
    except decode_error() as error:  # type: ignore[misc]  # protobuf's DecodeError class
        from ..framework.errors import DataLossError
        raise DataLossError(None, None, f"{where} is not a valid GraphDef ({error})") from None
    return graph_def


def attr_value(value: Any, where: str) -> Any:
    """A duograd attribute value of an AttrValue message."""
    kind = value.WhichOneof("value")
    if kind == "type":
        return dtype_from_enum(value.type, where)
    if kind == "shape":
        return shape_from_proto(value.shape)
    if kind == "tensor":
        return to_ndarray(value.tensor, where)
    if kind == "s":
        try:
            return value.s.decode("utf-8")
        except UnicodeDecodeError:
            return value.s
    if kind in ("b", "i", "f"):
        return getattr(value, kind)
    if kind == "list":
        lst = value.list
        if lst.type:
            return [dtype_from_enum(t, where) for t in lst.type]
        if lst.shape:
            return [shape_from_proto(s) for s in lst.shape]
        if lst.tensor:
            return [to_ndarray(t, where) for t in lst.tensor]
        for field in ("i", "f", "b", "s"):
            items = list(getattr(lst, field))
            if items:
                return [x.decode("utf-8", "replace") if isinstance(x, bytes) else x
                        for x in items]
        return []
    if kind == "func":
        return value.func.name
    if kind is None:
        return None
    raise InvalidArgumentError(None, None, f"{where}: attr of kind {kind} is not supported")


def _split_input(text: str) -> Tuple[str, int, bool]:
    """(node name, output index, is_control) of a NodeDef input string."""
    if text.startswith("^"):
        return text[1:], -1, True
    node, sep, index = text.rpartition(":")
    if sep and index.isdigit():
        return node, int(index), False
    return text, 0, False


def _canonical(key: str) -> str:
    if key.startswith("^"):
        return key
    node, index, _ = _split_input(key)
    return f"{node}:{index}"


VARIABLE_NODE_OPS = ("VarHandleOp", "VariableV2", "Variable")


class _Importer:
    def __init__(self, graph_def: Any, input_map: Dict[str, Any],
                 variables: Optional[Dict[str, Any]] = None) -> None:
        self.graph_def = graph_def
        self.variables = dict(variables or {})  # variable node name -> dg.Variable
        self.input_map = {_canonical(k): v for k, v in input_map.items()}
        self.used_inputs: set = set()
        self.nodes = {node.name: node for node in graph_def.node}
        if len(self.nodes) != len(graph_def.node):
            raise ValueError("import_graph_def: the GraphDef names a node twice")
        self.outputs: Dict[str, Any] = {}  # node name -> outputs (list) or op
        self.library_names = {f.signature.name for f in graph_def.library.function}
        self._functions: Any = None
        self.constants: Dict[int, np.ndarray] = {}  # id(tensor) -> value
        self.op_type = ""

    def check(self) -> List[Any]:
        """The nodes in a topological order, after checking every op type and attr."""
        for node in self.graph_def.node:
            if node.name in self.variables and node.op in VARIABLE_NODE_OPS:
                continue
            if node.op in ops_table.REFUSED:
                raise InvalidArgumentError(None, None, f"import_graph_def: node {node.name} "
                                           f"has op type {node.op}, which is refused: "
                                           f"{ops_table.REFUSED[node.op]}")
            if node.op in CALL_OPS or node.op in self.library_names:
                self._library().check(node.attr["f"].func.name if node.op in CALL_OPS
                                      else node.op)
            elif node.op == "ReadVariableOp" and self.variables:
                continue
            elif node.op not in ops_table.TRANSLATORS and not (
                    node.op in ops_table.SAME_SIGNATURE and node.op in op_defs):
                raise InvalidArgumentError(None, None, f"import_graph_def: node {node.name} "
                                           f"has op type {node.op}, which duograd cannot "
                                           "import (no such op in duograd)")
        waiting: Dict[str, int] = {}
        users: Dict[str, List[str]] = {}
        for node in self.graph_def.node:
            count = 0
            for text in node.input:
                source, _, control = _split_input(text)
                key = "^" + source if control else None
                if key in self.input_map or (not control and _canonical(text) in self.input_map):
                    continue
                if source not in self.nodes:
                    raise ValueError(f"import_graph_def: node {node.name} has input {text} "
                                     "that is not in the graph")
                users.setdefault(source, []).append(node.name)
                count += 1
            waiting[node.name] = count
        ready = deque(node.name for node in self.graph_def.node if waiting[node.name] == 0)
        order = []
        while ready:
            name = ready.popleft()
            order.append(self.nodes[name])
            for user in users.get(name, ()):
                waiting[user] -= 1
                if waiting[user] == 0:
                    ready.append(user)
        if len(order) != len(self.nodes):
            stuck = sorted(n for n, c in waiting.items() if c > 0)[:5]
            raise InvalidArgumentError(None, None, "import_graph_def: the GraphDef has a cycle "
                                       f"(TF1 while loops are not imported), e.g. at {stuck}")
        return order

    def _library(self) -> Any:
        """The GraphDef's function library, run by function_run (made on first use)."""
        if self._functions is None:
            from .function_run import FunctionLibrary
            self._functions = FunctionLibrary(self.graph_def.library,
                                              proto("meta_graph_pb2").MetaGraphDef.MetaInfoDef(
                                              ).stripped_op_list, "import_graph_def")
        return self._functions

    def resolve(self, text: str, consumer: str) -> Any:
        source, index, control = _split_input(text)
        key = "^" + source if control else f"{source}:{index}"
        if key in self.input_map:
            self.used_inputs.add(key)
            return self.input_map[key]
        produced = self.outputs[source]
        if control:
            return produced if not isinstance(produced, list) else (
                produced[0].op if produced else None)
        if not isinstance(produced, list) or index >= len(produced):
            raise ValueError(f"import_graph_def: node {consumer} reads output {index} of "
                             f"{source}, which has {len(produced) if isinstance(produced, list) else 0}")
        return produced[index]

    def static(self, tensor: Any, node: str, what: str) -> np.ndarray:
        """The constant value of an input TF passes as a tensor and duograd as an attr."""
        value = self.constants.get(id(tensor))
        if value is None:
            raise InvalidArgumentError(None, None, f"import_graph_def: {what} of node {node} "
                                       "must be a constant of the GraphDef")
        return value

    def build(self, order: List[Any]) -> None:
        import duograd as dg
        for node in order:
            if node.name in self.variables and node.op in VARIABLE_NODE_OPS:
                self.outputs[node.name] = [self.variables[node.name]]
                continue
            where = f"node {node.name} ({node.op})"
            attrs = {key: attr_value(value, where) for key, value in node.attr.items()
                     if not key.startswith("_")}
            inputs: List[Any] = []
            controls: List[Any] = []
            for text in node.input:
                value = self.resolve(text, node.name)
                (controls if text.startswith("^") else inputs).append(value)
            self.op_type = node.op
            with _control(dg, [c for c in controls if c is not None]):
                result = self._make(node, inputs, attrs)
            self._record(node, result, attrs)

    def _make(self, node: Any, inputs: List[Any], attrs: Dict[str, Any]) -> Any:
        from ..ops.dispatch import apply_op
        translate = ops_table.TRANSLATORS.get(node.op)
        try:
            if node.op in CALL_OPS or node.op in self.library_names:
                return self._library().call(attrs["f"] if node.op in CALL_OPS else node.op,
                                            inputs)
            if node.op in ("ReadVariableOp", "Identity") and inputs and \
                    hasattr(inputs[0], "read_value"):  # a variable mapped by the caller
                return inputs[0].read_value()
            if translate is not None:
                return translate(self, node.name, inputs, attrs)
            return apply_op(op_defs.lookup(node.op), inputs, {}, node.name)
        except (TypeError, ValueError, KeyError, IndexError) as error:
            raise InvalidArgumentError(None, None, f"import_graph_def: node {node.name} "
                                       f"({node.op}) cannot be built: {error}") from None

    def _record(self, node: Any, result: Any, attrs: Dict[str, Any]) -> None:
        if isinstance(result, (list, tuple)):
            outputs = list(result)
        elif hasattr(result, "op") and hasattr(result, "dtype"):
            outputs = [result]
        else:
            outputs = result  # an Operation without outputs
        self.outputs[node.name] = outputs
        if node.op == "Const":
            self.constants[id(outputs[0])] = np.asarray(attrs["value"])
        elif node.op == "Identity" and node.input:
            source = self.resolve(node.input[0], node.name)
            if id(source) in self.constants:
                self.constants[id(outputs[0])] = self.constants[id(source)]


@contextlib.contextmanager
def _control(dg: Any, controls: List[Any]) -> Iterator[None]:
    if not controls:
        yield
        return
    with dg.control_dependencies(controls):
        yield


def import_graph_def(graph_def: Any, input_map: Optional[Dict[str, Any]] = None,
                     return_elements: Optional[Sequence[str]] = None,
                     name: Optional[str] = None, op_dict: Any = None,
                     producer_op_list: Any = None) -> Optional[List[Any]]:
    """Imports `graph_def` into the default graph; returns the `return_elements`
    ("op" -> Operation, "op:0" -> Tensor), or None."""
    import duograd as dg
    graph_def = parse_graph_def(graph_def)
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    importer = _Importer(graph_def, dict(input_map or {}))
    order = importer.check()
    graph = dg.compat.v1.get_default_graph()
    scope = "import" if name is None else name
    # Eagerly (TF 2's default), TF imports into the global default graph, as here.
    entered = graph.as_default() if dg.executing_eagerly() else contextlib.nullcontext()
    with entered, (graph.name_scope(scope) if scope else contextlib.nullcontext()):
        importer.build(order)
    unused = sorted(set(importer.input_map) - importer.used_inputs)
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(unused)}]")
    if return_elements is None:
        return None
    found = []
    for element in return_elements:
        source, index, _ = _split_input(element)
        if source not in importer.outputs:
            raise ValueError(f"Requested return_element {element!r} not found in graph_def.")
        produced = importer.outputs[source]
        if ":" in element:
            found.append(importer.resolve(element, "return_elements"))
        else:
            found.append(produced[0].op if isinstance(produced, list) and produced
                         else produced)
    return found


__all__ = ["import_graph_def", "parse_graph_def"]
