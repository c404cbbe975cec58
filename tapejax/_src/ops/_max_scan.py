"""TF's CPU scans for the maximum of a window, shared by ``max_pool_with_argmax``,
``dilation2d`` and ``fractional_max_pool``: which element wins, ties and NaNs included,
and a value whose derivative goes to that one element.

A window is a stack of candidates on a leading axis, in TF's scan order (row-major over
the window), with a mask of the candidates that lie inside the input. TF's kernels scan
in that order and keep the current maximum unless a candidate beats it strictly, so the
first maximum wins and a NaN wins only where it is the first candidate
(``scan_first``); ``Dilation2D`` and ``FractionalMaxPool`` start from the dtype's lowest
value instead, so NaNs never win and an all-NaN window gives that lowest value
(``scan_above_lowest``). Nothing here may pick by ``argmax``: XLA's prefers NaN.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def lowest(dtype) -> np.ndarray:
    """The dtype's lowest finite value (Eigen's ``NumTraits<T>::lowest()``), as a NumPy
    scalar: a constant, never a traced value."""
    dtype = np.dtype(dtype)
    info = jnp.finfo(dtype) if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype)
    return np.array(info.min, dtype)


def scan_first(stack, valid):
    """``(maximum, position)`` along axis 0: the first valid candidate, replaced by each
    later valid candidate strictly greater than the current one (TF's MaxPoolWithArgmax
    and MaxPoolGrad scans). ``valid`` broadcasts against ``stack[0]``; every window must
    hold a valid candidate."""
    cur = stack[0]
    pos = jnp.zeros(jnp.broadcast_shapes(stack.shape[1:], valid.shape[1:]), jnp.int32)
    have = jnp.broadcast_to(valid[0], pos.shape)
    cur = jnp.broadcast_to(cur, pos.shape)
    for p in range(1, stack.shape[0]):
        take = valid[p] & (~have | (cur < stack[p]))
        cur = jnp.where(take, stack[p], cur)
        pos = jnp.where(take, p, pos)
        have = have | valid[p]
    return cur, pos


def scan_above_lowest(stack, valid):
    """``(maximum, position, found)`` along axis 0, starting from the dtype's lowest value
    and taking a valid candidate only when strictly greater (TF's Dilation2D and
    FractionalMaxPool): NaNs are skipped; where nothing beats the lowest value, the
    maximum is that value, ``position`` is 0 and ``found`` is False."""
    shape = jnp.broadcast_shapes(stack.shape[1:], valid.shape[1:])
    cur = jnp.full(shape, lowest(stack.dtype))
    pos = jnp.zeros(shape, jnp.int32)
    found = jnp.zeros(shape, bool)
    for p in range(stack.shape[0]):
        take = valid[p] & (stack[p] > cur)
        cur = jnp.where(take, stack[p], cur)
        pos = jnp.where(take, p, pos)
        found = found | take
    return cur, pos, found


def pick(stack, pos):
    """``stack[pos[...], ...]``: the candidate at ``pos`` of each window (``stack`` is
    broadcast to ``pos``'s shape first)."""
    stack = jnp.broadcast_to(stack, stack.shape[:1] + pos.shape)
    return jnp.take_along_axis(stack, pos[None], axis=0)[0]


@jax.custom_jvp
def routed(value, operands, indices):
    """``value``, whose derivative is that of ``operands[i].ravel()[indices[i]]`` summed
    over ``i``: TF's gradient of a windowed maximum, which goes to the one element its
    kernel chose (even where the value is a constant, as an all-NaN window's)."""
    del operands, indices
    return value


@routed.defjvp
def _routed_jvp(primals, tangents):
    value, operands, indices = primals
    _, operand_tangents, _ = tangents
    out = jnp.zeros(value.shape, value.dtype)
    for t, index in zip(operand_tangents, indices):
        out = out + t.reshape(-1)[index].astype(value.dtype)
    # The primal through ``routed`` again: higher derivatives route the same way.
    return routed(value, operands, indices), out
