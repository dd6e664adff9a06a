"""`tf.compat.v1.initializers` and the TF1 `*_initializer` names: TF1's defaults
(random_normal: stddev 1.0; random_uniform: [0, 1)), the variance-scaling family
(the same rules as Keras'), and the variable initializer ops."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..ops.state import init_ops, variables
from ..training.keras import initializers as keras_initializers
from .collections_v1 import local_variables_initializer, tables_initializer


class TruncatedNormal(keras_initializers.TruncatedNormal):
    """TF1's truncated_normal_initializer: stddev 1.0 by default, a `dtype` argument."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = None) -> None:
        super().__init__(mean, stddev, seed)
        self.default_dtype = dtype

    def __call__(self, shape: Sequence[int], dtype: Any = None,
                 partition_info: Any = None) -> Any:
        return super().__call__(shape, dtype if dtype is not None else self.default_dtype)


INITIALIZERS = {
    "constant": init_ops.Constant, "zeros": init_ops.Zeros, "ones": init_ops.Ones,
    "random_normal": init_ops.RandomNormal, "random_uniform": init_ops.RandomUniform,
    "truncated_normal": TruncatedNormal, "glorot_uniform": init_ops.GlorotUniform,
    "glorot_normal": keras_initializers.GlorotNormal, "he_normal": keras_initializers.HeNormal,
    "he_uniform": keras_initializers.HeUniform, "lecun_normal": keras_initializers.LecunNormal,
    "lecun_uniform": keras_initializers.LecunUniform,
    "orthogonal": keras_initializers.Orthogonal, "identity": keras_initializers.Identity,
    "variance_scaling": keras_initializers.VarianceScaling,
    "global_variables": variables.global_variables_initializer,
    "local_variables": local_variables_initializer,
    "variables": variables.variables_initializer, "tables_initializer": tables_initializer,
}
TOP_LEVEL = {"truncated_normal_initializer": TruncatedNormal,
             "glorot_normal_initializer": keras_initializers.GlorotNormal,
             "variance_scaling_initializer": keras_initializers.VarianceScaling,
             "orthogonal_initializer": keras_initializers.Orthogonal,
             "initialize_variables": variables.variables_initializer}
