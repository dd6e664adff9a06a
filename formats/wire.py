"""The protocol-buffer wire format, by hand, for the few messages a checkpoint holds.

`Writer` appends fields (varints, fixed32/64, length-delimited bytes and
nested messages); `parse(data)` splits a message into `{field number: [raw
values]}` (ints for varint and fixed fields, memoryviews for length-delimited
ones), checking every length against the buffer, so a malformed message
raises `WireError` and never reads past its end. The callers turn a
`WireError` into TF's DataLossError naming the file.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Tuple, Union

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
Raw = Union[int, memoryview]
_MAX_DEPTH_BYTES = 10  # a varint is at most 10 bytes


class WireError(ValueError):
    """A malformed protocol-buffer message."""


def encode_varint(value: int) -> bytes:
    if value < 0:
        value &= (1 << 64) - 1  # negative int32/int64 are encoded as 10-byte two's complement
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def decode_varint(data: Union[bytes, memoryview], offset: int) -> Tuple[int, int]:
    """(value, offset after it); WireError if truncated or longer than 10 bytes."""
    result = shift = 0
    end = len(data)
    for _ in range(_MAX_DEPTH_BYTES):
        if offset >= end:
            raise WireError("truncated varint")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result & ((1 << 64) - 1), offset
        shift += 7
    raise WireError("varint longer than 10 bytes")


def signed64(value: int) -> int:
    """An int64 field's value from its unsigned varint."""
    return value - (1 << 64) if value >= 1 << 63 else value


class Writer:
    """Builds one message; fields are written in the order they are added."""

    def __init__(self) -> None:
        self._parts: List[bytes] = []

    def _tag(self, field: int, wire_type: int) -> None:
        self._parts.append(encode_varint(field << 3 | wire_type))

    def varint(self, field: int, value: int, keep_zero: bool = False) -> "Writer":
        """A varint field (int32/int64/uint/bool/enum); zero is omitted (proto3 default)."""
        if value or keep_zero:
            self._tag(field, VARINT)
            self._parts.append(encode_varint(int(value)))
        return self

    def fixed32(self, field: int, value: int) -> "Writer":
        self._tag(field, FIXED32)
        self._parts.append(struct.pack("<I", value & 0xFFFFFFFF))
        return self

    def fixed64(self, field: int, value: int) -> "Writer":
        self._tag(field, FIXED64)
        self._parts.append(struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))
        return self

    def bytes_field(self, field: int, value: Union[bytes, str], keep_empty: bool = False
                    ) -> "Writer":
        """A string/bytes field; the empty value is omitted unless `keep_empty`."""
        if isinstance(value, str):
            value = value.encode("utf-8")
        if value or keep_empty:
            self._tag(field, LENGTH)
            self._parts.append(encode_varint(len(value)))
            self._parts.append(value)
        return self

    def message(self, field: int, inner: "Writer") -> "Writer":
        """A nested message (written even when empty: presence is meaningful)."""
        return self.bytes_field(field, inner.finish(), keep_empty=True)

    def finish(self) -> bytes:
        return b"".join(self._parts)


def parse(data: Union[bytes, memoryview]) -> Dict[int, List[Raw]]:
    """{field number: [values in order]} of one message; unknown fields are kept too."""
    view = memoryview(data).cast("B") if not isinstance(data, memoryview) else data
    fields: Dict[int, List[Raw]] = {}
    offset, end = 0, len(view)
    while offset < end:
        key, offset = decode_varint(view, offset)
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise WireError("field number 0")
        value: Raw
        if wire_type == VARINT:
            value, offset = decode_varint(view, offset)
        elif wire_type == FIXED64:
            if offset + 8 > end:
                raise WireError("truncated fixed64")
            value = int.from_bytes(view[offset:offset + 8], "little")
            offset += 8
        elif wire_type == FIXED32:
            if offset + 4 > end:
                raise WireError("truncated fixed32")
            value = int.from_bytes(view[offset:offset + 4], "little")
            offset += 4
        elif wire_type == LENGTH:
            length, offset = decode_varint(view, offset)
            if length > end - offset:
                raise WireError(f"length {length} runs past the end of the message")
            value = view[offset:offset + length]
            offset += length
        else:
            raise WireError(f"unsupported wire type {wire_type}")
        fields.setdefault(field, []).append(value)
    return fields


def last_int(fields: Dict[int, List[Raw]], field: int, default: int = 0) -> int:
    values = fields.get(field)
    if not values:
        return default
    value = values[-1]
    if not isinstance(value, int):
        raise WireError(f"field {field} is not a number")
    return value


def last_bytes(fields: Dict[int, List[Raw]], field: int) -> bytes:
    values = fields.get(field)
    if not values:
        return b""
    value = values[-1]
    if isinstance(value, int):
        raise WireError(f"field {field} is not a string")
    return bytes(value)


def messages(fields: Dict[int, List[Raw]], field: int) -> List[memoryview]:
    """The repeated (or single) embedded messages of `field`, unparsed."""
    out = []
    for value in fields.get(field, ()):
        if isinstance(value, int):
            raise WireError(f"field {field} is not a message")
        out.append(value)
    return out


def text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WireError(f"a string field is not UTF-8 ({error})") from None


__all__ = ["Writer", "parse", "WireError", "encode_varint", "decode_varint"]
