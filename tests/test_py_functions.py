# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""``tf.py_function`` and ``tf.numpy_function`` (``tapejax._src.py_functions``) side by side
with real TensorFlow: results and their conversion rules, py_function's gradients (its own
tape's), numpy_function inside ``tapejax.function`` as a host callback, and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


CALLS = [
    ("py single", lambda tf, x: tf.py_function(lambda a: a * 2, [x], tf.float32)),
    ("py list of one", lambda tf, x: tf.py_function(lambda a: a * 2, [x], [tf.float32])),
    (
        "py two",
        lambda tf, x: tf.py_function(
            lambda a: (a * 2, tf.cast(a, tf.int32)), [x], [tf.float32, tf.int32]
        ),
    ),
    ("py Python result", lambda tf, x: tf.py_function(lambda a: 3, [x], tf.float32)),
    ("py first of a list", lambda tf, x: tf.py_function(lambda a: [3, 4], [x], tf.float32)),
    ("py no result", lambda tf, x: tf.py_function(lambda a: None, [x], [])),
    ("py Python input", lambda tf, x: tf.py_function(lambda a, b: a + b, [x, 2.0], tf.float32)),
    ("py numpy inside", lambda tf, x: tf.py_function(lambda a: a.numpy() ** 2, [x], tf.float32)),
    ("np single", lambda tf, x: tf.numpy_function(lambda a: a * 2, [x], tf.float32)),
    (
        "np Tout not enforced eagerly",
        lambda tf, x: tf.numpy_function(lambda a: (a * 2).astype(np.int32), [x], tf.float32),
    ),
    ("np a list result", lambda tf, x: tf.numpy_function(lambda a: [1, 2], [x], tf.int32)),
    (
        "np two",
        lambda tf, x: tf.numpy_function(lambda a: (a, a + 1), [x], [tf.float32, tf.float32]),
    ),
    (
        "np no input",
        lambda tf, x: tf.numpy_function(lambda: np.ones(2, np.float32), [], tf.float32),
    ),
    (
        "np sees NumPy",
        lambda tf, x: tf.numpy_function(
            lambda a: np.float32(isinstance(a, np.ndarray)), [x], tf.float32
        ),
    ),
]


@pytest.mark.parametrize("what, call", CALLS, ids=[c[0] for c in CALLS])
def test_eager_results_are_tfs(what, call):
    x = np.array([1.0, 2.0], np.float32)
    got, want = call(tapejax, tapejax.constant(x)), call(tensorflow, tensorflow.constant(x))
    assert isinstance(got, list) == isinstance(want, list)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert g.dtype.name == w.dtype.name and g.shape == tuple(w.shape)
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_decorators_are_tfs():
    for fw in (tapejax, tensorflow):

        @fw.py_function(Tout=fw.float32)
        def g(a):
            return a + 1

        @fw.numpy_function(Tout=fw.float32)
        def h(a):
            return a * 3

        x = fw.constant([1.0, 2.0])
        np.testing.assert_array_equal(g(x).numpy(), [2.0, 3.0])
        np.testing.assert_array_equal(h(x).numpy(), [3.0, 6.0])


def _gradients(fw):
    # One gradient per call: TF's py_function forgets its tape after one gradient.
    x, c = fw.constant([1.0, 2.0]), fw.constant(2.0)
    v = fw.Variable(3.0)
    grads = []
    with fw.GradientTape() as tape:
        tape.watch(x)
        y = fw.py_function(lambda a: a * a * v, [x], fw.float32)  # v: read inside, no gradient
    grads += tape.gradient(y, [x, v])
    with fw.GradientTape() as tape:
        tape.watch([x, c])
        u = fw.py_function(lambda a, b: (a * b, fw.sin(a)), [x, c], [fw.float32, fw.float32])
        z = fw.reduce_sum(u[0] * u[1])
    grads += tape.gradient(z, [x, c])
    with fw.GradientTape() as tape:
        tape.watch(x)
        n = fw.numpy_function(lambda a: a * a, [x], fw.float32)
    grads.append(tape.gradient(n, x))
    return grads


def test_py_function_gradients_are_its_own_tapes_as_tfs():
    for got, want in zip(_gradients(tapejax), _gradients(tensorflow), strict=True):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def _complex_gradient(fw):
    z = fw.constant(np.array([1 + 2j, 3 - 1j], np.complex64))
    with fw.GradientTape() as tape:
        tape.watch(z)
        q = fw.py_function(lambda a: a * a * fw.constant(2 - 1j, fw.complex64), [z], fw.complex64)
        loss = fw.reduce_sum(fw.math.real(q * fw.math.conj(q)))
    return tape.gradient(loss, z)


def test_py_function_complex_gradient_is_tfs():
    np.testing.assert_allclose(
        _complex_gradient(tapejax).numpy(), _complex_gradient(tensorflow).numpy(), rtol=1e-6
    )


def test_py_function_gradient_in_a_training_loop():
    w = tapejax.Variable([0.5, -1.0])
    for _ in range(2):
        with tapejax.GradientTape() as tape:
            loss = tapejax.reduce_sum(
                tapejax.py_function(lambda a: tapejax.exp(a), [w], tapejax.float32)
            )
        g = tape.gradient(loss, w)
        np.testing.assert_allclose(g.numpy(), np.exp(w.numpy()), rtol=1e-6)
        w.assign_sub(0.1 * g)


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_py_function_has_no_second_derivative(fw):
    tf = FRAMEWORKS[fw]
    x = tf.constant(1.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.py_function(lambda a: a * a * a, [x], tf.float32)
        dy = inner.gradient(y, x)
    assert float(dy) == 6.75
    assert outer.gradient(dy, x) is None


def test_numpy_function_inside_a_function_is_a_host_callback():
    calls = []

    def np_fn(a):
        calls.append(1)
        return np.sort(a)[::-1].copy()

    @tapejax.function
    def f(x):
        return tapejax.numpy_function(np_fn, [x * 2.0], tapejax.float32) + 1.0

    x = tapejax.constant([3.0, 1.0, 2.0])
    for i in range(3):  # the eager first call, then the traced program run twice
        np.testing.assert_array_equal(
            f(x + float(i)).numpy(), np.sort((x.numpy() + i) * 2)[::-1] + 1
        )
    assert len(calls) == 3 and f.experimental_get_tracing_count() == 1
    with pytest.raises(
        NotImplementedError, match="has not been called before with inputs of these shapes"
    ):
        f(tapejax.constant([1.0, 2.0]))  # a new shape: traced before any eager call saw it


def test_numpy_function_failures_inside_a_function_are_tfs():
    @tapejax.function
    def f(x, n):
        return tapejax.numpy_function(lambda a, k: a[: int(k)] / k, [x, n], tapejax.float32)

    x = tapejax.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f(x, tapejax.constant(2.0)).numpy(), [0.5, 1.0])
    np.testing.assert_array_equal(f(x, tapejax.constant(2.0)).numpy(), [0.5, 1.0])
    with pytest.raises(
        tapejax.errors.InvalidArgumentError,
        match=r"0-th value returned by pyfunc_\d+ has shape \[3\], but the traced program expects \[2\]",
    ):
        f(x, tapejax.constant(3.0))
    with pytest.raises(tapejax.errors.UnknownError, match="ZeroDivisionError"):
        tapejax.function(lambda x: tapejax.numpy_function(lambda a: 1 / 0, [x], tapejax.float32))(x)


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_numpy_function_checks_tout_inside_a_function(fw):
    tf = FRAMEWORKS[fw]
    f = tf.function(lambda a: tf.numpy_function(lambda b: b.astype(np.float64), [a], tf.float32))
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"0-th value returned by pyfunc_\d+ is double, but expects float",
    ):
        f(tf.constant([1.0]))
        f(tf.constant([1.0]))
    g = tf.function(lambda a: tf.numpy_function(lambda b: (b, b), [a], tf.float32))
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"pyfunc_\d+ returns 2 values, but expects to see 1 values.",
    ):
        g(tf.constant([1.0]))
        g(tf.constant([1.0]))


def test_py_function_inside_a_function_is_not_implemented():
    f = tapejax.function(lambda x: tapejax.py_function(lambda a: a * 2, [x], tapejax.float32))
    with pytest.raises(NotImplementedError, match="tapejax.py_function inside tapejax.function"):
        f(tapejax.constant(1.0))


IAE = "InvalidArgumentError"
X = np.array([1.0, 2.0], np.float32)
ERRORS = [
    (
        lambda tf: tf.py_function(lambda a: a * 2, [X], tf.int32),
        IAE,
        r"ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32",
    ),
    (
        lambda tf: tf.py_function(lambda a: a, [X], [tf.float32, tf.float32]),
        IAE,
        r"pyfunc_\d+ returns 1 values, but expects to see 2 values. \[Op:EagerPyFunc\]",
    ),
    (
        lambda tf: tf.py_function(lambda a: 1 / 0, [X], tf.float32),
        "UnknownError",
        r"ZeroDivisionError: division by zero",
    ),
    (
        lambda tf: tf.py_function(lambda a, b: a, [X], tf.float32),
        IAE,
        r"TypeError: .*missing 1 required positional argument: 'b'",
    ),
    (
        lambda tf: tf.py_function(lambda a: a, [X], None),
        "TypeError",
        r"Missing required argument: 'Tout'\n  If using tf.py_function as a decorator, set `Tout`",
    ),
    (
        lambda tf: tf.py_function(lambda a: a, None, tf.float32),
        "TypeError",
        r"Missing argument `inp`:",
    ),
    (
        lambda tf: tf.py_function(Tout=tf.float32, inp=[X]),
        "TypeError",
        r"Don't set the `inp` argument when using tf.py_function as a decorator",
    ),
    (
        lambda tf: tf.py_function(3, [X], tf.float32),
        "ValueError",
        r"Expected func to be callable. Received func=3 of type <class 'int'>.",
    ),
    (
        lambda tf: tf.numpy_function(lambda a: 1 / 0, [X], tf.float32),
        "ZeroDivisionError",
        r"division by zero",
    ),
    (
        lambda tf: tf.numpy_function(lambda a: a, [X], None),
        "TypeError",
        r"Missing required argument: 'Tout'\n  If using tf.numpy_function as a decorator",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
