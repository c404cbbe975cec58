"""TensorFlow's dtype objects (``tf.float32`` ...) mapped onto NumPy/JAX dtypes.

A ``DType`` compares equal to its name, its NumPy dtype and its NumPy type, as TF's does.
64-bit types exist as objects whatever JAX's x64 switch says; whether an array can hold
one is decided where tensors are made (``tensor.py``), never here.
"""

from __future__ import annotations

import numpy as np

try:  # ml_dtypes ships with jaxlib; bfloat16 lives there.
    from ml_dtypes import bfloat16 as _np_bfloat16
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    _np_bfloat16 = None

__all__ = ["DType", "as_dtype"]


class DType:
    """A TensorFlow dtype: ``tapejax.float32`` and friends.

    Example:
        >>> import tapejax as tf
        >>> tf.float32.name, tf.float32.is_floating, tf.int32 == "int32"
        ('float32', True, True)
    """

    __slots__ = ("_name", "_np")

    def __init__(self, name: str, np_type):
        self._name = name
        self._np = np.dtype(np_type) if np_type is not None else None

    @property
    def name(self) -> str:
        return self._name

    @property
    def as_numpy_dtype(self):
        return self._np.type if self._np is not None else object

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def is_floating(self) -> bool:
        return self._name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_complex(self) -> bool:
        return self._name in ("complex64", "complex128")

    @property
    def is_integer(self) -> bool:
        return self._np is not None and np.issubdtype(self._np, np.integer)

    @property
    def is_unsigned(self) -> bool:
        return self._np is not None and np.issubdtype(self._np, np.unsignedinteger)

    @property
    def is_bool(self) -> bool:
        return self._name == "bool"

    @property
    def is_numeric(self) -> bool:
        return self.is_floating or self.is_complex or self.is_integer

    @property
    def size(self) -> int:
        return self._np.itemsize if self._np is not None else 8

    @property
    def min(self):
        if self.is_floating:
            return np.finfo(self._np).min if self._name != "bfloat16" else float(-3.38953139e38)
        if self.is_integer:
            return np.iinfo(self._np).min
        if self.is_bool:
            return False
        raise TypeError(f"Cannot find minimum value of {self!r}.")

    @property
    def max(self):
        if self.is_floating:
            return np.finfo(self._np).max if self._name != "bfloat16" else float(3.38953139e38)
        if self.is_integer:
            return np.iinfo(self._np).max
        if self.is_bool:
            return True
        raise TypeError(f"Cannot find maximum value of {self!r}.")

    @property
    def is_differentiable(self) -> bool:
        """TF's ``IsTrainable``: the dtypes a tape propagates gradients through."""
        return self.is_floating or self.is_complex

    def is_compatible_with(self, other) -> bool:
        return self == as_dtype(other)

    def __repr__(self) -> str:
        return f"tf.{self._name}"

    def __str__(self) -> str:
        return f"<dtype: {self._name!r}>"

    def __eq__(self, other) -> bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._name)

    def __reduce__(self):
        return as_dtype, (self._name,)


float16 = DType("float16", np.float16)
bfloat16 = DType("bfloat16", _np_bfloat16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool_ = DType("bool", np.bool_)
string = DType("string", None)

half = float16
double = float64

_ALL = (
    float16, bfloat16, float32, float64, complex64, complex128, int8, int16, int32, int64,
    uint8, uint16, uint32, uint64, bool_,
)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"string": string, "half": float16, "double": float64, "float": float32})
_BY_NP = {d._np: d for d in _ALL}


def as_dtype(type_value) -> DType:
    """Converts a name, NumPy dtype/type or DType to a ``DType`` (``tf.as_dtype``)."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            pass
    elif type_value is not None:
        if type_value in (str, bytes, np.str_, np.bytes_):
            return string
        try:
            return _BY_NP[np.dtype(type_value)]
        except (TypeError, KeyError):
            pass
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")


def from_array_dtype(np_dtype) -> DType:
    """The DType of an array's dtype, without the generality (and cost) of ``as_dtype``."""
    return _BY_NP[np_dtype]
