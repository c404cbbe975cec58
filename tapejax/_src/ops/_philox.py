"""TF's stateless normal numbers (``tf.random.stateless_normal``, Philox on CPU), in NumPy.

Some of TF's Python ops draw from a fixed seed inside their algorithm (``eigh_tridiagonal``
starts inverse iteration from ``stateless_random_normal(shape, seed=[7, 42])``); their
results depend on those numbers, so they are reproduced here: TF's seed scrambling
(``GenerateKey``), Philox-4x32-10, one counter per four numbers, and TF's Box-Muller
transform in float32. The transcendental functions are computed in float64 and rounded once,
which is what glibc's ``logf``/``sincosf`` return in all but rare last-bit cases.

This module is for such fixed seeds, and for ``tapejax.data.Dataset.random``, a host-side
stream whose TF values are its spec: ``tapejax.random`` draws from JAX's generators and must
never use it.
"""

from __future__ import annotations

import numpy as np

_MASK = 0xFFFFFFFF
_W32A, _W32B = 0x9E3779B9, 0xBB67AE85
_M4X32A, _M4X32B = 0xD2511F53, 0xCD9E8D57


def _philox(counter: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """Philox-4x32-10 of ``counter`` (``[n, 4]`` uint64 holding uint32 values) under ``key``."""
    c = counter.astype(np.uint64)
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for round_ in range(10):
        p0 = np.uint64(_M4X32A) * c[:, 0]
        p1 = np.uint64(_M4X32B) * c[:, 2]
        c = np.stack(
            [
                (p1 >> np.uint64(32)) ^ c[:, 1] ^ k0,
                p1 & np.uint64(_MASK),
                (p0 >> np.uint64(32)) ^ c[:, 3] ^ k1,
                p0 & np.uint64(_MASK),
            ],
            axis=1,
        )
        if round_ < 9:
            k0 = (k0 + np.uint64(_W32A)) & np.uint64(_MASK)
            k1 = (k1 + np.uint64(_W32B)) & np.uint64(_MASK)
    return c


def _key_and_counter(seed: tuple[int, int]) -> tuple[tuple[int, int], list[int]]:
    """TF's ``GenerateKey``: the seed pair scrambled through one Philox call."""
    s0, s1 = (int(s) & 0xFFFFFFFFFFFFFFFF for s in seed)
    counter = np.array([[s0 & _MASK, s0 >> 32, s1 & _MASK, s1 >> 32]], np.uint64)
    mix = _philox(counter, (0x3EC8F720, 0x02461E29))[0].tolist()
    return (mix[0], mix[1]), [0, 0, mix[2], mix[3]]


def _uint32_to_unit_float(x: np.ndarray) -> np.ndarray:
    """TF's ``Uint32ToFloat``: 23 random mantissa bits under exponent 0, minus one."""
    bits = (np.uint32(127) << np.uint32(23)) | (x.astype(np.uint32) & np.uint32(0x7FFFFF))
    return bits.view(np.float32) - np.float32(1.0)


def stateless_normal(shape: tuple[int, ...], seed: tuple[int, int]) -> np.ndarray:
    """``tf.random.stateless_normal(shape, seed)`` in float32 (TF's Philox path on CPU)."""
    size = int(np.prod(shape, dtype=np.int64))
    groups = -(-size // 4)
    key, counter = _key_and_counter(seed)
    index = np.arange(groups, dtype=np.uint64)
    # Group g uses the counter advanced by g (a 128-bit add; the seeds here never carry).
    low = np.uint64(counter[0]) + index
    counters = np.stack(
        [
            low & np.uint64(_MASK),
            np.full(groups, counter[1], np.uint64) + (low >> np.uint64(32)),
            np.full(groups, counter[2], np.uint64),
            np.full(groups, counter[3], np.uint64),
        ],
        axis=1,
    )
    bits = _philox(counters, key).reshape(-1, 2)
    u1 = np.maximum(_uint32_to_unit_float(bits[:, 0]), np.float32(1.0e-7))
    # 2.0f * M_PI is a double: the angle is rounded to float once, after the product.
    v1 = (2.0 * np.pi * _uint32_to_unit_float(bits[:, 1]).astype(np.float64)).astype(np.float32)
    log_u1 = np.log(u1.astype(np.float64)).astype(np.float32)
    radius = np.sqrt((np.float32(-2.0) * log_u1).astype(np.float64)).astype(np.float32)
    sin = np.sin(v1.astype(np.float64)).astype(np.float32)
    cos = np.cos(v1.astype(np.float64)).astype(np.float32)
    out = np.stack([sin * radius, cos * radius], axis=1).reshape(-1)
    return out[:size].reshape(shape)
