"""Keras 3 initializers (`dg.keras.initializers`, also `dg.initializers` as in TF 2.x).

Each is a callable `init(shape, dtype=None)` returning a tensor, with Keras 3's
defaults (RandomNormal: stddev 0.05, ...) and `get_config`; `get` accepts a
name, a config dict, an initializer or None; `serialize` gives Keras' dict.
The random ones draw through `dg.random` with its seed rules.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Optional, Sequence

import numpy as np

from ...framework import dtypes
from ...ops.random import random_ops
from ...ops.constant_op import constant
from . import windows

_TRUNCATED_STDDEV = 0.87962566103423978  # stddev of a unit normal truncated to [-2, 2]


def _float_dtype(dtype: Any) -> dtypes.DType:
    return dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)


class Initializer:
    """Base of Keras initializers: `__call__(shape, dtype=None)` and `get_config()`."""

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def get_config(self) -> Dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Initializer":
        return cls(**config)

    def clone(self) -> "Initializer":
        return type(self).from_config(self.get_config())


class Zeros(Initializer):
    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return constant(np.zeros(list(shape), _float_dtype(dtype).as_numpy_dtype))


class Ones(Initializer):
    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return constant(np.ones(list(shape), _float_dtype(dtype).as_numpy_dtype))


class Constant(Initializer):
    """Fills with a scalar `value` (or an array broadcastable to the shape)."""

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        value = np.asarray(self.value, _float_dtype(dtype).as_numpy_dtype)
        return constant(np.broadcast_to(value, list(shape)).copy())

    def get_config(self) -> Dict[str, Any]:
        return {"value": self.value}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D square "
                             f"matrices. Received: shape={tuple(shape)} of rank {len(shape)}.")
        return constant(self.gain * np.eye(*shape, dtype=_float_dtype(dtype).as_numpy_dtype))


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Optional[int] = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.normal(list(shape), self.mean, self.stddev, _float_dtype(dtype),
                                 seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.truncated_normal(list(shape), self.mean, self.stddev,
                                           _float_dtype(dtype), seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05,
                 seed: Optional[int] = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.uniform(list(shape), self.minval, self.maxval, _float_dtype(dtype),
                                  seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape: Sequence[int]) -> "tuple[float, float]":
    """(fan_in, fan_out) of a weight shape, as Keras counts them for conv kernels too."""
    shape = list(shape)
    if not shape:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = float(np.prod(shape[:-2])) if len(shape) > 2 else 1.0
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance `scale / n` (n: fan_in, fan_out or their mean)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None) -> None:
        if scale <= 0.0:
            raise ValueError("Argument `scale` must be positive float. "
                             f"Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument: expected one of {'fan_in', 'fan_out', "
                             f"'fan_avg'}}. Received: mode={mode}")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("Invalid `distribution` argument: expected one of "
                             "{'truncated_normal', 'untruncated_normal', 'uniform'}. "
                             f"Received: distribution={distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        dtype = _float_dtype(dtype)
        if self.distribution == "truncated_normal":
            return random_ops.truncated_normal(list(shape), 0.0,
                                               math.sqrt(variance) / _TRUNCATED_STDDEV, dtype,
                                               seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.normal(list(shape), 0.0, math.sqrt(variance), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_ops.uniform(list(shape), -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": None, "output_axes": None}


def _preset(name: str, scale: float, mode: str, distribution: str) -> type:
    def __init__(self: Any, seed: Optional[int] = None) -> None:
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self: Any) -> Dict[str, Any]:
        return {"seed": self.seed, "input_axes": None, "output_axes": None}
    return type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                           "__doc__": f"VarianceScaling({scale}, {mode!r}, "
                                                      f"{distribution!r})."})


GlorotUniform = _preset("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _preset("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _preset("HeNormal", 2.0, "fan_in", "truncated_normal")
LecunUniform = _preset("LecunUniform", 1.0, "fan_in", "uniform")
LecunNormal = _preset("LecunNormal", 1.0, "fan_in", "truncated_normal")


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`: the Q of a normal matrix's QR."""

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None) -> None:
        self.gain, self.seed = gain, seed

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        shape = list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={tuple(shape)} of rank {len(shape)}.")
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        sample = np.asarray(random_ops.normal(list(flat), dtype=dtypes.float64, seed=self.seed))
        q, r = np.linalg.qr(sample)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        dtype = _float_dtype(dtype)
        return constant((self.gain * q.reshape(shape)).astype(dtype.as_numpy_dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "gain": self.gain}


class STFT(Initializer):
    """Keras' STFT kernel `(frame_length, channels, fft_bins)`: the real or
    imaginary part of the DFT basis, times a window and divided by its scale."""

    def __init__(self, side: str = "real", window: Any = "hann",
                 scaling: Optional[str] = "density", periodic: bool = False) -> None:
        if side not in ("real", "imag"):
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            windows.check_window_name(window)
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             f"Received scaling={scaling}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        np_dtype = _float_dtype(dtype).as_numpy_dtype
        frame_length, _, fft_bins = shape
        freq = np.arange(fft_bins, dtype=np_dtype).reshape(1, 1, fft_bins) / \
            np_dtype((fft_bins - 1) * 2)
        time = np.arange(frame_length, dtype=np_dtype).reshape(frame_length, 1, 1)
        args = (-2 * time) * freq * np.arccos(np_dtype(-1))
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(np_dtype)
        if self.window is not None:
            win = windows.get_window(self.window, frame_length, self.periodic) \
                if isinstance(self.window, str) else np.asarray(self.window)
            win = win.astype(np_dtype)
            if win.ndim != 1 or win.shape[-1] != frame_length:
                raise ValueError("The shape of `window` must be equal to [frame_length]."
                                 f"Received: window shape={win.shape}")
            win = win.reshape(frame_length, 1, 1)
            scale = np_dtype(1)
            if self.scaling == "density":
                scale = np.sqrt(np.sum(np.square(win)))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(win))
            kernel = (kernel * win / scale).astype(np_dtype)
        # Keras returns (frame_length, 1, fft_bins) whatever the channel count
        return constant(np.ascontiguousarray(kernel))

    def get_config(self) -> Dict[str, Any]:
        return {"side": self.side, "window": self.window, "periodic": self.periodic,
                "scaling": self.scaling}


CLASSES = {cls.__name__: cls for cls in (
    Initializer, Zeros, Ones, Constant, Identity, RandomNormal, RandomUniform, TruncatedNormal,
    VarianceScaling, GlorotUniform, GlorotNormal, HeUniform, HeNormal, LecunUniform,
    LecunNormal, Orthogonal, STFT)}
SNAKE_NAMES = {"zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
               "random_normal": RandomNormal, "random_uniform": RandomUniform,
               "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
               "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
               "he_uniform": HeUniform, "he_normal": HeNormal, "lecun_uniform": LecunUniform,
               "lecun_normal": LecunNormal, "orthogonal": Orthogonal, "stft": STFT}


def serialize(initializer: Initializer) -> Dict[str, Any]:
    """Keras' serialized form: module, class name, config."""
    return {"module": "keras.initializers", "class_name": type(initializer).__name__,
            "config": initializer.get_config(), "registered_name": None}


def deserialize(config: Dict[str, Any], custom_objects: Optional[dict] = None) -> Initializer:
    classes = {**CLASSES, **(custom_objects or {})}
    name = config.get("class_name")
    if name not in classes:
        raise ValueError(f"Could not interpret initializer identifier: {config}")
    return classes[name].from_config(config.get("config", {}))


def get(identifier: Any) -> Optional[Any]:
    """An initializer from a name ("glorot_uniform", "HeNormal"), a config dict, an
    initializer or callable (returned as is), or None."""
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = SNAKE_NAMES.get(identifier) or CLASSES.get(identifier)
        if cls is not None and cls is not Initializer:
            return cls()
    elif callable(identifier):
        return identifier() if isinstance(identifier, type) else identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


NAMES = {**CLASSES, **SNAKE_NAMES, "IdentityInitializer": Identity,
         "OrthogonalInitializer": Orthogonal, "STFTInitializer": STFT, "get": get,
         "serialize": serialize, "deserialize": deserialize}
