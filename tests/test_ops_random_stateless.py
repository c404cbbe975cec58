# ruff: noqa: E501 - tables of TF's texts and calls read best one a line
"""``stateless_gamma``, ``stateless_poisson``, ``stateless_parameterized_truncated_normal``,
``create_rng_state`` and ``random_index_shuffle`` side by side with real TensorFlow.

The stateless distributions' numbers are threefry's, not TF's: their shapes, dtypes and
broadcasting (the same call under both frameworks), determinism per seed, moments
against closed forms, gradients (TF's formulas, evaluated by TF on the same samples) and
errors are checked. ``create_rng_state`` and ``random_index_shuffle`` are deterministic
functions (TF's Simon cipher for the shuffle): Cases compare their values with TF's.
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import tapejax
import tapejax.random

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    case_id,
    check_accepts_variables,
    check_error,
    check_values,
    fixed,
    value_params,
)

OTHERWISE_TESTED = {
    "random.stateless_gamma",
    "random.stateless_poisson",
    "random.stateless_parameterized_truncated_normal",
}


def _i32(v):
    return np.array(v, np.int32)


CASES = [
    fixed(
        "random_index_shuffle",
        lambda dt: (np.arange(6, dtype=np.int32), _i32([1, 2, 3]), np.int32(5)),
    ),
    fixed(
        "random_index_shuffle",
        lambda dt: (np.int32(3), _i32([7, -3, 123456789]), np.int32(100_000)),
    ),
    fixed(
        "random_index_shuffle",
        lambda dt: (np.arange(0, 65_537, 4099, dtype=np.int32), _i32([9, 8, 7]), np.int32(65_536)),
        {"rounds": 6},
    ),
    fixed(
        "random_index_shuffle",
        lambda dt: (
            _i32([0, 5, 9]),
            _i32([[1, 2, 3], [4, 5, 6], [-7, 8, 9]]),
            _i32([9, 10, 2**31 - 1]),
        ),
    ),
    fixed(
        "random_index_shuffle",
        lambda dt: (np.uint32(2**32 - 2), np.array([5, 6, 7], np.uint32), np.uint32(2**32 - 1)),
    ),
    fixed("random_index_shuffle", lambda dt: (np.int32(0), _i32([1, 2, 3]), np.int32(0))),
    fixed(
        "random_index_shuffle",
        lambda dt: (
            np.arange(0, 10**12, 10**11, dtype=np.int64),
            np.array([2**40 + 7, -3, 5], np.int64),
            np.int64(10**12),
        ),
        x64=True,
    ),
    fixed("random.create_rng_state", lambda dt: (1234, "philox"), x64=True),
    fixed("random.create_rng_state", lambda dt: (_i32([12, 34]), "threefry"), x64=True),
    fixed("random.create_rng_state", lambda dt: (2**70 + 5, 1), x64=True),
    fixed(
        "random.create_rng_state",
        lambda dt: (-1, tapejax.random.Algorithm.THREEFRY.value),
        x64=True,
    ),
    fixed(
        "random.create_rng_state",
        lambda dt: (np.array([1, 2, 3, 4], np.int64), "auto_select"),
        x64=True,
    ),
    fixed("random.create_rng_state", lambda dt: (2**64 - 1, "Three_Fry"), x64=True),
]
NOT_DIFFERENTIABLE = {"random_index_shuffle", "random.create_rng_state"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


def test_random_index_shuffle_is_a_permutation_and_tfs_across_block_sizes(x64):
    """Every block size from 16 to 64 bits, near powers of two (where TF's block size
    comes from a rounded log2): TF's values, and a bijection on a small range."""
    top = np.array([2**k + d for k in range(16, 63, 3) for d in (-1, 0, 1, 513)], np.int64)
    idx, seed = top // 3, np.array([3, 1, 4], np.int64)
    got = tapejax.random_index_shuffle(idx, seed, top).numpy()
    np.testing.assert_array_equal(got, tensorflow.random_index_shuffle(idx, seed, top).numpy())
    perm = tapejax.random_index_shuffle(tapejax.range(300), [5, 9, 2], 299).numpy()
    assert sorted(perm.tolist()) == list(range(300))


def test_create_rng_state_without_x64_is_int32_when_it_fits():
    state = tapejax.random.create_rng_state(1234, "philox")
    assert state.dtype == tapejax.int32 and state.numpy().tolist() == [1234, 0, 0]
    with pytest.raises(ValueError, match="jax_enable_x64"):
        tapejax.random.create_rng_state(2**40, "threefry")


def test_create_rng_state_starts_a_generator():
    """A ThreeFry state is 2 integers, as a tapejax Generator's state."""
    g = tapejax.random.Generator.from_state(
        tapejax.random.create_rng_state([5, 6], "threefry"), "threefry"
    )
    h = tapejax.random.Generator.from_state([5, 6], "threefry")
    np.testing.assert_array_equal(g.normal([3]).numpy(), h.normal([3]).numpy())


# -- shapes and dtypes: the same call under both frameworks --------------------------------

CALLS = [
    ("gamma", lambda tf: tf.random.stateless_gamma([3, 2], [1, 2], alpha=[0.5, 2.0])),
    (
        "gamma beta",
        lambda tf: tf.random.stateless_gamma(
            [4, 3, 2], [1, 2], alpha=[[1.0], [2.0], [3.0]], beta=[1.0, 2.0]
        ),
    ),
    ("gamma f16", lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=1.0, dtype=tf.float16)),
    ("gamma scalar", lambda tf: tf.random.stateless_gamma([], [1, 2], alpha=1.0)),
    ("gamma empty", lambda tf: tf.random.stateless_gamma([0, 2], [1, 2], alpha=[1.0, 2.0])),
    ("poisson", lambda tf: tf.random.stateless_poisson([3, 2], [1, 2], lam=[0.5, 4.0])),
    (
        "poisson float",
        lambda tf: tf.random.stateless_poisson([3], [1, 2], lam=2.0, dtype=tf.float32),
    ),
    ("poisson int lam", lambda tf: tf.random.stateless_poisson([2, 3], [1, 2], lam=[2, 3, 4])),
    (
        "poisson f16",
        lambda tf: tf.random.stateless_poisson(
            [3], [1, 2], lam=tf.constant(2.0, tf.float16), dtype=tf.float16
        ),
    ),
    ("ptn", lambda tf: tf.random.stateless_parameterized_truncated_normal([3, 2], [1, 2])),
    (
        "ptn params",
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [5, 2, 3],
            [7, 17],
            means=0.0,
            stddevs=[[1.0], [2.0]],
            minvals=[-1.0, -2.0, -1000.0],
            maxvals=[[10000.0], [1.0]],
        ),
    ),
    (
        "ptn f16",
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], *(tf.constant(v, tf.float16) for v in (0.0, 1.0, -1.0, 1.0))
        ),
    ),
]
CALLS_X64 = [
    ("gamma f64", lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=1.0, dtype=tf.float64)),
    (
        "poisson int64",
        lambda tf: tf.random.stateless_poisson(
            [3], tf.constant([1, 2], tf.int64), lam=tf.constant(2, tf.int64), dtype=tf.int64
        ),
    ),
    (
        "ptn f64",
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], *(tf.constant(v, tf.float64) for v in (0.0, 1.0, -1.0, 1.0))
        ),
    ),
]


def _same_shape_and_dtype(fn):
    got, want = fn(tapejax), fn(tensorflow)
    assert got.shape.as_list() == want.shape.as_list()
    assert got.dtype.name == want.dtype.name


@pytest.mark.parametrize("what, fn", CALLS, ids=[c[0] for c in CALLS])
def test_shapes_and_dtypes_are_tfs(what, fn):
    _same_shape_and_dtype(fn)


@pytest.mark.parametrize("what, fn", CALLS_X64, ids=[c[0] for c in CALLS_X64])
def test_64_bit_shapes_and_dtypes_are_tfs(what, fn, x64):
    _same_shape_and_dtype(fn)


DRAWS = [
    ("gamma", lambda seed: tapejax.random.stateless_gamma([50], seed, alpha=2.0)),
    ("poisson", lambda seed: tapejax.random.stateless_poisson([50], seed, lam=5.0)),
    ("ptn", lambda seed: tapejax.random.stateless_parameterized_truncated_normal([50], seed)),
]


@pytest.mark.parametrize("what, draw", DRAWS, ids=[d[0] for d in DRAWS])
def test_same_seed_same_numbers(what, draw):
    a = draw([1, 2]).numpy()
    tapejax.random.normal([3])  # global state does not matter
    np.testing.assert_array_equal(a, draw(tapejax.constant([1, 2])).numpy())
    assert not np.array_equal(a, draw([2, 1]).numpy())


def _stateless_draws(seed):
    return (
        tapejax.random.stateless_gamma([4], seed, alpha=2.0),
        tapejax.random.stateless_poisson([4], seed, lam=3.0),
        tapejax.random.stateless_parameterized_truncated_normal([4], seed, minvals=0.0),
        tapejax.random_index_shuffle([0, 1, 2, 3], tapejax.concat([seed, seed[:1]], 0), 3),
    )


@pytest.mark.slow
def test_stateless_ops_run_inside_tapejax_function_and_jax_jit():
    """Compiled, the same seed gives the eager numbers, call after call."""
    seed = tapejax.constant([3, 4])
    eager = _stateless_draws(seed)
    f = tapejax.function(_stateless_draws)
    for _ in range(3):
        for got, want in zip(f(seed), eager, strict=True):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    g = jax.jit(
        lambda s: (
            tapejax.random.stateless_gamma([4], tapejax.convert_to_tensor(s), alpha=2.0)._value
        )
    )
    np.testing.assert_allclose(
        np.asarray(g(np.array([3, 4], np.int32))), eager[0].numpy(), rtol=1e-6
    )


# -- distributions: moments against closed forms --------------------------------------------

N = 20_000


def test_gamma_moments():
    x = tapejax.random.stateless_gamma([N, 3], [5, 6], alpha=[0.3, 2.0, 9.0], beta=2.0).numpy()
    a = np.array([0.3, 2.0, 9.0])
    np.testing.assert_allclose(x.mean(0), a / 2, rtol=0.04)
    np.testing.assert_allclose(x.var(0), a / 4, rtol=0.1)
    assert x.min() > 0


def test_gamma_of_zero_alpha_is_tiny_and_negative_alpha_nan_as_tf():
    x = tapejax.random.stateless_gamma([3], [1, 2], alpha=[0.0, -1.0, 1.0]).numpy()
    assert x[0] == np.finfo(np.float32).tiny and np.isnan(x[1]) and x[2] > 0


def test_poisson_moments_and_non_positive_rates():
    x = tapejax.random.stateless_poisson([N, 4], [5, 6], lam=[0.5, 4.0, 0.0, -1.0]).numpy()
    assert x.dtype == np.int32
    np.testing.assert_allclose(x[:, :2].mean(0), [0.5, 4.0], rtol=0.04)
    np.testing.assert_allclose(x[:, :2].var(0), [0.5, 4.0], rtol=0.1)
    assert np.all(x[:, 2:] == 0)  # TF draws 0 for a rate <= 0


def _truncated_normal_moments(mean, std, lo, hi):
    """Mean and standard deviation of N(mean, std) truncated to [lo, hi] (closed form)."""
    a, b = (lo - mean) / std, (hi - mean) / std

    def pdf(z):
        return 0.0 if math.isinf(z) else math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def cdf(z):
        return 0.5 * math.erfc(-z / math.sqrt(2))

    mass = cdf(b) - cdf(a)
    shift = (pdf(a) - pdf(b)) / mass
    za = 0.0 if math.isinf(a) else a * pdf(a)
    zb = 0.0 if math.isinf(b) else b * pdf(b)
    var = 1 + (za - zb) / mass - shift**2
    return mean + std * shift, std * math.sqrt(var)


@pytest.mark.parametrize(
    "mean, std, lo, hi",
    [
        (0.0, 1.0, -2.0, 2.0),
        (1.0, 2.0, 0.0, 3.0),
        (0.0, 1.0, 3.0, math.inf),
        (0.0, 1.0, -math.inf, -4.0),
        (5.0, 0.5, -100.0, 4.0),
    ],
)
def test_truncated_normal_moments_and_bounds(mean, std, lo, hi):
    x = tapejax.random.stateless_parameterized_truncated_normal(
        [N], [7, 8], mean, std, lo, hi
    ).numpy()
    assert x.min() >= lo and x.max() <= hi
    m, s = _truncated_normal_moments(mean, std, lo, hi)
    assert abs(x.mean() - m) < 4 * s / math.sqrt(N)
    assert abs(x.std() / s - 1) < 0.03


def test_truncated_normal_far_in_the_tail():
    """Beyond ~13 standard deviations float32 CDFs underflow: the tail is still drawn
    (mean ~ lo + 1/lo, as TF's exponential sampler there)."""
    x = tapejax.random.stateless_parameterized_truncated_normal(
        [N], [7, 8], 0.0, 1.0, 40.0, math.inf
    ).numpy()
    assert x.min() >= 40.0 and np.all(np.isfinite(x))
    assert abs(x.mean() - 40.025) < 0.002
    y = tapejax.random.stateless_parameterized_truncated_normal(
        [N], [7, 8], 0.0, 1.0, -math.inf, -40.0
    ).numpy()
    np.testing.assert_array_equal(-y, x)


# -- gradients: TF's formulas, evaluated by TF on the same samples ---------------------------


def test_gamma_gradient_is_tfs_random_gamma_grad_on_the_samples():
    """TF: d sample / d alpha = RandomGammaGrad(alpha, sample * beta) / beta, summed over
    the sample dimensions; d sample / d beta = -sample / beta."""
    alpha, beta = tapejax.constant([0.4, 3.0]), tapejax.constant([[2.0], [0.5]])
    w = tapejax.constant(np.linspace(0.5, 1.5, 5 * 2 * 2).reshape(5, 2, 2).astype(np.float32))
    with tapejax.GradientTape() as tape:
        tape.watch([alpha, beta])
        x = tapejax.random.stateless_gamma([5, 2, 2], [3, 4], alpha=alpha, beta=beta)
        loss = tapejax.reduce_sum(x * w)
    g_alpha, g_beta = tape.gradient(loss, [alpha, beta])
    xs, ws, b = x.numpy(), w.numpy(), beta.numpy()
    partial = tensorflow.raw_ops.RandomGammaGrad(
        alpha=np.broadcast_to(alpha.numpy(), xs.shape), sample=xs * b
    ).numpy()
    np.testing.assert_allclose(g_alpha.numpy(), (ws * partial / b).sum((0, 1)), rtol=1e-4)
    np.testing.assert_allclose(g_beta.numpy(), (-ws * xs / b).sum((0, 2))[:, None], rtol=1e-5)


def test_gamma_gradient_is_the_implicit_reparameterization_on_average():
    """E[d sample / d alpha] = d E[sample] / d alpha = 1 / beta."""
    alpha = tapejax.constant([0.7, 3.0])
    with tapejax.GradientTape() as tape:
        tape.watch(alpha)
        loss = tapejax.reduce_sum(
            tapejax.random.stateless_gamma([N, 2], [9, 9], alpha=alpha, beta=2.0)
        )
    np.testing.assert_allclose(tape.gradient(loss, alpha).numpy() / N, [0.5, 0.5], rtol=0.05)


def _reduce_to(g, shape):
    """A broadcast input's gradient: ``g`` summed over the dimensions ``shape`` lacks or
    has as 1 (TF's BroadcastGradientArgs)."""
    g = g.sum(tuple(range(g.ndim - len(shape))))
    return g.sum(tuple(i for i, d in enumerate(shape) if d == 1), keepdims=True).reshape(shape)


def test_truncated_normal_gradient_is_tfs_formula():
    """TF's registered gradient, run by TF on TF's own samples, equals tapejax's rule on
    those samples; through the tape the gradients take the parameters' shapes, with TF's
    1 per sample w.r.t. the mean."""
    from tapejax._src.ops.stateless_distribution_ops import _truncated_bwd

    shape = (4, 3)
    params = [
        np.float32(0.5),
        np.array([1.0, 2.0, 0.5], np.float32),
        np.float32(-1.0),
        np.array([[2.0], [1.5], [3.0], [0.8]], np.float32),
    ]
    tf_params = [tensorflow.constant(p) for p in params]
    with tensorflow.GradientTape() as tape:
        tape.watch(tf_params)
        sample = tensorflow.random.stateless_parameterized_truncated_normal(
            shape, [1, 2], *tf_params
        )
    want = tape.gradient(sample, tf_params)
    full = [np.broadcast_to(p, shape).astype(np.float32) for p in params]
    ones = np.ones(shape, np.float32)
    got = _truncated_bwd((ones, *full, sample.numpy()), ones)[1:]
    for g, w, p in zip(got, want, params, strict=True):
        np.testing.assert_allclose(
            _reduce_to(np.asarray(g), np.shape(p)), w.numpy(), rtol=1e-4, atol=1e-6
        )

    mine = [tapejax.constant(p) for p in params]
    with tapejax.GradientTape() as tape:
        tape.watch(mine)
        y = tapejax.random.stateless_parameterized_truncated_normal(shape, [1, 2], *mine)
    grads = tape.gradient(y, mine)
    for g, p in zip(grads, params, strict=True):
        assert g.shape.as_list() == list(np.shape(p))
    assert float(grads[0]) == 12.0


def test_no_gradient_through_poisson_and_index_shuffle():
    lam = tapejax.constant([1.0, 2.0])
    with tapejax.GradientTape() as tape:
        tape.watch(lam)
        y = tapejax.random.stateless_poisson([2], [1, 2], lam=lam, dtype=tapejax.float32)
    assert tape.gradient(y, lam) is None


# -- errors: the same expression raises the same error under both frameworks ----------------

IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=[1.0, 2.0]),
        IAE,
        r"Shape passed in must end with broadcasted shape\. \[Op:StatelessRandomGammaV3\]",
    ),
    (
        lambda tf: tf.random.stateless_gamma([2], [1, 2], alpha=[[1.0, 2.0]]),
        IAE,
        r"Shape passed in must end with broadcasted shape\.",
    ),
    (
        lambda tf: tf.random.stateless_gamma(
            [2, 3], [1, 2], alpha=[1.0, 2.0, 3.0], beta=[1.0, 2.0]
        ),
        IAE,
        r"Incompatible shapes: \[3\] vs\. \[2\] \[Op:BroadcastArgs\]",
    ),
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2, 3], alpha=1.0),
        IAE,
        r"seed must have shape \[2\], not \[3\] \[Op:StatelessRandomGetKeyCounter\]",
    ),
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=tf.constant(1)),
        "ValueError",
        r"alpha: Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=1.0, beta=tf.constant(2)),
        "ValueError",
        r"beta: Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=1, dtype=tf.int32),
        IAE,
        r"Value for attr 'dtype' of int32 is not in the list of allowed values: half, float, double",
    ),
    (
        lambda tf: tf.random.stateless_gamma([3], [1, 2], alpha=1.0, dtype=tf.bfloat16),
        IAE,
        r"Value for attr 'dtype' of bfloat16 is not in the list of allowed values: half, float, double",
    ),
    (
        lambda tf: tf.random.stateless_gamma([-1], [1, 2], alpha=1.0),
        IAE,
        r"Dimension -1 must be >= 0",
    ),
    (
        lambda tf: tf.random.stateless_poisson([3], [1, 2], lam=[1.0, 2.0]),
        IAE,
        r"Shape passed in must end with broadcasted shape\. \[Op:StatelessRandomPoisson\]",
    ),
    (
        lambda tf: tf.random.stateless_poisson([3], [1, 2, 3], lam=1.0),
        IAE,
        r"seed must have shape \[2\], not \[3\] \[Op:StatelessRandomPoisson\]",
    ),
    (
        lambda tf: tf.random.stateless_poisson([3], [1.0, 2.0], lam=1.0),
        IAE,
        r"Value for attr 'Tseed' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.random.stateless_poisson([3], [1, 2], lam=2.0, dtype=tf.bool),
        IAE,
        r"Value for attr 'dtype' of bool is not in the list of allowed values: half, float, double, int32, int64",
    ),
    (
        lambda tf: tf.random.stateless_poisson([3], [1, 2], lam=tf.constant(2.0, tf.bfloat16)),
        IAE,
        r"Value for attr 'Rtype' of bfloat16 is not in the list of allowed values: half, float, double, int32, int64",
    ),
    (
        lambda tf: tf.random.stateless_poisson([-1], [1, 2], lam=1.0),
        IAE,
        r"Dimension -1 must be >= 0 \[Op:StatelessRandomPoisson\]",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], minvals=2.0, maxvals=1.0
        ),
        IAE,
        r"Invalid parameters \[Op:StatelessParameterizedTruncatedNormal\]",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal([3], [1, 2], stddevs=0.0),
        IAE,
        r"Invalid parameters",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], minvals=-np.inf, maxvals=np.inf
        ),
        IAE,
        r"Invalid parameters",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], means=[1.0, 2.0]
        ),
        IAE,
        r"Shape passed in must end with broadcasted shape\.",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [2, 3], [1, 2], means=[1.0, 2.0], stddevs=[1.0, 2.0, 3.0]
        ),
        IAE,
        r"means, stddevs, minvals, maxvals must have compatible batch dimensions: \[2\] vs\. \[3\] vs\. \[\] vs\. \[\] \[Op:StatelessParameterizedTruncatedNormal\]",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal([3], [1, 2], means=1),
        IAE,
        r"Value for attr 'dtype' of int32 is not in the list of allowed values: half, float, double",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], stddevs=tf.constant(1.0, tf.float16)
        ),
        IAE,
        r"cannot compute StatelessParameterizedTruncatedNormal as input #3\(zero-based\) was expected to be a float tensor but is a half tensor",
    ),
    (
        lambda tf: tf.random.stateless_parameterized_truncated_normal([3], [1, 2, 3]),
        IAE,
        r"seed must have shape \[2\], not \[3\] \[Op:StatelessParameterizedTruncatedNormal\]",
    ),
    (
        lambda tf: tf.random_index_shuffle(tf.range(3), [1, 2], 5),
        IAE,
        r"Seed must be a vector of size \[3\] or a matrix of size \[3, 3\] but got \[2\]\. \[Op:RandomIndexShuffle\]",
    ),
    (
        lambda tf: tf.random_index_shuffle(20, [1, 2, 3], 10),
        IAE,
        r"max_index must be >= index, but 10 < 20 \[Op:RandomIndexShuffle\]",
    ),
    (
        lambda tf: tf.random_index_shuffle(-1, [1, 2, 3], 10),
        IAE,
        r"index must be >= 0 but was -1 \[Op:RandomIndexShuffle\]",
    ),
    (
        lambda tf: tf.random_index_shuffle([[0]], [1, 2, 3], 10),
        IAE,
        r"Index bust be a scalar or vector\. \[Op:RandomIndexShuffle\]",
    ),
    (
        lambda tf: tf.random_index_shuffle([0, 1], [1, 2, 3], [5, 6, 7]),
        IAE,
        r"Index bust be a scalar or vector\.",
    ),
    (
        lambda tf: tf.random_index_shuffle(0, [1, 2, 3], [[5]]),
        IAE,
        r"Maxval must be a scalar or a vector of the same size as index but got \[1,1\]",
    ),
    (
        lambda tf: tf.random_index_shuffle(3.0, [1, 2, 3], 10.0),
        IAE,
        r"Value for attr 'dtype' of float is not in the list of allowed values: int32, uint32, int64, uint64",
    ),
    (
        lambda tf: tf.random_index_shuffle(0, [1.0, 2.0, 3.0], 5),
        IAE,
        r"Value for attr 'Tseed' of float is not in the list of allowed values: int32, uint32, int64, uint64",
    ),
    (
        lambda tf: tf.random.create_rng_state(1, "foo"),
        "ValueError",
        r"Argument `alg` got unsupported value foo\. Supported values are philox for the Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection\.",
    ),
    (
        lambda tf: tf.random.create_rng_state(1, 1.5),
        "TypeError",
        r"Can't convert argument `alg` \(of value 1\.5 and type <class 'float'>\) to int\.",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_deliberate_errors_where_tf_is_undefined():
    """TF's kernel reads past its round keys for odd or few rounds (values vary run to
    run); TF 2.21 raises an AttributeError of its own for an unknown integer ``alg``."""
    with pytest.raises(
        tapejax.errors.InvalidArgumentError,
        match="rounds must be an even number of at least 4, got 5",
    ):
        tapejax.random_index_shuffle(1, [1, 2, 3], 5, rounds=5)
    with pytest.raises(
        ValueError,
        match="Argument `alg` got unsupported value 7. Supported values are 1 for the Philox",
    ):
        tapejax.random.create_rng_state(1, 7)
