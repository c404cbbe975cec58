"""Input conversion shared by op definitions: TF's dtype rules, checked before JAX runs."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..tensor import Tensor, convert_to_tensor

_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
_PY_SCALARS = (int, float, bool, complex)


def tf_type_name(np_dtype) -> str:
    name = dtypes.from_array_dtype(np.dtype(np_dtype)).name
    return _TF_TYPE_NAMES.get(name, name)


def to_tensor(x) -> Tensor:
    """The op input path: Tensors pass untouched, Variables are read, the rest converted."""
    if type(x) is Tensor:
        return x
    if getattr(x, "_is_variable", False):
        return x._dense_read()
    return convert_to_tensor(x)


def dtype_mismatch(op_name: str, index: int, expected, got) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        None,
        f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
        f"{tf_type_name(expected)} tensor but is a {tf_type_name(got)} tensor [Op:{op_name}]",
    )


def coerce_scalar(v, like: Tensor):
    """A Python scalar operand: kept raw (a weakly typed JAX argument) if TF would accept it."""
    kind = like._value.dtype.kind
    if isinstance(v, float) and kind in "iub":
        raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype {like.dtype.name}")
    if isinstance(v, complex) and kind != "c":
        raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype {like.dtype.name}")
    return v


def coerce_to(v, like: Tensor):
    if isinstance(v, _PY_SCALARS) and not isinstance(v, np.generic):
        return coerce_scalar(v, like)
    if getattr(v, "_is_variable", False):
        return v._dense_read()
    return convert_to_tensor(v, dtype=like.dtype)


def binary_operands(x, y, op_name: str):
    """TF's rule for binary ops: the non-Tensor side takes the Tensor side's dtype; two
    Tensors of different dtypes are an InvalidArgumentError (never a silent promotion)."""
    if type(x) is not Tensor and getattr(x, "_is_variable", False):
        x = x._dense_read()
    if type(y) is not Tensor and getattr(y, "_is_variable", False):
        y = y._dense_read()
    if type(x) is Tensor:
        if type(y) is Tensor:
            if x._value.dtype != y._value.dtype:
                raise dtype_mismatch(op_name, 1, x._value.dtype, y._value.dtype)
            return x, y
        return x, coerce_to(y, x)
    if type(y) is Tensor:
        return coerce_to(x, y), y
    x = convert_to_tensor(x)
    return x, coerce_to(y, x)


def check_broadcast(x, y, op_name: str) -> None:
    xs = x._value.shape if type(x) is Tensor else ()
    ys = y._value.shape if type(y) is Tensor else ()
    if xs == ys or not xs or not ys:
        return
    try:
        np.broadcast_shapes(xs, ys)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: [{','.join(map(str, xs))}] vs. [{','.join(map(str, ys))}] "
            f"[Op:{op_name}]",
        ) from None


def normalize_axis(axis, ndim: int, op_name: str):
    """``axis`` (None, int, list, Tensor) as a hashable tuple of non-negative ints, or None."""
    if axis is None:
        return None
    if isinstance(axis, Tensor) or getattr(axis, "_is_variable", False):
        axis = np.asarray(axis).tolist()
    if isinstance(axis, (list, tuple)):
        axes = [int(a) for a in axis]
    else:
        axes = [int(axis)]
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid reduction dimension ({a} for input with {ndim} dimension(s) "
                f"[Op:{op_name}]",
            )
        out.append(a % ndim if ndim else 0)
    return tuple(out)


def require(x: Tensor, kinds: str, op_name: str) -> None:
    """TF's kernel type constraint: e.g. ``exp`` has no int32 kernel (kinds 'fc')."""
    dt = x._value.dtype
    kind = "f" if dt == dtypes.bfloat16._np else dt.kind
    if kind not in kinds:
        allowed = {
            "f": "bfloat16, half, float, double",
            "c": "complex64, complex128",
            "i": "int8, int16, int32, int64",
            "u": "uint8, uint16, uint32, uint64",
            "b": "bool",
        }
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed values: "
            f"{', '.join(allowed[k] for k in kinds)} [Op:{op_name}]",
        )
