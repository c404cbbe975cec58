"""Nested and persistent tapes, jacobian, batch_jacobian and ForwardAccumulator."""

import jax
import numpy as np
import pytest

import tapejax as tf
from tapejax._src import lowering, registry


def test_second_and_third_derivative_through_nested_tapes():
    x = tf.constant(3.0)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = x**3
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert [float(d1), float(d2), float(d3)] == [27.0, 18.0, 6.0]


def test_persistent_tape_higher_order_in_its_own_context():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x**3
        d1 = g.gradient(y, x)
        d2 = g.gradient(d1, x)
        d3 = g.gradient(d2, x)
    assert [float(y), float(d1), float(d2), float(d3)] == [27.0, 27.0, 18.0, 6.0]


def test_gradient_outside_outer_context_is_not_recorded():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
    dy = inner.gradient(y, x)
    assert outer.gradient(dy, x) is None


def test_input_gradient_regularization():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32))
    x = tf.constant(rng.standard_normal((4, 3)).astype(np.float32))
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.reduce_sum(tf.tanh(tf.matmul(x, w)))
        dx = t1.gradient(y, x)
        penalty = tf.reduce_sum(dx * dx)
    dw = t2.gradient(penalty, w)

    def penalty_fn(w_):
        grad_x = jax.grad(lambda x_: jax.numpy.sum(jax.numpy.tanh(x_ @ w_)))(x._value)
        return jax.numpy.sum(grad_x**2)

    np.testing.assert_allclose(dw.numpy(), jax.grad(penalty_fn)(w._value), rtol=1e-5, atol=1e-6)


def test_hessian_and_newton_step():
    a = tf.constant([[3.0, 1.0], [1.0, 2.0]])
    w = tf.Variable([1.0, -1.0])
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            loss = (
                0.5 * tf.reduce_sum(w * tf.linalg_matvec(a, w))
                if hasattr(tf, "linalg_matvec")
                else (0.5 * tf.reduce_sum(w * tf.reshape(tf.matmul(a, tf.reshape(w, [2, 1])), [2])))
            )
        g = t1.gradient(loss, w)
    h = t2.jacobian(g, w)
    np.testing.assert_allclose(h.numpy(), a.numpy(), rtol=1e-6)
    step = np.linalg.solve(h.numpy(), g.numpy())
    np.testing.assert_allclose(w.numpy() - step, [0.0, 0.0], atol=1e-6)


def test_several_tapes_watch_different_tensors():
    x, y = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as tx, tf.GradientTape() as ty:
        tx.watch(x)
        ty.watch(y)
        z = x * y
    assert float(tx.gradient(z, x)) == 5.0
    assert float(ty.gradient(z, y)) == 2.0


def test_jacobian_shapes_structures_and_unconnected():
    x = tf.constant([1.0, 2.0])
    y = tf.constant([3.0, 4.0])
    u = tf.constant(np.ones((2, 3), np.float32))
    with tf.GradientTape(persistent=True) as g:
        g.watch([x, y, u])
        z = x * x * y
    j = g.jacobian(z, {"x": x, "y": [y], "u": u})
    np.testing.assert_array_equal(j["x"].numpy(), [[6, 0], [0, 16]])
    np.testing.assert_array_equal(j["y"][0].numpy(), [[1, 0], [0, 4]])
    assert j["u"] is None
    assert g.jacobian(z, u, unconnected_gradients="zero").shape == (2, 2, 3)
    s = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(s)
        v = tf.stack([s, s * s, s * s * s])
        v1 = v[1]
    np.testing.assert_array_equal(g.jacobian(v, s).numpy(), [1, 6, 27])
    assert float(g.jacobian(v1, s)) == 6.0
    assert g.jacobian(v[1], s) is None  # indexed outside the block: not recorded


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_jacobian_of_empty_tensors(shape):
    x = tf.constant(np.ones(shape, np.float32))
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * 2
    assert g.jacobian(y, x).shape == shape + shape


def test_cpu_jacobian_runs_rows_in_blocks_with_the_same_numbers(monkeypatch):
    # On CPU, a jacobian with many rows (or columns) is computed in blocks (a lax.map),
    # not one vmap over all of them: fewer bytes in flight, the same numbers.
    monkeypatch.setattr(lowering, "_CPU_BLOCK_BYTES", 1100)
    on_cpu = jax.default_backend() == "cpu"
    blocks = []
    lax_map = jax.lax.map

    def spy(fn, xs, batch_size=None):
        blocks.append((xs.shape[0], batch_size))
        return lax_map(fn, xs, batch_size=batch_size)

    monkeypatch.setattr(jax.lax, "map", spy)
    assert lowering._rows_at_once(None, 64, 100) == (8 if on_cpu else None)  # 11 -> 8
    assert lowering._rows_at_once(None, 8, 100) is None  # no more rows than a block
    assert lowering._rows_at_once(5, 64, 100) == 5  # parallel_iterations decides
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 3)).astype(np.float32)
    w1 = rng.standard_normal((3, 6)).astype(np.float32)
    w2 = rng.standard_normal((6, 5)).astype(np.float32)
    w = tf.Variable(w1)
    with tf.GradientTape(persistent=True) as g:
        y = tf.matmul(tf.tanh(tf.matmul(tf.constant(x), w)), tf.constant(w2))
        y_rows = tf.reduce_sum(y, axis=1)
    expected = jax.jacrev(lambda v: jax.numpy.tanh(x @ v) @ w2)(w1)
    # 80 outputs, 18 sources: forward mode, 18 columns in blocks of 8.
    blocked = g.jacobian(y, w)
    np.testing.assert_allclose(blocked.numpy(), expected, rtol=1e-5, atol=1e-6)
    whole = g.jacobian(y, w, parallel_iterations=1000)
    np.testing.assert_allclose(blocked.numpy(), whole.numpy(), rtol=1e-6, atol=1e-7)
    # 16 outputs, 18 sources: reverse mode, 16 rows in blocks of 8.
    rows = g.jacobian(y_rows, w)
    np.testing.assert_allclose(rows.numpy(), expected.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert blocks == ([(18, 8), (16, 8)] if on_cpu else [])


def test_jacobian_vjp_and_jvp_modes_agree_and_chunks_do_not_change_results():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.standard_normal((3, 4)).astype(np.float32))
    x = tf.constant(rng.standard_normal((6, 3)).astype(np.float32))
    with tf.GradientTape(persistent=True) as g:
        y = tf.tanh(tf.matmul(x, w))  # 24 outputs, 12 source elements: forward mode
        small = tf.reduce_sum(y, axis=0)  # 4 outputs: reverse mode
    fwd = g.jacobian(y, w)
    rev = g.jacobian(y, w, parallel_iterations=5)
    np.testing.assert_allclose(fwd.numpy(), rev.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        g.jacobian(small, w).numpy(), fwd.numpy().sum(axis=0), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(
        g.jacobian(y, w, experimental_use_pfor=False).numpy(), fwd.numpy(), rtol=1e-5, atol=1e-6
    )


def test_jacobian_errors():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent=True to compute the jacobian with eager"):
        g.jacobian(y, x, experimental_use_pfor=False)
    with pytest.raises(
        ValueError, match="Encountered an exception while vectorizing the jacobian"
    ) as e:
        g.jacobian(y, x, parallel_iterations=1)
    assert "parallel_iterations == 1" in str(e.value.__cause__)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        g.jacobian([y], x)
    g.jacobian(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to"):
        g.jacobian(y, x)


def test_batch_jacobian_semantics_and_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        z = x * x * y
        dependent = x * x[::-1]
        summed = tf.reduce_sum(dependent, axis=0)
        bad = tf.concat([x, x], 0)
    np.testing.assert_array_equal(
        g.batch_jacobian(z, x).numpy(), [[[6, 0], [0, 16]], [[30, 0], [0, 48]]]
    )
    # TF's exact rule: d(sum_b target[b, j]) / d source[i, k], even when examples interact.
    full = g.jacobian(summed, x).numpy()  # (2, 2, 2)
    np.testing.assert_allclose(g.batch_jacobian(dependent, x).numpy(), np.moveaxis(full, 1, 0))
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(4, 2\)\) and"):
        g.batch_jacobian(bad, x)
    with pytest.raises(ValueError, match="must have rank at least 2"):
        g.batch_jacobian(z[0], x)
    unconnected = g.batch_jacobian(y * 1.0, x)
    assert unconnected.shape == (2, 2, 2) and unconnected.numpy().sum() == 0
    zero = tf.constant(np.zeros((1, 0), np.float32))
    with tf.GradientTape() as g2:
        g2.watch(zero)
        sq = zero**2
    assert g2.batch_jacobian(sq, zero).shape == (1, 0, 0)


def test_batch_jacobian_nonpersistent_rules():
    x = tf.constant([[3.0]])
    with tf.GradientTape() as g:
        g.watch(x)
        z = tf.tile((x * x) ** 2, [1, 16])
    with pytest.raises(RuntimeError, match="persistent=True.*parallel_iterations"):
        g.batch_jacobian(z, x, parallel_iterations=8)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        z = tf.tile((x * x) ** 2, [1, 16])
    np.testing.assert_array_equal(
        g.batch_jacobian(z, x, parallel_iterations=8).numpy(), [[[108.0]] * 16]
    )
    g.batch_jacobian(z, x)
    with tf.GradientTape() as g:
        g.watch(x)
        z = x * x
    g.batch_jacobian(z, x)
    with pytest.raises(RuntimeError, match="used tocompute one set"):
        g.batch_jacobian(z, x)


def test_forward_accumulator_basics_and_errors():
    x = tf.constant(2.0)
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant(1.5))
    with acc:
        y = 4 * x
        with pytest.raises(ValueError, match="Accumulator is already recording."):
            acc.__enter__()
    outside = y * y
    assert float(acc.jvp(y)) == 6.0
    assert acc.jvp(outside) is None
    assert float(acc.jvp(outside, unconnected_gradients="zero")) == 0.0
    assert float(acc.jvp(x)) == 1.5
    with pytest.raises(ValueError, match="was specified as a primal multiple times"):
        tf.autodiff.ForwardAccumulator([x, x], [tf.constant(1.0), tf.constant(1.0)])


def test_forward_over_reverse_hvp_matches_reverse_over_reverse():
    v = tf.Variable([1.0, 2.0, 3.0])
    tangent = tf.constant([0.5, -1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tangent) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_prod(tf.tanh(v) ** 2)
        g = tape.gradient(y, v)
    fwd_rev = acc.jvp(g).numpy()
    f = lambda w: jax.numpy.prod(jax.numpy.tanh(w) ** 2)  # noqa: E731
    expected = jax.jvp(jax.grad(f), (v._value,), (tangent._value,))[1]
    np.testing.assert_allclose(fwd_rev, expected, rtol=1e-5, atol=1e-6)


def test_nested_forward_accumulators():
    x = tf.constant(1.1)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as inner:
            y = x**3.5
        d1 = inner.jvp(y)
    np.testing.assert_allclose(float(d1), 3.5 * 1.1**2.5, rtol=1e-6)
    np.testing.assert_allclose(float(outer.jvp(d1)), 3.5 * 2.5 * 1.1**1.5, rtol=1e-6)
    assert inner.jvp(outer.jvp(y)) is None


def test_backward_over_forward():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
            y = x**3
        j = acc.jvp(y)
    assert float(j) == 12.0 and float(tape.gradient(j, x)) == 12.0


def test_higher_derivatives_match_finite_differences(x64):
    def f(tf_or_jnp, x):
        return tf_or_jnp.sin(x) * tf_or_jnp.exp(x * 0.3)

    x0 = 0.7
    x = tf.constant(x0, dtype=tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = f(tf.math, x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    g = lambda v: float(np.sin(v) * np.exp(v * 0.3))  # noqa: E731
    h = 1e-3
    fd2 = (g(x0 + h) - 2 * g(x0) + g(x0 - h)) / h**2
    fd3 = (g(x0 + 2 * h) - 2 * g(x0 + h) + 2 * g(x0 - h) - g(x0 - 2 * h)) / (2 * h**3)
    assert float(d2) == pytest.approx(fd2, rel=1e-5)
    assert float(d3) == pytest.approx(fd3, rel=1e-4)
    assert d3.dtype == tf.float64


def test_nested_program_cache_is_keyed_by_structure():
    lowering.clear_cache()
    for value in (1.0, 2.0):
        x = tf.constant(value)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.sin(x) * x
            dy = inner.gradient(y, x)
        outer.gradient(dy, x)
    assert len(lowering._cache) == 2


def test_batch_jacobian_chunked_and_whole_agree():
    """Always reverse mode (TF's answer: the jacobian of the batch-summed target, row by
    row); ``parallel_iterations`` chunks the rows: the same numbers."""
    rng = np.random.default_rng(1)
    x = tf.constant(rng.standard_normal((5, 3)).astype(np.float32))
    w = tf.constant(rng.standard_normal((3, 8)).astype(np.float32))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.tanh(tf.matmul(x * x, w))  # rows of 8 from rows of 3
    # The first call also runs the deferred forward (lazy.py) in its program.
    whole = g.batch_jacobian(y, x)
    chunked = g.batch_jacobian(y, x, parallel_iterations=3)
    assert whole.shape == (5, 8, 3)
    np.testing.assert_allclose(whole.numpy(), chunked.numpy(), rtol=1e-5, atol=1e-6)
    per_example = jax.vmap(jax.jacrev(lambda r: jax.numpy.tanh((r * r) @ w.numpy())))(x.numpy())
    np.testing.assert_allclose(whole.numpy(), per_example, rtol=1e-5, atol=1e-6)
    g.batch_jacobian(y, x)
    before = lowering.trace_counts()["batch_jacobian"]
    again = g.batch_jacobian(y, x)
    g.batch_jacobian(y, x, parallel_iterations=3)
    assert lowering.trace_counts()["batch_jacobian"] == before  # one program per chunking
    np.testing.assert_array_equal(again.numpy(), whole.numpy())


def test_batch_jacobian_sums_over_the_batch_when_examples_interact():
    """TF's semantics when a row depends on other examples: d(sum_b y[b, i]) / dx[b', j]."""
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 10)
    w = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 5)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.matmul(x, w) * tf.reduce_sum(x)

    def summed(xs):
        return jax.numpy.sum((xs @ w.numpy()) * xs.sum(), axis=0)  # (3,)

    full = jax.jacrev(summed)(x.numpy())  # (3, 4, 2): row i, example b, column j
    np.testing.assert_allclose(
        g.batch_jacobian(y, x).numpy(), np.moveaxis(full, 1, 0), rtol=1e-5, atol=1e-6
    )


def test_forward_mode_falls_back_to_reverse_for_reverse_only_rules():
    """Custom and TF-specific gradients are VJPs: a jacobian that would take forward mode
    through one uses reverse mode instead, and gives the custom gradient (TF's answer)."""

    @tf.custom_gradient
    def triple_grad(x):
        return x * 2.0, lambda dy: dy * 3.0

    x = tf.constant(np.ones((2, 3), np.float32))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.concat([triple_grad(x)] * 4, axis=1)  # (2, 12) from (2, 3)
    jac = g.jacobian(y, x).numpy()  # 24 outputs, 6 source elements
    assert jac.shape == (2, 12, 2, 3)
    np.testing.assert_array_equal(jac[0, 0, 0, 0], 3.0)
    bj = g.batch_jacobian(y, x).numpy()
    np.testing.assert_array_equal(bj[:, :3, :], np.broadcast_to(3.0 * np.eye(3), (2, 3, 3)))

    @tf.RegisterGradient("Sin")
    def _sin_grad(op, dy):
        return dy * 7.0

    try:
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.concat([tf.sin(x)] * 4, axis=1)
        np.testing.assert_array_equal(g.jacobian(y, x).numpy()[1, 2, 1, 2], 7.0)
    finally:
        registry.unregister("Sin")


def test_forward_mode_where_tfs_double_vjp_differs():
    """docs/compat.md: TF's ForwardAccumulator transposes the gradient function (a double
    VJP), so 0 * inf there gives NaN where the derivative is infinite, and an op whose
    gradient ignores the upstream (``sign``) gives None. tapejax's forward mode is JAX's,
    with TF's derivative formulas: the infinite derivative, and zeros for ``sign``."""
    import tensorflow

    results = {}
    for fw in (tensorflow, tf):
        x = fw.constant([0.0, 1.0, 2.0])
        with fw.autodiff.ForwardAccumulator(x, fw.ones_like(x)) as acc:
            y = fw.math.erfcinv(x)
            s = fw.sign(x)
        results[fw.__name__] = (acc.jvp(y).numpy(), acc.jvp(s))
    (tf_y, tf_s), (y, s) = results["tensorflow"], results["tapejax"]
    np.testing.assert_array_equal(np.isnan(tf_y), [True, False, True])
    np.testing.assert_array_equal(y[[0, 2]], [-np.inf, -np.inf])
    np.testing.assert_allclose(y[1], tf_y[1], rtol=1e-6)
    assert tf_s is None
    np.testing.assert_array_equal(s.numpy(), [0.0, 0.0, 0.0])
