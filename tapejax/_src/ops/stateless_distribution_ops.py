"""The stateless gamma, Poisson and parameterized truncated normal of ``tf.random``.

Each is a pure function of its ``[2]`` int seed (through ``random_samplers``' threefry
key) and its parameters, which TF's rule broadcasts to the trailing dimensions of
``shape``. Gradients are TF's: ``stateless_gamma`` w.r.t. ``alpha`` by implicit
reparameterization (JAX's, the same formula as TF's ``RandomGammaGrad``) and ``beta``;
``stateless_parameterized_truncated_normal`` w.r.t. its four parameters by TF's own
formula (written out below: TF's gradient w.r.t. the mean is 1, not the implicit
derivative); ``stateless_poisson`` has none.

.. warning::
   The numbers differ from TensorFlow's (JAX's threefry, not TF's Philox): shapes,
   dtypes, distributions, gradients and errors are TF's.

This module must never touch random state: the seed alone determines every number.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import ndtr, ndtri

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import dtype_mismatch, tf_type_name, to_tensor
from .array_ops import broadcast_to
from .math_ops import divide, maximum
from .random_ops import _checked_seed
from .random_samplers import _broadcast_args, _dtype, _key, _np, _param, _seed_key_fn, _shape

__all__ = ["stateless_gamma", "stateless_poisson", "stateless_parameterized_truncated_normal"]

_HALF_FLOAT_DOUBLE = (dtypes.float16, dtypes.float32, dtypes.float64)


def _attr_error(attr: str, dt, allowed: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        None,
        f"Value for attr '{attr}' of {tf_type_name(np.dtype(dt))} is not in the list of "
        f"allowed values: {allowed} [Op:{op_name}]",
    )


def _ends_shape(dims: tuple, batch: tuple, op_name: str) -> None:
    """TF's rule for stateless distributions: the parameters' shape ends ``shape``."""
    if len(batch) > len(dims) or dims[len(dims) - len(batch) :] != tuple(batch):
        raise InvalidArgumentError(
            None, None, f"Shape passed in must end with broadcasted shape. [Op:{op_name}]"
        )


def _compute_dtype(dtype):
    # float16 samples are drawn in float32 and rounded (TF's kernels compute wider too).
    return jnp.float32 if dtype == jnp.float16 else dtype


# -- gamma -----------------------------------------------------------------------------------


def _gamma_fn(seed, alpha, *, shape):
    dt = _compute_dtype(alpha.dtype)
    a = jnp.broadcast_to(alpha, shape).astype(dt)
    return jax.random.gamma(_key(_seed_key_fn(seed)), a, shape, dt).astype(alpha.dtype)


# Differentiable w.r.t. alpha (JAX's implicit reparameterization); the seed is an integer.
_gamma_op = Op("StatelessRandomGammaV3", _gamma_fn)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Gamma samples determined by ``seed`` (``tf.random.stateless_gamma``).

    ``alpha`` and ``beta`` (default 1) broadcast together to the trailing dimensions of
    ``shape``; the result is ``max(tiny, gamma(alpha) / beta)``, differentiable w.r.t.
    ``alpha`` (implicit reparameterization, as TF) and ``beta``.

    Example:
        >>> import tapejax as tf
        >>> x = tf.random.stateless_gamma([1000, 2], seed=[1, 2], alpha=[0.5, 3.0])
        >>> x.shape, bool(tf.reduce_all(x > 0))
        (TensorShape([1000, 2]), True)
    """
    op_name = "StatelessRandomGammaV3"
    dt = _dtype(dtype)
    a = _param(alpha, dt, "alpha")
    b = _param(1 if beta is None else beta, dt, "beta")
    batch = _broadcast_args(a, b)
    s = _checked_seed(seed)
    if dt not in _HALF_FLOAT_DOUBLE:
        raise _attr_error("dtype", dt._np, "half, float, double", op_name)
    dims = _shape(shape, op_name)
    _ends_shape(dims, batch, op_name)
    if a._v.shape != batch:
        a = broadcast_to(a, batch)
    sample = apply(_gamma_op, (s, a), (("shape", dims),))
    tiny = convert_to_tensor(np.finfo(a._v.dtype).tiny, dtype=a.dtype)
    return maximum(tiny, divide(sample, b))


# -- Poisson ---------------------------------------------------------------------------------

_POISSON_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_POISSON_NAMES = "half, float, double, int32, int64"


def _poisson_fn(seed, lam, *, shape, dtype):
    rate = jnp.broadcast_to(lam, shape).astype(
        jnp.float64 if lam.dtype == jnp.float64 else jnp.float32
    )
    x = jax.random.poisson(_key(_seed_key_fn(seed)), rate, shape)
    return jnp.maximum(x, 0).astype(dtype)  # TF draws 0 for a rate <= 0 (JAX: -1)


_poisson_op = Op("StatelessRandomPoisson", _poisson_fn, differentiable=False)


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson samples determined by ``seed`` (``tf.random.stateless_poisson``; no
    gradient): ``lam`` broadcasts to the trailing dimensions of ``shape``; a rate of 0 or
    less draws 0, as TF.

    Example:
        >>> import tapejax as tf
        >>> x = tf.random.stateless_poisson([1000, 2], seed=[1, 2], lam=[0.5, 4.0])
        >>> x.dtype, x.shape
        (tf.int32, TensorShape([1000, 2]))
    """
    op_name = "StatelessRandomPoisson"
    dims = _shape(shape, op_name)
    s = _checked_seed(seed, op_name)
    rate = to_tensor(lam)
    out = _dtype(dtype)
    if rate.dtype not in _POISSON_TYPES:
        raise _attr_error("Rtype", rate._v.dtype, _POISSON_NAMES, op_name)
    if out not in _POISSON_TYPES:
        raise _attr_error("dtype", out._np, _POISSON_NAMES, op_name)
    _ends_shape(dims, rate._v.shape, op_name)
    return apply(_poisson_op, (s, rate), (("shape", dims), ("dtype", _np(out))))


# -- parameterized truncated normal ------------------------------------------------------------


def _standard_truncated(u, lo, hi):
    """The standard normal truncated to ``[lo, hi]`` at quantile ``u``, by the inverse CDF
    on the side of 0 where the interval's probabilities keep their precision (the left,
    after mirroring an interval above 0), and by the normal's Rayleigh-like tail where
    even those underflow (an interval beyond ~37 standard deviations in float64, ~13 in
    float32)."""
    flip = lo > 0
    a, b = jnp.where(flip, -hi, lo), jnp.where(flip, -lo, hi)
    pa, pb = ndtr(a), ndtr(b)
    x = ndtri(pa + u * (pb - pa))
    # Far tail (b < 0 and pb == 0): density ~ t exp(-t^2/2) on [t0, t1] with t = -x.
    t0, t1 = -b, -a
    span = -jnp.expm1(-0.5 * (t1 - t0) * (t1 + t0))
    tail = -jnp.sqrt(t0 * t0 - 2 * jnp.log1p(-u * span))
    x = jnp.clip(jnp.where(pb > 0, x, tail), a, b)  # rounding never leaves the interval
    return jnp.where(flip, -x, x)


@jax.custom_vjp
def _truncated_sample(u, mean, stddev, lo, hi):
    return mean + stddev * _standard_truncated(u, (lo - mean) / stddev, (hi - mean) / stddev)


def _truncated_fwd(u, mean, stddev, lo, hi):
    sample = _truncated_sample(u, mean, stddev, lo, hi)
    return sample, (u, mean, stddev, lo, hi, sample)


def _tf_ndtr(x):
    # TF's ``_Ndtr`` in its gradient: erf near 0, erfc in the tails.
    half_sqrt_2 = 0.5 * np.sqrt(2.0)
    w = x * half_sqrt_2
    z = jnp.abs(w)
    y = jnp.where(
        z < half_sqrt_2,
        1.0 + jax.lax.erf(w),
        jnp.where(w > 0.0, 2.0 - jax.lax.erfc(z), jax.lax.erfc(z)),
    )
    return 0.5 * y


def _truncated_bwd(res, g):
    """TF's gradient (``_StatelessParameterizedTruncatedNormalGrad``)."""
    u, mean, stddev, lo, hi, sample = res
    lo_std, hi_std = (lo - mean) / stddev, (hi - mean) / stddev
    sample_std = (sample - mean) / stddev
    cdf = (_tf_ndtr(sample_std) - _tf_ndtr(lo_std)) / (_tf_ndtr(hi_std) - _tf_ndtr(lo_std))
    info = np.finfo(sample.dtype)
    cdf = jnp.clip(cdf, info.tiny, 1 - info.eps)
    d_hi = jnp.exp(0.5 * (sample_std**2 - hi_std**2) + jnp.log(cdf))
    d_lo = jnp.exp(0.5 * (sample_std**2 - lo_std**2) + jnp.log1p(-cdf))
    return jnp.zeros_like(u), g, g * sample_std, g * d_lo, g * d_hi


_truncated_sample.defvjp(_truncated_fwd, _truncated_bwd)


def _ptn_fn(seed, mean, stddev, lo, hi, *, shape):
    dt = mean.dtype
    work = _compute_dtype(dt)
    params = [jnp.broadcast_to(p, shape).astype(work) for p in (mean, stddev, lo, hi)]
    # u > 0: the quantile 0 of an interval open to -inf would be -inf.
    u = jax.random.uniform(_key(_seed_key_fn(seed)), shape, work, minval=np.finfo(work).tiny)
    m, sd, a, b = params
    valid = (sd > 0) & (a < b) & (jnp.isfinite(a) | jnp.isfinite(b))
    sample = _truncated_sample(u, m, sd, a, b)
    return jnp.where(valid, sample, jnp.nan).astype(dt)  # TF: "Invalid parameters"


_ptn_op = Op("StatelessParameterizedTruncatedNormal", _ptn_fn)
_PTN_PARAMS = ("means", "stddevs", "minvals", "maxvals")


def _check_ptn_values(params, shape) -> None:
    """TF's check of concrete parameters (a traced call gives NaN where they are invalid)."""
    if any(isinstance(p._value, jax.core.Tracer) for p in params):
        return
    m, sd, a, b = (np.broadcast_to(np.asarray(p._value, np.float64), shape) for p in params)
    if not np.all((sd > 0) & (a < b) & (np.isfinite(a) | np.isfinite(b))):
        raise InvalidArgumentError(
            None, None, "Invalid parameters [Op:StatelessParameterizedTruncatedNormal]"
        )


def stateless_parameterized_truncated_normal(
    shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0, name=None
):
    """Normal samples truncated to ``[minvals, maxvals]``, determined by ``seed``
    (``tf.random.stateless_parameterized_truncated_normal``).

    The four parameters (each converted on its own, of one float dtype: the result's)
    broadcast together to the trailing dimensions of ``shape``. Gradients w.r.t. them are
    TF's implicit-reparameterization formulas (w.r.t. ``means``: 1 per sample, as TF).

    Example:
        >>> import tapejax as tf
        >>> x = tf.random.stateless_parameterized_truncated_normal(
        ...     [1000], seed=[1, 2], minvals=0.0, maxvals=1.0)
        >>> bool(tf.reduce_all((x >= 0.0) & (x <= 1.0)))
        True
    """
    op_name = "StatelessParameterizedTruncatedNormal"
    dims = _shape(shape, op_name)
    s = _checked_seed(seed, op_name)
    params = [to_tensor(p) for p in (means, stddevs, minvals, maxvals)]
    dt = params[0]._v.dtype
    if params[0].dtype not in _HALF_FLOAT_DOUBLE:
        raise _attr_error("dtype", dt, "half, float, double", op_name)
    for i, p in enumerate(params[1:], start=3):
        if p._v.dtype != dt:
            raise dtype_mismatch(op_name, i, dt, p._v.dtype)
    try:
        batch = tuple(np.broadcast_shapes(*(p._v.shape for p in params)))
    except ValueError:
        shapes = " vs. ".join(f"[{','.join(map(str, p._v.shape))}]" for p in params)
        raise InvalidArgumentError(
            None,
            None,
            f"{', '.join(_PTN_PARAMS)} must have compatible batch dimensions: {shapes} "
            f"[Op:{op_name}]",
        ) from None
    _ends_shape(dims, batch, op_name)
    _check_ptn_values(params, dims)
    return apply(_ptn_op, (s, *params), (("shape", dims),))
