"""Small trackables for the checkpoint tests: a lazily built linear model and a
momentum optimizer following the tracking protocol (trackable_children,
slot_variables, defer_slot_restore), independent of dg.Module and dg.keras."""
import numpy as np

import duograd as dg
from duograd.training.trackable import child_added

RNG = np.random.default_rng(7)
X = RNG.normal(size=(16, 3)).astype(np.float32)
Y = (X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)


class LazyLinear:
    """Builds its variables on first call; reports new attributes as a Module does."""

    def __init__(self):
        self.w = None
        self.b = None

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        child_added(self, name, value)

    def trackable_children(self):
        return {k: v for k, v in (("w", self.w), ("b", self.b)) if v is not None}

    def __call__(self, x):
        if self.w is None:
            self.w = dg.Variable(np.full((3, 1), 0.1, np.float32), name="w")
            self.b = dg.Variable(np.zeros((1,), np.float32), name="b")
        return dg.matmul(x, self.w) + self.b


class Momentum:
    """v <- m * v + g; w <- w - lr * v, with a slot v per variable created on first use."""

    def __init__(self, learning_rate=0.05, momentum=0.9):
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.iterations = dg.Variable(np.int64(0), trainable=False, name="iterations")
        self._slots = {}
        self._deferred = {}

    def trackable_children(self):
        return {"iterations": self.iterations}

    def slot_variables(self):
        return [(var, "momentum", slot) for var, slot in self._slots.values()]

    def defer_slot_restore(self, variable, slot_name, value):
        self._deferred[(id(variable), slot_name)] = value

    def _slot(self, var):
        if id(var) not in self._slots:
            initial = self._deferred.pop((id(var), "momentum"), None)
            if initial is None:
                initial = np.zeros(var.shape.as_list(), var.dtype.as_numpy_dtype)
            self._slots[id(var)] = (var, dg.Variable(initial, trainable=False, name="momentum"))
        return self._slots[id(var)][1]

    def apply_gradients(self, grads_and_vars):
        for grad, var in grads_and_vars:
            slot = self._slot(var)
            slot.assign(slot * self.momentum + grad)
            var.assign_sub(slot * self.learning_rate)
        self.iterations.assign_add(1)


def train_steps(model, optimizer, steps):
    """Runs `steps` eager training steps; returns the losses as float32 arrays."""
    losses = []
    for _ in range(steps):
        with dg.GradientTape() as tape:
            loss = dg.reduce_mean(dg.square(model(X) - Y))
        variables = [model.w, model.b]
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        losses.append(loss.numpy())
    return losses
