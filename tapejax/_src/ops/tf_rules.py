"""Derivative rules where TF's documented gradient differs from JAX's.

DESIGN.md: tapejax writes no derivative rule by hand except where TF's gradient differs
from JAX's. Each rule here is TF's formula (from its ``*_grad.py``), written as a
``jax.custom_jvp`` (linear in the tangents, so forward and reverse mode both follow
it), except ``sqrt``, whose TF rule (a zero upstream gives zero even at 0, where the
derivative is infinite) is not linear and is applied in reverse mode only.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..registry import register_reverse_rule


def _ties_to_x(fn, x_wins):
    """``fn`` (max or min) with TF's gradient: on ties the whole gradient goes to x.

    TF's _MaximumGrad/_MinimumGrad select with ``x >= y`` / ``x <= y``; JAX splits ties.
    """

    @jax.custom_jvp
    def rule(x, y):
        return fn(x, y)

    @rule.defjvp
    def _jvp(primals, tangents):
        x, y = primals
        out = fn(x, y)
        tx, ty = (_dense(t, out) for t in tangents)
        take_x = x_wins(x, y)
        return out, jnp.where(take_x, tx, 0) + jnp.where(take_x, 0, ty)

    return rule


maximum = _ties_to_x(jnp.maximum, jnp.greater_equal)
minimum = _ties_to_x(jnp.minimum, jnp.less_equal)


@jax.custom_jvp
def real_pow(x, y):
    return jnp.power(x, y)


@real_pow.defjvp
def _real_pow_jvp(primals, tangents):
    # TF's _PowGrad: d/dx = y * x**(y-1); d/dy = z * log(x) where x > 0, else 0 (JAX: NaN).
    # Its powers are TF's Pow too, so that second derivatives are TF's: d/dy of
    # y * x**(y-1) is x**(y-1) at a negative x, where JAX's own power gives NaN.
    x, y = primals
    tx, ty = tangents
    z = real_pow(x, y)
    out = _scale(tx, y * real_pow(x, y - 1))
    if _has_tangent(ty):
        log_x = jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1)), 0)
        out = out + _scale(ty, z * log_x)
    return z, jnp.broadcast_to(out, z.shape).astype(z.dtype)


def _dense(t, like):
    """A tangent as an array of ``like``'s dtype (an integer input's tangent is float0)."""
    if not _has_tangent(t):
        return jnp.zeros(jnp.shape(t), like.dtype)
    return t.astype(like.dtype)


def _has_tangent(t) -> bool:
    return getattr(t, "dtype", None) != jax.dtypes.float0


def _scale(t, factor):
    return t * factor if _has_tangent(t) else jnp.zeros_like(factor)


@jax.custom_jvp
def softmax_xent(labels, logits, axis):
    return -jnp.sum(labels * jax.nn.log_softmax(logits, axis=axis), axis=axis)


softmax_xent = jax.custom_jvp(softmax_xent.fun, nondiff_argnums=(2,))


@softmax_xent.defjvp
def _softmax_xent_jvp(axis, primals, tangents):
    # TF's gradient w.r.t. logits is softmax - labels (exact only when labels sum to 1);
    # w.r.t. labels, -log_softmax. softmax - labels is the kernel's second output in TF,
    # whose registered gradient reaches the logits only; the labels' second derivative is
    # the loss's zero-filled upstream times -log_softmax: zeros, connected (not -1).
    labels, logits = primals
    t_labels, t_logits = tangents
    log_p = jax.nn.log_softmax(logits, axis=axis)
    out = -jnp.sum(labels * log_p, axis=axis)
    backprop = jnp.exp(log_p) - _zero_derivative(labels)
    d_logits = jnp.sum(backprop * t_logits, axis=axis)
    d_labels = -jnp.sum(log_p * t_labels, axis=axis)
    return out, d_logits + d_labels


@jax.custom_jvp
def _zero_derivative(x):
    """``x``, with a derivative of 0 that stays connected to ``x`` (tapes give zeros, not
    ``None``, as TF does for an input whose op-level gradient is a zero-filled upstream)."""
    return x


@_zero_derivative.defjvp
def _zero_derivative_jvp(primals, tangents):
    return primals[0], tangents[0] * 0


@jax.custom_vjp
def sqrt_reverse(x):
    return jnp.sqrt(x)


def _sqrt_fwd(x):
    y = jnp.sqrt(x)
    return y, y


def _sqrt_bwd(y, g):
    # TF's SqrtGrad (Eigen's scalar_sqrt_gradient_op): a zero upstream gives zero even
    # where y == 0, so where(x > 0, sqrt(x), 0) has gradient 0 at 0, not NaN. (This is a
    # JAX-convention VJP: lowering conjugates complex cotangents around the whole program.)
    return (jnp.where(g == 0, jnp.zeros_like(g), 0.5 * g / y),)


sqrt_reverse.defvjp(_sqrt_fwd, _sqrt_bwd)


@jax.custom_jvp
def square(x):
    return jnp.square(x)


@square.defjvp
def _square_jvp(primals, tangents):
    # TF's _SquareGrad: grad * (2 * x), inf where 2 * x overflows (x = 3e38), so a zero
    # upstream gives NaN there. The barrier keeps XLA from reassociating it into
    # (grad * x) * 2, which is 0.
    (x,), (t,) = primals, tangents
    return square(x), t * jax.lax.optimization_barrier(2 * x)


# What lowering uses in reverse mode instead of the op's own function.
register_reverse_rule("Sqrt", lambda static: sqrt_reverse)
