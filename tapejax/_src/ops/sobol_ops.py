"""``tf.math.sobol_sample``: points of the Sobol sequence, equal to TF's bit for bit.

TF's kernel (``SobolSample``) takes Joe and Kuo's direction numbers for up to 21200
dimensions; ``sobol_directions.npz`` holds the same numbers in compact form (written by
``tools/sobol_directions.py`` from TF's own table, which it verifies digit for digit), and
``expand`` regenerates the full table from it once, on first use. Point ``i`` of the output
is the sequence's point ``skip + i + 1`` in Gray-code order, as TF's (which skips the all-zero
first point): the XOR of the direction integers the Gray code's bits select, divided by
2**31. TF converts that integer to the output dtype before dividing by a power of two, so
float32 results are the integer rounded to 24 bits, exactly as here.

This module must never compute a point from TF's outputs: the table is the only data.
"""

from __future__ import annotations

import functools
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import dtype_mismatch, tf_type_name

_DIRECTIONS = pathlib.Path(__file__).with_name("sobol_directions.npz")
_DIGITS = 31
_MAX_DIM = 21200
_INT32_MAX = 2**31 - 1


def expand(data: dict) -> np.ndarray:
    """The ``[dims, 31]`` table of direction numbers ``m_1 .. m_31`` from the compact form.

    Dimension 1 is all ones (van der Corput's sequence); each later one is stored as its
    primitive polynomial's inner coefficients ``a_1 .. a_(s-1)`` and ``m_1 .. m_s`` without
    their lowest bit (every ``m_i`` is odd), dimensions sorted by degree ``s``. The rest follow
    Joe and Kuo's recurrence ``m_i = 2 a_1 m_(i-1) ^ ... ^ 2^s m_(i-s) ^ m_(i-s)``.
    """
    bits = np.unpackbits(data["bits"]).astype(np.int64)
    groups, offset = [np.ones((1, _DIGITS), np.int64)], 0
    for s, count in enumerate(data["degree_counts"].tolist(), start=1):
        width = (s - 1) + s * (s - 1) // 2
        block = bits[offset : offset + count * width].reshape(count, width)
        offset += count * width

        def field(start, length, block=block):
            weights = 1 << np.arange(length - 1, -1, -1, dtype=np.int64)
            return block[:, start : start + length] @ weights

        a = field(0, s - 1)
        m = np.zeros((count, _DIGITS), np.int64)
        start = s - 1
        for i in range(1, s + 1):
            m[:, i - 1] = (field(start, i - 1) << 1) | 1
            start += i - 1
        for i in range(s + 1, _DIGITS + 1):
            value = (m[:, i - s - 1] << s) ^ m[:, i - s - 1]
            for k in range(1, s):
                a_k = (a >> (s - 1 - k)) & 1
                value ^= a_k * (m[:, i - k - 1] << k)
            m[:, i - 1] = value
        groups.append(m)
    return np.concatenate(groups)


@functools.cache
def _direction_integers() -> np.ndarray:
    """``m_(k+1) * 2**(30 - k)``: the ``[21200, 31]`` int32 direction integers on 31 bits."""
    m = expand(dict(np.load(_DIRECTIONS)))
    return (m << np.arange(_DIGITS - 1, -1, -1)).astype(np.int32)


def _sobol_fn(directions, skip, *, num_results, dtype):
    n = skip + jnp.arange(1, num_results + 1, dtype=jnp.int32)
    gray = n ^ (n >> 1)
    points = jnp.zeros((num_results, directions.shape[0]), jnp.int32)
    for k in range(_DIGITS):
        chosen = ((gray >> k) & 1).astype(bool)[:, None]
        points = points ^ jnp.where(chosen, directions[None, :, k], 0)
    # TF converts the integer to the dtype, then scales by a power of two (exact).
    return points.astype(dtype) * np.asarray(2.0**-_DIGITS, dtype)


_sobol_op = Op("SobolSample", _sobol_fn, differentiable=False)


def _int32_scalar(value, what: str, index: int):
    """An int32 scalar argument, checked as TF's op wrapper and kernel do: a Tensor, or a
    Python/NumPy int (kept on the host, so that it stays static inside a trace)."""
    if getattr(value, "_is_variable", False):
        value = value._dense_read()
    if isinstance(value, Tensor):
        if value._v.dtype != np.dtype(np.int32):
            raise dtype_mismatch("SobolSample", index, np.dtype(np.int32), value._v.dtype)
        shape = value._v.shape
    else:
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
        shape = arr.shape
        value = int(arr) if not shape else value
    if shape:
        raise InvalidArgumentError(None, None, f"{what} must be a scalar [Op:SobolSample]")
    return value


def _static_int(value, what: str) -> int | None:
    """``value`` as a Python int, or None if it is only known when the program runs."""
    if not isinstance(value, Tensor):
        return value
    if isinstance(value._value, jax.core.Tracer):
        return None
    return int(value._value)


def sobol_sample(dim, num_results, skip=0, dtype=dtypes.float32, name=None):
    """Points of the Sobol sequence (``tf.math.sobol_sample``), ``[num_results, dim]``.

    The first ``skip`` points (after the all-zero one, which TF never returns) are skipped.
    Values equal TF's bit for bit: the same Joe-Kuo direction numbers, for ``dim`` up to
    21200. ``dim`` and ``num_results`` set the output's shape, so inside
    ``tapejax.function`` they must be Python ints; ``skip`` may be a traced tensor.

    Args:
      dim: int32 scalar, each point's dimension (1 to 21200).
      num_results: int32 scalar, how many points (at least 1).
      skip: int32 scalar, how many points to skip (at least 0).
      dtype: ``float32`` (default) or ``float64``.
      name: ignored (TF's op name).

    Returns:
      A ``[num_results, dim]`` tensor of ``dtype`` in ``[0, 1)``; it has no gradient.

    Raises:
      InvalidArgumentError: TF's, for an argument out of range or not a scalar, or a dtype
        other than float32/float64.

    Example:
        >>> import tapejax as tf
        >>> tf.math.sobol_sample(2, 4).numpy()
        array([[0.5  , 0.5  ],
               [0.75 , 0.25 ],
               [0.25 , 0.75 ],
               [0.375, 0.375]], dtype=float32)
    """
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'dtype' of {tf_type_name(dt._np)} is not in the list of allowed "
            "values: float, double [Op:SobolSample]",
        )
    sizes = {}
    for what, value, index in (("dim", dim, 0), ("num_results", num_results, 1)):
        sizes[what] = _static_int(_int32_scalar(value, what, index), what)
        if sizes[what] is None:
            raise NotImplementedError(
                f"tapejax.math.sobol_sample: `{what}` sets the output's shape, so it must be "
                "known when the op runs; inside tapejax.function pass a Python int (`skip` may "
                "be traced)."
            )
    d, n = sizes["dim"], sizes["num_results"]
    skip = _int32_scalar(skip, "skip", 2)
    s = _static_int(skip, "skip")
    checks = [
        (d >= 1, "dim must be at least one"),
        (d <= _MAX_DIM, f"dim must be at most {_MAX_DIM}"),
        (n >= 1, "num_results must be at least one"),
        (s is None or s >= 0, "skip must be non-negative"),
        (s is None or n < _INT32_MAX - s, f"num_results+skip must be less than {_INT32_MAX}"),
    ]
    for ok, message in checks:
        if not ok:
            raise InvalidArgumentError(None, None, f"{message} [Op:SobolSample]")
    directions = _direction_integers()[:d]
    if not isinstance(skip, Tensor):
        skip = np.int32(skip)
    static = (("dtype", canonical_np_dtype(dt._np)), ("num_results", n))
    return apply(_sobol_op, (directions, skip), static)
