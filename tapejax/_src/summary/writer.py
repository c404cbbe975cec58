"""Summary writers, the default-writer state and ``write``: ``tf.summary``'s core.

A ``_FileWriter`` owns one event file (TF's name pattern, TFRecord framing) and a queue
flushed as TF's C++ writer flushes it. ``write`` decides, as TF's ``write`` does, whether to
record; inside ``tapejax.function`` the record is made by a ``jax.debug.callback`` so that
it happens on every call of the compiled program, with that call's step and values. Host
work (bucketing, PNG encoding) runs in that callback: it must never run once at trace time.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import socket
import threading
import time
import weakref

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
from .protowire import frame

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "flush",
    "get_step",
    "record_if",
    "set_step",
    "should_record_summaries",
    "summary_scope",
    "write",
]


class _State(threading.local):
    # Per thread, as TF's summary state: the default writer, step and recording condition.
    writer = None
    step = None
    is_recording = None


_state = _State()
_file_ids = itertools.count()  # TF's process-wide counter in event file names
_open_writers: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_at_exit():
    # Queued events reach the file when the process ends, as with TF's writers; done here,
    # before module teardown, not in __del__ at shutdown.
    for writer in list(_open_writers):
        writer._close_now()


class SummaryWriter:
    """Interface of a stateful summary writer (``tf.summary.SummaryWriter``)."""

    def set_as_default(self, step=None):
        """Makes this writer the default for the current thread; if ``step`` is not None,
        also sets the default step (``tf.summary.experimental.set_step``)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager making this writer the default (and ``step`` the default step,
        if not None); on exit it flushes the writer and restores the previous ones."""
        return _DefaultWriter(self, step)

    def init(self):
        """Initializes the summary writer."""
        raise NotImplementedError()

    def flush(self):
        """Flushes any buffered data."""
        raise NotImplementedError()

    def close(self):
        """Flushes and closes the summary writer."""
        raise NotImplementedError()


class _DefaultWriter:
    # A class, not a generator, so that set_as_default may enter it and never exit (TF's).
    def __init__(self, writer, step):
        self._writer = writer
        self._step = step
        self._old_writer = None
        self._old_step = None

    def __enter__(self):
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        _state.writer.flush()
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step
        return False


class _FileWriter(SummaryWriter):
    """Writes events to ``<logdir>/events.out.tfevents.<time>.<host>.<pid>.<n><suffix>``."""

    def __init__(self, logdir: str, max_queue: int, flush_millis: int, filename_suffix: str):
        os.makedirs(logdir, exist_ok=True)
        now = time.time()
        sep = "" if filename_suffix.startswith(".") else "."
        name = (
            f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}."
            f"{os.getpid()}.{next(_file_ids)}{sep}{filename_suffix}"
        )
        self._path = os.path.join(logdir, name)
        self._max_queue = max_queue
        self._flush_seconds = flush_millis / 1000.0
        self._lock = threading.Lock()  # jax.debug.callback may run on another thread
        self._queue: list[bytes] = []
        self._file = open(self._path, "wb")  # noqa: SIM115 - open until close()
        self._file.write(frame(records.file_version_event(float(int(now)))))
        self._file.flush()
        self._last_flush = time.monotonic()
        self._closed = False
        _open_writers.add(self)

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        """See ``SummaryWriter.set_as_default``."""
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        """See ``SummaryWriter.as_default``."""
        self._check_open()
        return super().as_default(step)

    def init(self):
        """See ``SummaryWriter.init``: the file is created with the writer, as TF eager."""
        self._check_open()

    def _append(self, record: bytes) -> None:
        with self._lock:
            if self._closed:
                return
            self._queue.append(frame(record))
            # TF's SummaryFileWriter: flush once the queue is longer than max_queue, or
            # flush_millis after the last flush.
            if (
                len(self._queue) > self._max_queue
                or time.monotonic() - self._last_flush >= self._flush_seconds
            ):
                self._flush_locked()

    def _flush_locked(self):
        self._file.write(b"".join(self._queue))
        self._file.flush()
        self._queue.clear()
        self._last_flush = time.monotonic()

    def flush(self):
        """See ``SummaryWriter.flush``: writes the queued events to the file, including
        those of compiled programs dispatched before (their callbacks are awaited).
        Inside ``tapejax.function`` it flushes on every call of the compiled program."""
        if inside_function():
            jax.debug.callback(self._flush_now, ordered=True)
            return
        jax.effects_barrier()
        self._flush_now()

    def _flush_now(self):
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def close(self):
        """See ``SummaryWriter.close``: flushes and closes the file; later calls do nothing."""
        jax.effects_barrier()
        self._close_now()

    def _close_now(self):
        with self._lock:
            if self._closed:
                return
            self._flush_locked()
            self._file.close()
            self._closed = True

    def __del__(self):
        # TF's writer resource flushes and closes when deleted: so does this one (without
        # awaiting callbacks: a collection may run on any thread, a callback's included).
        if not getattr(self, "_closed", True):
            self._close_now()


class _NoopWriter(SummaryWriter):
    """A writer that does nothing (``tf.summary.create_noop_writer``)."""

    def set_as_default(self, step=None):
        pass

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def create_file_writer(
    logdir,
    max_queue=None,
    flush_millis=None,
    filename_suffix=None,
    name=None,
    experimental_trackable=False,
    experimental_mesh=None,
) -> SummaryWriter:
    """Creates a summary file writer for ``logdir`` (``tf.summary.create_file_writer``).

    Args:
        logdir: the directory of the event file (created if missing).
        max_queue: events queued before a flush is forced (more than this); default 10.
        flush_millis: the longest time between flushes, checked at each write; default
            120000.
        filename_suffix: the event file name's suffix; default ``".v2"``.
        name: ignored (TF's op name).
        experimental_trackable: ignored: a tapejax writer holds no TF resource.
        experimental_mesh: must be None (DTensor meshes are not provided).

    Returns:
        A ``SummaryWriter``.

    Example:
        >>> import tempfile, tapejax as tf
        >>> writer = tf.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default(step=1):
        ...     bool(tf.summary.scalar("loss", 0.5))
        True
    """
    del name, experimental_trackable
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if experimental_mesh is not None:
        raise NotImplementedError(
            "tapejax.summary.create_file_writer: experimental_mesh (DTensor) is not provided."
        )
    return _FileWriter(
        os.fspath(logdir),
        10 if max_queue is None else int(max_queue),
        120000 if flush_millis is None else int(flush_millis),
        ".v2" if filename_suffix is None else str(filename_suffix),
    )


def create_noop_writer() -> SummaryWriter:
    """Returns a summary writer that does nothing (``tf.summary.create_noop_writer``)."""
    return _NoopWriter()


def flush(writer=None, name=None):
    """Flushes ``writer``, or the default writer if None (``tf.summary.flush``)."""
    del name
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError(f"Invalid argument to flush(): {writer!r}")


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

    def emit(recording, step_now, *values):
        if not bool(np.asarray(recording)):
            return
        array = encode(*(np.asarray(v) for v in values))
        event = records.summary_event(time.time(), int(step_now), tag, array, metadata)
        writer._append(event)

    values = [v._value if isinstance(v, Tensor) else v for v in arrays]
    if inside_function() or _is_traced(cond) or any(map(_is_traced, [step_value, *values])):
        # Runs on every call of the compiled program, in program order.
        jax.debug.callback(emit, jnp.asarray(cond), step_value, *values, ordered=True)
        return wrap(jnp.asarray(True) if cond is True else cond)
    if writer._closed:
        raise NotFoundError(
            None,
            None,
            f"SummaryWriter {writer!r} is closed: its resource does not exist. "
            "Create a new writer with tf.summary.create_file_writer to write more.",
        )
    emit(True, step_value, *values)
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
