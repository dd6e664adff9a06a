"""Saving and restoring stream the values: the memory they use transiently (allocated and
released again; measured with tracemalloc, which sees NumPy) stays under twice the
largest variable. A restore keeps one new array per variable (a dg.Variable also keeps
its initial value, so the values it replaces stay alive): that is the model, not extra."""
import tracemalloc

import numpy as np

import duograd as dg

MB = 1 << 20


class Big(dg.Module):
    def __init__(self, fill):
        super().__init__()
        self.small = [dg.Variable(np.full(MB, fill, np.float32)) for _ in range(4)]  # 4 MB each
        self.large = dg.Variable(np.full(2 * MB, fill, np.float32))  # 8 MB, the largest


def _peak_extra(make, action):
    """Peak traced memory of `action(made)` above what is held before or after it."""
    tracemalloc.start()
    try:
        made = make()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        action(made)
        after, peak = tracemalloc.get_traced_memory()
        return peak - max(before, after), made
    finally:
        tracemalloc.stop()


def test_write_and_restore_allocate_less_than_twice_the_largest_variable(tmp_path):
    prefix = str(tmp_path / "ckpt")
    written, model = _peak_extra(lambda: Big(1.5),
                                 lambda m: dg.train.Checkpoint(model=m).write(prefix))
    restored, fresh = _peak_extra(lambda: Big(0.0),
                                  lambda m: dg.train.Checkpoint(model=m).read(prefix))
    largest = model.large.numpy().nbytes
    assert written < 2 * largest, written
    assert restored < 2 * largest, restored
    assert np.array_equal(fresh.large.numpy(), model.large.numpy())
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(fresh.small, model.small,
                                                                      strict=True))
