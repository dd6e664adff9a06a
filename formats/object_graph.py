"""TensorFlow's `TrackableObjectGraph` message, to and from duograd's node dicts.

duograd describes a checkpoint's object graph as a list of nodes (node 0 is
the root), each a dict `{"children": [{"name", "node"}], "key"?, "full_name"?,
"slots"?: [{"variable", "slot", "slot_variable"}]}`. TF stores it as the
scalar string tensor `_CHECKPOINTABLE_OBJECT_GRAPH`:

    TrackableObjectGraph { repeated TrackableObject nodes = 1; }
    TrackableObject { repeated ObjectReference children = 1;       // node_id 1, local_name 2
                      repeated SerializedTensor attributes = 2;    // name 1, full_name 2,
                                                                   // checkpoint_key 3
                      repeated SlotVariableReference slot_variables = 3;
                          // original_variable_node_id 1, slot_name 2, slot_variable_node_id 3
                      google.protobuf.BoolValue has_checkpoint_values = 5; }

`has_checkpoint_values` says whether the node or anything it reaches holds
a saved value; it is computed here as TF does (without recursion).
"""
from __future__ import annotations

from collections import deque
from typing import Dict, List, Set

from . import wire

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"


def _nodes_with_values(nodes: List[dict]) -> Set[int]:
    """Nodes that hold a value or reach one through children or slot references."""
    parents: Dict[int, List[int]] = {}
    for index, node in enumerate(nodes):
        for child in node["children"]:
            parents.setdefault(child["node"], []).append(index)
        for slot in node.get("slots", ()):
            parents.setdefault(slot["slot_variable"], []).append(index)
    found = {i for i, node in enumerate(nodes) if "key" in node}
    queue = deque(found)
    while queue:
        for parent in parents.get(queue.popleft(), ()):
            if parent not in found:
                found.add(parent)
                queue.append(parent)
    return found


def encode(nodes: List[dict]) -> bytes:
    """The serialized TrackableObjectGraph of `nodes`."""
    with_values = _nodes_with_values(nodes)
    graph = wire.Writer()
    for index, node in enumerate(nodes):
        message = wire.Writer()
        for child in node["children"]:
            message.message(1, wire.Writer().varint(1, child["node"])
                            .bytes_field(2, child["name"]))
        if "key" in node:
            message.message(2, wire.Writer().bytes_field(1, VARIABLE_VALUE)
                            .bytes_field(2, node.get("full_name", ""))
                            .bytes_field(3, node["key"]))
        for slot in node.get("slots", ()):
            message.message(3, wire.Writer().varint(1, slot["variable"])
                            .bytes_field(2, slot["slot"]).varint(3, slot["slot_variable"]))
        message.message(5, wire.Writer().varint(1, int(index in with_values)))
        graph.message(1, message)
    return graph.finish()


def decode(data: bytes) -> List[dict]:
    """The node dicts of a serialized TrackableObjectGraph (WireError if malformed)."""
    nodes: List[dict] = []
    raw_nodes = wire.messages(wire.parse(data), 1)
    count = len(raw_nodes)

    def node_id(value: int) -> int:
        if not 0 <= value < count:
            raise wire.WireError(f"a reference to node {value} of {count}")
        return value

    for raw in raw_nodes:
        fields = wire.parse(raw)
        node: dict = {"children": []}
        for child in wire.messages(fields, 1):
            child_fields = wire.parse(child)
            node["children"].append({
                "name": wire.text(wire.last_bytes(child_fields, 2)),
                "node": node_id(wire.last_int(child_fields, 1))})
        for attribute in wire.messages(fields, 2):
            attribute_fields = wire.parse(attribute)
            if wire.text(wire.last_bytes(attribute_fields, 1)) == VARIABLE_VALUE \
                    and "key" not in node:
                node["key"] = wire.text(wire.last_bytes(attribute_fields, 3))
                node["full_name"] = wire.text(wire.last_bytes(attribute_fields, 2))
        for slot in wire.messages(fields, 3):
            slot_fields = wire.parse(slot)
            node.setdefault("slots", []).append({
                "variable": node_id(wire.last_int(slot_fields, 1)),
                "slot": wire.text(wire.last_bytes(slot_fields, 2)),
                "slot_variable": node_id(wire.last_int(slot_fields, 3))})
        nodes.append(node)
    return nodes


__all__ = ["encode", "decode", "OBJECT_GRAPH_KEY"]
