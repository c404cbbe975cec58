"""``tf.train.experimental.PythonState``: Python state saved in tapejax checkpoints.

A ``PythonState`` is saved as the bytes its ``serialize`` returns (a ``str`` is encoded
as UTF-8, as TF's string tensor does), stored in the ``.npz`` as a ``uint8`` array under
its object path plus ``py_state`` (TF's key ends ``.ATTRIBUTES/py_state``); restoring
calls ``deserialize`` with those bytes, as TF does. This module must never pickle: the
bytes are the subclass's own encoding.
"""

from __future__ import annotations

import abc

import numpy as np

__all__ = ["PythonState", "PYTHON_STATE"]

# The last part of a PythonState's checkpoint key (TF's attribute name).
PYTHON_STATE = "py_state"


class PythonState(metaclass=abc.ABCMeta):
    """A mixin for putting Python state in a checkpoint (``tf.train.experimental.PythonState``).

    Subclasses define ``serialize() -> str | bytes`` and ``deserialize(bytes)``; an
    instance reachable from a ``tapejax.train.Checkpoint`` is saved and restored with
    the Variables.

    Example:
        >>> import os, tempfile, tapejax as tf
        >>> class Step(tf.train.experimental.PythonState):
        ...     def __init__(self):
        ...         self.n = 0
        ...     def serialize(self):
        ...         return str(self.n)
        ...     def deserialize(self, string_value):
        ...         self.n = int(string_value)
        >>> step = Step()
        >>> ckpt = tf.train.Checkpoint(step=step)
        >>> step.n = 7
        >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "c"))
        >>> step.n = 0
        >>> _ = ckpt.restore(path)
        >>> step.n
        7
    """

    @abc.abstractmethod
    def serialize(self):
        """Callback to serialize the object. Returns a string."""

    @abc.abstractmethod
    def deserialize(self, string_value):
        """Callback to deserialize the object."""


class PythonStateSlot:
    """A ``PythonState`` as one checkpoint entry: the bytes to save, and how to restore them."""

    __slots__ = ("state",)

    def __init__(self, state: PythonState):
        self.state = state

    def to_host(self) -> np.ndarray:
        value = self.state.serialize()
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(
                f"{type(self.state).__name__}.serialize() must return str or bytes, got "
                f"{type(value).__name__}."
            )
        # uint8, not NumPy's ``S`` dtype, which drops trailing NUL bytes.
        return np.frombuffer(bytes(value), dtype=np.uint8)

    def restore(self, saved: np.ndarray) -> None:
        self.state.deserialize(np.asarray(saved, dtype=np.uint8).tobytes())

    @property
    def name(self) -> str:
        return f"{type(self.state).__name__}/{PYTHON_STATE}"

    def __repr__(self):
        return repr(self.state)
