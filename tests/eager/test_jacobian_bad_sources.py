"""GradientTape.gradient/jacobian/batch_jacobian with sources that are no tensors:
TF 2.21 raises TypeError (or leaks an AttributeError for an int); we raise TypeError."""
from __future__ import annotations

import pytest

import duograd as dg


@pytest.mark.parametrize("source", ["a", 3, None])
@pytest.mark.parametrize("method", ["gradient", "jacobian", "batch_jacobian"])
def test_non_tensor_sources_are_type_errors(method, source):
    x = dg.constant([[1.0, 2.0]])
    with dg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2
    with pytest.raises(TypeError, match="sources must be tensors or variables"):
        getattr(tape, method)(y, source)


def test_list_with_a_bad_source():
    x = dg.constant([1.0, 2.0])
    with dg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2
    with pytest.raises(TypeError):
        tape.jacobian(y, [x, "a"])
