"""Op-table rows for CheckNumerics (gradient: the checked gradient) and EagerPyFunc
(py_function; gradient: the function rerun under a tape)."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal

ROWS = [
    OpSpec("check_numerics", lambda x: dg.debugging.check_numerics(x * x, "x squared"),
           lambda x: x * x, inputs(normal(3, 2))),
    # py_function outputs have unknown shapes (as in TF): reshape gives them x's
    OpSpec("py_function", lambda x, y: dg.reshape(
        dg.py_function(lambda a, b: dg.sin(a) * b, [x, y], dg.float64), dg.shape(x)),
        lambda x, y: np.sin(x) * y, inputs(normal(4), normal(4))),
    OpSpec("py_function_two_outputs",
           lambda x: [dg.reshape(t, dg.shape(x)) for t in dg.py_function(
               lambda a: (a * a, dg.exp(a)), [x], [dg.float64, dg.float64])],
           lambda x: [x * x, np.exp(x)], inputs(normal(3)), order=1),
]
