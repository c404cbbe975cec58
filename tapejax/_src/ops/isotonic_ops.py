"""``tf.nn.isotonic_regression``: the closest non-increasing (or non-decreasing) sequence
along an axis, in least squares, and the segments on which it is constant.

The solver is TF's kernel's pool-adjacent-violators scan, element by element: a new
element joins the previous pool while its pool's mean is strictly greater, and a pool's
value is its sum divided by its size in the output dtype, so values and segments are
TF's, NaNs and ties included. The gradient is TF's: each output's upstream gradient is
averaged over its segment (the segments held fixed). This module must never
differentiate through the scan's loops: JAX cannot reverse them, and TF's gradient is
the segment mean anyway.
"""

from __future__ import annotations

import collections
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import axis_ints, no_kernel, node_attrs, tf_type_name, to_tensor

__all__ = ["isotonic_regression"]

_OP = "IsotonicRegression"
_ALLOWED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"

IsotonicRegression = collections.namedtuple("IsotonicRegression", ["output", "segments"])


def _pools_of_row(x):
    """TF's PAVA on one row (non-increasing): ``(pool values, segment of each element)``."""
    n = x.shape[0]
    if n == 0:
        return x, jnp.zeros(0, jnp.int32)

    def merge(state):
        sums, counts, means, starts, top = state
        total, count = sums[top - 2] + sums[top - 1], counts[top - 2] + counts[top - 1]
        return (
            sums.at[top - 2].set(total),
            counts.at[top - 2].set(count),
            means.at[top - 2].set(total / count.astype(x.dtype)),
            starts,
            top - 1,
        )

    def violated(state):
        _, _, means, _, top = state
        return (top > 1) & (means[top - 1] > means[jnp.maximum(top - 2, 0)])

    def push(i, state):
        sums, counts, means, starts, top = state
        state = (
            sums.at[top].set(x[i]),
            counts.at[top].set(1),
            means.at[top].set(x[i]),
            starts.at[top].set(i),
            top + 1,
        )
        return jax.lax.while_loop(violated, merge, state)

    zeros, ints = jnp.zeros(n, x.dtype), jnp.zeros(n, jnp.int32)
    init = (zeros, ints, zeros, ints, jnp.int32(0))
    _, _, means, starts, top = jax.lax.fori_loop(0, n, push, init)
    # Pools beyond ``top`` are stale: their starts go out of range and are dropped.
    firsts = jnp.where(jnp.arange(n) < top, starts, n)
    segments = jnp.cumsum(jnp.zeros(n, jnp.int32).at[firsts].set(1, mode="drop")) - 1
    return means[segments], segments


@jax.custom_jvp
def _segment_constant(value, x, segments):
    """``value``, whose derivative is ``x``'s averaged over each row's segments (TF's
    IsotonicRegression gradient)."""
    del x, segments
    return value


@_segment_constant.defjvp
def _segment_constant_jvp(primals, tangents):
    value, x, segments = primals
    _, tx, _ = tangents
    rows = jnp.arange(segments.shape[0])[:, None]
    sums = jnp.zeros(tx.shape, tx.dtype).at[rows, segments].add(tx)
    counts = jnp.zeros(tx.shape, tx.dtype).at[rows, segments].add(1)
    mean = (sums / jnp.maximum(counts, 1))[rows, segments].astype(value.dtype)
    # The primal through ``_segment_constant`` again: higher derivatives are TF's too.
    return _segment_constant(value, x, segments), mean


def _isotonic_fn(x, *, axis, decreasing, dtype):
    moved = jnp.moveaxis(x, axis, -1) if x.ndim else x
    width = moved.shape[-1] if moved.ndim else 1
    rows = moved.reshape(moved.size // width if width else math.prod(moved.shape[:-1]), width)
    # As TF: the increasing problem is the decreasing one of -x (negated in x's dtype).
    signed = (rows if decreasing else -rows).astype(dtype)
    value, segments = jax.vmap(_pools_of_row)(jax.lax.stop_gradient(signed))
    if jnp.issubdtype(x.dtype, jnp.inexact):
        value = _segment_constant(value, signed, segments)
    value = value if decreasing else -value

    def back(a):
        a = a.reshape(moved.shape)
        return jnp.moveaxis(a, -1, axis) if x.ndim else a

    return back(value), back(segments)


_isotonic_op = Op(_OP, _isotonic_fn, multiple_outputs=True)

# TF's Python: float types keep theirs, 8- and 16-bit integers solve in float32, the
# rest in float64.
_OUTPUT = {"float32": np.float32, "float16": np.float16, "int8": np.float32, "int16": np.float32}


def _output_dtype(dt: np.dtype) -> np.dtype:
    name = tf_type_name(dt)
    if name not in _ALLOWED.split(", "):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {name} is not in the list of allowed values: {_ALLOWED}",
        )
    out = dt if name == "bfloat16" else np.dtype(_OUTPUT.get(dt.name, np.float64))
    if dt.kind == "u":  # TF's op takes them; its CPU build has no kernel
        raise no_kernel(_OP, dt, node_attrs(output_dtype=f"DT_{tf_type_name(out).upper()}"))
    return canonical_np_dtype(out)


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """Solves isotonic regression problems along ``axis`` (``tf.nn.isotonic_regression``):
    for each vector ``x``, ``argmin_{y_1 >= y_2 >= ...} sum_i (x_i - y_i) ** 2``
    (``y_1 <= y_2 <= ...`` with ``decreasing=False``).

    Args:
        inputs: a real tensor; float types keep their dtype, int8 and int16 give
            float32, int32 and int64 float64 (float32 unless JAX's x64 mode is on).
        decreasing: solve the non-increasing problem (the default) or the
            non-decreasing one.
        axis: the axis of the problems.

    Returns:
        ``(output, segments)``: the solutions, and int32 ids, from 0 in each problem, of
        the segments on which each is constant (TF's namedtuple ``IsotonicRegression``
        when ``decreasing`` and ``axis`` is the last one, else a tuple, as TF). The
        gradient averages the upstream gradient over each segment, as TF's does for
        2-D inputs.

    .. warning::
        TF's gradient is malformed for other ranks (for a 1-D input: the upstream
        gradient unaveraged, shaped ``[n, 1]``); tapejax's has the input's shape and
        averages each problem's segments at any rank.

    Example:
        >>> import tapejax as tf
        >>> y, segments = tf.nn.isotonic_regression(tf.constant([[3.0, 1.0, 2.0]]))
        >>> y.numpy(), segments.numpy()
        (array([[3. , 1.5, 1.5]], dtype=float32), array([[0, 1, 1]], dtype=int32))
    """
    x = to_tensor(inputs)
    out_dt = _output_dtype(x._v.dtype)
    n = x._v.ndim
    (ax,) = axis_ints(axis)
    last = ax == -1 or ax == n - 1
    if not last and not -n <= ax < n:
        raise InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in "
            f"the input. Received: dim={ax}",
        )
    static = (("axis", ax % n if n else 0), ("decreasing", bool(decreasing)), ("dtype", out_dt))
    output, segments = apply(_isotonic_op, (x,), static)
    if decreasing and last:
        return IsotonicRegression(output, segments)
    return output, segments
