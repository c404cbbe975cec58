"""Random tensors (``tf.random``) and ``tf.nn.dropout``: the public random ops.

Each op checks its arguments as TF does and draws through ``draw(sampler, args,
static)``: from a stream of ``random_state`` chosen by TF's seed rules (the stateful
ops), or from its ``seed`` tensor alone (the ``stateless_*`` ops, which touch no state).
The distributions are ``random_samplers``'; ``set_seed``, ``Generator`` and the global
generator are ``random_state``'s, re-exported here.

.. warning::
   The numbers differ from TensorFlow's (JAX's threefry, not TF's Philox): shapes,
   dtypes, distributions, seed rules, gradients and errors are TF's.

This module must never hold random state of its own: a stateful draw goes through a
stream Variable of ``random_state``.
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import tf_type_name, to_tensor
from .array_ops import stack
from .math_ops import divide, maximum, multiply, subtract
from .random_samplers import (
    _binomial,
    _broadcast_args,
    _categorical,
    _dtype,
    _gamma_op,
    _normal,
    _np,
    _param,
    _poisson_sampler,
    _shape,
    _shuffle_sampler,
    _truncated_sampler,
    _uniform,
)
from .random_state import (
    Algorithm,
    Generator,
    _kind,
    _next_key,
    _stateful_draw,
    _stream,
    get_global_generator,
    set_global_generator,
    set_seed,
)

__all__ = [
    "set_seed",
    "normal",
    "uniform",
    "truncated_normal",
    "categorical",
    "shuffle",
    "gamma",
    "poisson",
    "stateless_normal",
    "stateless_uniform",
    "stateless_truncated_normal",
    "stateless_categorical",
    "stateless_binomial",
    "split",
    "fold_in",
    "Algorithm",
    "Generator",
    "get_global_generator",
    "set_global_generator",
    "dropout",
]


# -- tf.random -------------------------------------------------------------------------------


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution (``tf.random.normal``).

    ``mean`` and ``stddev`` broadcast against ``shape``; the gradient flows to them (as
    TF's ``rnd * stddev + mean``), never to ``shape`` or ``seed``.

    Example:
        >>> import tapejax as tf
        >>> tf.random.normal([2, 3], seed=1).shape
        TensorShape([2, 3])
    """
    return _normal(_stateful_draw(seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a uniform distribution on ``[minval, maxval)`` (``tf.random.uniform``).

    Integer dtypes need ``maxval`` (TF's ValueError) and scalar bounds with
    ``minval < maxval``.

    Example:
        >>> import tapejax as tf
        >>> x = tf.random.uniform([1000], minval=2, maxval=5, dtype=tf.int32, seed=3)
        >>> int(tf.reduce_min(x)) >= 2 and int(tf.reduce_max(x)) < 5
        True
    """
    return _uniform(_stateful_draw(seed), shape, minval, maxval, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples redrawn when more than 2 standard deviations from the mean
    (``tf.random.truncated_normal``)."""
    return _normal(
        _stateful_draw(seed), shape, mean, stddev, dtype, "TruncatedNormal", _truncated_sampler
    )


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices drawn from ``logits`` of shape ``[batch, classes]``
    (``tf.random.categorical``); ``[batch, num_samples]``, int64 by default (int32 without
    JAX's x64 mode, as ``argmax``)."""
    return _categorical(_stateful_draw(seed), logits, num_samples, dtype)


def shuffle(value, seed=None, name=None):
    """Shuffles ``value`` along its first dimension (``tf.random.shuffle``; no gradient)."""
    x = to_tensor(value)
    return _stateful_draw(seed)(_shuffle_sampler, (x,), ())


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma samples of shape ``shape + broadcast(alpha, beta).shape`` (``tf.random.gamma``).

    Differentiable w.r.t. ``alpha`` (implicit reparameterization, as TF) and ``beta``.
    """
    dt = _dtype(dtype)
    a = _param(alpha, dt, "alpha")
    b = _param(1 if beta is None else beta, dt, "beta")
    batch = _broadcast_args(a, b)
    # TF reads ``np.finfo(dtype).tiny`` before it runs the kernel: NumPy's ValueError for
    # integers and bfloat16, the kernel's error for the other dtypes it has no kernel for.
    np.finfo(dt.as_numpy_dtype)
    if dt not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(dt._np)} is not in the list of allowed "
            "values: half, float, double [Op:RandomGamma]",
        )
    dims = _shape(shape, "RandomGamma")  # TF's kernel checks the shape after the rest
    key = _next_key(_stream(seed, _kind("RandomGamma", (("dtype", a._v.dtype),))))
    sample = apply(_gamma_op, (key, a), (("shape", dims), ("batch", batch)))
    tiny = convert_to_tensor(np.finfo(a._v.dtype).tiny, dtype=a.dtype)
    return maximum(tiny, divide(sample, b))


_POISSON_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """Poisson samples of shape ``shape + lam.shape`` (``tf.random.poisson``; no gradient)."""
    dt = _dtype(dtype)
    rate = to_tensor(lam)
    for d, attr in ((dt, "dtype"), (rate.dtype, "R")):
        if d not in _POISSON_DTYPES:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr '{attr}' of {tf_type_name(d._np)} is not in the list of "
                "allowed values: half, float, double, int32, int64 [Op:RandomPoissonV2]",
            )
    dims = _shape(shape, "RandomPoissonV2")  # TF's kernel checks the shape after the dtypes
    return _stateful_draw(seed)(_poisson_sampler, (rate,), (("shape", dims), ("dtype", _np(dt))))


# -- stateless ---------------------------------------------------------------------------------


def _seed_draw(seed):
    """``draw(sampler, args, static)`` of a stateless op, after TF's checks of ``seed``."""
    s = _checked_seed(seed)
    return lambda sampler, args, static: apply(sampler.stateless, (s, *args), static)


def _checked_seed(seed, op_name: str = "StatelessRandomGetKeyCounter") -> Tensor:
    """A stateless op's ``seed`` as a tensor, after TF's checks (dtype, shape ``[2]``);
    ``op_name`` is the TF op whose error texts name it."""
    s = to_tensor(seed)
    if s._v.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tseed' of {tf_type_name(s._v.dtype)} is not in the list of "
            f"allowed values: int32, int64 [Op:{op_name}]",
        )
    if s._v.shape != (2,):
        raise InvalidArgumentError(
            None,
            None,
            f"seed must have shape [2], not [{','.join(map(str, s._v.shape))}] [Op:{op_name}]",
        )
    return s


def stateless_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"
):
    """Normal samples determined by ``seed`` (shape [2] ints) alone
    (``tf.random.stateless_normal``): the same seed gives the same numbers, every time."""
    return _normal(_seed_draw(seed), shape, mean, stddev, dtype, "StatelessRandomNormalV2")


def stateless_uniform(
    shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"
):
    """Uniform samples determined by ``seed`` (``tf.random.stateless_uniform``); integer
    dtypes with ``minval=maxval=None`` cover the dtype's whole range."""
    return _uniform(_seed_draw(seed), shape, minval, maxval, dtype, stateless=True)


def stateless_truncated_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"
):
    """Truncated normal samples determined by ``seed`` (``tf.random.stateless_truncated_normal``)."""
    return _normal(
        _seed_draw(seed),
        shape,
        mean,
        stddev,
        dtype,
        "StatelessTruncatedNormalV2",
        _truncated_sampler,
    )


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """Class indices from ``logits`` determined by ``seed`` (``tf.random.stateless_categorical``)."""
    return _categorical(_seed_draw(seed), logits, num_samples, dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial samples determined by ``seed`` (``tf.random.stateless_binomial``);
    ``counts`` and ``probs`` broadcast to ``shape``."""
    return _binomial(_seed_draw(seed), shape, counts, probs, output_dtype)


def split(seed, num=2, alg="auto_select"):
    """``num`` new ``[2]`` seeds from ``seed``, as rows of a ``[num, 2]`` tensor of the
    seed's dtype (``tf.random.split``; TF's composition, threefry's numbers)."""
    seed = to_tensor(seed)
    return stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype)


def fold_in(seed, data, alg="auto_select"):
    """A new ``[2]`` seed from ``seed`` and the integer ``data``: ``[random, data]`` with
    ``data``'s dtype (``tf.random.fold_in``; TF's composition, threefry's numbers)."""
    data = to_tensor(data)
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype)
    return stack([first, data])


# -- tf.nn.dropout -----------------------------------------------------------------------------


def _noise_shape(x: Tensor, noise_shape) -> tuple:
    if noise_shape is None:
        return tuple(x._v.shape)
    if isinstance(noise_shape, (list, tuple, TensorShape)):
        dims = list(noise_shape.as_list() if isinstance(noise_shape, TensorShape) else noise_shape)
        if len(dims) == x._v.ndim:
            dims = [x._v.shape[i] if d is None else d for i, d in enumerate(dims)]
        noise_shape = dims
    return _shape(noise_shape, "RandomUniform")


def dropout_with(x, rate, sample):
    """TF's ``nn_ops._dropout``: its checks, fast path and arithmetic, in its order, with
    ``sample(x)`` drawing the uniform numbers (``tf.nn.dropout``'s seeded stream, or
    ``general_dropout``'s sampler)."""
    is_rate_number = isinstance(rate, numbers.Real) and not isinstance(rate, Tensor)
    if is_rate_number and (rate < 0 or rate >= 1):
        raise ValueError(
            f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}"
        )
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(
            "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
            f"x_dtype={x.dtype}"
        )
    if is_rate_number and rate == 0:
        return x
    if is_rate_number:
        # TF's ``1 / (1 - rate)`` in the rate's own Python or NumPy type, then converted to
        # x's dtype (here by the op, as a weakly typed scalar).
        rate = float(rate)
        ret = multiply(x, float(1 / (1 - rate)))
    elif isinstance(rate, Tensor) or getattr(rate, "_is_variable", False):
        rate = to_tensor(rate)
        if rate._v.ndim != 0:
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        if rate.dtype != x.dtype:
            raise ValueError(
                "`x.dtype` must be compatible with `rate.dtype`. Received: "
                f"x.dtype={x.dtype} and rate.dtype={rate.dtype}"
            )
        ret = divide(x, subtract(1.0, rate))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    # Drawn before the shapes are checked, as TF's Mul after the draw checks them.
    random_tensor = to_tensor(sample(x))
    noise = tuple(random_tensor._v.shape)
    try:
        np.broadcast_shapes(noise, x._v.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"condition [{','.join(map(str, noise))}], then "
            f"[{','.join(map(str, x._v.shape))}], and else [] must be broadcastable "
            "[Op:SelectV2]",
        ) from None
    return apply(_keep_op, (random_tensor, ret, rate))


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes elements with probability ``rate`` and scales the rest by ``1 / (1 - rate)``
    (``tf.nn.dropout``).

    ``noise_shape`` (broadcast against ``x``'s shape) shares one keep/drop decision along
    its size-1 dimensions. The gradient is the keep mask times the scale, and flows to a
    tensor ``rate`` too, as TF's.

    Example:
        >>> import tapejax as tf
        >>> y = tf.nn.dropout(tf.ones([4, 5]), rate=0.5, seed=1)
        >>> sorted(set(y.numpy().ravel().tolist())) in ([0.0, 2.0], [2.0], [0.0])
        True
    """
    return dropout_with(
        x, rate, lambda x: uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
    )


# ``where(random >= rate, ret, 0)`` as one op: TF's GreaterEqual has no gradient, so the
# gradient flows to ``ret`` only (the keep mask), as through TF's SelectV2.
_keep_op = Op("SelectV2", lambda u, ret, rate: jnp.where(u >= rate, ret, jnp.zeros((), ret.dtype)))
