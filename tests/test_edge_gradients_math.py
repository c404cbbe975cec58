"""First-order tape gradients of ``tf.math`` ops at edge points (0, -0.0, +-inf, NaN, huge
values, ties), each compared with live TensorFlow: values equal up to float32 rounding,
NaN and inf in the same places."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

INF, NAN = np.inf, np.nan
SPECIAL = [INF, -INF, NAN, 0.0, 1e-30, -1e-30, 3e38, 1.0]


def _gradients(fw, fn, args):
    xs = [fw.constant(np.asarray(a, np.float32)) for a in args]
    with fw.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(fw, *xs)
    return [None if g is None else np.asarray(g) for g in tape.gradient(y, xs)]


def _zeta_q(fw, x, q):
    return fw.math.zeta(x, q)


CASES = [
    (
        "bessel_i0 at 0 and overflow",
        lambda fw, x: fw.math.bessel_i0(x),
        [[0.0, 100.0, -100.0, 2.0]],
    ),
    ("bessel_i1e at nan", lambda fw, x: fw.math.bessel_i1e(x), [[NAN, 0.0, 1.0, -2.0]]),
    ("erfcinv at 0 and 2", lambda fw, x: fw.math.erfcinv(x), [[0.0, -0.0, 2.0, 1.0, 0.5]]),
    ("ndtri at 0 and 1", lambda fw, x: fw.math.ndtri(x), [[0.0, -0.0, 1.0, 0.5, 0.25]]),
    ("digamma at inf", lambda fw, x: fw.math.digamma(x), [[INF, 1.0, 2.5, 1e10]]),
    ("rsqrt at -0.0", lambda fw, x: fw.math.rsqrt(x), [[-0.0, 0.0, 1.0, 4.0]]),
    (
        "igamma's a at a <= 0 and x == 0",
        lambda fw, a, x: fw.math.igamma(a, x),
        [[0.0, -0.0, -1.0, 0.0, -1.0, INF, NAN, 2.0], [0.0, 0.0, 0.0, 2.0, 2.0, 1.0, 0.0, INF]],
    ),
    (
        "igammac's a at a <= 0 and x == 0",
        lambda fw, a, x: fw.math.igammac(a, x),
        [[0.0, -0.0, -1.0, 0.0, -1.0, INF, NAN, 2.0], [0.0, 0.0, 0.0, 2.0, 2.0, 1.0, 0.0, INF]],
    ),
    (
        "zeta's q where TF's zeta is inf or NaN",
        _zeta_q,
        [[1.0, -1.0, 0.0, 2.0, 3.0, 2.0, 0.5, INF], [1.0, 1.0, 3.0, 0.0, -1.0, INF, 2.0, 2.0]],
    ),
    (
        "polygamma's x at inf and poles",
        lambda fw, n, x: fw.math.polygamma(n, x),
        [[1.0, 2.0, 1.0, 1.0, 0.0, 3.0], [INF, INF, 0.0, -1.0, 2.0, 1.0]],
    ),
    (
        "cumulative_logsumexp of huge values",
        lambda fw, x: fw.math.cumulative_logsumexp(x),
        [[80.0, -80.0, 100.0, -100.0, 1e10, -1e10, 30.0, -30.0]],
    ),
    (
        "exclusive reverse cumulative_logsumexp of huge values",
        lambda fw, x: fw.math.cumulative_logsumexp(x, exclusive=True, reverse=True),
        [[80.0, -80.0, 100.0, -100.0, 1e10, -1e10, 30.0, -30.0]],
    ),
    (
        "cumulative_logsumexp with inf and nan",
        lambda fw, x: fw.math.cumulative_logsumexp(x),
        [SPECIAL],
    ),
    (
        "reverse cumulative_logsumexp with inf and nan",
        lambda fw, x: fw.math.cumulative_logsumexp(x, reverse=True),
        [SPECIAL],
    ),
    (
        "cumulative_logsumexp's nan after a finite sum",
        lambda fw, x: fw.math.cumulative_logsumexp(x) * fw.constant([1.0, -2.0, 3.0, 0.5, 2.0]),
        [[1.0, NAN, 2.0, -INF, INF]],
    ),
    (
        "floormod's y where it is infinite",
        lambda fw, x, y: fw.math.floormod(x, y),
        [[1.0, -1.0, 1e10, 0.5, 3.0, 7.0], [-INF, INF, -INF, INF, 2.0, -2.0]],
    ),
    (
        "betainc's x at 0 and 1 with a or b 1",
        lambda fw, a, b, x: fw.math.betainc(a, b, x),
        [
            [1.0, 1.0, 1.0, 0.5, 2.0, 1.0, 0.0, 2.0],
            [1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.5],
            [0.0, 1.0, 0.0, 1.0, 1.0, NAN, 0.5, 0.3],
        ],
    ),
    ("reduce_max with nan", lambda fw, x: fw.reduce_max(x), [SPECIAL]),
    ("norm ord=inf with nan", lambda fw, x: fw.norm(x, ord=np.inf), [[NAN, 1.0, -2.0, 3.0]]),
    (
        "matrix norm ord=1 with nan",
        lambda fw, x: fw.norm(fw.reshape(x, [2, 2]), ord=1, axis=[0, 1]),
        [[NAN, 1.0, -2.0, 3.0]],
    ),
    ("reduce_min with nan", lambda fw, x: fw.math.reduce_min(x), [SPECIAL]),
    (
        "reduce_max over an axis with nan and ties",
        lambda fw, x: fw.reduce_max(fw.reshape(x, [2, 4]), axis=1),
        [[INF, -INF, NAN, 0.0, 3.0, 1.0, 3.0, 3.0]],
    ),
    (
        "reduce_min over axis 0 with ties",
        lambda fw, x: fw.reduce_min(fw.reshape(x, [4, 2]), axis=0),
        [[1.0, NAN, 1.0, 2.0, 1.0, 0.0, 5.0, 2.0]],
    ),
]


@pytest.mark.parametrize("what, fn, args", CASES, ids=[c[0] for c in CASES])
def test_gradient_is_tfs(what, fn, args):
    want = _gradients(tensorflow, fn, args)
    got = _gradients(tapejax, fn, args)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None), what
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-30, err_msg=what)


def test_top_k_and_sort_nan_order_differs_from_tf():
    """docs/compat.md: TF's TopK (and sort, made of it) compares with ``>``, so NaN's place
    depends on where it stands in the input; tapejax sorts NaN above +inf, as JAX."""
    x = np.float32(SPECIAL)
    ours = tapejax.math.top_k(x, k=1)
    theirs = tensorflow.math.top_k(x, k=1)
    assert np.isnan(ours.values.numpy()[0]) and int(ours.indices.numpy()[0]) == 2
    assert theirs.values.numpy()[0] == INF and int(theirs.indices.numpy()[0]) == 0
    # Without NaN, both agree, ties by lower index first.
    y = np.float32([1.0, INF, -INF, 3.0, 3.0, 0.0])
    for k in (1, 6):
        a, b = tapejax.math.top_k(y, k=k), tensorflow.math.top_k(y, k=k)
        np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())


def _second_order(fw, fn, args, compiled):
    xs = [fw.constant(np.asarray(a, np.float32)) for a in args]

    def both(*xs):
        with fw.GradientTape() as outer:
            outer.watch(xs[-1])
            with fw.GradientTape() as inner:
                inner.watch(xs[-1])
                y = fn(fw, *xs)
            dy = inner.gradient(y, xs[-1])
        return dy, outer.gradient(dy, xs[-1])

    return [np.asarray(v) for v in (fw.function(both) if compiled else both)(*xs)]


SECOND_ORDER = [
    ("bessel_i0 at 0", lambda fw, x: fw.math.bessel_i0(x), [[0.0, 1.0, -2.0, 5.0]]),
    ("bessel_i1e at 0", lambda fw, x: fw.math.bessel_i1e(x), [[0.0, 1.0, -2.0, 5.0]]),
    ("ndtri near 0 and 1", lambda fw, x: fw.math.ndtri(x), [[1e-30, 0.5, 0.9, 1.0]]),
    ("digamma at inf", lambda fw, x: fw.math.digamma(x), [[INF, 0.5, 3.0, 1e10]]),
    (
        "zeta's q where TF's zeta is inf or NaN",
        lambda fw, x, q: fw.math.zeta(x, q),
        [[1.0, 0.0, 2.0, 3.0], [1.0, 3.0, 0.0, 4.0]],
    ),
    (
        "betainc's x at 0 and 1",
        lambda fw, a, b, x: fw.math.betainc(a, b, x),
        [[1.0, 2.0, 0.5, 3.0], [2.0, 1.0, 1.5, 2.0], [0.0, 1.0, 0.5, 0.25]],
    ),
    (
        "cumulative_logsumexp of huge values",
        lambda fw, x: fw.math.cumulative_logsumexp(x) * fw.constant([1.0, -2.0, 3.0, 0.5]),
        [[1e10, -1e10, 3.0, 4.0]],
    ),
    (
        "reduce_max with nan",
        lambda fw, x: fw.reduce_max(x * x),
        [[1.0, NAN, 3.0, 2.0]],
    ),
]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("what, fn, args", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_order_and_compiled_gradients_are_tfs(what, fn, args, compiled):
    want = _second_order(tensorflow, fn, args, compiled=False)
    got = _second_order(tapejax, fn, args, compiled)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-30, err_msg=what)


def test_segment_max_nan_differs_from_tf():
    """docs/compat.md: TF's segment max folds left, so a NaN is replaced by the element
    after it; tapejax's is NaN for the segment. Ties share the gradient in both."""
    x = np.float32([1.0, NAN, 0.5])
    assert tensorflow.math.segment_max(x, [0, 0, 0]).numpy()[0] == 0.5
    assert np.isnan(tapejax.math.segment_max(x, [0, 0, 0]).numpy()[0])
    ties = [3.0, 1.0, 3.0, 2.0, 2.0]

    def fn(fw, v):
        return fw.math.segment_max(v, [0, 0, 0, 1, 1])

    for g, w in zip(
        _gradients(tapejax, fn, [ties]), _gradients(tensorflow, fn, [ties]), strict=True
    ):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_logsumexp_values_with_nan_and_inf_are_tfs(reverse):
    """TF's scan counts a NaN as a copy of the sum so far and turns inf + inf into NaN."""
    for x in (SPECIAL, [1.0, NAN, 2.0, NAN, -1.0], [NAN, 1.0, INF, 3.0], [INF, INF, 1.0]):
        x = np.float32(x)
        want = tensorflow.math.cumulative_logsumexp(x, reverse=reverse).numpy()
        got = tapejax.math.cumulative_logsumexp(x, reverse=reverse).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(x))


def test_betainc_values_at_its_edges_are_tfs():
    """TF's kernel: NaN for a <= 0 or b <= 0, then 0 at x == 0 and 1 at x == 1."""
    a = np.float32([0.0, 1.0, 0.5, NAN, 1.0, 2.0, NAN])
    b = np.float32([1.0, 0.0, 2.0, 1.0, NAN, 1.0, 2.0])
    x = np.float32([0.5, 0.5, 0.0, 0.0, 1.0, 0.5, 1.0])
    want = tensorflow.math.betainc(a, b, x).numpy()
    got = tapejax.math.betainc(a, b, x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
