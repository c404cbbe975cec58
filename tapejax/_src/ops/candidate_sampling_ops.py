"""TF's candidate samplers (``tf.random.*_candidate_sampler``, some also in ``tf.nn``) and
``tf.nn.compute_accidental_hits``: TF's arguments, checks, errors, dtypes and expected
counts, drawing from ``candidate_samplers`` with keys of ``random_state``'s streams.

Each sampler is a stateful TF kernel: its draws follow TF's seed rules (a stream per op
seed and kernel, the kernel being the op and its attributes), and the learned unigram
sampler keeps per-kernel class counts, as TF's kernel does, in a library Variable of
``random_state`` (so ``tapejax.function`` carries them, and ``set_seed`` resets them as
TF's kernel cache is cleared).

.. warning::
   The sampled classes differ from TensorFlow's (JAX's threefry, not TF's Philox); their
   distribution, TF's expected-count formulas, shapes, dtypes and errors are TF's.

This module must never hold random state of its own: streams and counts live in
``random_state``.
"""

from __future__ import annotations

import collections
import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import candidate_samplers
from ._helpers import dtype_mismatch, to_tensor
from .random_samplers import _index_dtype, _split_fn
from .random_state import _kernel_state, _store, _stream

__all__ = [
    "uniform_candidate_sampler",
    "log_uniform_candidate_sampler",
    "learned_unigram_candidate_sampler",
    "fixed_unigram_candidate_sampler",
    "all_candidate_sampler",
    "compute_accidental_hits",
]

_INT32_MAX = 2**31 - 1


# -- arguments ----------------------------------------------------------------------------------


def _make_int(v, name: str) -> int:
    """TF's ``make_int`` of an int attribute."""
    if isinstance(v, str):
        raise TypeError(f"Expected int for argument '{name}' not {v!r}.")
    try:
        return int(v)
    except (TypeError, ValueError):
        raise TypeError(f"Expected int for argument '{name}' not {v!r}.") from None


def _make_bool(v, name: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"Expected bool for argument '{name}' not {v!r}.")
    return v


def _at_least(value: int, minimum: int, attr: str, op_name: str) -> None:
    if value < minimum:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {value} must be at least minimum {minimum} [Op:{op_name}]",
        )


def _ids_dtype() -> np.dtype:
    return _index_dtype(None)  # int64; int32 without JAX's x64 mode


def _int64_input(value, op_name: str, index: int) -> Tensor:
    """An int64 input (int32 without x64, where int64 tensors are held as int32)."""
    want = _ids_dtype()
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = to_tensor(value)
        if t._v.dtype != want:
            raise dtype_mismatch(op_name, index, np.dtype(np.int64), t._v.dtype)
        return t
    try:
        return convert_to_tensor(value, dtype=dtypes.as_dtype(want))
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int64") from None


def _range_fits(range_max: int, op_name: str) -> None:
    if range_max > _INT32_MAX and not jax.config.jax_enable_x64:
        raise ValueError(
            f"tapejax: {op_name} with range_max={range_max} needs int64 classes, which JAX "
            "holds only in 64-bit mode (off). Run jax.config.update('jax_enable_x64', True) "
            "first."
        )


def _check_classes(
    classes: Tensor, num_true: int, num_sampled: int, unique: bool, range_max: int, op_name: str
) -> None:
    """The kernel's checks of ``true_classes`` (values only when concrete)."""
    shape = classes._v.shape
    if len(shape) != 2:
        raise InvalidArgumentError(None, None, f"true_classes must be a matrix [Op:{op_name}]")
    if shape[1] != num_true:
        raise InvalidArgumentError(
            None,
            None,
            "true_classes must have num_true columns, expected: "
            f"{shape[1]} was: {num_true} [Op:{op_name}]",
        )
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(None, None, f"Sampler's range is too small. [Op:{op_name}]")
    if isinstance(classes._value, jax.core.Tracer):
        return
    values = np.asarray(classes._value).reshape(-1)
    bad = values[(values < 0) | (values >= range_max)]
    if bad.size:
        raise InvalidArgumentError(
            None,
            None,
            f"`true_candidate` out of range [0, {range_max}), received {bad[0]} [Op:{op_name}]",
        )


# -- the sampler ops ----------------------------------------------------------------------------


def _sampler_fn(kind, state, classes, *tables, num_sampled, unique, params):
    new_state, key = _split_fn(state)
    outs = candidate_samplers.sample(
        key, classes, tables, kind=kind, num_sampled=num_sampled, unique=unique, params=params
    )
    if kind == "learned":  # TF updates the counts after sampling, with the true classes
        return new_state, *outs, candidate_samplers.update_counts(tables[0], classes)
    return new_state, *outs


_SAMPLER_OPS = {
    kind: Op(
        name, functools.partial(_sampler_fn, kind), differentiable=False, multiple_outputs=True
    )
    for kind, name in (
        ("uniform", "UniformCandidateSampler"),
        ("log_uniform", "LogUniformCandidateSampler"),
        ("learned", "LearnedUnigramCandidateSampler"),
        ("fixed", "FixedUnigramCandidateSampler"),
    )
}


def _run(kind, true_classes, num_true, num_sampled, unique, range_max, seed, fixed=None):
    """Checks TF's arguments, then draws from the kernel's stream (and counts); ``fixed``
    is the fixed sampler's ``_fixed_distribution`` arguments."""
    op = _SAMPLER_OPS[kind]
    num_true = _make_int(num_true, "num_true")
    num_sampled = _make_int(num_sampled, "num_sampled")
    unique = _make_bool(unique, "unique")
    range_max = _make_int(range_max, "range_max")
    classes = _int64_input(true_classes, op.name, 0)
    _at_least(num_true, 1, "num_true", op.name)
    _at_least(num_sampled, 1, "num_sampled", op.name)
    _at_least(range_max, 1, "range_max", op.name)
    _range_fits(range_max, op.name)
    if kind == "learned" and range_max >= _INT32_MAX:
        raise InvalidArgumentError(
            None,
            None,
            f"range_max must be less than {_INT32_MAX} for unigram samplers, got {range_max} "
            f"[Op:{op.name}]",
        )
    tables = ()
    if fixed is not None:
        tables, positive = _fixed_distribution(range_max, *fixed)
    _check_classes(classes, num_true, num_sampled, unique, range_max, op.name)
    if fixed is not None and unique and positive < num_sampled:
        raise InvalidArgumentError(
            None,
            None,
            f"fixed_unigram_candidate_sampler: {num_sampled} distinct classes were asked for, "
            f"but only {positive} have a positive weight (TF's kernel would loop forever) "
            f"[Op:{op.name}]",
        )
    params = (("dtype", _ids_dtype()), ("range_max", range_max))
    static = (("num_sampled", num_sampled), ("unique", unique), ("params", params))
    # TF's kernel cache key: the op and its attributes (the fixed distribution's too).
    kernel = f"{op.name}:{num_true},{num_sampled},{unique},{range_max},{hash(fixed)}"
    stream = _stream(seed, kernel)
    counts = None
    if kind == "learned":
        ones = np.ones(range_max, np.int32)  # TF's WeightedPicker starts every class at 1
        counts = _kernel_state(seed, kernel, ones, "learned_unigram_counts")
        tables = (counts._dense_read() if counts is not None else convert_to_tensor(ones),)
    new_state, *outs = apply(op, (stream._dense_read(), classes, *tables), static)
    _store(stream, new_state)
    if kind == "learned":
        new_counts = outs.pop()
        if counts is not None:
            _store(counts, new_counts)
    return tuple(outs)


def _outputs(
    name: str, fields=("sampled_candidates", "true_expected_count", "sampled_expected_count")
):
    # TF's ops return named tuples of their outputs.
    return collections.namedtuple(name, fields)


_UniformOut = _outputs("UniformCandidateSampler")
_LogUniformOut = _outputs("LogUniformCandidateSampler")
_LearnedOut = _outputs("LearnedUnigramCandidateSampler")
_FixedOut = _outputs("FixedUnigramCandidateSampler")
_AllOut = _outputs("AllCandidateSampler")
_HitsOut = _outputs("ComputeAccidentalHits", ("indices", "ids", "weights"))


def uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples ``num_sampled`` classes uniformly from ``[0, range_max)``
    (``tf.random.uniform_candidate_sampler``).

    Args:
      true_classes: int64 ``[batch_size, num_true]``: the target classes.
      num_true: the number of targets per example.
      num_sampled: the number of classes to sample.
      unique: sample without replacement (then ``num_sampled <= range_max``).
      range_max: the number of classes.
      seed: an op seed (TF's seed rules; the numbers are not TF's).
      name: unused (TF's op name).

    Returns:
      ``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
      ``[num_sampled]`` classes (int32 without JAX's x64 mode), and float32 expected
      counts of the true and sampled classes in a sample, by TF's formulas (with
      ``unique``, ``1 - (1 - p)**num_tries`` for the number of draws it took).

    Example:
        >>> import tapejax as tf
        >>> s, t, e = tf.random.uniform_candidate_sampler([[1], [3]], 1, 4, True, 10)
        >>> len(set(s.numpy().tolist())), t.shape, e.shape
        (4, TensorShape([2, 1]), TensorShape([4]))
    """
    return _UniformOut(
        *_run("uniform", true_classes, num_true, num_sampled, unique, range_max, seed)
    )


def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes from the log-uniform (Zipfian) distribution
    ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``
    (``tf.random.log_uniform_candidate_sampler``); arguments and results as
    ``uniform_candidate_sampler``'s.

    .. warning::
       Without JAX's x64 mode the probabilities behind the expected counts are computed in
       float32 (TF: in double, then rounded to float): they can differ from TF's by 2 ulp.
    """
    return _LogUniformOut(
        *_run("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed)
    )


def learned_unigram_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None
):
    """Samples classes in proportion to how often they were seen as true classes, each
    class starting at 1 (``tf.random.learned_unigram_candidate_sampler``); arguments and
    results as ``uniform_candidate_sampler``'s.

    The counts belong to the kernel (op seed and attributes), as in TF: calls with the same
    seed and arguments share them (also inside ``tapejax.function``, which carries them),
    ``tf.random.set_seed`` resets them, and with a global seed but no op seed every call
    starts afresh (TF draws a new op seed per call).
    """
    range_max = _make_int(range_max, "range_max")
    if range_max > _INT32_MAX:
        raise ValueError(f"Value of range_max:{range_max} is too large to handle")
    return _LearnedOut(
        *_run("learned", true_classes, num_true, num_sampled, unique, range_max, seed)
    )


@functools.lru_cache(maxsize=16)
def _fixed_distribution(*args):
    """The fixed sampler's device tables for ``candidate_samplers.fixed_weights(*args)``,
    and the number of classes of positive weight."""
    weights = candidate_samplers.fixed_weights(*args)
    bounds, probs = candidate_samplers.fixed_tables(weights)
    tables = (convert_to_tensor(bounds), convert_to_tensor(probs))
    return tables, int(np.count_nonzero(weights))


def fixed_unigram_candidate_sampler(
    true_classes,
    num_true,
    num_sampled,
    unique,
    range_max,
    vocab_file="",
    distortion=1.0,
    num_reserved_ids=0,
    num_shards=1,
    shard=0,
    unigrams=(),
    seed=None,
    name=None,
):
    """Samples classes from a fixed distribution: ``unigrams`` (counts or probabilities,
    one per class) or the last field of each line of the CSV ``vocab_file``, raised to
    ``distortion``, after ``num_reserved_ids`` classes of probability 0, and restricted to
    shard ``shard`` of ``num_shards`` as TF does (``tf.random.fixed_unigram_candidate_sampler``);
    other arguments and results as ``uniform_candidate_sampler``'s.

    Raises:
      InvalidArgumentError: TF's errors; also negative or non-finite weights, and
        ``unique`` with fewer classes of positive weight than ``num_sampled`` (TF's kernel
        loops forever there).

    Example:
        >>> import tapejax as tf
        >>> s, t, e = tf.random.fixed_unigram_candidate_sampler(
        ...     [[0, 1]], 2, 3, False, 4, unigrams=[1.0, 2.0, 3.0, 4.0])
        >>> t.numpy().tolist()
        [[0.30000001192092896, 0.6000000238418579]]
    """
    if not isinstance(unigrams, (list, tuple)):
        raise TypeError(
            "Expected list for 'unigrams' argument to 'fixed_unigram_candidate_sampler' Op, "
            f"not {unigrams!r}."
        )
    if not isinstance(distortion, numbers.Real):
        raise TypeError(f"Expected float for argument 'distortion' not {distortion!r}.")
    reserved, shards, shard = (
        _make_int(v, k)
        for k, v in (
            ("num_reserved_ids", num_reserved_ids),
            ("num_shards", num_shards),
            ("shard", shard),
        )
    )
    _at_least(shards, 1, "num_shards", "FixedUnigramCandidateSampler")
    _at_least(shard, 0, "shard", "FixedUnigramCandidateSampler")
    fixed = (
        str(vocab_file),
        float(distortion),
        reserved,
        shards,
        shard,
        tuple(map(float, unigrams)),
    )
    return _FixedOut(
        *_run("fixed", true_classes, num_true, num_sampled, unique, range_max, seed, fixed)
    )


_all_op = Op(
    "AllCandidateSampler",
    lambda classes, *, num_sampled, dtype: (
        jnp.arange(num_sampled, dtype=dtype),
        jnp.ones(classes.shape, jnp.float32),
        jnp.ones(num_sampled, jnp.float32),
    ),
    differentiable=False,
    multiple_outputs=True,
)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """All the classes ``[0, num_sampled)``, each with expected count 1
    (``tf.random.all_candidate_sampler``: deterministic; ``unique`` and ``seed`` are
    accepted and ignored, as TF's kernel ignores them).

    Example:
        >>> import tapejax as tf
        >>> tf.random.all_candidate_sampler([[0]], 1, 3, True).sampled_candidates.numpy().tolist()
        [0, 1, 2]
    """
    op_name = "AllCandidateSampler"
    num_true = _make_int(num_true, "num_true")
    num_sampled = _make_int(num_sampled, "num_sampled")
    unique = _make_bool(unique, "unique")
    classes = _int64_input(true_classes, op_name, 0)
    _at_least(num_true, 1, "num_true", op_name)
    _at_least(num_sampled, 1, "num_sampled", op_name)
    _check_classes(classes, num_true, num_sampled, unique, num_sampled, op_name)
    static = (("num_sampled", num_sampled), ("dtype", _ids_dtype()))
    return _AllOut(*apply(_all_op, (classes,), static))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """The positions in ``sampled_candidates`` of each row's true classes
    (``tf.nn.compute_accidental_hits``): ``(indices, ids, weights)``, the row (int32),
    the position in ``sampled_candidates`` (int64; int32 without x64: the last position
    of a repeated class, as TF) and ``-FLT_MAX`` (float32) of each hit, rows in order
    and, within a row, the true classes in order.

    Eager only: the number of hits depends on the values (inside ``tapejax.function``,
    ``NotImplementedError``; the sampled losses remove hits without it).

    Example:
        >>> import tapejax as tf
        >>> hits = tf.nn.compute_accidental_hits([[0, 1], [2, 5]], [5, 0, 3], 2)
        >>> hits.indices.numpy().tolist(), hits.ids.numpy().tolist()
        ([0, 1], [1, 0])
    """
    op_name = "ComputeAccidentalHits"
    num_true = _make_int(num_true, "num_true")
    labels = _int64_input(true_classes, op_name, 0)
    sampled = _int64_input(sampled_candidates, op_name, 1)
    if labels._v.ndim != 2 or labels._v.shape[1] != num_true:
        raise InvalidArgumentError(
            None, None, f"true_candidates must be a batch_size * num_true matrix [Op:{op_name}]"
        )
    if sampled._v.ndim != 1:
        raise InvalidArgumentError(
            None,
            None,
            "sampled_candidates must be a vector, which is typically an output from "
            f"CandidateSampler [Op:{op_name}]",
        )
    if isinstance(labels._value, jax.core.Tracer) or isinstance(sampled._value, jax.core.Tracer):
        raise NotImplementedError(
            "tapejax.nn.compute_accidental_hits inside tapejax.function or a JAX transform: "
            "the number of hits depends on the values. Call it eagerly; nce_loss and "
            "sampled_softmax_loss remove accidental hits inside compiled code too."
        )
    positions = {int(c): i for i, c in enumerate(np.asarray(sampled._value).tolist())}
    hits = [
        (row, positions[c])
        for row, classes in enumerate(np.asarray(labels._value).tolist())
        for c in classes
        if c in positions
    ]
    rows = np.array([h[0] for h in hits], np.int32)
    ids = np.array([h[1] for h in hits], _ids_dtype())
    weights = np.full(len(hits), -np.finfo(np.float32).max, np.float32)
    return _HitsOut(convert_to_tensor(rows), convert_to_tensor(ids), convert_to_tensor(weights))
