"""CRC-32C (Castagnoli), the checksum of TF's tensor bundles and tables, and its mask.

Table-driven (one 256-entry table of the reflected polynomial 0x82F63B78);
large buffers are hashed in NumPy lanes (see `extend`), so checksumming a
100 MB tensor does not run a Python loop per byte.
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

_POLY = 0x82F63B78
_MASK_DELTA = 0xA282EAD8


def _make_table() -> List[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
        table.append(crc)
    return table


TABLE = _make_table()
_NP_TABLE = np.array(TABLE, dtype=np.uint32)
# Long inputs are split into lanes of _LANE bytes hashed side by side with NumPy
# (CRC is linear over GF(2)), then the lane CRCs are chained with the "shift over n zero
# bytes" operator, so a 100 MB tensor costs a few thousand vector steps, not 10^8 loops.
_LANE = 8192                 # bytes per lane
_MAX_LANES = 2048            # lanes per step (16 MB of input)
_COLUMNS = 512               # lane positions transposed at once (at most 1 MB copied)
_SMALL = 8 * _LANE


def extend(crc: int, data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of the bytes hashed so far (`crc`) followed by `data`."""
    register = crc ^ 0xFFFFFFFF
    view = memoryview(data).cast("B")
    done = 0
    while len(view) - done >= _SMALL:
        lanes = min((len(view) - done) // _LANE, _MAX_LANES)
        end = done + lanes * _LANE
        register = _extend_lanes(register, np.frombuffer(view[done:end], dtype=np.uint8), lanes)
        done = end
    table = TABLE
    for byte in view[done:]:
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register ^ 0xFFFFFFFF


def _extend_lanes(register: int, data: np.ndarray, lanes: int) -> int:
    block = data.reshape(lanes, _LANE)
    partial = np.zeros(lanes, dtype=np.uint32)
    for start in range(0, _LANE, _COLUMNS):  # transposed a slice at a time: <= 1 MiB copied
        columns = np.ascontiguousarray(block[:, start:start + _COLUMNS].T)  # (position, lane)
        for column in columns:
            partial = _NP_TABLE[(partial ^ column) & 0xFF] ^ (partial >> 8)
    shift = _shift_tables(_LANE)
    for lane_crc in partial.tolist():
        register = (shift[0][register & 0xFF] ^ shift[1][(register >> 8) & 0xFF]
                    ^ shift[2][(register >> 16) & 0xFF] ^ shift[3][register >> 24]) ^ lane_crc
    return register


_SHIFTS: Dict[int, List[List[int]]] = {}


def _shift_tables(length: int) -> List[List[int]]:
    """Byte tables of the linear map "run the register over `length` zero bytes"."""
    cached = _SHIFTS.get(length)
    if cached is not None:
        return cached
    images = np.array([1 << bit for bit in range(32)], dtype=np.uint32)
    for _ in range(length):
        images = _NP_TABLE[images & 0xFF] ^ (images >> 8)
    columns = images.tolist()
    tables = []
    for position in range(4):
        table = []
        for byte in range(256):
            image = 0
            for bit in range(8):
                if byte >> bit & 1:
                    image ^= columns[position * 8 + bit]
            table.append(image)
        tables.append(table)
    if len(_SHIFTS) > 16:
        _SHIFTS.clear()
    _SHIFTS[length] = tables
    return tables


def value(data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of `data`."""
    return extend(0, data)


def mask(crc: int) -> int:
    """TF's masked CRC (rotated and offset, so a CRC of data holding CRCs stays strong)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    rotated = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


__all__ = ["value", "extend", "mask", "unmask"]
