"""``tf.signal.frame`` (a signal's axis cut into overlapping frames) and
``tf.signal.overlap_and_add`` (frames summed back into a signal): each one op, a pure JAX
function differentiated by JAX (both are linear, so their derivatives are TF's).

Frame lengths and steps set output shapes: they must be known when the op runs. This
module must never turn a traced length into a shape.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .signal_window_ops import scalar_int

__all__ = ["frame", "frame_array", "frame_count", "overlap_add_array", "overlap_and_add"]


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


def frame_count(samples: int, length: int, step: int, pad_end: bool) -> int:
    """TF's number of frames: every frame starting inside the signal with ``pad_end``,
    else every frame that fits."""
    if pad_end:
        return -_floordiv(-samples, step)
    return max(0, 1 + _floordiv(samples - length, step))


def frame_array(x, length: int, step: int, axis: int = -1, pad_end=False, pad_value=0):
    """``frame`` on a JAX array (``axis`` may be negative): pads the end with
    ``pad_value`` when ``pad_end``, then gathers the frames."""
    axis = axis % x.ndim
    samples = x.shape[axis]
    num_frames = frame_count(samples, length, step, pad_end)
    if pad_end:
        extra = max(0, length + step * (num_frames - 1) - samples)
        if extra:
            pads = [(0, 0)] * x.ndim
            pads[axis] = (0, extra)
            x = jnp.pad(x, pads, constant_values=jnp.asarray(pad_value, x.dtype))
    starts = np.arange(num_frames, dtype=np.int32)[:, None] * np.int32(step)
    indices = starts + np.arange(length, dtype=np.int32)[None, :]
    return jnp.take(x, indices, axis=axis)


def _frame_fn(x, *, length, step, axis, pad_end, pad_value):
    return frame_array(x, length, step, axis, pad_end, pad_value[1])


_frame_op = Op("SignalFrame", _frame_fn)


def overlap_add_array(x, step: int):
    """``overlap_and_add`` on a JAX array, by TF's algorithm (pad, reshape, transpose,
    sum), so values round as TF's."""
    outer = list(x.shape[:-2])
    frames, frame_length = x.shape[-2:]
    output_length = frame_length + step * (frames - 1)
    if step == frame_length:
        return x.reshape(outer + [output_length])
    segments = -(-frame_length // step)
    n = len(outer)
    x = jnp.pad(x, [(0, 0)] * n + [(0, segments), (0, segments * step - frame_length)])
    x = x.reshape(outer + [frames + segments, segments, step])
    x = jnp.transpose(x, list(range(n)) + [n + 1, n, n + 2])
    x = x.reshape(outer + [(frames + segments) * segments, step])
    x = x[..., : (frames + segments - 1) * segments, :]
    x = x.reshape(outer + [segments, frames + segments - 1, step])
    x = jnp.sum(x, axis=-3)
    x = x.reshape(outer + [(frames + segments - 1) * step])
    return x[..., :output_length]


_overlap_add_op = Op("SignalOverlapAndAdd", lambda x, *, step: overlap_add_array(x, step))


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
    length = scalar_int(frame_length, "frame_length", "frame", dtype=None)
    step = scalar_int(frame_step, "frame_step", "frame", dtype=None)
    rank = x._v.ndim
    ax = range(rank)[scalar_int(axis, "axis", "frame", dtype=None)]
    value = 0
    if pad_end:
        value = pad_value
        if not isinstance(value, Tensor) and not getattr(value, "_is_variable", False):
            value = np.asarray(value)  # a Python scalar: no tensor, so nothing traced
            if value.ndim != 0:
                raise ValueError(f"Shape {value.shape} must have rank 0")
            value = value.astype(x._v.dtype)[()]
        elif getattr(value, "_is_variable", False):
            value = value._dense_read()
        if isinstance(value, Tensor):
            value = convert_to_tensor(value, dtype=x.dtype)
            if value._v.ndim != 0:
                raise ValueError(f"Shape {value.shape} must have rank 0")
            if isinstance(value._value, jax.core.Tracer):
                raise NotImplementedError(
                    "tapejax.signal.frame: a traced pad_value is not supported; pass a Python "
                    "scalar."
                )
            value = np.asarray(value._value)
        # A static attribute (typed: 0 == 0.0 == 0j), so tapes see no input: TF's gradient
        # for it is None.
        value = np.asarray(value).item()
    frame_count(x._v.shape[ax], length, step, pad_end)  # TF's division by zero
    static = (
        ("axis", ax),
        ("length", length),
        ("pad_end", bool(pad_end)),
        ("pad_value", (type(value).__name__, value)),
        ("step", step),
    )
    return apply(_frame_op, (x,), static)


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
    if isinstance(frame_step, (int, np.integer)) and not isinstance(frame_step, bool):
        step = int(frame_step)
        if step == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
        return apply(_overlap_add_op, (x,), (("step", step),))
    step_t = _tensor(frame_step)
    if step_t._v.ndim != 0:
        raise ValueError(f"Shape {step_t.shape} must have rank 0")
    if not step_t.dtype.is_integer:
        raise ValueError(f"frame_step must be an integer. Got {step_t.dtype}")
    step = scalar_int(step_t, "frame_step", "overlap_and_add", dtype=step_t.dtype)
    if step == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    return apply(_overlap_add_op, (x,), (("step", step),))
