"""dg.nest: TensorFlow's tf.nest on lists, tuples, namedtuples and dicts (dicts in
sorted-key order), with TF's arguments and exceptions. The internal
framework/nest.py stays the lean version the library itself uses."""
from __future__ import annotations

from typing import Any, Callable, List

from . import nest as _core


def is_nested(seq: Any) -> bool:
    """True for a list, tuple (namedtuples too) or dict."""
    return _core.is_nested(seq)


def flatten(structure: Any, expand_composites: bool = False) -> List[Any]:
    """The leaves of `structure` in order; a leaf (None included) gives [leaf]."""
    return _core.flatten(structure)


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """`structure` rebuilt with the leaves of `flat_sequence`."""
    flat_sequence = list(flat_sequence)
    count = len(_core.flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    return _core.pack_sequence_as(structure, flat_sequence)


def _describe(value: Any) -> str:
    return f"type={type(value).__name__} str={value}"


def _mismatch(a: Any, b: Any, detail: str, error: type = ValueError) -> Exception:
    return error(f"The two structures don't have the same nested structure.\n\n"
                 f"First structure: {_describe(a)}\n\nSecond structure: {_describe(b)}\n\n"
                 f"More specifically: {detail}")


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """ValueError when the nesting or lengths differ; TypeError when `check_types` and
    the sequence types differ (list vs tuple, namedtuple vs tuple)."""
    stack = [(nest1, nest2)]
    while stack:
        a, b = stack.pop()
        nested_a, nested_b = is_nested(a), is_nested(b)
        if nested_a != nested_b:
            seq, other = (a, b) if nested_a else (b, a)
            raise _mismatch(nest1, nest2, f'Substructure "{_describe(seq)}" is a sequence, '
                                          f'while substructure "{_describe(other)}" is not')
        if not nested_a:
            continue
        if check_types and type(a) is not type(b):
            raise _mismatch(nest1, nest2, f"The two namedtuples don't have the same sequence "
                                          f"type. First structure {_describe(a)} has type "
                                          f"{type(a).__name__}, while second structure "
                                          f"{_describe(b)} has type {type(b).__name__}",
                            TypeError)
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
                raise _mismatch(nest1, nest2, "The two dictionaries don't have the same set of "
                                              f"keys. First structure has keys "
                                              f"{sorted(a, key=str)}, while second structure "
                                              f"has keys {sorted(b, key=str)}.")
            stack.extend((a[k], b[k]) for k in a)
            continue
        if len(a) != len(b):
            raise _mismatch(nest1, nest2, "The two structures don't have the same number of "
                                          f"elements. First structure: {_describe(a)}. Second "
                                          f"structure: {_describe(b)}")
        stack.extend(zip(a, b, strict=True))


def map_structure(func: Callable, *structure: Any, check_types: bool = True,
                  expand_composites: bool = False) -> Any:
    """`func` applied to the leaves of the structures (which must nest alike)."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [_core.flatten(s) for s in structure]
    return _core.pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats, strict=True)])


__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure",
           "pack_sequence_as"]
