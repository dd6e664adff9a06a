"""TF1's functional layers (`tf.compat.v1.layers`): dense, conv2d, pooling, dropout,
batch_normalization, flatten.

Each layer opens `variable_scope(name, default_name=<layer>)` (so unnamed layers
are `dense`, `dense_1`, ... as in TF1, and `reuse=` shares them) and makes its
variables with `get_variable` under TF1's names (`dense/kernel`, `dense/bias`,
`batch_normalization/gamma`, ...): Glorot-uniform kernels, zero biases.
`batch_normalization(training=True)` adds its moving-average updates to the
UPDATE_OPS collection (run them with the train op, as TF1 programs do); it
uses the batch's biased variance for them (TF's fused kernel corrects it by
n/(n-1): a documented difference). `training` may be a bool or a bool tensor.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, Union

from ..ops.array import array_ops, join_ops
from ..ops.nn import conv_ops
from ..ops.math import einsum_ops, math_ops, matmul_ops
from ..ops.state import init_ops
from ..ops.nn import nn_extra_ops, nn_ops, pooling_ops
from ..ops.state import state_ops
from ..ops.control_flow.cond_ops import cond
from ..ops.constant_op import convert_to_tensor
from ..ops.state.variable_scope import get_variable, variable_scope
from .collections_v1 import GraphKeys, add_to_collection

IntPair = Union[int, Sequence[int]]


def _pair(value: IntPair) -> Tuple[int, int]:
    if isinstance(value, int):
        return value, value
    first, second = value
    return int(first), int(second)


def _padding(padding: str) -> str:
    upper = padding.upper()
    if upper not in ("VALID", "SAME"):
        raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", "
                         f"\"same\". Received: {padding}")
    return upper


def _nhwc(data_format: str) -> str:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", "
                         f"\"channels_last\". Received: {data_format}")
    return "NHWC" if data_format == "channels_last" else "NCHW"


def _weights(inputs: Any, kernel_shape: list, units: int, use_bias: bool,
             kernel_initializer: Any, bias_initializer: Any, kernel_regularizer: Any,
             bias_regularizer: Any, trainable: bool) -> Tuple[Any, Any]:
    kernel = get_variable("kernel", kernel_shape, dtype=inputs.dtype,
                          initializer=kernel_initializer or init_ops.GlorotUniform(),
                          regularizer=kernel_regularizer, trainable=trainable)
    bias = None
    if use_bias:
        bias = get_variable("bias", [units], dtype=inputs.dtype,
                            initializer=bias_initializer or init_ops.Zeros(),
                            regularizer=bias_regularizer, trainable=trainable)
    return kernel, bias


def _activate(outputs: Any, activation: Optional[Callable]) -> Any:
    return activation(outputs) if activation is not None else outputs


def dense(inputs: Any, units: int, activation: Optional[Callable] = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
          reuse: Any = None) -> Any:
    """`activation(inputs @ kernel + bias)` over the last axis of `inputs`."""
    inputs = convert_to_tensor(inputs)
    depth = inputs.shape[-1] if inputs.shape.rank else None
    if depth is None:
        raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                         "Found `None`.")
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel, bias = _weights(inputs, [int(depth), int(units)], int(units), use_bias,
                                kernel_initializer, bias_initializer, kernel_regularizer,
                                bias_regularizer, trainable)
        if inputs.shape.rank == 2:
            outputs = matmul_ops.matmul(inputs, kernel)
        else:
            outputs = einsum_ops.tensordot(inputs, kernel, [[inputs.shape.rank - 1], [0]])
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias)
        return _activate(outputs, activation)


def conv2d(inputs: Any, filters: int, kernel_size: IntPair, strides: IntPair = (1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: IntPair = (1, 1), activation: Optional[Callable] = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
           reuse: Any = None) -> Any:
    """A 2-D convolution layer: kernel [kh, kw, in_channels, filters]."""
    inputs = convert_to_tensor(inputs)
    layout = _nhwc(data_format)
    channels = inputs.shape[-1 if layout == "NHWC" else 1]
    if channels is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(strides)
    dh, dw = _pair(dilation_rate)
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        kernel, bias = _weights(inputs, [kh, kw, int(channels), int(filters)], int(filters),
                                use_bias, kernel_initializer, bias_initializer,
                                kernel_regularizer, bias_regularizer, trainable)
        outputs = conv_ops.conv2d(inputs, kernel, [1, sh, sw, 1] if layout == "NHWC"
                                  else [1, 1, sh, sw], _padding(padding), data_format=layout,
                                  dilations=[1, dh, dw, 1] if layout == "NHWC" else [1, 1, dh, dw])
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias, data_format=layout)
        return _activate(outputs, activation)


def _pool(pool: Callable, default_name: str, inputs: Any, pool_size: IntPair, strides: IntPair,
          padding: str, data_format: str, name: Optional[str]) -> Any:
    layout = _nhwc(data_format)
    ph, pw = _pair(pool_size)
    sh, sw = _pair(strides)
    with variable_scope(name, default_name=default_name):
        window = [1, ph, pw, 1] if layout == "NHWC" else [1, 1, ph, pw]
        step = [1, sh, sw, 1] if layout == "NHWC" else [1, 1, sh, sw]
        return pool(inputs, window, step, _padding(padding), data_format=layout)


def max_pooling2d(inputs: Any, pool_size: IntPair, strides: IntPair, padding: str = "valid",
                  data_format: str = "channels_last", name: Optional[str] = None) -> Any:
    return _pool(pooling_ops.max_pool2d, "max_pooling2d", inputs, pool_size, strides, padding,
                 data_format, name)


def average_pooling2d(inputs: Any, pool_size: IntPair, strides: IntPair, padding: str = "valid",
                      data_format: str = "channels_last", name: Optional[str] = None) -> Any:
    return _pool(pooling_ops.avg_pool2d, "average_pooling2d", inputs, pool_size, strides,
                 padding, data_format, name)


def _by_training(training: Any, train_fn: Callable, infer_fn: Callable) -> Any:
    if isinstance(training, bool):
        return train_fn() if training else infer_fn()
    return cond(convert_to_tensor(training), train_fn, infer_fn)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: Optional[int] = None,
            training: Any = False, name: Optional[str] = None) -> Any:
    """Dropout while `training` (a bool or a bool tensor); the identity otherwise."""
    inputs = convert_to_tensor(inputs)
    with variable_scope(name, default_name="dropout"):
        return _by_training(training,
                            lambda: nn_ops.dropout(inputs, rate, noise_shape, seed),
                            lambda: array_ops.identity(inputs))


def flatten(inputs: Any, name: Optional[str] = None, data_format: str = "channels_last") -> Any:
    """[batch, ...] -> [batch, product of the rest]."""
    inputs = convert_to_tensor(inputs)
    with variable_scope(name, default_name="flatten"):
        if data_format == "channels_first" and inputs.shape.rank and inputs.shape.rank > 2:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, inputs.shape.rank)) + [1])
        rest = inputs.shape.as_list()[1:] if inputs.shape.rank is not None else None
        if rest is not None and all(d is not None for d in rest):
            size = 1
            for d in rest:
                size *= d
            return array_ops.reshape(inputs, [-1, size])
        return array_ops.reshape(inputs, join_ops.stack([array_ops.shape(inputs)[0], -1]))


def fused_kernel_applies(rank: int, axis: int, dtype: Any, renorm: bool,
                         virtual_batch_size: Any, adjustment: Any) -> bool:
    """Whether TF1's layer would run the fused kernel (its default for NHWC/NCHW and
    NDHWC/NCDHW float16/bfloat16/float32 inputs without renorm, virtual batches or
    adjustment)."""
    channel_axes = {4: (1, 3), 5: (1, 4)}.get(rank, ())
    return (axis in channel_axes and dtype.name in ("float16", "bfloat16", "float32")
            and not renorm and virtual_batch_size is None and adjustment is None)


def bessel_factor(inputs: Any, depth: Any) -> Any:
    """n / max(n - 1, 1), n the values per channel: the fused kernel's batch variance
    (which TF1 feeds to the moving variance) is the unbiased one."""
    count = math_ops.cast(array_ops.size(inputs), inputs.dtype) / float(int(depth))
    return count / math_ops.maximum(count - 1.0, 1.0)


def batch_normalization(inputs: Any, axis: int = -1, momentum: float = 0.99,
                        epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                        beta_initializer: Any = None, gamma_initializer: Any = None,
                        moving_mean_initializer: Any = None,
                        moving_variance_initializer: Any = None, beta_regularizer: Any = None,
                        gamma_regularizer: Any = None, beta_constraint: Any = None,
                        gamma_constraint: Any = None, training: Any = False,
                        trainable: bool = True, name: Optional[str] = None, reuse: Any = None,
                        renorm: bool = False, renorm_clipping: Any = None,
                        renorm_momentum: float = 0.99, fused: Any = None,
                        virtual_batch_size: Any = None, adjustment: Any = None) -> Any:
    """Normalises over every axis but `axis`: batch statistics while training (and
    UPDATE_OPS moving averages), the moving averages otherwise. Where TF1 runs its
    fused kernel (4-D/5-D float inputs, channels first or last), the moving variance
    is fed the unbiased batch variance n/(n-1) as there; elsewhere the biased one."""
    inputs = convert_to_tensor(inputs)
    rank = inputs.shape.rank
    if rank is None:
        raise ValueError("Input has undefined rank.")
    axis = axis % rank
    depth = inputs.shape[axis]
    reduce_axes = [a for a in range(rank) if a != axis]
    broadcast = [1] * rank
    broadcast[axis] = int(depth)
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        dtype = inputs.dtype
        gamma = get_variable("gamma", [depth], dtype=dtype, trainable=trainable,
                             initializer=gamma_initializer or init_ops.Ones(),
                             regularizer=gamma_regularizer) if scale else None
        beta = get_variable("beta", [depth], dtype=dtype, trainable=trainable,
                            initializer=beta_initializer or init_ops.Zeros(),
                            regularizer=beta_regularizer) if center else None
        moving_mean = get_variable("moving_mean", [depth], dtype=dtype, trainable=False,
                                   initializer=moving_mean_initializer or init_ops.Zeros())
        moving_variance = get_variable("moving_variance", [depth], dtype=dtype, trainable=False,
                                       initializer=moving_variance_initializer or init_ops.Ones())
        mean, variance = nn_ops.moments(inputs, reduce_axes)

        def normalize(m: Any, v: Any) -> Any:
            def shaped(t: Any) -> Any:
                return None if t is None else array_ops.reshape(t, broadcast)
            return nn_extra_ops.batch_normalization(inputs, shaped(m), shaped(v), shaped(beta),
                                                    shaped(gamma), epsilon)

        outputs = _by_training(training, lambda: normalize(mean, variance),
                               lambda: normalize(moving_mean.value(), moving_variance.value()))
        if training is not False:
            decay = _by_training(training, lambda: convert_to_tensor(1.0 - momentum, dtype),
                                 lambda: convert_to_tensor(0.0, dtype))
            if fused is not False and fused_kernel_applies(rank, axis, dtype, renorm,
                                                           virtual_batch_size, adjustment):
                variance = variance * bessel_factor(inputs, depth)
            for variable, value in ((moving_mean, mean), (moving_variance, variance)):
                update = state_ops.assign_sub(variable, (variable.value() - value) * decay)
                add_to_collection(GraphKeys.UPDATE_OPS, update)
        return outputs


NAMES = {name: globals()[name] for name in (
    "dense conv2d max_pooling2d average_pooling2d dropout flatten "
    "batch_normalization").split()}
