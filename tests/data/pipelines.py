"""Pipelines run on tf.data (to record) and on dg.data (to compare): Python source
over `D` (the Dataset class), `T` (the tensorflow or duograd module) and `np`.

`ELEMENT_CASES` record element_spec, cardinality and the element sequence;
`ERROR_CASES` record the exception class (and message) of building or iterating.
"""
import numpy as np

ELEMENT_CASES = {
    "slices_tuple": "D.from_tensor_slices(([1, 2, 3], np.array([4., 5., 6.])))",
    "slices_dict": "D.from_tensor_slices({'a': [1, 2], 'b': np.array([[1., 2.], [3., 4.]], np.float32)})",
    "slices_nested": "D.from_tensor_slices(((np.arange(4).reshape(2, 2), [True, False]), {'z': [0.5, 1.5]}))",
    "slices_list_is_a_tensor": "D.from_tensor_slices([[1, 2], [3, 4], [5, 6]])",
    "slices_eager_tensor": "D.from_tensor_slices(T.constant([[1.0, 2.0]]))",
    "tensors_one_element": "D.from_tensors(([1, 2], 3.0))",
    "range_stop": "D.range(5)",
    "range_start_stop_step": "D.range(2, 11, 3)",
    "range_negative_step": "D.range(5, 0, -2)",
    "range_empty": "D.range(0)",
    "range_int32": "D.range(3, output_type=T.int32)",
    "zip_tuple": "D.zip((D.range(3), D.range(10, 15)))",
    "zip_positional": "D.zip(D.range(3), D.from_tensor_slices([1.0, 2.0]))",
    "zip_dict": "D.zip({'x': D.range(2), 'y': D.range(5, 8)})",
    "concatenate": "D.range(3).concatenate(D.range(10, 12))",
    "concatenate_relaxes_shape": "D.from_tensors([1, 2]).concatenate(D.from_tensors([3]))",
    "map_scalar": "D.range(5).map(lambda x: x * 2 + 1)",
    "map_tuple_unpacked": "D.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: a + b)",
    "map_returns_tuple": "D.range(3).map(lambda x: (x, T.cast(x, T.float32) / 2.0))",
    "map_dict": "D.from_tensor_slices({'a': [1, 2]}).map(lambda d: {'b': d['a'] * 3, 'c': d['a']})",
    "map_returns_python_list": "D.range(3).map(lambda x: [x, x + 1])",
    "map_parallel_deterministic": "D.range(20).map(lambda x: x * x, num_parallel_calls=4)",
    "map_autotune": "D.range(20).map(lambda x: x + 1, num_parallel_calls=T.data.AUTOTUNE)",
    "filter": "D.range(10).filter(lambda x: T.equal(x % 3, 0))",
    "batch": "D.range(10).batch(4)",
    "batch_drop_remainder": "D.range(10).batch(4, drop_remainder=True)",
    "batch_tuple": "D.from_tensor_slices((np.arange(6).reshape(3, 2), [1., 2., 3.])).batch(2)",
    "batch_of_batches": "D.range(8).batch(2).batch(2)",
    "padded_batch": "D.range(1, 5).map(lambda x: T.fill(T.reshape(x, [1]), x)).padded_batch(2)",
    "padded_batch_shapes_values": "D.range(1, 4).map(lambda x: T.fill(T.reshape(x, [1]), x)).padded_batch(2, padded_shapes=[4], padding_values=T.constant(-1, T.int64))",
    "padded_batch_drop": "D.range(1, 4).map(lambda x: T.fill(T.reshape(x, [1]), x)).padded_batch(2, drop_remainder=True)",
    "unbatch": "D.range(7).batch(3).unbatch()",
    "unbatch_tuple": "D.from_tensors((np.arange(6).reshape(3, 2), np.array([1., 2., 3.]))).unbatch()",
    "rebatch": "D.range(10).batch(4).rebatch(3)",
    "rebatch_drop": "D.range(10).batch(4).rebatch(3, drop_remainder=True)",
    "repeat": "D.range(3).repeat(2)",
    "repeat_zero": "D.range(3).repeat(0)",
    "repeat_forever_take": "D.range(3).repeat().take(7)",
    "take": "D.range(10).take(3)",
    "take_all": "D.range(4).take(-1)",
    "take_more": "D.range(4).take(10)",
    "skip": "D.range(10).skip(7)",
    "skip_all": "D.range(4).skip(-1)",
    "shard": "D.range(10).shard(3, 1)",
    "shard_last": "D.range(10).shard(3, 2)",
    "enumerate": "D.from_tensor_slices([7, 8, 9]).enumerate()",
    "enumerate_start": "D.range(3).enumerate(start=5)",
    "flat_map": "D.range(1, 4).flat_map(lambda x: D.range(x))",
    "flat_map_window": "D.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3))",
    "interleave_block2": "D.range(1, 4).interleave(lambda x: D.from_tensors(x).repeat(x + 1), cycle_length=2, block_length=2)",
    "interleave_block1": "D.range(1, 4).interleave(lambda x: D.from_tensors(x).repeat(x + 1), cycle_length=2, block_length=1)",
    "interleave_parallel": "D.range(1, 5).interleave(lambda x: D.range(x * 10, x * 10 + 3), cycle_length=3, block_length=2, num_parallel_calls=3)",
    "window_drop": "D.range(7).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))",
    "window_stride": "D.range(10).window(3, shift=3, stride=2).flat_map(lambda w: w.batch(3))",
    "window_tuple": "D.from_tensor_slices(([1, 2, 3], [4., 5., 6.])).window(2).flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))",
    "scan": "D.range(5).scan(T.constant(0, T.int64), lambda s, x: (s + x, s * 2))",
    "scan_tuple_state": "D.range(4).scan((T.constant(1, T.int64), T.constant(0.0)), lambda s, x: ((s[0] * 2, s[1] + 1.0), s[0] + x))",
    "cache_repeat": "D.range(4).cache().repeat(2)",
    "prefetch": "D.range(6).prefetch(2)",
    "prefetch_autotune": "D.range(6).map(lambda x: x * 3).prefetch(-1)",
    "take_while": "D.range(10).take_while(lambda x: x < 4)",
    "unique": "D.from_tensor_slices([1, 2, 1, 3, 2, 3, 4]).unique()",
    "apply": "D.range(6).apply(lambda ds: ds.filter(lambda x: x > 2))",
    "with_options": "D.range(5).map(lambda x: x + 1, num_parallel_calls=2).with_options(T.data.Options())",
    "from_generator_signature": "D.from_generator(lambda: iter([(1, [1.0]), (2, [2.0, 3.0])]), output_signature=(T.TensorSpec([], T.int32), T.TensorSpec([None], T.float32)))",
    "from_generator_types": "D.from_generator(lambda: iter([1, 2, 3]), output_types=T.int64, output_shapes=[])",
    "from_generator_args": "D.from_generator(lambda n: iter(range(int(n))), output_signature=T.TensorSpec([], T.int32), args=(4,))",
    "assert_cardinality": "D.range(3).apply(T.data.experimental.assert_cardinality(3))",
    "image_like": "D.from_tensor_slices((np.arange(24, dtype=np.float32).reshape(6, 2, 2), np.arange(6))).map(lambda x, y: (x / 255.0, y)).batch(4, drop_remainder=True)",
    "filter_then_batch_cardinality": "D.range(10).filter(lambda x: x > 4).batch(2)",
    "shuffle_then_batch_card": "D.range(10).shuffle(3, seed=1).batch(3).map(lambda b: T.shape(b)[0])",
    "counter_take": "D.counter(3).take(4)",
    "padded_batch_dict": "D.range(1, 4).map(lambda x: {'v': T.fill(T.reshape(x, [1]), x), 'n': x}).padded_batch(2)",
    "generator_dict_signature": "D.from_generator(lambda: iter([{'a': 1, 'b': [1.0, 2.0]}, {'a': 2, 'b': [3.0, 4.0]}]), output_signature={'a': T.TensorSpec([], T.int32), 'b': T.TensorSpec([2], T.float32)}).batch(2)",
    "zip_nested": "D.zip((D.range(3), (D.range(3, 6), D.range(6, 9))))",
    "map_filter_batch_repeat": "D.range(12).map(lambda x: x * 3).filter(lambda x: T.equal(x % 2, 0)).batch(2).repeat(2)",
    "shard_then_batch": "D.range(20).shard(4, 3).batch(2, drop_remainder=True)",
    "skip_take_window": "D.range(20).skip(3).take(10).window(4, shift=3, drop_remainder=True).flat_map(lambda w: w.batch(4))",
    "unbatch_map": "D.from_tensor_slices(np.arange(12).reshape(3, 4)).unbatch().map(lambda x: x + 100).batch(5)",
    "interleave_cycle1": "D.range(3).interleave(lambda x: D.range(x * 10, x * 10 + 2), cycle_length=1)",
    "scan_running_mean": "D.from_tensor_slices([2.0, 4.0, 6.0]).scan((T.constant(0.0), T.constant(0.0)), lambda s, x: ((s[0] + x, s[1] + 1.0), (s[0] + x) / (s[1] + 1.0)))",
    "slices_from_slices_of_tuple_of_lists": "D.from_tensor_slices(([[1, 2], [3, 4]], [[5.0], [6.0]]))",
    "rebatch_larger": "D.range(7).batch(2).rebatch(5)",
}

# built lazily in the test: the dataset's cardinality only (no elements)
CARDINALITY_CASES = {
    "repeat_forever": "D.range(3).repeat()",
    "repeat_forever_filter": "D.range(3).repeat().filter(lambda x: x > 0)",
    "repeat_forever_batch": "D.range(3).repeat().batch(2)",
    "repeat_forever_skip": "D.range(3).repeat().skip(2)",
    "zip_infinite_finite": "D.zip((D.range(3).repeat(), D.range(4)))",
    "concat_infinite": "D.range(3).concatenate(D.range(2).repeat())",
    "generator": "D.from_generator(lambda: iter([1]), output_types=T.int32)",
    "filter": "D.range(3).filter(lambda x: x > 0)",
    "shuffle": "D.range(7).shuffle(3)",
    "take_of_unknown": "D.range(9).filter(lambda x: x > 0).take(2)",
    "take_of_infinite": "D.range(3).repeat().take(5)",
    "shard_of_infinite": "D.range(3).repeat().shard(2, 0)",
    "window": "D.range(7).window(3, shift=2)",
    "window_drop": "D.range(7).window(3, shift=2, drop_remainder=True)",
    "interleave": "D.range(3).interleave(lambda x: D.range(x), cycle_length=2)",
    "unbatch_known": "D.range(8).batch(4, drop_remainder=True).unbatch()",
    "counter": "D.counter()",
    "assert_then_batch": "D.range(9).filter(lambda x: x > 0).apply(T.data.experimental.assert_cardinality(8)).batch(3)",
}

ERROR_CASES = {
    "slices_mismatched_sizes": "D.from_tensor_slices(([1, 2, 3], [4, 5]))",
    "slices_scalar": "D.from_tensor_slices(3)",
    "batch_different_shapes": "list(D.range(1, 4).map(lambda x: T.fill(T.reshape(x, [1]), x)).batch(2))",
    "concatenate_incompatible": "D.range(3).concatenate(D.from_tensor_slices([1.0]))",
    "filter_not_bool": "D.range(3).filter(lambda x: x)",
    "shard_index_too_big": "D.range(3).shard(2, 2)",
    "shard_zero": "D.range(3).shard(0, 0)",
    "batch_size_zero": "list(D.range(3).batch(0))",
    "assert_cardinality_too_few": "list(D.range(3).apply(T.data.experimental.assert_cardinality(5)))",
    "assert_cardinality_too_many": "list(D.range(6).apply(T.data.experimental.assert_cardinality(4)))",
    "len_infinite": "len(D.range(3).repeat())",
    "len_unknown": "len(D.range(3).filter(lambda x: x > 0))",
    "generator_wrong_structure": "list(D.from_generator(lambda: iter([(1, 2)]), output_signature=T.TensorSpec([], T.int32)))",
    "generator_wrong_shape": "list(D.from_generator(lambda: iter([[1, 2]]), output_signature=T.TensorSpec([3], T.int32)))",
    "generator_both_signatures": "D.from_generator(lambda: iter([1]), output_types=T.int32, output_signature=T.TensorSpec([], T.int32))",
    "get_next_at_end": "(lambda it: (next(it), it.get_next()))(iter(D.range(1)))",
    "next_at_end": "(lambda it: (next(it), next(it)))(iter(D.range(1)))",
    "unbatch_scalar": "D.range(3).unbatch()",
    "zip_not_dataset": "D.zip((D.range(3), [1, 2]))",
    "unique_float": "D.from_tensor_slices([1.0, 2.0]).unique()",
    "apply_not_dataset": "D.range(3).apply(lambda ds: 3)",
    "padded_batch_too_small": "list(D.range(1, 4).map(lambda x: T.fill(T.reshape(x, [1]), x)).padded_batch(2, padded_shapes=[2]))",
    "scan_state_dtype_changes": "D.range(3).scan(T.constant(0, T.int32), lambda s, x: (T.cast(s, T.float32), x))",
    "map_error_at_element": "list(D.from_tensor_slices([1.0, 2.0, -1.0, 4.0]).map(lambda x: T.debugging.check_numerics(T.math.log(x), 'bad')))",
}


def encode(value):
    """A dataset element as JSON-able data: nesting, dtype, shape and values."""
    if isinstance(value, dict):
        return {"dict": {k: encode(v) for k, v in sorted(value.items())}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    array = np.asarray(value)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def encode_spec(spec):
    """An element_spec as JSON-able data (TF's and duograd's specs encode alike)."""
    if isinstance(spec, dict):
        return {"dict": {k: encode_spec(v) for k, v in sorted(spec.items())}}
    if isinstance(spec, tuple):
        return {"tuple": [encode_spec(v) for v in spec]}
    return {"dtype": spec.dtype.name,
            "shape": spec.shape.as_list() if spec.shape.rank is not None else None}
