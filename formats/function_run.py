"""Running a SavedModel's FunctionDefs with duograd's own ops.

A FunctionDef is a small graph: named arguments, NodeDefs whose inputs read
`arg`, `node:output_arg:index` or `^node`, and a `ret` map naming each
output. `FunctionLibrary.call` builds its nodes in a topological order
(Kahn's algorithm, control edges included) through the same translators as
`import_graph_def`, so a loaded function runs eagerly (a GradientTape sees
every op and differentiates it), inside `dg.function` (the ops are traced)
and in graph mode (the ops are added to the graph). Captured variables
arrive as duograd `Variable`s in place of TF's resource arguments.

Nothing of the file is executed as code: each op type is looked up in
duograd's tables, and `check` refuses an unknown or Python-calling op (by
name) for every function reachable from the loaded objects before anything
runs. Calls between functions (StatefulPartitionedCall) are limited to
MAX_CALL_DEPTH nested calls.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.registry import op_defs
from . import graph_import_ops as table
from .graph_import import attr_value
from .tf_op_outputs import OUTPUT_ARGS

MAX_CALL_DEPTH = 32
CALL_OPS = ("StatefulPartitionedCall", "PartitionedCall")
IF_OPS = ("If", "StatelessIf")
WHILE_OPS = ("While", "StatelessWhile")
# Ops that only exist for TF's runtime (copy-on-read bookkeeping, ordering): no effect here.
IGNORED_OPS = ("NoOp", "DisableCopyOnRead")
VARIABLE_OPS = ("ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                "AssignSubVariableOp", "ResourceGather")


def _dg() -> Any:
    import duograd
    return duograd


class _Call:
    """The context translators see while one function body is built."""

    def __init__(self) -> None:
        self.constants: Dict[int, np.ndarray] = {}
        self.op_type = ""

    def static(self, tensor: Any, node: str, what: str) -> np.ndarray:
        value = self.constants.get(id(tensor))
        if value is None:
            raise InvalidArgumentError(None, None, f"loaded function: {what} of node {node} "
                                       "must be a constant")
        return value


class FunctionLibrary:
    """The FunctionDefs of a MetaGraphDef, runnable with duograd's kernels."""

    def __init__(self, library: Any, op_list: Any, where: str) -> None:
        self.where = where
        self.functions = {f.signature.name: f for f in library.function}
        self.output_args: Dict[str, List[Tuple[str, str, str]]] = {
            op.name: [(a.name, a.number_attr, a.type_list_attr) for a in op.output_arg]
            for op in op_list.op}
        self._checked: set = set()

    # -- checking ----------------------------------------------------------------------------
    def check(self, name: str) -> None:
        """Every op of `name` and of the functions it calls is one duograd can run."""
        pending = [name]
        while pending:
            current = pending.pop()
            if current in self._checked:
                continue
            function = self.functions.get(current)
            if function is None:
                raise InvalidArgumentError(None, None, f"{self.where}: function {current} is "
                                           "not in the SavedModel's library")
            self._checked.add(current)
            for node in function.node_def:
                if node.op in table.REFUSED and node.op not in ("VarHandleOp",):
                    raise InvalidArgumentError(
                        None, None, f"{self.where}: function {current}, node {node.name}: op "
                        f"type {node.op} is refused: {table.REFUSED[node.op]}")
                if node.op in CALL_OPS:
                    pending.append(node.attr["f"].func.name)
                elif node.op in IF_OPS:
                    pending.extend([node.attr["then_branch"].func.name,
                                    node.attr["else_branch"].func.name])
                elif node.op in WHILE_OPS:
                    pending.extend([node.attr["cond"].func.name, node.attr["body"].func.name])
                elif node.op in self.functions:
                    pending.append(node.op)
                elif not (node.op in IGNORED_OPS or node.op in VARIABLE_OPS
                          or node.op in ("IdentityN",) + IF_OPS + WHILE_OPS
                          or node.op in table.TRANSLATORS
                          or (node.op in table.SAME_SIGNATURE and node.op in op_defs)):
                    raise InvalidArgumentError(
                        None, None, f"{self.where}: function {current}, node {node.name}: op "
                        f"type {node.op} is not supported by duograd")

    # -- running -----------------------------------------------------------------------------
    def call(self, name: str, inputs: Sequence[Any], depth: int = 0) -> List[Any]:
        """The outputs of function `name` on `inputs` (tensors, and Variables for
        resource arguments), built with duograd ops in the current mode."""
        if depth > MAX_CALL_DEPTH:
            raise InvalidArgumentError(None, None, f"{self.where}: function calls nested "
                                       f"deeper than {MAX_CALL_DEPTH}")
        self.check(name)
        function = self.functions[name]
        arguments = function.signature.input_arg
        if len(inputs) != len(arguments):
            raise InvalidArgumentError(None, None, f"{self.where}: function {name} takes "
                                       f"{len(arguments)} inputs, got {len(inputs)}")
        values = {arg.name: value for arg, value in zip(arguments, inputs, strict=True)}
        nodes = {node.name: node for node in function.node_def}
        produced: Dict[str, List[Any]] = {}
        attrs_of: Dict[str, Dict[str, Any]] = {}
        call = _Call()
        for node in self._order(name, nodes, values):
            where = f"{self.where}: function {name}, node {node.name} ({node.op})"
            attrs = {k: attr_value(v, where) for k, v in node.attr.items()
                     if not k.startswith("_")}
            attrs_of[node.name] = attrs
            node_inputs = [self._resolve(ref, values, produced, nodes, attrs_of, where)
                           for ref in node.input if not ref.startswith("^")]
            call.op_type = node.op
            produced[node.name] = self._run_node(node, node_inputs, attrs, call, depth, where)
        return [self._resolve(function.ret[arg.name], values, produced, nodes, attrs_of,
                              f"{self.where}: function {name}")
                for arg in function.signature.output_arg]

    def _order(self, name: str, nodes: Dict[str, Any], values: Dict[str, Any]) -> List[Any]:
        waiting: Dict[str, int] = {}
        users: Dict[str, List[str]] = {}
        for node in nodes.values():
            count = 0
            for ref in node.input:
                source = ref[1:] if ref.startswith("^") else ref.split(":")[0]
                if ":" not in ref and not ref.startswith("^") and ref in values:
                    continue
                if source not in nodes:
                    raise InvalidArgumentError(None, None, f"{self.where}: function {name}, "
                                               f"node {node.name} reads unknown input {ref}")
                users.setdefault(source, []).append(node.name)
                count += 1
            waiting[node.name] = count
        ready = deque(n for n, c in waiting.items() if c == 0)
        order = []
        while ready:
            current = ready.popleft()
            order.append(nodes[current])
            for user in users.get(current, ()):
                waiting[user] -= 1
                if waiting[user] == 0:
                    ready.append(user)
        if len(order) != len(nodes):
            raise InvalidArgumentError(None, None, f"{self.where}: function {name} has a "
                                       "cycle")
        return order

    def _resolve(self, ref: str, values: Dict[str, Any], produced: Dict[str, List[Any]],
                 nodes: Dict[str, Any], attrs_of: Dict[str, Dict[str, Any]], where: str) -> Any:
        if ":" not in ref:
            if ref not in values:
                raise InvalidArgumentError(None, None, f"{where}: unknown input {ref}")
            return values[ref]
        node_name, arg_name, index_text = (ref.split(":") + ["0"])[:3]
        outputs = produced.get(node_name)
        if outputs is None:
            raise InvalidArgumentError(None, None, f"{where}: unknown input {ref}")
        offset = self._offset(nodes[node_name].op, arg_name, attrs_of[node_name], where)
        index = offset + int(index_text)
        if index >= len(outputs):
            raise InvalidArgumentError(None, None, f"{where}: input {ref} is output {index} "
                                       f"of a node with {len(outputs)}")
        return outputs[index]

    def _offset(self, op_type: str, arg_name: str, attrs: Dict[str, Any], where: str) -> int:
        """The flat index of output argument `arg_name`'s first tensor."""
        if op_type in self.functions:
            arguments = [(a.name, "", "") for a in self.functions[op_type].signature.output_arg]
        else:
            arguments = self.output_args.get(op_type) or OUTPUT_ARGS.get(op_type, [])
        offset = 0
        for name, number_attr, type_list_attr in arguments:
            if name == arg_name:
                return offset
            if number_attr:
                offset += int(attrs.get(number_attr, 1))
            elif type_list_attr:
                offset += len(attrs.get(type_list_attr) or ())
            else:
                offset += 1
        return 0

    def _if(self, inputs: List[Any], attrs: Dict[str, Any], depth: int) -> List[Any]:
        """TF's functional If: dg.cond over calls of the two branch functions."""
        dg = _dg()
        predicate, operands = inputs[0], list(inputs[1:])
        if predicate.dtype != dg.bool:
            predicate = dg.not_equal(predicate, dg.zeros_like(predicate))
        outputs = dg.cond(predicate,
                          lambda: self.call(attrs["then_branch"], operands, depth + 1),
                          lambda: self.call(attrs["else_branch"], operands, depth + 1))
        return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

    def _while(self, inputs: List[Any], attrs: Dict[str, Any], depth: int) -> List[Any]:
        """TF's functional While: dg.while_loop over the tensor loop variables; variables
        (resources) pass through unchanged, as they do in TF's loops."""
        dg = _dg()
        fixed = {i: v for i, v in enumerate(inputs) if _is_variable(v)}
        moving = [v for i, v in enumerate(inputs) if i not in fixed]

        def full(values: Sequence[Any]) -> List[Any]:
            supply = iter(values)
            return [fixed[i] if i in fixed else next(supply) for i in range(len(inputs))]

        def condition(*values: Any) -> Any:
            result = self.call(attrs["cond"], full(values), depth + 1)[0]
            return result if result.dtype == dg.bool else dg.not_equal(
                result, dg.zeros_like(result))

        def body(*values: Any) -> List[Any]:
            outputs = self.call(attrs["body"], full(values), depth + 1)
            return [o for i, o in enumerate(outputs) if i not in fixed]

        if not moving:
            raise InvalidArgumentError(None, None, f"{self.where}: a While loop without "
                                       "tensor loop variables")
        result = dg.while_loop(condition, body, moving,
                               parallel_iterations=attrs.get("parallel_iterations", 10))
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        return full(result)

    def _run_node(self, node: Any, inputs: List[Any], attrs: Dict[str, Any], call: _Call,
                  depth: int, where: str) -> List[Any]:
        dg = _dg()
        try:
            if node.op in IGNORED_OPS:
                return []
            if node.op in CALL_OPS or node.op in self.functions:
                target = attrs["f"] if node.op in CALL_OPS else node.op
                return self.call(target, inputs, depth + 1)
            if node.op in IF_OPS:
                return self._if(inputs, attrs, depth)
            if node.op in WHILE_OPS:
                return self._while(inputs, attrs, depth)
            if node.op == "ReadVariableOp":
                return [_variable(inputs[0], where).read_value()]
            if node.op == "ResourceGather":
                return [dg.gather(_variable(inputs[0], where), inputs[1],
                                  batch_dims=attrs.get("batch_dims", 0))]
            if node.op in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
                variable = _variable(inputs[0], where)
                method = {"AssignVariableOp": variable.assign,
                          "AssignAddVariableOp": variable.assign_add,
                          "AssignSubVariableOp": variable.assign_sub}[node.op]
                method(inputs[1])
                return []
            if node.op == "IdentityN":
                return [dg.identity(x) for x in inputs]
            if node.op == "Identity" and _is_variable(inputs[0]):
                return [inputs[0]]  # a resource passed along
            translate = table.TRANSLATORS.get(node.op)
            if translate is not None:
                result = translate(call, node.name, inputs, attrs)
            else:
                from ..ops.dispatch import apply_op
                result = apply_op(op_defs.lookup(node.op), inputs, {}, None)
        except (TypeError, ValueError, KeyError, IndexError) as error:
            raise InvalidArgumentError(None, None, f"{where}: {error}") from None
        outputs = list(result) if isinstance(result, (list, tuple)) else (
            [result] if hasattr(result, "dtype") else [])
        if node.op == "Const" and outputs:
            call.constants[id(outputs[0])] = np.asarray(attrs["value"])
        elif node.op == "Identity" and outputs and id(inputs[0]) in call.constants:
            call.constants[id(outputs[0])] = call.constants[id(inputs[0])]
        return outputs


def _is_variable(value: Any) -> bool:
    from ..ops.state.variables import Variable
    return isinstance(value, Variable)


def _variable(value: Any, where: str) -> Any:
    if not _is_variable(value):
        raise InvalidArgumentError(None, None, f"{where}: expected a variable (resource) input")
    return value

