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


def test_tf1_summary_tags_are_sanitised_as_tf1():
    from tensorboard.compat.proto import summary_pb2
    v1 = dg.compat.v1
    g = dg.Graph()
    with g.as_default():
        with dg.name_scope("train"):
            scalar = v1.summary.scalar("loss value (avg)", dg.constant(1.0))
            hist = v1.summary.histogram("/w:0", dg.constant([1.0]))
        assert (scalar.name, hist.name) == ("train/loss_value__avg_:0", "train/w_0:0")  # TF
        with v1.Session() as sess:
            tags = []
            for tensor in (scalar, hist):
                proto = summary_pb2.Summary()
                proto.ParseFromString(sess.run(tensor))
                tags += [value.tag for value in proto.value]
    assert tags == ["train/loss_value__avg_", "train/w_0"]


def test_image_and_audio_summaries_read_back(tmp_path):
    import io
    import wave

    import numpy as np
    from tensorboard.util import tensor_util
    images = np.zeros((2, 3, 4, 3), np.float32)
    images[0, :, :, 0] = 1.0                                    # a red image
    clip = np.sin(np.linspace(0, 20, 800, dtype=np.float32))[None, :, None]
    writer = dg.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=5):
        assert bool(dg.summary.image("pics", images, max_outputs=1).numpy())
        assert bool(dg.summary.audio("sound", clip, sample_rate=8000).numpy())
    writer.close()
    events = _events(tmp_path)
    (event,) = events.Tensors("pics")
    strings = tensor_util.make_ndarray(event.tensor_proto)
    assert event.step == 5 and list(strings[:2]) == [b"4", b"3"] and len(strings) == 3
    png = strings[2]
    assert png.startswith(b"\x89PNG")
    idat = png.index(b"IDAT")
    length = int.from_bytes(png[idat - 4:idat], "big")
    import zlib
    rows = zlib.decompress(png[idat + 4:idat + 4 + length])
    pixels = np.frombuffer(rows, np.uint8).reshape(3, 1 + 4 * 3)[:, 1:].reshape(3, 4, 3)
    np.testing.assert_array_equal(pixels[..., 0], 255)        # red, as written
    np.testing.assert_array_equal(pixels[..., 1:], 0)
    (sound,) = events.Tensors("sound")
    encoded = tensor_util.make_ndarray(sound.tensor_proto)
    assert encoded.shape == (1, 2)
    with wave.open(io.BytesIO(encoded[0, 0])) as stream:
        assert (stream.getframerate(), stream.getnframes(), stream.getnchannels()) == (8000, 800, 1)
        pcm = np.frombuffer(stream.readframes(800), "<i2")
    np.testing.assert_allclose(pcm / 32767.0, clip[0, :, 0], atol=1e-4)
