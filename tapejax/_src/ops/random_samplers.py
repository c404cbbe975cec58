"""TF's random distributions as pure functions of a threefry key, and TF's checks of
their arguments.

A sampler is a pure JAX function of key data (``uint32[2]``) behind two ops: a stateful
one that splits a stream's state and returns it advanced with the samples, and a
stateless one keyed by a ``[2]`` int seed. ``_normal``, ``_uniform``, ``_categorical``
and ``_binomial`` check their arguments as TF does and compose TF's formula around a
``draw(sampler, args, static)`` callable that their caller gives: a stream of
``random_state`` or a stateless op's seed.

This module must never know where a key comes from: no state, no seed rules (those are
``random_state``'s), so that both the public ops and ``Generator`` can build on it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op
from ..errors import InvalidArgumentError, NotFoundError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import tf_type_name, to_tensor
from .array_ops import _check_dims, _ints
from .math_ops import add, multiply, subtract

_IMPL = "threefry2x32"
_FLOATS = "half, bfloat16, float, double"


# -- argument checks -----------------------------------------------------------------------


def _shape(shape, op_name: str) -> tuple:
    rank = "shape must be a vector of {{int32,int64}}, got shape [{}]"
    dims = _ints(shape, "T", op_name, rank, scalar_ok=False)
    if isinstance(shape, TensorShape) and None in shape.as_list():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    _check_dims(dims, op_name)
    return dims


def _dtype(dtype) -> dtypes.DType:
    return dtypes.as_dtype(dtype)


def _np(dt: dtypes.DType) -> np.dtype:
    return canonical_np_dtype(dt._np)


def _require_float(dt: dtypes.DType, op_name: str, attr: str = "dtype") -> None:
    if not dt.is_floating:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {tf_type_name(dt._np)} is not in the list of allowed "
            f"values: {_FLOATS} [Op:{op_name}]",
        )


def _param(value, dt: dtypes.DType, name: str) -> Tensor:
    """``ops.convert_to_tensor(value, dtype=dt, name=name)``: TF prefixes the name."""
    if getattr(value, "_is_variable", False):
        value = value._dense_read()
    try:
        return convert_to_tensor(value, dtype=dt)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _broadcast_args(a: Tensor, b: Tensor) -> tuple:
    """The broadcast shape of two parameters, or TF's ``BroadcastArgs`` error."""
    try:
        return tuple(np.broadcast_shapes(a._v.shape, b._v.shape))
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: [{','.join(map(str, a._v.shape))}] vs. "
            f"[{','.join(map(str, b._v.shape))}] [Op:BroadcastArgs]",
        ) from None


def _concrete(t: Tensor) -> bool:
    return not isinstance(t._value, jax.core.Tracer)


def _index_dtype(dtype, default=dtypes.int64) -> np.dtype:
    """int32/int64 (TF's allowed output types); int64 is int32 without JAX's x64 mode, as
    ``argmax``'s indices: every index fits."""
    dt = _dtype(default if dtype is None else dtype)
    if dt not in (dtypes.int32, dtypes.int64):
        raise ValueError(
            f"Argument `dtype` got invalid value {dt}. Accepted dtypes are (tf.int32, tf.int64)."
        )
    return np.dtype(np.int32) if not jax.config.jax_enable_x64 else dt._np


# -- samplers: pure functions of a key ---------------------------------------------------------


def _key(k):
    return jax.random.wrap_key_data(k, impl=_IMPL)


def _split_fn(state):
    new, sub = jax.random.split(jax.random.wrap_key_data(state, impl=_IMPL))
    return jax.random.key_data(new), jax.random.key_data(sub)


def _full_int(key, shape, dtype):
    dtype = np.dtype(dtype)
    bits = jax.random.bits(key, shape, np.dtype(f"uint{dtype.itemsize * 8}"))
    return bits if dtype.kind == "u" else jax.lax.bitcast_convert_type(bits, dtype)


def _categorical_fn(k, logits, *, num_samples, dtype):
    batch = logits.shape[0]
    draws = jax.random.categorical(_key(k), logits, axis=-1, shape=(num_samples, batch))
    return draws.T.astype(dtype)


def _shuffle_fn(k, x):
    return jax.random.permutation(_key(k), x, axis=0) if x.ndim else x


def _gamma_fn(k, alpha, *, shape, batch):
    a = jnp.broadcast_to(alpha, batch)
    return jax.random.gamma(_key(k), a, shape=shape + batch, dtype=alpha.dtype)


def _poisson_fn(k, lam, *, shape, dtype):
    rate = lam.astype(jnp.float32) if lam.dtype.kind != "f" else lam
    return jax.random.poisson(_key(k), rate, shape=shape + lam.shape).astype(dtype)


def _binomial_fn(k, counts, probs, *, shape, dtype):
    n = jnp.broadcast_to(counts, shape).astype(probs.dtype)
    p = jnp.broadcast_to(probs, shape)
    return jax.random.binomial(_key(k), n, p, shape=shape).astype(dtype)


def _seed_key_fn(seed):
    """A stateless op's key from its seed: the same for equal int32 and int64 seeds."""
    low = seed.astype(jnp.uint32)
    if seed.dtype.itemsize == 4:
        return low
    high = (seed >> 32).astype(jnp.uint32)
    folded = jax.random.key_data(
        jax.random.fold_in(jax.random.fold_in(_key(low), high[0]), high[1])
    )
    return jnp.where(jnp.any(high != 0), folded, low)


class _Sampler:
    """A sampler ``fn(key_data, *args, **static)`` as two ops: ``stateful`` takes a stream's
    state and also returns it advanced; ``stateless`` takes a ``[2]`` int seed."""

    def __init__(self, name: str, fn, stateless_name: str | None = None):
        def stateful(state, *args, **static):
            new, sub = _split_fn(state)
            return new, fn(sub, *args, **static)

        def stateless(seed, *args, **static):
            return fn(_seed_key_fn(seed), *args, **static)

        self.stateful = Op(name, stateful, differentiable=False, multiple_outputs=True)
        self.stateless = Op(stateless_name or name, stateless, differentiable=False)


_normal_sampler = _Sampler(
    "RandomStandardNormal",
    lambda k, *, shape, dtype: jax.random.normal(_key(k), shape, dtype),
    "StatelessRandomNormalV2",
)
_uniform_sampler = _Sampler(
    "RandomUniform",
    lambda k, *, shape, dtype: jax.random.uniform(_key(k), shape, dtype),
    "StatelessRandomUniformV2",
)
_uniform_int_sampler = _Sampler(
    "RandomUniformInt",
    lambda k, lo, hi, *, shape: jax.random.randint(_key(k), shape, lo, hi, lo.dtype),
    "StatelessRandomUniformIntV2",
)
_full_int_sampler = _Sampler(
    "StatefulUniformFullInt",
    lambda k, *, shape, dtype: _full_int(_key(k), shape, dtype),
    "StatelessRandomUniformFullIntV2",
)
_truncated_sampler = _Sampler(
    "TruncatedNormal",
    lambda k, *, shape, dtype: jax.random.truncated_normal(_key(k), -2.0, 2.0, shape, dtype),
    "StatelessTruncatedNormalV2",
)
_categorical_sampler = _Sampler("Multinomial", _categorical_fn, "StatelessMultinomial")
_shuffle_sampler = _Sampler("RandomShuffle", _shuffle_fn)
_poisson_sampler = _Sampler("RandomPoissonV2", _poisson_fn)
_binomial_sampler = _Sampler("StatelessRandomBinomial", _binomial_fn)
# JAX differentiates gamma samples w.r.t. alpha implicitly, as TF's RandomGammaGrad: a
# separate op from the (integer) key, so that the tape differentiates alpha only.
_gamma_op = Op("RandomGamma", _gamma_fn)


# -- the distributions, given where their key comes from ---------------------------------------


def _standard_params(mean, stddev) -> bool:
    return type(mean) is float and mean == 0.0 and type(stddev) is float and stddev == 1.0


def _normal(draw, shape, mean, stddev, dtype, op_name="RandomStandardNormal", sampler=None):
    dt = _dtype(dtype)
    # ``rnd * 1.0 + 0.0`` is ``rnd``, and no gradient can flow to Python constants: the
    # common call skips converting them (a float dtype accepts them, as TF's conversion).
    standard = _standard_params(mean, stddev) and dt.is_floating
    if not standard:
        mean_t = _param(mean, dt, "mean")
        stddev_t = _param(stddev, dt, "stddev")
    dims = _shape(shape, op_name)  # TF's kernel checks the shape after Python's conversions
    _require_float(dt, op_name)
    rnd = draw(sampler or _normal_sampler, (), (("shape", dims), ("dtype", _np(dt))))
    if standard:
        return rnd
    return add(multiply(rnd, stddev_t), mean_t)


_UNIFORM_DTYPES = (
    dtypes.float16,
    dtypes.bfloat16,
    dtypes.float32,
    dtypes.float64,
    dtypes.int32,
    dtypes.int64,
)


def _uniform(draw, shape, minval, maxval, dtype, stateless=False):
    dt = _dtype(dtype)
    full_range = False
    if stateless:
        if dt.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer `dtype` argument {dt}, argument `minval` and `maxval` must "
                    f"be both None or not None. Got `minval`={minval} and `maxval`={maxval}."
                )
            if minval is not None and dt in (dtypes.uint32, dtypes.uint64):
                raise ValueError(
                    f"Argument `dtype` got invalid value {dt} when argument `minval` is not "
                    "None. Please don't use unsigned integers in this case."
                )
            full_range = minval is None
        elif maxval is None:
            maxval = 1
    else:
        if dt not in _UNIFORM_DTYPES:
            accepted = ", ".join(f"tf.{d.name}" for d in _UNIFORM_DTYPES)
            raise ValueError(
                f"Argument `dtype` got invalid value {dt}. Accepted dtypes are ({accepted})."
            )
        if maxval is None:
            if dt.is_integer:
                raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
            maxval = 1
    int_op = "StatelessRandomUniformIntV2" if stateless else "RandomUniformInt"
    op_name = int_op if dt.is_integer else "RandomUniform"
    if full_range:
        dims = _shape(shape, op_name)
        return draw(_full_int_sampler, (), (("shape", dims), ("dtype", _np(dt))))
    minval_is_zero = not stateless and type(minval) is int and minval == 0
    maxval_is_one = not stateless and type(maxval) is int and maxval == 1
    if dt.is_integer:
        lo, hi = _param(minval, dt, "min"), _param(maxval, dt, "max")
        for t, what in ((lo, "minval"), (hi, "maxval")):
            if t._v.ndim:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"{what} must be 0-D, got shape [{','.join(map(str, t._v.shape))}] "
                    f"[Op:{op_name}]",
                )
        dims = _shape(shape, op_name)  # TF's kernel: bounds' ranks, the shape, then their order
        if _concrete(lo) and _concrete(hi) and not int(lo._value) < int(hi._value):
            raise InvalidArgumentError(
                None,
                None,
                f"Need minval < maxval, got {int(lo._value)} >= {int(hi._value)} [Op:{op_name}]",
            )
        return draw(_uniform_int_sampler, (lo, hi), (("shape", dims),))
    if not (minval_is_zero and maxval_is_one):
        minval = _param(minval, dt, "min")
        maxval = _param(maxval, dt, "max")
    dims = _shape(shape, op_name)  # TF's kernel checks the shape after Python's conversions
    _require_float(dt, op_name)
    rnd = draw(_uniform_sampler, (), (("shape", dims), ("dtype", _np(dt))))
    if minval_is_zero:
        return rnd if maxval_is_one else multiply(rnd, maxval)
    return add(multiply(rnd, subtract(maxval, minval)), minval)


def _categorical(draw, logits, num_samples, dtype, default_dtype=dtypes.int64):
    out_dt = _index_dtype(dtype, default_dtype)
    lg = to_tensor(logits)
    if not jnp.issubdtype(lg._v.dtype, jnp.floating):  # bfloat16 too (NumPy's kind "V")
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node Multinomial}} = Multinomial"
            f"[T=DT_{tf_type_name(lg._v.dtype).upper()}, output_dtype=DT_INT64]",
        )
    shape = lg._v.shape
    if len(shape) != 2:
        raise InvalidArgumentError(
            None,
            None,
            f"logits should be a matrix, got shape [{','.join(map(str, shape))}] [Op:Multinomial]",
        )
    n = int(convert_to_tensor(num_samples, dtype=dtypes.int32)._value)
    if n < 0:
        raise InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n} [Op:Multinomial]"
        )
    if shape[1] == 0:
        raise InvalidArgumentError(
            None, None, "num_classes should be positive, got 0 [Op:Multinomial]"
        )
    return draw(_categorical_sampler, (lg,), (("num_samples", n), ("dtype", out_dt)))


_BINOMIAL_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _binomial(draw, shape, counts, probs, output_dtype):
    dims = _shape(shape, "StatelessRandomBinomial")
    out = _dtype(output_dtype)
    if out not in _BINOMIAL_DTYPES:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'dtype' of {tf_type_name(out._np)} is not in the list of allowed "
            "values: half, float, double, int32, int64 [Op:StatelessRandomBinomial]",
        )
    p = to_tensor(probs)
    if not p.dtype.is_floating:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(p._v.dtype)} is not in the list of "
            f"allowed values: {_FLOATS} [Op:StatelessRandomBinomial]",
        )
    n = _param(counts, p.dtype, "counts")
    try:  # TF's rule: the broadcast shape of counts and probs ends ``shape``
        batch = np.broadcast_shapes(n._v.shape, p._v.shape)
        fits = len(batch) <= len(dims) and dims[len(dims) - len(batch) :] == batch
    except ValueError:
        fits = False
    if not fits:
        raise InvalidArgumentError(
            None,
            None,
            "Shape passed in must end with broadcasted shape. [Op:StatelessRandomBinomial]",
        )
    return draw(_binomial_sampler, (n, p), (("shape", dims), ("dtype", _np(out))))
