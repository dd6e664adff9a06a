"""A duograd trace (a ConcreteFunction's FuncGraph) as TensorFlow's FunctionDef.

The graph's ops become NodeDefs through graph_export (TF's conventions and
type attrs); each input reference `op:i` is rewritten as TF's
`op:output_arg:index` with the output argument names of TF 2.21's op
registry (tf_op_outputs); the graph's placeholders become the function's
arguments (captured variables last, as resources) and its outputs `ret`
entries. An op TF's registry table does not name is refused by name.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import tf_types
from .graph_export import EXPORTERS, GraphDefBuilder, _generic, input_name
from .protos import proto
from .tf_op_outputs import OUTPUT_ARGS


def arg_name(text: str, taken: set) -> str:
    """A FunctionDef argument name ([a-z][a-z0-9_]*), unique among `taken`."""
    name = re.sub(r"[^a-z0-9_]", "_", text.lower()) or "arg"
    if not name[0].isalpha():
        name = "a" + name
    base, suffix = name, 1
    while name in taken:
        name = f"{base}_{suffix}"
        suffix += 1
    taken.add(name)
    return name


def _local_output(node: Any, op_type: str, flat: int, where: str) -> Tuple[str, int]:
    arguments = OUTPUT_ARGS.get(op_type)
    if arguments is None:
        raise ValueError(f"{where}: op {node.name} of type {op_type} cannot be saved in a "
                         "SavedModel (its TF output arguments are unknown to duograd)")
    for name, number_attr, type_list_attr in arguments:
        if number_attr:
            count = node.attr[number_attr].i
        elif type_list_attr:
            count = len(node.attr[type_list_attr].list.type)
        else:
            count = 1
        if flat < count:
            return name, flat
        flat -= count
    raise ValueError(f"{where}: op {node.name} ({op_type}) has no output {flat}")


CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
PYTHON_OPS = ("PyFunc", "PyFuncStateless", "EagerPyFunc")


class CalledFunctions:
    """The functions that saved functions call (by their call ops), named once each and
    exported from a worklist, so nested calls never recurse."""

    def __init__(self, prefix: str = "__inference_") -> None:
        self.prefix = prefix
        self.names: Dict[int, str] = {}
        self.pending: List[Tuple[Any, str]] = []

    def name_of(self, graph_function: Any) -> str:
        name = self.names.get(id(graph_function))
        if name is None:
            base = re.sub(r"[^A-Za-z0-9_]", "_", getattr(graph_function.graph, "name", "f"))
            name = self.names[id(graph_function)] = f"{self.prefix}{base}_{len(self.names)}"
            self.pending.append((graph_function, name))
        return name


def call_node(op: Any, builder: GraphDefBuilder, called: CalledFunctions) -> None:
    attr_value = proto("attr_value_pb2").AttrValue
    node = builder.node(op.name, op.type, [input_name(t) for t in op.inputs] +
                        ["^" + c.name for c in op.control_inputs], {}, op.device)
    node.attr["f"].CopyFrom(attr_value(func=proto("attr_value_pb2").NameAttrList(
        name=called.name_of(op.attrs["f"]))))
    node.attr["Tin"].CopyFrom(attr_value(list=attr_value.ListValue(
        type=[tf_types.enum_of(t.dtype) for t in op.inputs])))
    node.attr["Tout"].CopyFrom(attr_value(list=attr_value.ListValue(
        type=[tf_types.enum_of(t.dtype) for t in op.outputs])))
    for key in ("config", "config_proto", "executor_type"):
        node.attr[key].CopyFrom(attr_value(s=b""))


def function_def(concrete: Any, name: str, input_names: Optional[Sequence[str]] = None,
                 output_names: Optional[Sequence[str]] = None, order: Optional[List[int]] = None,
                 called: Optional[CalledFunctions] = None) -> Tuple[Any, List[Any]]:
    """(FunctionDef named `name`, captured variables in argument order) of a trace (a
    ConcreteFunction, or a GraphFunction a call op calls). Functions it calls are named
    in `called` (their FunctionDefs are the caller's to export, from `called.pending`).

    `input_names` names the tensor arguments (default: from their placeholders),
    `order` reorders them (a signature takes its keywords sorted), `output_names`
    names the flat outputs (default identity, identity_1, ...)."""
    graph = concrete.graph
    where = f"saving function {name}"
    captured = {id(placeholder): variable for variable, placeholder in graph.captures}
    tensor_inputs = [t for t in graph.inputs if id(t) not in captured]
    capture_inputs = [t for t in graph.inputs if id(t) in captured]
    if order is not None:
        tensor_inputs = [tensor_inputs[i] for i in order]
    fdef = proto("function_pb2").FunctionDef()
    fdef.signature.name = name
    taken: set = set()
    args: Dict[str, str] = {}
    for index, tensor in enumerate(tensor_inputs):
        wanted = input_names[index] if input_names is not None else tensor.op.name
        args[tensor.op.name] = arg_name(wanted, taken)
        fdef.signature.input_arg.add(name=args[tensor.op.name],
                                     type=tf_types.enum_of(tensor.dtype))
    for tensor in capture_inputs:
        args[tensor.op.name] = arg_name(tensor.op.name, taken)
        fdef.signature.input_arg.add(name=args[tensor.op.name], type=20)  # DT_RESOURCE
    builder = GraphDefBuilder()
    called = called if called is not None else CalledFunctions()
    for op in graph.get_operations():
        if op.name in args:
            continue
        if op.type in CALL_OPS:
            call_node(op, builder, called)
            continue
        if op.type in PYTHON_OPS:
            raise ValueError(f"{where}: op {op.name} ({op.type}) calls a Python function, "
                             "which a SavedModel cannot hold")
        EXPORTERS.get(op.type, _generic)(op, graph, builder)
    nodes = {node.name: node for node in builder.graph_def.node}

    def reference(text: str) -> Optional[str]:
        control = text.startswith("^")
        body = text[1:] if control else text
        node_name, _, index = body.partition(":")
        if node_name in args:
            return None if control else args[node_name]
        if control:
            return "^" + node_name
        node = nodes[node_name]
        arg, local = _local_output(node, node.op, int(index or 0), where)
        return f"{node_name}:{arg}:{local}"

    for node in builder.graph_def.node:
        converted = [reference(text) for text in node.input]
        del node.input[:]
        node.input.extend(r for r in converted if r is not None)
        fdef.node_def.add().CopyFrom(node)
    outputs = list(concrete.outputs)
    out_taken: set = set()
    for index, tensor in enumerate(outputs):
        wanted = output_names[index] if output_names is not None else (
            "identity" if index == 0 else f"identity_{index}")
        out_name = arg_name(wanted, out_taken)
        fdef.signature.output_arg.add(name=out_name, type=tf_types.enum_of(tensor.dtype))
        ref = reference(input_name(tensor))
        assert ref is not None, "a function output is never a control input"
        fdef.ret[out_name] = ref
    if any(op.type in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")
           for op in graph.get_operations()):
        fdef.signature.is_stateful = True
    return fdef, [captured[id(t)] for t in capture_inputs]
