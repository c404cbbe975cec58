"""Moments and normalization of ``tf.nn``: ``moments``, ``weighted_moments``,
``sufficient_statistics``, ``normalize_moments``, ``batch_normalization`` (and
``batch_norm_with_global_normalization``, TF's older name for it) and
``local_response_normalization`` (``lrn``).

As TF: float16 moments are computed in float32, integer moments are integer
(truncating) means, and ``batch_normalization`` follows TF's order of operations.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import (
    TF_ALLOWED,
    check_broadcast,
    dtype_mismatch,
    node_attrs,
    normalize_axis,
    require,
    to_tensor,
)
from .array_ops import squeeze
from .math_ops import square, squared_difference, subtract, wide_broadcast
from .reduction_ops import reduce_mean, reduce_sum

TF_ALLOWED.update({"LRN": "half, bfloat16, float"})


def _moments_fn(x, *, axes, keepdims):
    # As TF: float16 is computed in float32; the variance is centred on a mean held
    # constant (its gradient flows through the mean's first use only).
    y = x.astype(jnp.float32) if x.dtype == jnp.float16 else x
    mean = jnp.mean(y, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(y - jax.lax.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
    return mean.astype(x.dtype), variance.astype(x.dtype)


_moments_op = Op("Moments", _moments_fn, multiple_outputs=True)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance of ``x`` over ``axes`` (``tf.nn.moments``); ``shift`` is ignored,
    as in TF 2.

    Example:
        >>> import tapejax as tf
        >>> mean, variance = tf.nn.moments(tf.constant([1.0, 2.0, 3.0]), axes=[0])
        >>> float(mean), round(float(variance), 4)
        (2.0, 0.6667)
    """
    t = to_tensor(x)
    require(t, "fiu", "Mean")
    ax = normalize_axis(axes, t._v.ndim, "Mean")
    if t._v.dtype.kind in "iu":
        # TF's integer path: integer means (truncating), through TF's own ops.
        mean = reduce_mean(t, ax, keepdims=True)
        variance = reduce_mean(squared_difference(t, mean), ax, keepdims=True)
        if not keepdims:
            mean, variance = squeeze(mean, ax), squeeze(variance, ax)
        return mean, variance
    return apply(_moments_op, (t,), (("axes", ax), ("keepdims", bool(keepdims))))


def _batch_norm_fn(x, mean, variance, *rest, epsilon, has_offset, has_scale):
    offset = rest[0] if has_offset else None
    scale = rest[-1] if has_scale else None
    inv = jax.lax.rsqrt(variance + jnp.asarray(epsilon, variance.dtype))
    if scale is not None:
        inv = inv * scale
    shift = -mean * inv if offset is None else offset - mean * inv
    # Half types: the gradients of offset, scale and mean sum over x's other axes in float32.
    inv, shift = inv.astype(x.dtype), shift.astype(x.dtype)
    full = jnp.broadcast_shapes(x.shape, inv.shape, shift.shape)
    return wide_broadcast(x, full) * wide_broadcast(inv, full) + wide_broadcast(shift, full)


_batch_norm_op = Op("BatchNormalization", _batch_norm_fn)


def _broadcast_shape(a: tuple, b: tuple, op_name: str) -> tuple:
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: [{','.join(map(str, a))}] vs. [{','.join(map(str, b))}] "
            f"[Op:{op_name}]",
        ) from None


def _check_batch_norm_shapes(x, mean, variance, offset, scale) -> None:
    """TF's broadcasts, in the order of its ops: ``inv = rsqrt(variance + eps) * scale``,
    ``x * inv``, ``mean * inv``, ``offset - mean * inv``, and their sum."""
    inv = variance._v.shape
    if scale is not None:
        inv = _broadcast_shape(inv, scale._v.shape, "Mul")
    scaled = _broadcast_shape(x._v.shape, inv, "Mul")
    shift = _broadcast_shape(mean._v.shape, inv, "Mul")
    if offset is not None:
        shift = _broadcast_shape(offset._v.shape, shift, "Sub")
    _broadcast_shape(scaled, shift, "AddV2")


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``
    (``tf.nn.batch_normalization``), in TF's order of operations; ``offset`` and ``scale``
    may be None."""
    t = to_tensor(x)
    # A Python variance is added to the epsilon in Python, then converted: float32.
    v = to_tensor(float(variance) if isinstance(variance, (int, float)) else variance)

    def operand(a):  # Python numbers take the variance's dtype, as in TF's arithmetic
        if a is None or isinstance(a, Tensor) or getattr(a, "_is_variable", False):
            return None if a is None else to_tensor(a)
        return convert_to_tensor(a, dtype=v.dtype)

    m, off, sc = operand(mean), operand(offset), operand(scale)
    # TF: inv = rsqrt(variance + eps) * scale; offset - mean * inv; both cast to x's dtype.
    vdt = v._v.dtype
    if sc is not None and sc._v.dtype != vdt:
        raise dtype_mismatch("Mul", 1, vdt, sc._v.dtype)
    if m._v.dtype != vdt:
        raise dtype_mismatch("Mul", 1, m._v.dtype, vdt)
    if off is not None and off._v.dtype != vdt:
        raise dtype_mismatch("Sub", 1, off._v.dtype, vdt)
    _check_batch_norm_shapes(t, m, v, off, sc)
    args = (t, m, v) + tuple(a for a in (off, sc) if a is not None)
    static = (
        ("epsilon", float(variance_epsilon)),
        ("has_offset", off is not None),
        ("has_scale", sc is not None),
    )
    return apply(_batch_norm_op, args, static)


def batch_norm_with_global_normalization(
    input,  # noqa: A002
    mean,
    variance,
    beta,
    gamma,
    variance_epsilon,
    scale_after_normalization,
    name=None,
):
    """Batch normalization with given statistics (``tf.nn.batch_norm_with_global_normalization``,
    deprecated in TF): ``batch_normalization(input, mean, variance, beta, gamma if
    scale_after_normalization else None, variance_epsilon)``, as TF computes it.

    Example:
        >>> import tapejax as tf
        >>> y = tf.nn.batch_norm_with_global_normalization(
        ...     tf.constant([[1.0, 3.0]]), [1.0, 1.0], [4.0, 4.0], [0.0, 1.0], [2.0, 2.0], 0.0, True)
        >>> y.numpy()
        array([[0., 3.]], dtype=float32)
    """
    scale = gamma if scale_after_normalization else None
    return batch_normalization(input, mean, variance, beta, scale, variance_epsilon)


_normalize_moments_op = Op(
    "NormalizeMoments",
    lambda counts, mean_ss, variance_ss, *shift: (
        mean_ss / counts + (shift[0] if shift else 0),
        variance_ss / counts - jnp.square(mean_ss / counts),
    ),
    multiple_outputs=True,
)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from sufficient statistics (``tf.nn.normalize_moments``)."""
    c, m, v = (to_tensor(a) for a in (counts, mean_ss, variance_ss))
    s = None if shift is None else to_tensor(shift)
    for a in (m, v, s):
        if a is not None and a._v.dtype != c._v.dtype:
            raise dtype_mismatch("Mul", 1, c._v.dtype, a._v.dtype)
    return apply(_normalize_moments_op, (c, m, v) + ((s,) if s is not None else ()))


def _lrn_fn(x, *, depth_radius, bias, alpha, beta):
    r = depth_radius
    window = (1, 1, 1, 2 * r + 1)
    sqr_sum = jax.lax.reduce_window(
        jnp.square(x),
        np.array(0, x.dtype),  # concrete: JAX's differentiable add-window primitive
        jax.lax.add,
        window,
        (1, 1, 1, 1),
        ((0, 0), (0, 0), (0, 0), (r, r)),
    )
    return x / jnp.power(bias + alpha * sqr_sum, beta)


_lrn_op = Op("LRN", _lrn_fn)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """Local response normalization over the last axis of a 4-D tensor (``tf.nn.lrn``):
    ``input / (bias + alpha * sum(input[..., d - r : d + r + 1] ** 2)) ** beta``."""
    x = to_tensor(input)
    attrs = node_attrs(
        alpha=float(alpha), beta=float(beta), bias=float(bias), depth_radius=int(depth_radius)
    )
    require(x, "f", "LRN", attrs)
    if x._v.ndim != 4:
        raise InvalidArgumentError(None, None, "in must be 4-dimensional [Op:LRN]")
    static = (
        ("depth_radius", int(depth_radius)),
        ("bias", float(bias)),
        ("alpha", float(alpha)),
        ("beta", float(beta)),
    )
    return apply(_lrn_op, (x,), static)


lrn = local_response_normalization


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``(count, sum(x - shift), sum((x - shift) ** 2), shift)`` over ``axes``
    (``tf.nn.sufficient_statistics``); ``count`` has ``x``'s dtype."""
    t = to_tensor(x)
    ax = tuple(sorted(set(normalize_axis(axes, t._v.ndim, "Sum"))))
    counts = convert_to_tensor(np.prod([t._v.shape[a] for a in ax], dtype=np.int64), dtype=t.dtype)
    if shift is None:
        m_ss, v_ss = t, square(t)
    else:
        shift = to_tensor(shift)
        m_ss, v_ss = subtract(t, shift), squared_difference(t, shift)
    m_ss = reduce_sum(m_ss, ax, keepdims=keepdims)
    v_ss = reduce_sum(v_ss, ax, keepdims=keepdims)
    return counts, m_ss, v_ss, shift


def _weighted_moments_fn(x, w, *, axes, keepdims):
    dtype = x.dtype
    if x.dtype == jnp.float16:
        x = x.astype(jnp.float32)
    w = w.astype(x.dtype)
    total = jnp.sum(w * x, axis=axes, keepdims=True)
    weight = jnp.sum(w + jnp.zeros_like(x), axis=axes, keepdims=True)
    safe = jnp.where(weight == 0, 1, weight)
    mean = jnp.where(weight == 0, 0, total / safe)  # TF's div_no_nan
    dist = jnp.sum(w * jnp.square(x - mean), axis=axes, keepdims=True)
    variance = jnp.where(weight == 0, 0, dist / safe)
    if not keepdims:
        mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
    return mean.astype(dtype), variance.astype(dtype)


_weighted_moments_op = Op("WeightedMoments", _weighted_moments_fn, multiple_outputs=True)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Frequency-weighted mean and variance over ``axes`` (``tf.nn.weighted_moments``);
    0 where the weights sum to 0, as TF's ``div_no_nan``."""
    t, w = to_tensor(x), to_tensor(frequency_weights)
    require(t, "f", "Mean")
    check_broadcast(t, w, "Mul")
    ax = normalize_axis(axes, t._v.ndim, "Sum")
    return apply(_weighted_moments_op, (t, w), (("axes", ax), ("keepdims", bool(keepdims))))
