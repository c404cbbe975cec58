"""``tf.signal.dct`` and ``tf.signal.idct``: the type I-IV discrete cosine transforms
over the last axis, computed as TF computes them (through a length-2N ``rfft``/``irfft``),
so values and gradients are TF's.

This module must never accept an argument TF's validation refuses: its ``ValueError`` and
``NotImplementedError`` texts are TF's.
"""

from __future__ import annotations

import math

from ..conversion import convert_to_tensor
from ..tensor import Tensor
from .array_ops import expand_dims
from .creation_ops import range as _range
from .join_split_ops import concat
from .math_ops import cast, complex, exp, real, rsqrt, sqrt
from .pad_ops import pad
from .signal_fft_ops import irfft, rfft

__all__ = ["dct", "idct"]


def _validate(x: Tensor, dct_type, n, axis, norm) -> None:
    """TF's ``_validate_dct_arguments``, in its order."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if x._v.ndim and x._v.shape[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _tensor(value) -> Tensor:
    if getattr(value, "_is_variable", False):
        return value._dense_read()
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _edge_weights(first, rest, length: int):
    """``[first, rest, rest, ...]`` of ``length``, built as TF builds it (a pad)."""
    return pad(expand_dims(first, 0), [[0, length - 1]], constant_values=rest)


def _dct(x: Tensor, dct_type: int, n, norm):
    """TF's ``_dct_internal`` (no validation)."""
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    if n is not None:
        seq_len = x._v.shape[-1]
        if n <= seq_len:
            x = x[..., 0:n]
        else:
            x = pad(x, [[0, 0]] * (x._v.ndim - 1) + [[0, n - seq_len]])
    axis_dim = x._v.shape[-1]
    axis_dim_float = cast(axis_dim, x.dtype)
    if dct_type == 1:
        return real(rfft(concat([x, x[..., -2:0:-1]], axis=-1)))
    if dct_type == 2:
        steps = cast(_range(axis_dim), x.dtype)
        scale = 2.0 * exp(complex(zero, -steps * math.pi * 0.5 / axis_dim_float))
        out = real(rfft(x, fft_length=[2 * axis_dim])[..., :axis_dim] * scale)
        if norm == "ortho":
            n1 = 0.5 * rsqrt(axis_dim_float)
            out = out * _edge_weights(n1, n1 * math.sqrt(2.0), axis_dim)
        return out
    if dct_type == 3:
        if norm == "ortho":
            n1 = sqrt(axis_dim_float)
            x = x * _edge_weights(n1, n1 * math.sqrt(0.5), axis_dim)
        else:
            x = x * axis_dim_float
        steps = cast(_range(axis_dim), x.dtype)
        scale = 2.0 * exp(complex(zero, steps * math.pi * 0.5 / axis_dim_float))
        return real(irfft(scale * complex(x, zero), fft_length=[2 * axis_dim]))[..., :axis_dim]
    # Type IV: the odd bins of the unnormalized type II DCT of the signal padded to 2N.
    out = _dct(x, 2, 2 * axis_dim, None)[..., 1::2]
    if norm == "ortho":
        out = out * (math.sqrt(0.5) * rsqrt(axis_dim_float))
    return out


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The discrete cosine transform of ``input``'s last axis (``tf.signal.dct``,
    ``scipy.fftpack.dct``).

    Args:
      input: a ``[..., samples]`` float32 or float64 tensor.
      type: 1, 2, 3 or 4.
      n: the transform's length: the input is cropped or zero-padded to it.
      axis: must be -1.
      norm: None or "ortho" (orthonormal; not for type 1).
      name: ignored (TF's op name).

    Returns:
      A ``[..., n]`` tensor of ``input``'s dtype.

    Raises:
      ValueError: TF's, for another type or norm, ``n < 1``, type 1 with "ortho" or on
        fewer than 2 samples.
      NotImplementedError: TF's, for an axis other than -1.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.dct([1.0, 2.0, 3.0, 4.0], norm="ortho").numpy().round(4)
        array([ 5.    , -2.2304,  0.    , -0.1585], dtype=float32)
    """
    x = _tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The inverse DCT (``tf.signal.idct``): the DCT of type 3 for type 2 and the other
    way round; types 1 and 4 are their own inverses. Without ``norm="ortho"``,
    ``idct(dct(x)) == x * 2 * samples`` (type 1: ``2 * (samples - 1)``).

    Example:
        >>> import tapejax as tf
        >>> x = tf.signal.dct([1.0, 2.0, 3.0], norm="ortho")
        >>> tf.signal.idct(x, norm="ortho").numpy().round(4)
        array([1., 2., 3.], dtype=float32)
    """
    x = _tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)
