"""``tf.linalg`` inverses, determinants, solvers and matrix functions with TF's checks,
values and gradients.

``inv``, ``det``, ``slogdet``, ``logdet``, ``solve``, ``triangular_solve``,
``cholesky_solve``, ``lstsq``, ``pinv`` and ``expm``. Each op is one pure JAX function behind
an ``Op`` named after TF's kernel, so error texts and ``RegisterGradient`` use TF's names;
TF's Python composites (``logdet``, ``pinv``, ...) are one op each, their errors naming the
kernel TF would fail in. Derivatives are JAX's, through the factorizations of
``decomposition_ops`` (TF's gradient conventions) where a composite uses one.

Must never return LAPACK's inf/NaN silently where TF raises (``inv``, ``solve`` of a singular
matrix): that check needs the values, so it runs in eager mode only (one host sync per call)
and not inside ``tapejax.function`` or a JAX transformation.
"""

from __future__ import annotations

from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, node_attrs, require, tf_type_name, to_tensor
from ._linalg_helpers import (
    _H,
    _LAPACK,
    _diag_of,
    _dims,
    _iae,
    _matrix_input,
    _second_operand,
    _wide,
)
from .decomposition_ops import _cholesky_fn, _svd_uv

# TF's op-def type lists (verbatim, checked by tests/test_ops.py::test_tf_allowed_table_is_tfs).
TF_ALLOWED.update(
    {
        **dict.fromkeys(["MatrixInverse", "MatrixSolve", "MatrixSolveLs"], _LAPACK),
        **dict.fromkeys(
            ["MatrixDeterminant", "LogMatrixDeterminant"],
            "half, float, double, complex64, complex128",
        ),
        "MatrixTriangularSolve": "bfloat16, double, float, half, complex64, complex128",
    }
)


def _check_invertible(x: Tensor, out: Tensor, message: str, op_name: str) -> None:
    """TF's kernels raise on an exactly singular matrix where LAPACK gives inf/NaN. Eager
    only: the check needs the values (one host sync)."""
    v = out._value
    if isinstance(v, jax.core.Tracer) or v.size == 0:
        return
    if bool(jnp.logical_and(~jnp.all(jnp.isfinite(v)), jnp.all(jnp.isfinite(x._value)))):
        raise _iae(message, op_name)


# -- inverse, determinants ------------------------------------------------------------------


def _inv_fn(a, *, adjoint):
    return jnp.linalg.inv(_H(a) if adjoint else a)


_inv_op = Op("MatrixInverse", _wide(_inv_fn))


def inv(input, adjoint=False, name=None):  # noqa: A002 - TF's name
    """Inverse of each matrix in ``[..., M, M]`` (``tf.linalg.inv``); ``adjoint`` inverts A^H.

    Raises:
      InvalidArgumentError: not a (batch of) square float/complex matrices, or, in eager
        mode, a matrix is singular ("Input is not invertible.", as TF; in traced code,
        ``jax.jit`` or ``tapejax.function``'s compiled calls, the result holds inf/NaN).
    """
    x = _matrix_input(input, "MatrixInverse")
    out = apply(_inv_op, (x,), (("adjoint", bool(adjoint)),))
    _check_invertible(x, out, "Input is not invertible.", "MatrixInverse")
    return out


_det_op = Op("MatrixDeterminant", _wide(jnp.linalg.det))


def det(input, name=None):  # noqa: A002 - TF's name
    """Determinant of each matrix in ``[..., M, M]`` (``tf.linalg.det``).

    .. warning:: at an exactly singular matrix TF's gradient raises (it inverts the
       matrix); JAX's, used here, is the finite cofactor matrix.
    """
    return apply(_det_op, (_matrix_input(input, "MatrixDeterminant"),))


LogMatrixDeterminant = namedtuple("LogMatrixDeterminant", ["sign", "log_abs_det"])


def _slogdet_fn(a):
    sign, log_abs = jnp.linalg.slogdet(a)
    # TF's gradient ignores ``sign`` (for complex input JAX differentiates its phase).
    return jax.lax.stop_gradient(sign), log_abs.astype(a.dtype)


_slogdet_op = Op("LogMatrixDeterminant", _wide(_slogdet_fn), multiple_outputs=True)


def slogdet(input, name=None):  # noqa: A002 - TF's name
    """``(sign, log_abs_det)`` of each matrix (``tf.linalg.slogdet``); both of the input's
    dtype (complex for complex input), as TF."""
    x = _matrix_input(input, "LogMatrixDeterminant")
    return LogMatrixDeterminant(*apply(_slogdet_op, (x,)))


def _logdet_fn(a):
    chol = _cholesky_fn(a)
    return 2.0 * jnp.sum(jnp.log(jnp.real(_diag_of(chol))), axis=-1)


_logdet_op = Op("Logdet", _wide(_logdet_fn))


def logdet(matrix, name=None):
    """Log-determinant of Hermitian positive definite matrices via Cholesky (``tf.linalg.logdet``);
    a real tensor (float32 for complex64 input), as TF."""
    return apply(_logdet_op, (_matrix_input(matrix, "Cholesky"),))


def cholesky_solve(chol, rhs, name=None):
    """Solves ``A X = rhs`` given ``chol``, A's Cholesky factor (``tf.linalg.cholesky_solve``):
    two triangular solves, as TF."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# -- solvers --------------------------------------------------------------------------------


def _solve_fn(a, b, *, adjoint):
    return jnp.linalg.solve(_H(a) if adjoint else a, b)


_solve_op = Op("MatrixSolve", _wide(_solve_fn))


def solve(matrix, rhs, adjoint=False, name=None):
    """Solves ``matrix @ X = rhs`` (``adjoint``: ``matrix^H @ X = rhs``) (``tf.linalg.solve``).

    Batch dimensions must be equal (TF's MatrixSolve does not broadcast).

    Raises:
      InvalidArgumentError: TF's shape errors, or, in eager mode, a singular matrix
        ("Input matrix is not invertible.").
    """
    a = to_tensor(matrix)
    b = _second_operand(rhs, a, "MatrixSolve")
    require(a, "fc", "MatrixSolve", node_attrs(adjoint=bool(adjoint)))
    sa, sb = a._v.shape, b._v.shape
    if len(sa) != len(sb):
        raise _iae("All input tensors must have the same rank.", "MatrixSolve")
    if len(sa) < 2:
        raise _iae(f"Input tensor 0 must have rank >= 2, got {len(sa)}", "MatrixSolve")
    if sa[:-2] != sb[:-2]:
        raise _iae("All input tensors must have the same outer dimensions.", "MatrixSolve")
    if sa[-1] != sa[-2]:
        raise _iae("First input (lhs) must be a square matrix.", "MatrixSolve")
    if sa[-2] != sb[-2]:
        raise _iae("Input matrix and rhs are incompatible.", "MatrixSolve")
    out = apply(_solve_op, (a, b), (("adjoint", bool(adjoint)),))
    _check_invertible(a, out, "Input matrix is not invertible.", "MatrixSolve")
    return out


def _triangular_solve_fn(a, b, *, lower, adjoint):
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    return jax.lax.linalg.triangular_solve(
        a, b, left_side=True, lower=lower, transpose_a=adjoint, conjugate_a=adjoint
    )


_triangular_solve_op = Op("MatrixTriangularSolve", _wide(_triangular_solve_fn))


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves ``matrix @ X = rhs`` for triangular ``matrix`` (``tf.linalg.triangular_solve``).

    Only the ``lower`` (or upper) triangle is read; batch dimensions broadcast, as TF. A
    singular matrix gives inf/NaN, as TF.
    """
    op_name = "MatrixTriangularSolve"
    a = to_tensor(matrix)
    b = _second_operand(rhs, a, op_name)
    require(a, "fc", op_name, node_attrs(adjoint=bool(adjoint), lower=bool(lower)))
    sa, sb = a._v.shape, b._v.shape
    for i, s in enumerate((sa, sb)):
        if len(s) < 2:
            raise _iae(f"In[{i}] ndims must be >= 2: {len(s)}", op_name)
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise _iae(
            f"In[0] and In[1] must have compatible batch dimensions: [{_dims(sa)}] vs. "
            f"[{_dims(sb)}]",
            op_name,
        ) from None
    if sa[-1] != sa[-2]:
        raise _iae(
            f"In[0] matrices in the last dimensions must be square ({sa[-1]} =/= {sa[-2]})",
            op_name,
        )
    if sa[-1] != sb[-2]:
        raise _iae(
            f"In[0] mismatch In[1] shape: {sa[-1]} vs. {sb[-2]}: [{_dims(sa)}] [{_dims(sb)}] "
            f"{int(bool(lower))} {int(bool(adjoint))}",
            op_name,
        )
    static = (("adjoint", bool(adjoint)), ("lower", bool(lower)))
    return apply(_triangular_solve_op, (a, b), static)


@jax.custom_jvp
def _no_gradient_slow_lstsq(a, b):
    return jnp.matmul(jnp.linalg.pinv(a), b)


@_no_gradient_slow_lstsq.defjvp
def _no_gradient_slow_lstsq_jvp(primals, tangents):
    raise ValueError("Gradient not defined for fast=False")


def _lstsq_fn(a, b, *, l2, fast):
    if not fast:
        # TF's complete orthogonal decomposition: the minimum-norm solution (l2 ignored).
        return _no_gradient_slow_lstsq(a, b)
    m, n = a.shape[-2:]
    gram = jnp.matmul(_H(a), a) if m >= n else jnp.matmul(a, _H(a))
    if l2:
        gram = gram + l2 * jnp.eye(gram.shape[-1], dtype=a.dtype)
    chol = _cholesky_fn(gram)

    def chol_solve(r):
        y = _triangular_solve_fn(chol, r, lower=True, adjoint=False)
        return _triangular_solve_fn(chol, y, lower=True, adjoint=True)

    if m >= n:  # (A^H A + l2 I)^-1 A^H b
        return chol_solve(jnp.matmul(_H(a), b))
    return jnp.matmul(_H(a), chol_solve(b))  # A^H (A A^H + l2 I)^-1 b


_lstsq_op = Op("MatrixSolveLs", _wide(_lstsq_fn))


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions of ``matrix @ X = rhs`` (``tf.linalg.lstsq``).

    ``fast=True`` solves the (``l2_regularizer``-regularized) normal equations by Cholesky,
    as TF's composite; ``fast=False`` gives the minimum-norm solution, ignores
    ``l2_regularizer`` and has no gradient (TF's ValueError when one is taken).
    """
    a = to_tensor(matrix)
    b = _second_operand(rhs, a, "MatrixSolveLs")
    l2 = float(np.asarray(l2_regularizer))
    if a._v.dtype == np.complex128 and l2 != 0:
        raise NotImplementedError(
            "matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due "
            "to poor accuracy."
        )
    sa, sb = a._v.shape, b._v.shape
    if len(sa) < 2:
        raise IndexError("tuple index out of range")
    # fast=True is TF's composite (its kernel refuses a dtype under Cholesky's name).
    if fast:
        require(a, "fc", "Cholesky")
    else:
        require(a, "fc", "MatrixSolveLs", node_attrs(fast=False))
    if not fast:
        if len(sa) != len(sb):
            raise _iae("All input tensors must have the same rank.", "MatrixSolveLs")
        if sa[:-2] != sb[:-2]:
            raise _iae("All input tensors must have the same outer dimensions.", "MatrixSolveLs")
    if len(sb) < 2 or sa[-2] != sb[-2]:
        if sa[-2] >= sa[-1]:
            op = "MatMul" if len(sa) == len(sb) == 2 else "BatchMatMulV2"
            raise _iae(f"Matrix size-incompatible: In[0]: [{_dims(sa)}], In[1]: [{_dims(sb)}]", op)
        chol = sa[:-2] + (sa[-2], sa[-2])
        raise _iae(
            f"In[0] mismatch In[1] shape: {sa[-2]} vs. {sb[-2] if len(sb) > 1 else sb[-1]}: "
            f"[{_dims(chol)}] [{_dims(sb)}] 1 0",
            "MatrixTriangularSolve",
        )
    return apply(_lstsq_op, (a, b), (("fast", bool(fast)), ("l2", l2)))


# -- pinv, expm ---------------------------------------------------------------------------------


def _pinv_fn(a, *, rcond):
    s, u, v = _svd_uv(a, False)
    cutoff = rcond * jnp.max(s, axis=-1)
    # TF saturates small singular values to inf: 1 / s becomes 0 without NaN gradients.
    s = jnp.where(s > cutoff[..., None], s, jnp.inf)
    return jnp.matmul(v / s[..., None, :].astype(a.dtype), _H(u))


_pinv_op = Op("Pinv", _wide(_pinv_fn))


def pinv(a, rcond=None, validate_args=False, name=None):
    """Moore-Penrose pseudo-inverse via SVD (``tf.linalg.pinv``); singular values below
    ``rcond * max(s)`` (default ``10 * max(M, N) * eps``) are dropped."""
    x = to_tensor(a)
    if not x.dtype.is_floating:  # bfloat16 included, as TF's check
        raise TypeError(
            f"Input `a` must have `float`-like `dtype` (saw {tf_type_name(x._v.dtype)})."
        )
    if x._v.ndim < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {x._v.ndim}).")
    if rcond is None:
        m, n = x._v.shape[-2:]
        # As TF's: NumPy has no finfo of bfloat16 (its ValueError, as TF raises).
        rcond = 10.0 * max(m, n) * float(np.finfo(x.dtype.as_numpy_dtype).eps)
    require(x, "fc", "Svd", node_attrs(compute_uv=True, full_matrices=False))
    return apply(_pinv_op, (x,), (("rcond", float(np.asarray(rcond))),))


_expm_op = Op("MatrixExponential", _wide(jax.scipy.linalg.expm))


def expm(input, name=None):  # noqa: A002 - TF's name
    """Matrix exponential of each square matrix (``tf.linalg.expm``; Padé approximant with
    scaling and squaring, as TF, here JAX's implementation)."""
    x = to_tensor(input)
    dt = x._v.dtype
    if dt.kind in "ub":  # TF's scaling step takes abs(x) before its dtype check
        require(x, "fi", "Abs")
    if dt.kind not in "fc":
        raise ValueError(
            f"tf.linalg.expm does not support matrices of type <dtype: '{tf_type_name(dt)}'>"
        )
    shape = x._v.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        # TF reshapes to [-1, M, N] and fails in its first matrix product.
        flat = (1, shape[0]) if len(shape) < 2 else (int(np.prod(shape[:-2])),) + shape[-2:]
        op = "MatMul" if len(flat) == 2 else "BatchMatMulV2"
        raise _iae(f"Matrix size-incompatible: In[0]: [{_dims(flat)}], In[1]: [{_dims(flat)}]", op)
    require(x, "fc", "MatrixSolve", node_attrs(adjoint=False))  # TF's Padé step solves
    return apply(_expm_op, (x,))
