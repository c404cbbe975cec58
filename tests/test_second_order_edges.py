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


def _prod(axis=None, keepdims=False):
    return lambda m: lambda x: m.reduce_prod(x, axis=axis, keepdims=keepdims)


def _cumprod(**flags):
    return lambda m: lambda x: m.math.cumprod(x, **flags)


def _special(name):
    return lambda m: getattr(m.math, name)


def _svd_values_cubed(m):
    return lambda x: m.reduce_sum(m.linalg.svd(x, compute_uv=False) ** 3)


def _svd_first_column_squared(m):
    # Squares: the same for either sign of a singular vector (LAPACK's and XLA's differ).
    def f(x):
        _, u, v = m.linalg.svd(x)
        w = m.constant(np.arange(1, x.shape[0] + 1, dtype=np.float32))
        return m.reduce_sum(u[:, 0] ** 2 * w) + m.reduce_sum(v[:, 0] ** 2)

    return f


def _pinv(m):
    return m.linalg.pinv


def _eigh_first_column_squared(m):
    def f(x):
        e, v = m.linalg.eigh(x)
        return m.reduce_sum(v[:, 0] ** 2 * m.constant([1.0, 2.0, 3.0])) + m.reduce_sum(e**2)

    return f


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
    # TF's _ProdGrad: the products of the others as exclusive cumprods from either end,
    # whose own gradient (Cumprod's, a div_no_nan by the input) is 0 at every zero.
    "reduce_prod": (_prod(), [[1.5, -2.0, 3.0, 0.5]]),
    "reduce_prod_one_zero": (_prod(), [[0.0, 2.0, 3.0, 4.0]]),
    "reduce_prod_two_zeros": (_prod(), [[0.0, 0.0, 2.0, 3.0]]),
    "reduce_prod_overflow": (_prod(), [[1e30, 1e30, 0.0, 2.0]]),
    "reduce_prod_overflow_no_zero": (_prod(), [[1e30, 1e30, 3.0, 2.0]]),
    "reduce_prod_axis0": (_prod(0), [[[1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [1.5, 2.0, inf]]]),
    "reduce_prod_keepdims_nan": (
        _prod([1], True),
        [[[1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [1.5, 2.0, nan]]],
    ),
    "reduce_prod_axes_reordered": (
        _prod([2, 0]),
        [(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 5 - 2).tolist()],
    ),
    "reduce_prod_no_axes": (_prod([]), [[[1.0, 0.0], [2.0, 3.0]]]),
    "reduce_prod_scalar": (_prod(), [2.5]),
    "reduce_prod_empty": (_prod(0, True), [np.zeros((0, 3), np.float32)]),
    "cumprod_zeros": (_cumprod(), [[1.5, 0.0, -2.0, 0.0, 3.0]]),
    "cumprod_exclusive_reverse": (
        _cumprod(exclusive=True, reverse=True),
        [[0.0, 0.0, 2.0, 3.0, 1e30]],
    ),
    # TF's _BesselI1Grad divides i1(x) by x unguarded in the branch its where does not
    # take at 0: the second derivative there is NaN.
    "bessel_i1": (_special("bessel_i1"), [[0.0, -0.0, 1.0, -2.0, inf, nan, 100.0]]),
    # No gradient for zeta's x or betainc's a and b, but the others' gradients read them.
    "zeta": (
        _special("zeta"),
        [[2.0, 3.0, 1.5, 4.0, 1.0, 2.0], [1.0, 2.0, 0.5, 3.0, 2.0, 0.0]],
    ),
    "betainc": (_special("betainc"), [[1.0, 2.0, 0.5], [2.0, 3.0, 1.5], [0.3, 0.5, 0.7]]),
    # TF's _SvdGrad: its _SafeReciprocal's Reciprocal gradient, -(grad * y) * y, is 0 for
    # the zero upstream of the spectral gaps' diagonal, even where y * y overflows; and
    # the singular values' gradient is made of a second SVD's vectors.
    "svd_values_repeated": (_svd_values_cubed, [[[1.0, 0.0], [0.0, 1.0]]]),
    "svd_values_rank_deficient": (_svd_values_cubed, [[[1.0, 0.0], [0.0, 0.0]]]),
    "svd_values_tall": (_svd_values_cubed, [[[2.0, 1.0], [0.5, 3.0], [1.0, -1.0]]]),
    "svd_vectors": (_svd_first_column_squared, [[[2.0, 1.0], [0.5, 3.0]]]),
    "svd_vectors_tall": (_svd_first_column_squared, [[[2.0, 1.0], [0.5, 3.0], [1.0, -1.0]]]),
    "svd_vectors_rank_deficient": (_svd_first_column_squared, [[[1.0, 0.0], [0.0, 0.0]]]),
    "pinv_identity": (_pinv, [[[1.0, 0.0], [0.0, 1.0]]]),
    "pinv_rank_deficient": (_pinv, [[[1.0, 0.0], [0.0, 0.0]]]),
    "pinv": (_pinv, [[[2.0, 1.0], [0.5, 3.0]]]),
    "pinv_tall": (_pinv, [[[2.0, 1.0], [0.5, 3.0], [1.0, -1.0]]]),
    "eigh": (
        _eigh_first_column_squared,
        [[[2.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 1.0]]],
    ),
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
    [
        "atanh",
        "asinh",
        "pow",
        "multiply_no_nan",
        "softmax_xent",
        "lgamma",
        "l2_normalize",
        "reduce_prod_two_zeros",
        "reduce_prod_axes_reordered",
        "reduce_prod_no_axes",
        "bessel_i1",
        "zeta",
        "betainc",
    ],
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


# Not reduce_prod_overflow: TF's forward mode carries a zero tangent for the upstream
# gradient, 0 times the infinite product of the others is NaN there; tapejax's has none.
@pytest.mark.parametrize(
    "case",
    [
        "multiply_no_nan",
        "softmax_xent",
        "softmax_xent_unnormalized",
        "reduce_prod_two_zeros",
        "reduce_prod_axis0",
        "reduce_prod_keepdims_nan",
        "reduce_prod_axes_reordered",
    ],
)
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
