"""dg.print: TensorFlow's tf.print, a stateful `PrintV2` op in both modes.

Eagerly it prints at once (and returns None). In a graph it returns the
`PrintV2` Operation, which prints each time it runs: fetch it, or put it in
`control_dependencies`; inside dg.function it is ordered like other stateful
ops (the op is declared `stateful`). Python values and the structure of
nested lists, tuples and dicts are formatted when the op is built; tensors
are formatted by the kernel (ops/tensor_format.py).
"""
from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

from ...framework.op_def import declare_op
from ...framework.tensor import Tensor
from ..constant_op import convert_to_tensor, is_tensor
from ..dispatch import apply_op
from ..tensor_format import format_array

_STREAM_ERROR = ("Unsupported output stream, logging level, or file.{}. Supported streams are "
                 "sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
                 "tf.logging.error. File needs to be in the form of 'file://<filepath>'.")


def _print_kernel(resources: Any, *arrays: Any, template: Tuple[Any, ...], stream: Any,
                  summarize: int, end: str) -> None:
    text = "".join(piece if isinstance(piece, str) else format_array(arrays[piece], summarize)
                   for piece in template) + end
    if isinstance(stream, str):
        with open(stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
    else:
        stream.write(text)
        stream.flush()


PRINT_V2 = declare_op("PrintV2", _print_kernel, lambda inputs, attrs: [], num_outputs=0,
                      stateful=True, grad_inputs=(), side_effects=True)


def _template(value: Any, tensors: List[Any], top: bool) -> List[Any]:
    """Pieces of text and tensor input indices for one printed value."""
    if is_tensor(value):
        tensors.append(convert_to_tensor(value))
        return [len(tensors) - 1]
    if isinstance(value, dict):
        pieces: List[Any] = ["{"]
        for k, key in enumerate(sorted(value, key=str)):
            pieces += ([", "] if k else []) + [f"{key!r}: "] + _template(value[key], tensors,
                                                                          False)
        return pieces + ["}"]
    if isinstance(value, (list, tuple)):
        pieces = ["[" if isinstance(value, list) else "("]
        for k, item in enumerate(value):
            pieces += ([", "] if k else []) + _template(item, tensors, False)
        return pieces + (["]"] if isinstance(value, list) else [",)" if len(value) == 1 else ")"])
    return [value if top and isinstance(value, str) else
            (repr(value) if isinstance(value, str) else str(value))]


def _stream(output_stream: Any) -> Any:
    if output_stream is None:
        return sys.stderr
    if output_stream is sys.stdout or output_stream is sys.stderr:
        return output_stream
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    raise ValueError(_STREAM_ERROR.format(output_stream))


def print(*inputs: Any, output_stream: Any = None, summarize: int = 3,  # noqa: A001 (TF's name)
          sep: str = " ", end: str = "\n", name: Optional[str] = None) -> Any:
    """Prints `inputs` (tensors, Python values, nested structures) to `output_stream`
    (default sys.stderr): now in eager mode, when the returned op runs in a graph."""
    stream = _stream(output_stream)
    tensors: List[Tensor] = []
    template: List[Any] = []
    for k, value in enumerate(inputs):
        template += ([sep] if k else []) + _template(value, tensors, True)
    attrs = {"template": tuple(template), "stream": stream,
             "summarize": -1 if summarize is None else int(summarize), "end": end}
    return apply_op(PRINT_V2, tensors, attrs, name or "PrintV2")


__all__ = ["print"]
