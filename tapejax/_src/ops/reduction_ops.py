"""Reductions (``reduce_*``, ``argmax``/``argmin``) with TF's axis rules and dtypes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import (
    axis_ints,
    normalize_axis,
    require,
    tf_type_name,
    to_tensor,
)
from .math_ops import NUMERIC

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
