"""TensorFlow's exception classes, raised where TensorFlow raises them.

The classes mirror ``tf.errors``: same names, same hierarchy, same constructor
``(node_def, op, message)``, so ``except tf.errors.InvalidArgumentError`` in ported code
catches what it caught under TensorFlow. This module must never import JAX.
"""

from __future__ import annotations

__all__ = [
    "OpError",
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "AbortedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnavailableError",
    "DataLossError",
    "OperatorNotAllowedInGraphError",
]


class OpError(Exception):
    """The base class of the errors an op raises while it runs (``tf.errors.OpError``)."""

    def __init__(self, node_def=None, op=None, message="", *args):
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = message

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    def __str__(self) -> str:
        return self._message


def _make(name: str, doc: str) -> type:
    return type(name, (OpError,), {"__doc__": doc, "__module__": __name__})


CancelledError = _make("CancelledError", "An operation was cancelled.")
UnknownError = _make("UnknownError", "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", "A deadline expired.")
NotFoundError = _make("NotFoundError", "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", "Not authenticated.")
ResourceExhaustedError = _make("ResourceExhaustedError", "A resource was exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", "The system is not in a valid state.")
AbortedError = _make("AbortedError", "An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", "An index or value was out of range.")
UnimplementedError = _make("UnimplementedError", "An operation is not implemented.")
InternalError = _make("InternalError", "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", "The runtime is unavailable.")
DataLossError = _make("DataLossError", "Unrecoverable data loss.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a traced Tensor whose value is not known while tracing."""
