"""Every name of API.md exists where API.md says, and every op function of its
"Ops" section builds ops that the op table covers (checked in both modes there)."""
import numpy as np
import pytest

import duograd as dg
import op_tables  # noqa: F401 - the table package the coverage test reads
from op_tables import all_rows, op_types_of

TABLE = all_rows()

TOP_LEVEL = """Tensor Operation Graph IndexedSlices TensorShape DType Variable float16 float32
float64 int8 int16 int32 int64 uint8 bool complex64 complex128 as_dtype executing_eagerly
get_default_graph placeholder TensorSpec Session function name_scope control_dependencies
device no_op group tuple constant convert_to_tensor zeros ones zeros_like ones_like fill
range eye linspace IndexedSlicesValue global_variables_initializer variables_initializer
gradients hessians UnconnectedGradients AggregationMethod GradientTape stop_gradient
custom_gradient recompute_grad grad_pass_through RegisterGradient NotDifferentiable
get_gradient_function hessian_vector_product vectorized_map gradient_override_map
numpy_function cond while_loop TensorArray errors math nn linalg random test autodiff""".split()

MATH_OPS = """add subtract multiply divide truediv floordiv mod negative abs sign square sqrt
rsqrt reciprocal exp expm1 log log1p pow sin cos tan asin acos atan atan2 sinh cosh tanh
sigmoid softplus erf maximum minimum squared_difference add_n matmul reduce_sum reduce_mean
reduce_max reduce_min reduce_prod reduce_logsumexp argmax argmin cumsum equal not_equal
less less_equal greater greater_equal logical_and logical_or logical_not where cast real
imag conj complex is_nan is_finite clip_by_value einsum tensordot""".split()
MATH_EXTRAS = "log_sigmoid xlogy divide_no_nan top_k unsorted_segment_sum".split()
ARRAY_OPS = """reshape transpose concat stack unstack split gather gather_nd scatter_nd slice
strided_slice expand_dims squeeze tile broadcast_to pad reverse one_hot identity identity_n
shape shape_n size rank stop_gradient tensor_scatter_nd_update tensor_scatter_nd_add
tensor_scatter_nd_sub clip_by_norm clip_by_global_norm boolean_mask sort argsort
unique""".split()
NN_OPS = """relu relu6 elu selu leaky_relu gelu sigmoid tanh softplus softmax log_softmax
softmax_cross_entropy_with_logits sparse_softmax_cross_entropy_with_logits
sigmoid_cross_entropy_with_logits l2_loss bias_add dropout conv2d max_pool2d avg_pool2d
moments""".split()
LINALG_OPS = """matmul matvec inv det slogdet solve cholesky triangular_solve trace diag_part
tensor_diag eigh svd norm""".split()
RANDOM = "normal uniform set_seed".split()
ERRORS = "OpError InvalidArgumentError FailedPreconditionError NotFoundError UnimplementedError".split()


@pytest.mark.parametrize("name", TOP_LEVEL + MATH_OPS + ARRAY_OPS)
def test_top_level_names(name):
    assert hasattr(dg, name), f"dg.{name} is missing"


@pytest.mark.parametrize("space, names", [("math", MATH_OPS + MATH_EXTRAS), ("nn", NN_OPS),
                                          ("linalg", LINALG_OPS), ("random", RANDOM),
                                          ("errors", ERRORS)])
def test_namespaces(space, names):
    module = getattr(dg, space)
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"dg.{space} lacks {missing}"


def test_dtype_attributes_and_submodules():
    assert dg.test.compute_gradient and dg.autodiff.ForwardAccumulator
    for dtype in (dg.float32, dg.int8, dg.complex64, dg.bool):
        for attr in ("name", "is_floating", "is_integer", "is_complex", "is_bool",
                     "base_dtype", "as_numpy_dtype"):
            assert hasattr(dtype, attr)


def test_every_api_op_function_builds_only_covered_op_types():
    """The op types behind API.md's op functions are a subset of those the table covers."""
    covered = set()
    for spec in TABLE:
        covered |= op_types_of(spec)
    x = np.ones((2, 3), np.float32)
    samples = {  # one typical call per differentiable function family
        "reduce_logsumexp": lambda t: dg.reduce_logsumexp(t, axis=1),
        "cumsum": lambda t: dg.cumsum(t, axis=1, exclusive=True),
        "clip_by_value": lambda t: dg.clip_by_value(t, 0.1, 0.5),
        "softmax": lambda t: dg.nn.softmax(t),
        "log_softmax": lambda t: dg.nn.log_softmax(t),
        "l2_loss": lambda t: dg.nn.l2_loss(t),
        "tile": lambda t: dg.tile(t, [2, 1]),
        "reverse": lambda t: dg.reverse(t, [1]),
        "getitem": lambda t: t[:, ::-1],
    }
    for name, build in samples.items():
        g = dg.Graph()
        with g.as_default():
            build(dg.placeholder(dg.float32, x.shape))
        types = {op.type for op in g.get_operations()} - {"Placeholder"}
        assert types <= covered, f"{name} builds uncovered op types {types - covered}"


def test_dir_lists_the_public_api_and_no_implementation_modules():
    import importlib
    import types
    importlib.import_module("duograd.ops.gradient_checker_v1")   # a submodule import ...
    names = dir(dg)
    modules = [n for n in names if isinstance(getattr(dg, n), types.ModuleType)]
    assert modules == ["autodiff", "autograph", "compat", "config", "data", "debugging",  # adds
                       "distribute", "errors", "graph_util", "image", "initializers",  # nothing
                       "io", "keras", "linalg", "losses", "math", "metrics", "nest", "nn",
                       "optimizers", "ragged", "random", "saved_model", "sparse", "strings",
                       "summary", "test",
                       "train", "types"]
    for internal in ("ops", "framework", "eager", "grad_registry", "namespaces", "math_grad",
                     "array_grad", "gradient_checker_v1"):
        assert internal not in names
    assert sorted(dg.__all__) == names
    assert {"compat", "GradientTape", "gradients", "math", "errors"} <= set(names)


def test_compat_v1_mirrors_tf_compat_v1_for_graph_mode():
    v1 = dg.compat.v1
    for name in ("placeholder Session InteractiveSession gradients hessians get_variable "
                 "variable_scope AUTO_REUSE get_variable_scope global_variables_initializer "
                 "constant_initializer zeros_initializer ones_initializer assign "
                 "disable_eager_execution enable_eager_execution").split():
        assert hasattr(v1, name), f"dg.compat.v1.{name} is missing"
    assert v1.test.compute_gradient_error and v1.matmul is dg.matmul


FUNCTION_BODY_UTILITIES = {
    "": "print py_function range autograph debugging nest Assert check_numerics".split(),
    "debugging": """Assert assert_all_finite assert_equal assert_greater assert_greater_equal
    assert_integer assert_less assert_less_equal assert_near assert_negative assert_non_negative
    assert_non_positive assert_none_equal assert_positive assert_rank assert_rank_at_least
    assert_rank_in assert_same_float_dtype assert_scalar assert_shapes assert_type
    check_numerics is_numeric_tensor""".split(),
    "nest": "assert_same_structure flatten is_nested map_structure pack_sequence_as".split(),
    "autograph": "to_graph to_code do_not_convert experimental".split(),
}


@pytest.mark.parametrize("space", sorted(FUNCTION_BODY_UTILITIES))
def test_function_body_utilities(space):
    module = getattr(dg, space) if space else dg
    missing = [n for n in FUNCTION_BODY_UTILITIES[space] if not hasattr(module, n)]
    assert not missing, f"dg.{space} lacks {missing}"
