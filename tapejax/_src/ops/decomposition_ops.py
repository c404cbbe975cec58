"""``tf.linalg`` matrix decompositions with TF's checks, values and gradients.

``cholesky``, ``qr``, ``svd``, ``eigh`` and ``eigvalsh``. Each op is one pure JAX function
behind an ``Op`` named after TF's kernel, so error texts and ``RegisterGradient`` use TF's
names.

Derivatives are JAX's except where TF's registered gradient differs, each marked here:
``cholesky`` and ``eigh`` read one triangle but TF symmetrizes (Cholesky) or keeps the lower
triangle (eigh) of the gradient; degenerate eigenvalues and singular values give TF's finite
"Lorentz-broadened" terms, not NaN; ``qr`` and ``svd`` raise TF's ``NotImplementedError`` for the
shapes TF's gradients refuse, and support the wide and ``|m - n| == 1`` shapes that JAX's do
not. Must never give NaN gradients at degenerate spectra where TF's are finite, to first or
second order (the broadening's reciprocal has TF's gradient, and ``svd`` without vectors is
differentiated through a second SVD's vectors, as TF's).
"""

from __future__ import annotations

import functools
from collections import namedtuple

import jax
import jax.numpy as jnp

from ..dispatch import Op, apply
from ._helpers import TF_ALLOWED, node_attrs
from ._linalg_helpers import _H, _LAPACK, _diag_of, _matrix_input, _wide

TF_ALLOWED.update(dict.fromkeys(["Cholesky", "Qr", "Svd", "SelfAdjointEigV2"], _LAPACK))


def _diag_matrix(v):
    return v[..., None] * jnp.eye(v.shape[-1], dtype=v.dtype)


@jax.custom_jvp
def _tf_reciprocal(x):
    return jnp.reciprocal(x)


@_tf_reciprocal.defjvp
def _tf_reciprocal_jvp(primals, tangents):
    # TF's ReciprocalGrad kernel, -(t * y) * y: 0 for a zero tangent even where y * y
    # overflows (y = 1e20 at TF's broadening epsilon), where JAX's -t / x**2 is 0 * inf.
    (x,), (t,) = primals, tangents
    y = _tf_reciprocal(x)
    return y, -(t * y) * y


def _safe_reciprocal(x, epsilon=1e-20):
    # TF's _SafeReciprocal ("Lorentz broadening"): 0 where x is 0, so degenerate spectra
    # give finite gradients; and, with TF's Reciprocal gradient, finite second derivatives
    # (the spectral gaps' zero diagonal differentiates to NaN with JAX's).
    return x * _tf_reciprocal(x * x + epsilon)


def _spectral_gaps(w):
    """``f[i, j] = 1 / (w[j] - w[i])`` off the diagonal, TF-broadened; 0 on it."""
    f = _safe_reciprocal(w[..., None, :] - w[..., :, None])
    return jnp.where(jnp.eye(w.shape[-1], dtype=bool), jnp.zeros_like(f), f)


def _hermitian_from_lower(a):
    """The Hermitian matrix TF's Eigen kernels see: the lower triangle, reflected."""
    low = jnp.tril(a, -1)
    return low + _H(low) + _diag_matrix(jnp.real(_diag_of(a)).astype(a.dtype))


# -- Cholesky -------------------------------------------------------------------------------


def _cholesky_fn(a):
    # TF's kernel reads the lower triangle; its gradient is the symmetrized one, which is
    # JAX's derivative through (a + a^H) / 2. The stop_gradient term makes the value TF's.
    sym = (a + _H(a)) / 2
    h = sym + jax.lax.stop_gradient(_hermitian_from_lower(a) - sym)
    return jnp.tril(jax.lax.linalg.cholesky(h, symmetrize_input=False))


_cholesky_op = Op("Cholesky", _wide(_cholesky_fn))


def cholesky(input, name=None):  # noqa: A002 - TF's name
    """Lower Cholesky factor of each Hermitian positive definite matrix (``tf.linalg.cholesky``).

    Only the lower triangle is read, as TF. A matrix that is not positive definite gives
    NaNs, as TF 2.21 does (older TF raised "Cholesky decomposition was not successful").
    """
    return apply(_cholesky_op, (_matrix_input(input, "Cholesky"),))


# -- QR ---------------------------------------------------------------------------------------

Qr = namedtuple("Qr", ["q", "r"])


@jax.custom_jvp
def _qr_complete_deep(a):
    return tuple(jnp.linalg.qr(a, mode="complete"))


@_qr_complete_deep.defjvp
def _qr_complete_deep_jvp(primals, tangents):
    m, n = primals[0].shape[-2:]
    shape = tuple(primals[0].shape)
    raise NotImplementedError(
        "QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
        f"r.shape={shape} with nrows={m}and ncols={n}."
    )


def _qr_fn(a, *, full_matrices):
    m, n = a.shape[-2:]
    if m < n:
        # TF's gradient for wide matrices (a = [x, y], r = [u, q^H y]), which JAX's lacks:
        # the derivative of exactly this construction.
        q, u = jnp.linalg.qr(a[..., :m])
        return q, jnp.concatenate([u, jnp.matmul(_H(q), a[..., m:])], axis=-1)
    if full_matrices and m > n:
        return _qr_complete_deep(a)
    return tuple(jnp.linalg.qr(a))


_qr_op = Op("Qr", _wide(_qr_fn), multiple_outputs=True)


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """QR decomposition ``(q, r)`` of each matrix (``tf.linalg.qr``).

    Gradients exist for every shape TF's has: not for ``full_matrices=True`` with more rows
    than columns (TF's NotImplementedError when the gradient is taken).
    """
    x = _matrix_input(input, "Qr", square=False)
    return Qr(*apply(_qr_op, (x,), (("full_matrices", bool(full_matrices)),)))


# -- SVD --------------------------------------------------------------------------------------


def _svd_parts(a, full):
    u, s, vh = jnp.linalg.svd(a, full_matrices=full)
    return s, u, _H(vh)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _svd_uv(a, full):
    return _svd_parts(a, full)


@_svd_uv.defjvp
def _svd_uv_jvp(full, primals, tangents):
    # JAX's SVD JVP with TF's broadened reciprocals (finite at degenerate or zero singular
    # values), extended to the |m - n| == 1 full_matrices shapes that TF's gradient covers.
    (a,), (da,) = primals, tangents
    m, n = a.shape[-2:]
    if full and abs(m - n) > 1:
        raise NotImplementedError(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
            f"Received: m={min(m, n)} and n={max(m, n)} with shape={tuple(a.shape)}."
        )
    k = min(m, n)
    s, u, v = _svd_uv(a, full)  # itself, so that higher orders follow this rule too
    u1, v1 = u[..., :k], v[..., :k]
    dsm = jnp.matmul(jnp.matmul(_H(u1), da), v1)
    ds = jnp.real(_diag_of(dsm))
    s_c = s.astype(a.dtype)
    f = _spectral_gaps(s * s).astype(a.dtype)
    s_inv = _safe_reciprocal(s).astype(a.dtype)
    dss = dsm * s_c[..., None, :]
    sds = s_c[..., :, None] * dsm
    du = jnp.matmul(u1, f * (dss + _H(dss)) + 0.5 * (dsm - _H(dsm)) * _diag_matrix(s_inv))
    dv = jnp.matmul(v1, f * (sds + _H(sds)))
    if m > n:
        dav = jnp.matmul(da, v1)
        du = du + (dav - jnp.matmul(u1, jnp.matmul(_H(u1), dav))) * s_inv[..., None, :]
        if full:  # the extra column stays orthogonal to the rest
            u2 = u[..., k:]
            du2 = -jnp.matmul(u1, s_inv[..., :, None] * jnp.matmul(_H(v1), jnp.matmul(_H(da), u2)))
            du = jnp.concatenate([du, du2], axis=-1)
    if n > m:
        dahu = jnp.matmul(_H(da), u1)
        dv = dv + (dahu - jnp.matmul(v1, jnp.matmul(_H(v1), dahu))) * s_inv[..., None, :]
        if full:
            v2 = v[..., k:]
            dv2 = -jnp.matmul(v1, s_inv[..., :, None] * jnp.matmul(_H(u1), jnp.matmul(da, v2)))
            dv = jnp.concatenate([dv, dv2], axis=-1)
    return (s, u, v), (ds, du, dv)


def _svd_fn(a, *, full_matrices):
    return _svd_uv(a, full_matrices)


_svd_op = Op("Svd", _wide(_svd_fn), multiple_outputs=True)


@jax.custom_jvp
def _svd_values(a):
    return jnp.linalg.svd(a, compute_uv=False)


@_svd_values.defjvp
def _svd_values_jvp(primals, tangents):
    # TF's _SvdGrad without compute_uv: u diag(grad) v^H with u and v from a second,
    # differentiable SVD, so the second derivative is that of u and v (finite at repeated
    # singular values, where JAX's rule for the values alone is NaN).
    (a,), (da,) = primals, tangents
    _, u, v = _svd_uv(a, False)
    ds = jnp.real(_diag_of(jnp.matmul(jnp.matmul(_H(u), da), v)))
    return _svd_values(a), ds


_svd_values_op = Op("Svd", _wide(_svd_values))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (real, descending) and vectors: ``(s, u, v)`` with ``a = u diag(s) v^H``
    (``tf.linalg.svd``: TF's order, and ``v``, not ``v^H``); ``s`` alone when not
    ``compute_uv``.

    Gradients are TF's: finite at degenerate singular values, and NotImplementedError for
    ``full_matrices=True`` when the matrix dimensions differ by more than one.
    """
    attrs = node_attrs(compute_uv=bool(compute_uv), full_matrices=bool(full_matrices))
    x = _matrix_input(tensor, "Svd", square=False, attrs=attrs)
    if not compute_uv:
        return apply(_svd_values_op, (x,))
    return tuple(apply(_svd_op, (x,), (("full_matrices", bool(full_matrices)),)))


# -- Hermitian eigendecomposition ---------------------------------------------------------------


@jax.custom_jvp
def _eigh_hermitian(h):
    return tuple(jnp.linalg.eigh(h, symmetrize_input=False))


@_eigh_hermitian.defjvp
def _eigh_hermitian_jvp(primals, tangents):
    # The transpose of this JVP is TF's _SelfAdjointEigV2Grad, including its broadened
    # 1 / (e_j - e_i), which keeps degenerate eigenvalues finite (JAX's gives NaN).
    (h,), (dh,) = primals, tangents
    w, v = _eigh_hermitian(h)  # itself, so that higher orders follow this rule too
    vdv = jnp.matmul(jnp.matmul(_H(v), dh), v)
    dw = jnp.real(_diag_of(vdv))
    dv = jnp.matmul(v, _spectral_gaps(w).astype(h.dtype) * vdv)
    return (w, v), (dw, dv)


def _eigh_fn(a):
    # TF reads the lower triangle and returns the lower triangle of the symmetrized gradient:
    # JAX's derivative through this reflection.
    w, v = _eigh_hermitian(_hermitian_from_lower(a))
    return w.astype(a.dtype), v


_eigh_op = Op("SelfAdjointEigV2", _wide(_eigh_fn), multiple_outputs=True)
_eigvalsh_op = Op("SelfAdjointEigV2", _wide(lambda a: _eigh_fn(a)[0]))


def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors ``(e, v)`` of Hermitian matrices
    (``tf.linalg.eigh``). Only the lower triangle is read; ``e`` has the input's dtype (complex
    for complex input), as TF."""
    x = _matrix_input(tensor, "SelfAdjointEigV2", attrs=node_attrs(compute_v=True))
    return tuple(apply(_eigh_op, (x,)))


def eigvalsh(tensor, name=None):
    """Eigenvalues of Hermitian matrices (``tf.linalg.eigvalsh``), as ``eigh``'s ``e``."""
    x = _matrix_input(tensor, "SelfAdjointEigV2", attrs=node_attrs(compute_v=False))
    return apply(_eigvalsh_op, (x,))
