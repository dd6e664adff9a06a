"""ExtractImagePatches (`dg.image.extract_patches`, TF 1's `extract_image_patches`) and
ExtractVolumePatches (`dg.extract_volume_patches`): every window of the spatial dims laid out
along the depth dimension, row-major over (window position..., channel), as TF.

Their gradient (grad_registry/patches_grad.py) is composed, as TF's is: the patches of an
index image say which input element each output entry copies, and unsorted_segment_sum adds
the gradient back there (so it is differentiable again)."""
from __future__ import annotations

import itertools
import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ...framework.op_def import declare_op
from ...framework.tensor_shape import TensorShape
from ..constant_op import convert_to_tensor
from ..dispatch import apply_op


def window_output(size: int, k: int, stride: int, rate: int, padding: str) -> Tuple[int, int]:
    """(output size, padding before) of one spatial dim, TF's VALID / SAME rule."""
    effective = (k - 1) * rate + 1
    if padding == "VALID":
        return max(0, math.ceil((size - effective + 1) / stride)), 0
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2


def _patches(x, *, ksizes, strides, rates, padding):
    n = x.ndim - 2
    k, s, r = ksizes[1:1 + n], strides[1:1 + n], rates[1:1 + n]
    geometry = [window_output(x.shape[1 + i], k[i], s[i], r[i], padding) for i in range(n)]
    pads = [(0, 0)]
    for i, (out, before) in enumerate(geometry):
        need = (out - 1) * s[i] + (k[i] - 1) * r[i] + 1 if out else 0
        pads.append((before, max(0, need - before - x.shape[1 + i])))
    padded = np.pad(x, pads + [(0, 0)])
    parts: List[np.ndarray] = []
    for offset in itertools.product(*[range(ki) for ki in k]):
        index = [slice(None)]
        for i, (out, _) in enumerate(geometry):
            start = offset[i] * r[i]
            index.append(slice(start, start + (out - 1) * s[i] + 1 if out else start, s[i]))
        parts.append(padded[tuple(index)])
    stacked = np.stack(parts, axis=-2)  # [B, out..., prod(k), C]
    return np.ascontiguousarray(stacked.reshape(stacked.shape[:-2] + (-1,)))


def _infer(inputs, attrs):
    x = inputs[0]
    n = len(attrs["ksizes"]) - 2
    if x.shape.rank is None:
        return [(x.dtype, TensorShape((None,) * (n + 2)))]
    if x.shape.rank != n + 2:
        raise ValueError(f"Shape must be rank {n + 2} but is rank {x.shape.rank}")
    dims = x.shape.dims
    out: List[Optional[int]] = [dims[0]]
    for i in range(n):
        d = dims[1 + i]
        out.append(None if d is None else window_output(
            d, attrs["ksizes"][1 + i], attrs["strides"][1 + i], attrs["rates"][1 + i],
            attrs["padding"])[0])
    window = int(np.prod(attrs["ksizes"][1:1 + n]))
    out.append(None if dims[-1] is None else dims[-1] * window)
    return [(x.dtype, TensorShape(out))]


EXTRACT_IMAGE_PATCHES = declare_op("ExtractImagePatches", _patches, _infer, grad_inputs=())
EXTRACT_VOLUME_PATCHES = declare_op("ExtractVolumePatches", _patches, _infer, grad_inputs=())


def _window_list(value: Any, n: int, what: str) -> List[int]:
    values = [int(v) for v in value] if isinstance(value, (list, tuple, np.ndarray)) else None
    if values is None or len(values) != n + 2:
        raise ValueError(f"{what} must be a list of {n + 2} ints, got {value!r}")
    if values[0] != 1 or values[-1] != 1:
        raise ValueError(f"{what}: only the spatial dimensions may differ from 1, got {values}")
    if min(values) < 1:
        raise ValueError(f"{what} must be positive, got {values}")
    return values


def _padding(padding: Any) -> str:
    text = str(padding).upper()
    if text not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return text


def patches(op_def: Any, x: Any, ksizes: Sequence[int], strides: Sequence[int],
            rates: Sequence[int], padding: str, name: Optional[str] = None):
    """The op of `op_def` on x with validated window attributes (shared by the wrappers and
    the gradient, which extracts the patches of an index image)."""
    return apply_op(op_def, (convert_to_tensor(x),),
                    {"ksizes": list(ksizes), "strides": list(strides), "rates": list(rates),
                     "padding": padding}, name)


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: Any,
                    name: Optional[str] = None):
    """tf.image.extract_patches: the sizes[1] x sizes[2] windows of NHWC `images`, every
    strides apart, sampled every rates apart, flattened into the depth dimension."""
    return patches(EXTRACT_IMAGE_PATCHES, images, _window_list(sizes, 2, "sizes"),
                   _window_list(strides, 2, "strides"), _window_list(rates, 2, "rates"),
                   _padding(padding), name)


def extract_image_patches(images: Any, ksizes: Any = None, strides: Any = None,
                          rates: Any = None, padding: Any = None, name: Optional[str] = None,
                          sizes: Any = None):
    """TF 1's tf.compat.v1.extract_image_patches (ksizes, or sizes)."""
    return extract_patches(images, ksizes if ksizes is not None else sizes, strides, rates,
                           padding, name)


def extract_volume_patches(input: Any, ksizes: Any, strides: Any, padding: Any,  # noqa: A002
                           name: Optional[str] = None):
    """The 3-D windows of NDHWC `input` flattened into the depth dimension (no rates)."""
    return patches(EXTRACT_VOLUME_PATCHES, input, _window_list(ksizes, 3, "ksizes"),
                   _window_list(strides, 3, "strides"), [1] * 5, _padding(padding), name)


__all__ = ["extract_volume_patches"]
IMAGE_NAMES = {"extract_patches": extract_patches}
V1_NAMES = {"extract_image_patches": extract_image_patches}


def patch_indices(spatial: Sequence[int], attrs: dict) -> np.ndarray:
    """For an input of spatial dims `spatial`, which input element (1 + its flat spatial
    index, 0 for padding) each entry of one batch/channel's patches copies: shape [P]."""
    image = np.arange(1, int(np.prod(spatial)) + 1, dtype=np.int64).reshape(
        [1] + list(spatial) + [1])
    return _patches(image, ksizes=attrs["ksizes"], strides=attrs["strides"],
                    rates=attrs["rates"], padding=attrs["padding"]).reshape(-1)
