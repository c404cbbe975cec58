# ruff: noqa: E501 - tables of TF's texts read best one case a line
"""TF 2's assertions (``tapejax._src.asserts``) side by side with real TensorFlow: eager
texts, the graph texts inside ``tapejax.function`` (checked while tracing or when the
program runs), and that a failed run-time check leaves Variables usable."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error, check_fails_in_function  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}
IAE = "InvalidArgumentError"


def c(tf, *args, **kwargs):
    return tf.constant(*args, **kwargs)


EAGER_ERRORS = [
    (
        lambda tf: tf.assert_equal(c(tf, [1, 2, 3]), c(tf, [1, 2, 4])),
        IAE,
        r"^Condition x == y did not hold.\nIndices of first 1 different values:\n\[\[2\]\]\nCorresponding x values:\n\[3\]\nCorresponding y values:\n\[4\]\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 3 elements of y:\n\[1 2 4\]$",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [1, 2, 3]), 1, message="hi"),
        IAE,
        r"^hi\nCondition x == y did not hold.\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 1 elements of y:\n\[1\]$",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [[1, 2, 3]] * 4), c(tf, [[1, 5, 6]] * 4), summarize=2),
        IAE,
        r"^Condition x == y did not hold.\nIndices of first 2 different values:\n\[\[0 1\]\n \[0 2\]\]\nCorresponding x values:\n\[2 3\]\nCorresponding y values:\n\[5 6\]\nFirst 2 elements of x:\n\[1 2\]\nFirst 2 elements of y:\n\[1 5\]$",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [[1, 2], [3, 4]]), c(tf, [[9, 9], [9, 9]]), summarize=-1),
        IAE,
        r"^Condition x == y did not hold.\nIndices of first 4 different values:\n\[\[0 0\]\n \[0 1\]\n \[1 0\]\n \[1 1\]\]\nCorresponding x values:\n\[1 2 3 4\]\nCorresponding y values:\n\[9 9 9 9\]\nFirst 4 elements of x:\n\[1 2 3 4\]\nFirst 4 elements of y:\n\[9 9 9 9\]$",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [1, 2]), c(tf, [3, 4]), summarize=0),
        IAE,
        r"^Condition x == y did not hold.$",
    ),
    (
        lambda tf: tf.assert_equal(1, 2, message=5),
        IAE,
        r"^5\nCondition x == y did not hold.\nFirst 1 elements of x:\n\[1\]\nFirst 1 elements of y:\n\[2\]$",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [1.0, 2, 3]), c(tf, [1, 2, 3])),
        IAE,
        r"cannot compute Equal as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.assert_equal(c(tf, [1, 2, 3]), c(tf, [1, 2])),
        IAE,
        r"Incompatible shapes: \[3\] vs. \[2\] \[Op:Equal\]",
    ),
    (
        lambda tf: tf.assert_less(c(tf, [1, 2, 3]), c(tf, [2, 2, 4])),
        IAE,
        r"^Condition x < y did not hold.\nIndices of first 1 different values:\n\[\[1\]\]\nCorresponding x values:\n\[2\]\nCorresponding y values:\n\[2\]\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 3 elements of y:\n\[2 2 4\]$",
    ),
    (
        lambda tf: tf.assert_less(c(tf, [1.0, np.nan]), 5.0),
        IAE,
        r"^Condition x < y did not hold.\nFirst 2 elements of x:\n\[ 1. nan\]\nFirst 1 elements of y:\n\[5.\]$",
    ),
    (
        lambda tf: tf.assert_greater(c(tf, [1, 2, 3]), 2, message="msg"),
        IAE,
        r"^msg\nCondition x > y did not hold.\nFirst 3 elements of x:\n\[1 2 3\]\nFirst 1 elements of y:\n\[2\]$",
    ),
    (
        lambda tf: tf.assert_rank(c(tf, [1, 2, 3]), 2),
        "ValueError",
        r"^Tensor  must have rank 2.  Received rank 1, shape \(3,\)$",
    ),
    (
        lambda tf: tf.assert_rank(tf.Variable([[1.0]]), 1, message="m"),
        "ValueError",
        r"^m.  Tensor  must have rank 1.  Received rank 2, shape \(1, 1\)$",
    ),
    (
        lambda tf: tf.assert_rank(c(tf, [1, 2, 3]), [2]),
        "ValueError",
        r"^Rank must be a scalar.$",
    ),
    (
        lambda tf: tf.assert_rank(c(tf, [1, 2, 3]), 1.5),
        "TypeError",
        r"^tensor must be of type tf.int32; got tf.float32$",
    ),
    (
        lambda tf: tf.Assert(c(tf, False), ["x is", c(tf, [1, 2])]),
        IAE,
        r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: b'x is'\n1, 2$",
    ),
    (
        lambda tf: tf.Assert(False, ["x is", c(tf, [1, 2, 3, 4, 5])], summarize=2),
        IAE,
        r"^Expected 'False' to be true. Summarized data: b'x is'\n1, 2, ...$",
    ),
    (
        lambda tf: tf.Assert(c(tf, False), ["s", 3, 2.5, [1, 2], True]),
        IAE,
        r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: b's'\n3\n2.5\n1, 2\nTrue$",
    ),
    (
        lambda tf: tf.Assert(c(tf, False), [c(tf, [[1, 2], [3, 4]]), c(tf, 2.5)], summarize=0),
        IAE,
        r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: ...\n$",
    ),
    (
        lambda tf: tf.Assert(c(tf, [True, False]), ["x"]),
        "ValueError",
        r"The truth value of an array with more than one element is ambiguous",
    ),
]


@pytest.mark.parametrize("fn, error, message", EAGER_ERRORS)
def test_eager_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_passing_assertions_return_none(fw):
    tf = FRAMEWORKS[fw]
    x = tf.constant([1, 2, 3])
    assert tf.assert_equal(x, x) is None
    assert tf.assert_equal(tf.constant([]), tf.constant([])) is None
    assert tf.assert_less(x, 5) is None and tf.assert_greater(x, 0) is None
    assert tf.assert_rank(x, 1) is None and tf.assert_rank(x, tf.constant(1)) is None
    assert tf.Assert(tf.constant(True), ["x"]) is None and tf.Assert(tf.constant(1), []) is None
    assert tf.debugging.assert_equal is tf.assert_equal


# Inside tf.function: TF's graph texts (tensor names aside), from the tapejax program's
# run-time check on every call (the eager first call gives the same text).
TRACED = [
    (
        lambda tf, x: tf.debugging.assert_equal(x, 1.0),
        [2.0],
        r"^assertion failed: \[Condition x == y did not hold element-wise:\] \[x \(\S+\) = \] \[2\] \[y \(\S+\) = \] \[1\]",
    ),
    (
        lambda tf, x: tf.assert_less(x, 0.0, message="neg"),
        [[1.0, 2, 3, 4], [3, 4, 5, 6]],
        r"^assertion failed: \[neg\] \[Condition x < y did not hold element-wise:\] \[x \(\S+\) = \] \[\[1 2 3...\]...\] \[y \(\S+\) = \] \[0\]",
    ),
    (
        lambda tf, x: tf.Assert(x[0] > 0, ["x is", x, 3, 2.5, True], summarize=-1),
        [-1.0, 2, 3, 4],
        r"^assertion failed: \[x is\] \[-1 2 3 4\] \[3\] \[2.5\] \[1\]",
    ),
    (
        lambda tf, x: tf.assert_greater(x, x + 1.0, summarize=2),
        [[1.0, 2.0], [3.0, 4.0]],
        r"^assertion failed: \[Condition x > y did not hold element-wise:\] \[x \(\S+\) = \] \[\[1 2\]...\] \[y \(\S+\) = \] \[\[2 3\]...\]",
    ),
]


@pytest.mark.parametrize("check, x, message", TRACED)
def test_failed_checks_inside_a_function_raise_tfs_text(check, x, message):
    check_fails_in_function(check, x, message)


def test_checks_in_a_function_pass_and_fail_per_call_and_keep_variables():
    v = tapejax.Variable([1.0, 2.0])

    @tapejax.function
    def step(x):
        v.assign_add(x)
        tapejax.debugging.assert_greater(v, 0.0, message="v must stay positive")
        return tapejax.reduce_sum(v)

    assert float(step(tapejax.constant([1.0, 1.0]))) == 5.0  # the eager first call
    assert float(step(tapejax.constant([1.0, 1.0]))) == 7.0  # traced
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="v must stay positive"):
        step(tapejax.constant([-10.0, 0.0]))
    # The failed call's update is kept (TF stops at the assertion) and v stays usable.
    np.testing.assert_array_equal(v.numpy(), [-7.0, 4.0])
    v.assign([1.0, 1.0])
    assert float(step(tapejax.constant([0.5, 0.5]))) == 3.0
    assert step.experimental_get_tracing_count() == 1


def test_checks_inside_a_function_under_a_tape():
    @tapejax.function
    def f(x):
        tapejax.assert_less(x, 10.0)
        return x * x

    x = tapejax.constant(3.0)
    for _ in range(2):
        with tapejax.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == 6.0
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="Condition x < y"):
        with tapejax.GradientTape() as tape:
            tape.watch(x)
            f(tapejax.constant(11.0))


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_assert_rank_inside_a_function_is_checked_while_tracing(fw):
    tf = FRAMEWORKS[fw]

    @tf.function
    def f(x):
        tf.assert_rank(x, 2, message="needs a matrix")
        return x

    with pytest.raises(
        ValueError,
        match=r"needs a matrix.  Tensor \S* must have rank 2.  Received rank 1, shape \(4,\)",
    ):
        f(tf.constant([1.0, 2.0, 3.0, 4.0]))
    assert f(tf.constant([[1.0]])).shape == (1, 1)
