"""Pipelines whose elements raise, run on tf.data (to record) and on dg.data (to
compare): which element raises, its class, and what comes after it (TF's iterator
goes on after an element's error). Python source over `D` (Dataset), `T` (the
tensorflow or duograd module), `B(k)` (a map function raising check_numerics'
InvalidArgumentError at the element k) and `P(k, error)` (a map function whose
py_function raises the Python `error` at the element k).
"""

SEQUENCE_CASES = {
    "padded_batch": "D.range(5).map(B(2)).padded_batch(2)",
    "padded_batch_mid": "D.range(7).map(B(3)).padded_batch(2)",
    "padded_batch_of_3": "D.range(7).map(B(4)).padded_batch(3)",
    "padded_batch_drop": "D.range(7).map(B(3)).padded_batch(2, drop_remainder=True)",
    "batch_not_fused": "D.range(7).map(B(3)).prefetch(1).batch(2)",
    "batch_fused": "D.range(7).map(B(3)).batch(2)",
    "zip": "D.zip((D.range(5).map(B(2)), D.range(10)))",
    "zip_second": "D.zip((D.range(10), D.range(5).map(B(2))))",
    "zip_both": "D.zip((D.range(5).map(B(1)), D.range(5).map(B(3))))",
    "zip_same_place": "D.zip((D.range(5).map(B(2)), D.range(5).map(B(2))))",
    "zip_ends_first": "D.zip((D.range(2), D.range(5).map(B(2))))",
    "zip_ends_after": "D.zip((D.range(5).map(B(2)), D.range(2)))",
    "zip_dict": "D.zip({'a': D.range(4).map(B(1)), 'b': D.range(4)})",
    "enumerate": "D.range(5).map(B(2)).enumerate()",
    "enumerate_start": "D.range(5).map(B(0)).enumerate(start=3)",
    "interleave": "D.range(2).interleave(lambda i: D.range(5).map(B(2)), cycle_length=2)",
    "interleave_block2": "D.range(2).interleave(lambda i: D.range(5).map(B(1)), cycle_length=2, block_length=2)",
    "interleave_parallel": "D.range(2).interleave(lambda i: D.range(5).map(B(2)), cycle_length=2, num_parallel_calls=2)",
    "interleave_parallel_block2": "D.range(2).interleave(lambda i: D.range(5).map(B(1)), cycle_length=2, block_length=2, num_parallel_calls=2)",
    "interleave_cycle1": "D.range(2).interleave(lambda i: D.range(3).map(B(1)), cycle_length=1)",
    "interleave_input_error": "D.range(5).map(B(2)).interleave(lambda x: D.from_tensors(x).repeat(2), cycle_length=2)",
    "flat_map": "D.range(2).flat_map(lambda i: D.range(5).map(B(2)))",
    "flat_map_input_error": "D.range(4).map(B(1)).flat_map(lambda x: D.from_tensors(x).repeat(2))",
    "cache": "D.range(5).map(B(2)).cache()",
    "cache_then_repeat": "D.range(5).map(B(2)).cache().repeat(2)",
    "skip": "D.range(5).map(B(2)).skip(1)",
    "skip_over_the_error": "D.range(5).map(B(2)).skip(3)",
    "skip_error_second": "D.range(6).map(B(1)).skip(2)",
    "skip_error_first": "D.range(6).map(B(0)).skip(2)",
    "skip_all": "D.range(6).map(B(1)).skip(-1)",
    "shard": "D.range(5).map(B(2)).shard(2, 0)",
    "shard_error_skipped": "D.range(9).map(B(1)).shard(3, 0)",
    "shard_error_taken": "D.range(9).map(B(1)).shard(3, 1)",
    "concatenate": "D.range(3).map(B(1)).concatenate(D.range(2).map(B(0)))",
    "window": "D.range(5).map(B(2)).window(2).flat_map(lambda w: w)",
    "window_of_3": "D.range(9).map(B(2)).window(3).flat_map(lambda w: w.batch(3))",
    "window_shift": "D.range(6).map(B(2)).window(2, shift=1).flat_map(lambda w: w.batch(2))",
    "take_while": "D.range(5).map(B(2)).take_while(lambda x: x < 100.0)",
    "scan": "D.range(5).map(B(1)).scan(T.constant(0.0), lambda s, x: (s + x, s))",
    "unique": "D.range(6).map(lambda y: y % 3).map(B(1)).map(lambda z: T.cast(z, T.int64)).unique()",
    "assert_cardinality": "D.range(4).map(B(1)).apply(T.data.experimental.assert_cardinality(3))",
    "rebatch": "D.range(5).map(B(2)).batch(2).rebatch(1)",
    "shuffle_one": "D.range(5).map(B(2)).shuffle(1)",
    "prefetch_zip": "D.zip((D.range(5).map(B(2)).prefetch(2), D.range(5)))",
    "with_options": "D.range(5).map(B(2)).with_options(T.data.Options()).padded_batch(2)",
    "py_function_value_error": "D.range(4).map(P(2, ValueError)).padded_batch(1)",
    "py_function_runtime_error": "D.range(4).map(P(2, RuntimeError)).skip(1)",
    "py_function_key_error": "D.zip((D.range(4).map(P(1, KeyError)), D.range(4)))",
    "py_function_not_implemented": "D.range(4).map(P(2, NotImplementedError)).cache()",
    # a stage's own error at an element: the iteration goes on after it
    "scan_function_error": "D.range(5).scan(T.constant(0.0), lambda s, x: (s + B(2)(x), s + B(2)(x)))",
    "take_while_predicate_error": "D.range(5).take_while(lambda x: B(2)(x) < 100.0)",
    "batch_shapes_differ": "D.range(1, 6).map(lambda x: T.fill(T.reshape(T.minimum(x, 3), [1]), x)).batch(2)",
    "padded_batch_too_small": "D.range(1, 6).map(lambda x: T.fill(T.reshape(x, [1]), x)).padded_batch(1, padded_shapes=[3])",
    "flat_map_function_error": "D.range(4).flat_map(lambda x: D.from_tensors(B(2)(x)))",
    "filter_predicate_in_zip": "D.zip((D.range(5).filter(lambda x: B(2)(x) > -100.0), D.range(5)))",
    "padded_batch_ignore": "D.range(5).map(B(2)).padded_batch(2).ignore_errors()",
    "zip_ignore": "D.zip((D.range(5).map(B(2)), D.range(10))).ignore_errors()",
    "interleave_ignore": "D.range(2).interleave(lambda i: D.range(5).map(B(2)), cycle_length=2).ignore_errors()",
    "cache_ignore": "D.range(5).map(B(2)).cache().ignore_errors()",
    "skip_ignore": "D.range(5).map(B(2)).skip(1).ignore_errors()",
    "enumerate_ignore": "D.range(5).map(B(2)).enumerate().ignore_errors()",
}

# run inside a function (`for x in dataset` accumulating every component): the
# error class the call raises, and, with ignore_errors(), the total
FUNCTION_CASES = ["padded_batch", "zip", "enumerate", "interleave", "cache", "skip", "shard",
                  "window_of_3", "py_function_runtime_error"]


def make_helpers(T):
    """B and P for the module T (tensorflow or duograd)."""
    def B(k):
        def inverse(x):
            return T.debugging.check_numerics(1.0 / (T.cast(x, T.float32) - float(k)), "bad")
        return inverse

    def P(k, error):
        def raising(x):
            if int(x.numpy()) == k:
                raise error("raised by the test")
            return x

        def call(x):
            y = T.py_function(raising, [x], T.int64)
            y.set_shape(())
            return y
        return call
    return B, P


def plain(value):
    """An element (tensors, NumPy values, nests of them) as JSON-able lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    value = value.numpy() if hasattr(value, "numpy") else value
    return value.tolist() if hasattr(value, "tolist") else value


def drain(iterator, limit=24):
    """next() until the end: elements, the class names of errors, then 'STOP'."""
    out = []
    for _ in range(limit):
        try:
            out.append(plain(next(iterator)))
        except StopIteration:
            out.append("STOP")
            break
        except Exception as error:  # noqa: BLE001 - recording what the iterator raises
            out.append(type(error).__name__)
    return out


def drain_session(session, next_value, limit=24):
    """session.run(get_next) until OutOfRangeError ('END'): elements and error classes."""
    out = []
    for _ in range(limit):
        try:
            out.append(plain(session.run(next_value)))
        except Exception as error:  # noqa: BLE001 - recording what the run raises
            if type(error).__name__ == "OutOfRangeError":
                out.append("END")
                break
            out.append(type(error).__name__)
    return out
