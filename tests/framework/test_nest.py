"""dg.nest: TF's tf.nest results and exception classes (recorded from TF 2.21)."""
import collections

import pytest

import duograd as dg

P = collections.namedtuple("P", "a b")
STRUCTURE = {"b": [1, (2, 3)], "a": P(4, None)}


def test_flatten_orders_dict_keys_and_keeps_none_leaves():
    assert dg.nest.flatten(STRUCTURE) == [4, None, 1, 2, 3]
    assert dg.nest.flatten(None) == [None]
    assert dg.nest.flatten(5) == [5]
    assert dg.nest.flatten({3: "a", 1: "b", 2: "c"}) == ["b", "c", "a"]


def test_pack_sequence_as_rebuilds_types_and_checks_counts():
    packed = dg.nest.pack_sequence_as(STRUCTURE, list("abcde"))
    assert packed == {"b": ["c", ("d", "e")], "a": P("a", "b")}
    assert type(packed["a"]) is P and list(packed) == ["b", "a"]
    assert dg.nest.pack_sequence_as(5, [7]) == 7
    with pytest.raises(ValueError, match="Could not pack sequence. Structure had 2 atoms, but "
                                         r"flat_sequence had 3 items."):
        dg.nest.pack_sequence_as([1, [2]], [1, 2, 3])


def test_map_structure():
    assert dg.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == \
        [11, (22, 33)]
    assert dg.nest.map_structure(lambda x: x * 2, {"x": [1, 2]}) == {"x": [2, 4]}
    assert dg.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, [20, 30]],
                                 check_types=False) == [11, (22, 33)]
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        dg.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, [20, 30]])
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        dg.nest.map_structure(lambda x, y: x + y, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=r'Substructure "type=list str=\[2\]" is a sequence, '
                                         r'while substructure "type=int str=2" is not'):
        dg.nest.map_structure(lambda x, y: x + y, [1, [2]], [1, 2])
    with pytest.raises(TypeError, match="func must be callable"):
        dg.nest.map_structure(None, [1])


def test_map_structure_over_tensors():
    out = dg.nest.map_structure(lambda t: t * 2.0,
                                {"w": dg.constant([1.0]), "b": (dg.constant(2.0),)})
    assert float(out["b"][0]) == 4.0 and out["w"].numpy().tolist() == [2.0]


def test_assert_same_structure():
    dg.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        dg.nest.assert_same_structure([1, (2, 3)], [4, [5, 6]])
    with pytest.raises(TypeError):
        dg.nest.assert_same_structure(P(1, 2), (1, 2))
    dg.nest.assert_same_structure(P(1, 2), (1, 2), check_types=False)
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        dg.nest.assert_same_structure([1, (2, 3)], [4, (5,)])
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        dg.nest.assert_same_structure({"a": 1}, {"b": 1})


def test_is_nested():
    values = ([], (), {}, 1, "ab", None, P(1, 2), dg.constant([1]))
    assert [dg.nest.is_nested(v) for v in values] == [True, True, True, False, False, False,
                                                      True, False]


def test_internal_nest_packs_deep_structures_without_recursion():
    """framework/nest.py (one walker for dg.function, the tape and SavedModel signatures)
    rebuilds a structure 100,000 levels deep: nothing recurses on nesting depth."""
    from duograd.framework import nest
    deep: list = [1]
    for _ in range(100_000):
        deep = [deep, 2]
    flat = nest.flatten(deep)
    assert len(flat) == 100_001
    packed = nest.pack_sequence_as(deep, [x * 10 for x in flat])
    probe = packed
    for _ in range(100_000):
        assert probe[1] == 20
        probe = probe[0]
    assert probe == [10]
    assert nest.pack_sequence_as(STRUCTURE, list("abcde")) == \
        {"b": ["c", ("d", "e")], "a": P("a", "b")}
