"""The sorted string table of a tensor bundle's `.index` file (LevelDB's table format).

A table is data blocks, an (empty) metaindex block, an index block, and a
48-byte footer:

- a block is a run of entries, each `varint shared, varint non_shared,
  varint value_length, key[shared:], value`, where `shared` is the length of
  the prefix common with the previous key; every `restart_interval` entries
  the key is written whole (shared = 0) and its offset is listed in the
  restart array at the end of the block (fixed32 each, then their count);
- each block is followed by a 5-byte trailer: its compression type (0: none)
  and the masked CRC-32C of the block and that byte;
- the index block maps a separator key (>= the block's last key, < the next
  block's first) to the `BlockHandle` (varint offset, varint size) of each
  data block;
- the footer holds the metaindex and index handles, zero-padded to 40 bytes,
  then the magic number 0xdb4775248b80fb57 (fixed64).

`TableWriter` writes exactly the bytes TensorFlow's table builder writes
(256 KiB blocks, restarts every 16 keys in data blocks and every key in the
index); `read_table` checks every length, checksum and the key order.
"""
from __future__ import annotations

import struct
from typing import BinaryIO, Iterator, List, Tuple

from . import crc32c
from .wire import WireError, decode_varint, encode_varint

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
BLOCK_SIZE = 256 * 1024
RESTART_INTERVAL = 16
NO_COMPRESSION = 0


class TableError(ValueError):
    """A malformed table (the caller names the file in TF's DataLossError)."""


class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self.restart_interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""
        self.empty = True

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.restart_interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += encode_varint(shared) + encode_varint(len(key) - shared)
        self.buffer += encode_varint(len(value))
        self.buffer += key[shared:]
        self.buffer += value
        self.last_key = key
        self.counter += 1
        self.empty = False

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        tail = b"".join(struct.pack("<I", r) for r in self.restarts)
        return bytes(self.buffer) + tail + struct.pack("<I", len(self.restarts))


def shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key k with start <= k < limit (LevelDB's bytewise comparator)."""
    common = 0
    shortest = min(len(start), len(limit))
    while common < shortest and start[common] == limit[common]:
        common += 1
    if common < shortest:
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def short_successor(key: bytes) -> bytes:
    """A short key >= `key`."""
    for index, byte in enumerate(key):
        if byte != 0xFF:
            return key[:index] + bytes([byte + 1])
    return key


def _handle(offset: int, size: int) -> bytes:
    return encode_varint(offset) + encode_varint(size)


class TableWriter:
    """Writes (key, value) pairs, added in strictly increasing key order, as a table."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._offset = 0
        self._data = _BlockBuilder(RESTART_INTERVAL)
        self._index = _BlockBuilder(1)
        self._last_key = b""
        self._pending_handle: bytes = b""
        self._count = 0

    def add(self, key: bytes, value: bytes) -> None:
        if self._count and key <= self._last_key:
            raise ValueError(f"table keys must increase: {key!r} after {self._last_key!r}")
        if self._pending_handle:
            self._index.add(shortest_separator(self._last_key, key), self._pending_handle)
            self._pending_handle = b""
        self._last_key = key
        self._count += 1
        self._data.add(key, value)
        if self._data.size_estimate() >= BLOCK_SIZE:
            self._flush()

    def _flush(self) -> None:
        if self._data.empty:
            return
        self._pending_handle = self._write_block(self._data)

    def _write_block(self, block: _BlockBuilder) -> bytes:
        raw = block.finish()
        block.reset()
        trailer_type = bytes([NO_COMPRESSION])
        checksum = crc32c.mask(crc32c.extend(crc32c.value(raw), trailer_type))
        self._stream.write(raw)
        self._stream.write(trailer_type + struct.pack("<I", checksum))
        handle = _handle(self._offset, len(raw))
        self._offset += len(raw) + BLOCK_TRAILER_SIZE
        return handle

    def finish(self) -> None:
        self._flush()
        metaindex = self._write_block(_BlockBuilder(RESTART_INTERVAL))
        if self._pending_handle:
            self._index.add(short_successor(self._last_key), self._pending_handle)
            self._pending_handle = b""
        index = self._write_block(self._index)
        footer = (metaindex + index).ljust(FOOTER_SIZE - 8, b"\0")
        self._stream.write(footer + struct.pack("<Q", MAGIC))


# -- reading ------------------------------------------------------------------------------

def _decode_handle(data: bytes, offset: int) -> Tuple[int, int, int]:
    block_offset, offset = decode_varint(data, offset)
    size, offset = decode_varint(data, offset)
    return block_offset, size, offset


def _read_block(data: bytes, offset: int, size: int, what: str) -> memoryview:
    end = offset + size
    if end + BLOCK_TRAILER_SIZE > len(data) - FOOTER_SIZE or size < 4:
        raise TableError(f"the {what} block (offset {offset}, size {size}) lies outside the "
                         f"file of {len(data)} bytes")
    view = memoryview(data)
    contents = view[offset:end]
    compression = data[end]
    stored = struct.unpack_from("<I", data, end + 1)[0]
    actual = crc32c.mask(crc32c.extend(crc32c.value(contents), bytes([compression])))
    if stored != actual:
        raise TableError(f"block checksum mismatch in the {what} block at offset {offset}")
    if compression != NO_COMPRESSION:
        raise TableError(f"the {what} block at offset {offset} is compressed (type "
                         f"{compression}); only uncompressed tables are read")
    return contents


def _block_entries(block: memoryview, what: str) -> Iterator[Tuple[bytes, memoryview]]:
    size = len(block)
    restarts = struct.unpack_from("<I", block, size - 4)[0]
    limit = size - 4 - 4 * restarts
    if restarts == 0 or limit < 0:
        raise TableError(f"bad restart array ({restarts} restarts) in the {what} block")
    offset = 0
    key = b""
    while offset < limit:
        shared, offset = decode_varint(block, offset)
        own, offset = decode_varint(block, offset)
        value_length, offset = decode_varint(block, offset)
        if shared > len(key) or own + value_length > limit - offset:
            raise TableError(f"a corrupt entry in the {what} block")
        key = key[:shared] + bytes(block[offset:offset + own])
        offset += own
        yield key, block[offset:offset + value_length]
        offset += value_length


def read_table(data: bytes) -> List[Tuple[bytes, memoryview]]:
    """Every (key, value) of a table held in `data`, in key order."""
    try:
        return _read_table(data)
    except WireError as error:
        raise TableError(str(error)) from None


def _read_table(data: bytes) -> List[Tuple[bytes, memoryview]]:
    if len(data) < FOOTER_SIZE:
        raise TableError(f"the file is too short ({len(data)} bytes) to be a table")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise TableError("not an sstable (bad magic number)")
    _, _, offset = _decode_handle(footer, 0)  # the metaindex block is empty in bundles
    index_offset, index_size, _ = _decode_handle(footer, offset)
    index = _read_block(data, index_offset, index_size, "index")
    entries: List[Tuple[bytes, memoryview]] = []
    for _, handle in _block_entries(index, "index"):
        block_offset, size, _ = _decode_handle(bytes(handle), 0)
        for key, value in _block_entries(_read_block(data, block_offset, size, "data"), "data"):
            if entries and key <= entries[-1][0]:
                raise TableError(f"keys out of order: {key!r} after {entries[-1][0]!r}")
            entries.append((key, value))
    return entries


__all__ = ["TableWriter", "read_table", "TableError"]
