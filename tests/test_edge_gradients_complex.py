"""Tape gradients of complex64 ops compared with live TensorFlow: TF's conjugated
gradients, its composite ``sign`` of a complex tensor, and its rules that do not
conjugate; and division where ``y * y`` underflows, which differs as documented."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")


def _complex(re, im):
    out = np.empty(len(re), np.complex64)
    out.real, out.imag = re, im
    return out


X = _complex([-2.0, 0.0, 0.5, 1.0, 2.0, 0.0, -1.0, 3.0], [1.0, 0.0, -0.5, -1.0, 2.0, 1.0, 0.0, 1.0])
Y = _complex([0.0, 2.0, 0.0, 1.0, -1.0, 0.0, 1.0, 3.0], [0.0, 1.0, 0.0, -1.0, -1.0, 0.0, 1.0, 0.0])


def _gradients(fw, fn, args, upstream=None):
    xs = [fw.constant(a) for a in args]
    with fw.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(fw, *xs)
    grads = tape.gradient(y, xs, output_gradients=upstream)
    return np.asarray(y), [None if g is None else np.asarray(g) for g in grads]


CASES = [
    ("squared_difference", lambda fw, x, y: fw.math.squared_difference(x, y), [X, Y]),
    ("sign", lambda fw, x: fw.math.sign(x), [X]),
    ("silu", lambda fw, x: fw.nn.silu(x), [X]),
    ("swish with a scalar beta", lambda fw, x, b: fw.nn.swish(x, b), [X, np.complex64(0.5 - 1j)]),
]


@pytest.mark.parametrize("fn, args", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradient_is_tfs(fn, args):
    want_y, want = _gradients(tensorflow, fn, args)
    got_y, got = _gradients(tapejax, fn, args)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_squared_difference_of_complex_is_a_real_square_of_the_modulus():
    """TF's kernel is conj(x - y) * (x - y), not (x - y) ** 2."""
    x, y = tapejax.constant(np.complex64([1j, 2 + 1j])), tapejax.constant(np.complex64([0, 0]))
    np.testing.assert_array_equal(tapejax.math.squared_difference(x, y).numpy(), [1, 5])


def test_divide_gradient_where_y_squared_underflows_differs_as_documented():
    """TF's d/dy is (-x / y) / y, finite where y * y underflows; tapejax's is JAX's
    -x / y**2 (docs/compat.md, "`tapejax.math`": division's y-gradient)."""
    args = [np.float32([0.0, 1.0, 2.0]), np.float32([1e-30, 1e-30, 4.0])]
    want = _gradients(tensorflow, lambda fw, x, y: fw.math.divide(x, y), args)[1]
    got = _gradients(tapejax, lambda fw, x, y: fw.math.divide(x, y), args)[1]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_array_equal(want[1], np.float32([-0.0, -np.inf, -0.125]))
    np.testing.assert_array_equal(got[1], np.float32([np.nan, -np.inf, -0.125]))
