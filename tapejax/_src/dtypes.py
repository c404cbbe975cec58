"""TensorFlow's dtype objects (``tf.float32`` ...) mapped onto NumPy/JAX dtypes.

A ``DType`` compares equal to its name, its NumPy dtype and its NumPy type, as TF's does.
64-bit types exist as objects whatever JAX's x64 switch says; whether an array can hold
one is decided where tensors are made (``tensor.py``), never here. TF's quantized types
(``qint8`` ...), ``resource`` and ``variant`` exist as objects with TF's properties, but no
tapejax tensor holds one (conversion raises ``NotImplementedError``).
"""

from __future__ import annotations

import ml_dtypes  # ships with jaxlib: bfloat16 and its finfo live there
import numpy as np

_np_bfloat16 = ml_dtypes.bfloat16

__all__ = ["DType", "as_dtype", "QUANTIZED_DTYPES"]

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
    "qint8": 11,
    "quint8": 12,
    "qint32": 13,
    "qint16": 15,
    "quint16": 16,
    "resource": 20,
    "variant": 21,
    "float8_e5m2": 24,
    "float8_e4m3fn": 25,
    "float8_e4m3fnuz": 26,
    "float8_e4m3b11fnuz": 27,
    "float8_e5m2fnuz": 28,
    "int4": 29,
    "uint4": 30,
    "int2": 31,
    "uint2": 32,
    "float4_e2m1fn": 33,
}
_FLOATING = {
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "float8_e5m2",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e4m3b11fnuz",
    "float8_e5m2fnuz",
    "float4_e2m1fn",
}
_SIGNED = {"int8", "int16", "int32", "int64", "int4", "int2"}
_UNSIGNED = {"uint8", "uint16", "uint32", "uint64", "uint4", "uint2"}
_QUANTIZED = {"qint8", "quint8", "qint16", "quint16", "qint32"}
# TF's ``is_numeric``: the narrow experimental types (float8, int4 ...) are not numeric there.
_NUMERIC = (
    {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}
    | {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
    | _QUANTIZED
)


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
        if self._np is None:
            return object
        # TF's quantized types are NumPy record dtypes; the others are NumPy scalar types.
        return self._np if self._np.names else self._np.type

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
        return self._name in _FLOATING

    @property
    def is_complex(self) -> bool:
        return self._name in ("complex64", "complex128")

    @property
    def is_integer(self) -> bool:
        return self._name in _SIGNED or self._name in _UNSIGNED

    @property
    def is_unsigned(self) -> bool:
        return self._name in _UNSIGNED

    @property
    def is_quantized(self) -> bool:
        return self._name in _QUANTIZED

    @property
    def is_numpy_compatible(self) -> bool:
        """False for TF's types that have no NumPy counterpart (``resource``, ``variant``)."""
        return self._name not in ("resource", "variant")

    @property
    def is_bool(self) -> bool:
        return self._name == "bool"

    @property
    def is_numeric(self) -> bool:
        return self._name in _NUMERIC

    @property
    def size(self) -> int:
        return self._np.itemsize if self._np is not None else 0

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
            return getattr(ml_dtypes.iinfo(self._np), attr)
        if self.is_quantized or self._name in ("bool", "string", "complex64", "complex128"):
            kind = "quantized type" if self.is_quantized else "type"
            raise TypeError(f"Cannot find {what} value of {self} with {kind} {self}.")
        raise TypeError(f"Cannot find {what} value of {self}.")

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
qint8 = DType("qint8", [("qint8", np.int8)])
quint8 = DType("quint8", [("quint8", np.uint8)])
qint16 = DType("qint16", [("qint16", np.int16)])
quint16 = DType("quint16", [("quint16", np.uint16)])
qint32 = DType("qint32", [("qint32", np.int32)])
resource = DType("resource", None)
variant = DType("variant", None)
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2)
float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = DType("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)
float8_e4m3b11fnuz = DType("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz)
float8_e5m2fnuz = DType("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz)
float4_e2m1fn = DType("float4_e2m1fn", ml_dtypes.float4_e2m1fn)
int4 = DType("int4", ml_dtypes.int4)
uint4 = DType("uint4", ml_dtypes.uint4)
int2 = DType("int2", ml_dtypes.int2)
uint2 = DType("uint2", ml_dtypes.uint2)

QUANTIZED_DTYPES = frozenset((qint8, quint8, qint16, quint16, qint32))

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
# ``tf.dtypes.experimental``: tensors hold them, but no op's kernel list has them (so they
# stay out of ``_ALL``, which ops' accepted types are drawn from).
_NARROW = (
    float8_e5m2,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e4m3b11fnuz,
    float8_e5m2fnuz,
    float4_e2m1fn,
    int4,
    uint4,
    int2,
    uint2,
)
# Types no tensor holds: known by name, enum and (quantized) record dtype only.
_NO_ARRAYS = (string, qint8, quint8, qint16, quint16, qint32, resource, variant)
_BY_NAME = {d.name: d for d in _ALL + _NARROW + _NO_ARRAYS}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_NP = {d._np: d for d in _ALL + _NARROW}
_BY_NP[np.dtype(object)] = string
_BY_ANY = dict(_BY_NAME)
_BY_ANY.update({_ENUMS[name]: d for name, d in _BY_NAME.items() if name in _ENUMS})
_BY_ANY.update({float: float32, bool: bool_, object: string})
_BY_ANY.update({d._np.type: d for d in _ALL + _NARROW})
_BY_ANY.update({np.object_: string, np.bytes_: string, np.str_: string})
_BY_ANY.update({d._np: d for d in QUANTIZED_DTYPES})


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
