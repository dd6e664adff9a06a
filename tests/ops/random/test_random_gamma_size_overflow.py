"""dg.random.gamma whose sample count overflows int64: TF 2.21's InvalidArgumentError
(not an allocation error), with its message."""
from __future__ import annotations

import pytest

import duograd as dg


def test_sample_count_overflow_is_invalid_argument():
    rate = dg.constant(1.0, shape=(4, 4, 4, 4, 4))
    with pytest.raises(dg.errors.InvalidArgumentError,
                       match="Encountered overflow when multiplying 4840914843677363160 with 4, "
                             "result: -1"):   # TF 2.21's message
        dg.random.gamma([46902, 51188, 34063, 59195], alpha=rate)


def test_a_large_count_that_fits_int64_is_still_an_allocation_error():
    with pytest.raises(dg.errors.ResourceExhaustedError):   # TF 2.21: OOM
        dg.random.gamma([46902, 51188, 34063, 59195], alpha=1.0)
