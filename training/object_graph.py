"""Saving side of object-based checkpoints: the object graph and its values.

Nodes are found breadth first from the root, each object once (a shared
object keeps the path it was first reached by). A node is JSON:
`{"children": [{"name", "node"}], "key"?: checkpoint key of a variable's value,
"slots"?: [{"variable", "slot", "slot_variable"}]}`. A variable's key is its
path from the root with "/.ATTRIBUTES/VARIABLE_VALUE"; an optimizer slot's is
"<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>/.ATTRIBUTES/VARIABLE_VALUE".
"""
from __future__ import annotations

from collections import deque
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .trackable import children_of, escape_name, is_variable, read_value, slot_variables_of

VALUE_SUFFIX = ".ATTRIBUTES/VARIABLE_VALUE"
SLOT_MARK = ".OPTIMIZER_SLOT"


def _join(path: str, name: str) -> str:
    return f"{path}/{escape_name(name)}" if path else escape_name(name)


def reachable_objects(root: Any, children: Optional[Dict[int, Dict[str, Any]]] = None
                      ) -> List[Tuple[str, Any]]:
    """(path, object) for every trackable reachable from `root`, breadth first, each once.
    `children`, if given, receives each object's children by id (asked once: an object
    may build its child lists anew on every call)."""
    seen = {id(root)}
    found = [("", root)]
    queue = deque(found)
    while queue:
        path, obj = queue.popleft()
        named = children_of(obj)
        if children is not None:
            children[id(obj)] = named
        for name, child in named.items():
            if id(child) not in seen:
                seen.add(id(child))
                found.append((_join(path, name), child))
                queue.append(found[-1])
    return found


def serialize(root: Any, session: Any = None) -> Tuple[list, Dict[str, np.ndarray], Dict[str, str]]:
    """The object graph of `root`, and each saved variable's value and dtype name by key."""
    children: Dict[int, Dict[str, Any]] = {}
    objects = reachable_objects(root, children)
    node_of = {id(obj): i for i, (_, obj) in enumerate(objects)}
    nodes: List[dict] = []
    values: Dict[str, np.ndarray] = {}
    dtype_names: Dict[str, str] = {}

    def save_variable(node: dict, key: str, variable: Any) -> None:
        node["key"] = key
        name = str(getattr(variable, "name", "") or "")
        node["full_name"] = name[:-2] if name.endswith(":0") else name
        values[key] = read_value(variable, session)
        dtype_names[key] = variable.dtype.name

    for path, obj in objects:
        node: dict = {"children": [{"name": name, "node": node_of[id(child)]}
                                   for name, child in children[id(obj)].items()]}
        if is_variable(obj):
            save_variable(node, f"{path}/{VALUE_SUFFIX}" if path else VALUE_SUFFIX, obj)
        nodes.append(node)
    for opt_index, (opt_path, optimizer) in enumerate(list(objects)):
        if callable(getattr(optimizer, "checkpoint_slot_lists", None)):
            continue  # a Keras 3 optimizer: its slots are children (`_momentums/0`)
        for variable, slot_name, slot in slot_variables_of(optimizer):
            original = node_of.get(id(variable))
            if original is None:  # a slot of a variable this checkpoint does not save
                continue
            slot_index = node_of.get(id(slot))
            if slot_index is None:
                slot_index = node_of[id(slot)] = len(nodes)
                objects.append(("", slot))
                nodes.append({"children": []})
                key = "/".join([objects[original][0], SLOT_MARK, opt_path,
                                escape_name(slot_name), VALUE_SUFFIX])
                save_variable(nodes[slot_index], key, slot)
            nodes[opt_index].setdefault("slots", []).append(
                {"variable": original, "slot": slot_name, "slot_variable": slot_index})
    return nodes, values, dtype_names
