"""``tf.dtypes``: the dtype objects, ``as_dtype`` and the casts.

64-bit types (``float64``, ``int64``, ``complex128``, ``uint64``) are held as such when
JAX's ``jax_enable_x64`` is on; without it a tensor asked for one holds its 32-bit type and
a warning says so (``docs/compat.md``, "Values and dtypes"). ``string``, ``resource``,
``variant`` and the quantized types (``QUANTIZED_DTYPES``) are DType objects with TF's
properties, but no tapejax tensor holds one.
"""

from tapejax._src.dtypes import (
    QUANTIZED_DTYPES,
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tapejax._src.dtypes import (
    bool_ as bool,  # noqa: A004 - TF's name
)
from tapejax._src.ops.math_ops import (
    cast,
    complex,  # noqa: A004 - TF's name
    saturate_cast,
)
from tapejax.dtypes import experimental

__all__ = [
    "DType",
    "QUANTIZED_DTYPES",
    "as_dtype",
    "bfloat16",
    "bool",
    "cast",
    "complex",
    "complex128",
    "complex64",
    "double",
    "experimental",
    "float16",
    "float32",
    "float64",
    "half",
    "int16",
    "int32",
    "int64",
    "int8",
    "qint16",
    "qint32",
    "qint8",
    "quint16",
    "quint8",
    "resource",
    "saturate_cast",
    "string",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "variant",
]
