"""``tf.signal``'s window functions: Hann, Hamming, Kaiser, Kaiser-Bessel-derived and
Vorbis windows, computed with TF's formulas op for op (so float16 and float32 round as
TF's do).

A window's length sets its shape, so it must be known when the op runs (a Python int or a
concrete Tensor); this module must never read a traced length.
"""

from __future__ import annotations

import jax
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..tensor import Tensor
from .activation_ops import relu
from .creation_ops import ones
from .creation_ops import range as _range
from .join_split_ops import concat
from .math_ops import cast, cos, exp, pow, sin, sqrt, square
from .reduction_ops import cumsum
from .special_ops import bessel_i0e

__all__ = [
    "hamming_window",
    "hann_window",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "vorbis_window",
]


def scalar_int(value, what: str, fn_name: str, dtype=dtypes.int32) -> int:
    """``value`` (a Python int or a scalar integer Tensor) as a Python int, with TF's
    static rank check; a traced value is refused (it would set a shape)."""
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
        >>> tf.signal.kaiser_window(3, beta=1.0).numpy()
        array([0.78984... 1.        , 0.78984...], dtype=float32)
    """
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", "kaiser_window")
    if length == 1:
        return ones([1], dtype=dtype)
    # TF builds the argument in float32 (tf.range has no float16 kernel), then casts.
    halflen = (np.float32(length) - np.float32(1.0)) / np.float32(2.0)
    arg = _range(-halflen, halflen + np.float32(0.1), dtype=dtypes.float32)
    arg = cast(arg, dtype)
    beta = cast(beta, dtype)
    one = cast(1.0, dtype)
    halflen = cast(halflen, dtype)
    num = beta * sqrt(relu(one - square(arg / halflen)))
    return exp(num - beta) * (bessel_i0e(num) / bessel_i0e(beta))


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
    kaiserw = kaiser_window(length // 2 + 1, beta, dtype=dtype)
    csum = cumsum(kaiserw)
    halfw = sqrt(csum[:-1] / csum[-1])
    return concat((halfw, halfw[::-1]), axis=0)


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """A Vorbis power-complementary window (``tf.signal.vorbis_window``).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.vorbis_window(4).numpy()
        array([0.11963..., 0.88302..., 0.88302..., 0.11963...], dtype=float32)
    """
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", "vorbis_window")
    arg = cast(_range(length), dtype)
    inner = pow(sin(np.pi / cast(length, dtype) * (arg + 0.5)), 2.0)
    return sin(np.pi / 2.0 * inner)


def _raised_cosine(window_length, periodic, dtype, a: float, b: float, fn_name: str):
    dtype = float_dtype(dtype)
    length = scalar_int(window_length, "window_length", fn_name)
    if length == 1:
        return ones([1], dtype=dtype)
    if getattr(periodic, "_is_variable", False):
        periodic = periodic._dense_read()
    periodic = convert_to_tensor(periodic, dtype=dtypes.bool_)
    if periodic._v.ndim != 0:
        raise ValueError(f"Shape {periodic.shape} must have rank 0")
    periodic = cast(periodic, dtypes.int32)
    even = 1 - length % 2
    n = cast(length + periodic * even - 1, dtype)
    count = cast(_range(length), dtype)
    cos_arg = convert_to_tensor(2 * np.pi, dtype=dtype) * count / n
    return cast(a - b * cos(cos_arg), dtype)


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
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """A Hamming window (``tf.signal.hamming_window``): ``0.54 - 0.46 cos(2 pi n / N)``;
    see ``hann_window``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.hamming_window(3, periodic=False).numpy()
        array([0.08..., 1.  , 0.08...], dtype=float32)
    """
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")
