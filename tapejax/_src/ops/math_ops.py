"""Elementwise arithmetic, comparisons and ``cast`` with TF's semantics, and the factories
(``_unary``, ``_binary``) every elementwise op is made with.

Reductions, ``matmul`` and the Python operators have modules of their own, and so do the
ops built on this module: the trigonometric, hyperbolic and special functions
(``special_ops``), division's special cases (``division_ops``: TF's NaN-safe ops and
truncating division) and the ops over a list or a sequence (``sequence_ops``: ``add_n``,
``polyval``, ``invert_permutation``, ...).

Every public function converts its inputs with TF's dtype rules, then applies one
``Op``. Derivatives are JAX's; an op whose TF gradient is "none" (Round, ArgMax, ...)
is declared ``differentiable=False`` so tapes return ``None`` through it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, registry
from ..composite import CompositeTensor
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ..tensor import Tensor, wrap
from . import tf_rules
from ._helpers import (
    accepted_dtypes,
    binary_operands,
    check_broadcast,
    hinted_operands,
    operand_dtype,
    require,
    tf_type_name,
    to_tensor,
)

FLOAT = "fc"
NUMERIC = "fciu"
# TF's dtype lists (for ``TF_ALLOWED``) of ops in ``special_ops`` and ``division_ops``.
_FC_NAMES = "bfloat16, half, float, double, complex64, complex128"
_F_NAMES = "bfloat16, half, float, double"

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


@jax.custom_jvp
def _rsqrt(x):
    return jax.lax.rsqrt(x)


@_rsqrt.defjvp
def _rsqrt_jvp(primals, tangents):
    # TF's RsqrtGrad: -0.5 y**3 from the output y, so +inf at x = -0.0 (y = -inf), where
    # JAX's -0.5 y / x is -inf.
    (x,), (t,) = primals, tangents
    y = _rsqrt(x)
    return y, t * (-0.5 * (y * y * y))


rsqrt = _unary("Rsqrt", _rsqrt, FLOAT)
square = _unary("Square", jnp.square, NUMERIC)
negative = _unary("Neg", jnp.negative, NUMERIC)
reciprocal = _unary("Reciprocal", jnp.reciprocal, FLOAT)
sigmoid = _unary("Sigmoid", jax.nn.sigmoid, FLOAT)
_sign = _unary("Sign", jnp.sign, NUMERIC)


def sign(x, name=None):
    """Elementwise sign (``tf.math.sign``); of a complex tensor, ``x / |x|`` (0 at 0).

    As TF, the complex case is ``divide_no_nan(x, cast(abs(x)))``, so its gradient is the
    one of those ops (``Sign``'s own gradient is 0, which is not the derivative of x / |x|).
    """
    x = to_tensor(x)
    if x._v.dtype.kind == "c":
        from .division_ops import divide_no_nan  # division_ops imports this module

        return divide_no_nan(x, cast(abs(x), x.dtype))
    return _sign(x)


sign.op = _sign.op
# TF registers no gradient for these: the tape gives None through them.
_round = _unary("Round", jnp.round, "f", differentiable=False)


def round(x, name=None):  # noqa: A001 - TF's name
    """Rounds half to even (``tf.math.round``); an integer tensor is returned as it is."""
    x = to_tensor(x)
    return x if x._v.dtype.kind in "iu" else _round(x)


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
    op = _complex_abs_op if x._v.dtype.kind == "c" else _abs_op
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
    if x._v.dtype.kind == "c":
        return _real(x)
    if x._v.dtype.kind == "b":
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")
    return x


def imag(input, name=None):  # noqa: A002 - TF's name
    """The imaginary part (``tf.math.imag``); zeros (unconnected) for a real tensor."""
    x = to_tensor(input)
    if x._v.dtype.kind == "c":
        return _imag(x)
    return wrap(jnp.zeros_like(x._value))


def conj(x, name=None):
    """The complex conjugate (``tf.math.conj``); a real tensor is returned as it is."""
    x = to_tensor(x)
    if x._v.dtype.kind == "c":
        return _conj(x)
    if x._v.dtype.kind == "b":
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")
    return x


# -- binary ---------------------------------------------------------------------------------

_HALF = frozenset([jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16)])


def wide_broadcast(v, shape):
    """``v`` broadcast to ``shape``; a half-precision array goes through float32, so that the
    sum its gradient takes over the broadcast axes accumulates in float32.

    TF's gradient of a broadcasting op sums the incoming gradient with ``Sum``, whose CPU
    kernel accumulates half types in float32; JAX transposes a broadcast to a reduction in
    the operand's own type, which in bfloat16 (8 bits of mantissa) drifts by percents over
    a few dozen terms. The round trip is exact, and nothing changes for other dtypes.
    """
    dt = getattr(v, "dtype", None)
    if dt not in _HALF or jnp.shape(v) == tuple(shape):
        return v
    return jnp.broadcast_to(v.astype(jnp.float32), shape).astype(dt)


def _half_broadcasts(fn):
    """``fn(x, y)`` with half-precision operands broadcast by ``wide_broadcast`` first."""

    def run(x, y):
        sx, sy = jnp.shape(x), jnp.shape(y)
        if sx != sy and (getattr(x, "dtype", None) in _HALF or getattr(y, "dtype", None) in _HALF):
            shape = jnp.broadcast_shapes(sx, sy)
            x, y = wide_broadcast(x, shape), wide_broadcast(y, shape)
        return fn(x, y)

    # Lowering reads which inputs a gradient leaves unconnected from the op's function.
    if hasattr(fn, "none_inputs"):
        run.none_inputs = fn.none_inputs
    return run


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
    op = Op(tf_name, _half_broadcasts(fn) if differentiable else fn, differentiable=differentiable)
    accepted = accepted_dtypes(kinds, tf_name)

    def run(x, y):
        require(x if type(x) is Tensor else y, kinds, tf_name)
        check_broadcast(x, y, tf_name)
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
                dt = x._v.dtype
                if dt == y._v.dtype and dt in accepted:
                    check_broadcast(x, y, tf_name)
                    return apply(op, (x, y))
        return run(*operands(x, y, tf_name))

    def reflected(self, other):
        # ``0.01 * g``: a Python float against a floating tensor is taken as it is (weakly
        # typed, so it takes the tensor's dtype inside the jitted op, as TF converts it).
        if check is None and type(other) is float and type(self) is Tensor:
            dt = self._v.dtype
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
        if t._v.dtype.kind in "iu":
            d = _concrete(y)
            if d is not None and (d == 0).any():
                raise InvalidArgumentError(None, None, f"Integer division by zero [Op:{op_name}]")

    return check


def _check_int_power(x, y):
    t = x if type(x) is Tensor else y
    if t._v.dtype.kind in "iu":
        e = _concrete(y)
        if e is not None and (e < 0).any():
            raise InvalidArgumentError(
                None, None, "Integers to negative integer powers are not allowed [Op:Pow]"
            )


add = _binary("AddV2", jnp.add, operands=hinted_operands)
subtract = _binary("Sub", jnp.subtract)
multiply = _binary("Mul", jnp.multiply)


_realdiv = _binary("RealDiv", jnp.true_divide, FLOAT)


def _realdiv_any_fn(x, y):
    dt = jnp.result_type(x, y)
    if jnp.issubdtype(dt, jnp.integer):  # XLA's RealDiv kernel: truncating division
        x, y = jnp.broadcast_arrays(jnp.asarray(x, dt), jnp.asarray(y, dt))
        return jax.lax.div(x, y)
    return jnp.true_divide(x, y)


# TF's op takes integers too, though its CPU build has no kernel for them (NotFoundError);
# this computes what TF's XLA kernel does.
realdiv = _binary("RealDiv", _realdiv_any_fn, NUMERIC)
realdiv.__doc__ = """``x / y`` elementwise for tensors of one dtype, with broadcasting (``tf.realdiv``).

    Unlike ``truediv``, integers are not cast: their quotient is truncated toward zero.
    """


def _floordiv_fn(x, y):
    # TF's float kernel is ``floor(x / y)``; NumPy's ``floor_divide`` (Python's ``//``)
    # rounds ``(x - x % y) / y`` instead, which differs where ``x / y`` rounds up to an
    # integer: 2.0 // 0.1 is 20 in TF and 19 in Python.
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.floor(x / y)
    return jnp.floor_divide(x, y)


# TF registers no gradient for FloorDiv: the tape gives None through it.
floordiv = _binary(
    "FloorDiv", _floordiv_fn, "fiu", differentiable=False, check=_int_divisor_check("FloorDiv")
)


@jax.custom_jvp
def _float_floormod(x, y):
    return jnp.remainder(x, y)


@_float_floormod.defjvp
def _float_floormod_jvp(primals, tangents):
    # TF's _FloorModGrad: (1, -floor(x / y)); JAX's y-derivative differs where its
    # remainder adds y back in (an infinite y of the other sign: 1, where TF's is 0).
    (x, y), (tx, ty) = primals, tangents
    return _float_floormod(x, y), tx - ty * _floordiv_fn(x, y)


def _floormod_fn(x, y):
    if jnp.issubdtype(x.dtype, jnp.floating):
        return _float_floormod(*jnp.broadcast_arrays(x, y))
    return jnp.remainder(x, y)


floormod = _binary("FloorMod", _floormod_fn, "fiu", check=_int_divisor_check("FloorMod"))
mod = floormod
maximum = _binary("Maximum", tf_rules.maximum)
minimum = _binary("Minimum", tf_rules.minimum)


def _squared_difference(a, b):
    d = a - b
    # TF's complex kernel is conj(x - y) * (x - y), a real |x - y| ** 2, not (x - y) ** 2.
    return d * jnp.conj(d) if jnp.iscomplexobj(d) else jnp.square(d)


squared_difference = _binary("SquaredDifference", _squared_difference)
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


_pow = _binary("Pow", _pow_fn, check=_check_int_power)

# ``x ** 2`` of a real floating tensor (a hand-written squared error): the exponent is
# static, so XLA squares with one multiply where a runtime exponent costs an exp and a
# log per element, in the forward and again in the derivative. TF's Pow gradient gives
# the same numbers: ``2 * x ** 1 * dy``.
_square_op = Op("Pow", jnp.square)
_REAL_FLOATS = frozenset(
    [np.dtype("float16"), np.dtype("float32"), np.dtype("float64"), jnp.dtype(jnp.bfloat16)]
)


def pow(x, y, name=None):  # noqa: A001 - TF's name
    """Elementwise ``x ** y`` with broadcasting (``tf.math.pow``)."""
    if (
        type(x) is Tensor
        and type(y) in (int, float)
        and y == 2
        and x._v.dtype in _REAL_FLOATS
        and "Pow" not in registry._registry  # a registered Pow gradient sees both inputs
    ):
        return apply(_square_op, (x,))
    return _pow(x, y)


pow.op = _pow.op
pow.reflected = _pow.reflected


def equal(x, y, name=None):
    """Elementwise ``x == y`` (``tf.math.equal``)."""
    return _equal(x, y)


def not_equal(x, y, name=None):
    """Elementwise ``x != y`` (``tf.math.not_equal``)."""
    return _not_equal(x, y)


def _int_to_float(x: Tensor) -> Tensor:
    # TF's truediv casts int8/16 to float32 and int32/64 to float64 before dividing.
    size = x._v.dtype.itemsize
    return cast(x, dtypes.float32 if size <= 2 else dtypes.float64)


# The dtypes TF's truediv takes (its ``_TRUEDIV_TABLE``), named in its TypeError.
_TRUEDIV_DTYPES = (
    "tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, "
    "tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128"
)


def _truediv(x, y):
    if x._v.dtype.kind == "b":
        raise TypeError(
            f"Invalid dtype tf.bool in __truediv__. Expected one of {{{_TRUEDIV_DTYPES}}}."
        )
    if x._v.dtype.kind in "iu":
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
    follows from the dtypes, not from the op. A SparseTensor or IndexedSlices has its
    values cast, as in TF.
    """
    if type(x) is not Tensor and isinstance(x, CompositeTensor):
        return x._with_values(cast(x.values, dtype))
    x = to_tensor(x)
    dt = dtypes.as_dtype(dtype)
    if dt is dtypes.string:
        raise UnimplementedError(
            None, None, f"Cast {tf_type_name(x._v.dtype)} to string is not supported [Op:Cast]"
        )
    target = canonical_np_dtype(dt._np)
    if x._v.dtype == target:
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


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-D ``scalar`` converted to ``x``'s dtype (``tf.math.scalar_mul``)."""
    x = to_tensor(x)
    s = convert_to_tensor(scalar, dtype=x.dtype)  # a ValueError for another dtype, as TF
    if s._v.ndim != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    return multiply(s, x)


_complex_op = Op("Complex", lambda re, im: jax.lax.complex(*jnp.broadcast_arrays(re, im)))


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """The complex tensor ``real + imag * 1j``, with broadcasting (``tf.complex``).

    Args:
        real: float32 or float64 values.
        imag: values of ``real``'s dtype.
        name: ignored (TF's op name).

    Returns:
        A complex64 tensor for float32 parts, complex128 for float64. The gradient of each
        part is the real or the imaginary part of the upstream gradient, as TF's.

    Raises:
        TypeError: the parts' dtypes differ or are not float32/float64 (TF's text).

    Example:
        >>> import tapejax as tf
        >>> tf.complex(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy()
        array([1.+3.j, 2.+4.j], dtype=complex64)
    """
    re, im = to_tensor(real), to_tensor(imag)
    if (re._v.dtype, im._v.dtype) not in _COMPLEX_PARTS:
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {re.dtype.name} "
            f"{im.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]"
        )
    check_broadcast(re, im, "Complex")
    return apply(_complex_op, (re, im))


_COMPLEX_PARTS = {(np.dtype(t), np.dtype(t)) for t in ("float32", "float64")}
_angle_op = Op("Angle", jnp.angle)


def angle(input, name=None):  # noqa: A002 - TF's name
    """The argument of a complex tensor (``tf.math.angle``); of a real one, pi where negative."""
    x = to_tensor(input)
    if x._v.dtype.kind == "c":
        return apply(_angle_op, (x,))
    if x._v.dtype.kind == "b":  # TF's x < 0 cannot make 0 a bool
        raise TypeError("Cannot convert 0 to EagerTensor of dtype bool")
    if x._v.dtype.kind in "iu":
        # TF's where(x < 0, pi * ones_like(x), zeros_like(x)) cannot make pi in x's dtype.
        raise TypeError(f"Cannot convert {np.pi!r} to EagerTensor of dtype {x.dtype.name}")
    # TF's where(x < 0, pi, 0): constants, unconnected from x.
    return wrap(jnp.where(x._value < 0, jnp.pi, 0).astype(x._v.dtype))
