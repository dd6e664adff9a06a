"""Op-table rows for numpy_function's PyFunc / PyFuncStateless (no gradient of their own)."""
from __future__ import annotations

import numpy as np

import duograd as dg
from .spec import OpSpec, inputs, normal

ROWS = [
    OpSpec("numpy_function", lambda x: dg.numpy_function(np.sin, [x], dg.float64), np.sin,
           inputs(normal(3, 2)), order=0),
    OpSpec("numpy_function_stateless",
           lambda x, y: dg.numpy_function(lambda a, b: (a * b, a - b), [x, y],
                                          [dg.float64, dg.float64], stateful=False),
           lambda x, y: [x * y, x - y], inputs(normal(4), normal(4)), order=0),
]
