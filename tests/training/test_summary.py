"""dg.summary and dg.compat.v1.summary: event files read back with tensorboard's
EventAccumulator; TF1 protos compared with bytes recorded from TF 2.21; a real
TensorBoard serving the scalars and the graph over HTTP."""
import json
import threading
import os
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import duograd as dg

# tensorboard: the `tensorboard` extra, part of the `test` extra that `make test` installs.
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.compat.proto import summary_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


def _events(logdir):
    accumulator = EventAccumulator(str(logdir), size_guidance={"tensors": 0, "scalars": 0,
                                                                "histograms": 0})
    accumulator.Reload()
    return accumulator


def _tensor_series(accumulator, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in accumulator.Tensors(tag)]


def test_importing_duograd_does_not_import_tensorboard():
    code = "import sys, duograd; print(any(m.startswith('tensorboard') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_without_tensorboard_everything_else_works_and_summaries_say_what_is_missing(tmp_path):
    code = f"""
import sys
sys.modules["tensorboard"] = None  # as if the extra were not installed
import duograd as dg
v = dg.Variable([1.0, 2.0])
path = dg.train.Checkpoint(v=v).save({str(tmp_path / 'ck')!r})
assert not bool(dg.summary.scalar("loss", 1.0, step=0).numpy())  # no writer: nothing to write
try:
    dg.summary.create_file_writer({str(tmp_path / 'logs')!r})
except ImportError as error:
    print(error)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'duograd[tensorboard]'" in out.stdout


def test_scalar_without_a_writer_returns_false_and_writes_nothing():
    result = dg.summary.scalar("loss", 1.0, step=1)
    assert result.dtype == dg.bool and not bool(result.numpy())
    assert dg.summary.graph(dg.Graph()) is False


def test_scalars_histogram_text_read_back(tmp_path):
    writer = dg.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(dg.summary.scalar("loss", np.float64(0.1), step=3).numpy())
        dg.summary.scalar("loss", dg.constant(0.25), step=4)
        dg.summary.histogram("weights", np.arange(10.0), step=3, buckets=5)
        dg.summary.text("note", "hello", step=3)
        with pytest.raises(ValueError, match="No step set"):
            dg.summary.scalar("loss", 1.0)
    writer.close()
    events = _events(tmp_path)
    loss = _tensor_series(events, "loss")
    assert [s for s, _ in loss] == [3, 4]
    assert [v.dtype for _, v in loss] == [np.float32] * 2
    assert [float(v) for _, v in loss] == [float(np.float32(0.1)), 0.25]
    ((step, buckets),) = _tensor_series(events, "weights")
    # 0..9 in 5 equal buckets of width 1.8: [0, 1.8), [1.8, 3.6), ... two values each.
    np.testing.assert_allclose(buckets[:, 0], [0, 1.8, 3.6, 5.4, 7.2])
    np.testing.assert_array_equal(buckets[:, 2], [2, 2, 2, 2, 2])
    assert _tensor_series(events, "note")[0][1] == b"hello"
    with pytest.raises(RuntimeError, match="already closed"):  # as TF 2.21
        with writer.as_default():
            pass


def test_default_step_and_set_as_default(tmp_path):
    writer = dg.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=7):
        dg.summary.scalar("a", 1.0)
    assert dg.summary.experimental.get_step() is None
    dg.summary.experimental.set_step(9)
    try:
        with writer.as_default():
            dg.summary.scalar("b", 2.0)
    finally:
        dg.summary.experimental.set_step(None)
    writer.close()
    events = _events(tmp_path)
    assert _tensor_series(events, "a")[0][0] == 7 and _tensor_series(events, "b")[0][0] == 9


def test_summaries_in_a_function_are_written_on_every_call_not_when_traced(tmp_path):
    writer = dg.summary.create_file_writer(str(tmp_path))
    step = dg.Variable(np.int64(0))
    traces = []

    @dg.function
    def train_step(x):
        traces.append(1)
        loss = x * x
        dg.summary.scalar("loss", loss, step=step)
        step.assign_add(1)
        return loss

    with writer.as_default():
        for x in (1.0, 2.0, 3.0):
            train_step(dg.constant(x))
    writer.close()
    assert len(traces) == 1
    assert [(s, float(v)) for s, v in _tensor_series(_events(tmp_path), "loss")] == \
        [(0, 1.0), (1, 4.0), (2, 9.0)]


def test_graph_mode_summary_written_when_the_session_runs_it(tmp_path):
    writer = dg.summary.create_file_writer(str(tmp_path))
    g = dg.Graph()
    with g.as_default(), writer.as_default():
        x = dg.placeholder(dg.float32, [])
        with dg.name_scope("train"):
            written = dg.summary.scalar("x", x * 2.0, step=5)
        assert written.dtype == dg.bool
        with dg.Session() as sess:
            writer.flush()
            assert "train/x" not in _events(tmp_path).Tags()["tensors"]  # built, not run
            assert sess.run(written, {x: 1.5})
    writer.close()
    assert [(s, float(v)) for s, v in _tensor_series(_events(tmp_path), "train/x")] == [(5, 3.0)]


def test_v1_summary_protos_match_tf():
    # TF 2.21: tf.compat.v1.summary.scalar('x', 1.) in eager mode.
    assert dg.compat.v1.summary.scalar("x", 1.0) == b"\n\x08\n\x01x\x15\x00\x00\x80?"
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float32, [None])
        with dg.name_scope("loss"):
            mean = dg.compat.v1.summary.scalar("mean", dg.reduce_mean(x))
        dg.compat.v1.summary.histogram("h", x)
        merged = dg.compat.v1.summary.merge_all()
        assert merged.op.type == "MergeSummary" and mean.op.type == "ScalarSummary"
        with dg.Session() as sess:
            serialized = sess.run(merged, {x: [1.0, 2.0, 3.0]})
    proto = summary_pb2.Summary()
    proto.ParseFromString(serialized)
    scalar_value, histo_value = proto.value
    # TF 2.21 (same program): tag "loss/mean_1" (op names are unique case-insensitively
    # and "loss/Mean" exists), simple_value 2, and this HistogramProto.
    assert (scalar_value.tag, scalar_value.simple_value) == ("loss/mean_1", 2.0)
    histo = histo_value.histo
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (1, 3, 3, 6, 14)
    assert list(histo.bucket_limit) == [0.917246389039776, 1.0089710279437536,
                                        1.9661990955585713, 2.1628190051144287,
                                        2.8787120958073054, 3.1665833053880363,
                                        1.7976931348623157e+308]
    assert list(histo.bucket) == [0, 1, 0, 1, 0, 1, 0]


def test_v1_eager_restrictions():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        dg.compat.v1.summary.merge_all()
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        dg.compat.v1.summary.FileWriter("unused")
    with dg.Graph().as_default():
        assert dg.compat.v1.summary.merge_all() is None


def _training_graph():
    """A graph with forward ops, gradient ops (name scopes) and merged TF1 summaries."""
    g = dg.Graph()
    with g.as_default():
        x = dg.placeholder(dg.float32, [None, 2], name="x")
        w = dg.Variable(np.ones((2, 1), np.float32), name="w")
        with dg.name_scope("model"):
            y = dg.matmul(x, w)
        with dg.name_scope("loss"):
            loss = dg.reduce_mean(dg.square(y))
        (grad,) = dg.gradients(loss, [w])
        train = w.assign_sub(0.01 * grad)
        dg.compat.v1.summary.scalar("train_loss", loss)
        dg.compat.v1.summary.histogram("weights", w)
        merged = dg.compat.v1.summary.merge_all()
    return g, x, train, merged


def _write_training_run(logdir):
    g, x, train, merged = _training_graph()
    with g.as_default():
        written_ops = {op.name for op in g.get_operations()}
        writer = dg.compat.v1.summary.FileWriter(logdir, g)
        with dg.Session() as sess:
            sess.run(dg.global_variables_initializer())
            for step in range(3):
                summary, _ = sess.run([merged, train], {x: [[1.0, 2.0], [3.0, 4.0]]})
                writer.add_summary(summary, step)
        writer.close()
    return written_ops


def test_file_writer_writes_summaries_and_the_forward_and_gradient_graph(tmp_path):
    written_ops = _write_training_run(str(tmp_path))
    events = _events(tmp_path)
    losses = [(e.step, e.value) for e in events.Scalars("train_loss")]
    # By hand: w = [1, 1], X w = [3, 7], loss 29; grad X^T X w = [24, 34], w <- [0.76, 0.66],
    # X w = [2.08, 4.92], loss 14.2664.
    assert [s for s, _ in losses] == [0, 1, 2]
    assert losses[0][1] == 29.0 and losses[1][1] == pytest.approx(14.2664, rel=1e-6)
    assert losses[2][1] < losses[1][1]
    assert [e.step for e in events.Histograms("weights")] == [0, 1, 2]
    graph_def = events.Graph()
    nodes = {n.name: n for n in graph_def.node}
    # TF's GraphDef form (formats/graph_export.py, the one exporter): every op, plus the
    # Const inputs TF's op definitions take where duograd holds an attr (axes, dims).
    assert written_ops <= set(nodes)
    added = set(nodes) - written_ops
    assert added == {"loss/Mean/reduction_indices", "gradients/loss/Mean_grad/ExpandDims/dim",
                     "gradients/loss/Mean_grad/ExpandDims_1/dim"}
    assert all(nodes[name].op == "Const" for name in added)
    assert "_output_shapes" in nodes["model/MatMul"].attr
    assert nodes["model/MatMul"].op == "MatMul" and list(nodes["model/MatMul"].input)[0] == "x"
    assert any(name.startswith("gradients/model/MatMul_grad/") for name in nodes)
    assert any(name.startswith("gradients/loss/") for name in nodes)
    for node in graph_def.node:  # every input names a node of the graph
        for source in node.input:
            assert source.lstrip("^").split(":")[0] in nodes


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def test_tensorboard_serves_the_scalars_and_the_graph(tmp_path):
    logdir = tmp_path / "logs"
    _write_training_run(str(logdir / "train"))
    writer = dg.summary.create_file_writer(str(logdir / "eager"))
    with writer.as_default():
        for step in range(4):
            dg.summary.scalar("accuracy", 0.25 * step, step=step)
    writer.close()
    tensorboard = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    port = _free_port()
    server = subprocess.Popen([tensorboard, "--logdir", str(logdir), "--host", "127.0.0.1",
                               "--port", str(port), "--load_fast=false"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/data/plugin"
    try:
        deadline = time.monotonic() + 15
        tags = {}
        while time.monotonic() < deadline:
            try:
                tags = _get_json(f"{base}/scalars/tags")
                if "accuracy" in tags.get("eager", {}) and "train_loss" in tags.get("train", {}):
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert "accuracy" in tags.get("eager", {}) and "train_loss" in tags.get("train", {}), tags
        accuracy = _get_json(f"{base}/scalars/scalars?run=eager&tag=accuracy")
        assert [(step, value) for _, step, value in accuracy] == \
            [(0, 0.0), (1, 0.25), (2, 0.5), (3, 0.75)]
        assert _get_json(f"{base}/graphs/info")["train"]["run_graph"] is True
        with urllib.request.urlopen(f"{base}/graphs/graph?run=train&conceptual=false",
                                    timeout=5) as response:
            graph_text = response.read().decode()
        assert 'name: "model/MatMul"' in graph_text
        assert 'name: "gradients/model/MatMul_grad/' in graph_text
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_set_as_default_is_per_thread(tmp_path):
    """set_as_default makes a writer the default of its thread only (TF's thread-local state)."""
    writer = dg.summary.create_file_writer(str(tmp_path))
    results = {}

    def worker():
        writer.set_as_default(step=2)
        results["worker"] = bool(dg.summary.scalar("from_thread", 1.0).numpy())
        dg.summary.flush()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    results["main"] = bool(dg.summary.scalar("from_main", 1.0, step=1).numpy())
    writer.close()
    assert results == {"worker": True, "main": False}
    tags = _events(tmp_path).Tags()["tensors"]
    assert tags == ["from_thread"] and _tensor_series(_events(tmp_path), "from_thread")[0][0] == 2
