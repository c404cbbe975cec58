"""``tf.linalg``'s eigendecomposition of general matrices, matrix square root, logarithm and
rank.

``eig``, ``eigvals``, ``sqrtm``, ``logm`` and ``matrix_rank``, each one op with TF's checks. ``eig``
is LAPACK's ``geev`` through JAX (complex results, as TF's); its eigenvectors are unit
vectors, as TF's, but their phases are LAPACK's, not Eigen's. ``sqrtm`` is the Schur method
TF's Eigen kernel uses, computed through the complex Schur form: for real input the
result is real, and NaN wherever TF's real arithmetic gives NaN (a negative real
eigenvalue, or 0 / 0 from a repeated zero one). ``logm`` (complex input only, as TF's) is the
inverse scaling and squaring method on the complex Schur form, as Eigen's
``MatrixLogarithm``: square roots of the triangular factor until it is close to the identity,
then a Pade approximant (Gauss-Legendre quadrature of ``log(I + X)``).

Gradients are TF's rules: ``Eig``'s (finite at repeated eigenvalues, TF's broadened
``1 / (e_j - e_i)``) and ``MatrixSquareRoot``'s Sylvester solve, which for complex input
transposes without conjugating. TF registers no gradient for ``MatrixLogarithm``: a tape
gives ``None`` through ``logm``. JAX computes Schur forms on CPU only and ``geev`` on CPU
and GPU: elsewhere these ops raise ``NotImplementedError`` naming the backend, never a
lowering error from inside JAX.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, node_attrs, require, tf_type_name, to_tensor
from ._linalg_helpers import _H, _LAPACK, _diag_of, _matrix_input, _wide
from .decomposition_ops import _diag_matrix, _spectral_gaps

TF_ALLOWED.update(
    {
        "MatrixSquareRoot": _LAPACK,
        "Eig": "float, double, complex64, complex128",
        "MatrixLogarithm": "complex64, complex128",
    }
)


def _require_backend(x: Tensor, what: str, platforms: tuple) -> None:
    """JAX lowers ``what`` only on ``platforms``: elsewhere a clear error, before tracing."""
    v = x._value
    if isinstance(v, jax.core.Tracer) or not hasattr(v, "devices"):
        platform = jax.default_backend()
    else:
        platform = next(iter(v.devices())).platform
    if platform not in platforms:
        raise NotImplementedError(
            f"tapejax.linalg.{what} needs JAX's {' or '.join(platforms)} backend (JAX "
            f"implements it there only), but runs on {platform!r}. Create its input under "
            "`with tf.device('CPU:0'):`, outside `tapejax.function`, to compute it on CPU."
        )


# -- eig, eigvals ---------------------------------------------------------------------------------


@jax.custom_jvp
def _eig(a):
    e, v = jnp.linalg.eig(a)
    if a.dtype.kind == "c":
        # TF's complex kernel (Eigen's ComplexEigenSolver) sorts by increasing modulus; its
        # real one keeps the order of the Schur form, as LAPACK does.
        order = jnp.argsort(jnp.abs(e), axis=-1, stable=True)
        e = jnp.take_along_axis(e, order, axis=-1)
        v = jnp.take_along_axis(v, order[..., None, :], axis=-1)
    return e, v


@_eig.defjvp
def _eig_jvp(primals, tangents):
    # The transpose of this JVP is TF's _EigGrad: eigenvector tangents keep each vector's
    # norm (not its phase), and 1 / (e_j - e_i) is TF's broadened one, finite at repeated
    # eigenvalues.
    (a,), (da,) = primals, tangents
    e, v = _eig(a)
    p = jnp.linalg.solve(v, jnp.matmul(da.astype(v.dtype), v))
    de = _diag_of(p)
    u = jnp.matmul(v, _spectral_gaps(e) * p)
    dv = u - v * jnp.real(jnp.sum(jnp.conj(v) * u, axis=-2, keepdims=True)).astype(v.dtype)
    return (e, v), (de, dv)


_eig_op = Op("Eig", _eig, multiple_outputs=True)
_eigvals_op = Op("Eig", lambda a: _eig(a)[0])


def _eig_input(tensor) -> Tensor:
    x = to_tensor(tensor)
    if tf_type_name(x._v.dtype) not in ("float", "double", "complex64", "complex128"):
        # TF's Python wrapper picks the output dtype for these four only, then fails so.
        raise UnboundLocalError(
            "cannot access local variable 'out_dtype' where it is not associated with a value"
        )
    x = _matrix_input(x, "Eig")
    _require_backend(x, "eig", ("cpu", "cuda", "rocm"))
    return x


def eig(tensor, name=None):
    """Eigenvalues and right eigenvectors ``(e, v)`` of general square matrices
    (``tf.linalg.eig``): complex64 (complex128) for float32 (float64) input, as TF.

    Eigenvectors are unit columns, unique only up to a phase: TF's (Eigen) and tapejax's
    (LAPACK) phases differ. Eigenvalues of complex matrices come by increasing modulus, as
    TF's; of real ones in the order of the real Schur form (TF's, up to ties).

    Example:
        >>> import tapejax as tf
        >>> e, v = tf.linalg.eig([[2.0, 0.0], [0.0, 3.0]])
        >>> e.numpy()
        array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    return tuple(apply(_eig_op, (_eig_input(tensor),)))


def eigvals(tensor, name=None):
    """Eigenvalues of general square matrices (``tf.linalg.eigvals``), as ``eig``'s ``e``.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.eigvals([[0.0, -1.0], [1.0, 0.0]]).numpy()
        array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    return apply(_eigvals_op, (_eig_input(tensor),))


# -- sqrtm ----------------------------------------------------------------------------------------


def _sqrt_upper(t):
    """Björck and Hammarling's recurrence on the upper triangular ``t``, as Eigen runs it (no
    guard against ``0 / 0``), one superdiagonal at a time: while the offsets below ``m`` are
    filled, ``(u @ u)[i, i + m]`` is exactly the sum the recurrence subtracts."""
    n = t.shape[-1]
    d = jnp.sqrt(_diag_of(t))
    offset = np.arange(n)[None, :] - np.arange(n)[:, None]
    denominator = d[:, None] + d[None, :]

    def fill(m, u):
        value = (t - jnp.matmul(u, u)) / denominator
        return jnp.where(offset == m, value, u)

    return jax.lax.fori_loop(1, n, fill, _diag_matrix(d))


def _has_negative_real_eigenvalue(t):
    """Whether the real Schur form ``t`` has a 1x1 block below 0 (Eigen's real sqrt is NaN)."""
    n = t.shape[-1]
    below = jnp.concatenate([jnp.zeros(1, t.dtype), jnp.diagonal(t, -1)])
    above = jnp.concatenate([jnp.diagonal(t, -1), jnp.zeros(1, t.dtype)])
    single = (below == 0) & (above == 0) if n > 1 else jnp.ones(1, bool)
    return jnp.any(single & (_diag_of(t) < 0))


def _sqrtm_matrix(a):
    if a.shape[-1] == 0:
        return a
    if a.dtype.kind == "c":
        t, z = jax.scipy.linalg.schur(a, output="complex")
        return jnp.matmul(jnp.matmul(z, _sqrt_upper(t)), _H(z))
    t_real, z_real = jax.scipy.linalg.schur(a, output="real")
    t, z = jax.scipy.linalg.rsf2csf(t_real, z_real, check_finite=False)
    root = jnp.real(jnp.matmul(jnp.matmul(z, _sqrt_upper(t)), _H(z))).astype(a.dtype)
    return jnp.where(_has_negative_real_eigenvalue(t_real), jnp.nan, root)


def _sylvester_solve(r, c):
    """``x`` with ``r x + x r = c`` (TF's Kronecker-product solve)."""
    n = r.shape[-1]
    eye = jnp.eye(n, dtype=r.dtype)
    kron = jnp.einsum("...ij,kl->...kilj", r, eye) + jnp.einsum("ij,...lk->...kilj", eye, r)
    kron = kron.reshape(r.shape[:-2] + (n * n, n * n))
    vec = jnp.swapaxes(c, -1, -2).reshape(c.shape[:-2] + (n * n, 1))
    return jnp.swapaxes(jnp.linalg.solve(kron, vec).reshape(c.shape), -1, -2)


@jax.custom_jvp
def _sqrtm(a):
    return jnp.vectorize(_sqrtm_matrix, signature="(n,n)->(n,n)")(a)


@_sqrtm.defjvp
def _sqrtm_jvp(primals, tangents):
    # TF's _MatrixSquareRootGrad solves R^T G + G R^T = grad, transposing R without
    # conjugating it. In JAX's convention (lowering conjugates around the program) that VJP
    # is the transpose of this JVP, which solves conj(R) dR + dR conj(R) = dA; for real
    # input it is the ordinary derivative.
    (a,), (da,) = primals, tangents
    r = _sqrtm(a)
    return r, _sylvester_solve(jnp.conj(r), da)


_sqrtm_op = Op("MatrixSquareRoot", _wide(_sqrtm))


def sqrtm(input, name=None):  # noqa: A002 - TF's name
    """The principal square root of each square matrix (``tf.linalg.sqrtm``), by the Schur
    method TF uses; real for real input, NaN where TF's is (a negative real eigenvalue).

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.sqrtm([[4.0, 0.0], [0.0, 9.0]]).numpy()
        array([[2., 0.],
               [0., 3.]], dtype=float32)
    """
    x = _matrix_input(input, "MatrixSquareRoot")
    _require_backend(x, "sqrtm", ("cpu",))
    return apply(_sqrtm_op, (x,))


# -- logm -----------------------------------------------------------------------------------------

# Pade approximants of log(1 + x) are Gauss-Legendre quadratures of x / (1 + t x) on [0, 1]:
# eight nodes are exact to double precision for ||x|| <= 1/4, where the square roots stop.
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)
_NODES, _WEIGHTS = (_NODES + 1) / 2, _WEIGHTS / 2
_CLOSE_TO_IDENTITY = 0.25
_MAX_SQUARE_ROOTS = 64


def _log_upper(t):
    """The principal logarithm of the upper triangular ``t`` (inverse scaling and squaring)."""
    eye = jnp.eye(t.shape[-1], dtype=t.dtype)

    def far_from_identity(state):
        r, k = state
        distance = jnp.max(jnp.sum(jnp.abs(r - eye), axis=-2))  # the 1-norm
        return (distance > _CLOSE_TO_IDENTITY) & (k < _MAX_SQUARE_ROOTS)

    def square_root(state):
        r, k = state
        return _sqrt_upper(r), k + 1

    r, k = jax.lax.while_loop(far_from_identity, square_root, (t, 0))
    x = r - eye
    log = sum(
        w * jax.scipy.linalg.solve_triangular(eye + c * x, x, lower=False)
        for c, w in zip(_NODES.tolist(), _WEIGHTS.tolist())
    )
    scale = jnp.exp2(k.astype(jnp.finfo(t.dtype).dtype))
    # A zero eigenvalue: Eigen's log(0) = -inf turns the result into NaN, as here.
    singular = jnp.any(_diag_of(t) == 0)
    return jnp.where(singular, jnp.nan, log * scale.astype(t.dtype))


def _logm_matrix(a):
    if a.shape[-1] == 0:
        return a
    t, z = jax.scipy.linalg.schur(a, output="complex")
    return jnp.matmul(jnp.matmul(z, _log_upper(t)), _H(z))


_logm_op = Op(
    "MatrixLogarithm",
    lambda a: jnp.vectorize(_logm_matrix, signature="(n,n)->(n,n)")(a),
    differentiable=False,
)


def logm(input, name=None):  # noqa: A002 - TF's name
    """The principal logarithm of each square complex matrix (``tf.linalg.logm``).

    Complex input only, as TF's (``InvalidArgumentError`` for real dtypes: cast first). A
    singular matrix gives NaN, as TF's; eigenvalues on the negative real axis take the
    principal branch (imaginary part pi). TF registers no gradient: a tape gives ``None``.

    Example:
        >>> import numpy as np
        >>> import tapejax as tf
        >>> a = tf.constant([[np.e, 0.0], [0.0, 1.0]], dtype=tf.complex64)
        >>> np.round(tf.linalg.logm(a).numpy(), 5)
        array([[1.+0.j, 0.+0.j],
               [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    x = _matrix_input(input, "MatrixLogarithm", kinds="c")
    _require_backend(x, "logm", ("cpu",))
    return apply(_logm_op, (x,))


# -- matrix_rank ----------------------------------------------------------------------------------


def _matrix_rank_fn(a, *tol):
    s = jnp.linalg.svd(a, compute_uv=False)
    if tol:
        (tol,) = tol
    else:
        eps = jnp.finfo(a.dtype).eps
        tol = eps * max(a.shape[-2:]) * jnp.max(s, axis=-1, keepdims=True)
    return jnp.sum(s > tol, axis=-1, dtype=jnp.int32)


_matrix_rank_op = Op("MatrixRank", _wide(_matrix_rank_fn), differentiable=False)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (``tf.linalg.matrix_rank``), int32; the
    default ``tol`` is TF's, ``eps * max(rows, cols) * max(singular values)``.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]]).numpy()
        np.int32(1)
    """
    x = convert_to_tensor(a, dtype_hint=dtypes.float32)
    if not x.dtype.is_floating:
        raise TypeError(
            f"Input `a` must have `float`-like `dtype` (saw {tf_type_name(x._v.dtype)})."
        )
    if x._v.ndim < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {x._v.ndim}).")
    require(x, "fc", "Svd", node_attrs(compute_uv=False, full_matrices=False))
    if tol is None:
        return apply(_matrix_rank_op, (x,))
    return apply(_matrix_rank_op, (x, convert_to_tensor(tol, dtype=x.dtype)))
