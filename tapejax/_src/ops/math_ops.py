"""Elementwise math, reductions, ``matmul`` and ``cast`` with TF's semantics; Tensor operators.

Every public function converts its inputs with TF's dtype rules, then applies one
``Op``. Derivatives are JAX's; an op whose TF gradient is "none" (Round, ArgMax, ...)
is declared ``differentiable=False`` so tapes return ``None`` through it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, canonical_np_dtype, convert_to_tensor, wrap
from ._helpers import (
    binary_operands,
    check_broadcast,
    normalize_axis,
    require,
    to_tensor,
)

FLOAT = "fc"
NUMERIC = "fciu"

# -- unary ----------------------------------------------------------------------------------


def _unary(tf_name: str, fn, kinds: str = NUMERIC, differentiable: bool = True):
    op = Op(tf_name, fn, differentiable=differentiable)

    def public(x, name=None):
        x = to_tensor(x)
        require(x, kinds, tf_name)
        return apply(op, (x,))

    public.__name__ = tf_name.lower()
    public.__doc__ = f"Elementwise ``{tf_name}`` (``tf.math``), differentiable through tapes."
    public.op = op
    return public


exp = _unary("Exp", jnp.exp, FLOAT)
log = _unary("Log", jnp.log, FLOAT)
log1p = _unary("Log1p", jnp.log1p, FLOAT)
expm1 = _unary("Expm1", jnp.expm1, FLOAT)
sin = _unary("Sin", jnp.sin, FLOAT)
cos = _unary("Cos", jnp.cos, FLOAT)
tan = _unary("Tan", jnp.tan, FLOAT)
tanh = _unary("Tanh", jnp.tanh, FLOAT)
sqrt = _unary("Sqrt", jnp.sqrt, FLOAT)
rsqrt = _unary("Rsqrt", jax.lax.rsqrt, FLOAT)
square = _unary("Square", jnp.square, NUMERIC)
negative = _unary("Neg", jnp.negative, NUMERIC)
reciprocal = _unary("Reciprocal", jnp.reciprocal, FLOAT)
sigmoid = _unary("Sigmoid", jax.nn.sigmoid, FLOAT)
sign = _unary("Sign", jnp.sign, NUMERIC)
# TF registers no gradient for these: the tape gives None through them.
round = _unary("Round", jnp.round, NUMERIC, differentiable=False)  # noqa: A001 - TF's name
floor = _unary("Floor", jnp.floor, "f", differentiable=False)
ceil = _unary("Ceil", jnp.ceil, "f", differentiable=False)
logical_not = _unary("LogicalNot", jnp.logical_not, "b", differentiable=False)
is_nan = _unary("IsNan", jnp.isnan, "f", differentiable=False)
is_finite = _unary("IsFinite", jnp.isfinite, "f", differentiable=False)
is_inf = _unary("IsInf", jnp.isinf, "f", differentiable=False)

_abs_op = Op("Abs", jnp.abs)
_complex_abs_op = Op("ComplexAbs", jnp.abs)


def abs(x, name=None):  # noqa: A001 - TF's name
    """Absolute value (``tf.math.abs``); of a complex tensor, its magnitude (a real tensor)."""
    x = to_tensor(x)
    require(x, NUMERIC, "Abs")
    return apply(_complex_abs_op if x._value.dtype.kind == "c" else _abs_op, (x,))


real = _unary("Real", jnp.real, NUMERIC)
imag = _unary("Imag", jnp.imag, NUMERIC)
conj = _unary("Conj", jnp.conj, NUMERIC)

# -- binary ---------------------------------------------------------------------------------


def _binary(tf_name: str, fn, kinds: str = NUMERIC, differentiable: bool = True):
    op = Op(tf_name, fn, differentiable=differentiable)

    def public(x, y, name=None):
        x, y = binary_operands(x, y, tf_name)
        check_broadcast(x, y, tf_name)
        require(x if type(x) is Tensor else y, kinds, tf_name)
        return apply(op, (x, y))

    public.__name__ = tf_name.lower()
    public.__doc__ = f"Elementwise ``{tf_name}`` with broadcasting (``tf.math``)."
    public.op = op
    return public


add = _binary("AddV2", jnp.add)
subtract = _binary("Sub", jnp.subtract)
multiply = _binary("Mul", jnp.multiply)
_realdiv = _binary("RealDiv", jnp.true_divide, FLOAT)
floordiv = _binary("FloorDiv", jnp.floor_divide, NUMERIC)
floormod = _binary("FloorMod", jnp.remainder, NUMERIC)
maximum = _binary("Maximum", jnp.maximum)
minimum = _binary("Minimum", jnp.minimum)
squared_difference = _binary("SquaredDifference", lambda a, b: jnp.square(a - b))
atan2 = _binary("Atan2", jnp.arctan2, "f")
less = _binary("Less", jnp.less, NUMERIC, differentiable=False)
less_equal = _binary("LessEqual", jnp.less_equal, NUMERIC, differentiable=False)
greater = _binary("Greater", jnp.greater, NUMERIC, differentiable=False)
greater_equal = _binary("GreaterEqual", jnp.greater_equal, NUMERIC, differentiable=False)
_equal = _binary("Equal", jnp.equal, NUMERIC + "b", differentiable=False)
_not_equal = _binary("NotEqual", jnp.not_equal, NUMERIC + "b", differentiable=False)
logical_and = _binary("LogicalAnd", jnp.logical_and, "b", differentiable=False)
logical_or = _binary("LogicalOr", jnp.logical_or, "b", differentiable=False)
logical_xor = _binary("LogicalXor", jnp.logical_xor, "b", differentiable=False)


def _pow_fn(x, y):
    return jnp.power(x, y)


pow = _binary("Pow", _pow_fn)  # noqa: A001 - TF's name


def equal(x, y, name=None):
    """Elementwise ``x == y`` (``tf.math.equal``)."""
    return _equal(x, y)


def not_equal(x, y, name=None):
    """Elementwise ``x != y`` (``tf.math.not_equal``)."""
    return _not_equal(x, y)


def _int_to_float(x: Tensor) -> Tensor:
    # TF's truediv casts int8/16 to float32 and int32/64 to float64 before dividing.
    size = x._value.dtype.itemsize
    return cast(x, dtypes.float32 if size <= 2 else dtypes.float64)


def truediv(x, y, name=None):
    """``x / y`` (``tf.math.truediv``): integer inputs are cast to floating point first."""
    x, y = binary_operands(x, y, "RealDiv")
    t = x if type(x) is Tensor else y
    if t._value.dtype.kind in "iu":
        x = _int_to_float(x if type(x) is Tensor else convert_to_tensor(x, dtype=t.dtype))
        y = _int_to_float(y if type(y) is Tensor else convert_to_tensor(y, dtype=t.dtype))
    return _realdiv(x, y)


def divide(x, y, name=None):
    """``x / y`` (``tf.math.divide``)."""
    if type(x) is not Tensor and not getattr(x, "_is_variable", False):
        x = convert_to_tensor(x)
    return truediv(x, y)


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype (``tf.math.add_n``)."""
    inputs = [to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape")
    out = inputs[0]
    for x in inputs[1:]:
        out = add(out, x)
    return out


# -- cast -----------------------------------------------------------------------------------


def _cast_fn(x, *, dtype):
    return x.real.astype(dtype) if (x.dtype.kind == "c" and np.dtype(dtype).kind != "c") else x.astype(dtype)


_cast_op = Op("Cast", _cast_fn)


def cast(x, dtype, name=None):
    """Casts to ``dtype`` (``tf.cast``); float->int truncates, complex->real keeps the real part.

    A cast to or from an integer type is not differentiable (TF returns ``None``); this
    follows from the dtypes, not from the op.
    """
    x = to_tensor(x)
    target = canonical_np_dtype(dtypes.as_dtype(dtype)._np)
    if x._value.dtype == target:
        return x
    return apply(_cast_op, (x,), (("dtype", target),))


def saturate_cast(value, dtype, name=None):
    """Casts, clamping to the range of ``dtype`` first (``tf.dtypes.saturate_cast``)."""
    x = to_tensor(value)
    dt = dtypes.as_dtype(dtype)
    if dt.is_integer or dt.is_floating:
        x = clip_by_value(x, max(x.dtype.min, dt.min), min(x.dtype.max, dt.max))
    return cast(x, dt)


_clip_op = Op("ClipByValue", lambda x, lo, hi: jnp.minimum(jnp.maximum(x, lo), hi))


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips elementwise to ``[clip_value_min, clip_value_max]`` (``tf.clip_by_value``)."""
    t = to_tensor(t)
    lo = clip_value_min if isinstance(clip_value_min, (int, float)) else to_tensor(clip_value_min)
    hi = clip_value_max if isinstance(clip_value_max, (int, float)) else to_tensor(clip_value_max)
    return apply(_clip_op, (t, lo, hi))


# -- matmul ---------------------------------------------------------------------------------


def _matmul_fn(a, b, *, ta, tb, ca, cb):
    if ta:
        a = jnp.swapaxes(a, -1, -2)
    if ca:
        a = jnp.conj(a)
    if tb:
        b = jnp.swapaxes(b, -1, -2)
    if cb:
        b = jnp.conj(b)
    return jnp.matmul(a, b)


_matmul_op = Op("MatMul", _matmul_fn)
_MATMUL_STATIC = {}


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product of the inner two dimensions, batched over the rest (``tf.linalg.matmul``).

    Raises:
      InvalidArgumentError: rank < 2, different dtypes, or incompatible inner dimensions.
    """
    a, b = binary_operands(a, b, "MatMul")
    if type(b) is not Tensor:
        b = convert_to_tensor(b, dtype=a.dtype)
    sa, sb = a._value.shape, b._value.shape
    if len(sa) < 2:
        raise InvalidArgumentError(None, None, "In[0] ndims must be >= 2 [Op:MatMul]")
    if len(sb) < 2:
        raise InvalidArgumentError(None, None, "In[1] ndims must be >= 2 [Op:MatMul]")
    ta = bool(transpose_a or adjoint_a)
    tb = bool(transpose_b or adjoint_b)
    k_a = sa[-2] if ta else sa[-1]
    k_b = sb[-1] if tb else sb[-2]
    if k_a != k_b:
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: [{','.join(map(str, sa))}], "
            f"In[1]: [{','.join(map(str, sb))}] [Op:MatMul]",
        )
    key = (ta, tb, bool(adjoint_a), bool(adjoint_b))
    static = _MATMUL_STATIC.get(key)
    if static is None:
        static = _MATMUL_STATIC[key] = (("ca", key[2]), ("cb", key[3]), ("ta", ta), ("tb", tb))
    return apply(_matmul_op, (a, b), static)


# -- reductions -----------------------------------------------------------------------------


def _int_mean(x, axis=None, keepdims=False):
    total = jnp.sum(x, axis=axis, keepdims=keepdims)
    count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    return jax.lax.div(total, jnp.asarray(max(count, 1), total.dtype))


def _mean_fn(x, *, axis, keepdims):
    if x.dtype.kind in "iu":
        return _int_mean(x, axis, keepdims)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _reduction(tf_name: str, fn, kinds: str = NUMERIC, differentiable: bool = True):
    op = Op(tf_name, fn, differentiable=differentiable)

    def public(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        require(x, kinds, tf_name)
        ax = normalize_axis(axis, x._value.ndim, tf_name)
        return apply(op, (x,), (("axis", ax), ("keepdims", bool(keepdims))))

    public.__name__ = "reduce_" + tf_name.lower()
    public.__doc__ = f"Reduces with ``{tf_name}`` over ``axis`` (all axes if None), as ``tf.math``."
    public.op = op
    return public


reduce_sum = _reduction("Sum", lambda x, *, axis, keepdims: jnp.sum(x, axis=axis, keepdims=keepdims))
reduce_mean = _reduction("Mean", _mean_fn)
reduce_max = _reduction("Max", lambda x, *, axis, keepdims: jnp.max(x, axis=axis, keepdims=keepdims), "fiu")
reduce_min = _reduction("Min", lambda x, *, axis, keepdims: jnp.min(x, axis=axis, keepdims=keepdims), "fiu")
reduce_prod = _reduction("Prod", lambda x, *, axis, keepdims: jnp.prod(x, axis=axis, keepdims=keepdims))
reduce_any = _reduction("Any", lambda x, *, axis, keepdims: jnp.any(x, axis=axis, keepdims=keepdims), "b", False)
reduce_all = _reduction("All", lambda x, *, axis, keepdims: jnp.all(x, axis=axis, keepdims=keepdims), "b", False)
reduce_logsumexp = _reduction(
    "ReduceLogSumExp",
    lambda x, *, axis, keepdims: jax.scipy.special.logsumexp(x, axis=axis, keepdims=keepdims),
    "f",
)


def _arg_reduction(tf_name: str, fn):
    op = Op(tf_name, fn, differentiable=False)

    def public(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
        x = to_tensor(input)
        ax = 0 if axis is None else normalize_axis(axis, x._value.ndim, tf_name)[0]
        out = canonical_np_dtype(dtypes.as_dtype(output_type)._np) if output_type != dtypes.int64 else (
            np.dtype(np.int64) if jax.config.jax_enable_x64 else np.dtype(np.int32)
        )
        return apply(op, (x,), (("axis", ax), ("dtype", out)))

    public.__name__ = tf_name.lower()
    public.__doc__ = (
        f"Index of the {tf_name[3:].lower()} along ``axis`` (``tf.math.{tf_name.lower()}``). "
        "int64 as in TF when JAX's x64 mode is on, else int32."
    )
    return public


argmax = _arg_reduction("ArgMax", lambda x, *, axis, dtype: jnp.argmax(x, axis=axis).astype(dtype))
argmin = _arg_reduction("ArgMin", lambda x, *, axis, dtype: jnp.argmin(x, axis=axis).astype(dtype))


# -- Tensor and Variable operators ----------------------------------------------------------


def _r(fn):
    return lambda self, other: fn(other, self)


def _eq(self, other):
    if other is None:
        return False
    try:
        return _equal(self, other)
    except (InvalidArgumentError, TypeError, ValueError):
        return False


def _ne(self, other):
    if other is None:
        return True
    try:
        return _not_equal(self, other)
    except (InvalidArgumentError, TypeError, ValueError):
        return True


def _invert(x):
    x = to_tensor(x)
    if x._value.dtype.kind == "b":
        return logical_not(x)
    return wrap(jnp.invert(x._value))


def _and(x, y):
    return logical_and(x, y)


def _or(x, y):
    return logical_or(x, y)


def _xor(x, y):
    return logical_xor(x, y)


OPERATORS = {
    "__add__": add,
    "__radd__": _r(add),
    "__sub__": subtract,
    "__rsub__": _r(subtract),
    "__mul__": multiply,
    "__rmul__": _r(multiply),
    "__truediv__": truediv,
    "__rtruediv__": _r(truediv),
    "__floordiv__": floordiv,
    "__rfloordiv__": _r(floordiv),
    "__mod__": floormod,
    "__rmod__": _r(floormod),
    "__pow__": pow,
    "__rpow__": _r(pow),
    "__matmul__": matmul,
    "__rmatmul__": _r(matmul),
    "__neg__": negative,
    "__abs__": abs,
    "__invert__": _invert,
    "__and__": _and,
    "__rand__": _r(_and),
    "__or__": _or,
    "__ror__": _r(_or),
    "__xor__": _xor,
    "__rxor__": _r(_xor),
    "__lt__": less,
    "__le__": less_equal,
    "__gt__": greater,
    "__ge__": greater_equal,
    "__eq__": _eq,
    "__ne__": _ne,
}


def install_operators(cls) -> None:
    for name, fn in OPERATORS.items():
        setattr(cls, name, fn)
