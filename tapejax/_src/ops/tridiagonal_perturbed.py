"""TF's tridiagonal solve for numerically singular matrices (``perturb_singular=True``).

TF's CPU kernel (``SolveWithGaussianEliminationWithPivotingAndPerturbSingular``, after
LAPACK's ``xLAGTF``/``xLAGTS``) eliminates with partial pivoting chosen on scaled rows and,
during back substitution, perturbs each pivot smaller than one (by ``eps * max |U|``,
doubling until the row cannot overflow) instead of failing. ``eigh_tridiagonal``'s inverse
iteration relies on it to solve ``(T - lambda I) x = v`` at an eigenvalue ``lambda``.

Its gradient is TF's rule for ``TridiagonalSolve``: the cotangent solves the transposed (not
conjugated) system with the same algorithm, and the diagonals get minus the three diagonals of
``grad_rhs x^T``. The perturbations depend on the right-hand side, so that rule is not the
transpose of a linear map: it is a ``custom_vjp`` (no forward mode), which the JAX convention
(the lowering conjugates around the program) wraps in conjugations.

Near a singular matrix the sign of a pivot is its rounding error, and it sets the sign of
the solution: so products that TF's kernel rounds before an addition are rounded here too
(``unfused``), where XLA would otherwise fuse them into FMAs.

Layout as ``tridiagonal_ops``: diagonals ``[..., 3, M]`` (superdiagonal, diagonal,
subdiagonal), right-hand sides ``[..., M, K]``. This module defines no op.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def unfused(product):
    """``product``, rounded before it enters a sum: XLA's CPU backend fuses ``a - b * c`` into
    an FMA (one rounding), TF's kernels round ``b * c`` first. The select keeps them apart."""
    return jnp.where(jnp.isnan(product), jnp.nan, product)


def _perturb_pivot(perturb, pivot, row):
    """TF's ``MaybePerturbPivot``: ``(pivot, row)`` with a pivot below one moved away from zero
    (by ``perturb``, doubling) until ``row / pivot`` cannot overflow, or both scaled up."""
    real = jnp.finfo(row.dtype).dtype
    safemin = np.asarray(np.finfo(real).tiny, real)
    bignum = np.asarray(1 / np.finfo(real).tiny, real)
    perturb = jnp.copysign(jnp.maximum(jnp.abs(perturb), safemin), jnp.real(pivot))
    max_factor = jnp.max(jnp.abs(row), axis=-1)

    def active(state):
        pivot, _, _, stop = state
        return (jnp.abs(pivot) < 1) & ~stop

    def step(state):
        pivot, perturb, row, stop = state
        go = active(state)
        a = jnp.abs(pivot)
        tiny = a < safemin
        nudge = jnp.where(tiny, (a == 0) | (max_factor * safemin > a), max_factor > a * bignum)
        scale = tiny & ~nudge
        nudge, scale = go & nudge, go & scale
        pivot = jnp.where(nudge, pivot + perturb.astype(pivot.dtype), pivot)
        pivot = jnp.where(scale, pivot * bignum, pivot)
        row = jnp.where(scale[..., None], row * bignum, row)
        perturb = jnp.where(nudge, perturb * 2, perturb)
        return pivot, perturb, row, stop | (go & ~nudge)

    state = (pivot, perturb, row, jnp.zeros(pivot.shape, bool))
    pivot, _, row, _ = jax.lax.while_loop(lambda s: jnp.any(active(s)), step, state)
    return pivot, row


def _eliminate(sup, diag, sub, rhs):
    """Forward elimination with TF's scaled partial pivoting, solving ``L z = P rhs`` on the way.
    Rows first (``[M, ...]``, right-hand sides ``[M, ..., K]``); returns U's three diagonals,
    ``z`` and ``max |U|`` over the entries TF counts."""
    n = diag.shape[0]
    absolute = jnp.abs
    u0, u1 = diag[0], sup[0]
    init = (u0, u1, absolute(u0) + absolute(u1), rhs[0], jnp.maximum(absolute(u0), absolute(u1)))

    def step(carry, row):
        u0, u1, scale1, x0, max_u = carry
        p, d, s, r, inner = row  # superdiag, diag, subdiag and rhs of row k + 1
        scale2 = absolute(s) + absolute(d) + jnp.where(inner, absolute(p), 0)
        zero_sub = s == 0
        piv1 = jnp.where(u0 == 0, 0, absolute(u0) / scale1)
        swap = ~zero_sub & (absolute(s) / scale2 > piv1)
        keep = ~zero_sub & ~swap
        keep_factor = s / u0
        swap_factor = u0 / s
        # Row k as it leaves the elimination, and row k + 1 as it enters the next step.
        done0 = jnp.where(swap, s, u0)
        done1 = jnp.where(swap, d, u1)
        done2 = jnp.where(swap & inner, p, jnp.zeros_like(p))
        next0 = jnp.where(
            keep, d - unfused(keep_factor * u1), jnp.where(swap, u1 - unfused(swap_factor * d), d)
        )
        next1 = jnp.where(swap & inner, -swap_factor * p, p)
        w = lambda m: m[..., None]  # noqa: E731 - broadcast a row flag over the rhs columns
        done_x = jnp.where(w(swap), r, x0)
        next_x = jnp.where(
            w(keep),
            r - unfused(w(keep_factor) * x0),
            jnp.where(w(swap), x0 - unfused(w(swap_factor) * r), r),
        )
        scale1 = jnp.where(swap, scale1, scale2)
        counted = jnp.maximum(jnp.maximum(absolute(done0), absolute(done1)), absolute(done2))
        max_u = jnp.where(inner, jnp.maximum(max_u, counted), max_u)
        return (next0, next1, scale1, next_x, max_u), (done0, done1, done2, done_x)

    inner = jnp.arange(n - 1) < n - 2
    (last0, _, _, last_x, max_u), (u0s, u1s, u2s, xs) = jax.lax.scan(
        step, init, (sup[1:], diag[1:], sub[1:], rhs[1:], inner)
    )
    zero = jnp.zeros_like(last0)[None]
    u = (
        jnp.concatenate([u0s, last0[None]]),
        jnp.concatenate([u1s, zero]),
        jnp.concatenate([u2s, zero]),
    )
    return u, jnp.concatenate([xs, last_x[None]]), jnp.maximum(max_u, absolute(last0))


def _back_substitute(u, z, tol):
    u0, u1, u2 = u

    def step(carry, row):
        x1, x2 = carry
        zk, a0, a1, a2 = row
        r = zk - unfused(a1[..., None] * x1) - unfused(a2[..., None] * x2)
        pivot, r = _perturb_pivot(tol, a0, r)
        x = r * (1 / pivot)[..., None]
        return (x, x1), x

    zeros = jnp.zeros_like(z[0])
    _, x = jax.lax.scan(step, (zeros, zeros), (z, u0, u1, u2), reverse=True)
    return x


def _solve_rows(diags, rhs):
    sup, diag, sub = (jnp.moveaxis(diags[..., i, :], -1, 0) for i in range(3))
    rows = jnp.moveaxis(rhs, -2, 0)
    eps = np.finfo(jnp.finfo(diags.dtype).dtype).eps
    if diag.shape[0] == 1:
        pivot, r = _perturb_pivot(eps * jnp.abs(diag[0]), diag[0], rows[0])
        return jnp.moveaxis((r * (1 / pivot)[..., None])[None], 0, -2)
    u, z, max_u = _eliminate(sup, diag, sub, rows)
    x = _back_substitute(u, z, eps * max_u)
    return jnp.moveaxis(x, 0, -2)


@jax.custom_vjp
def perturbed_solve(diags, rhs):
    """``A^-1 rhs`` by TF's perturbed pivoting algorithm; ``diags`` ``[..., 3, M]``."""
    if diags.shape[-1] == 0:
        return rhs
    return _solve_rows(diags, rhs)


def _transposed(diags):
    """The compact diagonals of ``A^T``."""
    zero = jnp.zeros_like(diags[..., :1, :1])[..., 0, :]
    sup = jnp.concatenate([diags[..., 2, 1:], zero], axis=-1)
    sub = jnp.concatenate([zero, diags[..., 0, :-1]], axis=-1)
    return jnp.stack([sup, diags[..., 1, :], sub], axis=-2)


def three_diagonals(a, b):
    """The three diagonals of ``a b^T`` (``a``, ``b`` ``[..., M, K]``), compact."""
    zero = jnp.zeros_like(b[..., :1, :])
    diag = jnp.sum(a * b, axis=-1)
    sup = jnp.sum(a * jnp.concatenate([b[..., 1:, :], zero], axis=-2), axis=-1)
    sub = jnp.sum(a * jnp.concatenate([zero, b[..., :-1, :]], axis=-2), axis=-1)
    return jnp.stack([sup, diag, sub], axis=-2)


def _perturbed_solve_fwd(diags, rhs):
    x = perturbed_solve(diags, rhs)
    return x, (diags, x)


def _perturbed_solve_bwd(res, ct):
    diags, x = res
    if diags.shape[-1] == 0:
        return jnp.zeros_like(diags), ct
    # TF's rule on TF's (conjugated) cotangents: grad_rhs = A^-T g, grad_diags = -diag3(grad_rhs x^T).
    grad_rhs = perturbed_solve(_transposed(diags), jnp.conj(ct))
    grad_diags = -three_diagonals(grad_rhs, x)
    return jnp.conj(grad_diags), jnp.conj(grad_rhs)


perturbed_solve.defvjp(_perturbed_solve_fwd, _perturbed_solve_bwd)
