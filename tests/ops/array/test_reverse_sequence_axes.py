"""dg.reverse_sequence with bad seq_axis / batch_axis: TF 2.21's classes and messages,
eagerly (the kernel's InvalidArgumentError) and in a graph (the shape function's
ValueError, or the kernel's error for what the shape function lets through)."""
from __future__ import annotations

import pytest

import duograd as dg

X = [[1, 2], [3, 4]]

# (seq_axis, batch_axis, eager message, graph class, graph message), recorded from TF 2.21
CASES = [
    (2, 0, "seq_dim must be < input rank ( 2 vs. 2)",
     ValueError, "seq_dim must be < input rank: 2 vs. 2"),
    (1, 3, "batch_dim must be < input rank ( 3 vs. 2)",
     ValueError, "batch_dim must be < input rank: 3 vs. 2"),
    (0, 0, "batch_dim == seq_dim == 0",
     dg.errors.InvalidArgumentError, "batch_dim == seq_dim == 0"),
    (1, 1, "batch_dim == seq_dim == 1",
     dg.errors.InvalidArgumentError, "batch_dim == seq_dim == 1"),
    (-1, 0, "Invalid seq_dim -1",
     dg.errors.InvalidArgumentError, "Invalid seq_dim -1"),
    (1, -1, "Invalid batch_dim -1",
     ValueError, "batch_dim must be >=0, got -1"),
]


@pytest.mark.parametrize("seq_axis,batch_axis,eager_msg,graph_cls,graph_msg", CASES)
def test_bad_axes_eager_and_in_a_function(seq_axis, batch_axis, eager_msg, graph_cls,
                                          graph_msg):
    with pytest.raises(dg.errors.InvalidArgumentError) as info:
        dg.reverse_sequence(X, [2, 2], seq_axis=seq_axis, batch_axis=batch_axis)
    assert eager_msg in str(info.value)

    @dg.function(autograph=False)
    def f():
        return dg.reverse_sequence(X, [2, 2], seq_axis=seq_axis, batch_axis=batch_axis)

    with pytest.raises(graph_cls) as info:
        f()
    assert type(info.value) is graph_cls
    assert graph_msg in str(info.value)


def test_valid_axes_still_reverse():
    out = dg.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1, batch_axis=0)
    assert out.numpy().tolist() == [[2, 1, 3], [6, 5, 4]]   # TF 2.21
