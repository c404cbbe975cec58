"""``tf.signal.dct`` and ``tf.signal.idct``: the type I-IV discrete cosine transforms
over the last axis, computed as TF computes them (through a length-2N ``rfft``/``irfft``),
so values and gradients are TF's.

This module must never accept an argument TF's validation refuses: its ``ValueError`` and
``NotImplementedError`` texts are TF's.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor

__all__ = ["dct", "dct_array", "idct"]

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _validate(x: Tensor, dct_type, n, axis, norm) -> None:
    """TF's ``_validate_dct_arguments``, in its order, and the dtype checks TF's ops make
    on the way (a complex zero for integers, ``rfft``'s float types)."""
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
    convert_to_tensor(0.0, dtype=x.dtype)  # TF's TypeError for integer input
    if x._v.dtype not in _COMPLEX_OF:
        if dct_type != 1:  # TF's tf.complex refuses the type first
            name = x.dtype.name
            raise TypeError(
                f"The `real` and `imag` components have incorrect types: {name} {name}. They "
                "must be consistent, and one of [tf.float32, tf.float64]"
            )
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!s}")


def _tensor(value) -> Tensor:
    if getattr(value, "_is_variable", False):
        return value._dense_read()
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _edge_weights(first, rest, length: int, dtype):
    """``[first, rest, rest, ...]`` of ``length``."""
    return jnp.concatenate([jnp.reshape(first, [1]), jnp.full([length - 1], rest, dtype)])


def dct_array(x, dct_type: int, n=None, norm=None):
    """TF's ``_dct_internal`` on a JAX array: the type I-IV DCT of the last axis through a
    length-2N real FFT, op for op."""
    dt = x.dtype
    cdt = _COMPLEX_OF[np.dtype(dt)]
    if n is not None:
        seq_len = x.shape[-1]
        if n <= seq_len:
            x = x[..., 0:n]
        else:
            x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - seq_len)])
    axis_dim = x.shape[-1]
    axis_dim_float = jnp.asarray(axis_dim, dt)
    zero = jnp.zeros([axis_dim], dt)
    steps = jnp.arange(axis_dim).astype(dt)
    if dct_type == 1:
        return jnp.real(jnp.fft.rfft(jnp.concatenate([x, x[..., -2:0:-1]], axis=-1))).astype(dt)
    if dct_type == 2:
        scale = 2.0 * jnp.exp(jax.lax.complex(zero, -steps * math.pi * 0.5 / axis_dim_float))
        spectrum = jnp.fft.rfft(x, n=2 * axis_dim).astype(cdt)[..., :axis_dim]
        out = jnp.real(spectrum * scale)
        if norm == "ortho":
            n1 = 0.5 * jax.lax.rsqrt(axis_dim_float)
            out = out * _edge_weights(n1, n1 * math.sqrt(2.0), axis_dim, dt)
        return out
    if dct_type == 3:
        if norm == "ortho":
            n1 = jnp.sqrt(axis_dim_float)
            x = x * _edge_weights(n1, n1 * math.sqrt(0.5), axis_dim, dt)
        else:
            x = x * axis_dim_float
        scale = 2.0 * jnp.exp(jax.lax.complex(zero, steps * math.pi * 0.5 / axis_dim_float))
        spectrum = scale * jax.lax.complex(x, jnp.zeros_like(x))
        return jnp.fft.irfft(spectrum, n=2 * axis_dim).astype(dt)[..., :axis_dim]
    # Type IV: the odd bins of the unnormalized type II DCT of the signal padded to 2N.
    out = dct_array(x, 2, 2 * axis_dim, None)[..., 1::2]
    if norm == "ortho":
        out = out * (math.sqrt(0.5) * jax.lax.rsqrt(axis_dim_float))
    return out


_dct_op = Op("SignalDCT", lambda x, *, dct_type, n, norm: dct_array(x, dct_type, n, norm))


def _dct(x: Tensor, dct_type: int, n, norm):
    return apply(_dct_op, (x,), (("dct_type", dct_type), ("n", n), ("norm", norm)))


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
