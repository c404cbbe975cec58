"""Deferred recording under one tape (``tapejax/_src/lazy.py``).

Under a lone GradientTape, recorded ops do not run at once: their values are computed
in the gradient's own program, or when something reads them first. These tests pin
that nothing observable changes but when the work happens: values, shapes, errors at
the line, warnings, trace counts and memory.
"""

import gc
import weakref

import jax
import numpy as np
import pytest

import tapejax as tf
from tapejax._src import lazy, lowering, plans
from tapejax._src.tensor import Pending


def _pending(t) -> bool:
    return type(t._v) is Pending


def _mlp(x, w1, b1, w2):
    return tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)))


@pytest.fixture
def weights():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((4, 3)).astype(np.float32))
    w1 = tf.Variable(rng.standard_normal((3, 5)).astype(np.float32))
    b1 = tf.Variable(rng.standard_normal(5).astype(np.float32))
    w2 = tf.Variable(rng.standard_normal((5, 2)).astype(np.float32))
    return x, w1, b1, w2


def _reference(x, w1, b1, w2):
    def loss(p):
        h = jax.nn.relu(x.numpy() @ p[0] + p[1])
        return jax.numpy.mean((h @ p[2]) ** 2)

    params = [w1.numpy(), b1.numpy(), w2.numpy()]
    return loss(params), jax.grad(loss)(params)


def test_recorded_ops_are_deferred_with_shapes_and_dtypes_known(weights):
    x, w1, b1, w2 = weights
    with tf.GradientTape() as tape:
        h = tf.matmul(x, w1) + b1
        loss = tf.reduce_mean(tf.square(h))
    assert _pending(h) and _pending(loss)
    assert h.shape.as_list() == [4, 5] and h.dtype == tf.float32 and loss.shape.rank == 0
    unwatched = x * 2.0  # no recorded input: runs at once
    assert not _pending(unwatched)
    tape.gradient(loss, [w1, b1])
    assert not _pending(loss) and not _pending(h)  # computed by the gradient's program


def test_gradient_and_values_match_eager_math(weights):
    x, w1, b1, w2 = weights
    with tf.GradientTape() as tape:
        loss = _mlp(x, w1, b1, w2)
    grads = tape.gradient(loss, [w1, b1, w2])
    ref_loss, ref_grads = _reference(x, w1, b1, w2)
    np.testing.assert_allclose(loss.numpy(), ref_loss, rtol=1e-5)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-6)


def test_reading_a_value_inside_the_tape_computes_it(weights, capsys):
    x, w1, b1, w2 = weights
    with tf.GradientTape() as tape:
        h = tf.matmul(x, w1) + b1
        if tf.reduce_sum(h) > -1e9:  # __bool__ needs the value now
            h = tf.nn.relu(h)
        print(float(tf.reduce_sum(h)))
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2)))
    grads = tape.gradient(loss, [w1, b1, w2])
    ref_loss, ref_grads = _reference(x, w1, b1, w2)
    assert capsys.readouterr().out.strip()
    np.testing.assert_allclose(loss.numpy(), ref_loss, rtol=1e-5)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-5, atol=1e-6)


def test_errors_are_raised_at_the_line(weights):
    x, w1, _, _ = weights
    with tf.GradientTape():
        h = tf.matmul(x, w1)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.matmul(h, w1)  # (4, 5) @ (3, 5)
        with pytest.raises(tf.errors.InvalidArgumentError):
            h + tf.ones([3])


def test_a_training_loop_compiles_one_program(weights):
    x, w1, b1, w2 = weights
    lowering.clear_cache()
    before = lowering.trace_counts().get("gradient", 0)
    n_plans, programs = len(plans._plans), len(lazy._programs)
    losses = []
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        grads = tape.gradient(loss, [w1, b1, w2])
        for v, g in zip([w1, b1, w2], grads):
            v.assign_sub(0.01 * g)
        losses.append(float(loss))
    assert lowering.trace_counts()["gradient"] - before == 1
    assert len(plans._plans) - n_plans == 1  # the first step: forward and backward, fused
    # From the second step on, the gradient and the updates are deferred too: the whole
    # step (forward, backward, updates) is one program, found by structure.
    assert len(lazy._programs) - programs == 1
    assert losses[-1] < losses[0]


def test_nested_tapes_defer_into_one_program(compute_runs):
    x = tf.constant(1.5)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        assert _pending(y)  # recorded by both tapes, deferred on the outer one
        dy = inner.gradient(y, x)
        assert _pending(dy)  # the inner derivative is a node of the outer recording
    d2y = outer.gradient(dy, x)
    # The outer derivative's program computed the forward and the inner derivative too.
    assert not _pending(y) and not _pending(dy)
    assert float(d2y) == pytest.approx(6 * 1.5)
    assert float(dy) == pytest.approx(3 * 1.5**2)
    assert float(y) == pytest.approx(1.5**3)
    assert compute_runs == []


def test_a_pending_value_feeds_a_later_tape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as first:
        first.watch(x)
        y = tf.exp(x)
    assert _pending(y)
    with tf.GradientTape() as second:
        second.watch(y)
        z = tf.reduce_sum(y * y)
    dz = second.gradient(z, y)  # y is computed in the second tape's program
    np.testing.assert_allclose(dz.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    dy = first.gradient(y, x)
    np.testing.assert_allclose(dy.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


def test_an_op_outside_the_tape_computes_its_pending_input(weights):
    x, w1, b1, w2 = weights
    with tf.GradientTape(persistent=True) as tape:
        loss = _mlp(x, w1, b1, w2)
    doubled = loss * 2.0  # outside the tape, before the gradient
    ref_loss, ref_grads = _reference(x, w1, b1, w2)
    np.testing.assert_allclose(doubled.numpy(), 2 * ref_loss, rtol=1e-5)
    for _ in range(2):  # persistent: a second gradient gives the same
        g = tape.gradient(loss, w1)
        np.testing.assert_allclose(g.numpy(), ref_grads[0], rtol=1e-5, atol=1e-6)


def test_jacobian_and_batch_jacobian_fuse_the_forward():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((3, 4)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((4, 2)).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(x, w))
    bj = tape.batch_jacobian(y, x)
    assert not _pending(y)
    ref = jax.vmap(jax.jacrev(lambda r: jax.numpy.tanh(r @ w.numpy())))(x.numpy())
    np.testing.assert_allclose(bj.numpy(), ref, rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        y = tf.tanh(tf.matmul(x, w))
    jac = tape.jacobian(y, w)
    ref = jax.jacrev(lambda v: jax.numpy.tanh(x.numpy() @ v))(w.numpy())
    np.testing.assert_allclose(jac.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_custom_gradient_runs_its_python_at_the_call():
    calls = []

    @tf.custom_gradient
    def f(x):
        calls.append("forward")

        def grad(dy):
            return dy * 10.0

        return tf.identity(x), grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x * 3.0)  # a pending input to user code
        assert calls == ["forward"]
    assert float(tape.gradient(y, x)) == pytest.approx(30.0)


def test_converting_a_pending_watched_tensor_still_warns():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        with pytest.warns(tf.GradientCutWarning):
            arr = np.asarray(y)
    np.testing.assert_array_equal(arr, [2.0, 4.0])
    assert tape.gradient(y, x) is not None


def test_computed_values_keep_no_graph_alive():
    x = tf.constant(np.ones((8, 8), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = tf.exp(x)
        ref = weakref.ref(h)
        y = tf.reduce_sum(h * h)
    del h
    tape.gradient(y, x)
    del tape
    gc.collect()
    assert ref() is None  # the loss, still held, no longer holds its inputs
    assert float(y) == pytest.approx(64 * np.e**2, rel=1e-5)


def test_ops_that_run_at_once_compute_their_pending_inputs():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = x * 2.0
        assert _pending(h)
        s = tf.stop_gradient(h)  # runs unrecorded, at once: computes h first
        assert not _pending(s)
        y = tf.reduce_sum(h * s)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2.0 * 2.0 * np.array([1, 2, 3]))


# -- the gradient and the updates after it ---------------------------------------------------


def _sgd_reference(x, params, steps, lr=0.01):
    """Losses and final weights of ``steps`` SGD steps of ``_mlp``, in plain JAX."""

    def loss(p):
        h = jax.nn.relu(x @ p[0] + p[1])
        return jax.numpy.mean((h @ p[2]) ** 2)

    losses = []
    for _ in range(steps):
        value, grads = jax.value_and_grad(loss)(params)
        losses.append(float(value))
        params = [p - lr * g for p, g in zip(params, grads)]
    return losses, params


def test_the_gradient_and_the_updates_after_it_are_one_program(weights):
    x, w1, b1, w2 = weights
    variables = [w1, b1, w2]
    ref_losses, ref_params = _sgd_reference(x.numpy(), [v.numpy() for v in variables], 5)
    lowering.clear_cache()  # a fresh start: no plan for this structure yet
    programs = len(lazy._programs)
    losses = []
    for step in range(5):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        grads = tape.gradient(loss, variables)
        # The first step runs the plan it makes; later ones defer the gradient too.
        assert all(_pending(g) for g in grads) == (step > 0)
        for v, g in zip(variables, grads):
            v.assign_sub(0.01 * g)
        assert w1.shape.as_list() == [3, 5] and w1.dtype == tf.float32 and w1.ndim == 2
        assert (type(w1._v) is Pending) == (step > 0)  # the update waits with its gradient
        losses.append(float(loss))  # computes the step: forward, gradient and updates
        assert not any(_pending(g) for g in grads)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for v, p in zip(variables, ref_params):
        np.testing.assert_allclose(v.numpy(), p, rtol=1e-5, atol=1e-6)
    assert len(lazy._programs) - programs <= 1  # one program for steps 2..5


def test_the_next_step_computes_the_deferred_one(weights):
    x, w1, b1, w2 = weights
    variables = [w1, b1, w2]
    ref_losses, ref_params = _sgd_reference(x.numpy(), [v.numpy() for v in variables], 4)
    losses = []
    for _ in range(4):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)  # reads the updated variables: computes the last step
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(0.01 * g)
        losses.append(loss)
    np.testing.assert_allclose([float(v) for v in losses], ref_losses, rtol=1e-5)
    np.testing.assert_allclose(w2.numpy(), ref_params[2], rtol=1e-5, atol=1e-6)


def test_a_persistent_tape_does_not_defer_its_gradient(weights):
    x, w1, b1, w2 = weights
    for _ in range(3):
        with tf.GradientTape(persistent=True) as tape:
            loss = _mlp(x, w1, b1, w2)
        g = tape.gradient(loss, w1)
        assert not _pending(g)
        assert tape.gradient(loss, w1).numpy() == pytest.approx(g.numpy())


def test_errors_in_deferred_updates_are_raised_at_the_line(weights):
    x, w1, b1, w2 = weights
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        g1, g2 = tape.gradient(loss, [w1, w2])
    assert _pending(g1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot update variable"):
        w1.assign_sub(g2)  # (5, 2) into (3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        g1 + tf.ones([7])
    w1.assign_sub(0.01 * g1)  # the recording is still usable
    assert np.all(np.isfinite(w1.numpy()))


def test_pending_values_of_two_recordings_meet_outside_both(weights):
    x, w1, b1, w2 = weights
    grads = []
    for _ in range(2):  # the first tape's gradient runs at once: loop twice per tape
        for _ in range(2):
            with tf.GradientTape() as tape:
                loss = _mlp(x, w1, b1, w2)
            g = tape.gradient(loss, w1)
        grads.append(g)
        x = x * 1.0 + 0.5  # a second problem
    assert all(_pending(g) for g in grads)
    total = grads[0] + grads[1]  # the second recording is computed, the sum deferred
    np.testing.assert_allclose(
        total.numpy(), grads[0].numpy() + grads[1].numpy(), rtol=1e-6, atol=1e-7
    )


def test_a_deferred_step_keeps_no_graph_alive(weights):
    x, w1, b1, w2 = weights
    for step in range(3):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        grads = tape.gradient(loss, [w1, b1, w2])
        if step == 2:
            ref = weakref.ref(grads[0])
            recording = weakref.ref(grads[0]._v.node.trace)
        for v, g in zip([w1, b1, w2], grads):
            v.assign_sub(0.01 * g)
    del grads, g, tape
    w1.numpy()  # computes the last step
    assert ref() is None and recording() is None  # no cycle: freed without the collector
    float(loss)


def test_keras_optimizer_updates_are_deferred_and_exact(weights):
    pytest.importorskip("keras")
    from tapejax import keras

    x, w1, b1, w2 = weights
    variables = [w1, b1, w2]
    initial = [v.numpy() for v in variables]
    results = {}
    for defer in (True, False):
        for v, value in zip(variables, initial):
            v.assign(value)
        opt = keras.optimizers.Adam(0.05)
        losses = []
        for _ in range(4):
            with tf.GradientTape() as tape:
                loss = _mlp(x, w1, b1, w2)
            grads = tape.gradient(loss, variables)
            if not defer:
                grads = [tf.constant(g.numpy()) for g in grads]
            opt.apply_gradients(zip(grads, variables))
            if defer and len(losses) > 0:
                assert type(w1._v) is Pending
            losses.append(float(loss))
        results[defer] = (losses, [v.numpy() for v in variables], int(opt.iterations.numpy()))
    assert results[True][0] == results[False][0]
    for a, b in zip(results[True][1], results[False][1]):
        np.testing.assert_array_equal(a, b)
    assert results[True][2] == results[False][2] == 4


def test_a_deferred_step_returns_only_the_values_still_held(weights):
    from tapejax._src.tensor import DROPPED

    x, w1, b1, w2 = weights
    kept = []
    for step in range(3):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        grads = tape.gradient(loss, [w1, b1, w2])
        if step == 2:
            node = grads[0]._v.node  # the derivative's node, not its outputs
            kept.append(grads[1])  # one gradient the caller keeps
        for v, g in zip([w1, b1, w2], grads):
            v.assign_sub(0.01 * g)
    del grads, g
    float(loss)  # computes the last step
    assert node.results[0] is DROPPED and node.results[2] is DROPPED  # never written out
    assert not _pending(kept[0]) and kept[0].shape.as_list() == [5]
    assert np.all(np.isfinite(kept[0].numpy())) and np.all(np.isfinite(w1.numpy()))


def test_a_long_loop_after_the_gradient_runs_eagerly_past_a_bound(weights):
    x, w1, b1, w2 = weights
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = _mlp(x, w1, b1, w2)
        g = tape.gradient(loss, w1)
    assert _pending(g)
    h = g
    for _ in range(lazy._MAX_AFTER + 10):
        h = h * 1.0
    assert not _pending(h)  # the recording was computed at the bound; the rest ran at once
    assert not _pending(g)
    np.testing.assert_array_equal(h.numpy(), g.numpy())


def test_a_source_that_is_the_first_leaf_has_a_plan():
    # Leaf number 0 once compared equal to False and cost every such trace its plan.
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((4, 3)).astype(np.float32))
    w = tf.constant(rng.standard_normal((3, 2)).astype(np.float32))
    lowering.clear_cache()
    results = []
    for _ in range(3):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.matmul(x, w))  # x is the trace's leaf 0
        results.append(tape.batch_jacobian(y, x))
    assert len(plans._plans) == 1
    assert _pending(results[-1])  # found by its plan, so deferred like a gradient
    ref = jax.vmap(jax.jacrev(lambda r: jax.numpy.tanh(r @ w.numpy())))(x.numpy())
    for r in results:
        np.testing.assert_allclose(r.numpy(), ref, rtol=1e-5, atol=1e-6)


@pytest.fixture
def compute_runs(monkeypatch):
    """How many pending values each ``Pending.compute`` call of the test was given."""
    runs = []
    compute = Pending.compute

    def spy(pendings):
        runs.append(len(pendings))
        return compute(pendings)

    monkeypatch.setattr(Pending, "compute", spy)
    return runs


def test_a_gradient_taken_while_recording_is_deferred_with_its_inputs(compute_runs):
    # Inside a persistent tape's context the derivative is an op the tape records: it is
    # deferred with the forward values it reads, and one program computes them all.
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.exp(x) * tf.sin(x))
        assert _pending(y)
        g = tape.gradient(y, x)
        assert _pending(g)
    assert compute_runs == []
    want = np.exp([1.0, 2.0]) * (np.sin([1.0, 2.0]) + np.cos([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)
    assert compute_runs == [1]


def test_a_custom_gradient_computes_its_pending_inputs_in_one_program(compute_runs):
    # A custom gradient runs now under a tape; both of its inputs are pending in the
    # tape's recording, and one program computes them.
    @tf.custom_gradient
    def product(u, v):
        return u * v, lambda dy: (dy * v, dy * u)

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        a, b = tf.exp(x), tf.sin(x)
        assert _pending(a) and _pending(b)
        y = product(a, b)
    assert compute_runs == [2]
    np.testing.assert_allclose(y.numpy(), np.exp([1.0, 2.0]) * np.sin([1.0, 2.0]), rtol=1e-6)
    want = np.exp([1.0, 2.0]) * (np.sin([1.0, 2.0]) + np.cos([1.0, 2.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)


# -- Python scalars reach programs as cached device arrays ------------------------------------


def test_a_warm_training_step_copies_nothing_to_the_device(weights):
    """Python scalars (a learning rate, ``* 2.0``) and ``tf.zeros`` reach programs as
    device arrays made once: steps after the first copy nothing from the host (on a GPU,
    each copy is a transfer per scalar per step)."""
    x, w1, b1, w2 = weights
    variables = [w1, b1, w2]

    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1) * 2.0 + tf.zeros((4, 5))
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2))) + 0.5
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(0.01 * g)
        eager = (x * 3.0 + 1) / 2  # no tape: one op at a time
        return loss.numpy(), eager.numpy()

    for _ in range(3):
        step()
    with jax.transfer_guard_host_to_device("disallow"):
        for _ in range(3):
            loss, eager = step()
    np.testing.assert_allclose(eager, (x.numpy() * 3.0 + 1) / 2, rtol=1e-6)
    assert np.isfinite(loss)


@pytest.mark.parametrize("under_tape", [False, True])
def test_scalar_operands_keep_their_value_sign_and_type(under_tape, x64):
    """Cached scalars stay the value written: -0.0 keeps its sign, NaN stays NaN, and a
    float cached in 32-bit mode is not reused in 64-bit mode (nor an int as a float)."""
    jax.config.update("jax_enable_x64", False)
    with tf.GradientTape() if under_tape else _no_tape():
        y32 = tf.constant([1.0, 2.0]) * 0.1
    jax.config.update("jax_enable_x64", True)
    x = tf.constant([1.0, 2.0], tf.float64)
    with tf.GradientTape() if under_tape else _no_tape() as tape:
        if under_tape:
            tape.watch(x)
        y64 = x * 0.1
        neg = x * -0.0
        pos = x * 0.0
        nan = x + float("nan")
        i = tf.constant([7, 9], tf.int64) // 2
        f = tf.constant([7.0, 9.0], tf.float64) / 2
    assert y64.dtype == tf.float64 and y32.dtype == tf.float32
    np.testing.assert_array_equal(y64.numpy(), np.array([1.0, 2.0]) * 0.1)
    np.testing.assert_array_equal(y32.numpy(), np.float32([1.0, 2.0]) * np.float32(0.1))
    assert np.all(np.signbit(neg.numpy())) and not np.any(np.signbit(pos.numpy()))
    assert np.all(np.isnan(nan.numpy()))
    np.testing.assert_array_equal(i.numpy(), [3, 4])
    np.testing.assert_array_equal(f.numpy(), [3.5, 4.5])


class _no_tape:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
