"""Restoring side of object-based checkpoints: match saved nodes to live objects.

The saved object graph and the live one are walked together from the root
by child name. A saved child the live object does not have yet is deferred
(restored when the object reports it, `trackable.child_added`); a saved
optimizer slot whose slot variable does not exist yet is handed to the
optimizer's `defer_slot_restore`, which creates the slot with that value.
Every value is checked against its variable's dtype and shape before any is
written, so a mismatched restore changes nothing.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Dict, List, Set, Tuple

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.default_session import get_default_session
from ..framework.tensor_shape import TensorShape
from .checkpoint_format import CheckpointReader
from .object_graph import reachable_objects
from .trackable import DEFERRED, children_of, is_variable, needs_session, slot_variables_of, write_value


def check_restorable(variable: Any, key: str, reader: CheckpointReader) -> str:
    """`key`, after checking that its saved dtype and shape fit `variable` (without reading
    its value); InvalidArgumentError for the dtype and ValueError for the shape, as TF."""
    saved_dtype = reader.dtype(key)
    saved_shape = TensorShape(reader.shape(key))
    if saved_dtype != variable.dtype:
        raise InvalidArgumentError(
            None, None, f"Restoring variable {variable.name} from checkpoint key {key} of "
            f"{reader.prefix}: expected dtype {variable.dtype.name} does not equal original "
            f"dtype {saved_dtype.name} (shapes: variable {variable.shape}, saved {saved_shape})")
    if not TensorShape(variable.shape).is_compatible_with(saved_shape):
        raise ValueError(f"Received incompatible tensor with shape {saved_shape} when attempting "
                         f"to restore variable with shape {variable.shape} and name "
                         f"{variable.name} (checkpoint key {key} of {reader.prefix}, dtype "
                         f"{saved_dtype.name}).")
    return key


class Restoration:
    """One `restore` call: what matched, what waits, and the graph values to write."""

    def __init__(self, reader: CheckpointReader, root: Any, session: Any = None) -> None:
        self.reader = reader
        self.root = root
        self.nodes: List[dict] = reader.object_graph or []
        self.session = session
        self.matched: Dict[int, Any] = {}
        self.handed_to_optimizer: Set[int] = set()
        self.handed_slots: Set[Tuple[int, int, str]] = set()  # (optimizer, variable, slot)
        self.graph_values: List[Tuple[Any, np.ndarray]] = []

    def run(self) -> None:
        if not self.nodes:
            raise ValueError(f"Checkpoint {self.reader.prefix} holds no object graph (it was "
                             "written by a name-based Saver); restore it with "
                             "dg.compat.v1.train.Saver.")
        self._restore_from(0, self.root)

    def _restore_from(self, start: int, obj: Any) -> None:
        """Matches the saved subtree at node `start` to `obj`; writes values if all check out."""
        writes: List[Tuple[Any, str]] = []
        newly: Dict[int, Any] = {}
        queue = deque([(start, obj)])
        while queue:
            index, live = queue.popleft()
            if index in self.matched or index in newly:
                continue
            newly[index] = live
            node = self.nodes[index]
            if "key" in node and is_variable(live):
                writes.append((live, check_restorable(live, node["key"], self.reader)))
            live_children = children_of(live)
            for child in node["children"]:
                found = live_children.get(child["name"])
                if found is not None:
                    queue.append((child["node"], found))
                elif child["node"] not in self.matched:
                    DEFERRED.add(live, child["name"], self._late_restorer(child["node"]))
        writes.extend(self._slots(newly))
        self.matched.update(newly)
        # Every value's checksum is verified (streamed, nothing kept) before any is written;
        # then each is read and written in turn, so memory holds one value at a time.
        self.reader.verify([key for _, key in writes])
        for variable, key in writes:
            self._write(variable, self.reader.get_tensor(key))

    def _late_restorer(self, index: int):
        def restore(child: Any) -> None:
            self._restore_from(index, child)
        return restore

    def _slots(self, newly: Dict[int, Any]) -> List[Tuple[Any, str]]:
        """Values for the slots of matched optimizers whose variables matched too."""
        writes = []
        everything = {**self.matched, **newly}
        for index, optimizer in everything.items():
            entries = self.nodes[index].get("slots", []) + self._listed_slots(index, optimizer)
            if not entries:
                continue
            existing = {(id(v), name): slot for v, name, slot in slot_variables_of(optimizer)}
            for entry in entries:
                slot_index = entry["slot_variable"]
                variable = everything.get(entry["variable"])
                if variable is None or slot_index in everything or \
                        slot_index in self.handed_to_optimizer:
                    continue
                key = self.nodes[slot_index]["key"]
                slot = existing.get((id(variable), entry["slot"]))
                if slot is not None:
                    writes.append((slot, check_restorable(slot, key, self.reader)))
                    newly[slot_index] = slot
                elif callable(getattr(optimizer, "defer_slot_restore", None)):
                    optimizer.defer_slot_restore(variable, entry["slot"],
                                                 self.reader.get_tensor(key))
                    self.handed_to_optimizer.add(slot_index)
                    self.handed_slots.add((id(optimizer), id(variable), entry["slot"]))
        return writes

    def _listed_slots(self, index: int, optimizer: Any) -> List[dict]:
        """Slot references of a Keras 3 optimizer's node: its `_momentums/i` (say) is the
        "momentum" slot of its `_trainable_variables/i`."""
        lists = getattr(optimizer, "checkpoint_slot_lists", None)
        if not callable(lists):
            return []
        children = {child["name"]: child["node"] for child in self.nodes[index]["children"]}
        if "_trainable_variables" not in children:
            return []
        variables = {child["name"]: child["node"]
                     for child in self.nodes[children["_trainable_variables"]]["children"]}
        entries = []
        for list_name, slot_name in lists().items():
            if list_name not in children:
                continue
            for child in self.nodes[children[list_name]]["children"]:
                if child["name"] in variables and "key" in self.nodes[child["node"]]:
                    entries.append({"variable": variables[child["name"]], "slot": slot_name,
                                    "slot_variable": child["node"]})
        return entries

    def _write(self, variable: Any, value: np.ndarray) -> None:
        if needs_session(variable):
            self.graph_values.append((variable, value))
            if self.session is None and get_default_session() is None:
                return  # written by status.run_restore_ops(session)
        write_value(variable, value, self.session, owned=not needs_session(variable))

    # -- what the status object reports ------------------------------------------------------
    def node_paths(self) -> Dict[int, str]:
        paths = {0: "(root)"}
        queue = deque([0])
        while queue:
            index = queue.popleft()
            for child in self.nodes[index]["children"]:
                if child["node"] not in paths:
                    paths[child["node"]] = f"{paths[index]}.{child['name']}"
                    queue.append(child["node"])
        for node in self.nodes:
            for entry in node.get("slots", ()):
                paths.setdefault(entry["slot_variable"],
                                 f"{paths.get(entry['variable'], '?')}'s slot '{entry['slot']}'")
        return paths

    def unresolved_nodes(self) -> List[str]:
        paths = self.node_paths()
        return [paths.get(i, f"node {i}") for i in range(len(self.nodes))
                if "key" in self.nodes[i]  # as TF: only nodes holding values must match
                and i not in self.matched and i not in self.handed_to_optimizer]

    def unmatched_objects(self) -> List[Any]:
        matched_ids = {id(obj) for obj in self.matched.values()}
        live = [obj for _, obj in reachable_objects(self.root)]
        for obj in list(live):  # slots created from a value handed over count as matched
            for variable, name, slot in slot_variables_of(obj):
                if (id(obj), id(variable), name) in self.handed_slots:
                    matched_ids.add(id(slot))
                else:
                    live.append(slot)
        return [obj for obj in live if id(obj) not in matched_ids
                and (is_variable(obj) or callable(getattr(obj, "trackable_children", None)))]

