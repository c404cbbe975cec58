"""``tf.signal``'s short-time transforms: ``stft``/``inverse_stft`` (framed, windowed real
FFTs and their overlap-added inverse), ``inverse_stft_window_fn`` (Griffin-Lim's
reconstruction window), and ``mdct``/``inverse_mdct``; composed of the framing, window,
FFT and DCT ops as TF composes them, so values and gradients are TF's.

Frame lengths, steps and FFT lengths set shapes: they must be known when the op runs.
This module must never make one from a traced value.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..tensor import Tensor
from .array_ops import reshape, tile
from .creation_ops import zeros_like
from .join_split_ops import concat, split
from .math_ops import cast, equal, square
from .pad_ops import pad, reverse
from .reduction_ops import reduce_sum
from .selection_ops import where
from .signal_dct_ops import dct
from .signal_fft_ops import irfft, rfft
from .signal_frame_ops import frame, overlap_and_add
from .signal_window_ops import hann_window, scalar_int, vorbis_window

__all__ = ["inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "mdct", "stft"]


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


def _length_tensor(value: int, like) -> Tensor:
    """The int the window functions receive, as TF passes it: a scalar Tensor of the
    caller's integer dtype."""
    dt = like.dtype if isinstance(like, Tensor) and like.dtype.is_integer else dtypes.int32
    return convert_to_tensor(value, dtype=dt)


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
    framed = frame(x, length, step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(_length_tensor(length, frame_length), dtype=framed.dtype)
    return rfft(framed, [n_fft])


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
        array([0. , 0.5, 1. , 0.5], dtype=float32)
    """

    def inverse_stft_window_fn_inner(frame_length, dtype):
        step = scalar_int(frame_step, "frame_step", "inverse_stft_window_fn", dtype=None)
        length = scalar_int(frame_length, "frame_length", "inverse_stft_window_fn", dtype=None)
        forward_window = forward_window_fn(_length_tensor(length, frame_length), dtype=dtype)
        denom = square(forward_window)
        overlaps = -(-length // step)
        denom = pad(denom, [(0, overlaps * step - length)])
        denom = reshape(denom, [overlaps, step])
        denom = reduce_sum(denom, 0, keepdims=True)
        denom = tile(denom, [overlaps, 1])
        denom = reshape(denom, [overlaps * step])[:length]
        return where(equal(denom, 0.0), zeros_like(forward_window), forward_window / denom)

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
    real_frames = irfft(x, [n_fft])
    have = real_frames._v.shape[-1]
    if have > length:
        real_frames = real_frames[..., :length]
    elif have < length:
        paddings = [[0, 0]] * (real_frames._v.ndim - 1) + [[0, length - have]]
        real_frames = pad(real_frames, paddings)
    if window_fn is not None:
        window = window_fn(_length_tensor(length, frame_length), dtype=x.dtype.real_dtype)
        real_frames = real_frames * window
    return overlap_and_add(real_frames, step)


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
    framed = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(_length_tensor(length, frame_length), dtype=framed.dtype)
    else:
        framed = framed * (1.0 / np.sqrt(2))
    s0, s1, s2, s3 = split(framed, 4, axis=-1)
    first_half = -reverse(s2, [-1]) - s3
    second_half = s0 - reverse(s1, [-1])
    return dct(concat((first_half, second_half), axis=-1), type=4, norm=norm)


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
    if norm is None:
        idct4 = (0.5 / cast(half_len, x.dtype)) * dct(x, type=4)
    elif norm == "ortho":
        idct4 = dct(x, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    first, second = split(idct4, 2, axis=-1)
    real_frames = concat((second, -reverse(second, [-1]), -reverse(first, [-1]), -first), axis=-1)
    if window_fn is not None:
        window = window_fn(convert_to_tensor(2 * half_len, dtype=dtypes.int32), dtype=x.dtype)
        real_frames = real_frames * window
    else:
        real_frames = real_frames * (1.0 / np.sqrt(2))
    return overlap_and_add(real_frames, half_len)
