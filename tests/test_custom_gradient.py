"""custom_gradient, grad_pass_through, recompute_grad and the gradient registry."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tf
from tapejax._src import lowering, registry


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


def watched_grad(fn, x):
    x = tf.constant(x)
    with tf.GradientTape() as g:
        g.watch(x)
        y = fn(x)
    return y, g.gradient(y, x)


def test_log1pexp_is_stable_at_100():
    y, dy = watched_grad(log1pexp, 100.0)
    assert np.isinf(float(y)) and float(dy) == 1.0
    _, dy = watched_grad(log1pexp, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(dy.numpy(), [0.5, 0.7310586, 0.8807971], rtol=1e-6)


def test_clip_gradient_by_norm():
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            norm = tf.sqrt(tf.reduce_sum(dy * dy))
            return dy * tf.minimum(1.0, 0.5 / norm)

        return y, backward

    _, dy = watched_grad(lambda x: clip_gradients(x) * 10.0, [3.0, 4.0])
    np.testing.assert_allclose(np.linalg.norm(dy.numpy()), 0.5, rtol=1e-6)


def test_outside_a_tape_the_function_just_runs():
    assert float(log1pexp(tf.constant(0.0))) == pytest.approx(np.log(2.0))


def test_variables_need_the_variables_keyword():
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy * w

        return x * w, grad

    with tf.GradientTape() as g:
        x = tf.constant(1.0)
        g.watch(x)
        with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables'"):
            scale(x)


def test_linear_poly_with_variables():
    weights = tf.Variable(tf.ones([2]))

    @tf.custom_gradient
    def linear_poly(x):
        poly = weights[1] * x + weights[0]

        def grad_fn(dpoly, variables):
            grad_xs = dpoly * weights[1]
            grad_vars = [
                tf.stack([tf.reduce_sum(dpoly * x), tf.reduce_sum(dpoly)]) for _ in variables
            ]
            return grad_xs, grad_vars

        return poly, grad_fn

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        poly = linear_poly(x)
    np.testing.assert_array_equal(poly.numpy(), [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(tape.gradient(poly, x).numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(tape.gradient(poly, weights).numpy(), [6.0, 3.0])


def test_wrong_number_of_gradients():
    @tf.custom_gradient
    def identity(x):
        return tf.identity(x), lambda dy: []

    v = tf.Variable(1.0)
    with tf.GradientTape() as g:
        y = identity(v)
    with pytest.raises(ValueError, match="expected to return 1 gradients, but returned 0 instead"):
        g.gradient(y, [v])


def test_multiple_outputs_unused_gets_zero_upstream():
    @tf.custom_gradient
    def two(x):
        def grad(da, db):
            return da + 100.0 * db

        return (x * 2, x * 3), grad

    _, dx = watched_grad(lambda x: two(x)[0], [1.0, 2.0])
    np.testing.assert_array_equal(dx.numpy(), [1.0, 1.0])  # db arrived as zeros


def test_second_derivative_goes_through_grad_fn():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy * 10.0 * x

        return x * x, grad

    x = tf.constant(1.2)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d1 = inner.gradient(y, x)
    assert float(d1) == pytest.approx(12.0)
    assert float(outer.gradient(d1, x)) == pytest.approx(10.0)


def test_custom_gradient_compiles_once_across_steps():
    lowering.clear_cache()
    before = lowering.trace_counts().get("gradient", 0)
    for v in (0.0, 1.0, 2.0):
        watched_grad(log1pexp, v)
    assert lowering.trace_counts().get("gradient", 0) - before == 1


def test_custom_gradient_under_jax_transforms():
    def f(a):
        return log1pexp(tf.convert_to_tensor(a))._value

    assert float(jax.grad(f)(jnp.float32(100.0))) == 1.0


def test_grad_pass_through():
    x, z = tf.Variable(1.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z**2)
    assert float(y) == 9.0 and float(tape.gradient(y, z)) == 6.0


def test_recompute_grad_matches_plain_and_reruns_the_function():
    calls = []
    y = tf.Variable(2.0)

    def f(x):
        calls.append(1)
        return tf.sin(x) * y

    g = tf.recompute_grad(f)
    assert g.__wrapped__ is f
    x = tf.constant(0.5)
    with tf.GradientTape() as t:
        t.watch(x)
        r = g(x)
    grads = t.gradient(r, [x, y])
    np.testing.assert_allclose([float(v) for v in grads], [1.7551651, 0.47942555], rtol=1e-6)
    assert len(calls) >= 2  # forward, then again in the derivative program


class TestRegistry:
    def teardown_method(self):
        for name in ("Sin", "Exp", "Pow"):
            registry.unregister(name)

    def test_register_gradient_overrides_and_duplicates_raise(self):
        @tf.RegisterGradient("Sin")
        def _sin_grad(op, grad):
            assert op.type == "Sin" and len(op.inputs) == 1
            return grad * 10.0

        _, dy = watched_grad(tf.sin, 1.0)
        assert float(dy) == 10.0
        with pytest.raises(KeyError, match="Registering two gradient with name 'Sin'!"):
            tf.RegisterGradient("Sin")(_sin_grad)

    def test_a_registered_pow_gradient_sees_both_inputs_of_a_square(self):
        # ``x ** 2`` is a square with a static exponent (``math_ops.pow``) unless a Pow
        # gradient is registered: that function is given TF's two inputs.
        @tf.RegisterGradient("Pow")
        def _pow_grad(op, grad):
            assert op.type == "Pow" and len(op.inputs) == 2
            return grad * 7.0, None

        _, dy = watched_grad(lambda x: x**2, 3.0)
        assert float(dy) == 7.0

    def test_unknown_and_bad_names(self):
        with pytest.raises(LookupError, match="tapejax has no op named 'NoSuchOp'"):
            tf.RegisterGradient("NoSuchOp")(lambda op, g: g)
        with pytest.raises(TypeError, match="op_type must be a string"):
            tf.RegisterGradient(3)

    def test_no_gradient_gives_none(self):
        tf.no_gradient("Exp")
        _, dy = watched_grad(tf.exp, 1.0)
        assert dy is None


def test_custom_gradient_and_recompute_inside_function():
    w = tf.Variable(2.0)
    block = tf.recompute_grad(lambda x: tf.sin(x) * w)

    @tf.function
    def step(x):
        with tf.GradientTape() as g:
            g.watch(x)
            y = log1pexp(x) + block(x)
        return g.gradient(y, [x, w])

    for _ in range(3):
        dx, dw = step(tf.constant(0.5))
    expected_dx = 1 / (1 + np.exp(-0.5)) + np.cos(0.5) * 2.0
    assert float(dx) == pytest.approx(expected_dx, rel=1e-6)
    assert float(dw) == pytest.approx(np.sin(0.5), rel=1e-6)
    assert step.experimental_get_tracing_count() == 1
