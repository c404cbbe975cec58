"""Gradients in float16, bfloat16 and float64 where tapejax once differed from TF.

Half types: TF's gradient of a broadcasting op sums over the broadcast axes with ``Sum``,
which accumulates in float32; bfloat16 has 8 bits of mantissa, so a sum in bfloat16 is
off by percents after a few dozen terms. ``relu6``'s kinks and ``l2_normalize`` of zeros
(whose epsilon underflows to 0 in float16) must have TF's gradients in every float type.
``l2_loss``'s gradient is TF's ``x * grad``, finite where ``2 * x`` overflows. float64:
TF's ``leaky_relu`` takes ``alpha`` as a 32-bit attribute, and its ``gelu`` casts a
float32 constant.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tapejax

tf_ = pytest.importorskip("tensorflow")

BF16 = ml_dtypes.bfloat16


def _grads(lib, fn, arrays, dtypes):
    xs = [lib.constant(np.asarray(a).astype(d)) for a, d in zip(arrays, dtypes)]
    with lib.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = fn(lib, *xs)
    return [np.asarray(g).astype(np.float64) for g in tape.gradient(y, xs)]


def _features():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(4, 3, 3, 5)) * 3).astype(np.float32)


def _weights(shape):
    return np.linspace(0.5, 2.0, int(np.prod(shape))).reshape(shape).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_broadcast_gradient_sums_in_float32(dtype):
    x, w = _features(), _weights((4, 3, 3, 5))

    def fn(lib, x, s, w):
        return x * s * w

    arrays, dtypes = [x, np.full(5, 1.5, np.float32), w], [dtype] * 3
    theirs = _grads(tf_, fn, arrays, dtypes)[1]
    ours = _grads(tapejax, fn, arrays, dtypes)[1]
    # Within one rounding of the result (a bfloat16 sum in bfloat16 is off by ~3 units).
    ulp = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(ours, theirs, rtol=1.5 * ulp)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_batch_normalization_gradients_sum_in_float32(dtype):
    x = _features()

    def fn(lib, x, mean, variance, offset, scale):
        y = lib.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
        return y * lib.constant(_weights(x.shape).astype(dtype))

    arrays = [x, x.mean((0, 1, 2)), x.var((0, 1, 2)), np.ones(5), np.full(5, 2.0)]
    theirs = _grads(tf_, fn, arrays, [dtype] * 5)
    ours = _grads(tapejax, fn, arrays, [dtype] * 5)
    ulp = float(ml_dtypes.finfo(dtype).eps)
    # offset's gradient is a plain sum over 36 terms; the others are differences of such
    # sums, each rounded to the half type, so they agree to the rounding of the larger.
    np.testing.assert_allclose(ours[3], theirs[3], rtol=2 * ulp)
    for a, b in zip(theirs, ours):
        np.testing.assert_allclose(b, a, atol=8 * ulp * np.abs(a).max())


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32], ids=str)
def test_relu6_gradient_is_zero_at_its_kinks(dtype):
    x = np.array([-1.0, 0.0, 3.0, 6.0, 7.0, -0.0], np.float32)
    theirs = _grads(tf_, lambda lib, x: lib.nn.relu6(x), [x], [dtype])
    ours = _grads(tapejax, lambda lib, x: lib.nn.relu6(x), [x], [dtype])
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[0], [0, 0, 1, 0, 0, 0])


@pytest.mark.parametrize(
    "dtype, epsilon", [(np.float16, 1e-12), (np.float32, 0.0)], ids=["float16", "epsilon0"]
)
def test_l2_normalize_gradient_of_zeros_is_tfs(dtype, epsilon):
    x = np.zeros((2, 4), np.float32)
    x[1] = [1.0, -2.0, 0.5, 0.0]

    def fn(lib, x):
        return lib.math.l2_normalize(x, axis=-1, epsilon=epsilon)

    theirs = _grads(tf_, fn, [x], [dtype])[0]
    ours = _grads(tapejax, fn, [x], [dtype])[0]
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)
    assert np.isposinf(ours[0]).all()


def test_float64_leaky_relu_scales_by_float32_alpha(x64):
    x = np.array([-1.0, -0.0, 0.0, -3.0, 2.0], np.float64)
    for lib_out in (
        lambda lib, x: lib.nn.leaky_relu(x),
        lambda lib, x: lib.nn.leaky_relu(x, alpha=0.1),
    ):
        theirs = _grads(tf_, lib_out, [x], [np.float64])[0]
        ours = _grads(tapejax, lib_out, [x], [np.float64])[0]
        np.testing.assert_array_equal(ours, theirs)
    t = tapejax.nn.leaky_relu(tapejax.constant(x))
    np.testing.assert_array_equal(np.asarray(t), tf_.nn.leaky_relu(tf_.constant(x)).numpy())


def test_bfloat16_l2_loss_gradient_is_x_even_where_2x_overflows():
    x = np.array([3e38, -3e38, 1.0, 0.0], np.float32)
    theirs = _grads(tf_, lambda lib, x: lib.nn.l2_loss(x), [x], [BF16])[0]
    ours = _grads(tapejax, lambda lib, x: lib.nn.l2_loss(x), [x], [BF16])[0]
    np.testing.assert_array_equal(ours, theirs)
    assert np.isfinite(ours).all()


def test_float64_gelu_and_its_gradient_use_tfs_float32_constant(x64):
    x = np.array([-2.0, -0.5, 0.5, 1.0, 3.0], np.float64)
    theirs = _grads(tf_, lambda lib, x: lib.nn.gelu(x), [x], [np.float64])[0]
    ours = _grads(tapejax, lambda lib, x: lib.nn.gelu(x), [x], [np.float64])[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=0)
    np.testing.assert_allclose(
        np.asarray(tapejax.nn.gelu(tapejax.constant(x))),
        tf_.nn.gelu(tf_.constant(x)).numpy(),
        rtol=1e-15,
    )
