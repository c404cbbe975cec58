"""Elementwise math and ``cast`` with TF's semantics (reductions, ``matmul`` and the Python
operators have modules of their own): arithmetic, comparisons, trigonometric, hyperbolic
and special functions, and TF's NaN-safe ops (``xlogy``, ``divide_no_nan``, ...).

Every public function converts its inputs with TF's dtype rules, then applies one
``Op``. Derivatives are JAX's; an op whose TF gradient is "none" (Round, ArgMax, ...)
is declared ``differentiable=False`` so tapes return ``None`` through it. Where TF's
registered gradient is not JAX's derivative (the NaN-safe ops at 0, ``acosh`` and
``bessel_i1`` at their edges), a ``jax.custom_jvp`` here carries TF's formula.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, tensor_shape
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InternalError, InvalidArgumentError, UnimplementedError
from ..tensor import Tensor, wrap
from . import tf_rules
from ._helpers import (
    TF_ALLOWED,
    accepted_dtypes,
    binary_operands,
    check_broadcast,
    dtype_mismatch,
    hinted_operands,
    operand_dtype,
    require,
    tf_type_name,
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
_round = _unary("Round", jnp.round, "f", differentiable=False)


def round(x, name=None):  # noqa: A001 - TF's name
    """Rounds half to even (``tf.math.round``); an integer tensor is returned as it is."""
    x = to_tensor(x)
    return x if x._value.dtype.kind in "iu" else _round(x)


round.op = _round.op
floor = _unary("Floor", jnp.floor, "f", differentiable=False)
ceil = _unary("Ceil", jnp.ceil, "f", differentiable=False)
logical_not = _unary("LogicalNot", jnp.logical_not, "b", differentiable=False)
is_nan = _unary("IsNan", jnp.isnan, "f", differentiable=False)
is_finite = _unary("IsFinite", jnp.isfinite, "f", differentiable=False)
is_inf = _unary("IsInf", jnp.isinf, "f", differentiable=False)

# |x| as x * sign(x): the same values, and TF's gradient at 0 (sign(0) = 0), where
# jnp.abs's derivative is 1.
_abs_op = Op("Abs", lambda x: x * jnp.sign(x))
_complex_abs_op = Op("ComplexAbs", jnp.abs)


def abs(x, name=None):  # noqa: A001 - TF's name
    """Absolute value (``tf.math.abs``); of a complex tensor, its magnitude (a real tensor)."""
    x = to_tensor(x)
    op = _complex_abs_op if x._value.dtype.kind == "c" else _abs_op
    require(x, NUMERIC, op.name)
    return apply(op, (x,))


_real = _unary("Real", jnp.real, "c")
_imag = _unary("Imag", jnp.imag, "c")
_conj = _unary("Conj", jnp.conj, "c")


# As TF: the complex parts of a real tensor are the tensor itself (a gradient of ones)
# and zeros (no gradient); bool is not numeric.
def real(input, name=None):  # noqa: A002 - TF's name
    """The real part (``tf.math.real``); a real tensor is returned as it is."""
    x = to_tensor(input)
    if x._value.dtype.kind == "c":
        return _real(x)
    if x._value.dtype.kind == "b":
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")
    return x


def imag(input, name=None):  # noqa: A002 - TF's name
    """The imaginary part (``tf.math.imag``); zeros (unconnected) for a real tensor."""
    x = to_tensor(input)
    if x._value.dtype.kind == "c":
        return _imag(x)
    return wrap(jnp.zeros_like(x._value))


def conj(x, name=None):
    """The complex conjugate (``tf.math.conj``); a real tensor is returned as it is."""
    x = to_tensor(x)
    if x._value.dtype.kind == "c":
        return _conj(x)
    if x._value.dtype.kind == "b":
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")
    return x


# -- binary ---------------------------------------------------------------------------------


def _binary(
    tf_name: str,
    fn,
    kinds: str = NUMERIC,
    differentiable: bool = True,
    operands=binary_operands,
    check=None,
):
    """``operands`` is TF's conversion rule for the function form; the reflected operator
    (``1.5 + t``) always converts the Python side to the Tensor's dtype, as TF's does.
    ``check(x, y)`` runs TF's value checks (division by zero ...) on eager inputs."""
    op = Op(tf_name, fn, differentiable=differentiable)
    accepted = accepted_dtypes(kinds, tf_name)

    def run(x, y):
        check_broadcast(x, y, tf_name)
        require(x if type(x) is Tensor else y, kinds, tf_name)
        if check is not None:
            check(x, y)
        return apply(op, (x, y))

    def public(x, y, name=None):
        # The per-op budget: two tensors of one accepted dtype (or a Variable read) need
        # none of the conversion rules, only the broadcast check.
        if check is None:
            if type(y) is not Tensor and getattr(y, "_is_variable", False):
                y = y._dense_read()
            if type(x) is Tensor and type(y) is Tensor:
                dt = x._value.dtype
                if dt == y._value.dtype and dt in accepted:
                    check_broadcast(x, y, tf_name)
                    return apply(op, (x, y))
        return run(*operands(x, y, tf_name))

    def reflected(self, other):
        # ``0.01 * g``: a Python float against a floating tensor is taken as it is (weakly
        # typed, so it takes the tensor's dtype inside the jitted op, as TF converts it).
        if check is None and type(other) is float and type(self) is Tensor:
            dt = self._value.dtype
            if dt.kind in "fc" and dt in accepted:
                return apply(op, (other, self))
        return run(*binary_operands(other, self, tf_name))

    public.__name__ = tf_name.lower()
    public.__doc__ = f"Elementwise ``{tf_name}`` with broadcasting (``tf.math``)."
    public.op = op
    public.reflected = reflected
    return public


def _concrete(v) -> np.ndarray | None:
    """An eager operand's value on the host; None inside a trace (checks are skipped)."""
    v = v._value if type(v) is Tensor else v
    return None if isinstance(v, jax.core.Tracer) else np.asarray(v)


def _int_divisor_check(op_name: str):
    def check(x, y):
        # JAX returns garbage for an integer division by zero; TF's CPU kernel raises.
        t = x if type(x) is Tensor else y
        if t._value.dtype.kind in "iu":
            d = _concrete(y)
            if d is not None and (d == 0).any():
                raise InvalidArgumentError(None, None, f"Integer division by zero [Op:{op_name}]")

    return check


def _check_int_power(x, y):
    t = x if type(x) is Tensor else y
    if t._value.dtype.kind in "iu":
        e = _concrete(y)
        if e is not None and (e < 0).any():
            raise InvalidArgumentError(
                None, None, "Integers to negative integer powers are not allowed [Op:Pow]"
            )


add = _binary("AddV2", jnp.add, operands=hinted_operands)
subtract = _binary("Sub", jnp.subtract)
multiply = _binary("Mul", jnp.multiply)
_realdiv = _binary("RealDiv", jnp.true_divide, FLOAT)
# TF registers no gradient for FloorDiv: the tape gives None through it.
floordiv = _binary(
    "FloorDiv", jnp.floor_divide, "fiu", differentiable=False, check=_int_divisor_check("FloorDiv")
)
floormod = _binary("FloorMod", jnp.remainder, "fiu", check=_int_divisor_check("FloorMod"))
maximum = _binary("Maximum", tf_rules.maximum)
minimum = _binary("Minimum", tf_rules.minimum)
squared_difference = _binary("SquaredDifference", lambda a, b: jnp.square(a - b))
_atan2 = _binary("Atan2", jnp.arctan2, "f")


def atan2(y, x, name=None):
    """``arctan(y / x)`` in the right quadrant (``tf.math.atan2``); TF's argument names."""
    return _atan2(y, x)


atan2.op = _atan2.op
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
    if jnp.issubdtype(jnp.result_type(x, y), jnp.floating):
        return tf_rules.real_pow(x, y)
    return jnp.power(x, y)


pow = _binary("Pow", _pow_fn, check=_check_int_power)  # noqa: A001 - TF's name


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


def _truediv(x, y):
    if x._value.dtype.kind in "iu":
        y = y if type(y) is Tensor else convert_to_tensor(y, dtype=x.dtype)
        x, y = _int_to_float(x), _int_to_float(y)
    return _realdiv(x, y)


def truediv(x, y, name=None):
    """``x / y`` (``tf.math.truediv``): integer inputs are cast to floating point first.

    As TF: ``y`` takes ``x``'s dtype only as a hint; different dtypes are a TypeError.
    """
    x = to_tensor(x)
    try:
        y = hinted_operands(x, y, "RealDiv")[1]
    except InvalidArgumentError:
        y_dtype = dtypes.from_array_dtype(operand_dtype(y))
        raise TypeError(
            f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y_dtype!r}."
        ) from None
    return _truediv(x, y)


def _rtruediv(self, other):
    # ``other / tensor``: TF converts ``other`` to the tensor's dtype (a TypeError if it
    # cannot), then divides.
    y = to_tensor(self)
    x = binary_operands(other, y, "RealDiv")[0]
    if type(x) is not Tensor:
        x = convert_to_tensor(x, dtype=y.dtype)
    return _truediv(x, y)


def divide(x, y, name=None):
    """``x / y`` (``tf.math.divide``): a Python ``x`` takes a Tensor ``y``'s dtype."""
    if type(x) is not Tensor and not getattr(x, "_is_variable", False):
        dtype = y.dtype if (type(y) is Tensor or getattr(y, "_is_variable", False)) else None
        x = convert_to_tensor(x, dtype=dtype)
    return truediv(x, y)


_add_n_op = Op("AddN", lambda *xs: functools.reduce(jnp.add, xs))


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype (``tf.math.add_n``)."""
    if isinstance(inputs, Tensor) or getattr(inputs, "_is_variable", False):
        inputs = list(to_tensor(inputs))
    if not inputs:
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same "
            "dtype and shape."
        )
    first = to_tensor(inputs[0])
    ts = [first] + [
        to_tensor(x)
        if (type(x) is Tensor or getattr(x, "_is_variable", False))
        else convert_to_tensor(x, dtype=first.dtype)
        for x in inputs[1:]
    ]
    for i, t in enumerate(ts):
        if t._value.dtype != first._value.dtype:
            raise dtype_mismatch("AddN", i, first._value.dtype, t._value.dtype)
        if t._value.shape != first._value.shape:
            raise InvalidArgumentError(
                None,
                None,
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: [{','.join(map(str, first._value.shape))}] != input {i}: "
                f"[{','.join(map(str, t._value.shape))}] [Op:AddN]",
            )
    if len(ts) == 1:
        from .array_ops import identity

        return identity(first)
    require(first, NUMERIC, "AddN")
    return apply(_add_n_op, tuple(ts))


# -- cast -----------------------------------------------------------------------------------


def _cast_fn(x, *, dtype):
    return (
        x.real.astype(dtype)
        if (x.dtype.kind == "c" and np.dtype(dtype).kind != "c")
        else x.astype(dtype)
    )


_cast_op = Op("Cast", _cast_fn)


def cast(x, dtype, name=None):
    """Casts to ``dtype`` (``tf.cast``); float->int truncates, complex->real keeps the real part.

    A cast to or from an integer type is not differentiable (TF returns ``None``); this
    follows from the dtypes, not from the op.
    """
    x = to_tensor(x)
    dt = dtypes.as_dtype(dtype)
    if dt is dtypes.string:
        raise UnimplementedError(
            None, None, f"Cast {tf_type_name(x._value.dtype)} to string is not supported [Op:Cast]"
        )
    target = canonical_np_dtype(dt._np)
    if x._value.dtype == target:
        return x
    return apply(_cast_op, (x,), (("dtype", target),))


def saturate_cast(value, dtype, name=None):
    """Casts, clamping to the range of ``dtype`` first (``tf.dtypes.saturate_cast``)."""
    x = to_tensor(value)
    dt = dtypes.as_dtype(dtype)
    if x.dtype.is_complex:
        x = real(x)
    src = x.dtype
    if src.is_bool or dt.is_bool or dt is dtypes.string:
        return cast(x, dt)
    out = dt.real_dtype
    np_src = src.as_numpy_dtype
    # TF's limits: the output range written in the input dtype, nudged inwards where the
    # input dtype cannot hold it exactly (float32 cannot hold int32's max).
    lo = np_src(np.maximum(src.min, out.min))
    if np.asarray(lo, np.float64) < np.asarray(out.min, np.float64):
        lo = np.nextafter(lo, np_src(0), dtype=np_src)
    hi = np_src(np.minimum(float(src.max), float(out.max)))
    if np.asarray(hi, np.float64) > np.asarray(out.max, np.float64):
        hi = np.nextafter(hi, np_src(0), dtype=np_src)
    x = apply(_clamp_op, (x, convert_to_tensor(lo, dtype=src), convert_to_tensor(hi, dtype=src)))
    return cast(x, dt)


_clamp_op = Op("ClipByValue", lambda x, lo, hi: jnp.clip(x, lo, hi))


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips elementwise to ``[clip_value_min, clip_value_max]`` (``tf.clip_by_value``).

    As TF: ``maximum(minimum(t, max), min)``, so ``min > max`` gives ``min``, errors are
    those of Minimum and Maximum, and a clip value may not broadcast ``t`` to a larger shape.
    """
    t = to_tensor(t)
    t_min = minimum(t, clip_value_max)
    t.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min)
    t.shape.assert_is_compatible_with(t_max.shape)
    return t_max


# -- trigonometric, hyperbolic and special functions ----------------------------------------

_FC_NAMES = "bfloat16, half, float, double, complex64, complex128"
_F_NAMES = "bfloat16, half, float, double"
TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"], _FC_NAMES
        ),
        **dict.fromkeys(["Erf", "Erfc", "Erfinv", "Ndtri", "Lgamma", "Digamma", "Rint"], _F_NAMES),
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

asin = _unary("Asin", jnp.arcsin, FLOAT)
acos = _unary("Acos", jnp.arccos, FLOAT)
atan = _unary("Atan", jnp.arctan, FLOAT)
sinh = _unary("Sinh", jnp.sinh, FLOAT)
cosh = _unary("Cosh", jnp.cosh, FLOAT)
asinh = _unary("Asinh", jnp.arcsinh, FLOAT)


@jax.custom_jvp
def _acosh(x):
    return jnp.arccosh(x)


@_acosh.defjvp
def _acosh_jvp(primals, tangents):
    # TF's _AcoshGrad: 1 / sinh(acosh(x)); for a complex x left of the imaginary axis its
    # sign differs from JAX's 1 / (sqrt(x - 1) sqrt(x + 1)).
    (x,), (t,) = primals, tangents
    y = _acosh(x)
    return y, t / jnp.sinh(y)


acosh = _unary("Acosh", _acosh, FLOAT)
atanh = _unary("Atanh", jnp.arctanh, FLOAT)
erf = _unary("Erf", jax.scipy.special.erf, "f")
erfc = _unary("Erfc", jax.scipy.special.erfc, "f")
erfinv = _unary("Erfinv", jax.scipy.special.erfinv, "f")
ndtri = _unary("Ndtri", jax.scipy.special.ndtri, "f")
lgamma = _unary("Lgamma", jax.lax.lgamma, "f")
digamma = _unary("Digamma", jax.lax.digamma, "f")
# TF's Rint gradient is None (not zero): rounding half to even, like Round.
rint = _unary("Rint", jnp.round, "f", differentiable=False)

_erfcinv_op = Op(
    "Erfcinv", lambda x: -jax.scipy.special.ndtri(0.5 * x) * np.sqrt(0.5).astype(x.dtype)
)


def erfcinv(x, name=None):
    """The inverse of ``erfc`` (``tf.math.erfcinv``): ``-ndtri(x / 2) / sqrt(2)``, as TF."""
    x = to_tensor(x)
    require(x, "f", "Ndtri")
    return apply(_erfcinv_op, (x,))


_log_sigmoid_op = Op("LogSigmoid", lambda x: -jax.nn.softplus(-x))


def log_sigmoid(x, name=None):
    """``log(sigmoid(x))`` computed stably as ``-softplus(-x)`` (``tf.math.log_sigmoid``)."""
    x = to_tensor(x)
    require(x, "f", "Softplus")  # TF's composite fails in its Softplus
    return apply(_log_sigmoid_op, (x,))


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
        if t._value.dtype.kind in "iu":
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
mod = floormod


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-D ``scalar`` converted to ``x``'s dtype (``tf.math.scalar_mul``)."""
    x = to_tensor(x)
    s = convert_to_tensor(scalar, dtype=x.dtype)  # a ValueError for another dtype, as TF
    if s._value.ndim != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    return multiply(s, x)


def polyval(coeffs, x, name=None):
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (``tf.math.polyval``)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = to_tensor(x)
    if not coeffs:
        return wrap(jnp.zeros_like(x._value))
    coeffs = [to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = add(c, multiply(p, x))
    return p


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Sums a list of tensors (``tf.math.accumulate_n``, deprecated in TF: ``add_n``)."""
    error = ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise error
    ts = [to_tensor(t) for t in inputs]
    if any(t._value.dtype != ts[0]._value.dtype for t in ts):
        raise error
    merged = None if shape is None else tensor_shape.as_shape(shape)
    for t in ts:
        merged = t.shape if merged is None else merged.merge_with(t.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != ts[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {dtypes.as_dtype(tensor_dtype)}, but `input` is of "
            f"type {ts[0].dtype}. These must be equal. Try casting the input to the desired type."
        )
    if len(ts) == 1:
        return ts[0]
    return add_n(ts)


# -- more special functions (``tf.math.bessel_*``, ``igamma``, ``zeta``, ...) ---------------

TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "Igamma", "Igammac"], _F_NAMES
        ),
        **dict.fromkeys(["Polygamma", "Zeta", "Betainc"], "float, double"),
        "NextAfter": "double, float",
    }
)

bessel_i0 = _unary("BesselI0", jax.scipy.special.i0, "f")
bessel_i0e = _unary("BesselI0e", jax.scipy.special.i0e, "f")


@jax.custom_jvp
def _bessel_i1(x):
    return jax.scipy.special.i1(x)


@_bessel_i1.defjvp
def _bessel_i1_jvp(primals, tangents):
    # TF's _BesselI1Grad: i0(x) - i1(x) / x, and 1 (sic: the derivative is 0.5) at x == 0.
    (x,), (t,) = primals, tangents
    y = _bessel_i1(x)
    d = jnp.where(x == 0, jnp.ones_like(x), jax.scipy.special.i0(x) - y / _safe(x))
    return y, t * d


bessel_i1 = _unary("BesselI1", _bessel_i1, "f")
bessel_i1e = _unary("BesselI1e", jax.scipy.special.i1e, "f")
bessel_i0.__name__, bessel_i0e.__name__ = "bessel_i0", "bessel_i0e"
bessel_i1.__name__, bessel_i1e.__name__ = "bessel_i1", "bessel_i1e"


def _broadcasting(lax_fn):
    """A ``jax.lax`` binary function (which needs equal shapes) with TF's broadcasting."""

    def fn(a, b):
        return lax_fn(*jnp.broadcast_arrays(a, b))

    return fn


_igamma = _binary("Igamma", _broadcasting(jax.lax.igamma), "f")
_igammac = _binary("Igammac", _broadcasting(jax.lax.igammac), "f")


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (``tf.math.igamma``)."""
    return _igamma(a, x)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (``tf.math.igammac``)."""
    return _igammac(a, x)


igamma.op, igammac.op = _igamma.op, _igammac.op
_polygamma = _binary("Polygamma", _broadcasting(jax.lax.polygamma), "f")
_zeta = _binary("Zeta", _broadcasting(jax.scipy.special.zeta), "f")
# TF's NextAfter gradient: 1 for x1, 0 for x2.
_nextafter = _binary(
    "NextAfter",
    lambda x1, x2: (
        x1
        + (
            jnp.nextafter(*map(jax.lax.stop_gradient, jnp.broadcast_arrays(x1, x2)))
            - jax.lax.stop_gradient(x1)
        )
    ),
    "f",
)


def _unconnected(t):
    """``t`` cut from every tape: TF registers no gradient for this input (None)."""
    from .array_ops import stop_gradient

    return stop_gradient(t) if type(t) is Tensor else t


def polygamma(a, x, name=None):
    """The ``a``-th derivative of ``digamma`` at ``x`` (``tf.math.polygamma``).

    As TF: ``a`` is a float tensor holding integers; the gradient w.r.t. ``a`` is None.
    """
    a, x = binary_operands(a, x, "Polygamma")
    return _polygamma(_unconnected(a), x)


def zeta(x, q, name=None):
    """The Hurwitz zeta function (``tf.math.zeta``); the gradient w.r.t. ``x`` is None, as TF."""
    x, q = binary_operands(x, q, "Zeta")
    return _zeta(_unconnected(x), q)


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` towards ``x2`` (``tf.math.nextafter``).

    TF's gradient: 1 w.r.t. ``x1``, 0 w.r.t. ``x2``.
    """
    return _nextafter(x1, x2)


polygamma.op, zeta.op, nextafter.op = _polygamma.op, _zeta.op, _nextafter.op

_betainc_op = Op("Betainc", jax.scipy.special.betainc)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (``tf.math.betainc``).

    As TF: the gradient w.r.t. ``a`` and ``b`` is None; all three have one dtype.
    """
    # TF's rule for ops with one type attribute: the first Tensor's dtype converts the rest.
    first = next((v for v in (a, b, x) if isinstance(v, Tensor)), None)
    like = None if first is None else first.dtype
    a, b, x = (
        to_tensor(v) if isinstance(v, Tensor) else convert_to_tensor(v, like) for v in (a, b, x)
    )
    for i, t in enumerate((b, x), start=1):
        if t._value.dtype != a._value.dtype:
            raise dtype_mismatch("Betainc", i, a._value.dtype, t._value.dtype)
    require(a, "f", "Betainc")
    named = (("a", a), ("b", b), ("x", x))
    for i, (n1, t1) in enumerate(named):
        for n2, t2 in named[i + 1 :]:
            s1, s2 = t1._value.shape, t2._value.shape
            if s1 and s2 and s1 != s2:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Shapes of {n1} and {n2} are inconsistent: [{','.join(map(str, s1))}] vs. "
                    f"[{','.join(map(str, s2))}] [Op:Betainc]",
                )
    return apply(_betainc_op, (_unconnected(a), _unconnected(b), x))


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (``tf.math.lbeta``)."""
    from .reduction_ops import reduce_sum

    x = to_tensor(x)
    return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))


_angle_op = Op("Angle", jnp.angle)


def angle(input, name=None):  # noqa: A002 - TF's name
    """The argument of a complex tensor (``tf.math.angle``); of a real one, pi where negative."""
    x = to_tensor(input)
    if x._value.dtype.kind == "c":
        return apply(_angle_op, (x,))
    # TF's where(x < 0, pi, 0): constants, unconnected from x.
    return wrap(jnp.where(x._value < 0, jnp.pi, 0).astype(x._value.dtype))


_monotonic_op = Op(
    "IsMonotonic",
    lambda x, *, strict: jnp.all((x[1:] > x[:-1]) if strict else (x[1:] >= x[:-1])),
    differentiable=False,
)


def _monotonic(x, strict: bool):
    x = to_tensor(x)
    if x._value.dtype.kind not in "fciu":
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    flat = wrap(x._value.reshape(-1))
    return apply(_monotonic_op, (flat,), (("strict", strict),))


def is_non_decreasing(x, name=None):
    """Whether ``x`` (flattened) satisfies ``x[i] <= x[i+1]`` everywhere (``tf.math.is_non_decreasing``)."""
    return _monotonic(x, False)


def is_strictly_increasing(x, name=None):
    """Whether ``x`` (flattened) satisfies ``x[i] < x[i+1]`` everywhere (``tf.math.is_strictly_increasing``)."""
    return _monotonic(x, True)


_invert_permutation_op = Op(
    "InvertPermutation",
    lambda x: jnp.zeros_like(x).at[x].set(jnp.arange(x.shape[0], dtype=x.dtype)),
    differentiable=False,
)


def invert_permutation(x, name=None):
    """The inverse permutation: ``y[x[i]] = i`` (``tf.math.invert_permutation``)."""
    x = to_tensor(x)
    name_ = tf_type_name(x._value.dtype)
    if name_ not in ("int32", "int64"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {name_} is not in the list of allowed values: int32, int64 "
            "[Op:InvertPermutation]",
        )
    if x._value.ndim != 1:
        raise InvalidArgumentError(
            None,
            None,
            "invert_permutation expects a 1D vector. [Op:InvertPermutation]",
        )
    v = _concrete(x)
    if v is not None:
        n = v.shape[0]
        seen = np.zeros(n, bool)
        for d in v.tolist():
            if not 0 <= d < n:
                raise InvalidArgumentError(
                    None, None, f"{d} is not between 0 and {n} [Op:InvertPermutation]"
                )
            if seen[d]:
                raise InvalidArgumentError(
                    None, None, f"{d} is duplicated in the input. [Op:InvertPermutation]"
                )
            seen[d] = True
    return apply(_invert_permutation_op, (x,))
