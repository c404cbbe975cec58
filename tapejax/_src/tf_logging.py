"""tapejax's logger (``tf.get_logger``) and TF's ``log_first_n``: a warning logged at most
n times per user call site.

TF keys its "first n" counters on the caller's file and line (``tf_logging._get_caller``),
so each distinct line of user code warns up to n times; tapejax does the same, through
the ``"tapejax"`` logger. This module must not import the rest of tapejax.
"""

from __future__ import annotations

import logging
import sys
import threading

__all__ = ["warn_first_n", "get_logger"]

logger = logging.getLogger("tapejax")
_log_counts: dict = {}
_THIS_PACKAGE = __name__.rsplit(".", 2)[0]
_configured = False
_configure_lock = threading.Lock()


def get_logger() -> logging.Logger:
    """The Python logger tapejax's warnings go through (``tf.get_logger``).

    As TF's: the first call adds a handler printing ``LEVEL:name:message`` to stderr
    (stdout and level INFO in an interactive session) unless the root logger already has
    handlers, so that a program which configured logging itself gets no double lines.

    .. warning:: TF returns the logger named ``"tensorflow"``; tapejax returns its own,
       named ``"tapejax"``, so ``tf.get_logger().setLevel(logging.ERROR)`` silences
       tapejax's warnings as it silences TF's.

    Example:
        >>> import logging
        >>> import tapejax as tf
        >>> tf.get_logger().name, isinstance(tf.get_logger(), logging.Logger)
        ('tapejax', True)
    """
    global _configured
    with _configure_lock:
        if not _configured:
            _configured = True
            if not logging.getLogger().handlers:
                interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
                if interactive:
                    logger.setLevel(logging.INFO)
                handler = logging.StreamHandler(sys.stdout if interactive else sys.stderr)
                handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
    return logger


def _caller_site():
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").startswith(_THIS_PACKAGE):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else None


def warn_first_n(message: str, n: int) -> None:
    """Logs ``message`` as a warning unless this call site already did so ``n`` times."""
    key = (message, _caller_site())
    count = _log_counts.get(key, 0)
    if count < n:
        _log_counts[key] = count + 1
        logger.warning(message)
