"""Reductions (``reduce_*``, moments and norms, ``argmax``/``argmin``, ``count_nonzero``)
and cumulative scans (``cumsum``, ``cumprod``, ``cumulative_logsumexp``), with TF's axis
rules, dtypes and errors. (``top_k`` and its kin are in ``top_k_ops``.)

``cumprod``'s gradient is TF's (``div_no_nan`` by the input: 0 where an input is 0), as
a ``jax.custom_jvp``; so is ``reduce_prod``'s, written as TF's ``_ProdGrad`` with those
cumprods, so that its second derivative is TF's too (0, not the exact value, where two
inputs are 0). The others are JAX's derivatives, which equal TF's.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..registry import register_reverse_rule
from . import math_ops, tf_rules
from ._helpers import (
    TF_ALLOWED,
    axis_ints,
    normalize_axis,
    require,
    tf_type_name,
    to_tensor,
)
from .math_ops import NUMERIC, sqrt

# -- reductions -----------------------------------------------------------------------------


def _same_dtype(reducer):
    """``reducer`` (``jnp.sum``, ``jnp.prod``) keeping an integer input's dtype, as TF's
    kernels do (wrapping on overflow); NumPy's rule would widen an int8 sum to the default
    int (int32, or int64 in 64-bit mode)."""

    def fn(x, *, axis, keepdims):
        dtype = x.dtype if x.dtype.kind in "iu" else None
        return reducer(x, axis=axis, keepdims=keepdims, dtype=dtype)

    return fn


def _int_mean(x, axis=None, keepdims=False):
    # TF sums the narrower integers in a wider type (its exact mean); NumPy's promotion
    # does the same up to the default int (int64 in 64-bit mode). The mean is the input's
    # dtype again.
    total = jnp.sum(x, axis=axis, keepdims=keepdims)
    count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    return jax.lax.div(total, jnp.asarray(max(count, 1), total.dtype)).astype(x.dtype)


def _mean_fn(x, *, axis, keepdims):
    if x.dtype.kind in "iu":
        return _int_mean(x, axis, keepdims)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _reduction(tf_name: str, fn, kinds: str = NUMERIC, differentiable: bool = True):
    op = Op(tf_name, fn, differentiable=differentiable)

    def public(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        require(x, kinds, tf_name)
        ax = normalize_axis(axis, x._v.ndim, tf_name)
        return apply(op, (x,), (("axis", ax), ("keepdims", bool(keepdims))))

    public.__name__ = "reduce_" + tf_name.lower()
    public.__doc__ = f"Reduces with ``{tf_name}`` over ``axis`` (all axes if None), as ``tf.math``."
    public.op = op
    return public


reduce_sum = _reduction("Sum", _same_dtype(jnp.sum))
reduce_mean = _reduction("Mean", _mean_fn)


def _extreme_fn(reducer, largest: bool):
    def plain(x, axis, keepdims):
        if x.size == 0:
            # TF returns the reduction's identity (-inf, or the dtype's min, for max).
            if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16._np:
                ident = -np.inf if largest else np.inf
            else:
                info = np.iinfo(x.dtype)
                ident = info.min if largest else info.max
            return reducer(x, axis=axis, keepdims=keepdims, initial=ident)
        return reducer(x, axis=axis, keepdims=keepdims)

    @functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2))
    def extreme(x, axis, keepdims):
        return plain(x, axis, keepdims)

    @extreme.defjvp
    def _jvp(axis, keepdims, primals, tangents):
        # TF's _MinOrMaxGrad: the gradient split equally among the elements equal to the
        # result; where none is (a NaN result), 0 / 0: NaN for every element, where JAX's
        # rule gives 0.
        (x,), (t,) = primals, tangents
        chosen = (x == plain(x, axis, True)).astype(t.dtype)
        count = jnp.sum(chosen, axis=axis, keepdims=True)
        # TF's 0 / 0 written out: XLA folds chosen / count to 0 when nothing is chosen.
        share = jnp.where(count == 0, jnp.nan, chosen / jnp.where(count == 0, 1, count))
        return extreme(x, axis, keepdims), jnp.sum(share * t, axis=axis, keepdims=keepdims)

    def fn(x, *, axis, keepdims):
        if x.dtype.kind in "iu":
            return plain(x, axis, keepdims)
        return extreme(x, axis, keepdims)

    return fn


# TF's Max with TF's gradient, for composites made of it (norm's inf and matrix norms).
tf_max = _extreme_fn(jnp.max, True)
reduce_max = _reduction("Max", tf_max, "fiu")
reduce_min = _reduction("Min", _extreme_fn(jnp.min, False), "fiu")


def _prod_of_others(x, axis):
    """TF's ``_ProdGrad`` factor: for each element, the product of the others it is reduced
    with, as TF writes it (reduced axes first, in ``axis``'s order, flattened into one, and
    the product of the exclusive cumprods from either end), so that its derivative is TF's
    second derivative: ``cumprod``'s TF gradient (0 at an input that is 0), and TF's
    overflow and rounding."""
    n = x.ndim
    reduced = list(range(n)) if axis is None else list(axis)
    other = [i for i in range(n) if i not in reduced]
    perm = reduced + other
    permuted = jnp.transpose(x, perm)
    rows = math.prod(x.shape[a] for a in reduced)
    flat = jnp.reshape(permuted, (rows, math.prod(x.shape[a] for a in other)))
    left = _float_cumprod(flat, 0, True, False)
    right = _float_cumprod(flat, 0, True, True)
    return jnp.transpose(jnp.reshape(left * right, permuted.shape), np.argsort(perm))


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _float_prod(x, axis, keepdims):
    return jnp.prod(x, axis=axis, keepdims=keepdims)


@_float_prod.defjvp
def _float_prod_jvp(axis, keepdims, primals, tangents):
    # Transposed, the tangent is TF's grad * (product of the others), broadcast.
    (x,), (t,) = primals, tangents
    others = _prod_of_others(x, axis)
    return _float_prod(x, axis, keepdims), jnp.sum(t * others, axis=axis, keepdims=keepdims)


def _prod_fn(x, *, axis, keepdims):
    if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16._np:
        return _float_prod(x, axis, keepdims)
    return _same_dtype(jnp.prod)(x, axis=axis, keepdims=keepdims)


reduce_prod = _reduction("Prod", _prod_fn)
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
        n = x._v.ndim
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


def _narrowed(out_dt) -> np.dtype:
    """An int64 result as int32 when JAX's x64 mode is off (every count and index fits);
    other dtypes as ``canonical_np_dtype`` holds them (uint64 as uint32, with its warning)."""
    narrow = out_dt._np == np.int64 and not jax.config.jax_enable_x64
    return np.dtype(np.int32) if narrow else canonical_np_dtype(out_dt._np)


# -- moments and norms ----------------------------------------------------------------------

TF_ALLOWED.update(
    {
        "EuclideanNorm": TF_ALLOWED["Sum"],
        "Cumsum": TF_ALLOWED["Sum"],
        "Cumprod": TF_ALLOWED["Sum"],
        "CumulativeLogsumexp": "bfloat16, half, float, double",
    }
)


def _variance_fn(x, *, axis, keepdims):
    d = x - jnp.mean(x, axis=axis, keepdims=True)
    squared = (jnp.conj(d) * d).real if jnp.iscomplexobj(d) else d * d
    return jnp.mean(squared, axis=axis, keepdims=keepdims)


_variance_op = Op("ReduceVariance", _variance_fn)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance over ``axis`` (``tf.math.reduce_variance``); of a complex tensor, a real one.

    As TF: the mean of ``|x - mean(x)|**2`` (divisor N); an integer input is a TypeError.
    """
    x = to_tensor(input_tensor)
    require(x, NUMERIC, "Mean")
    if x._v.dtype.kind in "iu":
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
    ax = normalize_axis(axis, x._v.ndim, "Mean")
    return apply(_variance_op, (x,), (("axis", ax), ("keepdims", bool(keepdims))))


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over ``axis``: ``sqrt(reduce_variance)``, as ``tf.math.reduce_std``.

    The gradient is TF's: NaN where the variance is 0 (the square root's kink).
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


def _int_euclidean_norm(total):
    """TF's integer kernel: the sum of squares in the input's dtype (wrapping on overflow),
    then C's ``sqrt`` in double, truncated back (a negative sum's NaN converts to the low
    bits of INT_MIN, as x86 does: 0 for 8- and 16-bit integers)."""
    dtype = total.dtype
    if jax.config.jax_enable_x64:
        root = jnp.sqrt(total.astype(jnp.float64))
        # float64 -> int64 is exact below 2**63; larger uint64 roots cannot occur
        result = root.astype(dtype)
    else:
        # At most 32 bits: the truncated root is the integer square root, which float32
        # can miss by one; correct it in uint32 (roots are below 2**16).
        t = total.astype(jnp.uint32)
        r = jnp.minimum(jnp.sqrt(total.astype(jnp.float32)), 65535.0).astype(jnp.uint32)
        r = jnp.where(r * r > t, r - 1, r)
        up = jnp.minimum(r + 1, 65535)
        r = jnp.where((up > r) & (up * up <= t), up, r)
        result = r.astype(dtype)
    if dtype.kind == "i":
        nan_as_int = np.iinfo(dtype).min if dtype.itemsize >= 4 else 0
        result = jnp.where(total < 0, jnp.asarray(nan_as_int, dtype), result)
    return result


def _euclidean_norm_fn(x, *, axis, keepdims):
    if x.dtype.kind in "iu":
        return _int_euclidean_norm(jnp.sum(x * x, axis=axis, keepdims=keepdims, dtype=x.dtype))
    return jnp.sqrt(jnp.sum(x * jnp.conj(x), axis=axis, keepdims=keepdims))


reduce_euclidean_norm = _reduction("EuclideanNorm", _euclidean_norm_fn)
reduce_euclidean_norm.__name__ = "reduce_euclidean_norm"


def _l2_normalize_fn(x, *, axis, epsilon):
    # TF's Square (its gradient 2 * x overflows at 3e38, where x * x's does not).
    squares = (x * jnp.conj(x)).real if jnp.iscomplexobj(x) else tf_rules.square(x)
    square_sum = jnp.sum(squares, axis=axis, keepdims=True)
    eps = jnp.asarray(epsilon, square_sum.dtype)
    # TF: rsqrt(maximum(square_sum, epsilon)). Where epsilon wins (or the sum is NaN),
    # TF's Maximum gradient sends nothing to the sum and its RsqrtGrad gives 0 for that
    # zero upstream even where the norm is NaN; JAX's product rule would give 0 * NaN in
    # second derivatives, so there the norm is a constant. A tie goes to the sum, as TF's.
    # A zero sum on that side (all of x 0, with an epsilon that is 0 or underflows, as 1e-12
    # does in float16) is a constant too: TF's RsqrtGrad gives 0 for the zero upstream
    # sum(g * x) where the norm is inf, and x's gradient is g * inf, not NaN.
    on_sum = square_sum >= eps
    live = on_sum & (square_sum != 0)
    inv_norm = jnp.where(
        live,
        math_ops._rsqrt(jnp.where(live, square_sum, jnp.ones_like(square_sum))),
        jax.lax.stop_gradient(jax.lax.rsqrt(jnp.maximum(square_sum, eps))),
    )
    return x * inv_norm


_l2_normalize_op = Op("L2Normalize", _l2_normalize_fn)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))`` (``tf.math.l2_normalize``, ``tf.nn``'s too).

    ``dim`` is TF's deprecated name for ``axis``.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    x = to_tensor(x)
    require(x, "fiuc", "Square")  # TF's sum of squares fails first for bool
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"Cannot convert {epsilon!r} to EagerTensor of dtype {x.dtype.name}")
    ax = normalize_axis(axis, x._v.ndim, "Sum")
    return apply(_l2_normalize_op, (x,), (("axis", ax), ("epsilon", float(epsilon))))


def _count_nonzero_fn(x, *, axis, keepdims, dtype):
    return jnp.sum(x != 0, axis=axis, keepdims=keepdims, dtype=jnp.int32).astype(dtype)


_count_nonzero_op = Op("CountNonzero", _count_nonzero_fn, differentiable=False)


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """The number of nonzero elements over ``axis`` (``tf.math.count_nonzero``), not differentiable.

    int64 as in TF when JAX's x64 mode is on, else int32.
    """
    x = to_tensor(input)
    ax = normalize_axis(axis, x._v.ndim, "Sum")
    static = (
        ("axis", ax),
        ("keepdims", bool(keepdims)),
        ("dtype", _narrowed(dtypes.as_dtype(dtype))),
    )
    return apply(_count_nonzero_op, (x,), static)


_zero_fraction_op = Op(
    "ZeroFraction", lambda x: jnp.mean(x == 0, dtype=jnp.float32), differentiable=False
)


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value``, as float32 (``tf.math.zero_fraction``)."""
    return apply(_zero_fraction_op, (to_tensor(value),))


# -- cumulative ops -------------------------------------------------------------------------


def _shifted(out, axis: int, reverse: bool, fill):
    """``out`` moved one step along ``axis`` in the scan direction: the exclusive scan."""
    n = out.shape[axis]
    pad = jnp.full_like(jax.lax.slice_in_dim(out, 0, min(n, 1), axis=axis), fill)
    if reverse:
        return jnp.concatenate([jax.lax.slice_in_dim(out, min(n, 1), n, axis=axis), pad], axis=axis)
    return jnp.concatenate([pad, jax.lax.slice_in_dim(out, 0, max(n - 1, 0), axis=axis)], axis=axis)


def _scan(lax_scan, fill):
    def fn(x, *, axis, exclusive, reverse):
        out = lax_scan(x, axis=axis, reverse=reverse)
        return _shifted(out, axis, reverse, fill) if exclusive else out

    return fn


_cumsum_fn = _scan(jax.lax.cumsum, 0)
_plain_cumprod = _scan(jax.lax.cumprod, 1)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _float_cumprod(x, axis, exclusive, reverse):
    return _plain_cumprod(x, axis=axis, exclusive=exclusive, reverse=reverse)


@_float_cumprod.defjvp
def _float_cumprod_jvp(axis, exclusive, reverse, primals, tangents):
    # TF's _CumprodGrad: div_no_nan(cumsum(prod * g, reversed), x): zero where x == 0 (the
    # true derivative there is the product of the others; JAX's is exact).
    (x,), (t,) = primals, tangents
    # For a complex input TF's rule does not conjugate (unlike its usual convention, which
    # lowering implements): the conjugates here cancel lowering's.
    prod = _float_cumprod(x, axis, exclusive, reverse)
    safe = jnp.where(x == 0, jnp.ones_like(x), jnp.conj(x))
    ratio = jnp.where(x == 0, jnp.zeros_like(t), t / safe)
    scan = _cumsum_fn(ratio, axis=axis, exclusive=exclusive, reverse=reverse)
    return prod, jnp.conj(prod) * scan


def _cumprod_fn(x, *, axis, exclusive, reverse):
    if x.dtype.kind in "fc" or x.dtype == dtypes.bfloat16._np:
        return _float_cumprod(x, axis, exclusive, reverse)
    return _plain_cumprod(x, axis=axis, exclusive=exclusive, reverse=reverse)


def _tf_cumlogsumexp(x, axis, reverse):
    """TF's CPU scan, which folds ``acc = log1p(exp(min - max)) + max`` left to right with
    Eigen's min and max (``b < a ? b : a``): a NaN element compares false, so it counts as
    a copy of the sum so far (doubling it; nothing while the sum is empty), and a NaN or
    +inf element after a +inf makes the sum NaN (inf - inf), as does any element after a
    NaN sum. The doubling is linear in the sum, so an associative scan of
    ``sum -> a * sum + b`` (in logs) reproduces it."""
    nan = jnp.isnan(x)
    log_a = jnp.where(nan, np.log(2.0).astype(x.dtype), jnp.zeros_like(x))
    log_b = jnp.where(nan, -jnp.inf, x)

    def combine(first, second):
        (la1, lb1), (la2, lb2) = first, second
        return la1 + la2, jnp.logaddexp(lb1 + la2, lb2)

    _, out = jax.lax.associative_scan(combine, (log_a, log_b), reverse=reverse, axis=axis)
    infinite = (x == jnp.inf).astype(jnp.int32)
    seen = jax.lax.cumsum(infinite, axis=axis, reverse=reverse) - infinite  # before each
    broken = (nan | (x == jnp.inf)) & (seen > 0)
    broken = jax.lax.cummax(broken.astype(jnp.int32), axis=axis, reverse=reverse) > 0
    return jnp.where(broken, jnp.nan, out)


_cumlse_fn = _scan(lambda x, axis, reverse: _tf_cumlogsumexp(x, axis, reverse), -np.inf)
_SCAN_ATTRS = ("axis", "exclusive", "reverse")


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _cumlse_reverse(x, axis, exclusive, reverse):
    return _cumlse_fn(x, axis=axis, exclusive=exclusive, reverse=reverse)


def _cumlse_fwd(x, axis, exclusive, reverse):
    y = _cumlse_reverse(x, axis, exclusive, reverse)
    return y, (x, y)


def _cumlse_bwd(axis, exclusive, reverse, residuals, g):
    # TF's _CumulativeLogsumexpGrad, in log space with the upstream split by sign: exact
    # where JAX's exp(x - y) products lose it (x = 1e10), and 0 where an output is inf.
    x, y = residuals
    lowest = jnp.finfo(g.dtype).min

    def part(log_g):
        scan = _cumlse_reverse(log_g - y, axis, exclusive, not reverse)
        return jnp.exp(scan + x)

    positive = part(jnp.where(g > 0, jnp.log(g), lowest))
    negative = part(jnp.where(g < 0, jnp.log(-g), lowest))
    return (positive - negative,)


_cumlse_reverse.defvjp(_cumlse_fwd, _cumlse_bwd)
# Reverse mode only: TF's rule is not linear in the upstream gradient (its sign split).
register_reverse_rule(
    "CumulativeLogsumexp",
    lambda static: lambda x: _cumlse_reverse(x, *(dict(static)[k] for k in _SCAN_ATTRS)),
)


def _cumulative(tf_name: str, fn, kinds: str):
    op = Op(tf_name, fn)

    def public(x, axis=0, exclusive=False, reverse=False, name=None):
        x = to_tensor(x)
        require(x, kinds, tf_name)
        if isinstance(axis, (list, tuple)) or np.ndim(axis) != 0:
            shown = ",".join(map(str, np.shape(axis)))
            raise InvalidArgumentError(
                None, None, f"ScanOp: axis must be a scalar, not [{shown}] [Op:{tf_name}]"
            )
        (ax,) = axis_ints(axis)
        n = x._v.ndim
        if not -n <= ax < n:
            raise InvalidArgumentError(
                None,
                None,
                f"ScanOp: Expected scan axis in the range [{-n}, {n}), but got {ax} [Op:{tf_name}]",
            )
        static = (("axis", ax % n), ("exclusive", bool(exclusive)), ("reverse", bool(reverse)))
        return apply(op, (x,), static)

    public.op = op
    return public


cumsum = _cumulative("Cumsum", _cumsum_fn, NUMERIC)
cumsum.__name__ = "cumsum"
cumsum.__doc__ = """Cumulative sum along ``axis`` (``tf.math.cumsum``).

    ``exclusive`` leaves out each element itself (the first output is 0); ``reverse`` sums
    from the end.
    """
cumprod = _cumulative("Cumprod", _cumprod_fn, NUMERIC)
cumprod.__name__ = "cumprod"
cumprod.__doc__ = """Cumulative product along ``axis`` (``tf.math.cumprod``).

    .. warning:: TF's gradient, not the exact one, where an input is 0: TF divides by the
       input with ``div_no_nan``, so the gradient is 0 there.
    """
cumulative_logsumexp = _cumulative("CumulativeLogsumexp", _cumlse_fn, "f")
cumulative_logsumexp.__name__ = "cumulative_logsumexp"
cumulative_logsumexp.__doc__ = """``log(cumsum(exp(x)))`` computed stably (``tf.math.cumulative_logsumexp``).

    ``exclusive``: the first output is ``-inf`` (the log of an empty sum). NaN and inf as
    TF's kernel: a NaN element doubles the sum so far, inf after inf gives NaN; the
    gradient is TF's log-space formula.
    """
