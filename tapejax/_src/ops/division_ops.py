"""Division's special cases, as TF defines them: the NaN-safe ops (``divide_no_nan``,
``multiply_no_nan``, ``reciprocal_no_nan``, ``xdivy``, ``xlogy``, ``xlog1py``: 0, not NaN
or inf, where a divisor or factor is 0) and C-style truncating division (``truncatediv``,
``truncatemod``, with TF's own error for an integer division by zero).

Made with ``math_ops``' elementwise factories; plain ``/``, ``//`` and ``%`` are there. Where
TF's registered gradient is not JAX's derivative (the NaN-safe ops at 0), a
``jax.custom_jvp`` here carries TF's formula.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import apply
from ..errors import InternalError, InvalidArgumentError
from ..registry import register_reverse_rule
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, hinted_operands, operand_dtype, require, to_tensor
from .math_ops import _FC_NAMES, FLOAT, NUMERIC, _binary, _concrete, cast

TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["Xlogy", "Xdivy", "Xlog1py"], "half, bfloat16, float, double, complex64, complex128"
        ),
        "DivNoNan": "half, float, bfloat16, double, complex64, complex128",
        "MulNoNan": _FC_NAMES,
        "TruncateDiv": (
            "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
            "int64, complex64, complex128"
        ),
        "TruncateMod": "int32, int64, bfloat16, half, float, double",
    }
)


# -- NaN-safe binary ops, with TF's gradients -----------------------------------------------
# Each is a ``jax.custom_jvp`` whose tangent is TF's registered gradient formula (linear in
# the tangents, so reverse mode transposes it to exactly TF's VJP). JAX's own derivatives
# differ where x == 0 or y == 0 (NaN or inf where TF gives 0).


def _tf(partial):
    """A partial derivative as TF's gradient uses it for a complex input: some TF rules
    (Xlogy, Xdivy, Xlog1py, MulNoNan) multiply by it without conjugating, unlike TF's usual
    convention that lowering implements; conjugating it here cancels lowering's conjugation."""
    return jnp.conj(partial)


def _nonzero(x):
    return (x != 0).astype(x.dtype)


def _where_zero(cond, value):
    return jnp.where(cond, jnp.zeros_like(value), value)


def _safe(y):
    """``y`` with its zeros replaced by ones: a divisor whose derivative is never NaN."""
    return jnp.where(y == 0, jnp.ones_like(y), y)


@jax.custom_jvp
def _div_no_nan(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    return _where_zero(y == 0, x / _safe(y))


@_div_no_nan.defjvp
def _div_no_nan_jvp(primals, tangents):
    # TF's _DivNoNanGrad: gx = div_no_nan(g, y); gy = g * div_no_nan(div_no_nan(-x, y), y).
    x, y = primals
    tx, ty = tangents
    out = _div_no_nan(x, y)
    return out, _div_no_nan(tx, y) + ty * _div_no_nan(_div_no_nan(-x, y), y)


@jax.custom_jvp
def _mul_no_nan(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    return _where_zero(y == 0, x * y)


@_mul_no_nan.defjvp
def _mul_no_nan_jvp(primals, tangents):
    # TF's _MulNoNanGrad: gx = mul_no_nan(g, y); gy = mul_no_nan(x, g) (x * g where x is
    # finite; JAX's derivative of the select would give 0 where y == 0).
    x, y = primals
    tx, ty = tangents
    return _mul_no_nan(x, y), _mul_no_nan(tx, jnp.conj(y)) + jnp.conj(x) * ty


@jax.custom_vjp
def _mul_no_nan_reverse(x, y):
    return _mul_no_nan(x, y)


def _mul_no_nan_fwd(x, y):
    return _mul_no_nan(x, y), (x, y)


def _mul_no_nan_bwd(residuals, g):
    # TF's _MulNoNanGrad as the VJP itself, made of MulNoNan: the transpose of the tangent
    # above is a select whose derivative in y is 0 where y == 0, where TF's second
    # derivative (MulNoNan's gradient of mul_no_nan(g, y)) is g. Conjugated for lowering's
    # JAX-convention VJPs, as ``_tf`` does.
    x, y = residuals
    gx = _mul_no_nan(g, jnp.conj(y))
    gy = _mul_no_nan(jnp.conj(x), g)
    return _sum_to(gx, x), _sum_to(gy, y)


def _sum_to(g, like):
    """``g`` summed over the axes that broadcasting added to ``like``, in ``like``'s shape."""
    shape = jnp.shape(like)
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if axes:
        g = jnp.sum(g, axis=axes)
    return jnp.reshape(g, shape)


_mul_no_nan_reverse.defvjp(_mul_no_nan_fwd, _mul_no_nan_bwd)


@jax.custom_jvp
def _xlogy(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    return _where_zero(x == 0, x * jnp.log(y))


@jax.custom_jvp
def _xdivy(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    return _where_zero(x == 0, x / y)


@jax.custom_jvp
def _xlog1py(x, y):
    x, y = jnp.broadcast_arrays(x, y)
    return _where_zero(x == 0, x * jnp.log1p(y))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    # TF's _XLogyGrad: d/dx = xlogy(x != 0, y), d/dy = xdivy(x, y): 0 (not NaN) at x == 0.
    x, y = primals
    tx, ty = tangents
    return _xlogy(x, y), tx * _tf(_xlogy(_nonzero(x), y)) + ty * _tf(_xdivy(x, y))


@_xdivy.defjvp
def _xdivy_jvp(primals, tangents):
    # TF's _XDivyGrad: d/dx = xdivy(x != 0, y), d/dy = xdivy(-x, y**2).
    x, y = primals
    tx, ty = tangents
    return _xdivy(x, y), tx * _tf(_xdivy(_nonzero(x), y)) + ty * _tf(_xdivy(-x, y * y))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    # TF's _XLog1pyGrad: d/dx = xlog1py(x != 0, y), d/dy = xdivy(x, y + 1).
    x, y = primals
    tx, ty = tangents
    return _xlog1py(x, y), tx * _tf(_xlog1py(_nonzero(x), y)) + ty * _tf(_xdivy(x, y + 1))


xlogy = _binary("Xlogy", _xlogy, FLOAT)
xdivy = _binary("Xdivy", _xdivy, FLOAT)
xlog1py = _binary("Xlog1py", _xlog1py, FLOAT)
_div_no_nan_bin = _binary("DivNoNan", _div_no_nan, FLOAT)
_mul_no_nan_bin = _binary("MulNoNan", _mul_no_nan, FLOAT)
# Reverse mode only: lowering differentiates this VJP for second derivatives; forward mode
# then takes the reverse path too (TF's forward mode is its double VJP).
register_reverse_rule("MulNoNan", lambda static: _mul_no_nan_reverse)


def _same_dtype_error(x: Tensor, y_dtype) -> TypeError:
    return TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y_dtype!r}.")


_TRUEDIV_DTYPES = {
    "uint8": dtypes.float32,
    "int8": dtypes.float32,
    "uint16": dtypes.float32,
    "int16": dtypes.float32,
    "uint32": dtypes.float64,
    "int32": dtypes.float64,
    "uint64": dtypes.float64,
    "int64": dtypes.float64,
}


def divide_no_nan(x, y, name=None):
    """``x / y``, or 0 where ``y`` is 0 (``tf.math.divide_no_nan``).

    As TF: a Python ``x`` takes a Tensor ``y``'s dtype, ``y`` otherwise takes ``x``'s as a
    hint; integers are divided as floats (int32 as float64), and the gradient is 0 where
    ``y`` is 0.
    """
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype)
    x = to_tensor(x)
    try:
        y = hinted_operands(x, y, "DivNoNan")[1]
    except InvalidArgumentError:
        raise _same_dtype_error(x, dtypes.from_array_dtype(operand_dtype(y))) from None
    if type(y) is not Tensor:
        y = convert_to_tensor(y, dtype=x.dtype)
    if x.dtype.name in _TRUEDIV_DTYPES:
        target = _TRUEDIV_DTYPES[x.dtype.name]
        x, y = cast(x, target), cast(y, target)
    elif x.dtype.is_bool or x.dtype is dtypes.string:
        raise TypeError(
            f"Invalid dtype {x.dtype!r} in tf.math.divide_no_nan. Expected one of {{"
            + ", ".join(repr(dtypes.as_dtype(n)) for n in _TRUEDIV_TABLE_ORDER)
            + "}."
        )
    return _div_no_nan_bin(x, y)


_TRUEDIV_TABLE_ORDER = (
    "uint8",
    "int8",
    "uint16",
    "int16",
    "uint32",
    "int32",
    "uint64",
    "int64",
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


def multiply_no_nan(x, y, name=None):
    """``x * y``, or 0 where ``y`` is 0 even if ``x`` is NaN or inf (``tf.math.multiply_no_nan``).

    As TF: ``y`` is converted to ``x``'s dtype (a ValueError if it cannot be).
    """
    x = to_tensor(x)
    if getattr(y, "_is_variable", False):
        y = y._dense_read()
    try:
        y = convert_to_tensor(y, dtype=x.dtype)
    except ValueError as e:
        raise ValueError(f"y: {e}") from None
    return _mul_no_nan_bin(x, y)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, or 0 where ``x`` is 0 (``tf.math.reciprocal_no_nan``); TF's DivNoNan gradient."""
    x = to_tensor(x)
    if x._v.dtype == np.bool_:  # TF converts the numerator 1 to x's dtype first
        raise TypeError("Cannot convert 1 to EagerTensor of dtype bool")
    require(x, FLOAT, "DivNoNan")
    return apply(_div_no_nan_bin.op, (convert_to_tensor(1, dtype=x.dtype), x))


def _truncate_div(x, y):
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jax.lax.div(*jnp.broadcast_arrays(x, y))
    return jnp.trunc(x / y)


def _truncate_check(op_name: str):
    def check(x, y):
        # TF's CPU kernel fails an integer division by zero with an InternalError.
        t = x if type(x) is Tensor else y
        if t._v.dtype.kind in "iu":
            d = _concrete(y)
            if d is not None and (d == 0).any():
                raise InternalError(
                    None,
                    None,
                    "Unexpected error in binary operator (only integer div and mod should have "
                    f"errors) [Op:{op_name}]",
                )

    return check


# TF registers no gradient for TruncateDiv (None) nor TruncateMod (a LookupError in TF).
truncatediv = _binary(
    "TruncateDiv",
    _truncate_div,
    NUMERIC,
    differentiable=False,
    check=_truncate_check("TruncateDiv"),
)
truncatemod = _binary(
    "TruncateMod", jnp.fmod, "fi", differentiable=False, check=_truncate_check("TruncateMod")
)
