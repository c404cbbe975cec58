"""The thread-local stack of active recorders (tapes and forward accumulators).

An op offers itself to every active recorder; nothing else decides what gets
recorded. This module holds state only and imports nothing of tapejax, so every
layer, values included (a Variable read notifies the recorders), can consult it
cheaply on each op.
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["active", "push", "remove", "paused", "only"]


class _State(threading.local):
    def __init__(self):
        # Entry order: outermost first. A tuple, so that the per-op check
        # `if _state.recorders:` and iteration need no copying.
        self.recorders: tuple = ()


_state = _State()


def active() -> tuple:
    """The recorders active on this thread, outermost first."""
    return _state.recorders


def push(recorder) -> None:
    _state.recorders = _state.recorders + (recorder,)


def remove(recorder) -> None:
    recs = _state.recorders
    for i in range(len(recs) - 1, -1, -1):
        if recs[i] is recorder:
            _state.recorders = recs[:i] + recs[i + 1 :]
            return


@contextlib.contextmanager
def paused():
    """Stops every recorder on this thread (what ``stop_gradient`` runs under)."""
    saved = _state.recorders
    _state.recorders = ()
    try:
        yield
    finally:
        _state.recorders = saved


@contextlib.contextmanager
def only(recorders: tuple):
    """Runs a block with exactly ``recorders`` active (outer recorders of a nested computation)."""
    saved = _state.recorders
    _state.recorders = recorders
    try:
        yield
    finally:
        _state.recorders = saved
