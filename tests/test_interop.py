"""JAX interop: lift (JAX code inside tapes), functionalize, tapes inside JAX transforms."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tf
from tapejax._src import lowering


def mlp_apply(params, x):
    """Plain JAX: what a flax/equinox apply function looks like to tapejax."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return {"logits": h @ params["w2"], "hidden": h}


def init(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "w1": rng.standard_normal((3, 4)).astype(np.float32),
        "b1": np.zeros(4, np.float32),
        "w2": rng.standard_normal((4, 2)).astype(np.float32),
    }


def test_lift_pytrees_in_and_out_match_jax_grad():
    raw = init()
    params = {k: tf.Variable(v) for k, v in raw.items()}
    x = tf.constant(np.ones((5, 3), np.float32))
    apply = tf.lift(mlp_apply)
    with tf.GradientTape() as tape:
        out = apply(params, x)
        loss = tf.reduce_mean(out["logits"] ** 2)
    grads = tape.gradient(loss, params)
    expected = jax.grad(lambda p: jnp.mean(mlp_apply(p, x._value)["logits"] ** 2))(
        {k: jnp.asarray(v) for k, v in raw.items()}
    )
    for k in raw:
        np.testing.assert_allclose(grads[k].numpy(), expected[k], rtol=1e-5, atol=1e-6)
    assert isinstance(out["hidden"], tf.Tensor)


def test_lift_is_compiled_once_and_works_nested_and_in_functions():
    @tf.lift
    def cube(x):
        return x**3

    lowering.clear_cache()
    before = lowering.trace_counts().get("gradient", 0)
    for v in (1.0, 2.0, 3.0):
        x = tf.constant(v)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = cube(x)
            dy = inner.gradient(y, x)
        assert float(outer.gradient(dy, x)) == pytest.approx(6 * v)
    # First step only: the inner derivative once (the outer one's program reuses its
    # trace), the outer one once.
    assert lowering.trace_counts().get("gradient", 0) - before == 2

    @tf.function
    def step(x):
        with tf.GradientTape() as g:
            g.watch(x)
            y = cube(x)
        return g.gradient(y, x)

    assert [float(step(tf.constant(2.0))) for _ in range(3)] == [12.0, 12.0, 12.0]


def test_functionalize_composes_with_jit_grad_vmap():
    w = tf.Variable([[1.0], [2.0]])
    b = tf.Variable([0.5])

    def model(x):
        return tf.reduce_sum(tf.matmul(x, w) + b)

    f, params = tf.functionalize(model, [w, b])
    xs = jnp.arange(12.0, dtype=jnp.float32).reshape(6, 1, 2)

    def loss(p, x):
        return f(p, x)[0]

    per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(params, xs)
    np.testing.assert_allclose(per_example[0][:, :, 0], xs[:, 0, :])
    np.testing.assert_allclose(per_example[1], np.ones((6, 1)))
    # Variables are untouched, and outside the function the code still runs eagerly.
    np.testing.assert_allclose(w.numpy(), [[1.0], [2.0]])


def test_functionalize_returns_assigned_values():
    v = tf.Variable(1.0)

    def bump(x):
        v.assign_add(x)
        return v.read_value() * 2

    f, params = tf.functionalize(bump, [v])
    out, new = jax.jit(f)(params, jnp.float32(3.0))
    assert float(out) == 8.0 and float(new[0]) == 4.0 and float(v) == 1.0


def test_gradient_tape_inside_jax_transforms():
    def f(a):
        x = tf.convert_to_tensor(a)
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.reduce_sum(tf.sin(x) * x)
        return g.gradient(y, x)._value

    a = jnp.array([0.5, 1.0], jnp.float32)
    expected = jnp.cos(a) * a + jnp.sin(a)
    np.testing.assert_allclose(jax.jit(f)(a), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(f)(jnp.stack([a, a])), jnp.stack([expected] * 2), rtol=1e-6)
    second = jax.grad(lambda a: jnp.sum(f(a)))(a)
    np.testing.assert_allclose(second, 2 * jnp.cos(a) - a * jnp.sin(a), rtol=1e-5)


def test_zero_copy_both_ways():
    a = jnp.ones(3)
    t = tf.convert_to_tensor(a)
    assert t._value is a and jnp.asarray(t) is a


def test_converting_a_watched_tensor_to_raw_arrays_warns():
    from tapejax._src.tensor import GradientCutWarning

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        with pytest.warns(GradientCutWarning, match="gradients through them will be None"):
            y = tf.constant(np.asarray(x) * 2.0)
        with pytest.warns(GradientCutWarning):
            jnp.sin(x)
    assert g.gradient(y, x) is None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", GradientCutWarning)
        np.asarray(tf.constant(1.0))  # nothing watches it: no warning
        with tf.GradientTape():
            np.asarray(x)  # this tape does not watch x


def test_dlpack_export_is_zero_copy_and_to_jax_is_functionalize():
    import jax.numpy as jnp

    with tf.device("/CPU:0"):  # NumPy reads DLPack from host memory only
        t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    out = np.from_dlpack(t)
    np.testing.assert_array_equal(out, [[1.0, 2.0], [3.0, 4.0]])
    assert (
        out.__array_interface__["data"][0]
        == np.from_dlpack(t._value).__array_interface__["data"][0]
    )
    back = tf.convert_to_tensor(jnp.from_dlpack(t))
    np.testing.assert_array_equal(back.numpy(), out)
    assert tf.to_jax is tf.functionalize
