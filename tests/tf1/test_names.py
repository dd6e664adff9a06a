"""duograd.compat.v1 checked against tf.compat.v1's own name list (TF 2.21's dir()):
the names below are TF's, and each resolves in duograd; GraphKeys hold TF's strings.
(What of TF's list is still missing is README's "not in duograd (yet)".)"""
import pytest

import duograd as dg

PRESENT = {
    '': """AUTO_REUSE AggregationMethod Assert ConfigProto DType GPUOptions GradientTape Graph
    GraphKeys GraphOptions IndexedSlices InteractiveSession Module NoGradient
    NotDifferentiable Operation OptimizerOptions Print RegisterGradient RunMetadata
    RunOptions Session Tensor TensorArray TensorShape TensorSpec UnconnectedGradients
    Variable VariableScope abs acos acosh add add_n add_to_collection add_to_collections
    all_variables angle arg_max arg_min argmax argmin argsort as_dtype asin asinh
    assert_equal assert_greater assert_greater_equal assert_integer assert_less
    assert_less_equal assert_near assert_negative assert_non_negative
    assert_non_positive assert_none_equal assert_positive assert_rank
    assert_rank_at_least assert_rank_in assert_same_float_dtype assert_scalar
    assert_type assign assign_add assign_sub atan atan2 atanh autograph bool
    boolean_mask broadcast_dynamic_shape broadcast_static_shape broadcast_to cast ceil
    check_numerics cholesky clip_by_global_norm clip_by_norm clip_by_value compat
    complex complex128 complex64 concat cond config conj constant constant_initializer
    control_dependencies convert_to_tensor cos cosh count_nonzero cross cumprod cumsum
    custom_gradient debugging device diag diag_part digamma disable_eager_execution
    disable_v2_behavior distribute div div_no_nan divide double dynamic_partition
    dynamic_stitch einsum enable_eager_execution enable_v2_behavior ensure_shape equal
    erf erfc errors executing_eagerly exp expand_dims expm1 eye fill float16 float32
    float64 floor floor_div floordiv floormod foldl foldr function gather gather_nd
    get_collection get_collection_ref get_default_graph get_default_session get_seed
    get_static_value get_variable get_variable_scope global_norm global_variables
    global_variables_initializer glorot_normal_initializer glorot_uniform_initializer
    grad_pass_through gradients greater greater_equal group half hessians identity
    identity_n imag init_scope initialize_all_tables initialize_all_variables
    initialize_local_variables initialize_variables initializers int16 int32 int64 int8
    invert_permutation is_finite is_inf is_nan is_numeric_tensor is_tensor keras layers
    less less_equal lgamma lin_space linalg linspace local_variables
    local_variables_initializer log log1p log_sigmoid logical_and logical_not logical_or
    logical_xor losses map_fn math matmul matrix_band_part matrix_determinant
    matrix_diag matrix_diag_part matrix_inverse matrix_set_diag matrix_solve
    matrix_transpose matrix_triangular_solve maximum meshgrid metrics minimum mod
    model_variables moving_average_variables multinomial multiply name_scope negative
    nest newaxis nn no_op norm not_equal numpy_function one_hot ones ones_initializer
    ones_like orthogonal_initializer pad placeholder placeholder_with_default polygamma
    pow print py_func py_function random random_normal random_normal_initializer
    random_shuffle random_uniform random_uniform_initializer range rank real realdiv
    reciprocal recompute_grad reduce_all reduce_any reduce_logsumexp reduce_max
    reduce_mean reduce_min reduce_prod reduce_sum repeat reset_default_graph reshape
    resource reverse rint roll round rsqrt scan scatter_add scatter_nd scatter_sub
    scatter_update segment_max segment_mean segment_min segment_prod segment_sum
    self_adjoint_eig self_adjoint_eigvals sequence_mask set_random_seed shape shape_n
    sigmoid sign sin sinh size slice sort split sqrt square squared_difference squeeze
    stack stop_gradient strided_slice string subtract summary svd switch_case
    tables_initializer tan tanh tensor_scatter_nd_add tensor_scatter_nd_sub
    tensor_scatter_nd_update tensordot test tile to_complex128 to_complex64 to_double
    to_float to_int32 to_int64 trace train trainable_variables transpose truediv
    truncated_normal truncated_normal_initializer truncatediv truncatemod tuple types
    uint8 unique unsorted_segment_max unsorted_segment_mean unsorted_segment_min
    unsorted_segment_prod unsorted_segment_sqrt_n unsorted_segment_sum unstack
    variable_creator_scope variable_scope variables_initializer
    variance_scaling_initializer variant vectorized_map where while_loop zeros
    zeros_initializer zeros_like""".split(),
    'nn': """avg_pool avg_pool2d batch_normalization bias_add compute_average_loss conv2d
    conv2d_backprop_filter conv2d_backprop_input conv2d_transpose dropout elu
    embedding_lookup fused_batch_norm l2_loss l2_normalize leaky_relu log_poisson_loss
    log_softmax max_pool max_pool2d moments normalize_moments relu relu6 selu sigmoid
    sigmoid_cross_entropy_with_logits silu softmax softmax_cross_entropy_with_logits
    softmax_cross_entropy_with_logits_v2 softplus softsign
    sparse_softmax_cross_entropy_with_logits swish tanh top_k
    weighted_cross_entropy_with_logits xw_plus_b zero_fraction""".split(),
    'train': """AdagradOptimizer AdamOptimizer Checkpoint CheckpointManager Coordinator
    GradientDescentOptimizer MomentumOptimizer Optimizer RMSPropOptimizer Saver
    checkpoint_exists create_global_step exponential_decay get_checkpoint_state
    get_global_step get_or_create_global_step global_step latest_checkpoint
    list_variables load_checkpoint load_variable piecewise_constant polynomial_decay
    start_queue_runners""".split(),
    'losses': """Reduction absolute_difference add_loss compute_weighted_loss cosine_distance get_losses
    get_regularization_loss get_regularization_losses get_total_loss hinge_loss
    huber_loss log_loss mean_squared_error sigmoid_cross_entropy softmax_cross_entropy
    sparse_softmax_cross_entropy""".split(),
    'metrics': """accuracy mean mean_absolute_error mean_squared_error""".split(),
    'random': """categorical get_seed multinomial normal set_random_seed shuffle truncated_normal uniform""".split(),
    'math': """abs acos acosh add add_n angle argmax argmin asin asinh atan atan2 atanh ceil conj cos
    cosh cumprod cumsum digamma divide divide_no_nan equal erf erfc exp expm1 floor
    floordiv floormod greater greater_equal imag invert_permutation is_finite is_inf
    is_nan l2_normalize less less_equal lgamma log log1p log_sigmoid log_softmax
    logical_and logical_not logical_or logical_xor maximum minimum mod multiply
    multiply_no_nan negative nextafter not_equal polygamma pow real reciprocal
    reciprocal_no_nan reduce_all reduce_any reduce_euclidean_norm reduce_logsumexp
    reduce_max reduce_mean reduce_min reduce_prod reduce_std reduce_sum reduce_variance
    rint round rsqrt segment_max segment_mean segment_min segment_prod segment_sum
    sigmoid sign sin sinh softplus sqrt square squared_difference subtract tan tanh
    top_k truediv unsorted_segment_max unsorted_segment_mean unsorted_segment_min
    unsorted_segment_prod unsorted_segment_sqrt_n unsorted_segment_sum xdivy xlog1py
    xlogy""".split(),
    'initializers': """constant global_variables glorot_normal glorot_uniform he_normal he_uniform identity
    lecun_normal lecun_uniform local_variables ones orthogonal random_normal
    random_uniform tables_initializer truncated_normal variables variance_scaling zeros""".split(),
    'summary': """FileWriter histogram merge merge_all scalar""".split(),
    'config': """LogicalDevice LogicalDeviceConfiguration PhysicalDevice experimental
    experimental_functions_run_eagerly experimental_run_functions_eagerly
    functions_run_eagerly get_logical_device_configuration get_soft_device_placement
    get_visible_devices list_logical_devices list_physical_devices run_functions_eagerly
    set_logical_device_configuration set_soft_device_placement set_visible_devices
    threading""".split(),
}

GRAPH_KEYS = {  # TF 2.21's tf.compat.v1.GraphKeys
    "ACTIVATIONS": "activations", "ASSET_FILEPATHS": "asset_filepaths", "BIASES": "biases",
    "CONCATENATED_VARIABLES": "concatenated_variables", "COND_CONTEXT": "cond_context",
    "EVAL_STEP": "eval_step", "GLOBAL_STEP": "global_step", "GLOBAL_VARIABLES": "variables",
    "INIT_OP": "init_op", "LOCAL_INIT_OP": "local_init_op", "LOCAL_RESOURCES": "local_resources",
    "LOCAL_VARIABLES": "local_variables", "LOSSES": "losses",
    "METRIC_VARIABLES": "metric_variables", "MODEL_VARIABLES": "model_variables",
    "MOVING_AVERAGE_VARIABLES": "moving_average_variables", "QUEUE_RUNNERS": "queue_runners",
    "READY_FOR_LOCAL_INIT_OP": "ready_for_local_init_op", "READY_OP": "ready_op",
    "REGULARIZATION_LOSSES": "regularization_losses", "RESOURCES": "resources",
    "SAVEABLE_OBJECTS": "saveable_objects", "SAVERS": "savers", "SUMMARIES": "summaries",
    "SUMMARY_OP": "summary_op", "TABLE_INITIALIZERS": "table_initializer",
    "TRAINABLE_RESOURCE_VARIABLES": "trainable_resource_variables",
    "TRAINABLE_VARIABLES": "trainable_variables", "TRAIN_OP": "train_op",
    "UPDATE_OPS": "update_ops", "VARIABLES": "variables", "WEIGHTS": "weights",
    "WHILE_CONTEXT": "while_context"}


@pytest.mark.parametrize("space", sorted(PRESENT))
def test_tf_compat_v1_names_resolve(space):
    module = dg.compat.v1 if not space else getattr(dg.compat.v1, space)
    missing = [name for name in PRESENT[space] if not hasattr(module, name)]
    assert not missing, f"dg.compat.v1.{space} lacks {missing}"


def test_graph_keys_are_tf_strings():
    assert {k: getattr(dg.compat.v1.GraphKeys, k) for k in GRAPH_KEYS} == GRAPH_KEYS


def test_tf1_names_are_tf1_functions_not_tf2_ones():
    v1 = dg.compat.v1
    assert v1.matrix_inverse is dg.linalg.inv and v1.lin_space is dg.linspace
    assert v1.initializers.random_normal().stddev == 1.0            # TF1's default
    assert dg.initializers.RandomNormal().stddev == 0.05             # Keras 3's
    assert v1.losses is not dg.losses and v1.nn.softmax_cross_entropy_with_logits is not \
        dg.nn.softmax_cross_entropy_with_logits
