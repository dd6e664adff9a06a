"""The text of a concrete function's signature, as TF's `pretty_printed_signature`:

    Input Parameters:
      x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)
      b (POSITIONAL_OR_KEYWORD): Literal[1]
    Output Type:
      TensorSpec(shape=(), dtype=tf.float32, name=None)
    Captures:
      None
"""
from __future__ import annotations

import inspect
from typing import Any, List, Optional, Sequence

from ...framework.tensor import Tensor
from ...framework.tensor_spec import TensorSpec


def type_text(value: Any) -> str:
    """A traced value's type as TF writes it: a spec, Literal[...], Tuple[...], ..."""
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, Tensor):
        return repr(TensorSpec(value.shape, value.dtype))
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return f"Tuple[{', '.join(type_text(v) for v in value)}]"
    if isinstance(value, list):
        return f"List[{', '.join(type_text(v) for v in value)}]"
    if isinstance(value, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {type_text(v)}]" for k, v in value.items()) + "]"
    if isinstance(value, (bool, int, float, str)):
        return f"Literal[{value!r}]"
    return f"{type(value).__name__}"


def signature_text(parameters: Sequence[inspect.Parameter], values: List[Any],
                   outputs: Any, captures: List[Any]) -> str:
    lines = ["Input Parameters:"]
    for parameter, value in zip(parameters, values, strict=True):
        lines.append(f"  {parameter.name} ({parameter.kind.name}): {type_text(value)}")
    lines += ["Output Type:", f"  {type_text(outputs)}", "Captures:"]
    if not captures:
        lines.append("  None")
    for source in captures:
        dtype = getattr(source, "dtype", None)
        spec = TensorSpec(getattr(source, "shape", None), dtype) if dtype is not None else source
        lines.append(f"  {id(source)}: {type_text(spec)}")
    return "\n".join(lines)


def bound_values(signature: Optional[inspect.Signature], args: Sequence[Any],
                 kwargs: dict) -> "tuple[list, list]":
    """(parameters, traced values) in signature order; defaults fill what was not given."""
    if signature is None:
        names = [inspect.Parameter(f"arg_{i}", inspect.Parameter.POSITIONAL_ONLY)
                 for i in range(len(args))]
        return names, list(args)
    parameters, values = [], []
    given = dict(zip(list(signature.parameters), args, strict=False))
    given.update(kwargs)
    for name, parameter in signature.parameters.items():
        if name in given:
            parameters.append(parameter)
            values.append(given[name])
        elif parameter.default is not inspect.Parameter.empty:
            parameters.append(parameter)
            values.append(parameter.default)
    return parameters, values
