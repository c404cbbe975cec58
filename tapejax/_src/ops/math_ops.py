"""Elementwise math, reductions, ``matmul`` and ``cast`` with TF's semantics; Tensor operators.

Every public function converts its inputs with TF's dtype rules, then applies one
``Op``. Derivatives are JAX's; an op whose TF gradient is "none" (Round, ArgMax, ...)
is declared ``differentiable=False`` so tapes return ``None`` through it.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ..tensor import Tensor, canonical_np_dtype, convert_to_tensor, wrap
from . import tf_rules
from ._helpers import (
    accepted_dtypes,
    axis_ints,
    binary_operands,
    check_broadcast,
    dtype_mismatch,
    hinted_operands,
    normalize_axis,
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


# -- matmul ---------------------------------------------------------------------------------


def _matmul_fn(a, b, *, ta, tb, ca, cb, out=None):
    if out is not None:
        a, b = a.astype(out), b.astype(out)
    if ta:
        a = jnp.swapaxes(a, -1, -2)
    if ca:
        a = jnp.conj(a)
    if tb:
        b = jnp.swapaxes(b, -1, -2)
    if cb:
        b = jnp.conj(b)
    return jnp.matmul(a, b)


# TF's kernels by rank and output type: rank-2 MatMul, batched BatchMatMulV2, and
# BatchMatMulV3 when ``output_type`` differs from the inputs'. Their names are what errors
# and RegisterGradient use.
_matmul_ops = {name: Op(name, _matmul_fn) for name in ("MatMul", "BatchMatMulV2", "BatchMatMulV3")}
_MATMUL_STATIC: dict = {}


def _dims(shape) -> str:
    return ",".join(map(str, shape))


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

    ``output_type`` (e.g. int32 for int8 inputs) computes in that dtype, as TF's
    BatchMatMulV3. ``a_is_sparse``/``b_is_sparse`` are hints TF may ignore; so does tapejax.

    Raises:
      ValueError: both ``transpose_a`` and ``adjoint_a`` (or ``_b``) are set.
      InvalidArgumentError: bad ranks, different dtypes, or incompatible dimensions.
    """
    if not (transpose_a or transpose_b or adjoint_a or adjoint_b or output_type is not None):
        # The per-op budget: a plain 2-D product of one accepted dtype skips the general
        # path (a Variable operand is read as usual).
        if type(b) is not Tensor and getattr(b, "_is_variable", False):
            b = b._dense_read()
        if type(a) is not Tensor and getattr(a, "_is_variable", False):
            a = a._dense_read()
        if type(a) is Tensor and type(b) is Tensor:
            av, bv = a._value, b._value
            sa, sb = av.shape, bv.shape
            if (
                av.dtype == bv.dtype
                and av.dtype in _MATMUL_ACCEPTED
                and len(sa) == 2
                and len(sb) == 2
                and sa[1] == sb[0]
            ):
                return apply(_matmul_ops["MatMul"], (a, b), _PLAIN_MATMUL)
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        a_bad = transpose_a and adjoint_a
        side, t, adj = ("a", transpose_a, adjoint_a) if a_bad else ("b", transpose_b, adjoint_b)
        raise ValueError(
            f"Only one of `transpose_{side}` and `adjoint_{side}` can be True. "
            f"Received `transpose_{side}`={t}, `adjoint_{side}`={adj}."
        )
    a = to_tensor(a)
    if type(b) is Tensor or getattr(b, "_is_variable", False):
        b = to_tensor(b)
    else:
        try:  # ``a``'s dtype is only a hint for ``b``, as in TF
            b = convert_to_tensor(b, dtype=a.dtype)
        except (TypeError, ValueError):
            b = convert_to_tensor(b)
    sa, sb = a._value.shape, b._value.shape
    batched = len(sa) > 2 or len(sb) > 2
    out = None
    if output_type is not None:
        out = dtypes.as_dtype(output_type)
        if out == a.dtype and out == b.dtype:
            out = None
    op_name = "BatchMatMulV3" if out is not None else ("BatchMatMulV2" if batched else "MatMul")
    if out is None and a._value.dtype != b._value.dtype:
        raise dtype_mismatch(op_name, 1, a._value.dtype, b._value.dtype)
    require(a, NUMERIC, op_name)
    if out is not None:  # otherwise b has a's dtype
        require(b, NUMERIC, op_name)
    if batched or out is not None:
        for i, s_ in enumerate((sa, sb)):
            if len(s_) < 2:
                raise InvalidArgumentError(
                    None, None, f"In[{i}] ndims must be >= 2: {len(s_)} [Op:{op_name}]"
                )
    elif len(sa) != len(sb):
        raise InvalidArgumentError(
            None,
            None,
            f"In[0] and In[1] has different ndims: [{_dims(sa)}] vs. [{_dims(sb)}] [Op:{op_name}]",
        )
    elif len(sa) != 2:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] ndims must be == 2: {len(sa)} [Op:{op_name}]"
        )
    ta = bool(transpose_a or adjoint_a)
    tb = bool(transpose_b or adjoint_b)
    if (sa[-2] if ta else sa[-1]) != (sb[-1] if tb else sb[-2]):
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: [{_dims(sa)}], In[1]: [{_dims(sb)}] [Op:{op_name}]",
        )
    if batched:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"In[0] and In[1] must have compatible batch dimensions: [{_dims(sa)}] vs. "
                f"[{_dims(sb)}] [Op:{op_name}]",
            ) from None
    out_np = None if out is None else canonical_np_dtype(out._np)
    key = (bool(adjoint_a), bool(adjoint_b), ta, tb, out_np)
    static = _MATMUL_STATIC.get(key)
    if static is None:
        static = (("ca", key[0]), ("cb", key[1]), ("ta", ta), ("tb", tb))
        if out_np is not None:
            static += (("out", out_np),)
        _MATMUL_STATIC[key] = static
    return apply(_matmul_ops[op_name], (a, b), static)


_PLAIN_MATMUL = (("ca", False), ("cb", False), ("ta", False), ("tb", False))
_MATMUL_ACCEPTED = accepted_dtypes(NUMERIC, "MatMul")

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


reduce_sum = _reduction(
    "Sum", lambda x, *, axis, keepdims: jnp.sum(x, axis=axis, keepdims=keepdims)
)
reduce_mean = _reduction("Mean", _mean_fn)


def _extreme_fn(reducer, largest: bool):
    def fn(x, *, axis, keepdims):
        if x.size == 0:
            # TF returns the reduction's identity (-inf, or the dtype's min, for max).
            if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16._np:
                ident = -np.inf if largest else np.inf
            else:
                info = np.iinfo(x.dtype)
                ident = info.min if largest else info.max
            return reducer(x, axis=axis, keepdims=keepdims, initial=ident)
        return reducer(x, axis=axis, keepdims=keepdims)

    return fn


reduce_max = _reduction("Max", _extreme_fn(jnp.max, True), "fiu")
reduce_min = _reduction("Min", _extreme_fn(jnp.min, False), "fiu")
reduce_prod = _reduction(
    "Prod", lambda x, *, axis, keepdims: jnp.prod(x, axis=axis, keepdims=keepdims)
)
reduce_any = _reduction(
    "Any", lambda x, *, axis, keepdims: jnp.any(x, axis=axis, keepdims=keepdims), "b", False
)
reduce_all = _reduction(
    "All", lambda x, *, axis, keepdims: jnp.all(x, axis=axis, keepdims=keepdims), "b", False
)
reduce_logsumexp = _reduction(
    "ReduceLogSumExp",
    lambda x, *, axis, keepdims: jax.scipy.special.logsumexp(x, axis=axis, keepdims=keepdims),
    "f",
)


def _arg_reduction(tf_name: str, fn):
    op = Op(tf_name, fn, differentiable=False)

    allowed_out = "int16, uint16, int32, int64" if tf_name == "ArgMax" else "int32, int64"

    def public(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
        x = to_tensor(input)
        require(x, "fiub", tf_name)
        if isinstance(axis, (list, tuple)):
            raise TypeError("axis must be int or Tensor with integer datatype")
        (ax,) = axis_ints(0 if axis is None else axis)
        n = x._value.ndim
        if not -n <= ax < max(n, 0) or n == 0:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected dimension in the range [{-n}, {n}), but got {ax} [Op:{tf_name}]",
            )
        out_dt = dtypes.as_dtype(output_type)
        if tf_type_name(out_dt) not in allowed_out.split(", "):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'output_type' of {tf_type_name(out_dt)} is not in the list of "
                f"allowed values: {allowed_out} [Op:{tf_name}]",
            )
        # int64 (TF's default) needs JAX's x64 mode; without it the indices are int32,
        # silently: every index fits.
        narrow = out_dt._np.itemsize == 8 and not jax.config.jax_enable_x64
        out = np.dtype(np.int32) if narrow else out_dt._np
        return apply(op, (x,), (("axis", ax % n), ("dtype", out)))

    public.__name__ = tf_name.lower()
    public.__doc__ = (
        f"Index of the {tf_name[3:].lower()} along ``axis`` (``tf.math.{tf_name.lower()}``). "
        "int64 as in TF when JAX's x64 mode is on, else int32."
    )
    return public


argmax = _arg_reduction("ArgMax", lambda x, *, axis, dtype: jnp.argmax(x, axis=axis).astype(dtype))
argmin = _arg_reduction("ArgMin", lambda x, *, axis, dtype: jnp.argmin(x, axis=axis).astype(dtype))


# -- Tensor and Variable operators ----------------------------------------------------------


def _shapes_differ(x, y) -> bool:
    xs = x._value.shape if type(x) is Tensor else np.shape(x)
    ys = y._value.shape if type(y) is Tensor else np.shape(y)
    try:
        np.broadcast_shapes(xs, ys)
    except ValueError:
        return True
    return False


def _compare(public, unbroadcastable: bool):
    """``==``/``!=``: TF's ``equal(..., incompatible_shape_error=False)``: shapes that do
    not broadcast give a scalar ``unbroadcastable``; a dtype mismatch still raises."""

    def operator(self, other):
        x, y = binary_operands(self, other, public.op.name)
        if _shapes_differ(x, y):
            return wrap(jnp.asarray(unbroadcastable))
        return public(x, y)

    return operator


def _tensor_eq(self, other):
    return False if other is None else _eq_op(self, other)


def _tensor_ne(self, other):
    return True if other is None else _ne_op(self, other)


_eq_op = _compare(_equal, False)
_ne_op = _compare(_not_equal, True)

bitwise_and = _binary("BitwiseAnd", jnp.bitwise_and, "iu", differentiable=False)
bitwise_or = _binary("BitwiseOr", jnp.bitwise_or, "iu", differentiable=False)
bitwise_xor = _binary("BitwiseXor", jnp.bitwise_xor, "iu", differentiable=False)
invert = _unary("Invert", jnp.invert, "iu", differentiable=False)


def _logical_or_bitwise(logical, bitwise):
    """``&``, ``|``, ``^``: logical for bool tensors, bitwise otherwise (TF's ``and_`` ...)."""

    def forward(x, y):
        x = to_tensor(x)
        return (logical if x._value.dtype.kind == "b" else bitwise)(x, y)

    def reflected(self, other):
        x, y = binary_operands(other, self, bitwise.op.name)
        return forward(x if type(x) is Tensor else convert_to_tensor(x, dtype=y.dtype), y)

    return forward, reflected


def _invert(x):
    x = to_tensor(x)
    return logical_not(x) if x._value.dtype.kind == "b" else invert(x)


def _rmatmul(self, other):
    # TF converts the left operand to the right one's dtype before multiplying.
    b = to_tensor(self)
    a = other if getattr(other, "_is_variable", False) else convert_to_tensor(other, dtype=b.dtype)
    return matmul(a, b)


_and, _rand = _logical_or_bitwise(logical_and, bitwise_and)
_or, _ror = _logical_or_bitwise(logical_or, bitwise_or)
_xor, _rxor = _logical_or_bitwise(logical_xor, bitwise_xor)

OPERATORS = {
    "__add__": add,
    "__radd__": add.reflected,
    "__sub__": subtract,
    "__rsub__": subtract.reflected,
    "__mul__": multiply,
    "__rmul__": multiply.reflected,
    "__truediv__": truediv,
    "__rtruediv__": _rtruediv,
    "__floordiv__": floordiv,
    "__rfloordiv__": floordiv.reflected,
    "__mod__": floormod,
    "__rmod__": floormod.reflected,
    "__pow__": pow,
    "__rpow__": pow.reflected,
    "__matmul__": matmul,
    "__rmatmul__": _rmatmul,
    "__neg__": negative,
    "__abs__": abs,
    "__invert__": _invert,
    "__and__": _and,
    "__rand__": _rand,
    "__or__": _or,
    "__ror__": _ror,
    "__xor__": _xor,
    "__rxor__": _rxor,
    "__lt__": less,
    "__le__": less_equal,
    "__gt__": greater,
    "__ge__": greater_equal,
    "__eq__": _tensor_eq,
    "__ne__": _tensor_ne,
}
# A Variable's ``==`` has no ``None`` shortcut: TF's tries to convert None (ValueError).
_VARIABLE_OPERATORS = {**OPERATORS, "__eq__": _eq_op, "__ne__": _ne_op}


def install_operators(cls) -> None:
    table = _VARIABLE_OPERATORS if getattr(cls, "_is_variable", False) else OPERATORS
    for name, fn in table.items():
        setattr(cls, name, fn)
