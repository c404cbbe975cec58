"""TF's candidate samplers as pure functions of a threefry key: each base distribution's
draws and probabilities, TF's sampling without replacement, and TF's expected counts.

A sampler kind is a pair of functions of the sampler's ``tables`` (arrays: the learned
sampler's counts, the fixed sampler's distribution) and static parameters: ``draw(key,
n)`` gives ``n`` i.i.d. classes and ``prob(ids)`` TF's ``Probability`` of each, in float32
as TF computes it. ``sample`` runs TF's ``SampleBatchGetExpectedCount`` on them: with
``unique``, draws until ``num_sampled`` distinct classes are kept, counting the draws
(``num_tries``), as TF's rejection loop does; then every expected count is TF's formula
of the probability, ``num_sampled`` and ``num_tries``.

The draws are exact in float32: the log-uniform sampler picks a power-of-two octave,
then a class within it by rejection from the uniform (an ``exp(u * log(range))`` in
float32 could not reach every class of a large range), and the fixed sampler inverts a
32-bit fixed-point CDF.

The fixed sampler's weights are built on the host, from ``unigrams`` or a vocabulary
file, as TF's ``FixedUnigramSampler`` builds them.

This module must never know where a key comes from: no state and no seeds (those are
``candidate_sampling_ops``' and ``random_state``'s).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import InvalidArgumentError, NotFoundError

_INT32_MAX = 2**31 - 1


def _x64() -> bool:
    return bool(jax.config.jax_enable_x64)


# -- base distributions: draws and TF's probabilities -------------------------------------------


def _uniform_draw(key, n, tables, *, range_max, dtype):
    return jax.random.randint(key, (n,), 0, range_max, dtype)


def _uniform_prob(ids, tables, *, range_max, dtype):
    return jnp.full(ids.shape, np.float32(1.0 / range_max))  # TF's float inv_range_


@functools.lru_cache(maxsize=32)
def _octaves(range_max: int):
    """Octave ``j`` holds ``y = class + 1`` in ``[2**j, min(2**(j+1), range_max + 1))``,
    with probability ``log(hi / lo) / log(range_max + 1)``: lows, widths, and the CDF at
    each octave's end (but the last)."""
    lo = 2 ** np.arange(int(range_max).bit_length(), dtype=np.float64)
    hi = np.minimum(2 * lo, range_max + 1.0)
    cdf = np.cumsum(np.log(hi / lo)) / np.log1p(range_max)
    return lo.astype(np.int64), (hi - lo).astype(np.int64), cdf[:-1].astype(np.float32)


_PROPOSALS = 32  # rejection rounds: all rejected has probability about (1 - ln 2)**32 < 1e-16


def _log_uniform_draw(key, n, tables, *, range_max, dtype):
    lows, widths, cdf = _octaves(range_max)
    k_prop, k_uniform = jax.random.split(key)
    u = jax.random.uniform(k_uniform, (_PROPOSALS + 1, n))
    octave = jnp.searchsorted(jnp.asarray(cdf), u[0], side="right")
    lo = jnp.asarray(lows.astype(dtype))[octave]
    width = jnp.asarray(widths.astype(dtype))[octave]
    # Within an octave P(y) is proportional to log1p(1/y): a uniform proposal is accepted
    # with probability log1p(1/y) / log1p(1/lo), above 1/2 and ln 2 on average. The first
    # accepted of _PROPOSALS proposals is taken (the last one if none is: a bias < 1e-16).
    proposals = lo + jax.random.randint(k_prop, (_PROPOSALS, n), 0, width, dtype)
    bound = jnp.log1p(1.0 / lo.astype(jnp.float32))
    accept = u[1:] * bound < jnp.log1p(1.0 / proposals.astype(jnp.float32))
    accept = accept.at[-1].set(True)
    y = jnp.take_along_axis(proposals, jnp.argmax(accept, axis=0)[None], axis=0)[0]
    return y - 1


def _log_uniform_prob(ids, tables, *, range_max, dtype):
    # TF: log((v + 2) / (v + 1)) / log1p(range) in double, rounded to float. Without
    # JAX's x64 mode it is computed in float32 (within 2 ulp).
    if _x64():
        v = ids.astype(jnp.float64)
        return (jnp.log((v + 2.0) / (v + 1.0)) / np.log1p(range_max)).astype(jnp.float32)
    v = ids.astype(jnp.float32)
    return jnp.log1p(1.0 / (v + 1.0)) / np.float32(np.log1p(range_max))


def _learned_draw(key, n, tables, *, dtype, **_):
    (counts,) = tables
    cdf = jnp.cumsum(counts)
    r = jax.random.randint(key, (n,), 0, cdf[-1], cdf.dtype)
    return jnp.searchsorted(cdf, r, side="right").astype(dtype)


def _learned_prob(ids, tables, *, dtype, **_):
    # TF: static_cast<float>(weight) / total_weight, a float division.
    (counts,) = tables
    total = jnp.sum(counts).astype(jnp.float32)
    return jnp.take(counts, ids, mode="clip").astype(jnp.float32) / total


def _fixed_draw(key, n, tables, *, dtype, **_):
    bounds, _ = tables
    r = jnp.minimum(jax.random.bits(key, (n,), jnp.uint32), np.uint32(2**32 - 2))
    return jnp.searchsorted(bounds, r, side="right").astype(dtype)


def _fixed_prob(ids, tables, *, dtype, **_):
    _, probs = tables  # TF's float weight / float total, per class (0 outside the range)
    return jnp.take(probs, ids, mode="fill", fill_value=0)


KINDS = {
    "uniform": (_uniform_draw, _uniform_prob),
    "log_uniform": (_log_uniform_draw, _log_uniform_prob),
    "learned": (_learned_draw, _learned_prob),
    "fixed": (_fixed_draw, _fixed_prob),
}


_FIXED = "FixedUnigramCandidateSampler"


def fixed_weights(range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard, unigrams):
    """TF's ``FixedUnigramSampler`` weights, with its errors: zeros for this shard's
    reserved ids, then this shard's entries of ``unigrams`` or of ``vocab_file`` (every
    ``num_shards``-th, numbered from the count of reserved ids kept, as TF's loop numbers
    them) raised to ``distortion`` in float32."""
    if not vocab_file and not unigrams:
        raise _invalid("Must provide either vocab_file or unigrams.")
    if vocab_file and unigrams:
        raise _invalid("Must only provide one of vocab_file and unigrams.")
    reserved = sum(1 for i in range(num_reserved_ids) if i % num_shards == shard)
    values = _vocab_weights(vocab_file) if vocab_file else list(unigrams)
    mine = [w for i, w in enumerate(values, start=reserved) if i % num_shards == shard]
    powered = np.power(np.asarray(mine, np.float32), np.float32(distortion))
    weights = np.concatenate([np.zeros(reserved, np.float32), powered]).astype(np.float32)
    if weights.size != range_max:
        raise _invalid(f"range is {range_max} must be equal to weights size  {weights.size}")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise _invalid(
            "fixed_unigram_candidate_sampler: the weights (unigrams raised to distortion) "
            "must be finite and non-negative"
        )
    return weights


def _invalid(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{_FIXED}]")


def _vocab_weights(path: str) -> list:
    """The last comma-separated field of each non-empty line, as TF's ``LoadFromFile``."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise NotFoundError(
            None, None, f"{path}; No such file or directory [Op:{_FIXED}]"
        ) from None
    weights = []
    for line in filter(None, lines):
        try:
            weights.append(float(line.split(",")[-1]))
        except ValueError:
            raise _invalid(f"Wrong vocabulary format at line: {line}") from None
    return weights


def fixed_tables(weights: np.ndarray):
    """The fixed sampler's tables from TF's float32 weights: the class boundaries of its
    CDF in 32-bit fixed point (``range - 1`` of them: a draw below boundary ``i`` is class
    ``i``), and TF's float32 probabilities ``weight / total`` (the total summed in float
    order, as TF's ``total_weight_ +=``)."""
    total = np.cumsum(weights, dtype=np.float32)[-1]
    probs = (weights / total).astype(np.float32)
    cdf = np.cumsum(weights.astype(np.float64))
    scaled = np.floor(cdf[:-1] / cdf[-1] * 2.0**32)
    bounds = np.minimum(scaled, 2**32 - 1).astype(np.uint32)
    return bounds, probs


def update_counts(counts, true_classes):
    """TF's learned sampler's ``Update``: each true class seen adds 1 to its count, until
    the total would pass int32's range."""
    flat = true_classes.reshape(-1)
    room = _INT32_MAX - jnp.sum(counts)
    ones = (jnp.arange(flat.shape[0]) < room).astype(counts.dtype)
    return counts.at[flat].add(ones, mode="drop")


# -- TF's sampling with and without replacement -------------------------------------------------


def _first_occurrences(values):
    """Where each value occurs for the first time in ``values`` (a stable sort's runs)."""
    order = jnp.argsort(values, stable=True)
    ordered = values[order]
    starts = jnp.concatenate([jnp.ones(1, bool), ordered[1:] != ordered[:-1]])
    return jnp.zeros(values.shape, bool).at[order].set(starts)


def accidental_hit_mask(labels, sampled):
    """``[rows, num_sampled]``: where a row's true class equals a sampled class, at that
    class's last position in ``sampled`` (TF's ``ComputeAccidentalHits`` maps each class
    to its last position)."""
    match = jnp.any(labels[:, :, None] == sampled[None, None, :], axis=1)
    return match & _first_occurrences(sampled[::-1])[::-1][None, :]


def _draw_unique(key, draw, k, dtype):
    """TF's rejection loop: i.i.d. draws, each kept unless already kept, until ``k`` are
    kept. Returns the kept classes in the order drawn and the number of draws it took
    (stopped at int32's range, where TF's kernel aborts). Draws come ``pool`` at a time;
    only those up to the ``k``-th kept one count."""
    pool = max(2 * k, 64)
    limit = _INT32_MAX - pool

    def body(state):
        key, kept, count, tries = state
        key, sub = jax.random.split(key)
        cand = draw(sub, pool)
        ordered = jnp.sort(kept)  # unfilled slots are -1: never a class
        pos = jnp.clip(jnp.searchsorted(ordered, cand), 0, k - 1)
        new = _first_occurrences(cand) & (ordered[pos] != cand)
        slot = count + jnp.cumsum(new, dtype=jnp.int32) - 1
        take = new & (slot < k)
        kept = kept.at[jnp.where(take, slot, k)].set(cand, mode="drop")
        fills = take & (slot == k - 1)
        used = jnp.where(jnp.any(fills), jnp.argmax(fills) + 1, pool)
        return (
            key,
            kept,
            jnp.minimum(count + jnp.sum(new, dtype=jnp.int32), k),
            tries + used.astype(jnp.int32),
        )

    start = (key, jnp.full(k, -1, dtype), jnp.int32(0), jnp.int32(0))
    _, kept, _, tries = jax.lax.while_loop(lambda s: (s[2] < k) & (s[3] < limit), body, start)
    return kept, tries


def _tf_float(fn, x):
    """TF's float libm call ``fn(x)``: computed in float64 and rounded where JAX has it
    (as glibc's float functions round), else in float32."""
    return fn(x.astype(jnp.float64)).astype(jnp.float32) if _x64() else fn(x)


def _expected_count(p, tries, k):
    """TF's ``ExpectedCountHelper``: ``p * k`` when every draw was kept (always without
    ``unique``), else ``1 - (1 - p)**num_tries``, in float."""
    if tries is None:
        return p * np.float32(k)
    general = -_tf_float(jnp.expm1, tries.astype(jnp.float32) * _tf_float(jnp.log1p, -p))
    return jnp.where(tries == k, p * np.float32(k), general)


def sample(key, true_classes, tables, *, kind, num_sampled, unique, params):
    """``(sampled_candidates, true_expected_count, sampled_expected_count)`` of sampler
    ``kind`` with static ``params`` (pairs)."""
    draw_fn, prob_fn = KINDS[kind]
    params = dict(params)
    draw = functools.partial(draw_fn, tables=tables, **params)
    if unique:
        sampled, tries = _draw_unique(key, draw, num_sampled, params["dtype"])
    else:
        sampled, tries = draw(key, num_sampled), None
    true_count = _expected_count(prob_fn(true_classes, tables, **params), tries, num_sampled)
    sampled_count = _expected_count(prob_fn(sampled, tables, **params), tries, num_sampled)
    return sampled, true_count, sampled_count
