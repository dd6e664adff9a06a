"""Checkpoints of dg.Module and the real optimizers: training resumed from a
checkpoint follows the uninterrupted trajectory bit for bit (Keras Adam in eager
mode, in a dg.function and in graph mode; TF1 AdamOptimizer with a Saver), and
variables a Module builds after the restore get their checkpointed values."""
import numpy as np
import pytest

import duograd as dg

RNG = np.random.default_rng(11)
X = RNG.normal(size=(32, 4))
Y = (X @ RNG.normal(size=(4, 1)) > 0).astype(np.float64)


class Net(dg.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        rng = np.random.default_rng(5)
        self.layers = [dg.Variable(rng.normal(size=(4, 8)) / 2, name="w0"),
                       dg.Variable(rng.normal(size=(8, 1)) / 3, name="w1")]
        self.bias = dg.Variable(np.zeros(1), name="bias")

    def __call__(self, x):
        return dg.matmul(dg.tanh(dg.matmul(x, self.layers[0])), self.layers[1]) + self.bias


class LazyNet(dg.Module):
    """Builds its variables on the first call (TF's deferred restoration case)."""

    def __init__(self):
        super().__init__()
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = dg.Variable(np.full((4, 1), 0.5), name="w")
        return dg.matmul(x, self.w)


def _loss(model, x, y):
    z = model(x)
    return dg.reduce_mean(dg.maximum(z, 0.0) - z * y + dg.log1p(dg.exp(-dg.abs(z))))


def _eager_steps(model, optimizer, steps, use_function):
    def step():
        with dg.GradientTape() as tape:
            loss = _loss(model, dg.constant(X), dg.constant(Y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    run = dg.function(step) if use_function else step
    return [run().numpy() for _ in range(steps)]


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "function"])
def test_keras_adam_resumes_bit_for_bit(tmp_path, use_function):
    model, optimizer = Net(), dg.keras.optimizers.Adam(0.05, amsgrad=True)
    manager = dg.train.CheckpointManager(dg.train.Checkpoint(model=model, optimizer=optimizer),
                                         str(tmp_path), max_to_keep=2)
    _eager_steps(model, optimizer, 3, use_function)
    manager.save()
    uninterrupted = _eager_steps(model, optimizer, 5, use_function)

    model2, optimizer2 = Net(), dg.keras.optimizers.Adam(0.05, amsgrad=True)
    checkpoint = dg.train.Checkpoint(model=model2, optimizer=optimizer2)
    status = checkpoint.restore(dg.train.latest_checkpoint(str(tmp_path)))
    assert int(optimizer2.iterations.numpy()) == 3
    resumed = _eager_steps(model2, optimizer2, 5, use_function)  # slots created restored
    status.assert_consumed()
    assert np.array_equal(resumed, uninterrupted)
    for a, b in zip(model.variables, model2.variables):
        assert np.array_equal(a.numpy(), b.numpy())
    for (_, name_a, slot_a), (_, name_b, slot_b) in zip(optimizer.slot_variables(),
                                                        optimizer2.slot_variables()):
        assert name_a == name_b and np.array_equal(slot_a.numpy(), slot_b.numpy())


def _graph_training(optimizer_factory):
    g = dg.Graph()
    with g.as_default():
        model, optimizer = Net(), optimizer_factory()
        loss = _loss(model, dg.constant(X), dg.constant(Y))
        variables = list(model.trainable_variables)
        train = optimizer.apply_gradients(zip(dg.gradients(loss, variables), variables))
        init = dg.global_variables_initializer()
    return g, model, optimizer, loss, train, init


def test_graph_mode_keras_adam_resumes_bit_for_bit(tmp_path):
    g, model, optimizer, loss, train, init = _graph_training(lambda: dg.keras.optimizers.Adam(0.05))
    with g.as_default(), dg.Session() as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        path = dg.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ck"))
        uninterrupted = [sess.run([loss, train])[0] for _ in range(4)]
    g2, model2, optimizer2, loss2, train2, init2 = _graph_training(
        lambda: dg.keras.optimizers.Adam(0.05))
    with g2.as_default(), dg.Session() as sess:
        sess.run(init2)
        dg.train.Checkpoint(model=model2, optimizer=optimizer2).restore(path).assert_consumed()
        resumed = [sess.run([loss2, train2])[0] for _ in range(4)]
    assert resumed == uninterrupted


def test_tf1_adam_optimizer_with_saver_resumes_bit_for_bit(tmp_path):
    def build():
        return _graph_training(lambda: dg.compat.v1.train.AdamOptimizer(0.05))
    g, _, _, loss, train, init = build()
    with g.as_default(), dg.Session() as sess:
        sess.run(init)
        for _ in range(3):
            sess.run(train)
        saver = dg.compat.v1.train.Saver()
        path = saver.save(sess, str(tmp_path / "model"), global_step=3)
        uninterrupted = [sess.run([loss, train])[0] for _ in range(4)]
    names = [name for name, _ in dg.compat.v1.train.list_variables(path)]
    assert "beta1_power" in names and any(name.endswith("/Adam_1") for name in names)
    g2, _, _, loss2, train2, _ = build()
    with g2.as_default(), dg.Session() as sess:
        dg.compat.v1.train.Saver().restore(sess, path)
        resumed = [sess.run([loss2, train2])[0] for _ in range(4)]
    assert resumed == uninterrupted


def test_module_variables_built_after_restore_get_their_values(tmp_path):
    trained = LazyNet()
    trained(dg.constant(X))
    trained.w.assign(np.arange(4.0).reshape(4, 1))
    path = dg.train.Checkpoint(model=trained).save(str(tmp_path / "ck"))
    fresh = LazyNet()
    status = dg.train.Checkpoint(model=fresh).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()
    fresh(dg.constant(X))  # builds w: restored on assignment, as TF's deferred restoration
    np.testing.assert_array_equal(fresh.w.numpy(), trained.w.numpy())
    status.assert_consumed()
