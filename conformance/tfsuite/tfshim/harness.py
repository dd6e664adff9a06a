"""The parts of TensorFlow's test framework the test files use, written for
both backends on top of unittest/absltest:

  tensorflow.python.framework.test_util   TensorFlowTestCase and decorators
  tensorflow.python.platform.test         TestCase, main, is_gpu_available ...
  tensorflow.python.eager.test            (same)
  tensorflow.python.platform.googletest   main
  tensorflow.python.platform.tf_logging   logging
  tensorflow.python.util.compat           as_bytes / as_text
  tensorflow.python.util.nest             nest.py
  tensorflow.python.eager.context         executing_eagerly, eager_mode, graph_mode

Semantics follow TensorFlow 2.x's test_util (graph-mode sessions, evaluate,
assertAllClose on nested structures, run_in_graph_and_eager_modes running the
test twice), with these deliberate differences, listed in the report:
  * run_v1_only tests are run in graph mode (TF2 skips them); the runner tags
    them "v1-only" and counts them only where TensorFlow passes them.
  * leak checks (assert_no_new_tensors, ...) are no-ops.
  * decorators that switch TF implementation details (control flow v2,
    output_all_intermediates, quantized training, TFRT) are no-ops under dg
    and the real TensorFlow decorators under tf.
"""
from __future__ import annotations

import collections.abc
import contextlib
import functools
import inspect
import logging
import random
import re
import unittest
import unittest.mock
from typing import Any

import numpy as np
from absl.testing import absltest

from . import backend as backend_mod
from . import nest as nest_mod
from .proxy import ACCESSED, MissingAPI, ModuleProxy

DEFAULT_GRAPH_SEED = 87654321
P = "tensorflow.python."


def B():
    return backend_mod.get()


def _api(path: str) -> Any:
    return B().lookup(path)


def _eager() -> bool:
    return _api("executing_eagerly")()


def _mark(name: str) -> None:
    ACCESSED.add(name)


def _real_test_util():
    from tensorflow.python.framework import test_util as real  # only under tf
    return real


# ---------------------------------------------------------------------------
# graph / eager mode switches (tensorflow.python.eager.context)
# ---------------------------------------------------------------------------
@contextlib.contextmanager
def graph_mode():
    with _api("Graph")().as_default():
        yield


@contextlib.contextmanager
def eager_mode():
    if _eager():
        yield
        return
    cm = B().eager_mode_from_graph()
    if cm is None:
        raise MissingAPI(P + "eager.context.eager_mode",
                         detail=" (duograd cannot run eagerly inside a graph)")
    with cm:
        yield


def executing_eagerly() -> bool:
    return _eager()


# ---------------------------------------------------------------------------
# sessions as TensorFlowTestCase hands them out
# ---------------------------------------------------------------------------
class FakeEagerSession:
    """What cached_session() yields in eager mode: run() evaluates eagerly."""

    def __init__(self, test_case: "TensorFlowTestCase") -> None:
        self._test_case = test_case

    def run(self, fetches, *args, **kwargs):
        if kwargs.pop("feed_dict", None):
            raise RuntimeError("feed_dict is not supported when eager execution is enabled "
                               "(in this case, sess.run(t) is shorthand for t.numpy()")
        if args or kwargs:
            raise RuntimeError("Optional args are not supported when eager execution is enabled")
        return self._test_case.evaluate(fetches)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class EagerSessionWarner:
    def __getattr__(self, attr):
        raise AttributeError(
            "Trying to access properties or call methods on the result of self.session(), "
            "self.cached_session(), etc while eager execution is enabled.")


@contextlib.contextmanager
def _as_default(sess):
    with sess.graph.as_default(), sess.as_default():
        yield sess


# ---------------------------------------------------------------------------
# TensorFlowTestCase
# ---------------------------------------------------------------------------
class TensorFlowTestCase(absltest.TestCase):

    def __init__(self, methodName: str = "runTest") -> None:
        super().__init__(methodName)
        self._cached_session = None
        self._cached_graph = None

    # -- set up / tear down -------------------------------------------------
    def setUp(self) -> None:
        super().setUp()
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        if _eager():
            _api("reset_default_graph")()
            _api("random.set_seed")(DEFAULT_GRAPH_SEED)

    def tearDown(self) -> None:
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self) -> None:
        if self._cached_session is not None:
            try:
                self._cached_session.close()
            except Exception:  # noqa: BLE001
                pass
        self._cached_session = None
        self._cached_graph = None

    # -- sessions -----------------------------------------------------------
    def _get_cached_session(self, graph=None, config=None, crash_if_inconsistent_args=True):
        if self._cached_session is None:
            self._cached_session = B().new_session(graph, config)
            self._cached_graph = graph
            return self._cached_session
        if crash_if_inconsistent_args and self._cached_graph is not graph:
            raise ValueError("The graph used to get the cached session is different than the "
                             "one that was used to create the session. Maybe create a new "
                             "session with self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if _eager():
            yield FakeEagerSession(self)
        else:
            sess = self._get_cached_session(graph, config)
            with _as_default(sess) as s:
                yield s

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if _eager():
            yield EagerSessionWarner()
        else:
            with B().new_session(graph, config) as sess:
                with _as_default(sess) as s:
                    yield s

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        if _eager():
            yield None
        elif graph is None:
            sess = self._get_cached_session(graph, config, crash_if_inconsistent_args=False)
            with _as_default(sess) as s:
                yield s
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    # -- evaluate -------------------------------------------------------------
    def _eval_tensor(self, tensor):
        if tensor is None:
            return None
        if callable(tensor):
            return self._eval_helper(tensor())
        be = B()
        if be.is_indexed_slices(tensor):
            shape = tensor.dense_shape
            return be.indexed_slices_value(tensor.values.numpy(), tensor.indices.numpy(),
                                           None if shape is None else shape.numpy())
        numpy = getattr(tensor, "numpy", None)
        if callable(numpy):
            return numpy()
        raise ValueError(f"Unsupported type {type(tensor)!r}.")

    def _eval_helper(self, tensors):
        if tensors is None:
            return None
        return nest_mod.map_structure(self._eval_tensor, tensors)

    def evaluate(self, tensors):
        if _eager():
            return self._eval_helper(tensors)
        sess = _api("get_default_session")()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    # -- assertions -------------------------------------------------------------
    def _GetNdArray(self, a):
        be = B()
        if be.is_tensor_like(a):
            a = a.numpy() if be.is_eager_tensor(a) else self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                return np.array(a)
            except ValueError as e:
                if not str(e).startswith("setting an array element with a sequence"):
                    raise
                return np.array(a, dtype=object)
        return a

    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape,
                         f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg or ''}")
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "",
                                       equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol=1e-6, atol=1e-6, path=None, msg=None):
        path = path or []
        where = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg or ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{where} vs b{where}. {msg}")
        if a_is_dict:
            self.assertCountEqual(a.keys(), b.keys(), msg=f"mismatched keys at {where}. {msg}")
            for k in a:
                self._assertAllCloseRecursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)):
            try:
                a_arr = self._GetNdArray(a)
                b_arr = self._GetNdArray(b)
                self._assertArrayLikeAllClose(
                    a_arr, b_arr, rtol=rtol, atol=atol,
                    msg=f"Mismatched value: a{where} is different from b{where}. {msg}")
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{where} has {len(a)} items, but "
                                     f"b{where} has {len(b)} items. {msg}") from None
                for i, (x, y) in enumerate(zip(a, b)):
                    self._assertAllCloseRecursive(x, y, rtol, atol, path + [str(i)], msg)
        else:
            try:
                self._assertArrayLikeAllClose(
                    a, b, rtol=rtol, atol=atol,
                    msg=f"Mismatched value: a{where} is different from b{where}. {msg}")
            except TypeError as e:
                e.args = ((str(e.args[0]) if e.args else "") +
                          f" : Error: a{where} has {type(a)}, but b{where} has {type(b)}. {msg}",)
                raise

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if a.dtype == np.float32 or b.dtype == np.float32 or a.dtype == np.complex64 or \
                b.dtype == np.complex64:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements. %s" % (msg or ""))

    def assertAllEqual(self, a, b, msg=None):
        msg = msg or ""
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape}. "
                                           f"{msg}")
        same = a == b
        if a.dtype in (np.float16, np.float32, np.float64):
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            np.testing.assert_array_equal(a, b, err_msg=msg)

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError("The two values are equal at all elements. %s" % (msg or ""))

    def assertAllLess(self, a, comparison_target):
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreater(self, a, comparison_target):
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        "%f != %f +/- %f%s" % (f1, f2, err, " (%s)" % msg if msg else ""))

    def assertShapeEqual(self, input_a, input_b, msg=None):
        self.assertAllEqual(np.shape(input_a), input_b.shape.as_list(), msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):
        arrays = target if isinstance(target, list) else [target]
        for arr in arrays:
            self.assertEqual(self._GetNdArray(arr).dtype, expected_dtype)

    def assertItemsEqual(self, expected_seq, actual_seq, msg=None):
        return self.assertCountEqual(expected_seq, actual_seq, msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                return re.search(expected_err_re_or_predicate, str(e))
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError("Exception of type %s: %s" % (str(type(e)), str(e))) from e

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        return self.assertRaisesWithPredicateMatch(_api("errors.OpError"),
                                                   expected_err_re_or_predicate)

    def assertStartsWith(self, actual, expected_start, msg=None):
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r} {msg or ''}")

    def get_temp_dir(self):
        return self.create_tempdir().full_path


# ---------------------------------------------------------------------------
# decorators (tensorflow.python.framework.test_util)
# ---------------------------------------------------------------------------
def _method_or_class(deco_for_method):
    """Apply a method decorator to a test method, or to every test* of a class."""
    def apply(f):
        if inspect.isclass(f):
            for name, value in list(f.__dict__.items()):
                if callable(value) and name.startswith("test"):
                    setattr(f, name, deco_for_method(value))
            return f
        return deco_for_method(f)
    return apply


def _tag(f, tag):
    tags = set(getattr(f, "_tfsuite_tags", ()))
    tags.add(tag)
    f._tfsuite_tags = tags
    return f


_EXPLICIT_MODE = [False]   # True while run_in_graph_and_eager_modes picks the mode


def _in_graph(f):
    """Run `f` in graph mode, as TF1 ran every test, unless the mode is already
    chosen by run_in_graph_and_eager_modes or a graph is already being built."""
    @functools.wraps(f)
    def decorated(self, *args, **kwargs):
        if _EXPLICIT_MODE[0] or not _eager():
            return f(self, *args, **kwargs)
        with graph_mode():
            return f(self, *args, **kwargs)
    return decorated


def run_deprecated_v1(func=None):
    """Run the test in graph mode (TF2 behaviour of this decorator)."""
    deco = _method_or_class(_in_graph)
    return deco(func) if func is not None else deco


def run_v1_only(reason=None, func=None):
    """TF2 skips these tests; the harness runs them in graph mode and tags them."""
    if callable(reason) and func is None:
        reason, func = None, reason

    def method(f):
        return _tag(_in_graph(f), "v1-only")
    deco = _method_or_class(method)
    return deco(func) if func is not None else deco


def run_v2_only(func=None, reason=None):
    deco = _method_or_class(lambda f: f)
    return deco(func) if func is not None else deco


def _gpu_only(f):
    @functools.wraps(f)
    def decorated(self, *args, **kwargs):
        _mark(P + "framework.test_util.run_gpu_only")
        self.skipTest("Test requires GPU")
    return _tag(decorated, "gpu-only")


def run_gpu_only(func=None):
    deco = _method_or_class(_gpu_only)
    return deco(func) if func is not None else deco


run_cuda_only = run_gpu_only


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True,
                                 assert_no_eager_garbage=False):
    def decorator(f):
        if inspect.isclass(f):
            raise ValueError("`run_in_graph_and_eager_modes` only supports test methods. "
                             "Did you mean to use `run_all_in_graph_and_eager_modes`?")

        @functools.wraps(f)
        def decorated(self, *args, **kwargs):
            outer = _EXPLICIT_MODE[0]
            _EXPLICIT_MODE[0] = True
            try:
                return _both_modes(self, f, args, kwargs, config)
            finally:
                _EXPLICIT_MODE[0] = outer
        return decorated
    return decorator(func) if func is not None else decorator


def _both_modes(self, f, args, kwargs, config):
    """Graph mode first (inside test_session), then eager mode after a fresh
    setUp; a graph-mode failure does not stop the eager run (TF reports it as a
    subtest failure), and the first failure is the one raised."""
    graph_error = None
    try:
        with graph_mode():
            with self.test_session(config=config):
                f(self, *args, **kwargs)
    except unittest.SkipTest:
        pass
    except Exception as e:  # noqa: BLE001
        e._tfsuite_mode = "graph"
        graph_error = e
    self.tearDown()
    self.setUp()
    try:
        f(self, *args, **kwargs)
    except unittest.SkipTest:
        if graph_error is not None:
            raise graph_error from None
        raise
    except Exception as e:  # noqa: BLE001
        e._tfsuite_mode = "eager"
        if graph_error is not None:
            graph_error._tfsuite_also = e
            raise graph_error from None
        raise
    if graph_error is not None:
        raise graph_error


def run_all_in_graph_and_eager_modes(cls):
    for name in dir(cls):
        if (not name.startswith("test") or name.startswith("testSkipEager")
                or name.startswith("test_skip_eager") or name == "test_session"):
            continue
        value = getattr(cls, name, None)
        if callable(value):
            setattr(cls, name, run_in_graph_and_eager_modes(value))
    return cls


def _identity_decorator(func=None, **kwargs):
    if func is not None and callable(func):
        return func
    return lambda f: f


assert_no_new_tensors = _identity_decorator
assert_no_garbage_created = _identity_decorator
assert_no_new_pyobjects_executing_eagerly = _identity_decorator
disable_xla = lambda *a, **k: (lambda f: f)  # noqa: E731
disable_mlir_bridge = disable_xla
disable_tfrt = disable_xla
xla_allow_fallback = disable_xla


def with_eager_op_as_function(cls=None, only_as_function=False):
    """TF's test_util: returns the same class (TF 2.21 keeps it only for old call sites)."""
    def decorator(c):
        return c
    return decorator(cls) if cls is not None else decorator


def run_without_tensor_float_32(description):
    """TF's test_util: run the test with TensorFloat-32 matmuls disabled.  The shim
    runs on CPU, where TF never uses TensorFloat-32, so the test runs as written."""
    def decorator(f):
        @functools.wraps(f)
        def decorated(*args, **kwargs):
            f(*args, **kwargs)
        return decorated
    return decorator


def run_all_without_tensor_float_32(description):
    """TF's test_util: every test* method of the class without TensorFloat-32."""
    def decorator(cls):
        for name, value in list(cls.__dict__.items()):
            if callable(value) and name.startswith("test") and name != "test_session":
                setattr(cls, name, run_without_tensor_float_32(description)(value))
        return cls
    return decorator


def _tf_or_identity(real_name, marker=None):
    """A TF-implementation switch: the real TF decorator under tf, no-op under dg."""
    def deco(f):
        def wrapped_marker(g):
            if marker is None or inspect.isclass(g):
                return g

            @functools.wraps(g)
            def run(*args, **kwargs):
                _mark(marker)
                return g(*args, **kwargs)
            return run
        if B().name == "tf":
            return wrapped_marker(getattr(_real_test_util(), real_name)(f))
        return wrapped_marker(f)
    return deco


enable_control_flow_v2 = _tf_or_identity("enable_control_flow_v2")
enable_output_all_intermediates = _tf_or_identity(
    "enable_output_all_intermediates",
    P + "framework.test_util.enable_output_all_intermediates")
enable_quantized_dtypes_training = _tf_or_identity(
    "enable_quantized_dtypes_training",
    P + "framework.test_util.enable_quantized_dtypes_training")


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return False


def is_xla_enabled():
    _mark(P + "framework.test_util.is_xla_enabled")
    return False


def create_local_cluster(*args, **kwargs):
    _mark(P + "framework.test_util.create_local_cluster")
    if B().name == "tf":
        return _real_test_util().create_local_cluster(*args, **kwargs)
    raise MissingAPI(P + "framework.test_util.create_local_cluster", public=False)


class AbstractGradientTape:
    """A GradientTape, or (use_tape=False) a stand-in whose gradient() is
    `gradients()` -- the helper TF's test_util provides."""

    def __init__(self, use_tape, persistent=False):
        self._use_tape = use_tape
        self._persistent = persistent

    def __enter__(self):
        if self._use_tape:
            self._impl = _api("GradientTape")(persistent=self._persistent)
            return self._impl.__enter__()
        self._impl = None
        return _FakeGradientTape()

    def __exit__(self, *exc):
        if self._impl is not None:
            return self._impl.__exit__(*exc)
        return False


class _FakeGradientTape:
    def watch(self, x):
        pass

    def gradient(self, y, x, grad_ys=None):
        result = _api("gradients")(y, x, grad_ys)
        if not isinstance(x, (list, tuple)):
            assert len(result) == 1
            return result[0]
        return result


class Benchmark:
    """tf.test.Benchmark, as a base class only (benchmarks are not run)."""

    def report_benchmark(self, **kwargs):
        pass


def _main(argv=None):
    return absltest.main()


# ---------------------------------------------------------------------------
# the shim modules
# ---------------------------------------------------------------------------
class ShimModule(ModuleProxy):
    """Explicit attributes are the harness's; anything else resolves like a proxy
    (under tf: the real TensorFlow-internal attribute)."""


def _module(name, **attrs):
    m = ShimModule(name)
    for k, v in attrs.items():
        setattr(m, k, v)
    return m


def _compute_gradient(*args, **kwargs):
    return _api("compat.v2.test.compute_gradient")(*args, **kwargs)


_test_attrs = dict(
    TestCase=TensorFlowTestCase, main=_main, is_gpu_available=is_gpu_available,
    is_built_with_cuda=lambda: False, is_built_with_rocm=lambda: False,
    is_built_with_gpu_support=lambda: False, gpu_device_name=lambda: "",
    Benchmark=Benchmark, compute_gradient=_compute_gradient, mock=unittest.mock,
)

_logger = logging.getLogger("tfsuite.tf_logging")


def _as_bytes(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def _as_text(bytes_or_text, encoding="utf-8"):
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


SHIM = {
    P + "framework.test_util": _module(
        P + "framework.test_util",
        TensorFlowTestCase=TensorFlowTestCase,
        run_in_graph_and_eager_modes=run_in_graph_and_eager_modes,
        run_all_in_graph_and_eager_modes=run_all_in_graph_and_eager_modes,
        run_deprecated_v1=run_deprecated_v1, run_v1_only=run_v1_only,
        run_v2_only=run_v2_only, run_gpu_only=run_gpu_only, run_cuda_only=run_cuda_only,
        deprecated_graph_mode_only=run_deprecated_v1,
        assert_no_new_tensors=assert_no_new_tensors,
        assert_no_garbage_created=assert_no_garbage_created,
        assert_no_new_pyobjects_executing_eagerly=assert_no_new_pyobjects_executing_eagerly,
        disable_xla=disable_xla, disable_mlir_bridge=disable_mlir_bridge,
        disable_tfrt=disable_tfrt, xla_allow_fallback=xla_allow_fallback,
        enable_control_flow_v2=enable_control_flow_v2,
        enable_output_all_intermediates=enable_output_all_intermediates,
        enable_quantized_dtypes_training=enable_quantized_dtypes_training,
        is_gpu_available=is_gpu_available, is_xla_enabled=is_xla_enabled,
        create_local_cluster=create_local_cluster,
        AbstractGradientTape=AbstractGradientTape,
        with_eager_op_as_function=with_eager_op_as_function,
        run_without_tensor_float_32=run_without_tensor_float_32,
        run_all_without_tensor_float_32=run_all_without_tensor_float_32,
    ),
    P + "platform.test": _module(P + "platform.test", **_test_attrs),
    P + "eager.test": _module(P + "eager.test", **_test_attrs),
    P + "platform.googletest": _module(P + "platform.googletest", main=_main,
                                       TestCase=TensorFlowTestCase),
    P + "platform.tf_logging": _module(
        P + "platform.tf_logging", info=_logger.info, warning=_logger.warning,
        warn=_logger.warning, error=_logger.error, debug=_logger.debug, log=_logger.log,
        vlog=lambda level, msg, *a: _logger.debug(msg, *a)),
    P + "util.compat": _module(P + "util.compat", as_bytes=_as_bytes, as_text=_as_text,
                               as_str=_as_text),
    P + "util.nest": _module(
        P + "util.nest", flatten=nest_mod.flatten, map_structure=nest_mod.map_structure,
        pack_sequence_as=nest_mod.pack_sequence_as, is_nested=nest_mod.is_nested,
        is_sequence=nest_mod.is_sequence, assert_same_structure=nest_mod.assert_same_structure),
    P + "eager.context": _module(
        P + "eager.context", executing_eagerly=executing_eagerly, eager_mode=eager_mode,
        graph_mode=graph_mode),
}
