"""Float32 arithmetic as TF's C++ kernels do it, inside XLA programs: the quantization ops
repeat TF's rounding to the bit, so no step may be rewritten (a division by a constant
into a multiplication) or fused (a multiply and an add into one FMA). Nothing here reads
a value.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..errors import InvalidArgumentError

F32 = np.float32


def op_error(op_name, text):
    """TF's eager InvalidArgumentError text for a kernel's check."""
    return InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")


def round_away(v):
    """C's ``round``: halves away from zero (``floor(v + 0.5)`` is wrong just below 0.5)."""
    t = jnp.trunc(v)
    return jnp.where(jnp.abs(v - t) >= 0.5, t + jnp.sign(v), t)


def opaque(c, like):
    """The constant ``c`` (``like``'s dtype) as a value XLA cannot see is constant: it
    rewrites a division by a constant into an inexact multiplication by its reciprocal.
    (``like`` NaN gives NaN, which the result would be anyway.)"""
    like = jnp.asarray(like)
    return jnp.where(like == like, jnp.asarray(c, like.dtype), like)


def exact(v):
    """``v`` computed as written: LLVM may not fuse it with what uses it into an FMA, which
    would move results at rounding ties away from TF's (Eigen's, FMA-free) float32
    arithmetic. A select between an operation and its user stops the contraction (an
    optimization barrier does not survive XLA CPU's fusion); NaN stays NaN. (Divisions by
    a constant need ``opaque`` on the constant too.)"""
    v = jnp.asarray(v)
    return jnp.where(v == v, v, -v)


def c_float(v) -> str:
    """A float as C++'s ``operator<<`` writes it (6 significant digits, no trailing .0)."""
    return f"{float(v):g}"
