"""``tf.signal``'s short-time transforms: ``stft``/``inverse_stft`` (framed, windowed real
FFTs and their overlap-added inverse), ``inverse_stft_window_fn`` (Griffin-Lim's
reconstruction window), and ``mdct``/``inverse_mdct``; composed of the framing, window,
FFT and DCT ops as TF composes them, so values and gradients are TF's.

Frame lengths, steps and FFT lengths set shapes: they must be known when the op runs.
This module must never make one from a traced value.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor
from ._helpers import dtype_mismatch
from .signal_dct_ops import dct_array
from .signal_frame_ops import frame_array, frame_count, overlap_add_array
from .signal_window_ops import hann_window, scalar_int, vorbis_window

__all__ = ["inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "mdct", "stft"]

_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
_RSQRT2 = float(1.0 / np.sqrt(2))


def _tensor(value) -> Tensor:
    if getattr(value, "_is_variable", False):
        return value._dense_read()
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _rank_at_least(x: Tensor, rank: int) -> None:
    if x._v.ndim < rank:
        raise ValueError(f"Shape {x.shape} must have rank at least {rank}")


def _enclosing_power_of_two(value: int) -> int:
    """TF's ``2 ** ceil(log(value) / log(2))``, in float64 as TF computes it."""
    return int(2 ** np.ceil(np.log(value) / np.log(2.0)))


def _window(window_fn, length: int, dtype) -> tuple:
    """``(window,)`` from ``window_fn`` (checked to be of ``dtype``, as TF's Mul checks),
    or ``()`` for no window. ``window_fn`` gets the length as a Python int (TF passes a
    scalar Tensor): inside ``tapejax.function`` a Tensor would be traced, and a window's
    length sets its shape."""
    if window_fn is None:
        return ()
    w = _tensor(window_fn(length, dtype=dtypes.as_dtype(dtype)))
    if w._v.dtype != np.dtype(dtype):
        raise dtype_mismatch("Mul", 1, np.dtype(dtype), w._v.dtype)
    return (w,)


def _check_real(x: Tensor) -> None:
    if x._v.dtype not in _REAL:
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!s}")


def _stft_fn(x, *window, length, step, fft_length, pad_end):
    frames = frame_array(x, length, step, -1, pad_end)
    if window:
        frames = frames * window[0]
    return jnp.fft.rfft(frames, n=fft_length)


def _inverse_stft_fn(stfts, *window, length, step, fft_length):
    frames = jnp.fft.irfft(stfts, n=fft_length)
    # frame_length may be shorter or longer than fft_length: crop or zero-pad to it.
    have = frames.shape[-1]
    if have > length:
        frames = frames[..., :length]
    elif have < length:
        frames = jnp.pad(frames, [(0, 0)] * (frames.ndim - 1) + [(0, length - have)])
    if window:
        frames = frames * window[0]
    return overlap_add_array(frames, step)


def _mdct_fn(x, *window, length, pad_end, norm):
    frames = frame_array(x, length, length // 2, -1, pad_end)
    frames = frames * window[0] if window else frames * _RSQRT2
    s0, s1, s2, s3 = jnp.split(frames, 4, axis=-1)
    first_half = -s2[..., ::-1] - s3
    second_half = s0 - s1[..., ::-1]
    return dct_array(jnp.concatenate([first_half, second_half], axis=-1), 4, None, norm)


def _inverse_mdct_fn(x, *window, norm):
    half_len = x.shape[-1]
    if norm is None:
        idct4 = (0.5 / jnp.asarray(half_len, x.dtype)) * dct_array(x, 4)
    else:
        idct4 = dct_array(x, 4, None, "ortho")
    first, second = jnp.split(idct4, 2, axis=-1)
    frames = jnp.concatenate([second, -second[..., ::-1], -first[..., ::-1], -first], axis=-1)
    frames = frames * window[0] if window else frames * _RSQRT2
    return overlap_add_array(frames, half_len)


def _inverse_window_fn(forward_window, *, length, step):
    """Griffin and Lim's equation 7: the window over the sum of the overlapping squared
    windows (TF's pad, reshape, sum and tile), zero where that sum is zero."""
    denom = jnp.square(forward_window)
    overlaps = -(-length // step)
    denom = jnp.pad(denom, [(0, overlaps * step - length)])
    denom = jnp.sum(denom.reshape([overlaps, step]), axis=0, keepdims=True)
    denom = jnp.tile(denom, [overlaps, 1]).reshape([overlaps * step])[:length]
    safe = jnp.where(denom == 0.0, jnp.ones_like(denom), denom)
    return jnp.where(denom == 0.0, jnp.zeros_like(forward_window), forward_window / safe)


_inverse_window_op = Op("SignalInverseSTFTWindow", _inverse_window_fn)
_stft_op = Op("SignalSTFT", _stft_fn)
_inverse_stft_op = Op("SignalInverseSTFT", _inverse_stft_fn)
_mdct_op = Op("SignalMDCT", _mdct_fn)
_inverse_mdct_op = Op("SignalInverseMDCT", _inverse_mdct_fn)


def stft(
    signals,
    frame_length,
    frame_step,
    fft_length=None,
    window_fn=hann_window,
    pad_end=False,
    name=None,
):
    """The short-time Fourier transform of real signals (``tf.signal.stft``).

    Args:
      signals: a ``[..., samples]`` float32 or float64 tensor.
      frame_length: scalar int, the window length in samples.
      frame_step: scalar int, the hop in samples.
      fft_length: scalar int, the FFT size; default the smallest power of 2 at least
        ``frame_length``.
      window_fn: ``window_fn(frame_length, dtype=...)`` giving the window, or None for none.
      pad_end: zero-pad the end so that every frame starting inside the signal is kept.
      name: ignored (TF's op name).

    Returns:
      A ``[..., frames, fft_length // 2 + 1]`` complex64 (complex128) tensor.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.stft(tf.ones([16]), frame_length=8, frame_step=4).shape
        TensorShape([3, 5])
    """
    x = _tensor(signals)
    _rank_at_least(x, 1)
    length = scalar_int(frame_length, "frame_length", "stft", dtype=None)
    step = scalar_int(frame_step, "frame_step", "stft", dtype=None)
    if fft_length is None:
        n_fft = _enclosing_power_of_two(length)
    else:
        n_fft = scalar_int(fft_length, "fft_length", "stft", dtype=None)
    window = _window(window_fn, length, x._v.dtype)
    _check_real(x)
    frame_count(x._v.shape[-1], length, step, pad_end)  # TF's division by zero
    static = (("fft_length", n_fft), ("length", length), ("pad_end", bool(pad_end)), ("step", step))
    return apply(_stft_op, (x, *window), static)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window for ``inverse_stft`` that undoes ``stft`` with ``forward_window_fn``
    (``tf.signal.inverse_stft_window_fn``): the forward window divided by the overlapping
    squared windows' sum (Griffin and Lim's equation 7), zero where that sum is zero.

    Args:
      frame_step: scalar int, the hop ``stft`` used.
      forward_window_fn: the window ``stft`` used.
      name: ignored (TF's op name).

    Returns:
      ``window_fn(frame_length, dtype)`` for ``inverse_stft``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.inverse_stft_window_fn(2)(4, dtype=tf.float32).numpy()
        array([0., 1., 1., 1.], dtype=float32)
    """

    def inverse_stft_window_fn_inner(frame_length, dtype):
        step = scalar_int(frame_step, "frame_step", "inverse_stft_window_fn", dtype=None)
        length = scalar_int(frame_length, "frame_length", "inverse_stft_window_fn", dtype=None)
        forward_window = _tensor(forward_window_fn(length, dtype=dtype))
        return apply(_inverse_window_op, (forward_window,), (("length", length), ("step", step)))

    return inverse_stft_window_fn_inner


def inverse_stft(
    stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None
):
    """The inverse short-time Fourier transform (``tf.signal.inverse_stft``): each frame's
    ``irfft``, cropped or zero-padded to ``frame_length``, windowed and overlap-added.

    For a reconstruction of ``stft``'s input, pass
    ``window_fn=tf.signal.inverse_stft_window_fn(frame_step)``.

    Args:
      stfts: a ``[..., frames, fft_length // 2 + 1]`` complex64 or complex128 tensor.
      frame_length: scalar int, the window length in samples.
      frame_step: scalar int, the hop in samples.
      fft_length: scalar int, the FFT size ``stft`` used; default the smallest power of 2
        at least ``frame_length``.
      window_fn: ``window_fn(frame_length, dtype=...)``, or None for none.
      name: ignored (TF's op name).

    Returns:
      A ``[..., samples]`` float32 (float64) tensor.

    Example:
        >>> import tapejax as tf
        >>> s = tf.signal.stft(tf.ones([16]), 8, 4)
        >>> tf.signal.inverse_stft(s, 8, 4).shape
        TensorShape([16])
    """
    x = _tensor(stfts)
    _rank_at_least(x, 2)
    length = scalar_int(frame_length, "frame_length", "inverse_stft", dtype=None)
    step = scalar_int(frame_step, "frame_step", "inverse_stft", dtype=None)
    if fft_length is None:
        n_fft = _enclosing_power_of_two(length)
    else:
        n_fft = scalar_int(fft_length, "fft_length", "inverse_stft", dtype=None)
    if x._v.dtype not in _COMPLEX:
        raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x!s}")
    real = np.float32 if x._v.dtype == np.complex64 else np.float64
    window = _window(window_fn, length, real)
    static = (("fft_length", n_fft), ("length", length), ("step", step))
    return apply(_inverse_stft_op, (x, *window), static)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified discrete cosine transform (``tf.signal.mdct``): frames of
    ``frame_length`` (a multiple of 4), half a frame apart, windowed, folded and
    transformed by a type IV DCT.

    Args:
      signals: a ``[..., samples]`` float32 or float64 tensor.
      frame_length: scalar int, a multiple of 4.
      window_fn: ``window_fn(frame_length, dtype=...)``; None for a rectangular window
        scaled by ``1 / sqrt(2)``.
      pad_end: zero-pad the end so that every frame starting inside the signal is kept.
      norm: None or "ortho" (the DCT's normalization).
      name: ignored (TF's op name).

    Returns:
      A ``[..., frames, frame_length // 2]`` tensor of ``signals``' dtype.

    Raises:
      ValueError: TF's, for a ``frame_length`` that is not a multiple of 4.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.mdct(tf.ones([16]), 8).shape
        TensorShape([3, 4])
    """
    x = _tensor(signals)
    _rank_at_least(x, 1)
    length = scalar_int(frame_length, "frame_length", "mdct", dtype=None)
    if length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    window = _window(window_fn, length, x._v.dtype)
    _check_real(x)
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    static = (("length", length), ("norm", norm), ("pad_end", bool(pad_end)))
    return apply(_mdct_op, (x, *window), static)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse MDCT (``tf.signal.inverse_mdct``): with ``mdct``'s window, its output
    overlap-added gives back ``mdct``'s input (but for the first and last half frames).

    Args:
      mdcts: a ``[..., frames, frame_length // 2]`` float32 or float64 tensor.
      window_fn: ``window_fn(frame_length, dtype=...)``; None for a rectangular window
        scaled by ``1 / sqrt(2)``.
      norm: None (a type IV DCT scaled by ``1 / frame_length``) or "ortho".
      name: ignored (TF's op name).

    Returns:
      A ``[..., (frames - 1) * (frame_length // 2) + frame_length]`` tensor.

    Raises:
      ValueError: for a ``norm`` other than None or "ortho" (TF fails with
        ``UnboundLocalError``).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.inverse_mdct(tf.ones([3, 4])).shape
        TensorShape([16])
    """
    x = _tensor(mdcts)
    _rank_at_least(x, 2)
    half_len = x._v.shape[-1]
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    _check_real(x)
    window = _window(window_fn, 2 * half_len, x._v.dtype)
    return apply(_inverse_mdct_op, (x, *window), (("norm", norm),))
