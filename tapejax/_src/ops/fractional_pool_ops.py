"""Fractional pooling of ``tf.nn`` (Graham, 2015): ``fractional_max_pool`` and
``fractional_avg_pool``, which pool rows and columns into cells of ``k`` or ``k + 1``
elements placed at random.

The pooling sequences follow TF's generation rule (``fractional_pool_common.cc``): the
random rule shuffles ``n_in % n_out`` cells of ``k + 1`` among cells of ``k``; the
pseudo-random one takes ``ceil(alpha * (i + u))`` for one uniform ``u`` below TF's bound.
Their random bits are JAX's, not TF's Philox: with ``seed=0`` they come from the global
stream (a new draw each call), with a nonzero ``seed`` from that seed and the global seed
alone, so every call repeats them, and the max and average pools draw the same ones, as
TF's. Given the sequences, the pooling is TF's kernels': cells clipped to the input,
``overlapping`` sharing the boundary element; the max scan and its gradient are
``_max_scan``'s (the first maximum of a cell gets the gradient), the average of integers
truncates. ``pool_with_sequences`` runs that pooling on given sequences.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor, x64_enabled
from ..dispatch import Op, apply
from ..errors import UnimplementedError
from ._helpers import TF_ALLOWED, require, to_tensor
from ._max_scan import pick, routed, scan_above_lowest, scan_first
from ._window_args import _iae, _list_attr
from .random_samplers import _key, _Sampler
from .random_state import _op_stream_start, _stateful_draw
from .reduction_ops import _narrowed

__all__ = ["fractional_max_pool", "fractional_avg_pool"]

TF_ALLOWED.update(
    dict.fromkeys(["FractionalMaxPool", "FractionalAvgPool"], "float, double, int32, int64")
)

FractionalMaxPool = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)
FractionalAvgPool = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"]
)

# One stream kind for both pools: TF's kernels seeded alike draw the same sequences.
_KIND = "FractionalPool"

# -- the pooling sequences --------------------------------------------------------------------


def _pooling_sequence(key, n_in: int, n_out: int, pseudo_random: bool, dtype):
    """``n_out + 1`` cell boundaries from 0 to ``n_in``, each cell ``k`` or ``k + 1`` long."""
    k, extra = divmod(n_in, n_out)
    if not pseudo_random:
        lengths = np.full(n_out, k)
        lengths[:extra] += 1
        bounds = jnp.cumsum(jax.random.permutation(key, lengths))
        return jnp.concatenate([jnp.zeros(1, dtype), bounds.astype(dtype)])
    alpha = n_in / n_out
    max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
    real = jnp.float64 if x64_enabled() else jnp.float32
    u = jax.random.uniform(key, (), real) * max_u
    # a_i = ceil(alpha * (i + u)) with the integer part of alpha * i taken exactly, so
    # float32 rounds only the fraction; the boundaries are a_i - 1 (TF's a_0 is 1).
    whole, part = np.divmod(n_in * np.arange(1, n_out), n_out)
    a = whole + jnp.ceil((part / n_out).astype(real) + alpha * u).astype(dtype)
    return jnp.concatenate([jnp.zeros(1, dtype), a - 1, jnp.full(1, n_in, dtype)])


def _sequences_fn(key, *, rows, cols, pseudo_random, dtype):
    row_key, col_key = jax.random.split(_key(key))
    return jnp.concatenate(
        [
            _pooling_sequence(row_key, rows[0], rows[1], pseudo_random, dtype),
            _pooling_sequence(col_key, cols[0], cols[1], pseudo_random, dtype),
        ]
    )


_sequence_sampler = _Sampler("FractionalPoolSequences", _sequences_fn)


def _draw_sequences(seed, static):
    """Both pooling sequences, concatenated: from the global stream for ``seed == 0``, else
    from (global seed, ``seed``) alone, the same on every call (TF's deterministic mode)."""
    if not seed:
        return _stateful_draw(None)(_sequence_sampler, (), static)
    key = convert_to_tensor(_op_stream_start(int(seed), _KIND))
    return apply(_sequence_sampler.stateless, (key,), static)


# -- pooling given the sequences -------------------------------------------------------------


def _cells(bounds, size: int, n_out: int, longest: int, overlapping: bool):
    """Each cell's element indices ``(n_out, longest)``, clipped to the input, and which of
    them belong to the cell (TF's ``[start, min(end, size - 1)]``)."""
    start = bounds[:-1, None]
    end = jnp.minimum(bounds[1:, None] - (0 if overlapping else 1), size - 1)
    index = start + jnp.arange(longest)
    return jnp.minimum(index, size - 1), index <= end


def _fractional_pool_fn(x, bounds, *, rows, cols, overlapping, average):
    n, h, w, c = x.shape
    row_bounds, col_bounds = bounds[: rows + 1], bounds[rows + 1 :]
    kr, kc = h // rows + 1 + overlapping, w // cols + 1 + overlapping
    r_index, r_valid = _cells(row_bounds, h, rows, kr, overlapping)
    c_index, c_valid = _cells(col_bounds, w, cols, kc, overlapping)
    # [n, rows, kr, cols, kc, c] -> one window element per leading entry, row-major.
    stack = x[:, r_index][:, :, :, c_index]
    stack = stack.transpose(2, 4, 0, 1, 3, 5).reshape(kr * kc, n, rows, cols, c)
    valid = r_valid.T[:, None, :, None] & c_valid.T[None, :, None, :]
    valid = valid.reshape(kr * kc, 1, rows, cols, 1)
    if average:
        total = jnp.sum(jnp.where(valid, stack, jnp.zeros((), x.dtype)), axis=0, dtype=x.dtype)
        count = jnp.sum(valid, axis=0).astype(x.dtype)
        inexact = jnp.issubdtype(x.dtype, jnp.inexact)
        out = total / count if inexact else jax.lax.div(total, jnp.broadcast_to(count, total.shape))
        return out, row_bounds, col_bounds
    value, _, _ = scan_above_lowest(stack, valid)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return value, row_bounds, col_bounds
    # TF's gradient kernel rescans each cell, keeping its first maximum.
    _, pos = scan_first(stack, valid)
    shape = (kr, kc, rows, cols)
    r_all = jnp.broadcast_to(r_index.T[:, None, :, None], shape).reshape(kr * kc, 1, rows, cols, 1)
    c_all = jnp.broadcast_to(c_index.T[None, :, None, :], shape).reshape(kr * kc, 1, rows, cols, 1)
    batch = jnp.arange(n)[:, None, None, None]
    index = ((batch * h + pick(r_all, pos)) * w + pick(c_all, pos)) * c + jnp.arange(c)
    value = routed(jax.lax.stop_gradient(value), (x,), (index,))
    return value, row_bounds, col_bounds


_pool_ops = {
    False: Op("FractionalMaxPool", _fractional_pool_fn, multiple_outputs=True),
    True: Op("FractionalAvgPool", _fractional_pool_fn, multiple_outputs=True),
}


def _pool(x, bounds, out_rows: int, out_cols: int, overlapping: bool, average: bool):
    static = (
        ("rows", out_rows),
        ("cols", out_cols),
        ("overlapping", bool(overlapping)),
        ("average", average),
    )
    result = apply(_pool_ops[average], (x, bounds), static)
    return (FractionalAvgPool if average else FractionalMaxPool)(*result)


def pool_with_sequences(value, row_pooling_sequence, col_pooling_sequence, overlapping, average):
    """Fractional max (or average) pooling of ``value`` on the given cell boundaries: the
    pooling TF's kernels run once their sequences are drawn (here to feed TF's own
    sequences in tests); returns ``(output, row_pooling_sequence, col_pooling_sequence)``."""
    x = to_tensor(value)
    rows, cols = (
        np.asarray(s).astype(np.int32) for s in (row_pooling_sequence, col_pooling_sequence)
    )
    bounds = convert_to_tensor(np.concatenate([rows, cols]))
    return _pool(x, bounds, len(rows) - 1, len(cols) - 1, overlapping, average)


# -- the public ops ----------------------------------------------------------------------------


def _check_ratio(ratio: list, op_name: str, what: str) -> None:
    """TF's FractionalMaxPool/FractionalAvgPool attribute checks."""
    if len(ratio) != 4:
        raise _iae("pooling_ratio field must specify 4 dimensions", op_name)
    for r in ratio:
        if r < 1:
            raise _iae(f"pooling_ratio cannot be smaller than 1, got: {r:g}", op_name)
    if ratio[0] != 1 or ratio[3] != 1:
        raise UnimplementedError(
            None,
            None,
            f"Fractional {what} pooling is not yet supported on the batch nor channel "
            f"dimension. [Op:{op_name}]",
        )


def _fractional_pool(value, ratio, pseudo_random, overlapping, seed, average):
    op_name = "FractionalAvgPool" if average else "FractionalMaxPool"
    x = to_tensor(value)
    require(x, "fi", op_name)
    _check_ratio(ratio, op_name, "average" if average else "max")
    shape = x._v.shape
    if len(shape) != 4:
        raise _iae("tensor_in must be 4-dimensional", op_name)
    for i, (size, r) in enumerate(zip(shape, ratio)):
        if size < r:
            raise _iae(
                f"Pooling ratio is higher than input dimension size for dimension {i}. Input "
                f"dim size: {size} pooling ratio: {r:g}",
                op_name,
            )
    # As TF's kernel: the output size divides in float32.
    out = [int(np.floor(np.float32(size) / np.float32(r))) for size, r in zip(shape, ratio)]
    static = (
        ("rows", (shape[1], out[1])),
        ("cols", (shape[2], out[2])),
        ("pseudo_random", bool(pseudo_random)),
        ("dtype", _narrowed(dtypes.int64)),
    )
    bounds = _draw_sequences(seed, static)
    return _pool(x, bounds, out[1], out[2], overlapping, average)


def _max_pool_ratio(pooling_ratio) -> list:
    """``fractional_max_pool``'s Python checks and TF's ``_get_sequence`` of the ratio."""
    if isinstance(pooling_ratio, (list, tuple)):
        if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
            raise ValueError(
                "`pooling_ratio` should have first and last elements with value 1.0. "
                f"Received: pooling_ratio={pooling_ratio}"
            )
        for element in pooling_ratio:
            if element < 1.0:
                raise ValueError(
                    "`pooling_ratio` elements should be >= 1.0. "
                    f"Received: pooling_ratio={pooling_ratio}"
                )
        values = list(pooling_ratio)
    elif isinstance(pooling_ratio, (int, float)):
        if pooling_ratio < 1.0:
            raise ValueError(
                f"`pooling_ratio` should be >= 1.0. Received: pooling_ratio={pooling_ratio}"
            )
        values = [pooling_ratio]
    else:
        raise ValueError(
            "`pooling_ratio` should be an int or a list of ints. "
            f"Received: pooling_ratio={pooling_ratio}"
        )
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        values = [1.0, *values, 1.0]
    if len(values) != 4:
        raise ValueError(
            "pooling_ratio should be of length 1, 2 or 4. "
            f"Received: pooling_ratio={list(pooling_ratio)} of length {len(values)}"
        )
    return [float(v) for v in values]


def fractional_max_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
):
    """Fractional max pooling of NHWC ``value`` (``tf.nn.fractional_max_pool``).

    Args:
        value: ``[batch, height, width, channels]``, float32, float64, int32 or int64.
        pooling_ratio: a float >= 1, or a list of 1, 2 or 4 of them (batch and channel
            ratios 1.0): each spatial size becomes ``floor(size / ratio)``.
        pseudo_random: TF's pseudo-random sequences instead of random ones.
        overlapping: cells share their boundary element with the next cell.
        seed: 0 draws new sequences each call; any other value gives the same sequences
            on every call (for a given global seed and input shape).
        name: ignored (TF's op name).

    Returns:
        ``(output, row_pooling_sequence, col_pooling_sequence)``; the sequences are int64
        (int32 unless JAX's x64 mode is on). The gradient flows to the first maximum of
        each cell, as TF's FractionalMaxPoolGrad.

    .. warning:: The sequences are drawn from JAX's random bits, not TF's: for a seed
       they differ from TF's, though they follow TF's rule (and the same ``seed`` gives
       the same sequences for both fractional pools, as in TF).

    Example:
        >>> import tapejax as tf
        >>> out, rows, cols = tf.nn.fractional_max_pool(tf.ones([1, 5, 5, 1]), [1.0, 1.5, 2.0, 1.0], seed=7)
        >>> out.shape, rows.shape, cols.shape
        (TensorShape([1, 3, 2, 1]), TensorShape([4]), TensorShape([3]))
    """
    ratio = _max_pool_ratio(pooling_ratio)
    return _fractional_pool(value, ratio, pseudo_random, overlapping, seed, average=False)


def fractional_avg_pool(
    value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None
):
    """Fractional average pooling of NHWC ``value`` (``tf.nn.fractional_avg_pool``): as
    ``fractional_max_pool``, with the mean of each cell (truncated for integers).

    ``pooling_ratio`` is a list of at least 4 floats here, as TF's; the gradient spreads
    evenly over each cell.

    Example:
        >>> import tapejax as tf
        >>> out, rows, cols = tf.nn.fractional_avg_pool(tf.ones([1, 5, 5, 1]), [1.0, 1.5, 2.0, 1.0], seed=7)
        >>> float(tf.reduce_min(out)), out.shape
        (1.0, TensorShape([1, 3, 2, 1]))
    """
    ratio = _list_attr(pooling_ratio, "pooling_ratio", "fractional_avg_pool", convert=float)
    return _fractional_pool(value, ratio, pseudo_random, overlapping, seed, average=True)
