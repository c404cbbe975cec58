"""``tf.train.Coordinator``: stopping a set of Python threads together.

Pure Python, TF's behaviour line for line: the first exception reported wins and is
re-raised by ``join``; "clean stop" exceptions (``OutOfRangeError`` by default) stop
without an error. This module must never touch tensors or devices.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from .errors import OutOfRangeError
from .tf_logging import logger

__all__ = ["Coordinator"]


class Coordinator:
    """A coordinator for threads (``tf.train.Coordinator``).

    Threads call ``should_stop()`` in their loops and ``request_stop(ex)`` (or run in
    ``with coord.stop_on_exception():``) when they fail; the main thread calls
    ``join(threads)``, which waits for them and re-raises the first exception
    reported.

    Args:
      clean_stop_exception_types: exception types that stop the threads without
        being re-raised by ``join``; default ``(tapejax.errors.OutOfRangeError,)``.

    Example:
        >>> import threading, tapejax as tf
        >>> import tapejax.train
        >>> coord = tf.train.Coordinator()
        >>> def work():
        ...     with coord.stop_on_exception():
        ...         raise RuntimeError("boom")
        >>> threads = [threading.Thread(target=work)]
        >>> for t in threads:
        ...     t.start()
        >>> try:
        ...     coord.join(threads)
        ... except RuntimeError as e:
        ...     print(e, coord.should_stop())
        boom True
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex):
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None
        return ex

    def request_stop(self, ex=None) -> None:
        """Asks the threads to stop; the first ``ex`` reported is re-raised by ``join``.

        Args:
          ex: None, an exception, or a ``sys.exc_info()`` tuple. An exception must be
            the one being handled (``sys.exc_info()`` is what is kept, as in TF).

        Raises:
          The exception ``ex``, if ``join`` has already been called.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1]
                elif ex is not None:
                    raise sys.exc_info()[1]
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        logger.info("Error reported to Coordinator: %s", ex[1], exc_info=ex)
                        self._exc_info_to_raise = ex
                    else:
                        logger.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = sys.exc_info()
                    info = self._exc_info_to_raise
                    if len(info) != 3 or not info[0] or not info[1]:
                        try:
                            raise ValueError(
                                "ex must be a tuple or sys.exc_info must return the current "
                                f"exception: {info}"
                            )
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self) -> None:
        """Forgets the stop request and the exception, so that threads can start again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context in which any exception requests a stop (and is swallowed)."""
        try:
            yield
        except:  # noqa: E722 - TF catches everything, SystemExit included
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits until a stop is requested or ``timeout`` seconds pass; True if stopped."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread) -> None:
        """Adds ``thread`` to those ``join`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads (given and registered) to end; re-raises a reported exception.

        Waits until they all end or a stop is requested, then gives them
        ``stop_grace_period_secs`` to end.

        Raises:
          The first exception passed to ``request_stop``, if any.
          RuntimeError: threads still alive after the grace period (unless
            ``ignore_live_threads``; TF's text).
        """
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)

        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass

        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = 2 * stop_wait_secs
            stop_wait_secs = max(min(stop_wait_secs, stop_grace_period_secs), 0.001)

        stragglers = [t.name for t in threads if t.is_alive()]

        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            elif stragglers:
                message = "Coordinator stopped with threads still running: " + " ".join(stragglers)
                if ignore_live_threads:
                    logger.info(message)
                else:
                    raise RuntimeError(message)

    @property
    def joined(self) -> bool:
        """Whether ``join`` has run (reset by ``clear_stop``)."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception passed to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
