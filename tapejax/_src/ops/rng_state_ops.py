"""``tf.random.create_rng_state``: the RNG state TF derives from a seed, TF's values
exactly (a deterministic function of the seed and the algorithm).

This module must never draw random numbers or hold state.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor
from ._helpers import to_tensor
from .random_samplers import _index_dtype
from .random_state import Algorithm

__all__ = ["create_rng_state"]

_MASK64 = 2**64 - 1

_STATE_SIZES = {
    Algorithm.PHILOX.value: 3,
    Algorithm.THREEFRY.value: 2,
    Algorithm.AUTO_SELECT.value: 3,
}


def _unsupported_alg(alg) -> str:
    if isinstance(alg, int):
        names = [a.value for a in Algorithm]
    elif isinstance(alg, str):
        names = ["philox", "threefry", "auto_select"]
    else:
        names = list(Algorithm)
    return (
        f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for the "
        f"Philox algorithm, {names[1]} for the ThreeFry algorithm, and {names[2]} for "
        "auto-selection."
    )


def _alg_id(alg) -> int:
    """TF's ``convert_alg_to_int``: an int, an ``Algorithm``, a tensor or a name."""
    if isinstance(alg, int):
        return alg
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, Tensor) or getattr(alg, "_is_variable", False):
        return int(np.asarray(alg._value))
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        ids = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon in ids:
            return ids[canon]
        raise ValueError(_unsupported_alg(alg))
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def _signed64(n):
    """TF's ``_uint_to_int``: Python ints above int64's range wrap to negative ones."""
    if isinstance(n, (list, tuple)):
        return [_signed64(m) for m in n]
    return n - 2**64 if isinstance(n, int) and n > 2**63 - 1 else n


def create_rng_state(seed, alg):
    """The RNG state TF makes from ``seed`` for algorithm ``alg``
    (``tf.random.create_rng_state``): TF's values exactly, int64 (int32 without JAX's x64
    mode, where the values must fit it).

    A Python int is cut into 64-bit words, least significant first; a vector is cast to
    int64 and cut or padded with zeros on the left to the state size (3 for Philox and
    auto-select, 2 for ThreeFry).

    Example:
        >>> import tapejax as tf
        >>> tf.random.create_rng_state(1234, "philox").numpy().tolist()
        [1234, 0, 0]
        >>> tf.random.create_rng_state([12, 34], "threefry").numpy().tolist()
        [12, 34]

    .. warning::
       tapejax's ``Generator`` keeps threefry key data, not TF's states: a ThreeFry state
       (2 integers) can start one with ``Generator.from_state``, a Philox one cannot. An
       unknown integer ``alg`` raises ``ValueError`` (TF 2.21: an ``AttributeError`` of its
       own).
    """
    size = _STATE_SIZES.get(_alg_id(alg))
    if size is None:
        raise ValueError(_unsupported_alg(alg))
    if isinstance(seed, Tensor) or getattr(seed, "_is_variable", False):
        words = to_tensor(seed)
    else:
        if isinstance(seed, int):
            chunks = []
            for _ in range(size):
                chunks.append(seed & _MASK64)
                seed >>= 64
            seed = chunks
        arr = np.asarray(_signed64(seed.tolist() if isinstance(seed, np.ndarray) else seed))
        arr = (np.trunc(arr) if arr.dtype.kind == "f" else arr).astype(np.int64)
        if not jax.config.jax_enable_x64 and arr.size and np.abs(arr).max() < 2**31:
            arr = arr.astype(np.int32)  # as argmax's int64 indices: nothing lost, no warning
        words = convert_to_tensor(arr, dtype=dtypes.int64 if arr.dtype.itemsize == 8 else None)
    return apply(_rng_state_op, (words,), (("size", size), ("dtype", _index_dtype(None))))


def _rng_state_fn(words, *, size, dtype):
    flat = words.reshape(-1).astype(dtype)[:size]
    return jnp.concatenate([jnp.zeros(size - flat.shape[0], dtype), flat])


_rng_state_op = Op("CreateRngState", _rng_state_fn, differentiable=False)
