"""TF's StructuredValue (nested tuples, lists, dicts, TensorSpecs) to Python, and back.

A SavedModel describes a function's inputs and outputs with it. Decoding
yields plain Python structures whose leaves are `TensorSpec`s (or None and
numbers), which `framework/nest.py` walks in TF's order (dict keys sorted).
"""
from __future__ import annotations

from typing import Any, List, Tuple

from ..framework.errors import InvalidArgumentError
from ..framework.tensor_spec import TensorSpec
from .tensor_proto import dtype_from_enum, shape_from_proto

MAX_DEPTH = 64


def _decode_leaf(value: Any, kind: str, where: str) -> Any:
    if kind == "tensor_spec_value":
        spec = value.tensor_spec_value
        return TensorSpec(shape_from_proto(spec.shape), dtype_from_enum(spec.dtype, where),
                          name=spec.name or None)
    if kind == "none_value" or kind is None:
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(value, kind)
    raise InvalidArgumentError(None, None, f"{where}: a structure element of kind {kind} is "
                               "not supported")


def decode(value: Any, where: str) -> Any:
    """The Python structure a StructuredValue describes (iterative, depth-limited)."""
    out: List[Any] = [None]
    stack: List[Tuple[Any, List[Any], int, int]] = [(value, out, 0, 0)]
    finishers: List[Tuple[Any, List[Any], int, List[Any], Any]] = []
    while stack:
        message, parent, slot, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidArgumentError(None, None, f"{where}: structure nested too deeply")
        kind = message.WhichOneof("kind")
        if kind in ("list_value", "tuple_value"):
            items = list(getattr(message, kind).values)
            keys = None
            container: Any = list if kind == "list_value" else tuple
        elif kind == "dict_value":
            fields = dict(message.dict_value.fields)
            keys = sorted(fields)
            items = [fields[k] for k in keys]
            container = dict
        elif kind == "named_tuple_value":
            pairs = list(message.named_tuple_value.values)
            keys = [p.key for p in pairs]
            items = [p.value for p in pairs]
            container = dict
        else:
            parent[slot] = _decode_leaf(message, kind, where)
            continue
        holder: List[Any] = [None] * len(items)
        finishers.append((container, parent, slot, holder, keys))
        stack.extend((item, holder, index, depth + 1) for index, item in enumerate(items))
    for container, parent, slot, holder, keys in reversed(finishers):
        parent[slot] = dict(zip(keys, holder, strict=True)) if keys is not None \
            else container(holder)
    return out[0]


def encode(value: Any) -> Any:
    """The StructuredValue message of a Python structure of TensorSpecs, tensors (saved
    as their spec), None, numbers, strings, tuples, lists and dicts (iterative)."""
    from .protos import proto
    from .tensor_proto import shape_to_proto
    from . import tf_types
    struct_pb2 = proto("struct_pb2")
    root = struct_pb2.StructuredValue()
    stack: List[Tuple[Any, Any, int]] = [(value, root, 0)]
    while stack:
        item, message, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError("structure nested too deeply to save")
        if isinstance(item, dict):
            message.dict_value.SetInParent()
            for key in sorted(item):
                stack.append((item[key], message.dict_value.fields[str(key)], depth + 1))
        elif isinstance(item, (list, tuple)):
            container = message.list_value if isinstance(item, list) else message.tuple_value
            container.SetInParent()
            children = [container.values.add() for _ in item]
            stack.extend((child_value, child, depth + 1)
                         for child_value, child in zip(item, children, strict=True))
        elif item is None:
            message.none_value.SetInParent()
        elif isinstance(item, bool):
            message.bool_value = item
        elif isinstance(item, int):
            message.int64_value = item
        elif isinstance(item, float):
            message.float64_value = item
        elif isinstance(item, str):
            message.string_value = item
        elif hasattr(item, "dtype") and hasattr(item, "shape"):
            spec = message.tensor_spec_value
            spec.name = getattr(item, "name", None) if isinstance(
                getattr(item, "name", None), str) and isinstance(item, TensorSpec) else ""
            spec.shape.CopyFrom(shape_to_proto(item.shape))
            spec.dtype = tf_types.enum_of(item.dtype)
        else:
            raise ValueError(f"cannot save {item!r} in a function's signature")
    return root
