"""The Python operators of Tensor and Variable (``+``, ``@``, ``==``, ``&`` ...) as TF defines them."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..sparse_tensor import SparseTensor
from ..tensor import Tensor, wrap
from ._helpers import (
    binary_operands,
    to_tensor,
)
from .bitwise_ops import bitwise_and, bitwise_or, bitwise_xor, invert
from .linalg_ops import matmul
from .math_ops import (
    _equal,
    _not_equal,
    _rtruediv,
    abs,
    add,
    cast,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    multiply,
    negative,
    pow,
    subtract,
    truediv,
)
from .sparse_math_ops import dense_sparse_mul, sparse_dense_mul, sparse_dense_truediv

# -- Tensor and Variable operators ----------------------------------------------------------


def _shapes_differ(x, y) -> bool:
    xs = x._v.shape if type(x) is Tensor else np.shape(x)
    ys = y._v.shape if type(y) is Tensor else np.shape(y)
    try:
        np.broadcast_shapes(xs, ys)
    except ValueError:
        return True
    return False


def _compare(public, unbroadcastable: bool):
    """``==``/``!=``: TF's ``equal(..., incompatible_shape_error=False)``: shapes that do
    not broadcast give a scalar ``unbroadcastable``; a dtype mismatch still raises."""

    def operator(self, other):
        x, y = binary_operands(self, other, public.op.name)
        if _shapes_differ(x, y):
            return wrap(jnp.asarray(unbroadcastable))
        return public(x, y)

    return operator


def _tensor_eq(self, other):
    return False if other is None else _eq_op(self, other)


def _tensor_ne(self, other):
    return True if other is None else _ne_op(self, other)


_eq_op = _compare(_equal, False)
_ne_op = _compare(_not_equal, True)


def _logical_or_bitwise(logical, bitwise):
    """``&``, ``|``, ``^``: logical for bool tensors, bitwise otherwise (TF's ``and_`` ...)."""

    def forward(x, y):
        x = to_tensor(x)
        return (logical if x._v.dtype.kind == "b" else bitwise)(x, y)

    def reflected(self, other):
        x, y = binary_operands(other, self, bitwise.op.name)
        return forward(x if type(x) is Tensor else convert_to_tensor(x, dtype=y.dtype), y)

    return forward, reflected


def _invert(x):
    x = to_tensor(x)
    return logical_not(x) if x._v.dtype.kind == "b" else invert(x)


def _rmatmul(self, other):
    # TF converts the left operand to the right one's dtype before multiplying.
    b = to_tensor(self)
    a = other if getattr(other, "_is_variable", False) else convert_to_tensor(other, dtype=b.dtype)
    return matmul(a, b)


_BOOL = np.dtype(np.bool_)  # NumPy's builtin dtypes are singletons: ``is`` compares


def _is_bool_tensor(x) -> bool:
    return type(x) is Tensor and x._v.dtype is _BOOL


def _bool_mul(x, y):
    # TF's ``*`` with a bool tensor operand multiplies in int32 and casts back to bool
    # (``tensor_math_operator_overrides._mul_dispatch_factory``); ``tf.multiply`` refuses.
    return cast(multiply(cast(x, dtypes.int32), cast(y, dtypes.int32)), dtypes.bool_)


def _mul(self, other):
    # TF's ``_mul_dispatch``: ``dense * sparse`` is a SparseTensor (SparseDenseCwiseMul).
    if type(other) is SparseTensor:
        return dense_sparse_mul(to_tensor(self), other)
    if _is_bool_tensor(self) or _is_bool_tensor(other):
        return _bool_mul(self, other)
    return multiply(self, other)


def _rmul(self, other):
    if _is_bool_tensor(self):
        # TF's reflected operators convert the left operand to the tensor's dtype first.
        return _bool_mul(convert_to_tensor(other, dtype=dtypes.bool_), self)
    return multiply.reflected(self, other)


_and, _rand = _logical_or_bitwise(logical_and, bitwise_and)
_or, _ror = _logical_or_bitwise(logical_or, bitwise_or)
_xor, _rxor = _logical_or_bitwise(logical_xor, bitwise_xor)

OPERATORS = {
    "__add__": add,
    "__radd__": add.reflected,
    "__sub__": subtract,
    "__rsub__": subtract.reflected,
    "__mul__": _mul,
    "__rmul__": _rmul,
    "__truediv__": truediv,
    "__rtruediv__": _rtruediv,
    "__floordiv__": floordiv,
    "__rfloordiv__": floordiv.reflected,
    "__mod__": floormod,
    "__rmod__": floormod.reflected,
    "__pow__": pow,
    "__rpow__": pow.reflected,
    "__matmul__": matmul,
    "__rmatmul__": _rmatmul,
    "__neg__": negative,
    "__abs__": abs,
    "__invert__": _invert,
    "__and__": _and,
    "__rand__": _rand,
    "__or__": _or,
    "__ror__": _ror,
    "__xor__": _xor,
    "__rxor__": _rxor,
    "__lt__": less,
    "__le__": less_equal,
    "__gt__": greater,
    "__ge__": greater_equal,
    "__eq__": _tensor_eq,
    "__ne__": _tensor_ne,
}
# A Variable's ``==`` has no ``None`` shortcut: TF's tries to convert None (ValueError).
_VARIABLE_OPERATORS = {**OPERATORS, "__eq__": _eq_op, "__ne__": _ne_op}


def install_operators(cls) -> None:
    table = _VARIABLE_OPERATORS if getattr(cls, "_is_variable", False) else OPERATORS
    for name, fn in table.items():
        setattr(cls, name, fn)


# A SparseTensor has TF's three operators: ``sp * dense``, ``sp / dense`` (true division)
# and the Python 2 ``__div__``; ``dense * sp`` is Tensor's ``__mul__`` above.
SPARSE_OPERATORS = {
    "__mul__": sparse_dense_mul,
    "__truediv__": sparse_dense_truediv,
    "__div__": sparse_dense_truediv,
}
