"""Variables bound to traced values, and a recorder that notes which Variables code touches.

``tapejax.function``, custom gradients and ``functionalize`` all run user code with
Variables temporarily holding tracers (so their values are program arguments, never
constants) and need to know which Variables that code reads or assigns.
"""

from __future__ import annotations

import contextlib

__all__ = ["bound", "VariableWatcher"]


@contextlib.contextmanager
def bound(variables, values):
    """Runs a block with each Variable holding the matching value; restores them after."""
    variables = list(variables)
    saved = [v._value for v in variables]
    for v, value in zip(variables, values):
        v._value = value
    try:
        yield
    finally:
        for v, value in zip(variables, saved):
            v._value = value


class VariableWatcher:
    """A recorder noting the Variables a run reads or assigns.

    Args:
      trainable_only: note only trainable Variables (TF's custom_gradient watcher).
      bound: ids of Variables already bound by the caller; an assignment to any other
        Variable saves its value first (``saved``), so a trace can undo it.
    """

    def __init__(self, trainable_only: bool = False, bound=frozenset()):
        self.touched: dict = {}
        self.saved: dict = {}
        self._trainable_only = trainable_only
        self._bound = bound

    def record(self, op, static, args, outs):
        pass

    def variable_read(self, var, tensor):
        if var.trainable or not self._trainable_only:
            self.touched.setdefault(var._id, var)

    def variable_accessed(self, var):
        if var._id not in self._bound and var._id not in self.saved:
            self.saved[var._id] = (var, var._value)
        if var.trainable or not self._trainable_only:
            self.touched.setdefault(var._id, var)

    def restore(self):
        """Undoes assignments to unbound Variables made while watching."""
        for var, value in self.saved.values():
            var._value = value
