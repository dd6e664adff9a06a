"""Each kind of damage to a TF-written checkpoint raises TF's class with a message naming
the file and the damage (the fuzz test checks random damage; these name each case)."""
import os
import shutil

import pytest

import duograd as dg
from duograd.formats import bundle, wire
from duograd.formats.table import TableWriter
from fixture_models import fixture


@pytest.fixture
def prefix(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(fixture("module/written") + suffix, tmp_path / ("ckpt" + suffix))
    return str(tmp_path / "ckpt")


def _patch(path, offset, data):
    with open(path, "r+b") as stream:
        stream.seek(offset, os.SEEK_END if offset < 0 else os.SEEK_SET)
        stream.write(data)


def _read_all(prefix):
    reader = dg.train.load_checkpoint(prefix)
    return [reader.get_tensor(key) for key in reader.get_variable_to_shape_map()]


def test_bad_magic_number(prefix):
    _patch(prefix + ".index", -1, b"\x00")
    with pytest.raises(dg.errors.DataLossError, match=r"ckpt\.index: not an sstable \(bad "
                                                      "magic number\\)"):
        _read_all(prefix)


def test_truncated_index(prefix):
    os.truncate(prefix + ".index", 30)
    with pytest.raises(dg.errors.DataLossError, match=r"ckpt\.index: .*too short|ckpt\.index"):
        _read_all(prefix)


def test_block_checksum(prefix):
    _patch(prefix + ".index", 20, b"\xff")
    with pytest.raises(dg.errors.DataLossError, match=r"ckpt\.index: block checksum mismatch"):
        _read_all(prefix)


def test_value_checksum(prefix):
    _patch(prefix + ".data-00000-of-00001", 0, b"\x01\x02")
    with pytest.raises(dg.errors.DataLossError, match=r"checksum mismatch for key "
                                                      r"model/scale/.*ckpt\.data-00000"):
        _read_all(prefix)


def test_truncated_data_file(prefix):
    os.truncate(prefix + ".data-00000-of-00001", 10)
    with pytest.raises(dg.errors.DataLossError, match=r"lies at bytes .* of .*ckpt\.data"):
        _read_all(prefix)


def test_missing_data_file(prefix):
    os.remove(prefix + ".data-00000-of-00001")
    with pytest.raises(dg.errors.NotFoundError, match=r"ckpt\.data-00000-of-00001 does not "
                                                      "exist"):
        _read_all(prefix)


def test_a_declared_shape_far_larger_than_the_file_is_refused_before_allocating(tmp_path):
    """An entry claiming a [2^20, 2^20] float32 tensor (4 TiB) in a 12-byte data file."""
    out = bundle.write_bundle(str(tmp_path / "huge"), [("x", [1.0, 2.0, 3.0], dg.float32)])
    entry = bundle.BundleReader(out).entries["x"]
    entry.shape, entry.size = (1 << 20, 1 << 20), (1 << 40) * 4
    header = wire.Writer().varint(1, 1).message(3, wire.Writer().varint(1, 1)).finish()
    with open(out + ".index", "wb") as stream:  # the index rewritten with that entry
        writer = TableWriter(stream)
        writer.add(b"", header)
        writer.add(b"x", entry.encode())
        writer.finish()
    with pytest.raises(dg.errors.DataLossError, match=r"key x lies at bytes 0\.\."
                                                      r"4398046511104 of .*huge\.data"):
        dg.train.load_checkpoint(out).get_tensor("x")
