"""duograd's variants of the model workloads W7-W11 (benchmarks/tf_style_models.py):
a provider of its own so that `make bench` (W1-W6) stays as it was and
`make bench-peers` runs the models beside PyTorch, TensorFlow and JAX."""
from __future__ import annotations

from typing import List

import duograd as dg

from .harness import Variant
from .tf_style_models import model_variants


def variants() -> List[Variant]:
    return model_variants(dg, "dg", "dg.function", "Session")
