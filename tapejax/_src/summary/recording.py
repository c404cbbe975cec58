"""Whether and what a summary call records: ``write``, ``record_if``, the default step and
``summary_scope`` (``tf.summary``'s ``write`` and its helpers).

``record`` decides, as TF's ``write`` does, whether to record; inside ``tapejax.function``
the record is made by a ``jax.debug.callback`` so that it happens on every call of the
compiled program, with that call's step and values. Host work (bucketing, PNG encoding)
runs in that callback: it must never run once at trace time.
"""

from __future__ import annotations

import contextlib
import re
import time

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import _python_array, convert_to_tensor
from ..errors import NotFoundError
from ..execution import get_current_name_scope, inside_function
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ..variables import name_scope
from . import records
from .writer import _FileWriter, _state

__all__ = [
    "get_step",
    "host_array",
    "record",
    "record_if",
    "set_step",
    "should_record_summaries",
    "summary_scope",
    "write",
]


def get_step():
    """The default summary step of this thread, or None (``tf.summary.experimental.get_step``)."""
    return _state.step


def set_step(step):
    """Sets the default summary step of this thread; a Variable is read at each write
    (``tf.summary.experimental.set_step``)."""
    _state.step = step


@contextlib.contextmanager
def record_if(condition):
    """Records summaries only while ``condition`` holds (``tf.summary.record_if``).

    ``condition`` is a bool, a scalar bool Tensor, or a callable returning one, called at
    each write (inside ``tapejax.function``: when the function is traced).
    """
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def _is_traced(x) -> bool:
    return isinstance(x, jax.core.Tracer)


def _condition():
    """False, True, or a traced bool array: whether a write now records."""
    if _state.writer is None:
        return False
    cond = _state.is_recording
    if callable(cond):
        cond = cond()
    if cond is None:
        return True
    if isinstance(cond, Tensor) or getattr(cond, "_is_variable", False):
        cond = convert_to_tensor(cond)._value
    if _is_traced(cond):
        return cond
    return bool(np.asarray(cond))


def should_record_summaries() -> Tensor:
    """A bool Tensor: whether summaries would be recorded now
    (``tf.summary.should_record_summaries``): False without a default writer."""
    cond = _condition()
    return wrap(cond if _is_traced(cond) else jnp.asarray(cond))


_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """Yields ``(tag, scope)`` for a custom summary op (``tf.summary.experimental.summary_scope``):
    the tag is ``name`` under the enclosing name scopes, characters kept; the scope is the
    name scope entered, with characters illegal in scope names removed."""
    del values
    name = name or default_name
    current = get_current_name_scope()
    tag = current + "/" + name if current else name
    name = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    with name_scope(name) as scope:
        yield tag, scope


def _step_value(step):
    """A step as an int64 NumPy scalar or a traced integer array, with TF's errors.

    An int32 Tensor or Variable is accepted, where TF wants int64: without JAX's 64-bit
    mode tapejax holds int64 as int32 (``docs/compat.md``).
    """
    if isinstance(step, Tensor) or getattr(step, "_is_variable", False):
        value = convert_to_tensor(step)._value
        if np.dtype(value.dtype).kind not in "iu":
            if getattr(step, "_is_variable", False):
                raise ValueError(
                    "Incompatible type conversion requested to type int64 for `tf.Variable "
                    f"of type {step.dtype.name}. (Variable: {step!r})"
                )
            raise ValueError(
                f"Tensor conversion requested dtype int64 for Tensor with dtype "
                f"{step.dtype.name}: {step!r}"
            )
    else:
        value = np.asarray(step)
        if value.dtype.kind not in "iub":
            raise TypeError(f"Cannot convert {step!r} to EagerTensor of dtype int64")
    if int(np.prod(np.shape(value))) != 1:
        raise ValueError(
            "Argument `step` must be a scalar. "
            f"Received step with shape {TensorShape(np.shape(value))}."
        )
    if _is_traced(value):
        return value.reshape(())
    return np.asarray(value).astype(np.int64).reshape(())


def _metadata_bytes(metadata) -> bytes:
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    return bytes(metadata)


def record(tag: str, make, step, metadata: bytes) -> Tensor:
    """TF's ``write`` for a payload from ``make()``: ``(arrays, encode)`` where ``encode``
    turns the arrays, as NumPy on the host, into the NumPy array to store. ``make`` is only
    called when the write may record (TF's lazy tensors)."""
    if step is not None:
        _step_value(step)
    writer = _state.writer
    if writer is None:
        return wrap(jnp.asarray(False))
    if step is None:
        step = get_step()
    cond = _condition()
    if cond is False:
        return wrap(jnp.asarray(False))
    if step is None:
        raise ValueError(
            "No step set. Please specify one either through the `step` argument or "
            "through tf.summary.experimental.set_step()"
        )
    step_value = _step_value(step)
    arrays, encode = make()
    if not isinstance(writer, _FileWriter):  # a no-op writer records nothing, and succeeds
        return wrap(jnp.asarray(True) if cond is True else cond)

    # Device values go through the callback; host NumPy values stay in the closure, in
    # their own dtype (JAX would narrow float64 and int64 without its 64-bit mode).
    on_device = [not isinstance(a, np.ndarray) for a in arrays]
    device_values = [
        a._value if isinstance(a, Tensor) else a for a, d in zip(arrays, on_device) if d
    ]

    def emit(recording, step_now, *values):
        if not bool(np.asarray(recording)):
            return
        it = iter(values)
        host = [np.asarray(next(it)) if d else a for a, d in zip(arrays, on_device)]
        array = encode(*host)
        event = records.summary_event(time.time(), int(step_now), tag, array, metadata)
        writer._append(event)

    if inside_function() or _is_traced(cond) or any(map(_is_traced, [step_value, *device_values])):
        # Runs on every call of the compiled program, in program order.
        jax.debug.callback(emit, jnp.asarray(cond), step_value, *device_values, ordered=True)
        return wrap(jnp.asarray(True) if cond is True else cond)
    if writer._closed:
        raise NotFoundError(
            None,
            None,
            f"SummaryWriter {writer!r} is closed: its resource does not exist. "
            "Create a new writer with tf.summary.create_file_writer to write more.",
        )
    emit(True, step_value, *device_values)
    return wrap(jnp.asarray(True))


def host_array(value):
    """A payload: a Tensor (or JAX array), a NumPy array with TF's default dtypes for
    host numbers (never narrowed to what JAX holds), or an object array of bytes for text
    (tapejax has no string Tensors)."""
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        return convert_to_tensor(value)
    if isinstance(value, jax.Array):
        return value
    if isinstance(value, (str, bytes)):
        return np.asarray(_utf8(value), dtype=object)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    else:
        try:
            array = _python_array(value)
        except NotImplementedError:  # text: tapejax's conversion refuses strings
            array = np.asarray(value, dtype=object)
    if array.dtype.kind in "USO":
        return np.vectorize(_utf8, otypes=[object])(array).reshape(array.shape)
    return array


def _utf8(s):
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def write(tag, tensor, step=None, metadata=None, name=None) -> Tensor:
    """Writes ``tensor`` under ``tag`` to the default writer, if any (``tf.summary.write``).

    Args:
        tag: the summary's tag.
        tensor: a Tensor or value (Python numbers convert as ``tapejax.constant``), text
            (``str``, bytes, or nested lists / NumPy arrays of them), or a callable
            returning one, called only when the summary is recorded.
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        metadata: a ``SummaryMetadata`` proto or its serialized bytes.
        name: ignored (TF's op name).

    Returns:
        A bool Tensor: True if recorded, False without a default writer or when
        ``record_if`` says not to.

    Raises:
        ValueError: a default writer exists, but no step was given or set.

    Example:
        >>> import tapejax as tf
        >>> bool(tf.summary.write("x", 1.0, step=0))  # no default writer
        False
    """
    del name

    def make():
        value = host_array(tensor() if callable(tensor) else tensor)
        if isinstance(value, np.ndarray) and value.dtype == object:
            return [], lambda: value
        return [value], lambda a: a

    return record(tag, make, step, _metadata_bytes(metadata))
