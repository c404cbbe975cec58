"""``tf.random_index_shuffle``: the position of an index in a seeded permutation, with
TF's own cipher, so its values are TF's exactly.

TF permutes ``[0, max_index]`` by cycle-walking a Simon block cipher: a block just wide
enough for ``max_index`` (at least 16 bits) is encrypted with round keys from the 3 seed
words until the result falls in the range. That is deterministic integer arithmetic, not
a random stream, so it is reproduced here bit for bit (words of up to 16 bits in uint32
for 32-bit indices, up to 32 bits in uint64 for 64-bit ones).

This module must never draw random numbers: the seed is a cipher key.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import dtype_mismatch, tf_type_name, to_tensor

__all__ = ["random_index_shuffle"]

_INDEX_TYPES = "int32, uint32, int64, uint64"
_C = 0xFFFFFFFC  # Simon's round-key constant
_Z = 0x192C0EF5  # the low 32 bits of Simon's z sequence 0x7369f885192c0ef5: words are <= 32 bits


def _rotl(x, r, w, mask):
    return ((x << r) & mask) | (x >> (w - r))


def _rotr(x, r, w, mask):
    return (x >> r) | ((x << (w - r)) & mask)


def _round_keys(key, w, mask, rounds):
    """TF's ``simon_key_schedule``: the 3 seed words, then one key per further round."""
    one = jnp.ones_like(w)
    keys = [key[..., i] & mask for i in range(3)]
    z = jnp.asarray(_Z, w.dtype) & mask
    c = jnp.asarray(_C, w.dtype) & mask
    for _ in range(3, rounds):
        prev = keys[-1]
        keys.append(c ^ (z & one) ^ keys[-3] ^ _rotr(prev, 3, w, mask) ^ _rotr(prev, 4, w, mask))
        z = z >> 1
    return keys


def _encrypt(v, keys, w, mask):
    """TF's ``simon_encrypt``: Feistel double rounds on the block's two words."""

    def f(x):
        return (_rotl(x, 1, w, mask) & _rotl(x, 8, w, mask)) ^ _rotl(x, 2, w, mask)

    left, right = (v >> w) & mask, v & mask
    for i in range(0, len(keys), 2):
        left = left ^ f(right) ^ keys[i]
        right = right ^ f(left) ^ keys[i + 1]
    return (left << w) | right


def _block_bits(max_index, word):
    """TF's block size: ``ceil(log2(max_index))`` rounded up to even, at least 16."""
    if word == np.uint32:  # exact for 32-bit values: the bit length of max_index - 1
        bits = 32 - jax.lax.clz(jnp.maximum(max_index, 1) - 1).astype(word)
    else:  # TF: ceil of the correctly rounded log2 of the value as a double
        mant, exp = jnp.frexp(max_index.astype(jnp.float64))
        frac = 2 * mant - 1  # d = 2**k * (1 + frac), k = exp - 1, exactly
        _, k_exp = jnp.frexp((exp - 1).astype(jnp.float64))
        half_ulp = jnp.ldexp(jnp.ones_like(frac), k_exp - 54)  # of log2(d), near k
        rounds_down = (frac == 0) | ((exp > 1) & (jnp.log1p(frac) / np.log(2) < half_ulp))
        bits = (exp - jnp.where(rounds_down, 1, 0)).astype(word)
    return jnp.maximum(bits + bits % 2, 16)


def _shuffle_fn(index, seed, max_index, *, rounds, n, scalar):
    word = np.uint32 if index.dtype.itemsize == 4 else np.uint64
    idx = jnp.broadcast_to(index.astype(word), (n,))
    top = jnp.broadcast_to(max_index.astype(word), (n,))
    key = jnp.broadcast_to(seed.astype(np.uint32).astype(word).reshape(-1, 3), (n, 3))
    w = _block_bits(top, word) // 2
    mask = (jnp.ones_like(w) << w) - 1
    keys = _round_keys(key, w, mask, rounds)
    valid = idx <= top
    # An index outside [0, max_index] (TF's error, checked eagerly) is walked from 0, so
    # that a traced call always ends; its result is the index itself.
    start = jnp.where(valid, idx, 0)

    def body(state):
        v, done = state
        new = jnp.where(done, v, _encrypt(v, keys, w, mask))
        return new, done | (new <= top)

    out, _ = jax.lax.while_loop(lambda s: ~jnp.all(s[1]), body, (start, top == 0))
    out = jnp.where(top == 0, 0, jnp.where(valid, out, idx)).astype(index.dtype)
    return out[0] if scalar else out


_shuffle_op = Op("RandomIndexShuffle", _shuffle_fn, differentiable=False)


def _index_tensor(value, name):
    t = to_tensor(value)
    if t._v.dtype.kind not in "iu" or t._v.dtype.itemsize not in (4, 8):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{name}' of {tf_type_name(t._v.dtype)} is not in the list of "
            f"allowed values: {_INDEX_TYPES} [Op:RandomIndexShuffle]",
        )
    return t


def _check_values(index, max_index) -> None:
    """TF's checks of concrete values (a traced call is not checked)."""
    if isinstance(index._value, jax.core.Tracer) or isinstance(max_index._value, jax.core.Tracer):
        return
    idx, top = np.broadcast_arrays(np.asarray(index._value), np.asarray(max_index._value))
    for i, t in zip(idx.reshape(-1).tolist(), top.reshape(-1).tolist()):
        if i < 0:
            raise InvalidArgumentError(
                None, None, f"index must be >= 0 but was {i} [Op:RandomIndexShuffle]"
            )
        if t < i:
            raise InvalidArgumentError(
                None,
                None,
                f"max_index must be >= index, but {t} < {i} [Op:RandomIndexShuffle]",
            )


def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """The position of ``index`` in a permutation of ``[0, max_index]`` chosen by ``seed``
    (``tf.random_index_shuffle``): TF's values exactly.

    Args:
      index: an int32, uint32, int64 or uint64 scalar or vector in ``[0, max_index]``.
      seed: 3 integers (shape ``[3]``), or one row of 3 per output (``[n, 3]``).
      max_index: the inclusive upper bound, a scalar or a vector, of ``index``'s dtype.
      rounds: the cipher's rounds: an even number, at least 4.
      name: unused (TF's op name).

    Returns:
      A tensor of ``index``'s dtype: a scalar when every input is (``seed`` of shape
      ``[3]``), else a vector with one shuffled index per row of the inputs.

    Raises:
      InvalidArgumentError: TF's errors for shapes, dtypes and values outside the range
        (values are checked eagerly), and an odd ``rounds`` or one below 4, for which
        TF's kernel reads past its round keys.

    Example:
        >>> import tapejax as tf
        >>> tf.random_index_shuffle(tf.range(6), [1, 2, 3], 5).numpy().tolist()
        [2, 0, 3, 4, 5, 1]
    """
    idx = _index_tensor(index, "dtype")
    s = _index_tensor(seed, "Tseed")
    if isinstance(max_index, Tensor) or getattr(max_index, "_is_variable", False):
        top = to_tensor(max_index)
        if top._v.dtype != idx._v.dtype:
            raise dtype_mismatch("RandomIndexShuffle", 2, idx._v.dtype, top._v.dtype)
    else:
        top = convert_to_tensor(max_index, dtype=idx.dtype)
    rounds = int(rounds)
    if rounds < 4 or rounds % 2:
        raise InvalidArgumentError(
            None,
            None,
            f"rounds must be an even number of at least 4, got {rounds} [Op:RandomIndexShuffle]",
        )
    n = max(int(np.prod(idx._v.shape)), int(np.prod(top._v.shape)), int(np.prod(s._v.shape)) // 3)
    if not (idx._v.ndim == 0 or idx._v.shape == (n,)):
        raise InvalidArgumentError(
            None, None, "Index bust be a scalar or vector. [Op:RandomIndexShuffle]"
        )
    if s._v.shape not in ((3,), (n, 3)):
        raise InvalidArgumentError(
            None,
            None,
            f"Seed must be a vector of size [3] or a matrix of size [{n}, 3] but got "
            f"[{','.join(map(str, s._v.shape))}]. [Op:RandomIndexShuffle]",
        )
    if not (top._v.ndim == 0 or top._v.shape == (n,)):
        raise InvalidArgumentError(
            None,
            None,
            "Maxval must be a scalar or a vector of the same size as index but got "
            f"[{','.join(map(str, top._v.shape))}] [Op:RandomIndexShuffle]",
        )
    _check_values(idx, top)
    scalar = idx._v.ndim == 0 and s._v.ndim == 1 and top._v.ndim == 0
    static = (("rounds", rounds), ("n", n), ("scalar", scalar))
    return apply(_shuffle_op, (idx, s, top), static)
