"""Summary writers and the per-thread summary state (default writer, step, condition).

A ``_FileWriter`` owns one event file (TF's name pattern, TFRecord framing) and a queue
flushed as TF's C++ writer flushes it. It must never be written to but through ``_append``,
which a compiled program's callbacks call from another thread.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import socket
import threading
import time
import weakref

import jax

from ..execution import inside_function
from . import records
from .protowire import frame

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush"]


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
