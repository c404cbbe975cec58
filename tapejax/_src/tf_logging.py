"""TF's ``log_first_n``: a warning logged at most n times per user call site.

TF keys its "first n" counters on the caller's file and line (``tf_logging._get_caller``),
so each distinct line of user code warns up to n times; tapejax does the same, through
the ``"tapejax"`` logger.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["warn_first_n"]

logger = logging.getLogger("tapejax")
_log_counts: dict = {}
_THIS_PACKAGE = __name__.rsplit(".", 2)[0]


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
