"""``tf.signal.frame`` (a signal's axis cut into overlapping frames) and
``tf.signal.overlap_and_add`` (frames summed back into a signal), composed of tapejax's
pad, gather, reshape and sum ops, so both are differentiable as TF's are.

Frame lengths and steps set output shapes: they must be known when the op runs. This
module must never turn a traced length into a shape.
"""

from __future__ import annotations

import numpy as np

from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .array_ops import reshape, transpose
from .pad_ops import pad
from .reduction_ops import reduce_sum
from .selection_ops import gather
from .signal_window_ops import scalar_int

__all__ = ["frame", "overlap_and_add"]


def _tensor(value) -> Tensor:
    if getattr(value, "_is_variable", False):
        return value._dense_read()
    return value if isinstance(value, Tensor) else convert_to_tensor(value)


def _rank_at_least(x: Tensor, rank: int) -> None:
    if x._v.ndim < rank:
        raise ValueError(f"Shape {x.shape} must have rank at least {rank}")


def _floordiv(a: int, b: int) -> int:
    if b == 0:
        raise InvalidArgumentError(None, None, "Integer division by zero [Op:FloorDiv]")
    return a // b


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Cuts ``signal``'s ``axis`` into frames of ``frame_length``, ``frame_step`` apart
    (``tf.signal.frame``).

    Args:
      signal: a ``[..., samples, ...]`` tensor of rank at least 1.
      frame_length: scalar int, the frame length in samples.
      frame_step: scalar int, the hop between frames.
      pad_end: pad the end with ``pad_value`` so that every frame starting inside the
        signal is kept (``ceil(samples / frame_step)`` frames); otherwise only frames that
        fit (``1 + (samples - frame_length) // frame_step``, at least 0).
      pad_value: scalar, the padding value (its gradient is ``None``, as in TF).
      axis: scalar int, the axis to frame (negative counts from the end).
      name: ignored (TF's op name).

    Returns:
      A ``[..., frames, frame_length, ...]`` tensor of ``signal``'s dtype.

    Raises:
      ValueError: TF's, for a scalar signal or non-scalar lengths or axis.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.frame([1, 2, 3, 4, 5], 3, 2).numpy()
        array([[1, 2, 3],
               [3, 4, 5]], dtype=int32)
    """
    x = _tensor(signal)
    _rank_at_least(x, 1)
    length = scalar_int(frame_length, "frame_length", "frame")
    step = scalar_int(frame_step, "frame_step", "frame")
    rank = x._v.ndim
    ax = scalar_int(axis, "axis", "frame")
    ax = range(rank)[ax]
    samples = x._v.shape[ax]
    if pad_end:
        value = pad_value
        if getattr(value, "_is_variable", False):
            value = value._dense_read()
        value = convert_to_tensor(value, dtype=x.dtype)
        if value._v.ndim != 0:
            raise ValueError(f"Shape {value.shape} must have rank 0")
        num_frames = -_floordiv(-samples, step)
        extra = max(0, length + step * (num_frames - 1) - samples)
        if extra:
            paddings = [[0, 0]] * rank
            paddings[ax] = [0, extra]
            x = pad(x, paddings, constant_values=value)
    else:
        num_frames = max(0, 1 + _floordiv(samples - length, step))
    starts = np.arange(num_frames, dtype=np.int32)[:, None] * np.int32(step)
    indices = starts + np.arange(length, dtype=np.int32)[None, :]
    return gather(x, indices, axis=ax)


def overlap_and_add(signal, frame_step, name=None):
    """Sums frames ``frame_step`` apart into one signal (``tf.signal.overlap_and_add``),
    the inverse of ``frame`` up to the overlaps' sum.

    Args:
      signal: a ``[..., frames, frame_length]`` tensor of rank at least 2.
      frame_step: scalar integer, the hop between frames.
      name: ignored (TF's op name).

    Returns:
      A ``[..., (frames - 1) * frame_step + frame_length]`` tensor of ``signal``'s dtype.

    Raises:
      ValueError: TF's, for a rank below 2 or a non-integer ``frame_step``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.overlap_and_add([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], 2).numpy()
        array([1., 1., 2., 1., 1.], dtype=float32)
    """
    x = _tensor(signal)
    _rank_at_least(x, 2)
    step_t = _tensor(frame_step)
    if step_t._v.ndim != 0:
        raise ValueError(f"Shape {step_t.shape} must have rank 0")
    if not step_t.dtype.is_integer:
        raise ValueError(f"frame_step must be an integer. Got {step_t.dtype}")
    step = scalar_int(step_t, "frame_step", "overlap_and_add", dtype=step_t.dtype)
    shape = list(x._v.shape)
    outer, (frames, frame_length) = shape[:-2], shape[-2:]
    output_length = frame_length + step * (frames - 1)
    if step == frame_length:
        return reshape(x, outer + [output_length])
    # TF's algorithm, step for step (reshape, transpose, sum), so values round as TF's.
    segments = -(-frame_length // step)
    paddings = [[0, 0]] * len(outer) + [[0, segments], [0, segments * step - frame_length]]
    x = pad(x, paddings)
    x = reshape(x, outer + [frames + segments, segments, step])
    n = len(outer)
    x = transpose(x, list(range(n)) + [n + 1, n, n + 2])
    x = reshape(x, outer + [(frames + segments) * segments, step])
    x = x[..., : (frames + segments - 1) * segments, :]
    x = reshape(x, outer + [segments, frames + segments - 1, step])
    x = reduce_sum(x, -3)
    x = reshape(x, outer + [(frames + segments - 1) * step])
    return x[..., :output_length]
