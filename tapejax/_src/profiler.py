"""``tf.profiler.experimental`` on JAX's profiler.

A session writes the same kind of trace TF's does (an XSpace ``*.xplane.pb`` under
``logdir/plugins/profile/<run>/``), which TensorBoard's profile plugin opens; it traces
the XLA programs tapejax runs and the Python annotations below. TF's session errors
and texts are kept. This module must never import TensorFlow.
"""

from __future__ import annotations

import collections
import os
import threading

import jax.profiler

from tapejax._src import errors
from tapejax._src.gfile import _local

__all__ = ["Profile", "ProfilerOptions", "Trace", "start", "start_server", "stop"]

_lock = threading.Lock()
_session: list = []  # [(logdir, runs there before the session)] while one runs


class ProfilerOptions(
    collections.namedtuple(
        "ProfilerOptions",
        ["host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"],
    )
):
    """Options for a profiling session (``tf.profiler.experimental.ProfilerOptions``).

    Fields:
        host_tracer_level: CPU tracing level, ``1`` critical only, ``2`` info (default),
            ``3`` verbose.
        python_tracer_level: ``1`` traces Python function calls, ``0`` (default) not.
        device_tracer_level: ``1`` (default) traces the devices. JAX's profiler always
            traces them; ``0`` raises ``NotImplementedError``.
        delay_ms: TF's delayed start for remote hosts; only ``None`` or ``0`` (start now).
    """

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1,
                delay_ms=None):  # fmt: skip
        return super().__new__(
            cls, host_tracer_level, python_tracer_level, device_tracer_level, delay_ms
        )


def _jax_options(options) -> jax.profiler.ProfileOptions:
    jax_options = jax.profiler.ProfileOptions()
    if options is None:
        return jax_options
    if options.device_tracer_level != 1:
        raise NotImplementedError(
            "ProfilerOptions(device_tracer_level=0) is not supported by tapejax: JAX's "
            "profiler always traces the devices."
        )
    if options.delay_ms:
        raise NotImplementedError(
            "ProfilerOptions(delay_ms=...) is not supported by tapejax: a session starts "
            "when start() is called."
        )
    jax_options.host_tracer_level = int(options.host_tracer_level)
    jax_options.python_tracer_level = int(options.python_tracer_level)
    return jax_options


def _runs(logdir) -> set:
    runs = os.path.join(_local(logdir), "plugins", "profile")
    return set(os.listdir(runs)) if os.path.isdir(runs) else set()


def start(logdir, options=None) -> None:
    """Starts profiling (``tf.profiler.experimental.start``).

    Args:
        logdir: the directory the trace is written under when ``stop`` is called
            (``logdir/plugins/profile/<run>/``), for TensorBoard's profile tab.
        options: a ``ProfilerOptions``, or None for its defaults.

    Raises:
        AlreadyExistsError: if a session is already running (TF's text).

    Example:
        >>> import tempfile, tapejax as tf
        >>> logdir = tempfile.mkdtemp()
        >>> tf.profiler.experimental.start(logdir)
        >>> _ = tf.reduce_sum(tf.ones([4])).numpy()
        >>> tf.profiler.experimental.stop()
    """
    with _lock:
        if _session:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        jax_options = _jax_options(options)
        before = _runs(logdir)
        try:
            jax.profiler.start_trace(_local(logdir), profiler_options=jax_options)
        except RuntimeError as error:  # a session JAX's own API started
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.") from error
        _session.append((logdir, before))


def stop(save=True) -> None:
    """Stops the session ``start`` began (``tf.profiler.experimental.stop``).

    Args:
        save: whether to keep the trace in ``logdir``. With False nothing is left there.

    Raises:
        UnavailableError: if no session is running (TF's text).
    """
    with _lock:
        if not _session:
            raise errors.UnavailableError(
                None, None, "Cannot export profiling results. No profiler is running."
            )
        logdir, before = _session.pop()
        jax.profiler.stop_trace()
        if not save:
            import shutil

            root = os.path.join(_local(logdir), "plugins", "profile")
            for run in _runs(logdir) - before:
                shutil.rmtree(os.path.join(root, run), ignore_errors=True)


class Profile:
    """A profiling session as a context manager (``tf.profiler.experimental.Profile``).

    Example:
        >>> import tempfile, tapejax as tf
        >>> with tf.profiler.experimental.Profile(tempfile.mkdtemp()):
        ...     _ = tf.reduce_sum(tf.ones([4])).numpy()
    """

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)

    def __exit__(self, typ, value, tb):
        stop()


class Trace:
    """A named span on the profile's timeline (``tf.profiler.experimental.Trace``).

    Keyword arguments become the span's metadata, as TF's; ``step_num`` with ``_r=1``
    marks a training step, which TensorBoard's step-time views group by. Costs almost
    nothing when no session runs.

    Example:
        >>> import tapejax as tf
        >>> with tf.profiler.experimental.Trace("train", step_num=1, _r=1):
        ...     pass
    """

    def __init__(self, name, **kwargs):
        self._annotation = jax.profiler.TraceAnnotation(name, **kwargs)

    def __enter__(self):
        self._annotation.__enter__()
        return self

    def set_metadata(self, **kwargs):
        """Adds metadata to the span while it is open."""
        self._annotation.set_metadata(**kwargs)

    def __exit__(self, exc_type, exc_val, exc_tb):
        return self._annotation.__exit__(exc_type, exc_val, exc_tb)


def start_server(port) -> None:
    """Serves profiles on demand (``tf.profiler.experimental.server.start``).

    A profiler gRPC server on ``port``, which TensorBoard's "capture profile" button
    (or ``python -m jax.collect_profile``) connects to; it runs until the process ends.
    """
    jax.profiler.start_server(int(port))
