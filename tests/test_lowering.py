"""The backward is one cached XLA program per trace structure: trace counts and memory.

Counts come from ``lowering.trace_counts()``, incremented each time JAX traces a
derivative program; a training loop must trace it once.
"""

import gc
import os
import weakref

import numpy as np
import pytest

import tapejax as tf
from tapejax._src import lowering


def traces(kind="gradient"):
    return lowering.trace_counts().get(kind, 0)


def make_mlp(seed, sizes=(8, 16, 4)):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params.append(tf.Variable(rng.standard_normal((a, b)).astype(np.float32)))
        params.append(tf.Variable(np.zeros(b, np.float32)))
    x = tf.constant(rng.standard_normal((5, sizes[0])).astype(np.float32))
    y = tf.constant(rng.integers(0, sizes[-1], 5).astype(np.int32))
    return params, x, y


def train(params, x, y, steps):
    losses = []
    for _ in range(steps):
        with tf.GradientTape() as tape:
            h = x
            for i in range(0, len(params), 2):
                h = tf.matmul(h, params[i]) + params[i + 1]
                if i + 2 < len(params):
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
            )
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(0.1 * g)
        losses.append(float(loss))
    return losses


def test_training_loop_traces_once_across_steps_and_loops():
    lowering.clear_cache()
    before = traces()
    losses = train(*make_mlp(0), steps=20)
    assert traces() - before == 1
    assert losses[-1] < losses[0]
    train(*make_mlp(1), steps=20)  # new values, same structure: no new trace
    assert traces() - before == 1
    train(*make_mlp(2, sizes=(8, 32, 4)), steps=3)  # new shapes: one more
    assert traces() - before == 2


def test_python_scalars_are_arguments_not_constants():
    lowering.clear_cache()
    before = traces()
    x = tf.constant(2.0)
    for scale in (1.0, 2.5, -3.0):
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x * scale
        assert float(g.gradient(y, x)) == pytest.approx(4.0 * scale)
    assert traces() - before == 1


def test_nested_gradients_trace_once_per_structure():
    lowering.clear_cache()
    before = traces()
    counts = []
    for value in (1.0, 2.0, 3.0):
        x = tf.constant(value)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        d2y = outer.gradient(dy, x)
        assert float(d2y) == pytest.approx(6 * value)
        counts.append(traces() - before)
    # The first step traces the inner program once (the outer one's program reuses its
    # trace) and the outer one once; later steps trace nothing.
    assert counts == [2, 2, 2]


@pytest.fixture
def lower_calls(monkeypatch):
    """How many times ``lowering.lower`` walked a trace during the test."""
    from tapejax._src import plans

    calls = []
    lower = plans.lower

    def spy(*args):
        calls.append(args[3])
        return lower(*args)

    monkeypatch.setattr(plans, "lower", spy)
    monkeypatch.setattr(lowering, "lower", spy)
    return calls


def test_an_inner_tapes_lowering_is_found_by_structure(lower_calls):
    # Under nested tapes the inner tape's derivative has no plan (its ops are deferred on
    # the outer tape); its lowering is found by the trace's structure from step 2 on.
    w = tf.Variable(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32))
    v = tf.constant(np.ones((2, 2), np.float32))
    results = []
    for step in range(3):
        x = tf.constant(np.array([[1.0, 2.0]], np.float32) * (step + 1))
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
            g = inner.gradient(y, w)
            gv = tf.reduce_sum(g * v)
        results.append(outer.gradient(gv, w).numpy())
    # Step 1 lowers the inner and the outer derivative; later steps find the inner one by
    # structure and the outer one by its plan.
    assert lower_calls == ["gradient", "gradient"]

    def hvp(x0):
        import jax
        import jax.numpy as jnp

        def loss(w_):
            return jnp.sum(jnp.tanh(x0 @ w_) ** 2)

        return jax.jvp(jax.grad(loss), (w.numpy(),), (v.numpy(),))[1]

    for step, r in enumerate(results):
        want = hvp(np.array([[1.0, 2.0]], np.float32) * (step + 1))
        np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-6)


def test_a_structure_key_tells_a_source_that_is_also_the_target(lower_calls):
    # Same ops and shapes, but the target is the source in one call and not in the other:
    # two lowerings, each right.
    a = tf.Variable(np.float32(2.0))
    b = tf.Variable(np.float32(3.0))
    with tf.GradientTape(persistent=True) as tape:
        y = a * 1.0
    assert float(tape.gradient(y, a)) == 1.0
    assert tape.gradient(b, a) is None
    assert float(tape.gradient(a, a)) == 1.0
    assert len(lower_calls) == 3


def test_jacobians_never_retrace():
    lowering.clear_cache()
    before_j, before_b = traces("jacobian"), traces("batch_jacobian")
    for seed in range(4):
        w = tf.Variable(np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32))
        x = tf.constant(np.ones((5, 3), np.float32))
        with tf.GradientTape(persistent=True) as g:
            g.watch(x)
            y = tf.tanh(tf.matmul(x, w))
        assert g.jacobian(y, w).shape == (5, 4, 3, 4)
        assert g.batch_jacobian(y, x).shape == (5, 4, 3)
    assert traces("jacobian") - before_j == 1
    assert traces("batch_jacobian") - before_b == 1


def test_nonpersistent_tape_releases_its_recording():
    x = tf.constant(np.ones(4, np.float32))
    with tf.GradientTape() as g:
        g.watch(x)
        h = x * 2
        y = tf.reduce_sum(h * h)
    trace_ref = weakref.ref(g._tape)
    h_ref = weakref.ref(h)
    g.gradient(y, x)
    del h
    gc.collect()
    assert trace_ref() is None
    assert h_ref() is None


def test_persistent_tape_is_released_on_del():
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    trace_ref = weakref.ref(g._tape)
    del g
    gc.collect()
    assert trace_ref() is None


def _rss_mb():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_ten_thousand_steps_do_not_grow_memory():
    params, x, y = make_mlp(0)
    train(params, x, y, 1000)
    gc.collect()
    start = _rss_mb()
    train(params, x, y, 9000)
    gc.collect()
    assert _rss_mb() - start < 30, "the training loop leaks memory"


# -- slice cotangents are concatenated, not summed as pads ---------------------------------

SLICE_PATTERNS = {
    "gates": lambda x: [x[:, :2], x[:, 2:4], x[:, 4:6], x[:, 6:]],
    "gaps and order": lambda x: [x[:, 5:7], x[:, 1:2]],
    "overlapping": lambda x: [x[:, :5], x[:, 3:]],
    "two axes": lambda x: [x[:1, :3], x[1:, 3:]],
    "ints and newaxis": lambda x: [x[1], x[0, tf.newaxis, 2:], x[..., -1]],
    "with a dense use": lambda x: [x[:, :4], x * 2.0, x[:, 4:]],
    "strided (generic path)": lambda x: [x[:, ::2], x[:, 1:]],
    "one slice": lambda x: [x[:, 3:5]],
}


@pytest.mark.parametrize("pattern", SLICE_PATTERNS, ids=list(SLICE_PATTERNS))
def test_slice_cotangents_accumulate_exactly(pattern):
    import jax
    import jax.numpy as jnp

    fn = SLICE_PATTERNS[pattern]
    x0 = np.arange(24, dtype=np.float32).reshape(3, 8) / 10.0
    weights = [np.float32(k + 1) for k in range(4)]

    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.add_n([tf.reduce_sum(w * p * p) for w, p in zip(weights, fn(x))])
    got = tape.gradient(y, x).numpy()

    def jloss(a):
        return sum(jnp.sum(w * p * p) for w, p in zip(weights, fn(_JaxIndexable(a))))

    want = jax.grad(jloss)(jnp.asarray(x0))
    np.testing.assert_allclose(got, want, rtol=1e-6)


class _JaxIndexable:
    """A raw JAX array that also supports ``* 2.0`` and tapejax's ``newaxis``."""

    def __init__(self, a):
        self.a = a

    def __getitem__(self, key):
        return self.a[key]

    def __mul__(self, other):
        return self.a * other


def test_gate_slices_lower_to_a_concatenation():
    """An LSTM's four gate slices of one tensor: the gradient program concatenates their
    cotangents (XLA's CPU backend runs sums of pads 2-3x slower)."""
    x = tf.Variable(np.ones((4, 8), np.float32))

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            z = x * 1.0
            y = tf.reduce_sum(
                tf.sigmoid(z[:, :2]) * tf.tanh(z[:, 2:4]) + tf.sigmoid(z[:, 4:6]) * z[:, 6:]
            )
        return tape.gradient(y, x)

    grad()
    hlo = grad.experimental_get_compiler_ir()(stage="hlo")
    assert "concatenate" in hlo
    assert " pad(" not in hlo
