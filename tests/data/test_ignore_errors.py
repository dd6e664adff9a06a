"""An element's error does not end the iteration (as TF's iterator), and
ignore_errors() drops the elements that raised. Sequences recorded from TF 2.21
(eager iteration, `next()` after each error)."""
import logging

import pytest

import duograd as dg

D = dg.data.Dataset


def inverse(x):
    """Raises InvalidArgumentError (check_numerics) for x == 2."""
    return dg.debugging.check_numerics(1.0 / dg.cast(x - 2, dg.float32), "boom")


def drain(dataset):
    iterator, out = iter(dataset), []
    for _ in range(12):
        try:
            out.append(next(iterator).numpy().tolist())
        except StopIteration:
            out.append("STOP")
            break
        except dg.errors.OpError as error:
            out.append(type(error).__name__)
    return out


def generator_failing_after_one():
    yield 1
    raise ValueError("gen")


CASES = {   # TF 2.21's sequences
    "map": (lambda: D.range(5).map(inverse),
            [-0.5, -1.0, "InvalidArgumentError", 1.0, 0.5, "STOP"]),
    "parallel_map": (lambda: D.range(5).map(inverse, num_parallel_calls=2),
                     [-0.5, -1.0, "InvalidArgumentError", 1.0, 0.5, "STOP"]),
    "map_prefetch": (lambda: D.range(5).map(inverse).prefetch(2),
                     [-0.5, -1.0, "InvalidArgumentError", 1.0, 0.5, "STOP"]),
    "map_batch": (lambda: D.range(5).map(inverse).batch(2),
                  [[-0.5, -1.0], "InvalidArgumentError", [0.5], "STOP"]),
    "filter": (lambda: D.range(5).filter(lambda x: inverse(x) > 0),
               ["InvalidArgumentError", 3, 4, "STOP"]),
    "ignore_errors": (lambda: D.range(5).map(inverse).ignore_errors(),
                      [-0.5, -1.0, 1.0, 0.5, "STOP"]),
    "ignore_then_batch": (lambda: D.range(5).map(inverse).ignore_errors().batch(2),
                          [[-0.5, -1.0], [1.0, 0.5], "STOP"]),
    "experimental_ignore_errors": (
        lambda: D.range(5).map(inverse).apply(dg.data.experimental.ignore_errors()),
        [-0.5, -1.0, 1.0, 0.5, "STOP"]),
    "parallel_ignore": (lambda: D.range(5).map(inverse, num_parallel_calls=2)
                        .prefetch(1).ignore_errors(), [-0.5, -1.0, 1.0, 0.5, "STOP"]),
    "take": (lambda: D.range(5).map(inverse).take(3),
             [-0.5, -1.0, "InvalidArgumentError", 1.0, "STOP"]),
    "repeat": (lambda: D.range(5).map(inverse).repeat(2),
               [-0.5, -1.0, "InvalidArgumentError", 1.0, 0.5] * 2 + ["STOP"]),
    "unbatch": (lambda: D.range(5).map(inverse).batch(2).unbatch(),
                [-0.5, -1.0, "InvalidArgumentError", 0.5, "STOP"]),
    "generator": (lambda: D.from_generator(
        generator_failing_after_one, output_signature=dg.TensorSpec([], dg.int32)),
        [1, "InvalidArgumentError", "STOP"]),
    "generator_ignore": (lambda: D.from_generator(
        generator_failing_after_one, output_signature=dg.TensorSpec([], dg.int32))
        .ignore_errors(), [1, "STOP"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_iteration_goes_on_after_an_element_error_as_tf(name):
    make, expected = CASES[name]
    assert drain(make()) == expected


def test_ignore_errors_structure_and_warning(caplog):
    dataset = D.range(5).map(inverse).ignore_errors(log_warning=True)
    assert dataset.element_spec == dg.TensorSpec([], dg.float32)     # TF: same
    assert int(dataset.cardinality()) == dg.data.UNKNOWN_CARDINALITY  # TF: -2
    with caplog.at_level(logging.WARNING, logger="duograd.data"):
        assert drain(dataset) == [-0.5, -1.0, 1.0, 0.5, "STOP"]
    assert any("Tensor had Inf values" in r.getMessage() for r in caplog.records)


def test_ignore_errors_inside_a_function_and_in_a_session():
    @dg.function
    def total(dataset):
        t = dg.constant(0.0)
        for x in dataset:
            t += x
        return t
    # TF 2.21: 0.3333333432674408 (-0.5 - 1 + 1 + 0.5 + 1/3 in float32)
    assert float(total(D.range(6).map(inverse).ignore_errors())) == 0.3333333432674408

    v1 = dg.compat.v1
    with dg.Graph().as_default():
        next_value = v1.data.make_one_shot_iterator(D.range(5).map(inverse)).get_next()
        out = []
        with v1.Session() as sess:
            for _ in range(6):
                try:
                    out.append(float(sess.run(next_value)))
                except dg.errors.OutOfRangeError:
                    out.append("END")
                    break
                except dg.errors.InvalidArgumentError:
                    out.append("error")
    assert out == [-0.5, -1.0, "error", 1.0, 0.5, "END"]   # TF 2.21 in a Session: the same


def test_shuffle_gives_an_error_out_while_filling_its_buffer_as_tf():
    # TF 2.21: ['InvalidArgumentError', -0.5, 0.5, -1.0, 1.0, 'STOP'] (its order)
    out = drain(D.range(5).map(inverse).shuffle(10, seed=1))
    assert out[0] == "InvalidArgumentError" and out[-1] == "STOP"
    assert sorted(out[1:-1]) == [-1.0, -0.5, 0.5, 1.0]
