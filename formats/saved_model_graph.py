"""The main graph of a saved MetaGraphDef: what TF1's loader and TF Serving run.

TF2's `tf.saved_model.load` needs only the object graph and the functions;
TF1's loader (and TF Serving) instead import `graph_def`, run the SaverDef's
restore op fed with the variables path, and fetch a SignatureDef's tensors by
name. So the graph holds: a `VarHandleOp` per variable; per signature, a
Placeholder per input (`<key>_<name>`) and a `StatefulPartitionedCall` of the
signature's function (its outputs are the SignatureDef's outputs); and
`saver_filename` with a call of a restore function (RestoreV2 of every
variable's checkpoint key, then AssignVariableOp), named by the SaverDef.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..framework import dtypes
from . import tf_types
from .protos import proto
from .tensor_proto import from_ndarray, shape_to_proto

RESOURCE = 20
STRING = 7


def _call(graph_def: Any, name: str, function: str, inputs: List[str], in_types: List[int],
          out_types: List[int]) -> None:
    attr_value = proto("attr_value_pb2").AttrValue
    node = graph_def.node.add(name=name, op="StatefulPartitionedCall")
    node.input.extend(inputs)
    node.attr["f"].func.name = function
    node.attr["Tin"].CopyFrom(attr_value(list=attr_value.ListValue(type=in_types)))
    node.attr["Tout"].CopyFrom(attr_value(list=attr_value.ListValue(type=out_types)))
    for key in ("config", "config_proto", "executor_type"):
        node.attr[key].s = b""


def _restore_function(name: str, variables: Sequence[Tuple[Any, str]]) -> Any:
    """file_prefix, one resource per variable -> file_prefix, after assigning each."""
    fdef = proto("function_pb2").FunctionDef()
    fdef.signature.name = name
    fdef.signature.is_stateful = True
    fdef.signature.input_arg.add(name="file_prefix", type=STRING)
    for index in range(len(variables)):
        fdef.signature.input_arg.add(name=f"variable_{index}", type=RESOURCE)
    fdef.signature.output_arg.add(name="identity", type=STRING)
    keys = np.array([key.encode() for _, key in variables], dtype=object)
    for const_name, value in (("tensor_names", keys),
                              ("shape_and_slices", np.array([b""] * len(variables),
                                                            dtype=object))):
        node = fdef.node_def.add(name=f"RestoreV2/{const_name}", op="Const")
        node.attr["dtype"].type = STRING
        node.attr["value"].tensor.CopyFrom(from_ndarray(value, dtypes.string))
    restore = fdef.node_def.add(name="RestoreV2", op="RestoreV2")
    restore.input.extend(["file_prefix", "RestoreV2/tensor_names:output:0",
                          "RestoreV2/shape_and_slices:output:0"])
    restore.attr["dtypes"].list.type.extend(tf_types.enum_of(v.dtype) for v, _ in variables)
    assigns = []
    for index, (variable, _) in enumerate(variables):
        identity = fdef.node_def.add(name=f"Identity_{index}", op="Identity")
        identity.input.append(f"RestoreV2:tensors:{index}")
        identity.attr["T"].type = tf_types.enum_of(variable.dtype)
        assign = fdef.node_def.add(name=f"AssignVariableOp_{index}", op="AssignVariableOp")
        assign.input.extend([f"variable_{index}", f"Identity_{index}:output:0"])
        assign.attr["dtype"].type = tf_types.enum_of(variable.dtype)
        assigns.append(f"^AssignVariableOp_{index}")
    done = fdef.node_def.add(name="Identity", op="Identity")
    done.input.extend(["file_prefix"] + assigns)
    done.attr["T"].type = STRING
    fdef.ret["identity"] = "Identity:output:0"
    return fdef


def add_serving_graph(meta_graph: Any, variables: Sequence[Tuple[Any, str]],
                      signatures: Sequence[Dict[str, Any]]) -> None:
    """Adds the main graph, the restore function and SaverDef, and the SignatureDefs.

    `variables`: (Variable, checkpoint key) in object order. Each signature is a dict
    with key, function (its FunctionDef name), inputs [(name, TensorSpec)] in the
    function's argument order, captures (Variables), outputs [(name, TensorSpec)]."""
    graph_def = meta_graph.graph_def
    handle_of: Dict[int, str] = {}
    taken: set = set()
    for variable, _ in variables:
        base = variable.name[:-2] if variable.name.endswith(":0") else variable.name
        name, suffix = base, 1
        while name in taken:
            name, suffix = f"{base}_{suffix}", suffix + 1
        taken.add(name)
        node = graph_def.node.add(name=name, op="VarHandleOp")
        node.attr["dtype"].type = tf_types.enum_of(variable.dtype)
        node.attr["shape"].shape.CopyFrom(shape_to_proto(variable.shape))
        node.attr["shared_name"].s = name.encode()
        node.attr["container"].s = b""
        handle_of[id(variable)] = name
    for number, signature in enumerate(signatures):
        call_name = "StatefulPartitionedCall" + (f"_{number}" if number else "")
        definition = meta_graph.signature_def[signature["key"]]
        definition.method_name = "tensorflow/serving/predict"
        inputs, in_types = [], []
        for name, spec in signature["inputs"]:
            placeholder = f"{signature['key']}_{name}"
            node = graph_def.node.add(name=placeholder, op="Placeholder")
            node.attr["dtype"].type = tf_types.enum_of(spec.dtype)
            node.attr["shape"].shape.CopyFrom(shape_to_proto(spec.shape))
            inputs.append(placeholder)
            in_types.append(tf_types.enum_of(spec.dtype))
            info = definition.inputs[name]
            info.name = f"{placeholder}:0"
            info.dtype = tf_types.enum_of(spec.dtype)
            info.tensor_shape.CopyFrom(shape_to_proto(spec.shape))
        for variable in signature["captures"]:
            inputs.append(handle_of[id(variable)])
            in_types.append(RESOURCE)
        out_types = [tf_types.enum_of(spec.dtype) for _, spec in signature["outputs"]]
        _call(graph_def, call_name, signature["function"], inputs, in_types, out_types)
        for index, (name, spec) in enumerate(signature["outputs"]):
            info = definition.outputs[name]
            info.name = f"{call_name}:{index}"
            info.dtype = tf_types.enum_of(spec.dtype)
            info.tensor_shape.CopyFrom(shape_to_proto(spec.shape))
    restore_name = "__inference__traced_restore"
    meta_graph.graph_def.library.function.add().CopyFrom(
        _restore_function(restore_name, variables))
    filename = graph_def.node.add(name="saver_filename", op="Placeholder")
    filename.attr["dtype"].type = STRING
    filename.attr["shape"].shape.CopyFrom(shape_to_proto([]))
    _call(graph_def, "StatefulPartitionedCall_restore", restore_name,
          ["saver_filename"] + [handle_of[id(v)] for v, _ in variables],
          [STRING] + [RESOURCE] * len(variables), [STRING])
    saver = meta_graph.saver_def
    saver.filename_tensor_name = "saver_filename:0"
    saver.save_tensor_name = "StatefulPartitionedCall_restore:0"
    saver.restore_op_name = "StatefulPartitionedCall_restore"
    saver.version = 2  # V2
