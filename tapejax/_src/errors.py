"""TensorFlow's exception classes and error codes, raised where TensorFlow raises them.

The classes mirror ``tf.errors``: same names, same hierarchy, same constructors
(``OpError(node_def, op, message, error_code)``, each subclass ``(node_def, op,
message)``), the same ``error_code`` of each class, and they pickle (``__reduce__``), so an
error raised in a worker process arrives as itself. ``except tf.errors.InvalidArgumentError``
in ported code catches what it caught under TensorFlow. This module must never import JAX.
"""

from __future__ import annotations

__all__ = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "UNAUTHENTICATED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
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
    "exception_type_from_error_code",
    "error_code_from_exception_type",
]

# TF's canonical error codes (``error_codes.proto``, the same numbers as gRPC's).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of the errors an op raises while it runs (``tf.errors.OpError``).

    Args:
        node_def: TF's ``NodeDef`` of the failed op; always None in tapejax.
        op: the failed ``Operation``; always None in tapejax (as in TF eager).
        message: the error text (``str(error)``).
        error_code: one of the codes of this module (``tf.errors.INVALID_ARGUMENT`` ...).
        *args: optionally a dict of details (TF's ``experimental_payloads``).

    Example:
        >>> import tapejax as tf
        >>> e = tf.errors.InvalidArgumentError(None, None, "bad shape")
        >>> e.error_code == tf.errors.INVALID_ARGUMENT, e.message
        (True, 'bad shape')
    """

    def __init__(self, node_def, op, message, error_code, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = args[0] if args else {}

    def __reduce__(self):
        # Subclasses take (node_def, op, message, payloads); OpError also the code.
        args = (self._node_def, self._op, self._message)
        if type(self) is OpError:
            args += (self._error_code,)
        return type(self), (*args, self._experimental_payloads)

    @property
    def message(self) -> str:
        """The error text."""
        return self._message

    @property
    def op(self):
        """The failed operation: None in tapejax, as in TF eager."""
        return self._op

    @property
    def node_def(self):
        """TF's ``NodeDef`` of the failed op: None in tapejax."""
        return self._node_def

    @property
    def error_code(self) -> int:
        """The integer error code (``tf.errors.INVALID_ARGUMENT`` ...)."""
        return self._error_code

    @property
    def experimental_payloads(self) -> dict:
        """The dict of details given to the constructor (empty if none)."""
        return self._experimental_payloads

    def __str__(self) -> str:
        return self._message


def _make(name: str, code: int, doc: str) -> type:
    def __init__(self, node_def, op, message, *args):  # noqa: N807 - the class's constructor
        OpError.__init__(self, node_def, op, message, code, *args)

    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (OpError,), {"__doc__": doc, "__module__": __name__, "__init__": __init__})


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument."
)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "Not authenticated.")
ResourceExhaustedError = _make(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource was exhausted."
)
FailedPreconditionError = _make(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a valid state."
)
AbortedError = _make("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An index or value was out of range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "An operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss.")

_BY_CODE = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code: int) -> type:
    """The class of an error code (TF 1's ``tf.compat.v1.errors`` function of that name).

    Raises:
        KeyError: not the code of an error class (``OK`` included), as in TF.
    """
    return _BY_CODE[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """The error code of an error class (TF 1's ``tf.compat.v1.errors`` function).

    Raises:
        KeyError: ``cls`` is not one of the classes of this module.
    """
    return {v: k for k, v in _BY_CODE.items()}[cls]


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a traced Tensor whose value is not known while tracing."""
