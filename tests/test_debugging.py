# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""``tapejax.debugging`` side by side with ``tf.debugging``: the assertions' eager texts,
their graph texts inside ``tapejax.function``, the static dtype and shape checks,
``check_numerics`` (values, gradients, in a function) and the debugging switches.
(``Assert``, ``assert_equal``, ``assert_less``, ``assert_greater`` and ``assert_rank``
have more cases in ``tests/test_asserts.py``.)"""

from __future__ import annotations

import inspect

import jax
import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error, check_fails_in_function  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}
IAE = "InvalidArgumentError"


def c(tf, *args, **kwargs):
    return tf.constant(*args, **kwargs)


def d(tf):
    return tf.debugging


def test_namespace_and_signatures_are_tfs():
    theirs = sorted(n for n in dir(tensorflow.debugging) if not n.startswith("_"))
    assert sorted(tapejax.debugging.__all__) == [n for n in theirs if n != "experimental"]
    differ = [
        n
        for n in tapejax.debugging.__all__
        if list(inspect.signature(getattr(tapejax.debugging, n)).parameters)
        != list(inspect.signature(getattr(tensorflow.debugging, n)).parameters)
    ]
    assert not differ


EAGER_ERRORS = [
    (
        lambda tf: d(tf).assert_negative(c(tf, [1, -2, 3])),
        IAE,
        r"^\nCondition x < 0 did not hold element-wise:\nx \(shape=\(3,\) dtype=int32\) = \n\['1', '-2', '3'\]$",
    ),
    (
        lambda tf: d(tf).assert_negative(c(tf, 1.5), message="m"),
        IAE,
        r"^m.  \nCondition x < 0 did not hold element-wise:\nx \(shape=\(\) dtype=float32\) = \n1.5$",
    ),
    (
        lambda tf: d(tf).assert_positive(c(tf, [1, -2, 3]), summarize=1),
        IAE,
        r"^\nCondition x > 0 did not hold element-wise:\nx \(shape=\(3,\) dtype=int32\) = \n\['1', '...'\]$",
    ),
    (
        lambda tf: d(tf).assert_non_negative(c(tf, [[1, -2], [3, 4]])),
        IAE,
        r"^\nCondition x >= 0 did not hold element-wise:\nx \(shape=\(2, 2\) dtype=int32\) = \n\['1', '-2', '3', '...'\]$",
    ),
    (
        lambda tf: d(tf).assert_non_positive(c(tf, [1.0, -2.0])),
        IAE,
        r"^\nCondition x <= 0 did not hold element-wise:x \(shape=\(2,\) dtype=float32\) = \n\['1.0', '-2.0'\]$",
    ),
    (
        lambda tf: d(tf).assert_none_equal(c(tf, [1, 2, 3]), c(tf, [1, 5, 6])),
        IAE,
        r"^Condition x != y did not hold.\nIndices of first 1 different values:\n\[\[0\]\]\nCorresponding x values:\n\[1\]\nCorresponding y values:\n\[1\]\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 3 elements of y:\n\[1 5 6\]$",
    ),
    (
        lambda tf: d(tf).assert_less_equal(c(tf, [1, 2, 3]), 2, message="le"),
        IAE,
        r"^le\nCondition x <= y did not hold.\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 1 elements of y:\n\[2\]$",
    ),
    (
        lambda tf: d(tf).assert_greater_equal(c(tf, [1, 2, 3]), 2),
        IAE,
        r"^Condition x >= y did not hold.\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 1 elements of y:\n\[2\]$",
    ),
    (
        lambda tf: d(tf).assert_greater_equal(c(tf, [1.0]), c(tf, [1])),
        IAE,
        r"cannot compute GreaterEqual as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: d(tf).assert_near(c(tf, [1.0, 2.0]), c(tf, [1.0, 2.1])),
        IAE,
        r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: b''\nb'x and y not equal to tolerance rtol = tf.Tensor\(1.1920929e-06, shape=\(\), dtype=float32\), atol = tf.Tensor\(1.1920929e-06, shape=\(\), dtype=float32\)'\nb'x \(shape=\(2,\) dtype=float32\) = '\n1.0, 2.0\nb'y \(shape=\(2,\) dtype=float32\) = '\n1.0, 2.1$",
    ),
    (
        lambda tf: d(tf).assert_near(c(tf, [1.0, 2.0]), [1.0, 2.5], rtol=0.1, message="near"),
        IAE,
        r"^Expected .* Summarized data: b'near.  '\nb'x and y not equal to tolerance rtol = tf.Tensor\(0.1, shape=\(\), dtype=float32\)",
    ),
    (
        lambda tf: d(tf).assert_near(c(tf, [1, 2]), c(tf, [1, 2])),
        "ValueError",
        r"^data type <class 'numpy.int32'> not inexact$",
    ),
    (
        lambda tf: d(tf).assert_rank_at_least(c(tf, [1, 2]), 2, message="m"),
        "ValueError",
        r"^m.  Tensor  must have rank at least 2.  Received rank 1, shape \(2,\)$",
    ),
    (
        lambda tf: d(tf).assert_rank_in(c(tf, [1, 2]), [0, 2]),
        "ValueError",
        r"^Tensor  must have rank in \(0, 2\).  Received rank 1, shape \(2,\)$",
    ),
    (
        lambda tf: d(tf).assert_rank_in(c(tf, [1, 2]), [0, [2]]),
        "ValueError",
        r"^Rank must be a scalar.$",
    ),
    (
        lambda tf: d(tf).assert_rank_at_least(c(tf, [1, 2]), 1.0),
        "TypeError",
        r"^tensor must be of type tf.int32; got tf.float32$",
    ),
    (
        lambda tf: d(tf).assert_type(c(tf, [1, 2]), tf.float32, message="m"),
        "TypeError",
        r"^m.  tensor must be of type tf.float32; got tf.int32$",
    ),
    (
        lambda tf: d(tf).assert_type(tf.Variable([1, 2]), "float16"),
        "TypeError",
        r"^tensor must be of type tf.float16; got tf.int32$",
    ),
    (
        lambda tf: d(tf).assert_integer(c(tf, [1.0, 2])),
        "TypeError",
        r"^Expected \"x\" to be integer type.  Found: tensor of dtype <dtype: 'float32'>$",
    ),
    (
        lambda tf: d(tf).assert_scalar(c(tf, [1.0, 2]), message="s"),
        "ValueError",
        r"^s.  Expected scalar shape, saw shape: \(2,\).$",
    ),
    (
        lambda tf: d(tf).assert_same_float_dtype([c(tf, 1.0), c(tf, 1.0, tf.float16)]),
        "ValueError",
        r"^tf.Tensor\(1.0, shape=\(\), dtype=float16\), type=<dtype: 'float16'>, must be of the same type \(<dtype: 'float32'>\) as tf.Tensor\(1.0, shape=\(\), dtype=float32\).$",
    ),
    (
        lambda tf: d(tf).assert_same_float_dtype([c(tf, 1)]),
        "ValueError",
        r"^Expected floating point type, got <dtype: 'int32'>.$",
    ),
    (
        lambda tf: d(tf).assert_same_float_dtype([None, tf.Variable(1.0)], tf.float16),
        "ValueError",
        r"^Variable:0, type=<dtype: 'float32'>, must be of the same type \(<dtype: 'float16'>\).$",
    ),
    (
        lambda tf: d(tf).assert_proper_iterable(c(tf, [1])),
        "TypeError",
        r"^Expected argument \"values\" to be a \"proper\" iterable.  Found: <class '\S+Tensor'>$",
    ),
    (
        lambda tf: d(tf).assert_proper_iterable(3),
        "TypeError",
        r"^Expected argument \"values\" to be iterable.  Found: <class 'int'>$",
    ),
    (
        lambda tf: d(tf).assert_proper_iterable(b"ab"),
        "TypeError",
        r"^Expected argument \"values\" to be a \"proper\" iterable.  Found: <class 'bytes'>$",
    ),
    (
        lambda tf: d(tf).assert_shapes(
            [(c(tf, [[1, 2]]), ("N", "Q")), (c(tf, [1.0, 2, 3]), ("Q",))]
        ),
        "ValueError",
        r"^Specified by tensor shape=\(1, 2\) dtype=int32 dimension 1.  Tensor shape=\(3,\) dtype=float32 dimension 0 must have size 2.  Received size 3, shape \(3,\)$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[1, 2]]), ("N", "Q", "R"))], message="m"),
        "ValueError",
        r"^m.  Tensor  must have rank 3.  Received rank 2, shape \(1, 2\)$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[1, 2]]), (2, "Q"))]),
        "ValueError",
        r"^Specified explicitly.  Tensor shape=\(1, 2\) dtype=int32 dimension 0 must have size 2.  Received size 1, shape \(1, 2\)$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [1.0, 2, 3]), ())]),
        "ValueError",
        r"^Specified explicitly.  Tensor shape=\(3,\) dtype=float32 dimension 0 must have size 1.  Received size 3, shape \(3,\)$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[[1.0]]]), (..., "A", "B", "C", "D"))]),
        "ValueError",
        r"^Tensor  must have rank at least 4.  Received rank 3, shape \(1, 1, 1\)$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[1, 2]]), ("N", ...))]),
        "ValueError",
        r"^Tensor shape=\(1, 2\) dtype=int32 specified shape index 1.  Symbol `...` or `\*` for a variable number of unspecified dimensions is only allowed as the first entry$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[1, 2]]), 3)]),
        "ValueError",
        r"^Tensor shape=\(1, 2\) dtype=int32.  Specified shape must be an iterable.  An iterable has the attribute `__iter__` or `__getitem__`.  Received specified shape: 3$",
    ),
    (
        lambda tf: d(tf).assert_shapes([(c(tf, [[1, 2]]), ("*", "A", "A"))]),
        "ValueError",
        r"^Specified by tensor shape=\(1, 2\) dtype=int32 dimension -2.  Tensor shape=\(1, 2\) dtype=int32 dimension -1 must have size 1.  Received size 2, shape \(1, 2\)$",
    ),
    (
        lambda tf: d(tf).check_numerics(c(tf, [1.0, np.nan]), "msg"),
        IAE,
        r"msg : Tensor had NaN values \[Op:CheckNumerics\]",
    ),
    (
        lambda tf: d(tf).check_numerics(c(tf, [1.0, -np.inf, np.nan]), "msg"),
        IAE,
        r"msg : Tensor had Inf and NaN values \[Op:CheckNumerics\]",
    ),
    (
        lambda tf: d(tf).assert_all_finite(c(tf, [1.0, np.inf]), "bad"),
        IAE,
        r"bad : Tensor had Inf values \[Op:CheckNumerics\]",
    ),
    (
        lambda tf: d(tf).check_numerics(c(tf, [1, 2]), "msg"),
        IAE,
        r"^Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double",
    ),
]


@pytest.mark.parametrize("fn, error, message", EAGER_ERRORS)
def test_eager_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_passing_checks(fw):
    tf = FRAMEWORKS[fw]
    x, s = tf.constant([[1.0, 2.0]]), tf.constant(1.0)
    for check in (
        lambda: tf.debugging.assert_negative(-x),
        lambda: tf.debugging.assert_positive(x),
        lambda: tf.debugging.assert_non_negative(x - 1.0),
        lambda: tf.debugging.assert_non_positive(tf.constant([], tf.int32)),
        lambda: tf.debugging.assert_none_equal(x, 0.0),
        lambda: tf.debugging.assert_less_equal(x, 2.0),
        lambda: tf.debugging.assert_greater_equal(x, x),
        lambda: tf.debugging.assert_near(x, x + 1e-7),
        lambda: tf.debugging.assert_near(tf.constant([1 + 1j]), [1 + 1j]),
        lambda: tf.debugging.assert_rank_at_least(x, 1),
        lambda: tf.debugging.assert_rank_in(x, (1, 2)),
        lambda: tf.debugging.assert_type(x, tf.float32),
        lambda: tf.debugging.assert_integer(tf.constant([1], tf.uint8)),
        lambda: tf.debugging.assert_scalar(s),
        lambda: tf.debugging.assert_proper_iterable([x]),
        lambda: tf.debugging.assert_shapes([(x, ("N", "Q")), (s, ()), (tf.constant([2.0]), ())]),
        lambda: tf.debugging.assert_shapes({"a": None}.items()),
        lambda: tf.debugging.assert_shapes([(x, (..., 2)), (x, ("*", 1, None, ".")[:3])]),
        lambda: tf.debugging.assert_rank(tf.SparseTensor([[0, 0]], [1.0], [2, 3]), 2),
        lambda: tf.debugging.assert_type(tf.SparseTensor([[0, 0]], [1.0], [2, 3]), tf.float32),
    ):
        assert check() is None
    same = tf.debugging.assert_same_float_dtype
    assert same() == tf.float32 and same([x, None, s]) == tf.float32
    assert same(None, tf.float16) == tf.float16 and same([tf.Variable(1.0)]) == tf.float32
    num = tf.debugging.is_numeric_tensor
    assert num(x) and not num(tf.constant(True)) and not num(np.array([1.0]))
    assert not num(tf.Variable(1.0)) and not num(1.0)


def test_assert_same_float_dtype_with_64_bit_types_as_tf(x64):
    def f(tf):
        tf.debugging.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])

    check_error(
        f,
        "ValueError",
        r"^tf.Tensor\(1.0, shape=\(\), dtype=float64\), type=<dtype: 'float64'>, must be of the same type \(<dtype: 'float32'>\) as tf.Tensor\(1.0, shape=\(\), dtype=float32\).$",
    )


# Inside tf.function: TF's graph texts (tensor names aside), from the tapejax program's
# run-time check on every call (the first, eager call gives the same text).
TRACED = [
    (
        lambda tf, x: tf.debugging.assert_negative(x),
        [1.0, -2, 3],
        r"^assertion failed: \[\] \[Condition x < 0 did not hold element-wise:\] \[x \(\S+\) = \] \[1 -2 3\]",
    ),
    (
        lambda tf, x: tf.debugging.assert_non_positive(x, message="m"),
        [1.0, -2, 3],
        r"^assertion failed: \[m.  \] \[Condition x <= 0 did not hold element-wise:x \(\S+\) = \] \[1 -2 3\]",
    ),
    (
        lambda tf, x: tf.debugging.assert_none_equal(x, 1.0),
        [1.0, -2, 3],
        r"^assertion failed: \[Condition x != y did not hold element-wise:\] \[x \(\S+\) = \] \[1 -2 3\] \[y \(\S+\) = \] \[1\]",
    ),
    (
        lambda tf, x: tf.debugging.assert_near(x, x + 1.0, summarize=2),
        [1.0, -2, 3],
        r"^assertion failed: \[\] \[x and y not equal to tolerance rtol = .*, atol = .*\] \[x \(\S+\) = \] \[1 -2...\] \[y \(\S+\) = \] \[2 -1...\]",
    ),
    (
        lambda tf, x: tf.debugging.check_numerics(x, "cn"),
        [1.0, np.nan, 3],
        r"^cn : Tensor had NaN values",
    ),
    (
        lambda tf, x: tf.debugging.assert_all_finite(x * 2.0, "fin"),
        [1.0, np.inf, -np.inf],
        r"^fin : Tensor had Inf values",
    ),
]


@pytest.mark.parametrize("check, x, message", TRACED)
def test_failed_checks_inside_a_function_raise_tfs_text(check, x, message):
    check_fails_in_function(check, x, message)


def test_checks_in_a_function_pass_per_call_without_retracing():
    @tapejax.function
    def f(x):
        tapejax.debugging.assert_positive(x)
        tapejax.debugging.assert_shapes([(x, ("N",))])
        return tapejax.debugging.check_numerics(tapejax.math.log(x), "log")

    for v in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
        np.testing.assert_allclose(f(tapejax.constant(v)).numpy(), np.log(v), rtol=1e-6)
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="Condition x > 0"):
        f(tapejax.constant([0.0, 1.0]))
    np.testing.assert_allclose(f(tapejax.constant([1.0, 1.0])).numpy(), [0.0, 0.0])
    assert f.experimental_get_tracing_count() == 1


def test_static_checks_inside_a_function_raise_while_tracing():
    @tapejax.function
    def f(x):
        tapejax.debugging.assert_shapes([(x, (3,))], message="three")
        return x

    with pytest.raises(ValueError, match=r"^three.  Specified explicitly.  Tensor shape=\(2,\)"):
        f(tapejax.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be of type tf.int32"):
        tapejax.function(lambda x: tapejax.debugging.assert_type(x, tapejax.int32))(
            tapejax.constant(1.0)
        )


@pytest.mark.parametrize("name", ["check_numerics", "assert_all_finite"])
def test_check_numerics_returns_its_input_and_passes_gradients_as_tf(name):
    got = {}
    for fw, tf in FRAMEWORKS.items():
        x = tf.constant([1.0, 4.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.debugging, name)(x * x, "m")
            loss = tf.reduce_sum(tf.sqrt(y))
        got[fw] = (y.numpy(), tape.gradient(loss, x).numpy())
    np.testing.assert_array_equal(got["tapejax"][0], got["tensorflow"][0])
    np.testing.assert_allclose(got["tapejax"][1], got["tensorflow"][1], rtol=1e-6)


def test_check_numerics_does_not_check_the_gradient():
    """TF checks the gradient too ("... detected in gradient"); tapejax passes it as is
    (docs/compat.md, "tapejax.debugging")."""

    def grad(tf):
        x = tf.constant([0.0, 4.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.sqrt(tf.debugging.check_numerics(x, "m")))
        return tape.gradient(loss, x)

    with pytest.raises(tensorflow.errors.InvalidArgumentError, match="detected in gradient"):
        grad(tensorflow)
    np.testing.assert_array_equal(grad(tapejax).numpy(), [np.inf, 0.25])


def test_check_numerics_on_a_variable_and_bfloat16():
    v = tapejax.Variable([1.0, 2.0])
    assert tapejax.debugging.check_numerics(v, "v").numpy().tolist() == [1.0, 2.0]
    b = tapejax.constant([np.inf], tapejax.bfloat16)
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="b : Tensor had Inf values"):
        tapejax.debugging.check_numerics(b, "b")


def test_enable_check_numerics_turns_on_jaxs_nan_and_inf_checks():
    before = (jax.config.jax_debug_nans, jax.config.jax_debug_infs)
    tapejax.debugging.enable_check_numerics()
    try:
        assert jax.config.jax_debug_nans and jax.config.jax_debug_infs
        # An input shape no other test uses: after the whole suite's earlier tests, a Log
        # program compiled for float32[2] was seen to skip JAX's check.
        with pytest.raises(FloatingPointError):
            tapejax.math.log(tapejax.constant([0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 11.0]))
        assert float(tapejax.math.log(tapejax.constant(1.0))) == 0.0
    finally:
        tapejax.debugging.disable_check_numerics()
    assert (jax.config.jax_debug_nans, jax.config.jax_debug_infs) == before
    assert np.isneginf(tapejax.math.log(tapejax.constant(0.0)).numpy())


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_switches_round_trip(fw, capfd):
    dbg = FRAMEWORKS[fw].debugging
    assert dbg.get_log_device_placement() is False
    dbg.set_log_device_placement(True)
    try:
        assert dbg.get_log_device_placement() is True
        if fw == "tapejax":  # kept, but nothing is logged (docs/compat.md)
            capfd.readouterr()
            _ = FRAMEWORKS[fw].constant([1.0]) * 2.0
            assert capfd.readouterr() == ("", "")
    finally:
        dbg.set_log_device_placement(False)
    assert dbg.is_traceback_filtering_enabled() is True
    dbg.disable_traceback_filtering()
    try:
        assert dbg.is_traceback_filtering_enabled() is False
    finally:
        dbg.enable_traceback_filtering()
    assert dbg.is_traceback_filtering_enabled() is True


def test_traceback_filtering_is_jaxs():
    tapejax.debugging.disable_traceback_filtering()
    try:
        assert jax.config.jax_traceback_filtering == "off"
    finally:
        tapejax.debugging.enable_traceback_filtering()
    assert jax.config.jax_traceback_filtering == "auto"


# Checked above through a namespace variable (tools/tf_coverage.py).
OTHERWISE_TESTED = {
    "debugging.get_log_device_placement",
    "debugging.set_log_device_placement",
    "debugging.is_traceback_filtering_enabled",
}
