"""Random tensors (``tf.random``) and ``tf.nn.dropout`` on explicit JAX PRNG keys.

Every draw takes a fresh threefry subkey from a *stream*: a hidden, non-trainable
tapejax Variable holding key data (``uint32[2]``) that each draw splits and advances.
Because the state is a Variable, ``tapejax.function`` functionalizes it like any other:
each call of a compiled step draws fresh numbers, and the sequence repeats after
``set_seed``. TF's seed rules choose the stream:

- no global seed, no op seed: the global stream, seeded from OS entropy at import;
- a global seed, no op seed: the global stream, reset by ``set_seed``;
- an op seed: a stream of its own per op seed and kernel (op and dtype, TF's kernel
  cache key), started from (global seed, op seed), or from (TF's default global seed,
  op seed) when none is set, so such draws repeat from program start and do not
  depend on other random calls (as TF's per-kernel counters).

``Generator`` keeps its own stream; the ``stateless_*`` ops derive their key from their
``seed`` tensor only and touch no state.

.. warning::
   The numbers differ from TensorFlow's (JAX's threefry, not TF's Philox): shapes,
   dtypes, distributions, seed rules, gradients and errors are TF's.

This module must never read a stream's state other than through its Variable (a state
held in Python would be baked into a compiled program as a constant).
"""

from __future__ import annotations

import enum
import numbers
import os
import zlib

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, recorder, variables
from ..binding import VariableWatcher
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, NotFoundError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import tf_type_name, to_tensor
from .array_ops import _check_dims, _ints, stack
from .math_ops import add, divide, maximum, multiply, subtract

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

_DEFAULT_GLOBAL_SEED = 87654321  # TF's DEFAULT_GRAPH_SEED: the global seed when none is set
_IMPL = "threefry2x32"
_MASK64 = 2**64 - 1
_FLOATS = "half, bfloat16, float, double"


# -- streams ---------------------------------------------------------------------------------


def _derive(*seeds: int) -> np.ndarray:
    """Key data for a stream started from ``seeds`` (any Python ints): a fixed mixing."""
    entropy = [int(s) & _MASK64 for s in seeds]
    return np.random.SeedSequence(entropy).generate_state(2, np.uint32)


def _entropy() -> np.ndarray:
    return np.frombuffer(os.urandom(8), np.uint32).copy()


def _state_variable(key_data: np.ndarray, name: str) -> variables.Variable:
    """A stream's Variable: library state, so made even where ``tapejax.function`` refuses
    new user Variables (a first draw with a new op seed inside a traced step), and from
    concrete values even inside a JAX trace."""
    hooks = list(variables._creation_hooks)
    variables._creation_hooks.clear()
    try:
        with jax.ensure_compile_time_eval():
            return variables.Variable(key_data, trainable=False, name=name)
    finally:
        variables._creation_hooks[:] = hooks


def _split_fn(state):
    new, sub = jax.random.split(jax.random.wrap_key_data(state, impl=_IMPL))
    return jax.random.key_data(new), jax.random.key_data(sub)


_split_op = Op("RngReadAndSkip", _split_fn, differentiable=False, multiple_outputs=True)


_UNFUNCTIONALIZED = (
    "A stateful tapejax.random op ran inside a JAX transformation (jax.jit, jax.vmap, ...) "
    "that does not carry tapejax Variables, so its random state could not advance. Wrap "
    "the function in tapejax.function, use the stateless_* ops with a seed you pass in, or "
    "draw from a tapejax.random.Generator whose `state` Variable you pass to "
    "tapejax.functionalize."
)


def _store(state: variables.Variable, new: Tensor) -> None:
    """Advances a stream: an assignment (seen by ``tapejax.function``) without
    ``assign``'s conversions, which a key of the stream's own dtype and shape never needs.

    A traced new state may only replace a traced (bound) one, or be undone by the
    watcher of a ``tapejax.function`` trace: otherwise a tracer would leak into the
    stream and break every later draw.
    """
    value = new._value
    if (
        isinstance(value, jax.core.Tracer)
        and not isinstance(state._value, jax.core.Tracer)
        and not any(isinstance(r, VariableWatcher) for r in recorder.active())
    ):
        raise RuntimeError(_UNFUNCTIONALIZED)
    state._accessed()
    state._value = value


def _next_key(state: variables.Variable) -> Tensor:
    """A fresh subkey (key data) from ``state``, which advances."""
    new, sub = apply(_split_op, (state._dense_read(),))
    _store(state, new)
    return sub


def _stream_draw(state: variables.Variable):
    """``draw(sampler, args, static)`` from a stream: one fused op splits the key, samples
    and returns the advanced state."""

    def draw(sampler, args, static):
        new, out = apply(sampler.stateful, (state._dense_read(), *args), static)
        _store(state, new)
        return out

    return draw


_global_seed: list = [None]  # the Python int given to ``set_seed``, or None
_global_stream = _state_variable(_entropy(), "global_rng_state")
# (op seed, kind) -> its stream's Variable. The kind (op and dtype) stands for TF's
# kernel cache key: TF keeps one counter per kernel, so ``uniform(seed=5)`` and
# ``normal(seed=5)`` draw independently of each other.
_op_streams: dict = {}


def _op_stream_start(op_seed: int, kind: str) -> np.ndarray:
    g = _global_seed[0]
    tag = zlib.crc32(kind.encode())
    return _derive(1, _DEFAULT_GLOBAL_SEED if g is None else g, op_seed, tag)


def _stream(seed, kind: str) -> variables.Variable:
    """The stream of a stateful op of ``kind`` with op-level ``seed`` (TF's ``get_seed``
    rules)."""
    if seed is None:
        return _global_stream
    key = (int(seed), kind)
    stream = _op_streams.get(key)
    if stream is None:
        stream = _op_streams[key] = _state_variable(
            _op_stream_start(*key), f"rng_state_seed_{key[0]}"
        )
    return stream


def _kind(op_name: str, static: tuple) -> str:
    return f"{op_name}:{dict(static).get('dtype', '')}"


def _stateful_draw(seed):
    def draw(sampler, args, static):
        stream = _stream(seed, _kind(sampler.stateful.name, static))
        return _stream_draw(stream)(sampler, args, static)

    return draw


def set_seed(seed):
    """Sets the global random seed (``tf.random.set_seed``).

    Ops without an op seed then draw a sequence that repeats after each ``set_seed`` with
    the same value; ops with an op seed restart their own sequences too.

    Example:
        >>> import tapejax as tf
        >>> tf.random.set_seed(5)
        >>> a = tf.random.uniform([2]); b = tf.random.uniform([2])
        >>> tf.random.set_seed(5)
        >>> bool((tf.random.uniform([2]) == a).numpy().all()), bool((a == b).numpy().all())
        (True, False)
    """
    _global_seed[0] = None if seed is None else int(seed)
    _global_stream.assign(_entropy() if seed is None else _derive(0, int(seed)))
    for key, stream in _op_streams.items():
        stream.assign(_op_stream_start(*key))


# -- argument checks -----------------------------------------------------------------------


def _shape(shape, op_name: str) -> tuple:
    if isinstance(shape, Tensor) or getattr(shape, "_is_variable", False):
        shape = np.asarray(shape._value)  # a shape has no gradient: no tape warning
    dims = _ints(shape, "T", op_name)
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
    dims = _shape(shape, op_name)
    dt = _dtype(dtype)
    # ``rnd * 1.0 + 0.0`` is ``rnd``, and no gradient can flow to Python constants: the
    # common call skips converting them (a float dtype accepts them, as TF's conversion).
    standard = _standard_params(mean, stddev) and dt.is_floating
    if not standard:
        mean_t = _param(mean, dt, "mean")
        stddev_t = _param(stddev, dt, "stddev")
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
    dims = _shape(shape, op_name)
    if full_range:
        return draw(_full_int_sampler, (), (("shape", dims), ("dtype", _np(dt))))
    minval_is_zero = not stateless and type(minval) is int and minval == 0
    maxval_is_one = not stateless and type(maxval) is int and maxval == 1
    if dt.is_integer:
        lo, hi = _param(minval, dt, "min"), _param(maxval, dt, "max")
        for t, what in ((lo, "minval"), (hi, "maxval")):
            if t._value.ndim:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"{what} must be 0-D, got shape [{','.join(map(str, t._value.shape))}] "
                    f"[Op:{op_name}]",
                )
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
    _require_float(dt, op_name)
    rnd = draw(_uniform_sampler, (), (("shape", dims), ("dtype", _np(dt))))
    if minval_is_zero:
        return rnd if maxval_is_one else multiply(rnd, maxval)
    return add(multiply(rnd, subtract(maxval, minval)), minval)


def _categorical(draw, logits, num_samples, dtype, default_dtype=dtypes.int64):
    out_dt = _index_dtype(dtype, default_dtype)
    lg = to_tensor(logits)
    if lg._value.dtype.kind != "f":
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node Multinomial}} = Multinomial"
            f"[T=DT_{tf_type_name(lg._value.dtype).upper()}, output_dtype=DT_INT64]",
        )
    shape = lg._value.shape
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
    dims = _shape(shape, "RandomGamma")
    dt = _dtype(dtype)
    a = _param(alpha, dt, "alpha")
    b = _param(1 if beta is None else beta, dt, "beta")
    if dt not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(dt._np)} is not in the list of allowed "
            "values: half, float, double [Op:RandomGamma]",
        )
    try:
        batch = tuple(np.broadcast_shapes(a._value.shape, b._value.shape))
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: [{','.join(map(str, a._value.shape))}] vs. "
            f"[{','.join(map(str, b._value.shape))}] [Op:BroadcastArgs]",
        ) from None
    key = _next_key(_stream(seed, _kind("RandomGamma", (("dtype", a._value.dtype),))))
    sample = apply(_gamma_op, (key, a), (("shape", dims), ("batch", batch)))
    tiny = convert_to_tensor(np.finfo(a._value.dtype).tiny, dtype=a.dtype)
    return maximum(tiny, divide(sample, b))


_POISSON_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """Poisson samples of shape ``shape + lam.shape`` (``tf.random.poisson``; no gradient)."""
    dims = _shape(shape, "RandomPoissonV2")
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
    return _stateful_draw(seed)(_poisson_sampler, (rate,), (("shape", dims), ("dtype", _np(dt))))


# -- stateless ---------------------------------------------------------------------------------


def _seed_draw(seed):
    """``draw(sampler, args, static)`` of a stateless op, after TF's checks of ``seed``."""
    s = to_tensor(seed)
    if s._value.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tseed' of {tf_type_name(s._value.dtype)} is not in the list of "
            "allowed values: int32, int64 [Op:StatelessRandomGetKeyCounter]",
        )
    if s._value.shape != (2,):
        raise InvalidArgumentError(
            None,
            None,
            f"seed must have shape [2], not [{','.join(map(str, s._value.shape))}] "
            "[Op:StatelessRandomGetKeyCounter]",
        )
    return lambda sampler, args, static: apply(sampler.stateless, (s, *args), static)


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


_BINOMIAL_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial samples determined by ``seed`` (``tf.random.stateless_binomial``);
    ``counts`` and ``probs`` broadcast to ``shape``."""
    return _binomial(_seed_draw(seed), shape, counts, probs, output_dtype)


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
            f"Value for attr 'T' of {tf_type_name(p._value.dtype)} is not in the list of "
            f"allowed values: {_FLOATS} [Op:StatelessRandomBinomial]",
        )
    n = _param(counts, p.dtype, "counts")
    try:  # TF's rule: the broadcast shape of counts and probs ends ``shape``
        batch = np.broadcast_shapes(n._value.shape, p._value.shape)
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


# -- Generator ---------------------------------------------------------------------------------


class Algorithm(enum.Enum):
    """TF's RNG algorithm ids (``tf.random.Algorithm``). tapejax accepts each wherever TF
    takes ``alg`` and always computes with threefry (see the module's warning)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_THREEFRY = Algorithm.THREEFRY.value


def _state_data(state) -> np.ndarray:
    arr = np.asarray(state)
    if arr.dtype.kind not in "iu" or arr.shape != (2,):
        raise ValueError(
            "A tapejax Generator's state is its threefry key data: 2 integers (shape [2]), "
            f"got shape {list(arr.shape)} of {arr.dtype}. States of TF's Philox generator "
            "cannot be used; make a Generator with `from_seed` instead."
        )
    return arr.astype(np.uint32)


def _skip_fn(state, *, delta):
    return jax.lax.fori_loop(0, delta, lambda _, s: _split_fn(s)[0], state)


_skip_op = Op("RngSkip", _skip_fn, differentiable=False)
_generator_split_ops: dict = {}


def _generator_split_op(count: int) -> Op:
    def fn(state):
        keys = jax.random.split(_key(state), count + 1)
        return jax.random.key_data(keys[0]), jax.random.key_data(keys[1:])

    op = _generator_split_ops.get(count)
    if op is None:
        op = _generator_split_ops[count] = Op(
            "RngReadAndSkip", fn, differentiable=False, multiple_outputs=True
        )
    return op


class Generator:
    """A random number generator with its own state (``tf.random.Generator``).

    The state is a non-trainable tapejax Variable (``gen.state``), so a Generator used
    inside ``tapejax.function`` draws fresh numbers at every call.

    Example:
        >>> import tapejax as tf
        >>> g = tf.random.Generator.from_seed(1)
        >>> g.normal([2, 3]).shape
        TensorShape([2, 3])

    .. warning::
       The state is JAX threefry key data (``uint32[2]``), not TF's Philox state
       (``int64[3]``), and ``algorithm`` is always threefry: the numbers differ from TF's.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, `state` and `alg` must be None.")
            data = np.asarray(copy_from._state_var._value).astype(np.uint32)
        else:
            if state is None:
                raise ValueError(
                    "Generator needs `copy_from` or `state`; use `Generator.from_seed(seed)` "
                    "or `Generator.from_non_deterministic_state()`."
                )
            data = _state_data(state)
        self._state_var = _state_variable(data, "StateVar")

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A Generator whose numbers are determined by ``seed``."""
        return cls(state=_derive(2, int(seed)))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A Generator seeded from OS entropy."""
        return cls(state=_entropy())

    @classmethod
    def from_state(cls, state, alg):
        """A Generator with ``state`` (2 integers: threefry key data, see the class)."""
        return cls(state=state)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        raise NotImplementedError(
            "tapejax.random.Generator.from_key_counter: Philox key/counter states have no "
            "threefry equivalent; use Generator.from_seed."
        )

    @property
    def state(self) -> variables.Variable:
        return self._state_var

    @property
    def algorithm(self) -> int:
        return _THREEFRY

    def reset(self, state):
        """Replaces the state (2 integers)."""
        self._state_var.assign(_state_data(state))

    def reset_from_seed(self, seed):
        """Restarts the stream as ``Generator.from_seed(seed)`` would."""
        self._state_var.assign(_derive(2, int(seed)))

    @property
    def _draw(self):
        return _stream_draw(self._state_var)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal samples (``Generator.normal``)."""
        return _normal(self._draw, shape, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform samples (``Generator.uniform``): integer dtypes with ``minval`` and
        ``maxval`` both None cover the whole range."""
        dt = _dtype(dtype)
        if dt.is_integer and (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer dtype {dt}, minval and maxval must be both `None` or both "
                f"non-`None`; got minval={minval} and maxval={maxval}"
            )
        return _uniform(self._draw, shape, minval, maxval, dt, stateless=True)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Truncated normal samples (``Generator.truncated_normal``)."""
        return _normal(
            self._draw, shape, mean, stddev, dtype, "TruncatedNormal", _truncated_sampler
        )

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers over the dtype's whole range (``Generator.uniform_full_int``)."""
        dims = _shape(shape, "StatefulUniformFullInt")
        dt = _dtype(dtype)
        if dt not in (dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'dtype' of {tf_type_name(dt._np)} is not in the list of "
                "allowed values: int32, int64, uint32, uint64 [Op:StatefulUniformFullInt]",
            )
        return self._draw(_full_int_sampler, (), (("shape", dims), ("dtype", _np(dt))))

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        """Binomial samples (``Generator.binomial``); ``counts`` and ``probs`` broadcast
        to ``shape``."""
        return _binomial(self._draw, shape, counts, probs, dtype)

    def skip(self, delta):
        """Advances the state as ``delta`` draws would (``Generator.skip``)."""
        delta = int(delta)
        if delta < 0:
            raise ValueError(f"Generator.skip: delta must be >= 0, got {delta}")
        new = apply(_skip_op, (self._state_var._dense_read(),), (("delta", delta),))
        _store(self._state_var, new)

    def make_seeds(self, count=1):
        """``[2, count]`` seeds for the ``stateless_*`` ops: int64 as TF's, int32 without
        JAX's x64 mode (the seeds are random bits either way)."""
        dt = _index_dtype(None)
        return self._draw(_full_int_sampler, (), (("shape", (2, int(count))), ("dtype", dt)))

    def split(self, count=1):
        """``count`` new Generators, independent of this one (which advances)."""
        new, children = apply(_generator_split_op(int(count)), (self._state_var._dense_read(),))
        _store(self._state_var, new)
        return [Generator(state=row) for row in np.asarray(children._value)]


_global_generator: list = [None]


def get_global_generator():
    """The process's default Generator (``tf.random.get_global_generator``), made from
    OS entropy on first use; ``set_seed`` does not reset it, as in TF."""
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator):
    """Replaces the global Generator (``tf.random.set_global_generator``)."""
    _global_generator[0] = generator


# -- tf.nn.dropout -----------------------------------------------------------------------------


def _noise_shape(x: Tensor, noise_shape) -> tuple:
    if noise_shape is None:
        return tuple(x._value.shape)
    if isinstance(noise_shape, (list, tuple, TensorShape)):
        dims = list(noise_shape.as_list() if isinstance(noise_shape, TensorShape) else noise_shape)
        if len(dims) == x._value.ndim:
            dims = [x._value.shape[i] if d is None else d for i, d in enumerate(dims)]
        noise_shape = dims
    return _shape(noise_shape, "RandomUniform")


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
        if rate._value.ndim != 0:
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        if rate.dtype != x.dtype:
            raise ValueError(
                "`x.dtype` must be compatible with `rate.dtype`. Received: "
                f"x.dtype={x.dtype} and rate.dtype={rate.dtype}"
            )
        ret = divide(x, subtract(1.0, rate))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    noise = _noise_shape(x, noise_shape)
    try:
        np.broadcast_shapes(noise, x._value.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"condition [{','.join(map(str, noise))}], then "
            f"[{','.join(map(str, x._value.shape))}], and else [] must be broadcastable "
            "[Op:SelectV2]",
        ) from None
    random_tensor = uniform(noise, dtype=x.dtype, seed=seed)
    return apply(_keep_op, (random_tensor, ret, rate))


# ``where(random >= rate, ret, 0)`` as one op: TF's GreaterEqual has no gradient, so the
# gradient flows to ``ret`` only (the keep mask), as through TF's SelectV2.
_keep_op = Op("SelectV2", lambda u, ret, rate: jnp.where(u >= rate, ret, jnp.zeros((), ret.dtype)))
