"""Keras-3-style optimizers (`dg.keras.optimizers`, `dg.optimizers`)."""
from .. import schedules
from .adagrad import Adagrad
from .adam import Adam, AdamW, LazyAdam
from .adamax import Adamax
from .base import Optimizer
from .nadam import Nadam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "Nadam",
           "LazyAdam", "schedules"]
