"""Window functions for Keras' STFT initializer, by SciPy's names, in NumPy.

SciPy is not a duograd dependency, so the common windows are computed here with
SciPy's definitions: symmetric by default, periodic ("fftbins") by taking the
symmetric window one sample longer and dropping its last sample.
"""
from __future__ import annotations

from typing import Callable, Dict

import numpy as np


def _general_cosine(length: int, coefficients: "tuple[float, ...]") -> np.ndarray:
    phase = np.linspace(-np.pi, np.pi, length)
    window = np.zeros(length)
    for k, c in enumerate(coefficients):
        window += c * np.cos(k * phase)
    return window


def _bartlett(length: int) -> np.ndarray:
    n = np.arange(length)
    half = (length - 1) / 2.0
    return 1.0 - np.abs(n - half) / half


SYMMETRIC: Dict[str, Callable[[int], np.ndarray]] = {
    "hann": lambda m: _general_cosine(m, (0.5, 0.5)),
    "hamming": lambda m: _general_cosine(m, (0.54, 0.46)),
    "blackman": lambda m: _general_cosine(m, (0.42, 0.50, 0.08)),
    "bartlett": _bartlett,
    "boxcar": np.ones,
}
ALIASES = {"hanning": "hann", "han": "hann", "hamm": "hamming", "ham": "hamming",
           "black": "blackman", "blk": "blackman", "bart": "bartlett", "brt": "bartlett",
           "box": "boxcar", "ones": "boxcar", "rect": "boxcar", "rectangular": "boxcar"}


def check_window_name(name: str) -> str:
    """SciPy's canonical name of a window, or ValueError (as `get_window`)."""
    canonical = ALIASES.get(name, name)
    if canonical not in SYMMETRIC:
        raise ValueError(f"Invalid window name '{name}' in parameter window='{name}'! "
                         f"duograd knows {sorted(SYMMETRIC)}.")
    return canonical


def get_window(name: str, length: int, periodic: bool = False) -> np.ndarray:
    """The window `name` of `length` samples (float64), as `scipy.signal.get_window`."""
    window = SYMMETRIC[check_window_name(name)]
    if length == 1:
        return np.ones(1)
    if periodic:
        return np.asarray(window(length + 1), np.float64)[:-1]
    return np.asarray(window(length), np.float64)
