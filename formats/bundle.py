"""TensorFlow's tensor bundle: the `<prefix>.index` table and `<prefix>.data-00000-of-00001`.

The index is a table (`table`) whose first entry, under the empty key, is a
`BundleHeaderProto` (num_shards = 1, version {producer = 1}); every other
entry maps a tensor's key to a `BundleEntryProto`: dtype (1), shape (2, a
TensorShapeProto), shard_id (3), offset (4) and size (5) in the data file, and
the masked CRC-32C of those bytes (6, fixed32). A numeric tensor's bytes are
its little-endian row-major values; a string tensor is the varint64 length of
each element, the masked CRC-32C of those lengths (each as a uint32), then the
bytes, and its checksum covers the uint32 lengths, that CRC and the bytes.

`BundleWriter` streams each tensor to the data file as it is added (nothing
is copied beyond the array itself) and writes the index last; both files go
through temporary files renamed into place, data first, so a bundle whose
index exists is complete. `BundleReader` reads the index and then each tensor
on request, straight into its array, checking its size against its shape and
the file and its checksum, so a malformed file raises DataLossError naming it
and a declared shape can never allocate more than the file holds.
"""
from __future__ import annotations

import os
import struct
from typing import Any, BinaryIO, Dict, List, Tuple

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError, NotFoundError, UnimplementedError
from . import crc32c, tf_types, wire
from .atomic import atomic_output
from .table import TableError, TableWriter, read_table

INDEX_SUFFIX = ".index"
HEADER_KEY = b""
BUNDLE_VERSION = 1
_CHUNK = 4 << 20  # bytes read or checksummed at a time


def data_path(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _shape_message(shape: Tuple[int, ...]) -> wire.Writer:
    message = wire.Writer()
    for size in shape:
        message.message(2, wire.Writer().varint(1, int(size)))
    return message


class Entry:
    """One tensor's BundleEntryProto."""

    __slots__ = ("dtype_enum", "shape", "shard_id", "offset", "size", "crc", "sliced")

    def __init__(self, dtype_enum: int, shape: Tuple[int, ...], shard_id: int, offset: int,
                 size: int, crc: int, sliced: bool = False) -> None:
        self.dtype_enum = dtype_enum
        self.shape = shape
        self.shard_id = shard_id
        self.offset = offset
        self.size = size
        self.crc = crc
        self.sliced = sliced

    def encode(self) -> bytes:
        message = wire.Writer().varint(1, self.dtype_enum)
        message.message(2, _shape_message(self.shape))
        message.varint(3, self.shard_id).varint(4, self.offset).varint(5, self.size)
        return message.fixed32(6, crc32c.mask(self.crc)).finish()

    @classmethod
    def decode(cls, data: memoryview) -> "Entry":
        fields = wire.parse(data)
        shape: List[int] = []
        for shape_data in wire.messages(fields, 2)[-1:]:
            shape_fields = wire.parse(shape_data)
            if wire.last_int(shape_fields, 3):
                raise wire.WireError("a saved tensor of unknown rank")
            for dim in wire.messages(shape_fields, 2):
                size = wire.signed64(wire.last_int(wire.parse(dim), 1))
                if size < 0:
                    raise wire.WireError(f"a negative dimension {size}")
                shape.append(size)
        return cls(wire.last_int(fields, 1), tuple(shape), wire.last_int(fields, 3),
                   wire.last_int(fields, 4), wire.last_int(fields, 5),
                   crc32c.unmask(wire.last_int(fields, 6)), bool(fields.get(7)))


def _header() -> bytes:
    version = wire.Writer().varint(1, BUNDLE_VERSION)
    return wire.Writer().varint(1, 1).message(3, version).finish()


# -- writing ------------------------------------------------------------------------------

class BundleWriter:
    """Writes tensors to `<prefix>.data-00000-of-00001` as added; `finish` writes the index."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._entries: Dict[bytes, Entry] = {}
        self._data = atomic_output(data_path(prefix))
        self._stream: BinaryIO = self._data.__enter__()
        self._size = 0

    def add(self, key: str, value: Any, dtype: dtypes.DType) -> None:
        """Appends `value` (an array of `dtype`) under `key`."""
        encoded = key.encode("utf-8")
        if encoded == HEADER_KEY or encoded in self._entries:
            raise ValueError(f"Adding duplicate key: {key}")
        array = np.asarray(value)
        if dtype.name == "string":
            size, crc = self._write_strings(array)
        else:
            array = np.asarray(array, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"),
                               order="C")
            buffer = memoryview(array).cast("B") if array.size else memoryview(b"")  # type: ignore[arg-type]  # an ndarray is a buffer
            self._stream.write(buffer)
            size, crc = len(buffer), crc32c.value(buffer)
        self._entries[encoded] = Entry(tf_types.enum_of(dtype), tuple(array.shape), 0,
                                       self._size, size, crc)
        self._size += size

    def _write_strings(self, array: np.ndarray) -> Tuple[int, int]:
        items = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in array.ravel()]
        lengths = b"".join(wire.encode_varint(len(x)) for x in items)
        crc = 0
        for item in items:
            size = len(item)
            crc = crc32c.extend(crc, struct.pack("<I", size) if size <= 0xFFFFFFFF
                                else struct.pack("<Q", size))
        checksum = struct.pack("<I", crc32c.mask(crc))
        crc = crc32c.extend(crc, checksum)
        self._stream.write(lengths + checksum)
        for item in items:
            crc = crc32c.extend(crc, item)
            self._stream.write(item)
        return len(lengths) + 4 + sum(len(x) for x in items), crc

    def finish(self) -> str:
        """Completes the data file, then writes the index (the bundle exists from then on)."""
        self._data.__exit__(None, None, None)
        with atomic_output(self.prefix + INDEX_SUFFIX) as stream:
            table = TableWriter(stream)
            table.add(HEADER_KEY, _header())
            for key in sorted(self._entries):
                table.add(key, self._entries[key].encode())
            table.finish()
        return self.prefix

    def abort(self, error: BaseException) -> None:
        """Removes the partial data file (after a failed add)."""
        self._data.__exit__(type(error), error, error.__traceback__)


def write_bundle(prefix: str, tensors: List[Tuple[str, Any, dtypes.DType]]) -> str:
    """Writes (key, value, dtype) tensors, in this order in the data file, as bundle `prefix`."""
    writer = BundleWriter(prefix)
    try:
        for key, value, dtype in tensors:
            writer.add(key, value, dtype)
    except BaseException as error:
        writer.abort(error)
        raise
    return writer.finish()


# -- reading ------------------------------------------------------------------------------

def is_bundle_index(path: str) -> bool:
    """Whether `path` ends with a table's magic number (a TF index, not a JSON one)."""
    try:
        with open(path, "rb") as stream:
            stream.seek(0, os.SEEK_END)
            if stream.tell() < 8:
                return False
            stream.seek(-8, os.SEEK_END)
            return stream.read(8) == struct.pack("<Q", 0xDB4775248B80FB57)
    except OSError:
        return False


class BundleReader:
    """The tensors of bundle `prefix`: keys, dtypes and shapes now; values on request."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.index_path = prefix + INDEX_SUFFIX
        self._verified: set = set()
        try:
            with open(self.index_path, "rb") as stream:
                data = stream.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Failed to find a checkpoint at {prefix} (no file "
                                f"{self.index_path}); you may be missing the checkpoint "
                                "number suffix, e.g. '-1'.") from None
        except OSError as error:
            raise NotFoundError(None, None, f"Cannot read {self.index_path}: {error}") from None
        try:
            table = read_table(data)
            self.num_shards = self._check_header(table)
            self.entries = {key.decode("utf-8"): Entry.decode(value)
                            for key, value in table[1:]}
        except (TableError, wire.WireError, UnicodeDecodeError) as error:
            raise self.corrupt(f"{self.index_path}: {error}") from None
        for key, entry in self.entries.items():
            if not 0 <= entry.shard_id < self.num_shards:
                raise self.corrupt(f"{self.index_path}: key {key} names shard "
                                   f"{entry.shard_id} of {self.num_shards}")

    def corrupt(self, why: str) -> DataLossError:
        return DataLossError(None, None, f"Checkpoint {self.prefix} is corrupt: {why}")

    def _check_header(self, table: List[Tuple[bytes, memoryview]]) -> int:
        if not table or table[0][0] != HEADER_KEY:
            raise TableError("the bundle header entry is missing")
        header = wire.parse(table[0][1])
        num_shards = wire.last_int(header, 1)
        if wire.last_int(header, 2) != 0:
            raise TableError("the bundle is big-endian; only little-endian bundles are read")
        for version in wire.messages(header, 3)[-1:]:
            min_consumer = wire.last_int(wire.parse(version), 2)
            if min_consumer > BUNDLE_VERSION:
                raise TableError(f"the bundle needs a reader of version {min_consumer}")
        if not 1 <= num_shards <= 1 << 16:
            raise TableError(f"bad number of shards {num_shards}")
        return num_shards

    def dtype(self, key: str) -> dtypes.DType:
        entry = self.entries[key]
        try:
            return tf_types.dtype_of(entry.dtype_enum)
        except KeyError:
            raise UnimplementedError(None, None, f"Checkpoint {self.prefix}: key {key} holds "
                                     f"{tf_types.describe(entry.dtype_enum)} values, a dtype "
                                     "duograd does not have") from None

    def verify(self, keys: List[str]) -> None:
        """Checks the checksum of each numeric key's bytes, reading 16 MiB at a time and
        keeping nothing; the next `get_tensor` of a verified key skips its checksum."""
        for key in keys:
            entry = self.entries.get(key)
            if entry is None or key in self._verified or entry.sliced or \
                    self.dtype(key).name == "string":
                continue
            path = data_path(self.prefix, entry.shard_id, self.num_shards)
            try:
                with open(path, "rb") as stream:
                    self._check_extent(key, entry, stream, path)
                    stream.seek(entry.offset)
                    crc, left = 0, entry.size
                    while left:
                        chunk = stream.read(min(left, _CHUNK))
                        if not chunk:
                            raise self.corrupt(f"{path} ended inside key {key}")
                        crc = crc32c.extend(crc, chunk)
                        left -= len(chunk)
            except FileNotFoundError:
                raise NotFoundError(None, None, f"Checkpoint {self.prefix}: its data file "
                                    f"{path} does not exist") from None
            if crc != entry.crc:
                raise self.corrupt(f"checksum mismatch for key {key} in {path}")
            self._verified.add(key)

    def _check_extent(self, key: str, entry: Entry, stream: Any, path: str) -> None:
        file_size = os.fstat(stream.fileno()).st_size
        if entry.offset + entry.size > file_size:
            raise self.corrupt(f"key {key} lies at bytes {entry.offset}.."
                               f"{entry.offset + entry.size} of {path}, which has {file_size}")

    def get_tensor(self, key: str) -> np.ndarray:
        """The value of `key` as a new array (strings: an object array of bytes)."""
        entry = self.entries.get(key)
        if entry is None:
            raise NotFoundError(None, None, f"Key {key} not found in checkpoint {self.prefix}")
        if entry.sliced:
            raise UnimplementedError(None, None, f"Checkpoint {self.prefix}: key {key} is a "
                                     "partitioned (sliced) variable, which duograd does not read")
        dtype = self.dtype(key)
        path = data_path(self.prefix, entry.shard_id, self.num_shards)
        try:
            with open(path, "rb") as stream:
                self._check_extent(key, entry, stream, path)
                stream.seek(entry.offset)
                if dtype.name == "string":
                    return self._read_strings(key, entry, stream, path)
                return self._read_numeric(key, entry, dtype, stream, path)
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Checkpoint {self.prefix}: its data file {path} "
                                "does not exist") from None

    def _read_numeric(self, key: str, entry: Entry, dtype: dtypes.DType, stream: Any,
                      path: str) -> np.ndarray:
        numpy_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        count = 1
        for size in entry.shape:
            count *= size
        if count * numpy_dtype.itemsize != entry.size:
            raise self.corrupt(f"key {key} of shape {list(entry.shape)} and dtype {dtype.name} "
                               f"needs {count * numpy_dtype.itemsize} bytes, its entry says "
                               f"{entry.size} (in {path})")
        array = np.empty(entry.shape, dtype=numpy_dtype)
        buffer = memoryview(array).cast("B") if array.size else memoryview(bytearray())  # type: ignore[arg-type]  # an ndarray is a buffer
        crc = 0
        done = 0
        check = key not in self._verified
        while done < entry.size:  # in chunks: checksummed as read, never a second copy
            got = stream.readinto(buffer[done:done + _CHUNK])
            if not got:
                raise self.corrupt(f"{path} ended inside key {key}")
            if check:
                crc = crc32c.extend(crc, buffer[done:done + got])
            done += got
        if check and crc != entry.crc:
            raise self.corrupt(f"checksum mismatch for key {key} in {path}")
        return array.astype(np.dtype(dtype.as_numpy_dtype), copy=False)

    def _read_strings(self, key: str, entry: Entry, stream: BinaryIO, path: str) -> np.ndarray:
        count = 1
        for size in entry.shape:
            count *= size
        if count > entry.size:  # every element takes at least one length byte
            raise self.corrupt(f"key {key} declares {count} strings in {entry.size} bytes "
                               f"of {path}")
        data = stream.read(entry.size)
        if len(data) != entry.size:
            raise self.corrupt(f"{path} ended inside key {key}")
        try:
            lengths = []
            offset = 0
            for _ in range(count):
                length, offset = wire.decode_varint(data, offset)
                lengths.append(length)
        except wire.WireError as error:
            raise self.corrupt(f"key {key} in {path}: {error}") from None
        if offset + 4 + sum(lengths) != entry.size:
            raise self.corrupt(f"key {key}: string lengths do not add up to its size in {path}")
        crc = 0
        for length in lengths:
            crc = crc32c.extend(crc, struct.pack("<I", length) if length <= 0xFFFFFFFF
                                else struct.pack("<Q", length))
        stored = struct.unpack_from("<I", data, offset)[0]
        if crc32c.mask(crc) != stored:
            raise self.corrupt(f"checksum mismatch for the string lengths of key {key} in {path}")
        crc = crc32c.extend(crc, data[offset:offset + 4])
        crc = crc32c.extend(crc, data[offset + 4:])
        if crc != entry.crc:
            raise self.corrupt(f"checksum mismatch for key {key} in {path}")
        out = np.empty(count, dtype=object)
        position = offset + 4
        for index, length in enumerate(lengths):
            out[index] = data[position:position + length]
            position += length
        return out.reshape(entry.shape)

    def shape(self, key: str) -> List[int]:
        return list(self.entries[key].shape)

    def keys(self) -> List[str]:
        return sorted(self.entries)


__all__ = ["BundleWriter", "BundleReader", "write_bundle", "is_bundle_index", "data_path"]
