"""``tf.signal``'s window functions: Hann, Hamming, Kaiser, Kaiser-Bessel-derived and
Vorbis windows, each one op computing TF's formula step by step in the requested dtype
(float16 included); the Kaiser windows are differentiable in ``beta``, as TF's are.

A window's length sets its shape, so it must be known when the op runs (a Python int or a
concrete Tensor); this module must never read a traced length.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import i0e

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .math_ops import cast

__all__ = [
    "hamming_window",
    "hann_window",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "vorbis_window",
]


def kaiser_array(length: int, beta, dtype):
    """TF's Kaiser window formula on JAX arrays: the argument built in float32 (TF's range
    has no float16 kernel), the rest in ``dtype``."""
    halflen = (np.float32(length) - np.float32(1.0)) / np.float32(2.0)
    count = int(np.ceil((halflen + np.float32(0.1) + halflen) / np.float32(1.0)))
    arg = (-halflen + np.arange(count, dtype=np.float32)).astype(dtype)
    halflen = jnp.asarray(halflen, dtype)
    num = beta * jnp.sqrt(jnp.maximum(1 - jnp.square(arg / halflen), 0))
    return jnp.exp(num - beta) * (i0e(num) / i0e(beta))


def _window_fn(beta=None, *, kind, length, dtype, periodic=None):
    """Every window's formula, TF's op for op, in ``dtype``."""
    if kind in ("hann", "hamming"):
        a, b = (0.5, 0.5) if kind == "hann" else (0.54, 0.46)
        if length == 1:
            return jnp.ones([1], dtype)
        n = jnp.asarray(length + periodic * (1 - length % 2) - 1, dtype)
        count = jnp.arange(length).astype(dtype)
        cos_arg = jnp.asarray(2 * np.pi, dtype) * count / n
        return (a - b * jnp.cos(cos_arg)).astype(dtype)
    if kind == "vorbis":
        arg = jnp.arange(length).astype(dtype)
        inner = jnp.power(jnp.sin(np.pi / jnp.asarray(length, dtype) * (arg + 0.5)), 2.0)
        return jnp.sin(np.pi / 2.0 * inner)
    if kind == "kaiser" and length == 1:
        return jnp.ones([1], dtype)
    beta = beta.astype(dtype)
    if kind == "kaiser":
        return kaiser_array(length, beta, dtype)
    # Kaiser-Bessel-derived: the normalized cumulative Kaiser window, mirrored.
    half = length // 2
    kaiserw = jnp.ones([1], dtype) if half == 0 else kaiser_array(half + 1, beta, dtype)
    csum = jnp.cumsum(kaiserw)
    halfw = jnp.sqrt(csum[:-1] / csum[-1])
    return jnp.concatenate([halfw, halfw[::-1]])


_window_op = Op("SignalWindow", _window_fn)


def _window(kind: str, length: int, dtype, beta=None, periodic=None):
    static = (("dtype", dtype._np), ("kind", kind), ("length", length), ("periodic", periodic))
    if beta is None:
        return apply(_window_op, (), static)
    return apply(_window_op, (cast(beta, dtype),), static)


def scalar_int(value, what: str, fn_name: str, dtype=dtypes.int32) -> int:
    """``value`` (a Python int or a scalar integer Tensor) as a Python int, with TF's
    static rank check; a traced value is refused (it would set a shape)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    t = value if isinstance(value, Tensor) else None
    if getattr(value, "_is_variable", False):
        t = value._dense_read()
    if t is None:
        t = convert_to_tensor(value, dtype=dtype)
    if t._v.ndim != 0:
        raise ValueError(f"Shape {t.shape} must have rank 0")
    if isinstance(t._value, jax.core.Tracer):
        raise NotImplementedError(
            f"tapejax.signal.{fn_name}: `{what}` sets the output's shape, so it must be known "
            "when the op runs; inside tapejax.function pass a Python int."
        )
    return int(np.asarray(t._value))


def float_dtype(dtype):
    """``dtype`` as a DType, with TF's check that it is a floating point type."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    return dtype


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """A Kaiser window (``tf.signal.kaiser_window``, ``np.kaiser``).

    Args:
      window_length: scalar int, the window's length.
      beta: the window's shape parameter (a float or a scalar Tensor: differentiable).
      dtype: a floating point dtype.
      name: ignored (TF's op name).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Raises:
      ValueError: for a non-floating ``dtype`` or a non-scalar length.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.kaiser_window(3, beta=1.0).numpy().round(4)
        array([0.7898, 1.    , 0.7898], dtype=float32)
    """
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", "kaiser_window")
    if length == 1:
        return _window("kaiser", 1, dtype)
    if length < 1:  # TF's range refuses the argument's bounds
        halflen = (np.float32(length) - np.float32(1.0)) / np.float32(2.0)
        raise InvalidArgumentError(
            None,
            None,
            f"Requires start <= limit when delta > 0: {-halflen}/{halflen + np.float32(0.1)} "
            "[Op:Range]",
        )
    return _window("kaiser", length, dtype, beta=beta)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """A Kaiser-Bessel-derived window (``tf.signal.kaiser_bessel_derived_window``).

    As in TF, an odd ``window_length`` gives ``window_length - 1`` samples.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.kaiser_bessel_derived_window(4).shape
        TensorShape([4])
    """
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", "kaiser_bessel_derived_window")
    return _window("kbd", length, dtype, beta=beta)


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """A Vorbis power-complementary window (``tf.signal.vorbis_window``).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.vorbis_window(4).numpy().round(4)
        array([0.228 , 0.9737, 0.9737, 0.228 ], dtype=float32)
    """
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", "vorbis_window")
    return _window("vorbis", length, dtype)


def _raised_cosine(window_length, periodic, dtype, kind: str, fn_name: str):
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", fn_name)
    if isinstance(periodic, (bool, np.bool_)):
        return _window(kind, length, dtype, periodic=int(periodic))
    if getattr(periodic, "_is_variable", False):
        periodic = periodic._dense_read()
    periodic = convert_to_tensor(periodic, dtype=dtypes.bool_)
    if periodic._v.ndim != 0:
        raise ValueError(f"Shape {periodic.shape} must have rank 0")
    if isinstance(periodic._value, jax.core.Tracer):
        raise NotImplementedError(
            f"tapejax.signal.{fn_name}: a traced `periodic` is not supported; pass a Python bool."
        )
    return _window(kind, length, dtype, periodic=int(bool(np.asarray(periodic._value))))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """A Hann window (``tf.signal.hann_window``): ``0.5 - 0.5 cos(2 pi n / N)``.

    Args:
      window_length: scalar int, the window's length.
      periodic: True (the default) for a periodic window (``N = window_length``, for
        spectral analysis), False for a symmetric one (``N = window_length - 1``).
      dtype: a floating point dtype.
      name: ignored (TF's op name).

    Returns:
      A ``[window_length]`` tensor of ``dtype``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.hann_window(4).numpy()
        array([0. , 0.5, 1. , 0.5], dtype=float32)
    """
    return _raised_cosine(window_length, periodic, dtype, "hann", "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """A Hamming window (``tf.signal.hamming_window``): ``0.54 - 0.46 cos(2 pi n / N)``;
    see ``hann_window``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.hamming_window(3, periodic=False).numpy().round(4)
        array([0.08, 1.  , 0.08], dtype=float32)
    """
    return _raised_cosine(window_length, periodic, dtype, "hamming", "hamming_window")
