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
# (slicing-by-8 within each lane: one vector step per 8 bytes), then the lane CRCs are
# chained with the "shift over _LANE zero bytes" operator (CRC is linear over GF(2)),
# so a 100 MB tensor costs a few thousand vector steps, not 10^8 Python loops.
_LANE = 1024                 # bytes per lane
_MAX_LANES = 4096            # lanes per step: 4 MiB of input, ~3 MiB of temporaries
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
    t = _slicing_tables()
    words = data.reshape(lanes, _LANE // 8, 8)
    # Bytes 4..7 of each 8-byte word do not meet the register: their part for every word
    # of every lane at once, as (word, lane) arrays like the low halves.
    high = np.ascontiguousarray((t[3][words[:, :, 4]] ^ t[2][words[:, :, 5]]
                                 ^ t[1][words[:, :, 6]] ^ t[0][words[:, :, 7]]).T)
    low = np.ascontiguousarray(data.view("<u4").reshape(lanes, _LANE // 8, 2)[:, :, 0].T)
    t7, t6, t5, t4 = t[7], t[6], t[5], t[4]
    partial = np.zeros(lanes, dtype=np.uint32)
    for index in range(_LANE // 8):
        value = partial ^ low[index]
        partial = (t7[value & 0xFF] ^ t6[(value >> 8) & 0xFF] ^ t5[(value >> 16) & 0xFF]
                   ^ t4[value >> 24] ^ high[index])
    shift = _shift_tables(_LANE)
    for lane_crc in partial.tolist():
        register = (shift[0][register & 0xFF] ^ shift[1][(register >> 8) & 0xFF]
                    ^ shift[2][(register >> 16) & 0xFF] ^ shift[3][register >> 24]) ^ lane_crc
    return register


_SLICING: List[np.ndarray] = []


def _slicing_tables() -> List[np.ndarray]:
    """tables[k][b]: the register change of byte b followed by k zero bytes."""
    if not _SLICING:
        tables = [_NP_TABLE.copy()]
        for _ in range(7):
            previous = tables[-1]
            tables.append(_NP_TABLE[previous & 0xFF] ^ (previous >> 8))
        _SLICING.extend(tables)
    return _SLICING


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
