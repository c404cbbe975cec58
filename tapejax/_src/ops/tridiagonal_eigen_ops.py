"""``tf.linalg.eigh_tridiagonal``: eigenvalues (and vectors) of a Hermitian tridiagonal matrix.

TF implements it in Python (``linalg_impl.py``), and so does this module, step for step, so
that values and gradients are TF's:

- eigenvalues by bisection on Sturm counts, all in parallel, from the Gershgorin interval
  (``select='a'``/``'i'``) or ``select_range`` (``'v'``), until every interval is narrower than
  the tolerance or the mantissa is exhausted. The gradient is TF's: that of the bisection's
  final midpoints, a fixed combination of the starting bounds (so it reaches ``alpha`` and
  ``beta`` only through the Gershgorin bounds, or ``select_range``), not the eigenvalues'
  derivative. The Sturm counts carry none, as TF's ``back_prop=False`` loop.
- eigenvectors by inverse iteration: up to five solves of ``(T - lambda I) x = v`` with TF's
  perturbed pivoting (``tridiagonal_perturbed``), from TF's fixed start vectors
  (``stateless_random_normal`` with seed ``[7, 42]``, reproduced by ``_philox``), each step
  normalized and, within clusters of eigenvalues closer than ``sqrt(eps) |T|``,
  orthonormalized by a QR factorization with Eigen's Householder conventions (TF's CPU
  ``qr``), so vectors come with TF's signs and phases.

Loops that TF runs as ``while_loop``s are fixed-length masked loops here (the bisection's
``nmant + 1`` steps, the five inverse iterations) so that reverse mode differentiates them.
The number of eigenvalues for ``select='v'`` and the largest cluster are found from concrete
values before the ops run: inside ``tapejax.function`` ``select='v'`` raises
``NotImplementedError`` and every eigenvalue is treated as possibly clustered (slower, same
values).

This module must never swap TF's algorithms for better ones (``jnp.linalg.eigh`` of the dense
matrix, LAPACK's ``stein``): the values' last bits, the vectors' signs and the gradients
would stop being TF's.
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
from ._linalg_helpers import _iae
from ._philox import stateless_normal
from .math_ops import real
from .tf_rules import maximum, minimum
from .tridiagonal_perturbed import perturbed_solve, unfused

_FUDGE = 2.1  # TF widens the Gershgorin interval by this much
_MAX_INVERSE_ITERATIONS = 5  # LAPACK xSTEIN's, as TF's
_START_SEED = (7, 42)


# -- eigenvalues: bisection ---------------------------------------------------------------------


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each point of ``x`` (TF's Sturm recurrence)."""
    q = alpha[0] - x
    count = jnp.where(q < 0, 1, 0).astype(jnp.int32)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(carry, row):
        q, count = carry
        a, b_sq = row
        q = a - b_sq / q - x
        below = q <= pivmin
        return (jnp.where(below, jnp.minimum(q, -pivmin), q), count + below), None

    (_, count), _ = jax.lax.scan(step, (q, count), (alpha[1:], beta_sq))
    return count


def _abs(x):
    """``|x|`` with TF's gradient at 0 (``sign(0) = 0``; ``jnp.abs``'s is 1)."""
    return x * jnp.sign(x)


def _spectrum_bounds(alpha, beta):
    """TF's preliminaries: the real diagonal, squared off-diagonal, Gershgorin bounds, the
    pivot floor and the perturbation of ``alpha[0]``. Differentiated as TF's ops are (ties of
    ``maximum``/``minimum`` go to the first argument, ``|x|`` has slope 0 at 0)."""
    if alpha.dtype.kind == "c":
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(jnp.conj(beta) * beta)
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_sq = jnp.square(beta)
        beta_abs = _abs(beta)
    finfo = np.finfo(alpha.dtype)
    off_diag_abs_row_sum = jnp.concatenate(
        [beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0
    )
    lambda_est_max = minimum(finfo.max, jnp.max(alpha + off_diag_abs_row_sum))
    lambda_est_min = maximum(finfo.min, jnp.min(alpha - off_diag_abs_row_sum))
    t_norm = maximum(_abs(lambda_est_min), _abs(lambda_est_max))
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * maximum(one, jnp.max(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    return alpha, beta_sq, (lambda_est_min, lambda_est_max, t_norm), pivmin, alpha0_perturbation


def _search_bounds(n, bounds, pivmin, select_range):
    """The bisection's starting interval: TF's Gershgorin interval widened by ``norm_slack``,
    or ``select_range`` widened so."""
    lambda_est_min, lambda_est_max, t_norm = bounds
    finfo = np.finfo(t_norm.dtype)
    norm_slack = jnp.asarray(n, t_norm.dtype) * _FUDGE * finfo.eps * t_norm
    low, high = (lambda_est_min, lambda_est_max) if select_range is None else select_range
    lower = low - norm_slack - unfused(2 * _FUDGE * pivmin)
    upper = high + norm_slack + unfused(_FUDGE * pivmin)
    return maximum(lower, finfo.min), minimum(upper, finfo.max)


def _eigenvalues_fn(alpha, beta, *extra, first, count, by_value, has_tol):
    """Eigenvalues ``first .. first + count - 1`` (in increasing order) by TF's bisection."""
    alpha, beta_sq, bounds, pivmin, alpha0_perturbation = _spectrum_bounds(alpha, beta)
    finfo = np.finfo(alpha.dtype)
    select_range = extra[:2] if by_value else None
    abs_tol = finfo.eps * bounds[2]
    if has_tol:
        abs_tol = maximum(extra[-1], abs_tol)
    lower, upper = _search_bounds(alpha.shape[0], bounds, pivmin, select_range)
    if count == 0:
        return jnp.zeros([0], alpha.dtype)
    target = first + jnp.arange(count, dtype=jnp.int32)
    lower = jnp.broadcast_to(lower, target.shape)
    upper = jnp.broadcast_to(upper, target.shape)
    sturm = (jax.lax.stop_gradient(alpha), jax.lax.stop_gradient(beta_sq))
    sturm_args = (jax.lax.stop_gradient(pivmin), jax.lax.stop_gradient(alpha0_perturbation))

    def step(_, interval):
        lower, upper = interval
        searching = abs_tol < jnp.max(upper - lower)  # TF's while_loop condition
        mid = 0.5 * lower + 0.5 * upper
        counts = _sturm_counts(*sturm, *sturm_args, jax.lax.stop_gradient(mid))
        lower = jnp.where(searching & (counts <= target), mid, lower)
        upper = jnp.where(searching & (counts > target), mid, upper)
        return lower, upper

    lower, upper = jax.lax.fori_loop(0, finfo.nmant + 1, step, (lower, upper))
    return 0.5 * lower + 0.5 * upper


_eigenvalues_op = Op("EighTridiagonal", _eigenvalues_fn)


def _value_range_counts(alpha, beta, select_range) -> tuple[int, int]:
    """``(first, last)``: TF's Sturm counts below ``select_range``'s widened ends."""
    alpha, beta_sq, bounds, pivmin, alpha0_perturbation = _spectrum_bounds(alpha, beta)
    lower, upper = _search_bounds(alpha.shape[0], bounds, pivmin, select_range)
    counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, jnp.stack([lower, upper]))
    return int(counts[0]), int(counts[1])


# -- eigenvectors: inverse iteration ------------------------------------------------------------


def _norm(v):
    """TF's ``norm(v, axis=1)``: ``sqrt(sum(v * conj(v)))`` in ``v``'s dtype."""
    return jnp.sqrt(jnp.sum(v * jnp.conj(v), axis=1))


def _clusters(eigvals):
    """Per eigenvalue: whether it is in a cluster of close ones (TF's ``gaptol``), and the index
    of its cluster's first one."""
    eps = np.finfo(eigvals.dtype).eps
    gap = eigvals[1:] - eigvals[:-1]
    t_norm = jnp.maximum(jnp.abs(eigvals[0]), jnp.abs(eigvals[-1]))
    close = gap < np.sqrt(eps) * t_norm
    left = jnp.concatenate([jnp.zeros(1, bool), close])
    right = jnp.concatenate([close, jnp.zeros(1, bool)])
    index = jnp.arange(eigvals.shape[0])
    start = jax.lax.cummax(jnp.where(~left & right, index, -1))
    return left | right, start


def _householder(x, position, pivot):
    """Eigen's ``makeHouseholder`` of each row of ``x`` from coordinate ``position`` on, for the
    rows where ``pivot`` is set: the reflectors' vectors (1 at ``position``) and ``tau``."""
    real_dtype = jnp.finfo(x.dtype).dtype
    tiny = np.finfo(real_dtype).tiny
    coords = jnp.arange(x.shape[-1])
    # Rows that are not pivots get e_position: a trivial reflector, no NaN to differentiate.
    x = jnp.where(pivot[:, None], x, (coords == position).astype(x.dtype))
    c0 = x[:, position]
    tail = jnp.where(coords > position, x, 0)
    tail_sq = jnp.sum(jnp.real(tail * jnp.conj(tail)), axis=-1)
    trivial = (tail_sq <= tiny) & (jnp.imag(c0) ** 2 <= tiny)
    beta = jnp.sqrt(jnp.real(c0 * jnp.conj(c0)) + tail_sq)
    beta = jnp.where(jnp.real(c0) >= 0, -beta, beta).astype(x.dtype)
    denominator = jnp.where(trivial, 1, c0 - beta)
    essential = jnp.where(trivial[:, None], 0, tail / denominator[:, None])
    v = jnp.where(coords == position, 1, essential).astype(x.dtype)
    tau = jnp.where(trivial, 0, jnp.conj((beta - c0) / jnp.where(trivial, 1, beta)))
    return v, tau


def _reflect(rows, v, tau):
    """``rows -= tau v (v^H row)`` for each row (a Householder reflection of each column)."""
    return rows - tau[:, None] * v * jnp.sum(jnp.conj(v) * rows, axis=-1, keepdims=True)


def _orthonormalize_clusters(v, in_cluster, start, steps):
    """Each cluster's vectors (rows of ``v``) replaced by the columns of the QR factorization's
    ``Q`` of the cluster's ``[n, m]`` matrix, as Eigen's ``HouseholderQR`` makes it; ``steps``
    bounds the clusters' sizes."""
    k, n = v.shape
    local = jnp.arange(k) - start

    def pivot_of(step):
        """Each row's cluster's row at ``step`` (clipped; check ``same``)."""
        return jnp.clip(start + step, 0, k - 1)

    def same(step):
        """Rows whose cluster has a row at ``step``."""
        p = pivot_of(step)
        return in_cluster & (local[p] == step) & (start[p] == start)

    def factor(step, state):
        a, vs, taus = state
        pivot = in_cluster & (local == step)
        ref, tau = _householder(a, step, pivot)
        vs = jnp.where(pivot[:, None], ref, vs)
        taus = jnp.where(pivot, tau, taus)
        later = in_cluster & (local > step) & same(step)
        p = pivot_of(step)
        a = jnp.where(later[:, None], _reflect(a, ref[p], tau[p]), a)
        return a, vs, taus

    zeros = jnp.zeros_like(v)
    _, vs, taus = jax.lax.fori_loop(0, steps, factor, (v, zeros, jnp.zeros(k, v.dtype)))

    def expand(i, q):
        step = steps - 1 - i
        p = pivot_of(step)
        return jnp.where(same(step)[:, None], _reflect(q, vs[p], jnp.conj(taus[p])), q)

    unit = (jnp.arange(n)[None, :] == local[:, None]).astype(v.dtype)
    q = jax.lax.fori_loop(0, steps, expand, unit)
    return jnp.where(in_cluster[:, None], q, v)


def _eigenvectors_fn(alpha, beta, eigvals, start_vectors, *, cluster_steps):
    k, n = eigvals.shape[0], alpha.shape[0]
    alpha = alpha.astype(beta.dtype)
    v = start_vectors.astype(beta.dtype)
    nrm = _norm(v)
    v = v / nrm[:, None]
    in_cluster, start = _clusters(jax.lax.stop_gradient(eigvals))
    shifted = alpha[None, :] - eigvals.astype(beta.dtype)[:, None]
    tiled = jnp.broadcast_to(beta[None, :], (k, n - 1))
    zero = jnp.zeros((k, 1), beta.dtype)
    diags = jnp.stack(
        [
            jnp.concatenate([tiled, zero], axis=1),
            shifted,
            jnp.concatenate([zero, jnp.conj(tiled)], axis=1),
        ],
        axis=-2,
    )
    growth = np.asarray(1.1, jnp.finfo(beta.dtype).dtype)

    def iterate(_, state):
        v, nrm, nrm_old = state
        going = jnp.any(jnp.real(nrm) >= jnp.real(growth * nrm_old))  # TF's loop condition
        new_v = perturbed_solve(diags, v[..., None])[..., 0]
        new_nrm = _norm(new_v)
        new_v = new_v / new_nrm[:, None]
        if cluster_steps:
            new_v = _orthonormalize_clusters(new_v, in_cluster, start, cluster_steps)
        return (
            jnp.where(going, new_v, v),
            jnp.where(going, new_nrm, nrm),
            jnp.where(going, nrm, nrm_old),
        )

    state = (v, nrm, jnp.zeros_like(nrm))
    v, _, _ = jax.lax.fori_loop(0, _MAX_INVERSE_ITERATIONS, iterate, state)
    return v.T


_eigenvectors_op = Op("EighTridiagonalVectors", _eigenvectors_fn)


# -- the public function --------------------------------------------------------------------------


def _concrete(*tensors: Tensor) -> bool:
    return not any(isinstance(t._value, jax.core.Tracer) for t in tensors)


def _largest_cluster(eigvals: Tensor) -> int | None:
    """The size of the largest cluster of close eigenvalues (0: none), or None if traced."""
    if not _concrete(eigvals) or eigvals._v.shape[0] < 2:
        return None if not _concrete(eigvals) else 0
    in_cluster, start = (np.asarray(a) for a in _clusters(jnp.asarray(eigvals._value)))
    if not in_cluster.any():
        return 0
    return int(np.bincount(start[in_cluster]).max())


def _check_vectors(alpha: Tensor, beta: Tensor) -> None:
    """TF broadcasts ``alpha`` against the off-diagonal row sums (``len(beta) + 1``): a length
    mismatch is its ``AddV2`` error. It has no batch dimensions."""
    if alpha._v.ndim != 1 or beta._v.ndim != 1:
        raise ValueError(
            "tapejax.linalg.eigh_tridiagonal takes one matrix: alpha and beta must be vectors "
            f"(got shapes {list(alpha._v.shape)} and {list(beta._v.shape)}); TF has no batch "
            "dimensions here either."
        )
    n, m = alpha._v.shape[0], beta._v.shape[0]
    sums = m + 1 if m else 0
    if sums != n:
        raise _iae(f"Incompatible shapes: [{n}] vs. [{sums}]", "AddV2")


def _range_ends(select_range, sym: str, message: str, dtype=None) -> tuple[Tensor, Tensor]:
    """``select_range``'s ends, checked as TF's ``assert_less_equal``/``assert_less``."""
    from ..asserts import _binary_assert
    from .math_ops import less, less_equal

    lo, hi = (convert_to_tensor(v, dtype_hint=dtype) for v in (select_range[0], select_range[1]))
    _binary_assert(sym, less_equal if sym == "<=" else less, lo, hi, message, None)
    return lo, hi


def _needs_concrete(what: str):
    return NotImplementedError(
        f"tapejax.linalg.eigh_tridiagonal: {what} sets the output's size, so it must be known "
        "when the op runs; inside tapejax.function pass Python values (select='a' and 'i' with "
        "Python ints trace)."
    )


def _selection(select, select_range, alpha: Tensor, beta: Tensor, real_dtype):
    """``(first, count, extra inputs)``: which eigenvalues, by TF's ``select`` rules."""
    n = alpha._v.shape[0]
    if select == "a":
        return 0, n, ()
    if select == "i":
        lo, hi = _range_ends(select_range, "<=", "Got empty index range in select_range.")
        if not _concrete(lo, hi):
            raise _needs_concrete("select_range (select='i')")
        first = int(lo._value)
        return first, int(hi._value) + 1 - first, ()
    if select == "v":
        ends = _range_ends(select_range, "<", "Got empty interval in select_range.", real_dtype)
        lo, hi = (convert_to_tensor(e, dtype=real_dtype) for e in ends)
        if not _concrete(alpha, beta, lo, hi):
            raise _needs_concrete("select='v' (the number of eigenvalues in the interval)")
        first, last = _value_range_counts(alpha._value, beta._value, (lo._value, hi._value))
        return first, max(last - first, 0), (lo, hi)
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")


def eigh_tridiagonal(
    alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None
):
    """Eigenvalues (and eigenvectors) of a Hermitian tridiagonal matrix
    (``tf.linalg.eigh_tridiagonal``), by TF's own algorithms (bisection, inverse iteration).

    ``alpha`` is the diagonal (``[n]``; a complex one's imaginary part is ignored for the
    eigenvalues, and used by TF's eigenvector iteration, as here) and ``beta`` the
    superdiagonal (``[n - 1]``; the subdiagonal is its conjugate), of the same dtype.

    Args:
      alpha: the diagonal, ``[n]``, float or complex.
      beta: the superdiagonal, ``[n - 1]``, ``alpha``'s dtype.
      eigvals_only: if False, also return the eigenvectors, as the columns of ``[n, k]``.
      select: 'a' (all eigenvalues), 'v' (those in ``(select_range[0], select_range[1]]``)
        or 'i' (those with indices ``select_range[0]`` to ``select_range[1]``, inclusive).
      select_range: the interval or indices for 'v' and 'i'.
      tol: the absolute tolerance of the eigenvalues (at least ``eps * |T|``).
      name: ignored (TF's op name).

    Returns:
      The ``k`` selected eigenvalues in increasing order (alpha's real dtype) or, with
      ``eigvals_only=False``, ``(eigenvalues, eigenvectors)``. For ``n <= 1``, ``real(alpha)``
      alone, as TF.

    The gradient is TF's (see the module notes): the bisection's, not the eigenvalues'
    derivative, and the eigenvectors' through TF's inverse iteration.

    Raises:
      ValueError: TF's, for ``alpha`` and ``beta`` of different dtypes, integer dtypes, or a
        ``select`` other than 'a', 'v', 'i'; and for inputs that are not vectors.
      InvalidArgumentError: TF's, for an empty ``select_range`` or ``beta`` of a length
        other than ``n - 1``.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.eigh_tridiagonal([1.0, 2.0, 3.0], [1.0, 1.0]).numpy()
        array([0.26794922, 2.        , 3.732051  ], dtype=float32)
        >>> e, v = tf.linalg.eigh_tridiagonal([2.0, 2.0], [1.0], eigvals_only=False)
        >>> v.shape
        TensorShape([2, 2])
    """
    alpha = to_tensor(alpha)
    if alpha._v.shape[0] <= 1:
        return real(alpha)
    beta = to_tensor(beta)
    if alpha._v.dtype != beta._v.dtype:
        raise ValueError("'alpha' and 'beta' must have the same type.")
    real_dtype = np.finfo(alpha._v.dtype).dtype  # TF's np.finfo: "... not inexact" for ints
    _check_vectors(alpha, beta)
    first, count, extra = _selection(select, select_range, alpha, beta, real_dtype)
    static = (("by_value", select == "v"), ("count", count), ("first", first))
    if tol:
        extra = (*extra, convert_to_tensor(tol, dtype=dtypes.as_dtype(real_dtype)))
    eigvals = apply(_eigenvalues_op, (alpha, beta, *extra), (*static, ("has_tol", bool(tol))))
    if eigvals_only:
        return eigvals
    n = alpha._v.shape[0]
    if count == 0:  # TF's eigenvector code reads the first eigenvalue
        raise _iae("slice index 0 of dimension 0 out of bounds.", "StridedSlice")
    steps = _largest_cluster(eigvals)
    start = convert_to_tensor(stateless_normal((count, n), _START_SEED))
    vectors = apply(
        _eigenvectors_op,
        (alpha, beta, eigvals, start),
        (("cluster_steps", count if steps is None else steps),),
    )
    return eigvals, vectors
