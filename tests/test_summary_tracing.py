"""dg.summary.record_if, should_record_summaries, trace_on / trace_export (issue 21 item 3)."""
import pytest

import duograd as dg

pytest.importorskip("tensorboard", reason="the `tensorboard` extra (part of `test`)")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def _events(logdir):
    accumulator = EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    accumulator.Reload()
    return accumulator


def test_record_if_skips_summaries_while_false(tmp_path):
    writer = dg.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        assert dg.summary.should_record_summaries()
        for step in range(4):
            with dg.summary.record_if(lambda s=step: s % 2 == 0):
                written = dg.summary.scalar("loss", float(step), step=step)
                assert bool(written.numpy()) == (step % 2 == 0)
        with dg.summary.record_if(False):
            assert not dg.summary.should_record_summaries()
            assert not bool(dg.summary.scalar("other", 1.0).numpy())
        with dg.summary.record_if(dg.constant(True)):
            assert bool(dg.summary.scalar("other", 2.0).numpy())
    writer.close()
    events = _events(tmp_path)
    assert [e.step for e in events.Tensors("loss")] == [0, 2]
    assert len(events.Tensors("other")) == 1
    assert not dg.summary.should_record_summaries()   # no default writer


def test_trace_export_writes_the_traced_function_graph(tmp_path):
    @dg.function
    def model(x):
        return dg.matmul(x, x) + 1.0

    writer = dg.summary.create_file_writer(str(tmp_path))
    dg.summary.trace_on(graph=True)
    model(dg.ones([2, 2]))
    with writer.as_default():
        dg.summary.trace_export("model_trace", step=0)
    writer.close()
    graph_def = _events(tmp_path).Graph()
    assert "MatMul" in {node.op for node in graph_def.node}
    with dg.summary.create_file_writer(str(tmp_path / "again")).as_default():
        with pytest.raises(ValueError, match="No step set"):
            dg.summary.trace_on()
            dg.summary.trace_export("t")
