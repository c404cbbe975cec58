"""Input conversion shared by op definitions: TF's dtype rules, checked before JAX runs."""

from __future__ import annotations

import jax
import numpy as np

from .. import dtypes
from ..conversion import _python_array, convert_to_tensor
from ..errors import InvalidArgumentError, NotFoundError
from ..tensor import Tensor

_PY_SCALARS = (int, float, bool, complex)
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1

# TF's op-def type constraints, verbatim and in TF's order: TF's error lists them so. An
# op accepts the dtypes its ``kinds`` allow (what the JAX function computes) that are
# also in TF's list; ops missing here are constrained by ``kinds`` alone.
_F = "bfloat16, half, float, double"
_C = "complex64, complex128"
_FC = f"{_F}, {_C}"
_REDUCE = (
    "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64"
)
_ORDERED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
_MINMAX = f"{_F}, int8, uint8, int16, uint16, int32, uint32, int64, uint64"
_BITWISE = "int8, int16, int32, int64, uint8, uint16, uint32, uint64"
_NN = "half, bfloat16, float, double"
TF_ALLOWED = {
    **dict.fromkeys(
        ["Exp", "Log", "Log1p", "Expm1", "Sin", "Cos", "Tan", "Tanh", "Sqrt", "Rsqrt", "Sigmoid"],
        _FC,
    ),
    **dict.fromkeys(["Floor", "Ceil", "IsNan", "IsFinite", "IsInf", "Atan2"], _F),
    "Square": f"{_F}, int8, int16, int32, int64, uint8, uint16, uint32, uint64, {_C}",
    **dict.fromkeys(
        ["Neg", "Reciprocal", "Sign", "Round"], f"{_F}, int8, int16, int32, int64, {_C}"
    ),
    "Abs": f"{_F}, int8, int16, int32, int64",
    "ComplexAbs": _C,
    "AddV2": f"{_F}, uint8, uint16, uint32, uint64, int8, int16, int32, int64, {_C}",
    "Sub": f"{_F}, uint8, int8, uint16, int16, int32, int64, {_C}, uint32, uint64",
    **dict.fromkeys(
        ["Mul", "RealDiv", "FloorDiv"],
        f"{_F}, uint8, int8, uint16, int16, int32, uint32, uint64, int64, {_C}",
    ),
    "FloorMod": f"int8, int16, int32, int64, uint8, uint16, uint32, uint64, {_F}",
    **dict.fromkeys(["Maximum", "Minimum"], _MINMAX),
    "SquaredDifference": f"{_F}, int32, int64, {_C}",
    **dict.fromkeys(["Less", "LessEqual", "Greater", "GreaterEqual"], _ORDERED),
    "Pow": f"bfloat16, float, half, double, int8, int16, int32, int64, {_C}",
    **dict.fromkeys(["AddN", "Sum", "Mean", "Prod", "BiasAdd"], _REDUCE),
    **dict.fromkeys(["Max", "Min"], f"{_ORDERED}, qint8, quint8, qint32, qint16, quint16"),
    **dict.fromkeys(
        ["ArgMax", "ArgMin"], f"{_ORDERED}, qint8, quint8, qint32, qint16, quint16, bool"
    ),
    "MatMul": f"{_F}, int32, int64, uint8, uint16, uint32, uint64, {_C}",
    "BatchMatMulV2": f"{_F}, int16, int32, int64, uint8, uint16, uint32, uint64, {_C}",
    "BatchMatMulV3": f"{_F}, uint8, int8, int16, int32, int64, {_C}",
    "Relu": f"{_ORDERED}, qint8",
    "Relu6": _ORDERED,
    **dict.fromkeys(
        [
            "Elu",
            "Selu",
            "Softplus",
            "Softsign",
            "Softmax",
            "LogSoftmax",
            "L2Loss",
            "SoftmaxCrossEntropyWithLogits",
            "SparseSoftmaxCrossEntropyWithLogits",
        ],
        _NN,
    ),
    **dict.fromkeys(
        ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"], _BITWISE
    ),
    "ReduceLogSumExp": _F,
}
# Dtypes TF's op definitions allow but for which TF's CPU build registers no kernel (not even
# XLA's CPU one): TF raises NotFoundError for them, before it looks at any shape. Ops that
# compute through another kernel (erfcinv through Ndtri) are refused under that kernel's name.
_HALF = "half"
_BF16 = "bfloat16"
NO_CPU_KERNEL = {
    **dict.fromkeys(
        [
            "BesselI0",
            "BesselI0e",
            "BesselI1",
            "BesselI1e",
            "BesselJ0",
            "BesselJ1",
            "BesselY0",
            "BesselY1",
            "BesselK0",
            "BesselK0e",
            "BesselK1",
            "BesselK1e",
            "Digamma",
            "Lgamma",
            "Diag",
            "DiagPart",
            "LRN",
        ],
        _BF16,
    ),
    **dict.fromkeys(
        [
            "Dawsn",
            "Expint",
            "FresnelCos",
            "FresnelSin",
            "Spence",
            "Erfinv",
            "Ndtri",
            "Igamma",
            "Igammac",
            "Rint",
            "TruncateMod",
            "MatrixTriangularSolve",
        ],
        f"{_BF16}, {_HALF}",
    ),
    **dict.fromkeys(
        [
            "Cholesky",
            "MatrixSquareRoot",
            "MatrixDeterminant",
            "LogMatrixDeterminant",
            "SelfAdjointEigV2",
            "MatrixSolve",
            "MatrixSolveLs",
            "BandedTriangularSolve",
            "Lu",
            "Svd",
        ],
        _HALF,
    ),
    **dict.fromkeys(["MatMul", "BatchMatMulV2"], "uint8, uint16, uint32, uint64"),
    **dict.fromkeys(["LowerBound", "UpperBound"], "bool, complex64, complex128"),
    "AvgPool3D": "half, double",
    "MaxPool3D": "half",
    "FloorDiv": "complex64, complex128",
    "Reciprocal": "int8, int16, int32, int64",
    "Round": "complex64, complex128",
    "TruncateDiv": "complex64, complex128",
    "Range": "int8, int16, uint16, uint32, uint64",
}
# The type attribute NO_CPU_KERNEL's ops print in the node (``T`` unless named here).
TYPE_ATTR = {"Range": "Tidx"}


def lacks_cpu_kernel(op_name: str, dt) -> bool:
    """Whether TF's CPU build has no ``op_name`` kernel for ``dt`` (``NO_CPU_KERNEL``)."""
    missing = NO_CPU_KERNEL.get(op_name)
    return missing is not None and tf_type_name(dt) in missing.split(", ")


_KIND_NAMES = {
    "f": "bfloat16, half, float, double",
    "c": "complex64, complex128",
    "i": "int8, int16, int32, int64",
    "u": "uint8, uint16, uint32, uint64",
    "b": "bool",
}
_accepted: dict = {}


def tf_type_name(np_dtype) -> str:
    return dtypes.tf_type_name(np_dtype)


def dtype_kind(dt) -> str:
    """NumPy's kind of ``dt``, with bfloat16 (NumPy's kind "V") a float: "f"."""
    return "f" if dt == dtypes.bfloat16._np else dt.kind


def accepted_dtypes(kinds: str, op_name: str) -> frozenset:
    """The NumPy dtypes an op accepts: its ``kinds`` that TF's op def also allows and that
    TF's CPU build has a kernel for."""
    key = (kinds, op_name)
    found = _accepted.get(key)
    if found is None:
        tf_names = TF_ALLOWED.get(op_name)
        found = frozenset(
            d._np
            for d in dtypes._ALL
            if dtype_kind(d._np) in kinds
            and (tf_names is None or tf_type_name(d._np) in tf_names.split(", "))
            and not lacks_cpu_kernel(op_name, d._np)
        )
        _accepted[key] = found
    return found


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
    kind = like._v.dtype.kind
    if (
        (isinstance(v, float) and kind in "iub")
        or (isinstance(v, complex) and kind != "c")
        or (type(v) is int and kind == "b")
    ):
        raise TypeError(
            f"Cannot convert {v!r} to EagerTensor of dtype {tf_type_name(like._v.dtype)}"
        )
    if type(v) is int and not _INT32_MIN <= v <= _INT32_MAX:
        # JAX cannot take it as a weak int32; TF converts it to the tensor's dtype (wrapping).
        return convert_to_tensor(v, dtype=like.dtype)
    return v


def hinted_operands(x, y, op_name: str):
    """``tf.add``'s and ``tf.truediv``'s rule: ``x`` is converted on its own, ``y`` with
    ``x``'s dtype as a hint only; the dtypes must then match (InvalidArgumentError)."""
    if type(x) is not Tensor:
        x = to_tensor(x)
    if type(y) is not Tensor and getattr(y, "_is_variable", False):
        y = y._dense_read()
    if type(y) is Tensor:
        if x._v.dtype != y._v.dtype:
            raise dtype_mismatch(op_name, 1, x._v.dtype, y._v.dtype)
        return x, y
    try:
        return x, coerce_to(y, x)
    except (TypeError, ValueError):
        # The hint failed: TF converts ``y`` on its own (1.5 -> float32), then the op
        # rejects the mismatch.
        raise dtype_mismatch(op_name, 1, x._v.dtype, operand_dtype(y)) from None


def operand_dtype(v) -> np.dtype:
    """The dtype TF gives ``v`` on its own (TF's, even where JAX's x64 mode is off)."""
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        return v._v.dtype
    if isinstance(v, (np.ndarray, np.generic)):
        return v.dtype
    return _python_array(v).dtype


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
            if x._v.dtype != y._v.dtype:
                raise dtype_mismatch(op_name, 1, x._v.dtype, y._v.dtype)
            return x, y
        return x, coerce_to(y, x)
    if type(y) is Tensor:
        return coerce_to(x, y), y
    x = convert_to_tensor(x)
    return x, coerce_to(y, x)


def check_broadcast(x, y, op_name: str) -> None:
    xs = x._v.shape if type(x) is Tensor else ()
    ys = y._v.shape if type(y) is Tensor else ()
    if xs == ys or not xs or not ys:
        return
    # np.broadcast_shapes costs ~9 µs; this per-op check must cost well under one.
    for a, b in zip(reversed(xs), reversed(ys)):
        if a != b and a != 1 and b != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes: [{','.join(map(str, xs))}] vs. "
                f"[{','.join(map(str, ys))}] [Op:{op_name}]",
            )


def axis_ints(axis) -> list:
    """``axis`` (int, list, tuple, int Tensor) as Python ints; a float is TF's TypeError."""
    if isinstance(axis, Tensor) or getattr(axis, "_is_variable", False):
        if isinstance(to_tensor(axis)._value, jax.core.Tracer):
            raise NotImplementedError(
                "tapejax: an axis given as a traced tensor (inside tapejax.function or a JAX "
                "transform) has no value to read; XLA programs have static shapes, so axes "
                "must be Python ints there."
            )
        arr = np.asarray(axis)
        if arr.dtype.kind not in "iu":
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'Tidx' of {tf_type_name(arr.dtype)} is not in the list of "
                "allowed values: int32, int64",
            )
        return arr.reshape(-1).tolist()
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    for a in items:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    return [int(a) for a in items]


def normalize_axis(axis, ndim: int, op_name: str):
    """``axis`` (None, int, list, Tensor) as a hashable tuple of non-negative ints, or None."""
    if axis is None:
        return None
    out = []
    for a in axis_ints(axis):
        if not -ndim <= a < ndim:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid reduction dimension ({a} for input with {ndim} dimension(s) "
                f"[Op:{op_name}]",
            )
        a %= ndim
        if a in out:
            raise InvalidArgumentError(
                None,
                None,
                "Invalid reduction arguments: Axes contains duplicate dimension: "
                f"{a} [Op:{op_name}]",
            )
        out.append(a)
    return tuple(out)


def _tf_attr(value) -> str:
    """A node attribute as TF's error texts print it: ``true``, ``0.0001``, ``DT_INT32``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{float(np.float32(value)):g}"
    return str(value)


def node_attrs(**attrs) -> str:
    """TF's text for a node's attributes after ``T``, in TF's (alphabetical) order."""
    return "".join(f", {k}={_tf_attr(v)}" for k, v in sorted(attrs.items()))


def no_kernel(op_name: str, dt, attrs: str = "") -> NotFoundError:
    """TF's error for a dtype its op def allows but its CPU build has no kernel for.
    ``attrs`` is TF's text for the node's other attributes (``node_attrs``)."""
    return NotFoundError(
        None,
        None,
        f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
        f"[{TYPE_ATTR.get(op_name, 'T')}=DT_{tf_type_name(dt).upper()}{attrs}] [Op:{op_name}]",
    )


def require(x: Tensor, kinds: str, op_name: str, attrs: str = "") -> None:
    """TF's kernel type constraint: e.g. ``exp`` has no int32 kernel (kinds 'fc'), and
    ``cholesky`` no half one on CPU (``NO_CPU_KERNEL``; ``attrs`` as in ``no_kernel``)."""
    dt = x._v.dtype
    if dt in accepted_dtypes(kinds, op_name):
        return
    if lacks_cpu_kernel(op_name, dt):
        raise no_kernel(op_name, dt, attrs)
    if kinds == "b":
        # Bool-only ops have no type attribute in TF: the error is a plain dtype mismatch.
        raise dtype_mismatch(op_name, 0, np.dtype(np.bool_), dt)
    allowed = TF_ALLOWED.get(op_name) or ", ".join(_KIND_NAMES[k] for k in kinds)
    raise InvalidArgumentError(
        None,
        None,
        f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed values: "
        f"{allowed} [Op:{op_name}]",
    )
