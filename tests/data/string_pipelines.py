"""Datasets of strings, run on tf.data (to record) and on dg.data (to compare):
Python source over `D` (Dataset), `T` (the tensorflow or duograd module) and `np`.
as_numpy_iterator gives a scalar string as `bytes` and a string tensor as a NumPy
array of dtype object (as TF)."""
from pipelines import encode_spec  # noqa: F401 (specs encode as in pipelines.py)

STRING_CASES = {
    "slices": "D.from_tensor_slices(['a', 'bc'])",
    "slices_bytes": "D.from_tensor_slices([b'x', b'\\xff\\x00y'])",
    "slices_unicode": "D.from_tensor_slices(['\\u00e9t\\u00e9', 'z'])",
    "slices_2d": "D.from_tensor_slices([['a', 'b'], ['c', 'd']])",
    "slices_numpy_object": "D.from_tensor_slices(np.array([b'p', b'qq'], dtype=object))",
    "slices_constant": "D.from_tensor_slices(T.constant(['k', 'l', 'm']))",
    "slices_tuple": "D.from_tensor_slices((['a', 'bc'], [1, 2]))",
    "slices_dict": "D.from_tensor_slices({'s': ['a', 'b'], 'n': [1.0, 2.0]})",
    "tensors_scalar": "D.from_tensors('abc')",
    "tensors_vector": "D.from_tensors(['a', 'b'])",
    "map_upper": "D.from_tensor_slices(['a', 'bc']).map(T.strings.upper)",
    "map_lower": "D.from_tensor_slices(['AB', 'c']).map(T.strings.lower)",
    "map_length": "D.from_tensor_slices(['a', 'bcd']).map(T.strings.length)",
    "map_join": "D.from_tensor_slices(['a', 'b']).map(lambda s: T.strings.join([s, s], separator='-'))",
    "map_add": "D.from_tensor_slices(['a', 'b']).map(lambda s: s + '!')",
    "map_to_number": "D.from_tensor_slices(['1.5', '-2']).map(T.strings.to_number)",
    "map_as_string": "D.range(3).map(T.strings.as_string)",
    "map_regex": "D.from_tensor_slices(['ab1', 'cd']).map(lambda s: T.strings.regex_full_match(s, '[a-z]+'))",
    "map_pair": "D.from_tensor_slices((['a', 'b'], [1, 2])).map(lambda s, n: (T.strings.upper(s), n * 2))",
    "map_parallel": "D.from_tensor_slices(['a', 'b', 'c', 'd']).map(T.strings.upper, num_parallel_calls=2)",
    "map_batch": "D.from_tensor_slices(['a', 'bc', 'def']).map(T.strings.upper).batch(2)",
    "batch": "D.from_tensor_slices(['a', 'bc', 'd']).batch(2)",
    "batch_drop": "D.from_tensor_slices(['a', 'bc', 'd']).batch(2, drop_remainder=True)",
    "batch_then_reduce_join": "D.from_tensor_slices(['a', 'bc', 'd']).batch(2).map(lambda b: T.strings.reduce_join(b))",
    "padded_batch": "D.from_tensor_slices([['a'], ['b']]).padded_batch(2, padded_shapes=[2])",
    "unbatch": "D.from_tensors(['a', 'bc', 'd']).unbatch()",
    "filter": "D.from_tensor_slices(['a', 'bc', 'd', 'ef']).filter(lambda s: T.strings.length(s) > 1)",
    "filter_equal": "D.from_tensor_slices(['a', 'b', 'a']).filter(lambda s: T.equal(s, 'a'))",
    "zip": "D.zip((D.from_tensor_slices(['a', 'b']), D.range(2)))",
    "enumerate": "D.from_tensor_slices(['x', 'y']).enumerate()",
    "concatenate": "D.from_tensor_slices(['a']).concatenate(D.from_tensor_slices(['b', 'c']))",
    "repeat_take": "D.from_tensor_slices(['a', 'b']).repeat().take(5)",
    "skip_shard": "D.from_tensor_slices(['a', 'b', 'c', 'd', 'e']).skip(1).shard(2, 0)",
    "unique": "D.from_tensor_slices(['a', 'b', 'a', 'c', 'b']).unique()",
    "cache": "D.from_tensor_slices(['a', 'b']).cache().repeat(2)",
    "prefetch": "D.from_tensor_slices(['a', 'b']).prefetch(1)",
    "window": "D.from_tensor_slices(['a', 'b', 'c']).window(2).flat_map(lambda w: w.batch(2))",
    "interleave": "D.from_tensor_slices(['a', 'b']).interleave(lambda s: D.from_tensors(s).repeat(2), cycle_length=2)",
    "scan": "D.from_tensor_slices(['a', 'b', 'c']).scan(T.constant(''), lambda acc, s: (acc + s, acc + s))",
    "generator_str": "D.from_generator(lambda: iter(['a', 'bc']), output_signature=T.TensorSpec((), T.string))",
    "generator_bytes": "D.from_generator(lambda: iter([b'a', b'\\x00']), output_signature=T.TensorSpec((), T.string))",
    "generator_vector": "D.from_generator(lambda: iter([['a', 'b'], ['c']]), output_signature=T.TensorSpec((None,), T.string))",
    "generator_types": "D.from_generator(lambda: iter(['q']), output_types=T.string, output_shapes=())",
    "generator_tuple_batch": "D.from_generator(lambda: iter([('a', 1), ('b', 2), ('c', 3)]), output_signature=(T.TensorSpec((), T.string), T.TensorSpec((), T.int32))).batch(2)",
}


def encode(value):
    """An element (bytes, NumPy values, nests) as JSON-able data that keeps the type:
    bytes, and arrays with their dtype kind (object for strings)."""
    if isinstance(value, dict):
        return {"dict": {k: encode(v) for k, v in sorted(value.items())}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    import numpy as np
    if isinstance(value, np.ndarray) and value.dtype == object:
        return {"strings": [encode(v) for v in value.ravel().tolist()],
                "shape": list(value.shape)}
    array = np.asarray(value)
    return {"type": type(value).__name__, "dtype": array.dtype.name, "shape": list(array.shape),
            "value": array.tolist()}
