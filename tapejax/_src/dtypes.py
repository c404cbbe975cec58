"""TensorFlow's dtype objects (``tf.float32`` ...) mapped onto NumPy/JAX dtypes.

A ``DType`` compares equal to its name, its NumPy dtype and its NumPy type, as TF's does.
64-bit types exist as objects whatever JAX's x64 switch says; whether an array can hold
one is decided where tensors are made (``tensor.py``), never here.
"""

from __future__ import annotations

import ml_dtypes  # ships with jaxlib: bfloat16 and its finfo live there
import numpy as np

_np_bfloat16 = ml_dtypes.bfloat16

__all__ = ["DType", "as_dtype"]

# TF's C++ type names (``DataTypeString``): kernels' error texts use them, not ``.name``.
_C_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
# TF's ``types.proto`` enum values: ``as_dtype(3)`` is ``tf.int32``, as in TF.
_ENUMS = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "string": 7,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "bfloat16": 14,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}


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
    def as_datatype_enum(self) -> int:
        return _ENUMS[self._name]

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
        return self._limit("minimum", "min")

    @property
    def max(self):
        return self._limit("maximum", "max")

    def _limit(self, what: str, attr: str):
        # As TF: bool, string and complex have no order, so no limits (TypeError).
        if self.is_floating:
            return getattr(ml_dtypes.finfo(self._np), attr)
        if self.is_integer:
            return getattr(np.iinfo(self._np), attr)
        raise TypeError(f"Cannot find {what} value of {self} with type {self}.")

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
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool_,
)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"string": string, "half": float16, "double": float64, "float": float32})
_BY_NP = {d._np: d for d in _ALL}
_BY_NP[np.dtype(object)] = string
_BY_ANY = dict(_BY_NAME)
_BY_ANY.update({_ENUMS[name]: d for name, d in _BY_NAME.items() if name in _ENUMS})
_BY_ANY.update({float: float32, bool: bool_, object: string})
_BY_ANY.update({d._np.type: d for d in _ALL})
_BY_ANY.update({np.object_: string, np.bytes_: string, np.str_: string})


def as_dtype(type_value) -> DType:
    """Converts a DType, name, enum value, NumPy dtype/type or Python type (``tf.as_dtype``).

    The accepted values are TF's: Python ``float`` is float32 and ``bool`` is bool, but
    Python ``int``, ``complex`` and ``str`` are not dtypes (TypeError), as in TF.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, np.dtype):
        found = _BY_NP.get(type_value)
        if found is not None:
            return found
    try:
        return _BY_ANY[type_value]
    except (KeyError, TypeError):  # TypeError: unhashable
        pass
    if hasattr(type_value, "dtype"):  # NumPy arrays and scalar types, jnp.float32 ...
        try:
            return _BY_NP[np.dtype(type_value.dtype)]
        except (KeyError, TypeError):
            pass
    raise TypeError(
        f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType."
    )


def tf_type_name(dtype) -> str:
    """TF's C++ name of a dtype ("float" for float32): what TF's error texts print."""
    name = dtype.name if isinstance(dtype, DType) else from_array_dtype(np.dtype(dtype)).name
    return _C_NAMES.get(name, name)


def from_array_dtype(np_dtype) -> DType:
    """The DType of an array's dtype, without the generality (and cost) of ``as_dtype``."""
    return _BY_NP[np_dtype]
