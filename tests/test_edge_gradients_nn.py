"""Gradients of ``tapejax.nn``'s activations and losses at edge inputs (0, -0.0, NaN,
+-inf, huge magnitudes, values whose activation rounds to 0), against real TensorFlow.

At these points TF's gradient kernels (``EluGrad``, ``SeluGrad``, ``SoftsignGrad``) and
its loss formulas (selects on ``logits >= 0``, ``Abs`` and ``Relu`` gradients) give values
that JAX's derivative of the textbook formula does not. Where TF's gradient has a shape
its source does not have (a TF bug), tapejax's correct shape is pinned together with TF's.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import grad_of, second_grad_of  # noqa: E402 - the shared op-test harness

NAN, INF = np.nan, np.inf


def f32(*values):
    return np.array(values, np.float32)


EDGES = f32(0.0, -0.0, NAN, INF, -INF, -1e-30, 1.0, -1.0)
HUGE = f32(INF, -INF, 1e10, -1e10, 0.0, -0.0, NAN, 6.0)
LOGITS = f32(0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 3.0)
LABELS = f32(0.0, 0.0, 1.0, 1.0, -1.0, -1.0, 0.5, 1.0)

# (what, fn(tf, x), x): d sum(fn(x)) / dx must be TF's.
CASES = [
    ("elu at 0, nan, inf", lambda tf, x: tf.nn.elu(x), EDGES),
    ("selu at 0, nan, inf, -1e-30", lambda tf, x: tf.nn.selu(x), EDGES),
    ("nn.softsign at inf and 1e10", lambda tf, x: tf.nn.softsign(x), HUGE),
    ("math.softsign at inf and 1e10", lambda tf, x: tf.math.softsign(x), HUGE),
    (
        "sigmoid_cross_entropy_with_logits at logits 0",
        lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(LABELS, x),
        LOGITS,
    ),
    (
        "weighted_cross_entropy_with_logits at logits 0",
        lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(LABELS, x, 3.0),
        LOGITS,
    ),
]
IDS = [c[0] for c in CASES]


def _grad(fw, fn, value):
    return np.asarray(grad_of(fw, fn, value))


def _second(fw, fn, value):
    return np.asarray(second_grad_of(fw, fn, value)[1])


def _assert_tfs(got, want):
    # NaN and inf positions must be equal; finite values may differ in the last bits of
    # Eigen's vectorised kernels, measured against the row's largest finite gradient.
    finite = np.abs(want[np.isfinite(want)])
    scale = finite.max() if finite.size else 0.0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7 * scale)


@pytest.mark.parametrize("what, fn, x", CASES, ids=IDS)
def test_gradient_at_edge_inputs_is_tfs(what, fn, x):
    _assert_tfs(_grad(tapejax, fn, x), _grad(tensorflow, fn, x))


@pytest.mark.parametrize("what, fn, x", CASES, ids=IDS)
def test_gradient_at_edge_inputs_is_tfs_inside_function(what, fn, x):
    compiled = tapejax.function(lambda v: fn(tapejax, v))
    _assert_tfs(_grad(tapejax, lambda tf, v: compiled(v), x), _grad(tensorflow, fn, x))


# TF registers no gradient for SoftsignGrad: softsign has no second derivative there.
# sigmoid_cross_entropy_with_logits' second derivative at 0 was TF's before (JAX's and
# TF's agree on the smooth part); the others' differ from JAX's at NaN, inf or 0.
SECOND_ORDER = [c for c in CASES if c[0].startswith(("elu", "selu", "weighted"))]


@pytest.mark.parametrize("what, fn, x", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_derivative_at_edge_inputs_is_tfs(what, fn, x):
    _assert_tfs(_second(tapejax, fn, x), _second(tensorflow, fn, x))


def test_silu_gradient_of_a_beta_tensor_has_betas_shape_unlike_tfs():
    """TF's swish gradient sums ``beta``'s gradient to a scalar whatever ``beta``'s shape
    (docs/compat.md, ``tapejax.nn``); tapejax's has ``beta``'s shape, and sums to TF's."""
    x = np.linspace(-2, 2, 8).astype(np.float32)
    beta = np.linspace(0.5, 2, 8).astype(np.float32)
    got, want = (_grad(fw, lambda tf, b: tf.nn.silu(x, b), beta) for fw in (tapejax, tensorflow))
    assert got.shape == (8,)
    assert want.shape == ()  # TF's: if this fails, TF has fixed its gradient
    np.testing.assert_allclose(got.sum(), want, rtol=1e-6)
    step = 1e-3  # and each entry is the derivative by its own beta
    bumped = beta + step * np.eye(8, dtype=np.float32)
    base = tapejax.nn.silu(x, beta).numpy()
    numeric = [(tapejax.nn.silu(x, b).numpy() - base).sum() / step for b in bumped]
    np.testing.assert_allclose(got, numeric, rtol=2e-2, atol=1e-3)


def test_isotonic_regression_gradient_of_a_vector_averages_segments_unlike_tfs():
    """TF's gradient for a 1-D input splits it into one-element rows: the upstream gradient
    unaveraged, shaped ``[n, 1]`` (docs/compat.md, ``tapejax.nn``). tapejax's has the
    input's shape and averages each segment, as TF's own gradient of the same row as 2-D."""
    x = f32(3, 1, 2, 5, 4, 0, 1, 2)
    upstream = f32(1, 2, 3, 4, 5, 6, 7, 8)

    def grad(fw, value):
        v = fw.constant(value)
        with fw.GradientTape() as tape:
            tape.watch(v)
            y = fw.nn.isotonic_regression(v)[0]
        return np.asarray(tape.gradient(y, v, output_gradients=upstream.reshape(value.shape)))

    got, want = grad(tapejax, x), grad(tensorflow, x)
    assert got.shape == (8,)
    assert want.shape == (8, 1)  # TF's: if this fails, TF has fixed its gradient
    np.testing.assert_array_equal(want[:, 0], upstream)
    np.testing.assert_array_equal(got, grad(tensorflow, x.reshape(1, 8))[0])
