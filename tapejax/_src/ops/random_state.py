"""The random state: streams, TF's seed rules, ``set_seed`` and ``Generator``.

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

``Generator`` keeps its own stream. The streams are library Variables
(``variables.library_variable``): made wherever a draw first needs them, even inside a
traced ``tapejax.function`` step, and never adopted by a distribution strategy.

.. warning::
   The numbers differ from TensorFlow's (JAX's threefry, not TF's Philox): shapes,
   dtypes, distributions, seed rules, gradients and errors are TF's.

This module must never read a stream's state other than through its Variable (a state
held in Python would be baked into a compiled program as a constant).
"""

from __future__ import annotations

import enum
import os
import zlib

import jax
import numpy as np

from .. import dtypes, recorder, variables
from ..binding import VariableWatcher
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import tf_type_name
from .random_samplers import (
    _binomial,
    _dtype,
    _full_int_sampler,
    _index_dtype,
    _key,
    _normal,
    _np,
    _shape,
    _split_fn,
    _truncated_sampler,
    _uniform,
)

__all__ = ["set_seed", "Algorithm", "Generator", "get_global_generator", "set_global_generator"]

_DEFAULT_GLOBAL_SEED = 87654321  # TF's DEFAULT_GRAPH_SEED: the global seed when none is set
_MASK64 = 2**64 - 1


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
    return variables.library_variable(key_data, name)


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


# (op seed, kind) -> (Variable, initial value): state a TF kernel keeps beside its random
# counter (the learned unigram sampler's counts). TF drops such kernels with its kernel
# cache at ``set_seed``; here ``set_seed`` restores the initial values.
_kernel_states: dict = {}


def _kernel_state(seed, kind: str, initial: np.ndarray, name: str) -> variables.Variable | None:
    """The Variable holding the state of the kernel of ``kind`` with op seed ``seed``
    (TF's kernel cache rules), or None where TF makes a fresh kernel at every call: a
    global seed and no op seed, for which TF draws a new op seed each time."""
    if seed is None and _global_seed[0] is not None:
        return None
    key = (None if seed is None else int(seed), kind)
    entry = _kernel_states.get(key)
    if entry is None:
        entry = _kernel_states[key] = (_state_variable(initial, name), initial)
    return entry[0]


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
    for state, initial in _kernel_states.values():
        state.assign(initial)


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
