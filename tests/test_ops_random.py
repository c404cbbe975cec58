# ruff: noqa: E501 - tables of TF's texts and calls read best one a line
"""Unit tests for ``tapejax.random`` and ``tapejax.nn.dropout``.

The streams differ from TF's (threefry, not Philox), so no value is compared with TF:
shapes and dtypes are (the same call under both frameworks), and so are errors. Values
are tested for what TF promises: seed rules, determinism, moments of the distributions
on 10k samples, ranges, and gradients (w.r.t. mean, stddev, bounds, alpha, rate; None
for seeds and shapes), plus fresh numbers at every call of a ``tapejax.function``.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from opcheck import check_error

import tapejax
import tapejax.nn
import tapejax.random

tensorflow = pytest.importorskip("tensorflow")

# Random ops cannot have value-vs-TF Cases: every public name is tested here instead.
OTHERWISE_TESTED = {
    "random.set_seed",
    "random.normal",
    "random.uniform",
    "random.truncated_normal",
    "random.categorical",
    "random.shuffle",
    "random.gamma",
    "random.poisson",
    "random.stateless_normal",
    "random.stateless_uniform",
    "random.stateless_truncated_normal",
    "random.stateless_categorical",
    "random.stateless_binomial",
    "random.split",
    "random.fold_in",
    "random.Algorithm",
    "random.Generator",
    "random.get_global_generator",
    "random.set_global_generator",
    "nn.dropout",
}

N = 10_000


def _np(t):
    return np.asarray(t.numpy())


# -- shapes and dtypes: the same call under both frameworks -------------------------------

CALLS = [
    ("normal", lambda tf: tf.random.normal([2, 3])),
    ("normal f16", lambda tf: tf.random.normal([4], dtype=tf.float16)),
    ("normal bf16", lambda tf: tf.random.normal([4], dtype=tf.bfloat16)),
    (
        "normal broadcast mean",
        lambda tf: tf.random.normal([2, 3], mean=tf.constant([1.0, 2.0, 3.0])),
    ),
    ("normal tensor shape", lambda tf: tf.random.normal(tf.constant([2, 3]))),
    ("normal empty", lambda tf: tf.random.normal([0, 3])),
    ("normal scalar", lambda tf: tf.random.normal([])),
    ("uniform", lambda tf: tf.random.uniform([5], seed=3)),
    ("uniform maxval", lambda tf: tf.random.uniform([5], maxval=2)),
    ("uniform tensor bounds", lambda tf: tf.random.uniform([2], minval=[0.0, 1.0])),
    ("uniform int32", lambda tf: tf.random.uniform([5], maxval=4, dtype=tf.int32)),
    ("uniform f16", lambda tf: tf.random.uniform([5], dtype=tf.float16)),
    ("truncated_normal", lambda tf: tf.random.truncated_normal([3, 1], mean=2.0, stddev=0.5)),
    ("categorical", lambda tf: tf.random.categorical(tf.zeros([2, 3]), 4, dtype=tf.int32)),
    (
        "categorical f16",
        lambda tf: tf.random.categorical(tf.zeros([2, 3], tf.float16), 0, dtype=tf.int32),
    ),
    ("shuffle", lambda tf: tf.random.shuffle(tf.reshape(tf.range(6), [3, 2]))),
    ("shuffle scalar", lambda tf: tf.random.shuffle(tf.constant(1.0))),
    ("gamma", lambda tf: tf.random.gamma([4], [1.0, 2.0])),
    ("gamma beta", lambda tf: tf.random.gamma([4, 1], 2.0, beta=[[1.0], [2.0]])),
    ("poisson", lambda tf: tf.random.poisson([3], [1.0, 4.0])),
    ("poisson int", lambda tf: tf.random.poisson([3], tf.constant(2, tf.int32), dtype=tf.int32)),
    ("stateless_normal", lambda tf: tf.random.stateless_normal([2, 2], seed=[1, 2])),
    ("stateless_uniform", lambda tf: tf.random.stateless_uniform([3], seed=[1, 2], minval=-1.0)),
    (
        "stateless_uniform int",
        lambda tf: tf.random.stateless_uniform(
            [3], seed=[1, 2], minval=-5, maxval=5, dtype=tf.int32
        ),
    ),
    (
        "stateless_uniform full int",
        lambda tf: tf.random.stateless_uniform(
            [3], seed=[1, 2], minval=None, maxval=None, dtype=tf.int32
        ),
    ),
    (
        "stateless_uniform full uint32",
        lambda tf: tf.random.stateless_uniform(
            [3], seed=[1, 2], minval=None, maxval=None, dtype=tf.uint32
        ),
    ),
    (
        "stateless_truncated_normal",
        lambda tf: tf.random.stateless_truncated_normal([3], seed=[5, 6]),
    ),
    (
        "stateless_categorical",
        lambda tf: tf.random.stateless_categorical(
            tf.zeros([3, 4]), 2, seed=[1, 2], dtype=tf.int32
        ),
    ),
    (
        "stateless_binomial",
        lambda tf: tf.random.stateless_binomial(
            [2, 3], seed=[1, 2], counts=10.0, probs=[0.1, 0.5, 0.9]
        ),
    ),
    (
        "stateless_binomial float out",
        lambda tf: tf.random.stateless_binomial(
            [3], seed=[1, 2], counts=4, probs=0.5, output_dtype=tf.float32
        ),
    ),
    ("Generator.normal", lambda tf: tf.random.Generator.from_seed(1).normal([2, 3])),
    (
        "Generator.uniform",
        lambda tf: tf.random.Generator.from_seed(1).uniform(
            [2], minval=1, maxval=9, dtype=tf.int32
        ),
    ),
    (
        "Generator.uniform full",
        lambda tf: tf.random.Generator.from_seed(1).uniform(
            [2], minval=None, maxval=None, dtype=tf.uint32
        ),
    ),
    (
        "Generator.truncated_normal",
        lambda tf: tf.random.Generator.from_seed(1).truncated_normal([4]),
    ),
    (
        "Generator.uniform_full_int",
        lambda tf: tf.random.Generator.from_seed(1).uniform_full_int([2], dtype=tf.int32),
    ),
    (
        "Generator.binomial",
        lambda tf: tf.random.Generator.from_seed(1).binomial(
            [2, 3], counts=[5.0, 9.0, 7.0], probs=[[0.5], [0.1]]
        ),
    ),
    ("split", lambda tf: tf.random.split([1, 2])),
    ("split 3", lambda tf: tf.random.split(tf.constant([1, 2]), 3)),
    ("split 0", lambda tf: tf.random.split([1, 2], num=0)),
    ("fold_in", lambda tf: tf.random.fold_in([1, 2], 3)),
    ("global generator", lambda tf: tf.random.get_global_generator().normal([2, 1])),
    ("dropout", lambda tf: tf.nn.dropout(tf.ones([3, 4]), 0.5)),
    ("dropout f16", lambda tf: tf.nn.dropout(tf.ones([3], tf.float16), 0.5)),
    (
        "dropout noise_shape None entry",
        lambda tf: tf.nn.dropout(tf.ones([3, 4]), 0.5, noise_shape=[None, 1]),
    ),
    (
        "dropout noise_shape grows",
        lambda tf: tf.nn.dropout(tf.ones([3, 4]), 0.5, noise_shape=[1, 3, 4]),
    ),
    ("dropout rate 0", lambda tf: tf.nn.dropout(tf.ones([3]), 0)),
    ("dropout tensor rate", lambda tf: tf.nn.dropout(tf.ones([3]), tf.constant(0.5))),
]

# With JAX's x64 mode, int64 results are TF's; without it they are int32 (as argmax's).
CALLS_X64 = [
    ("categorical int64", lambda tf: tf.random.categorical(tf.zeros([2, 3]), 4)),
    (
        "stateless_categorical int64",
        lambda tf: tf.random.stateless_categorical(tf.zeros([2, 3]), 4, seed=[1, 2]),
    ),
    ("uniform int64", lambda tf: tf.random.uniform([5], maxval=4, dtype=tf.int64)),
    ("normal float64", lambda tf: tf.random.normal([2], dtype=tf.float64)),
    (
        "stateless int64 seed",
        lambda tf: tf.random.stateless_normal([2], seed=tf.constant([1, 2], tf.int64)),
    ),
    (
        "poisson int64",
        lambda tf: tf.random.poisson([3], tf.constant([1.0, 2.0], tf.float64), dtype=tf.int64),
    ),
    ("Generator.make_seeds", lambda tf: tf.random.Generator.from_seed(1).make_seeds(3)),
    ("split int64", lambda tf: tf.random.split(tf.constant([1, 2], tf.int64), 3)),
    (
        "Generator.uniform_full_int uint64",
        lambda tf: tf.random.Generator.from_seed(1).uniform_full_int([2]),
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


def test_int64_indices_are_int32_without_x64():
    assert tapejax.random.categorical(tapejax.zeros([2, 3]), 4).dtype == tapejax.int32
    assert tapejax.random.Generator.from_seed(1).make_seeds(2).dtype == tapejax.int32


# -- seeds ------------------------------------------------------------------------------


def _draws(n=3, **kw):
    return [_np(tapejax.random.uniform([4], **kw)) for _ in range(n)]


def test_global_seed_repeats_the_sequence_and_calls_differ():
    tapejax.random.set_seed(1234)
    first = _draws()
    tapejax.random.set_seed(1234)
    again = _draws()
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[1])
    tapejax.random.set_seed(4321)
    assert not np.array_equal(_draws(1)[0], first[0])


def test_op_seed_streams_repeat_and_do_not_depend_on_other_draws():
    tapejax.random.set_seed(7)
    plain = _draws(seed=5)
    tapejax.random.set_seed(7)
    mixed = []
    for _ in range(3):
        tapejax.random.normal([10])  # other random calls between: TF's per-op-seed kernels
        tapejax.random.uniform([4], seed=6)
        tapejax.random.normal([4], seed=5)  # another kernel: its own stream, as TF's
        tapejax.random.uniform([4], seed=5, dtype=tapejax.float16)
        mixed.append(_np(tapejax.random.uniform([4], seed=5)))
    for a, b in zip(plain, mixed, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(plain[0], plain[1])
    tapejax.random.set_seed(8)
    assert not np.array_equal(_draws(1, seed=5)[0], plain[0])


def test_op_seed_without_global_seed_is_deterministic():
    tapejax.random.set_seed(None)
    a = _draws(2, seed=11)
    tapejax.random.set_seed(None)
    b = _draws(2, seed=11)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_no_seed_at_all_is_not_reproducible():
    tapejax.random.set_seed(None)
    a = _draws(1)[0]
    tapejax.random.set_seed(None)
    assert not np.array_equal(a, _draws(1)[0])


STATELESS = [
    ("stateless_normal", lambda seed: tapejax.random.stateless_normal([50], seed=seed)),
    ("stateless_uniform", lambda seed: tapejax.random.stateless_uniform([50], seed=seed)),
    (
        "stateless_uniform int",
        lambda seed: tapejax.random.stateless_uniform(
            [50], seed=seed, minval=0, maxval=1000, dtype=tapejax.int32
        ),
    ),
    (
        "stateless_truncated_normal",
        lambda seed: tapejax.random.stateless_truncated_normal([50], seed=seed),
    ),
    (
        "stateless_categorical",
        lambda seed: tapejax.random.stateless_categorical(tapejax.zeros([5, 10]), 10, seed=seed),
    ),
    (
        "stateless_binomial",
        lambda seed: tapejax.random.stateless_binomial([50], seed=seed, counts=100.0, probs=0.5),
    ),
]


@pytest.mark.parametrize("what, draw", STATELESS, ids=[s[0] for s in STATELESS])
def test_stateless_same_seed_same_numbers(what, draw):
    a = _np(draw([1, 2]))
    tapejax.random.normal([3])  # global state does not matter
    np.testing.assert_array_equal(a, _np(draw(tapejax.constant([1, 2]))))
    assert not np.array_equal(a, _np(draw([2, 1])))


def test_stateless_int32_and_int64_seeds_agree(x64):
    a = tapejax.random.stateless_normal([5], seed=tapejax.constant([3, 4], tapejax.int32))
    b = tapejax.random.stateless_normal([5], seed=tapejax.constant([3, 4], tapejax.int64))
    np.testing.assert_array_equal(_np(a), _np(b))
    c = tapejax.random.stateless_normal([5], seed=tapejax.constant([3 + 2**32, 4], tapejax.int64))
    assert not np.array_equal(_np(a), _np(c))


def test_split_and_fold_in_make_distinct_deterministic_seeds():
    seeds = _np(tapejax.random.split([7, 8], 4))
    assert len({tuple(r) for r in seeds}) == 4
    np.testing.assert_array_equal(seeds, _np(tapejax.random.split([7, 8], 4)))
    folded = [_np(tapejax.random.fold_in([7, 8], d)) for d in range(3)]
    assert [f[1] for f in folded] == [0, 1, 2]  # TF's [random, data]
    draws = {_np(tapejax.random.stateless_normal([3], seed=f)).tobytes() for f in folded}
    assert len(draws) == 3


def test_algorithm_ids_are_tfs():
    for name in ("PHILOX", "THREEFRY", "AUTO_SELECT"):
        assert (
            getattr(tapejax.random.Algorithm, name).value
            == getattr(tensorflow.random.Algorithm, name).value
        )
    assert (
        tapejax.random.Generator.from_seed(1).algorithm == tapejax.random.Algorithm.THREEFRY.value
    )


def test_global_generator_is_shared_replaceable_and_ignores_set_seed():
    g = tapejax.random.get_global_generator()
    assert tapejax.random.get_global_generator() is g
    before = g.state.numpy().copy()
    tapejax.random.set_seed(3)
    np.testing.assert_array_equal(g.state.numpy(), before)
    mine = tapejax.random.Generator.from_seed(5)
    tapejax.random.set_global_generator(mine)
    try:
        assert tapejax.random.get_global_generator() is mine
    finally:
        tapejax.random.set_global_generator(g)


# -- distributions: moments on 10k samples ---------------------------------------------


def test_normal_moments():
    x = _np(tapejax.random.normal([N], mean=3.0, stddev=2.0, seed=1))
    assert abs(x.mean() - 3.0) < 0.06 and abs(x.std() - 2.0) < 0.06
    y = _np(tapejax.random.stateless_normal([N], seed=[1, 2]))
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1.0) < 0.03


def test_normal_broadcasts_mean_and_stddev():
    x = _np(tapejax.random.normal([N, 2], mean=[0.0, 10.0], stddev=[1.0, 0.1], seed=2))
    np.testing.assert_allclose(x.mean(0), [0.0, 10.0], atol=0.05)
    np.testing.assert_allclose(x.std(0), [1.0, 0.1], rtol=0.05)


def test_uniform_float_range_and_moments():
    x = _np(tapejax.random.uniform([N], minval=-2.0, maxval=3.0, seed=3))
    assert x.min() >= -2.0 and x.max() < 3.0
    assert abs(x.mean() - 0.5) < 0.05 and abs(x.var() - 25 / 12) < 0.08
    y = _np(tapejax.random.uniform([N], dtype=tapejax.float16))
    assert y.min() >= 0 and y.max() < 1


@pytest.mark.parametrize("lo, hi", [(0, 7), (-3, 2), (100, 101)])
def test_uniform_int_range_is_half_open_and_covered(lo, hi):
    x = _np(tapejax.random.uniform([N], minval=lo, maxval=hi, dtype=tapejax.int32))
    assert x.dtype == np.int32
    assert set(np.unique(x).tolist()) == set(range(lo, hi))
    counts = np.bincount(x - lo)
    np.testing.assert_allclose(counts / N, 1 / (hi - lo), atol=0.02)


def test_full_range_ints_use_all_bits():
    x = _np(
        tapejax.random.stateless_uniform(
            [N], seed=[3, 3], minval=None, maxval=None, dtype=tapejax.int32
        )
    )
    assert x.min() < -(2**30) and x.max() > 2**30
    u = _np(tapejax.random.Generator.from_seed(2).uniform_full_int([N], dtype=tapejax.uint32))
    assert u.dtype == np.uint32 and u.max() > 2**31


@pytest.mark.parametrize(
    "draw",
    [
        lambda: tapejax.random.truncated_normal([N], mean=1.0, stddev=3.0, seed=4),
        lambda: tapejax.random.stateless_truncated_normal([N], seed=[4, 4], mean=1.0, stddev=3.0),
        lambda: tapejax.random.Generator.from_seed(4).truncated_normal([N], mean=1.0, stddev=3.0),
    ],
    ids=["stateful", "stateless", "generator"],
)
def test_truncated_normal_bounds_and_std(draw):
    x = _np(draw())
    assert np.all(np.abs(x - 1.0) <= 6.0)
    assert abs(x.mean() - 1.0) < 0.08
    # The standard deviation of a standard normal truncated at +-2.
    assert abs(x.std() / 3.0 - 0.8796) < 0.02


def test_categorical_frequencies():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32)
    for draws in (
        tapejax.random.categorical(np.log(probs), N, seed=5),
        tapejax.random.stateless_categorical(np.log(probs), N, seed=[5, 5]),
    ):
        x = _np(draws)
        assert x.shape == (2, N)
        for row, p in zip(x, probs, strict=True):
            np.testing.assert_allclose(np.bincount(row, minlength=3) / N, p, atol=0.02)


def test_categorical_never_draws_minus_infinity():
    x = _np(tapejax.random.categorical([[0.0, -np.inf, 0.0]], 1000))
    assert 1 not in x


def test_shuffle_is_a_permutation_of_rows():
    x = np.arange(20).reshape(10, 2)
    seen = set()
    for _ in range(5):
        y = _np(tapejax.random.shuffle(x))
        assert sorted(map(tuple, y)) == sorted(map(tuple, x))
        np.testing.assert_array_equal(y[:, 1] - y[:, 0], 1)  # rows move whole
        seen.add(tuple(y[:, 0]))
    assert len(seen) > 1


def test_gamma_moments():
    x = _np(tapejax.random.gamma([N], [0.5, 3.0], beta=2.0, seed=6))
    assert x.shape == (N, 2) and x.min() > 0
    np.testing.assert_allclose(x.mean(0), [0.25, 1.5], rtol=0.05)
    np.testing.assert_allclose(x.var(0), [0.125, 0.75], rtol=0.1)


def test_poisson_moments():
    x = _np(tapejax.random.poisson([N], [0.5, 4.0], seed=7))
    assert x.dtype == np.float32 and np.all(x == np.round(x)) and x.min() >= 0
    np.testing.assert_allclose(x.mean(0), [0.5, 4.0], rtol=0.05)
    np.testing.assert_allclose(x.var(0), [0.5, 4.0], rtol=0.1)


def test_binomial_moments():
    x = _np(tapejax.random.stateless_binomial([N, 2], seed=[8, 8], counts=[10.0, 40.0], probs=0.3))
    assert x.dtype == np.int32 and x.min() >= 0 and np.all(x.max(0) <= [10, 40])
    np.testing.assert_allclose(x.mean(0), [3.0, 12.0], rtol=0.05)
    np.testing.assert_allclose(x.var(0), [2.1, 8.4], rtol=0.1)


# -- gradients --------------------------------------------------------------------------


def test_normal_gradient_flows_to_mean_and_stddev_as_tfs():
    """TF's ``rnd * stddev + mean``: d/dmean = count, d/dstddev = sum of the standard draws."""
    for draw in (
        lambda m, s: tapejax.random.normal([5], mean=m, stddev=s),
        lambda m, s: tapejax.random.truncated_normal([5], mean=m, stddev=s),
        lambda m, s: tapejax.random.stateless_normal([5], seed=[1, 1], mean=m, stddev=s),
        lambda m, s: tapejax.random.Generator.from_seed(1).normal([5], mean=m, stddev=s),
    ):
        m, s = tapejax.constant(1.0), tapejax.constant(2.0)
        with tapejax.GradientTape() as tape:
            tape.watch([m, s])
            y = draw(m, s)
        gm, gs = tape.gradient(y, [m, s])
        assert float(gm) == 5.0
        np.testing.assert_allclose(float(gs), ((_np(y) - 1.0) / 2.0).sum(), rtol=1e-5)


def test_normal_gradients_have_tfs_structure():
    """The same expression under TF: gradients w.r.t. broadcast mean/stddev keep their
    shapes, and int seeds and shapes get None."""

    def grads(tf):
        m, s = tf.constant([1.0, 2.0]), tf.constant(3.0)
        seed, shape = tf.constant([1, 2]), tf.constant([3, 2])
        with tf.GradientTape() as tape:
            tape.watch([m, s, seed, shape])
            y = tf.random.stateless_normal(shape, seed=seed, mean=m, stddev=s)
        return tape.gradient(y, [m, s, seed, shape])

    got, want = grads(tapejax), grads(tensorflow)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if w is not None:
            assert g.shape.as_list() == w.shape.as_list()
    np.testing.assert_array_equal(_np(got[0]), [3.0, 3.0])


def test_uniform_gradient_flows_to_bounds_as_tfs():
    lo, hi = tapejax.constant(1.0), tapejax.constant(3.0)
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch([lo, hi])
        y = tapejax.random.uniform([6], minval=lo, maxval=hi)
        z = tapejax.random.uniform([6], maxval=hi)  # TF's ``rnd * maxval`` branch
    rnd = (_np(y) - 1.0) / 2.0
    g_lo, g_hi = tape.gradient(y, [lo, hi])
    np.testing.assert_allclose([float(g_lo), float(g_hi)], [(1 - rnd).sum(), rnd.sum()], rtol=1e-5)
    np.testing.assert_allclose(float(tape.gradient(z, hi)), _np(z).sum() / 3.0, rtol=1e-5)


def test_no_gradient_through_discrete_samplers():
    x = tapejax.constant([[1.0, 2.0, 3.0]])
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch(x)
        outs = [tapejax.random.categorical(x, 3), tapejax.random.shuffle(x)]
        outs.append(tapejax.random.poisson([2], x))
    for out in outs:
        assert tape.gradient(out, x) is None


def test_gamma_gradient_is_implicit_reparameterization():
    """E[d sample / d alpha] = d E[sample] / d alpha = 1 / beta."""
    alpha, beta = tapejax.constant([0.7, 3.0]), tapejax.constant(2.0)
    with tapejax.GradientTape() as tape:
        tape.watch([alpha, beta])
        x = tapejax.random.gamma([N], alpha, beta=beta, seed=9)
        loss = tapejax.reduce_sum(x)
    g_alpha, g_beta = tape.gradient(loss, [alpha, beta])
    np.testing.assert_allclose(_np(g_alpha) / N, [0.5, 0.5], rtol=0.05)
    np.testing.assert_allclose(float(g_beta), -_np(x).sum() / 2.0, rtol=1e-4)


# -- inside tapejax.function ------------------------------------------------------------


def test_function_draws_fresh_numbers_each_call_and_repeats_after_set_seed():
    gen = tapejax.random.Generator.from_seed(3)

    @tapejax.function
    def step(x):
        return (
            x + tapejax.random.normal([3]),
            x + tapejax.random.uniform([3], seed=12),
            x + gen.normal([3]),
            tapejax.nn.dropout(tapejax.ones([50]), 0.5),
        )

    zero = tapejax.constant(0.0)
    tapejax.random.set_seed(99)
    first = [[_np(t) for t in step(zero)] for _ in range(4)]
    for i in range(4):
        for a, b in zip(first[0][i : i + 1] * 3, [first[k][i] for k in (1, 2, 3)], strict=True):
            assert not np.array_equal(a, b), "a compiled call repeated the previous numbers"
    assert step.experimental_get_tracing_count() == 1
    tapejax.random.set_seed(99)
    again = [[_np(t) for t in step(zero)] for _ in range(4)]
    for call_a, call_b in zip(first, again, strict=True):
        for k in (0, 1, 3):  # the global and op-seed streams restart; the Generator does not
            np.testing.assert_array_equal(call_a[k], call_b[k])
    assert step.experimental_get_tracing_count() == 1


def test_function_and_eager_share_one_stream():
    @tapejax.function
    def draw():
        return tapejax.random.normal([4])

    tapejax.random.set_seed(5)
    seq_fn = [_np(draw()) for _ in range(3)]
    tapejax.random.set_seed(5)
    seq_eager = [_np(tapejax.random.normal([4])) for _ in range(3)]
    for a, b in zip(seq_fn, seq_eager, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_new_op_seed_inside_a_traced_function():
    """A first draw with an op seed met only when tracing makes its stream, not an error."""

    @tapejax.function
    def draw(seed):
        return tapejax.random.uniform([2], seed=seed)

    draw(301)
    a, b = _np(draw(302)), _np(draw(302))  # 302: first seen by the trace
    assert not np.array_equal(a, b)


def test_dropout_gradient_inside_a_function_changes_per_call():
    v = tapejax.Variable(np.ones(64, np.float32))

    @tapejax.function
    def step():
        with tapejax.GradientTape() as tape:
            y = tapejax.reduce_sum(tapejax.nn.dropout(v * 1.0, 0.5))
        return y, tape.gradient(y, v)

    results = [step() for _ in range(3)]
    for y, g in results:
        g = _np(g)
        assert set(np.unique(g).tolist()) <= {0.0, 2.0}
        assert float(y) == g.sum()
    assert not np.array_equal(_np(results[0][1]), _np(results[1][1]))


def test_stateful_ops_under_plain_jax_jit_say_how_to_fix():
    with pytest.raises(RuntimeError, match="tapejax.function"):
        jax.jit(lambda: tapejax.random.normal([2])._value)()
    with pytest.raises(RuntimeError, match="stateless"):
        jax.jit(lambda: tapejax.random.Generator.from_seed(1).normal([2])._value)()
    assert np.isfinite(_np(tapejax.random.normal([2]))).all()  # the stream is intact


def test_generator_state_through_functionalize_and_jax_jit():
    g = tapejax.random.Generator.from_seed(4)
    pure, params = tapejax.functionalize(lambda: g.normal([3]), [g.state])
    step = jax.jit(pure)
    out1, params = step(params)
    out2, params = step(params)
    assert not np.array_equal(np.asarray(out1), np.asarray(out2))
    reference = tapejax.random.Generator.from_seed(4)
    np.testing.assert_array_equal(np.asarray(out1), _np(reference.normal([3])))
    np.testing.assert_array_equal(np.asarray(out2), _np(reference.normal([3])))


def test_random_ops_under_jax_jit_of_stateless():
    f = jax.jit(
        lambda s: tapejax.random.stateless_normal([3], seed=tapejax.convert_to_tensor(s))._value
    )
    np.testing.assert_array_equal(
        np.asarray(f(np.array([1, 2], np.int32))),
        _np(tapejax.random.stateless_normal([3], seed=[1, 2])),
    )


# -- Generator --------------------------------------------------------------------------


def test_generator_from_seed_is_reproducible_and_advances():
    a, b = tapejax.random.Generator.from_seed(7), tapejax.random.Generator.from_seed(7)
    xa = [_np(a.normal([4])) for _ in range(2)]
    xb = [_np(b.normal([4])) for _ in range(2)]
    np.testing.assert_array_equal(xa, xb)
    assert not np.array_equal(xa[0], xa[1])
    a.reset_from_seed(7)
    np.testing.assert_array_equal(_np(a.normal([4])), xa[0])
    c = tapejax.random.Generator.from_non_deterministic_state()
    d = tapejax.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(_np(c.normal([4])), _np(d.normal([4])))


def test_generator_state_is_a_non_trainable_variable():
    g = tapejax.random.Generator.from_seed(1)
    assert isinstance(g.state, tapejax.Variable) and not g.state.trainable
    before = g.state.numpy().copy()
    g.uniform([2])
    assert not np.array_equal(before, g.state.numpy())
    copy = tapejax.random.Generator(copy_from=g)
    np.testing.assert_array_equal(_np(copy.normal([3])), _np(g.normal([3])))
    h = tapejax.random.Generator.from_state(g.state.numpy(), None)
    np.testing.assert_array_equal(_np(h.normal([3])), _np(g.normal([3])))


def test_generator_split_and_make_seeds():
    g = tapejax.random.Generator.from_seed(2)
    children = g.split(3)
    assert len(children) == 3
    draws = [_np(c.normal([4])) for c in children] + [_np(g.normal([4]))]
    assert len({d.tobytes() for d in draws}) == 4
    seeds = g.make_seeds(5)
    assert seeds.shape.as_list() == [2, 5]
    x = _np(tapejax.random.stateless_normal([3], seed=seeds[:, 0]))
    np.testing.assert_array_equal(x, _np(tapejax.random.stateless_normal([3], seed=seeds[:, 0])))


def test_generator_skip_and_binomial():
    a, b = tapejax.random.Generator.from_seed(6), tapejax.random.Generator.from_seed(6)
    for _ in range(3):
        a.normal([2])
    b.skip(3)
    np.testing.assert_array_equal(_np(a.uniform([4])), _np(b.uniform([4])))
    x = _np(a.binomial([N], counts=20.0, probs=0.25))
    assert x.dtype == np.int32 and 0 <= x.min() and x.max() <= 20
    assert abs(x.mean() - 5.0) < 0.1


def test_generator_uniform_int_range():
    x = _np(
        tapejax.random.Generator.from_seed(3).uniform([N], minval=2, maxval=6, dtype=tapejax.int32)
    )
    assert set(np.unique(x).tolist()) == {2, 3, 4, 5}


def test_generator_rejects_philox_states():
    with pytest.raises(ValueError, match="threefry key data"):
        tapejax.random.Generator(state=[1, 0, 0])
    with pytest.raises(NotImplementedError, match="from_key_counter"):
        tapejax.random.Generator.from_key_counter([1], [0, 0], 1)


# -- dropout ----------------------------------------------------------------------------


def test_dropout_scales_kept_values_and_drops_about_rate():
    x = tapejax.constant(np.full([N], 3.0, np.float32))
    y = _np(tapejax.nn.dropout(x, 0.3, seed=1))
    kept = y != 0
    np.testing.assert_allclose(y[kept], 3.0 / 0.7, rtol=1e-6)
    assert abs(1 - kept.mean() - 0.3) < 0.02
    y2 = _np(tapejax.nn.dropout(x, tapejax.constant(0.3)))
    np.testing.assert_allclose(y2[y2 != 0], 3.0 / 0.7, rtol=1e-6)


def test_dropout_rate_zero_is_the_input():
    x = tapejax.constant([1.0, 2.0])
    assert tapejax.nn.dropout(x, 0) is x


def test_dropout_noise_shape_shares_decisions():
    y = _np(tapejax.nn.dropout(tapejax.ones([200, 6]), 0.5, noise_shape=[200, 1]))
    assert np.all((y == 0).all(1) | (y == 2.0).all(1))
    assert 0 < (y == 0).all(1).sum() < 200
    z = _np(tapejax.nn.dropout(tapejax.ones([200, 6]), 0.5, noise_shape=[None, 1]))
    assert np.all((z == 0).all(1) | (z == 2.0).all(1))


def test_dropout_gradient_is_mask_times_scale():
    x = tapejax.constant(np.linspace(1.0, 2.0, 100, dtype=np.float32))
    rate = tapejax.constant(0.4)
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch([x, rate])
        y = tapejax.nn.dropout(x, rate)
        z = tapejax.nn.dropout(x, 0.25)
    mask = _np(y) != 0
    np.testing.assert_allclose(_np(tape.gradient(y, x)), mask / 0.6, rtol=1e-6)
    mask_z = _np(z) != 0
    np.testing.assert_allclose(_np(tape.gradient(z, x)), mask_z / 0.75, rtol=1e-6)
    # TF's ``x / (1 - rate)`` where kept: d/drate = sum(kept x) / (1 - rate)^2.
    want = (_np(x) * mask).sum() / 0.6**2
    np.testing.assert_allclose(float(tape.gradient(y, rate)), want, rtol=1e-5)


# -- errors: the same expression raises the same error under both frameworks --------------

IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.random.uniform([2], dtype=tf.int32),
        "ValueError",
        r"Must specify maxval for integer dtype tf\.int32",
    ),
    (
        lambda tf: tf.random.uniform([2], minval=5, maxval=2, dtype=tf.int32),
        IAE,
        r"Need minval < maxval, got 5 >= 2 \[Op:RandomUniformInt\]",
    ),
    (
        lambda tf: tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32),
        IAE,
        r"Need minval < maxval, got 3 >= 3",
    ),
    (
        lambda tf: tf.random.uniform([2], dtype=tf.bool),
        "ValueError",
        r"Argument `dtype` got invalid value <dtype: 'bool'>\. Accepted dtypes are \(tf\.float16, tf\.bfloat16, tf\.float32, tf\.float64, tf\.int32, tf\.int64\)\.",
    ),
    (
        lambda tf: tf.random.uniform([2], dtype=tf.uint8, maxval=3),
        "ValueError",
        r"Argument `dtype` got invalid value <dtype: 'uint8'>",
    ),
    (
        lambda tf: tf.random.uniform([2], minval=[0, 1], maxval=3, dtype=tf.int32),
        IAE,
        r"minval must be 0-D, got shape \[2\]",
    ),
    (
        lambda tf: tf.random.uniform([2], maxval=[5, 6], dtype=tf.int32),
        IAE,
        r"maxval must be 0-D, got shape \[2\]",
    ),
    (
        lambda tf: tf.random.uniform([2], maxval=2.5, dtype=tf.int32),
        "TypeError",
        r"Cannot convert 2\.5 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.random.normal([2], dtype=tf.int32),
        "TypeError",
        r"Cannot convert 0\.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.random.normal([2], dtype=tf.int32, mean=0, stddev=1),
        IAE,
        r"Value for attr 'dtype' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.random.truncated_normal([2], dtype=tf.int32, mean=0, stddev=1),
        IAE,
        r"Value for attr 'dtype' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (lambda tf: tf.random.normal([-1]), IAE, r"Dimension -1 must be >= 0"),
    (
        lambda tf: tf.random.normal([2.0]),
        IAE,
        r"Value for attr 'T' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.random.normal([2], mean=tf.constant([1.0, 2.0, 3.0])),
        IAE,
        r"Incompatible shapes: \[2\] vs\. \[3\] \[Op:AddV2\]",
    ),
    (
        lambda tf: tf.random.normal([2], mean=tf.constant(1, tf.int32)),
        "ValueError",
        r"mean: Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.random.categorical(tf.zeros([3]), 4),
        IAE,
        r"logits should be a matrix, got shape \[3\]",
    ),
    (
        lambda tf: tf.random.categorical(tf.zeros([2, 3]), 4, dtype=tf.float32),
        "ValueError",
        r"Argument `dtype` got invalid value <dtype: 'float32'>\. Accepted dtypes are \(tf\.int32, tf\.int64\)\.",
    ),
    (
        lambda tf: tf.random.categorical(tf.zeros([2, 3]), -1),
        IAE,
        r"num_samples should be non-negative, got -1",
    ),
    (
        lambda tf: tf.random.categorical(tf.zeros([2, 0]), 1),
        IAE,
        r"num_classes should be positive, got 0",
    ),
    (
        lambda tf: tf.random.categorical([[0.0, 1.0]], 2.5),
        "TypeError",
        r"Cannot convert 2\.5 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.random.categorical(tf.zeros([2, 3], tf.int32), 1),
        "NotFoundError",
        r"Could not find device for node: \{\{node Multinomial\}\} = Multinomial\[T=DT_INT32, output_dtype=DT_INT64",
    ),
    (
        lambda tf: tf.random.gamma([2], [1.0, 2.0], beta=[1.0, 2.0, 3.0]),
        IAE,
        r"Incompatible shapes: \[2\] vs\. \[3\]",
    ),
    (
        lambda tf: tf.random.gamma([2], 1.0, dtype=tf.int32),
        "TypeError",
        r"Cannot convert 1\.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.random.gamma([2], 1, dtype=tf.int32),
        "ValueError",
        r"data type <class 'numpy\.int32'> not inexact",
    ),
    (
        lambda tf: tf.random.gamma([2], 1.0, dtype=tf.bfloat16),
        "ValueError",
        r"data type <class 'ml_dtypes\.bfloat16'> not inexact",
    ),
    (
        lambda tf: tf.random.gamma([2], [1, 2], beta=[1, 2, 3], dtype=tf.int32),
        IAE,
        r"Incompatible shapes: \[2\] vs\. \[3\]",
    ),
    (
        lambda tf: tf.random.poisson([2], 1.0, dtype=tf.bool),
        IAE,
        r"Value for attr 'dtype' of bool is not in the list of allowed values: half, float, double, int32, int64",
    ),
    (
        lambda tf: tf.random.stateless_normal([2], seed=[1, 2, 3]),
        IAE,
        r"seed must have shape \[2\], not \[3\]",
    ),
    (
        lambda tf: tf.random.stateless_normal([2], seed=1),
        IAE,
        r"seed must have shape \[2\], not \[\]",
    ),
    (
        lambda tf: tf.random.stateless_normal([2], seed=[1.0, 2.0]),
        IAE,
        r"Value for attr 'Tseed' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.random.stateless_normal([2], seed=[1, 2], dtype=tf.int32, mean=0, stddev=1),
        IAE,
        r"Value for attr 'dtype' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32),
        "ValueError",
        r"For integer `dtype` argument <dtype: 'int32'>, argument `minval` and `maxval` must be both None or not None\. Got `minval`=0 and `maxval`=None\.",
    ),
    (
        lambda tf: tf.random.stateless_uniform(
            [2], seed=[1, 2], minval=1, maxval=2, dtype=tf.uint32
        ),
        "ValueError",
        r"Argument `dtype` got invalid value <dtype: 'uint32'> when argument `minval` is not None\. Please don't use unsigned integers in this case\.",
    ),
    (
        lambda tf: tf.random.stateless_uniform(
            [2], seed=[1, 2], minval=3, maxval=3, dtype=tf.int32
        ),
        IAE,
        r"Need minval < maxval, got 3 >= 3 \[Op:StatelessRandomUniformIntV2\]",
    ),
    (
        lambda tf: tf.random.stateless_binomial([3], seed=[1, 2], counts=[1.0, 2.0], probs=0.5),
        IAE,
        r"Shape passed in must end with broadcasted shape\.",
    ),
    (
        lambda tf: tf.random.stateless_binomial(
            [2, 3], seed=[1, 2], counts=[[1.0], [2.0]], probs=0.5
        ),
        IAE,
        r"Shape passed in must end with broadcasted shape\.",
    ),
    (
        lambda tf: tf.random.stateless_binomial(
            [2], seed=[1, 2], counts=10.0, probs=0.5, output_dtype=tf.bool
        ),
        IAE,
        r"Value for attr 'dtype' of bool is not in the list of allowed values: half, float, double, int32, int64",
    ),
    (
        lambda tf: tf.random.Generator.from_seed(1).uniform([2], dtype=tf.int32),
        "ValueError",
        r"For integer dtype <dtype: 'int32'>, minval and maxval must be both `None` or both non-`None`; got minval=0 and maxval=None",
    ),
    (
        lambda tf: tf.random.Generator.from_seed(1).normal([2], dtype=tf.int32),
        "TypeError",
        r"Cannot convert 0\.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), 1.0),
        "ValueError",
        r"`rate` must be a scalar tensor or a float in the range \[0, 1\)\. Received: rate=1\.0",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), -0.1),
        "ValueError",
        r"`rate` must be a scalar tensor or a float in the range \[0, 1\)\. Received: rate=-0\.1",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3], tf.int32), 0.5),
        "ValueError",
        r"`x\.dtype` must be a floating point tensor as `x` will be scaled\. Received: x_dtype=<dtype: 'int32'>",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), tf.constant([0.5, 0.5])),
        "ValueError",
        r"Shape \(2,\) must have rank 0",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), "a"),
        "ValueError",
        r"`rate` must be a scalar or scalar tensor\. Received: rate=a",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), tf.constant(0.5, tf.float16)),
        "ValueError",
        r"`x\.dtype` must be compatible with `rate\.dtype`\. Received: x\.dtype=<dtype: 'float32'> and rate\.dtype=<dtype: 'float16'>",
    ),
    (
        lambda tf: tf.nn.dropout(tf.ones([3]), 0.5, noise_shape=[2]),
        IAE,
        r"condition \[2\], then \[3\], and else \[\] must be broadcastable \[Op:SelectV2\]",
    ),
]


# A shape must be a vector of int32 or int64: TF's op errors, not a sample of another shape.
_NOT_A_VECTOR = r"shape must be a vector of \{int32,int64\}, got shape \[1,2\]"
ERRORS += [
    (lambda tf: tf.random.normal(tf.constant([[2, 3]])), IAE, _NOT_A_VECTOR),
    (lambda tf: tf.random.uniform([[2, 3]]), IAE, _NOT_A_VECTOR),
    (lambda tf: tf.random.uniform([[2, 3]], maxval=5, dtype=tf.int32), IAE, _NOT_A_VECTOR),
    (lambda tf: tf.random.truncated_normal(tf.constant([[2, 3]])), IAE, _NOT_A_VECTOR),
    (lambda tf: tf.random.poisson([[2, 3]], 1.0), IAE, _NOT_A_VECTOR),
    (lambda tf: tf.random.stateless_normal([[2, 3]], [1, 2]), IAE, _NOT_A_VECTOR),
    (
        lambda tf: tf.random.normal(3),
        IAE,
        r"shape must be a vector of \{int32,int64\}, got shape \[\] \[Op:RandomStandardNormal\]",
    ),
    (
        lambda tf: tf.random.normal(tf.constant([2, 3], tf.uint8)),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.random.uniform(tf.constant([2, 3], tf.uint8)),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: int32, int64",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float64"])
def test_categorical_takes_every_float_dtype_of_logits_as_tfs(dtype):
    """bfloat16 logits included (NumPy's kind of bfloat16 is "V", not "f")."""
    for fw in (tapejax, tensorflow):
        logits = fw.cast(fw.constant([[0.0, 50.0, 0.0], [50.0, 0.0, 0.0]]), dtype)
        samples = fw.random.categorical(logits, 4, seed=3)
        assert samples.dtype.name == "int64" or (fw is tapejax and samples.dtype.name == "int32")
        assert samples.numpy().tolist() == [[1] * 4, [0] * 4]
