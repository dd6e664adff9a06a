"""A directory's `checkpoint` file: TF's CheckpointState message in protobuf text format.

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    all_model_checkpoint_timestamps: 1700000100.25
    last_preserved_timestamp: 1699999999.0

`parse` reads this (and, for checkpoints written by earlier duograd
versions, the same fields as JSON); `format_state` writes it.
"""
from __future__ import annotations

import json
from typing import List, Optional

_REPEATED = ("all_model_checkpoint_paths", "all_model_checkpoint_timestamps")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


def _quote(text: str) -> str:
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _unquote(token: str) -> str:
    if len(token) < 2 or token[0] not in "\"'" or token[-1] != token[0]:
        raise ValueError(f"not a quoted string: {token}")
    body = token[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out += char.encode("utf-8")
            index += 1
            continue
        nxt = body[index + 1:index + 2]
        if nxt in _ESCAPES:
            out += _ESCAPES[nxt].encode()
            index += 2
        elif nxt and nxt in "01234567":
            end = index + 1
            while end < min(index + 4, len(body)) and body[end] in "01234567":
                end += 1
            out.append(int(body[index + 1:end], 8) & 0xFF)
            index = end
        elif nxt == "x":
            digits = body[index + 2:index + 4]
            out.append(int(digits, 16))
            index += 4
        else:
            raise ValueError(f"bad escape in {token}")
    return out.decode("utf-8")


def format_state(latest: str, all_paths: List[str], timestamps: Optional[List[float]] = None,
                 last_preserved: Optional[float] = None) -> str:
    lines = [f"model_checkpoint_path: {_quote(latest)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {float(t)!r}" for t in timestamps or ()]
    if last_preserved:
        lines.append(f"last_preserved_timestamp: {float(last_preserved)!r}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict:
    """The state's fields as a dict; ValueError if it is neither text format nor JSON."""
    if text.lstrip().startswith("{"):
        return json.loads(text)
    state: dict = {name: [] for name in _REPEATED}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not sep:
            raise ValueError(f"not a field: {line}")
        if name in ("model_checkpoint_path", "all_model_checkpoint_paths"):
            parsed: object = _unquote(value)
        elif name in ("all_model_checkpoint_timestamps", "last_preserved_timestamp"):
            parsed = float(value)
        else:
            continue  # a field of a later TF version
        if name in _REPEATED:
            state[name].append(parsed)
        else:
            state[name] = parsed
    if "model_checkpoint_path" not in state:
        raise ValueError("no model_checkpoint_path")
    return state
