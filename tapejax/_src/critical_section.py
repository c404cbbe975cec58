"""``tf.CriticalSection``: runs functions one at a time, across Python threads.

TF's section is a mutex resource that ``execute`` locks around ``fn``. Here it is a
``threading.Lock`` held while ``fn`` runs (eagerly, or while a ``tapejax.function`` traces
it), shared by every section created with the same ``shared_name``. A thread-local stack
of the sections each thread is inside turns a nested ``execute`` of a section already
held into TF's ``ValueError`` instead of a deadlock. ``fn``'s results come back through
``identity``, so tapes and functions see them as TF's do; inside a ``tapejax.function``
they follow the checks TF's graph mode makes. Nothing here may hold a lock after
``execute`` returns or raises.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from . import execution, nest
from .conversion import convert_to_tensor
from .indexed_slices import IndexedSlices
from .sparse_tensor import SparseTensor

__all__ = ["CriticalSection"]

# TF's mutex lives on the host whatever the devices (its kernel is CPU-only).
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_SHARED: dict = {}
_SHARED_GUARD = threading.Lock()
_IDS = itertools.count(1)
_inside = threading.local()


def _stack() -> list:
    stack = getattr(_inside, "signatures", None)
    if stack is None:
        stack = _inside.signatures = []
    return stack


def _shared_lock(shared_name: str):
    with _SHARED_GUARD:
        lock = _SHARED.get(shared_name)
        if lock is None:
            lock = _SHARED[shared_name] = threading.Lock()
        return lock


def _output(x, traced: bool):
    """One result of ``fn`` as TF's ``execute`` returns it (TF's ``_identity``)."""
    from .ops._array_common import identity
    from .ops.tensor_array_ops import TensorArray

    if x is None:
        if traced:
            raise ValueError(
                "Tried to convert 'input' to a tensor and failed. Error: None values not supported."
            )
        return None
    if isinstance(x, (SparseTensor, IndexedSlices, TensorArray)):
        return x
    return identity(convert_to_tensor(x) if not getattr(x, "_is_variable", False) else x)


class CriticalSection:
    """Runs functions in serial order (``tf.CriticalSection``).

    ``execute(fn)`` runs ``fn`` while holding the section's lock: other threads executing
    on the same section (or on any section with the same ``shared_name``) wait until it
    returns or raises. Executing a section from inside its own ``execute`` raises TF's
    ``ValueError`` instead of deadlocking.

    Args:
        name: unused (TF's name scope; an eager section has no op name).
        shared_name: sections created with the same non-empty string share one lock.
        critical_section_def: not supported (TF's ``ValueError``).
        import_scope: unused.

    Raises:
        ValueError: ``critical_section_def`` is given (TF's texts).
        TypeError: ``shared_name`` is not a string (TF's text).

    Example:
        >>> import tapejax as tf
        >>> v = tf.Variable(0)
        >>> cs = tf.CriticalSection()
        >>> def count():
        ...     old = v.read_value()
        ...     v.assign_add(1)
        ...     return old
        >>> [int(cs.execute(count)) for _ in range(3)]
        [0, 1, 2]

    .. warning:: Differences from TF: sections without a ``shared_name`` each have their
       own lock (TF's eager sections without one all share a single mutex, so executing
       one inside another deadlocks); ``exclusive_resource_access`` is accepted and not
       checked (TF's graph mode refuses two sections touching one Variable in one
       function); inside a ``tapejax.function`` the lock is held while ``fn`` is traced,
       not while the compiled program runs, and a Variable ``fn`` returns is read (TF's
       graph mode raises ``AttributeError`` for a Variable created outside the function,
       and reads what ``assign_add`` returns: tapejax's ``assign_add`` returns the
       Variable itself, so the two cannot be told apart).
    """

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        del import_scope
        if critical_section_def and name is not None:
            raise ValueError(
                f"Arguments critical_section_def={critical_section_def} and "
                f"shared_name={shared_name} are mutually exclusive. Please only specify one of "
                "them."
            )
        if critical_section_def:
            raise ValueError("Argument `critical_section_def` is not supported.")
        if shared_name is not None and not isinstance(shared_name, str):
            raise TypeError(f"Expected string for argument 'shared_name' not {shared_name!r}.")
        if shared_name:
            self._lock = _shared_lock(shared_name)
            key = shared_name
        else:
            self._lock = threading.Lock()
            key = next(_IDS)
        self._signature = ("", key, _DEVICE)

    @property
    def name(self) -> str:
        """TF's eager sections have no op, so this raises TF's ``AttributeError``."""
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    def execute(self, fn: Callable[[], Any], exclusive_resource_access=True, name=None):
        """Runs ``fn()`` holding the section's lock; returns its results as Tensors.

        Args:
            fn: a function of no arguments. Its result may be any nest of Tensors,
                Variables (read), SparseTensors, TensorArrays, Python numbers and None.
            exclusive_resource_access: accepted, not checked (see the class's warning).
            name: unused (TF's name scope).

        Returns:
            ``fn()``'s structure, each Tensor (or number, or Variable) through
            ``identity``, so a tape differentiates through it.

        Raises:
            ValueError: ``fn`` executes this section (or one with its ``shared_name``)
                again; inside a ``tapejax.function``, ``fn`` returns None or nothing
                (TF's texts).
        """
        del exclusive_resource_access, name
        stack = _stack()
        signature = self._signature
        if signature in stack:
            raise ValueError(
                f"Attempting to lock a CriticalSection (signature={signature}) in which we are "
                "already running. This is illegal and may cause deadlocks."
            )
        stack.append(signature)
        try:
            with self._lock:
                result = fn()
                traced = not execution.executing_eagerly()
                flat = [_output(x, traced) for x in nest.flatten(result)]
                if traced and not flat:
                    raise ValueError(f"'tensors' must have at least one Tensor. Received: {flat}.")
                return nest.pack_sequence_as(result, flat)
        finally:
            stack.pop()
