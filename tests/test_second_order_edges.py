"""Second-order gradients at edge points, against live TF.

TF's second derivative of an op is the derivative of the ops its registered gradient is
made of, so it differs from the true second derivative (and from JAX's) at poles,
overflows and masked branches. Each case computes, under nested ``GradientTape``s in TF
and in tapejax, ``outer.gradient(sum of inner.gradient(f(*xs), xs), xs)`` and compares the
results: ``None`` in the same places, the same values, NaN and infinities (with their
signs) in the same places. A few cases also run inside ``tapejax.function``.
"""

import numpy as np
import pytest

tf_ = pytest.importorskip("tensorflow")
import tapejax  # noqa: E402

inf, nan = np.inf, np.nan


def _softmax_xent(m):
    return lambda labels, logits: m.nn.softmax_cross_entropy_with_logits(labels, logits)


def _pow(m):
    return m.math.pow


def _mul_no_nan(m):
    return m.math.multiply_no_nan


def _adjust_gamma(m):
    return m.image.adjust_gamma


def _l2_normalize(m):
    return m.math.l2_normalize


def _unary(name):
    return lambda m: getattr(m.math, name)


_EDGE = [-1.0, 1.0, inf, -inf, 3e38, -3e38, 0.0, 0.5, -0.5, 2.0, -2.0, 1e-30]
_LOGITS = [[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0]]
_LABELS = [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]

CASES = {
    "atanh": (_unary("atanh"), [_EDGE]),
    "asinh": (_unary("asinh"), [_EDGE]),
    "pow": (
        _pow,
        [
            [0.0, 1.0, 2.0, -1.0, 0.0, 3.0, -2.0, 0.0, -1.0, 4.0],
            [0.0, 1.0, 3.0, 1.0, 2.0, 3.0, -2.0, -1.0, -1.0, 0.5],
        ],
    ),
    "multiply_no_nan": (
        _mul_no_nan,
        [[0.0, 0.0, 1.0, -1.0, 2.0, 0.0, -0.0, 4.0], [0.0, 2.0, 0.0, 0.0, -1.0, -1.0, 0.0, 0.5]],
    ),
    "lgamma": (_unary("lgamma"), [[inf, -inf, 1.0, 2.0, 0.5, -0.5, 3e38, 1e-30]]),
    "adjust_gamma": (_adjust_gamma, [[0.0, -0.0, 0.5, 1.0, 2.0, nan]]),
    "l2_normalize": (_l2_normalize, [[inf, -inf, nan, 0.0, 1e-30, -1e-30, 3e38, 1.0]]),
    "l2_normalize_nan": (_l2_normalize, [[nan, 3e38, 1.0, 0.0]]),
    "softmax_xent": (_softmax_xent, [_LABELS, _LOGITS]),
    "softmax_xent_unnormalized": (
        _softmax_xent,
        [[[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0]], [[0.0, 1.0, 3.0], [1.0, 2.0, 3.0]]],
    ),
}


def second_order(m, make, xs):
    """``outer.gradient(sum of inner.gradient(f(*xs), xs), xs)``."""
    f = make(m)
    with m.GradientTape() as outer:
        outer.watch(xs)
        with m.GradientTape() as inner:
            inner.watch(xs)
            y = f(*xs)
        firsts = [g for g in inner.gradient(y, xs) if g is not None]
        total = m.add_n([m.reduce_sum(g) for g in firsts])
    return outer.gradient(total, xs)


def second_order_numpy(m, make, arrays):
    grads = second_order(m, make, [m.constant(np.asarray(a, np.float32)) for a in arrays])
    return [None if g is None else np.asarray(g) for g in grads]


def assert_same(tf_grads, tj_grads):
    assert len(tf_grads) == len(tj_grads)
    for i, (a, b) in enumerate(zip(tf_grads, tj_grads)):
        assert (a is None) == (b is None), (i, a, b)
        if a is None:
            continue
        assert a.shape == b.shape, (i, a.shape, b.shape)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"NaN of input {i}")
        np.testing.assert_array_equal(np.isposinf(a), np.isposinf(b), err_msg=f"+inf {i}")
        np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b), err_msg=f"-inf {i}")
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"input {i}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_order_matches_tf(case):
    make, arrays = CASES[case]
    assert_same(second_order_numpy(tf_, make, arrays), second_order_numpy(tapejax, make, arrays))


@pytest.mark.parametrize(
    "case",
    ["atanh", "asinh", "pow", "multiply_no_nan", "softmax_xent", "lgamma", "l2_normalize"],
)
def test_second_order_matches_tf_in_function(case):
    make, arrays = CASES[case]
    compiled = tapejax.function(lambda *xs: second_order(tapejax, make, list(xs)))
    got = compiled(*[tapejax.constant(np.asarray(a, np.float32)) for a in arrays])
    got = [None if g is None else np.asarray(g) for g in got]
    assert_same(second_order_numpy(tf_, make, arrays), got)


def forward_over_backward(m, make, arrays):
    """The JVP (all-ones tangents) of the summed first-order gradients: TF's forward mode
    through the gradient rules."""
    f = make(m)
    xs = [m.constant(np.asarray(a, np.float32)) for a in arrays]
    with m.autodiff.ForwardAccumulator(xs, [m.ones_like(x) for x in xs]) as acc:
        with m.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        firsts = [g for g in tape.gradient(y, xs) if g is not None]
        total = m.add_n([m.reduce_sum(g) for g in firsts])
    return [np.asarray(acc.jvp(total))]


@pytest.mark.parametrize("case", ["multiply_no_nan", "softmax_xent", "softmax_xent_unnormalized"])
def test_forward_over_backward_matches_tf(case):
    make, arrays = CASES[case]
    assert_same(
        forward_over_backward(tf_, make, arrays), forward_over_backward(tapejax, make, arrays)
    )


def test_multiply_no_nan_zero_upstream_is_zero_for_nonfinite_x():
    # TF's gy = mul_no_nan(x, grad): 0 where the upstream is 0, even where x is inf or NaN.
    def first(m):
        x = m.constant(np.array([[inf, 1.0, 2.0], [0.0, nan, 3.0]], np.float32))
        y = m.constant(np.array([0.0, 2.0, 0.0], np.float32))
        up = m.constant(np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0]], np.float32))
        with m.GradientTape() as t:
            t.watch([x, y])
            z = m.math.multiply_no_nan(x, y)
        return [np.asarray(g) for g in t.gradient(z, [x, y], output_gradients=up)]

    assert_same(first(tf_), first(tapejax))


def test_second_derivatives_that_differ_from_tfs_as_documented():
    """docs/compat.md, "Second derivatives left as JAX's": where TF's gradient formula
    differentiates to NaN in a branch ``where`` does not take (I1 at 0), or its product's
    cumprod formula gives 0 (a product with two zeros), tapejax gives the derivative."""
    i1 = [tf_.math.bessel_i1, tapejax.math.bessel_i1]
    prod = [tf_.reduce_prod, tapejax.reduce_prod]
    at_zero = [
        second_order_numpy(m, lambda m, f=f: f, [[0.0, 1.0]]) for m, f in zip((tf_, tapejax), i1)
    ]
    assert np.isnan(at_zero[0][0][0]) and at_zero[1][0][0] == 0.0
    np.testing.assert_allclose(at_zero[0][0][1], at_zero[1][0][1], rtol=1e-5)
    two_zeros = [0.0, 0.0, 2.0, 3.0]
    got = [
        second_order_numpy(m, lambda m, f=f: f, [two_zeros]) for m, f in zip((tf_, tapejax), prod)
    ]
    np.testing.assert_array_equal(got[0][0], [0.0, 0.0, 0.0, 0.0])  # TF
    np.testing.assert_array_equal(got[1][0], [6.0, 6.0, 0.0, 0.0])  # d/dx_i of sum_j prod_{k!=j}
