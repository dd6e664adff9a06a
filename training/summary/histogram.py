"""TF1's HistogramProto contents: TensorFlow's default exponential bucket limits
(1e-12 growing by 1.1 up to 1e20, mirrored for negatives, 0 and DBL_MAX), each
value counted in the first bucket whose limit exceeds it, and runs of empty
buckets collapsed into one (TF's `Histogram::EncodeToProto`)."""
from __future__ import annotations

import sys
from typing import Any, Dict, List

import numpy as np


def _default_limits() -> np.ndarray:
    positive: List[float] = []
    value = 1.0e-12
    while value < 1.0e20:
        positive.append(value)
        value *= 1.1
    negative = [-v for v in reversed(positive)]
    return np.array(negative + [0.0] + positive + [sys.float_info.max])


DEFAULT_LIMITS = _default_limits()


def histogram_fields(values: Any) -> Dict[str, Any]:
    """min, max, num, sum, sum_squares, bucket_limit, bucket of TF's HistogramProto."""
    data = np.asarray(values, dtype=np.float64).ravel()
    counts = np.bincount(np.searchsorted(DEFAULT_LIMITS, data, side="right"),
                         minlength=len(DEFAULT_LIMITS))[:len(DEFAULT_LIMITS)]
    limits, buckets = [], []
    i, n = 0, len(counts)
    while i < n:
        end, count = DEFAULT_LIMITS[i], counts[i]
        i += 1
        if count <= 0:
            while i < n and counts[i] <= 0:
                end, count = DEFAULT_LIMITS[i], counts[i]
                i += 1
        limits.append(float(end))
        buckets.append(float(count))
    return {
        "min": float(data.min()) if data.size else sys.float_info.max,
        "max": float(data.max()) if data.size else -sys.float_info.max,
        "num": float(data.size),
        "sum": float(data.sum()),
        "sum_squares": float(np.dot(data, data)),
        "bucket_limit": limits,
        "bucket": buckets,
    }
