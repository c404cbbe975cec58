"""``tf.linalg.experimental.conjugate_gradient``: TF's preconditioned CG, op for op.

The iteration is TF's ``conjugate_gradient.py`` in tapejax ops, so its iterates, stopping
rule and output are TF's; under ``tapejax.function`` the loop is one ``while_loop`` op.
This module must never factor or invert the operator: CG only applies it.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..conversion import constant
from ..ops._helpers import to_tensor
from ..ops.array_ops import broadcast_dynamic_shape, broadcast_to, shape, squeeze
from ..ops.control_flow_ops import while_loop
from ..ops.creation_ops import zeros
from ..ops.join_split_ops import concat
from ..ops.linalg_ops import matvec
from ..ops.math_ops import logical_and
from ..ops.norm_ops import norm
from ..ops.reduction_ops import reduce_any

__all__ = ["conjugate_gradient"]

# TF builds the namedtuple type per call; one type here gives the same fields and name.
_CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(x, y):
    # TF's ``squeeze(matvec(x[..., newaxis], y, adjoint_a=True), -1)``: conjugates ``x``.
    return squeeze(matvec(x[..., None], y, adjoint_a=True), axis=-1)


def conjugate_gradient(
    operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20, name="conjugate_gradient"
):
    """Solves ``operator @ x = rhs`` by conjugate gradients
    (``tf.linalg.experimental.conjugate_gradient``).

    Iterates until ``max_iter`` steps or until every batch member's residual norm is at
    most ``tol`` times the norm of ``rhs`` (broadcast to the batch).

    Args:
      operator: a ``LinearOperator`` marked ``is_self_adjoint`` and
        ``is_positive_definite``.
      rhs: the right-hand side, shape ``[..., N]``.
      preconditioner: a ``LinearOperator`` approximating the inverse of ``operator``.
      x: the initial guess, shape ``[..., N]`` (zeros by default).
      tol: the relative tolerance on the residual norm.
      max_iter: the most iterations to run.
      name: unused (TF's name scope).

    Returns:
      A namedtuple ``CGState(i, x, r, p, gamma)``: the int32 iteration count, the
      solution, the residual, the last search direction and ``r . M r``.

    Raises:
      ValueError: ``operator`` is not marked self-adjoint and positive definite (TF's text).

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorFullMatrix(
        ...     tf.constant([[4.0, 1.0], [1.0, 3.0]]), is_self_adjoint=True,
        ...     is_positive_definite=True)
        >>> out = tf.linalg.experimental.conjugate_gradient(a, tf.constant([1.0, 2.0]))
        >>> int(out.i), [round(v, 4) for v in out.x.numpy().tolist()]
        (2, [0.0909, 0.6364])
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    rhs = to_tensor(rhs)

    def stopping_criterion(i, state):
        return logical_and(i < max_iter, reduce_any(norm(state.r, axis=-1) > tol))

    def cg_step(i, state):
        z = operator.matvec(state.p)
        alpha = state.gamma / _dot(state.p, z)
        x = state.x + alpha[..., None] * state.p
        r = state.r - alpha[..., None] * z
        q = r if preconditioner is None else preconditioner.matvec(r)
        gamma = _dot(r, q)
        beta = gamma / state.gamma
        p = q + beta[..., None] * state.p
        return i + 1, _CGState(i + 1, x, r, p, gamma)

    broadcast_shape = broadcast_dynamic_shape(shape(rhs)[:-1], operator.batch_shape_tensor())
    if preconditioner is not None:
        broadcast_shape = broadcast_dynamic_shape(
            broadcast_shape, preconditioner.batch_shape_tensor()
        )
    broadcast_rhs_shape = concat([broadcast_shape, [shape(rhs)[-1]]], axis=-1)
    r0 = broadcast_to(rhs, broadcast_rhs_shape)
    tol = tol * norm(r0, axis=-1)
    if x is None:
        x = zeros(broadcast_rhs_shape, dtype=rhs.dtype.base_dtype)
    else:
        x = to_tensor(x)
        r0 = rhs - operator.matvec(x)
    p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
    gamma0 = _dot(r0, p0)
    i = constant(0, dtype=dtypes.int32)
    state = _CGState(i=i, x=x, r=r0, p=p0, gamma=gamma0)
    _, state = while_loop(stopping_criterion, cg_step, [i, state])
    return _CGState(state.i, x=state.x, r=state.r, p=state.p, gamma=state.gamma)
