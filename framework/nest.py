"""Nested structures (lists, tuples, dicts, namedtuples) flattened and rebuilt."""
from __future__ import annotations

from typing import Any, Callable, List, Tuple


def is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def flatten(structure: Any) -> List[Any]:
    """Leaves in order (dicts by sorted key, as TF's nest does); iterative."""
    out: List[Any] = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item[k] for k in reversed(sorted(item, key=_sort_key)))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def pack_sequence_as(structure: Any, flat: List[Any]) -> Any:
    """Rebuilds `structure` with the leaves of `flat`, in `flatten` order; iterative.

    Containers keep their type (a dict its key order, a namedtuple its class)."""
    leaves = iter(flat)
    out: List[Any] = [None]
    stack: List[Tuple[Any, List[Any], int]] = [(structure, out, 0)]
    finishers: List[Tuple[Any, List[Any], int, List[Any], Any]] = []
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, dict):
            keys = sorted(item, key=_sort_key)
            children = [item[k] for k in keys]
        elif isinstance(item, (list, tuple)):
            keys = None
            children = list(item)
        else:
            parent[slot] = next(leaves)
            continue
        holder: List[Any] = [None] * len(children)
        finishers.append((item, parent, slot, holder, keys))
        # pushed last-first, so that leaves are taken in flatten order
        stack.extend((child, holder, i) for i, child in reversed(list(enumerate(children))))
    for item, parent, slot, holder, keys in reversed(finishers):
        parent[slot] = _rebuilt(item, holder, keys)
    return out[0]


def _rebuilt(item: Any, parts: List[Any], keys: Any) -> Any:
    """A container like `item` holding `parts` (for a dict, the values of sorted `keys`)."""
    if keys is not None:
        by_key = dict(zip(keys, parts, strict=True))
        return type(item)((k, by_key[k]) for k in item)
    if isinstance(item, tuple) and hasattr(item, "_fields"):
        return type(item)(*parts)
    return type(item)(parts)


def map_structure(func: Callable, *structures: Any) -> Any:
    flats = [flatten(s) for s in structures]
    lengths = {len(f) for f in flats}
    if len(lengths) > 1:
        raise ValueError("The structures do not have the same number of elements.")
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats, strict=True)])


def assert_same_structure(a: Any, b: Any) -> None:
    """ValueError when `a` and `b` do not nest the same way."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) or isinstance(y, dict):
            if not (isinstance(x, dict) and isinstance(y, dict)) or set(x) != set(y):
                raise ValueError(f"The two structures don't have the same nested structure: "
                                 f"{a!r} vs {b!r}")
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, (list, tuple)) or isinstance(y, (list, tuple)):
            if not (isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))) \
                    or len(x) != len(y):
                raise ValueError(f"The two structures don't have the same nested structure: "
                                 f"{a!r} vs {b!r}")
            stack.extend(zip(x, y, strict=True))


def _sort_key(key: Any) -> Any:
    return (str(type(key)), key)
