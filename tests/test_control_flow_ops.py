"""cond and while_loop: Python control flow eagerly, JAX control flow inside tapejax.function."""

import numpy as np
import pytest

import tapejax as tf


def test_cond_eager_records_only_the_taken_branch():
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.cond(x < x, lambda: x, lambda: x * x)
    assert float(g.gradient(y, x)) == 6.0


def test_while_loop_eager():
    i, x = tf.constant(1), tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        _, y = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), [i, x])
    assert float(y) == 8.0 and float(g.gradient(y, x)) == 4.0
    assert float(tf.while_loop(lambda v: v < 10.0, lambda v: v * 3.0, tf.constant(1.0))) == 27.0
    out = tf.while_loop(lambda v: True, lambda v: v + 1, [tf.constant(0)], maximum_iterations=5)
    assert int(out[0]) == 5


def test_cond_traced_selects_and_differentiates():
    @tf.function
    def f(x):
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.cond(x > 0, lambda: x * x, lambda: -x)
        return y, g.gradient(y, x)

    results = [tuple(float(t) for t in f(tf.constant(v))) for v in (2.0, -3.0, 4.0)]
    assert results == [(4.0, 4.0), (3.0, -1.0), (16.0, 8.0)]
    assert f.experimental_get_tracing_count() == 1


def test_while_loop_traced_with_data_dependent_trip_count():
    @tf.function
    def triangle(n):
        return tf.while_loop(
            lambda i, s: i < n, lambda i, s: (i + 1, s + i), [tf.constant(0), tf.constant(0)]
        )[1]

    assert [int(triangle(tf.constant(n))) for n in (3, 5, 4, 10)] == [3, 10, 6, 45]
    assert triangle.experimental_get_tracing_count() == 1


def test_while_loop_traced_under_a_tape_says_it_is_unsupported():
    @tf.function
    def f(x):
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)
        return g.gradient(y, x)

    f(tf.constant(1.0))  # the first call runs eagerly, where it works
    with pytest.raises(NotImplementedError, match="while_loop inside tapejax.function"):
        f(tf.constant(1.0))


def test_python_if_on_a_traced_tensor_names_the_alternatives():
    @tf.function
    def f(x):
        return x if x > 0 else -x

    f(tf.constant(1.0))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="tapejax.cond"):
        f(tf.constant(2.0))


def test_cond_argument_errors():
    with pytest.raises(TypeError, match="'true_fn' and 'false_fn' arguments are required"):
        tf.cond(True, lambda: 1)
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        tf.cond(True, 1, lambda: 1)


def test_cond_with_structures():
    x = tf.constant([1.0, 2.0])
    out = tf.cond(tf.constant(False), lambda: {"a": x, "b": x * 2}, lambda: {"a": -x, "b": x})
    np.testing.assert_array_equal(out["a"].numpy(), [-1.0, -2.0])
