"""``tf.linalg`` ops with TF's checks, values and gradients.

Products (``matmul``, ``matvec``, ``einsum``, ``tensordot``, ``cross``), decompositions
(``cholesky``, ``qr``, ``svd``, ``eigh``), solvers, determinants, norms and the diagonal and
band helpers. Each op is one pure JAX function behind an ``Op`` named after TF's kernel, so
error texts and ``RegisterGradient`` use TF's names; TF's Python composites (``logdet``,
``norm``, ``pinv``, ...) are one op each, their errors naming the kernel TF would fail in.

Derivatives are JAX's except where TF's registered gradient differs, each marked here:
``cholesky`` and ``eigh`` read one triangle but TF symmetrizes (Cholesky) or keeps the lower
triangle (eigh) of the gradient; degenerate eigenvalues and singular values give TF's finite
"Lorentz-broadened" terms, not NaN; ``qr`` and ``svd`` raise TF's ``NotImplementedError`` for the
shapes TF's gradients refuse, and support the wide and ``|m - n| == 1`` shapes that JAX's do
not; the Euclidean norm takes TF's ``Sqrt`` gradient at 0.

Must never return LAPACK's inf/NaN silently where TF raises (``inv``, ``solve`` of a singular
matrix): that check needs the values, so it runs in eager mode only (one host sync per call)
and not inside ``tapejax.function`` or a JAX transformation.
"""

from __future__ import annotations

import functools
from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..registry import register_reverse_rule
from ..tensor import Tensor
from . import tf_rules
from ._helpers import (
    TF_ALLOWED,
    accepted_dtypes,
    dtype_mismatch,
    normalize_axis,
    require,
    tf_type_name,
    to_tensor,
)
from .array_ops import expand_dims, squeeze, transpose
from .math_ops import NUMERIC, cast, divide

# -- matmul ---------------------------------------------------------------------------------


def _matmul_fn(a, b, *, ta, tb, ca, cb, out=None):
    if out is not None:
        a, b = a.astype(out), b.astype(out)
    if ta:
        a = jnp.swapaxes(a, -1, -2)
    if ca:
        a = jnp.conj(a)
    if tb:
        b = jnp.swapaxes(b, -1, -2)
    if cb:
        b = jnp.conj(b)
    return jnp.matmul(a, b)


# TF's kernels by rank and output type: rank-2 MatMul, batched BatchMatMulV2, and
# BatchMatMulV3 when ``output_type`` differs from the inputs'. Their names are what errors
# and RegisterGradient use.
_matmul_ops = {name: Op(name, _matmul_fn) for name in ("MatMul", "BatchMatMulV2", "BatchMatMulV3")}
_MATMUL_STATIC: dict = {}


def _dims(shape) -> str:
    return ",".join(map(str, shape))


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product of the inner two dimensions, batched over the rest (``tf.linalg.matmul``).

    ``output_type`` (e.g. int32 for int8 inputs) computes in that dtype, as TF's
    BatchMatMulV3. ``a_is_sparse``/``b_is_sparse`` are hints TF may ignore; so does tapejax.

    Raises:
      ValueError: both ``transpose_a`` and ``adjoint_a`` (or ``_b``) are set.
      InvalidArgumentError: bad ranks, different dtypes, or incompatible dimensions.
    """
    if not (transpose_a or transpose_b or adjoint_a or adjoint_b or output_type is not None):
        # The per-op budget: a plain 2-D product of one accepted dtype skips the general
        # path (a Variable operand is read as usual).
        if type(b) is not Tensor and getattr(b, "_is_variable", False):
            b = b._dense_read()
        if type(a) is not Tensor and getattr(a, "_is_variable", False):
            a = a._dense_read()
        if type(a) is Tensor and type(b) is Tensor:
            av, bv = a._value, b._value
            sa, sb = av.shape, bv.shape
            if (
                av.dtype == bv.dtype
                and av.dtype in _MATMUL_ACCEPTED
                and len(sa) == 2
                and len(sb) == 2
                and sa[1] == sb[0]
            ):
                return apply(_matmul_ops["MatMul"], (a, b), _PLAIN_MATMUL)
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        a_bad = transpose_a and adjoint_a
        side, t, adj = ("a", transpose_a, adjoint_a) if a_bad else ("b", transpose_b, adjoint_b)
        raise ValueError(
            f"Only one of `transpose_{side}` and `adjoint_{side}` can be True. "
            f"Received `transpose_{side}`={t}, `adjoint_{side}`={adj}."
        )
    a = to_tensor(a)
    if type(b) is Tensor or getattr(b, "_is_variable", False):
        b = to_tensor(b)
    else:
        try:  # ``a``'s dtype is only a hint for ``b``, as in TF
            b = convert_to_tensor(b, dtype=a.dtype)
        except (TypeError, ValueError):
            b = convert_to_tensor(b)
    sa, sb = a._value.shape, b._value.shape
    batched = len(sa) > 2 or len(sb) > 2
    out = None
    if output_type is not None:
        out = dtypes.as_dtype(output_type)
        if out == a.dtype and out == b.dtype:
            out = None
    op_name = "BatchMatMulV3" if out is not None else ("BatchMatMulV2" if batched else "MatMul")
    if out is None and a._value.dtype != b._value.dtype:
        raise dtype_mismatch(op_name, 1, a._value.dtype, b._value.dtype)
    require(a, NUMERIC, op_name)
    if out is not None:  # otherwise b has a's dtype
        require(b, NUMERIC, op_name)
    if batched or out is not None:
        for i, s_ in enumerate((sa, sb)):
            if len(s_) < 2:
                raise InvalidArgumentError(
                    None, None, f"In[{i}] ndims must be >= 2: {len(s_)} [Op:{op_name}]"
                )
    elif len(sa) != len(sb):
        raise InvalidArgumentError(
            None,
            None,
            f"In[0] and In[1] has different ndims: [{_dims(sa)}] vs. [{_dims(sb)}] [Op:{op_name}]",
        )
    elif len(sa) != 2:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] ndims must be == 2: {len(sa)} [Op:{op_name}]"
        )
    ta = bool(transpose_a or adjoint_a)
    tb = bool(transpose_b or adjoint_b)
    if (sa[-2] if ta else sa[-1]) != (sb[-1] if tb else sb[-2]):
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: [{_dims(sa)}], In[1]: [{_dims(sb)}] [Op:{op_name}]",
        )
    if batched:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"In[0] and In[1] must have compatible batch dimensions: [{_dims(sa)}] vs. "
                f"[{_dims(sb)}] [Op:{op_name}]",
            ) from None
    out_np = None if out is None else canonical_np_dtype(out._np)
    key = (bool(adjoint_a), bool(adjoint_b), ta, tb, out_np)
    static = _MATMUL_STATIC.get(key)
    if static is None:
        static = (("ca", key[0]), ("cb", key[1]), ("ta", ta), ("tb", tb))
        if out_np is not None:
            static += (("out", out_np),)
        _MATMUL_STATIC[key] = static
    return apply(_matmul_ops[op_name], (a, b), static)


_PLAIN_MATMUL = (("ca", False), ("cb", False), ("ta", False), ("tb", False))
_MATMUL_ACCEPTED = accepted_dtypes(NUMERIC, "MatMul")


# -- shared checks and helpers ----------------------------------------------------------------

# TF's op-def type lists (verbatim, checked by tests/test_ops.py::test_tf_allowed_table_is_tfs).
_LAPACK = "double, float, half, complex64, complex128"
TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["MatrixInverse", "Cholesky", "MatrixSolve", "Qr", "Svd", "SelfAdjointEigV2"], _LAPACK
        ),
        **dict.fromkeys(
            ["MatrixDeterminant", "LogMatrixDeterminant"],
            "half, float, double, complex64, complex128",
        ),
        "MatrixTriangularSolve": "bfloat16, double, float, half, complex64, complex128",
        "Cross": (
            "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
        ),
    }
)
_NARROW = (np.dtype(np.float16), np.dtype(dtypes.bfloat16._np))


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _matrix_input(x, op_name: str, square: bool = True, kinds: str = "fc") -> Tensor:
    """``x`` as a Tensor that TF's kernel ``op_name`` accepts: dtype, rank >= 2, square."""
    x = to_tensor(x)
    require(x, kinds, op_name)
    shape = x._value.shape
    if len(shape) < 2:
        raise _iae(f"Input tensor 0 must have rank >= 2, got {len(shape)}", op_name)
    if square and shape[-1] != shape[-2]:
        raise _iae("Input matrix must be square.", op_name)
    return x


def _second_operand(y, x: Tensor, op_name: str) -> Tensor:
    """A kernel's second input: converted with ``x``'s dtype as a hint; dtypes must match."""
    if type(y) is Tensor or getattr(y, "_is_variable", False):
        y = to_tensor(y)
    else:
        try:
            y = convert_to_tensor(y, dtype=x.dtype)
        except (TypeError, ValueError):
            y = convert_to_tensor(y)
    if y._value.dtype != x._value.dtype:
        raise dtype_mismatch(op_name, 1, x._value.dtype, y._value.dtype)
    return y


def _wide(fn):
    """``fn`` computed in float32 for half and bfloat16 inputs (LAPACK has no such kernels;
    TF's Eigen kernels do), its outputs cast back."""

    @functools.wraps(fn)
    def wrapped(*args, **static):
        dt = args[0].dtype
        if dt not in _NARROW:
            return fn(*args, **static)
        args = [a.astype(jnp.float32) if getattr(a, "dtype", None) == dt else a for a in args]
        return jax.tree.map(lambda o: o.astype(dt), fn(*args, **static))

    return wrapped


def _check_invertible(x: Tensor, out: Tensor, message: str, op_name: str) -> None:
    """TF's kernels raise on an exactly singular matrix where LAPACK gives inf/NaN. Eager
    only: the check needs the values (one host sync)."""
    v = out._value
    if isinstance(v, jax.core.Tracer) or v.size == 0:
        return
    if bool(jnp.logical_and(~jnp.all(jnp.isfinite(v)), jnp.all(jnp.isfinite(x._value)))):
        raise _iae(message, op_name)


def _dims_of(x: Tensor) -> str:
    return _dims(x._value.shape)


def _H(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _diag_matrix(v):
    return v[..., None] * jnp.eye(v.shape[-1], dtype=v.dtype)


def _diag_of(x):
    return jnp.diagonal(x, axis1=-2, axis2=-1)


def _safe_reciprocal(x, epsilon=1e-20):
    # TF's _SafeReciprocal ("Lorentz broadening"): 0 where x is 0, so degenerate spectra
    # give finite gradients.
    return x * jnp.reciprocal(x * x + epsilon)


def _spectral_gaps(w):
    """``f[i, j] = 1 / (w[j] - w[i])`` off the diagonal, TF-broadened; 0 on it."""
    f = _safe_reciprocal(w[..., None, :] - w[..., :, None])
    return jnp.where(jnp.eye(w.shape[-1], dtype=bool), jnp.zeros_like(f), f)


def _hermitian_from_lower(a):
    """The Hermitian matrix TF's Eigen kernels see: the lower triangle, reflected."""
    low = jnp.tril(a, -1)
    return low + _H(low) + _diag_matrix(jnp.real(_diag_of(a)).astype(a.dtype))


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
    require(a, "fc", "MatrixSolve")
    sa, sb = a._value.shape, b._value.shape
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
    require(a, "fc", op_name)
    sa, sb = a._value.shape, b._value.shape
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
    require(a, "fc", "MatrixSolveLs")
    l2 = float(np.asarray(l2_regularizer))
    if a._value.dtype == np.complex128 and l2 != 0:
        raise NotImplementedError(
            "matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due "
            "to poor accuracy."
        )
    sa, sb = a._value.shape, b._value.shape
    if len(sa) < 2:
        raise IndexError("tuple index out of range")
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
_svd_values_op = Op("Svd", _wide(lambda a: jnp.linalg.svd(a, compute_uv=False)))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (real, descending) and vectors: ``(s, u, v)`` with ``a = u diag(s) v^H``
    (``tf.linalg.svd``: TF's order, and ``v``, not ``v^H``); ``s`` alone when not
    ``compute_uv``.

    Gradients are TF's: finite at degenerate singular values, and NotImplementedError for
    ``full_matrices=True`` when the matrix dimensions differ by more than one.
    """
    x = _matrix_input(tensor, "Svd", square=False)
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
    x = _matrix_input(tensor, "SelfAdjointEigV2")
    return tuple(apply(_eigh_op, (x,)))


def eigvalsh(tensor, name=None):
    """Eigenvalues of Hermitian matrices (``tf.linalg.eigvalsh``), as ``eigh``'s ``e``."""
    return apply(_eigvalsh_op, (_matrix_input(tensor, "SelfAdjointEigV2"),))


# -- diagonals, bands, traces, transposes -----------------------------------------------------


def _trace_fn(x):
    return jnp.sum(_diag_of(x), axis=-1, dtype=x.dtype)


_trace_op = Op("Trace", _trace_fn)


def _at_least_matrix(x: Tensor, op_name: str) -> None:
    if x._value.ndim < 2:
        raise _iae(f"input must be at least 2-dim, received shape: [{_dims_of(x)}]", op_name)


def trace(x, name=None):
    """Sum of each matrix's main diagonal (``tf.linalg.trace``; non-square matrices too)."""
    x = to_tensor(x)
    require(x, NUMERIC, "Sum")
    _at_least_matrix(x, "MatrixDiagPartV3")
    return apply(_trace_op, (x,))


def _single_k(k, what: str) -> int:
    ks = np.asarray(k).reshape(-1).tolist()
    if len(ks) == 2 and ks[0] == ks[1]:
        ks = ks[:1]
    if len(ks) != 1:
        raise NotImplementedError(
            f"tapejax.linalg.{what} with a band of diagonals (k={k!r}) is not implemented: "
            "pass one diagonal index k."
        )
    return int(ks[0])


def _diag_positions(length: int, k: int):
    i = np.arange(length)
    return i - min(k, 0), i + max(k, 0)


def _diag_fn(d, *, k, rows, cols, padding):
    r, c = _diag_positions(d.shape[-1], k)
    out = jnp.full(d.shape[:-1] + (rows, cols), padding, d.dtype)
    return out.at[..., r, c].set(d, mode="drop")


_diag_op = Op("MatrixDiagV3", _diag_fn)


def _scalar(v):
    """A scalar argument (Python number or 0-d Tensor) as a Python number."""
    return np.asarray(v).item()


def diag(
    diagonal,
    name="diag",
    k=0,
    num_rows=-1,
    num_cols=-1,
    padding_value=0,
    align="RIGHT_LEFT",
):
    """Matrices with ``diagonal`` on their ``k``-th diagonal, ``padding_value`` elsewhere
    (``tf.linalg.diag``); one diagonal index ``k`` (a band ``k=(lo, hi)`` is not implemented)."""
    d = to_tensor(diagonal)
    if d._value.ndim < 1:
        raise _iae(
            f"diagonal must be at least 1-dim, received shape: [{_dims_of(d)}]", "MatrixDiagV3"
        )
    k = _single_k(k, "diag")
    n = d._value.shape[-1]
    rows, cols = int(_scalar(num_rows)), int(_scalar(num_cols))
    min_rows, min_cols = n - min(k, 0), n + max(k, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise _iae(
            "The number of rows or columns is not consistent with the specified d_lower, "
            "d_upper, and diagonal.",
            "MatrixDiagV3",
        )
    static = (("cols", cols), ("k", k), ("padding", _scalar(padding_value)), ("rows", rows))
    return apply(_diag_op, (d,), static)


def _diag_part_fn(x, *, k):
    return jnp.diagonal(x, offset=k, axis1=-2, axis2=-1)


_diag_part_op = Op("MatrixDiagPartV3", _diag_part_fn)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The ``k``-th diagonal of each matrix (``tf.linalg.diag_part``); one diagonal index ``k``
    (a band ``k=(lo, hi)``, which needs ``padding_value`` and ``align``, is not implemented)."""
    x = to_tensor(input)
    _at_least_matrix(x, "MatrixDiagPartV3")
    k = _single_k(k, "diag_part")
    m, n = x._value.shape[-2:]
    if not -m < k < n and not (k == 0 and m * n == 0):
        raise _iae(f"Diagonal index {k} is out of bounds [{-m + 1}, {n - 1}]", "MatrixDiagPartV3")
    return apply(_diag_part_op, (x,), (("k", k),))


def _set_diag_fn(x, d, *, k):
    r, c = _diag_positions(d.shape[-1], k)
    return x.at[..., r, c].set(d)


_set_diag_op = Op("MatrixSetDiagV3", _set_diag_fn)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with its ``k``-th diagonal replaced by ``diagonal`` (``tf.linalg.set_diag``);
    one diagonal index ``k``."""
    x = to_tensor(input)
    d = _second_operand(diagonal, x, "MatrixSetDiagV3")
    _at_least_matrix(x, "MatrixSetDiagV3")
    k = _single_k(k, "set_diag")
    m, n = x._value.shape[-2:]
    length = max(0, min(m + min(k, 0), n - max(k, 0)))
    expected = x._value.shape[:-2] + (length,)
    if d._value.shape != expected:
        raise _iae(
            "Either first dimensions of diagonal don't match input.shape[:-2], or "
            "diagonal.shape[:-1] is not equal to the longests diagonal in range "
            f"[lower_diag_index:upper_diag_index].\nInput shape: [{_dims_of(x)}]\n"
            f"Diagonal shape: [{_dims_of(d)}]\nExpected diagonal shape: [{_dims(expected)}]",
            "MatrixSetDiagV3",
        )
    return apply(_set_diag_op, (x, d), (("k", k),))


def _band_part_fn(x, *, lower, upper):
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, jnp.zeros_like(x))


_band_part_op = Op("MatrixBandPart", _band_part_fn)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """Zeros everything outside a band of each matrix (``tf.linalg.band_part``); a negative
    ``num_lower``/``num_upper`` keeps the whole lower/upper triangle."""
    x = to_tensor(input)
    _at_least_matrix(x, "MatrixBandPart")
    lower, upper = int(_scalar(num_lower)), int(_scalar(num_upper))
    m, n = x._value.shape[-2:]
    if lower > m:
        raise _iae(
            f"num_lower must be negative or less or equal to number of rows ({m}) got: {lower}",
            "MatrixBandPart",
        )
    if upper > n:
        raise _iae(
            f"num_upper must be negative or less or equal to number of columns ({n}) got: {upper}",
            "MatrixBandPart",
        )
    return apply(_band_part_op, (x,), (("lower", lower), ("upper", upper)))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the last two dimensions (``tf.linalg.matrix_transpose``), conjugating if
    ``conjugate``."""
    x = to_tensor(a)
    n = x._value.ndim
    if n < 2:
        raise ValueError(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
            f"{np.asarray(x._value)} with shape: {tuple(x._value.shape)}"
        )
    return transpose(x, perm=list(range(n - 2)) + [n - 1, n - 2], conjugate=conjugate)


def adjoint(matrix, name=None):
    """Conjugate transpose of the last two dimensions (``tf.linalg.adjoint``)."""
    return matrix_transpose(matrix, conjugate=True)


# -- products ---------------------------------------------------------------------------------


def matvec(
    a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None
):
    """Matrix-vector product ``a @ b`` over batches (``tf.linalg.matvec``): TF's
    ``squeeze(matmul(a, expand_dims(b, -1)), -1)``."""
    out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return squeeze(out, axis=-1)


_cross_op = Op("Cross", jnp.cross)


def cross(a, b, name=None):
    """Cross product of 3-element vectors over batches (``tf.linalg.cross``)."""
    a = to_tensor(a)
    b = _second_operand(b, a, "Cross")
    require(a, "fiu", "Cross")
    if a._value.shape != b._value.shape:
        raise _iae(
            f"Both inputs must be of same shape: [{_dims_of(a)}] vs. [{_dims_of(b)}]", "Cross"
        )
    if a._value.ndim < 1 or a._value.shape[-1] != 3:
        raise FailedPreconditionError(
            None, None, "Cross-products are only defined for 3-element vectors. [Op:Cross]"
        )
    return apply(_cross_op, (a, b))


def _einsum_fn(*xs, equation):
    return jnp.einsum(equation, *xs, precision=jax.lax.Precision.HIGHEST)


_einsum_op = Op("Einsum", _einsum_fn)


def _check_einsum_dims(equation: str, xs) -> None:
    """TF's message for a label whose dimension differs between inputs."""
    lhs = equation.split("->")[0].replace(" ", "").split(",")
    seen: dict = {}
    for labels, x in zip(lhs, xs):
        if "." in labels or len(labels) != x._value.ndim:
            return  # ellipses and bad ranks: left to JAX's own message
        for axis, (label, d) in enumerate(zip(labels, x._value.shape)):
            if seen.setdefault(label, d) != d:
                raise _iae(
                    f"Expected dimension {seen[label]} at axis {axis} of the input shaped "
                    f"[{_dims_of(x)}] but got dimension {d}",
                    "Einsum",
                )


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (``tf.einsum``/``tf.linalg.einsum``); inputs of one dtype, as TF."""
    unknown = [k for k in kwargs if k not in ("name", "optimize")]
    if unknown:
        raise TypeError(
            f"Invalid keyword arguments for einsum: {', '.join(unknown)}. Valid arguments: "
            "name, optimize, greedy."
        )
    if not isinstance(equation, str):
        raise TypeError(f"equation must be a string, got {type(equation).__name__}")
    xs = [to_tensor(x) for x in inputs]
    expected = equation.split("->")[0].count(",") + 1
    if len(xs) != expected:
        raise ValueError(f'Got {len(xs)} inputs for equation "{equation}", expecting {expected}')
    for i, x in enumerate(xs[1:], 1):
        if x._value.dtype != xs[0]._value.dtype:
            raise dtype_mismatch("Einsum", i, xs[0]._value.dtype, x._value.dtype)
    for x in xs:
        require(x, NUMERIC, "Einsum")
    _check_einsum_dims(equation, xs)
    return apply(_einsum_op, tuple(xs), (("equation", equation.replace(" ", "")),))


def _tensordot_axes(axes, a: Tensor):
    if isinstance(axes, Tensor) or getattr(axes, "_is_variable", False):
        axes = np.asarray(axes).tolist()
    if isinstance(axes, (int, np.integer)):
        axes = int(axes)
        ndim = a._value.ndim
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > ndim:
            raise ValueError(
                "`axes` must not be larger than the number of dimensions of tensor "
                f"{np.asarray(a._value)}.  "
                f"Received {axes}, vs tensor dimensions {ndim}."
            )
        return list(range(ndim - axes, ndim)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = list(a_axes), list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(
                f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}."
            )
        return a_axes, b_axes
    raise TypeError(f"`axes` must be an integer or a pair of lists, got {axes!r}")


def _tensordot_fn(a, b, *, axes):
    return jnp.tensordot(a, b, axes=axes, precision=jax.lax.Precision.HIGHEST)


_tensordot_op = Op("Tensordot", _tensordot_fn)


def tensordot(a, b, axes, name=None):
    """Contracts ``axes`` of ``a`` with those of ``b`` (``tf.tensordot``/``tf.linalg.tensordot``):
    ``axes`` an int (last n of ``a`` with first n of ``b``) or a pair of axis lists."""
    a = to_tensor(a)
    b = to_tensor(b)
    a_axes, b_axes = _tensordot_axes(axes, a)
    if b._value.dtype != a._value.dtype:
        raise dtype_mismatch("MatMul", 1, a._value.dtype, b._value.dtype)
    require(a, NUMERIC, "MatMul")
    sa, sb = a._value.shape, b._value.shape
    a_axes = [i % len(sa) if len(sa) else i for i in a_axes]
    b_axes = [i % len(sb) if len(sb) else i for i in b_axes]
    a_free = [d for i, d in enumerate(sa) if i not in a_axes]
    b_free = [d for i, d in enumerate(sb) if i not in b_axes]
    inner_a = [sa[i] for i in a_axes]
    inner_b = [sb[i] for i in b_axes]
    if inner_a != inner_b:
        # TF reshapes both to matrices and fails in MatMul.
        sa2 = (int(np.prod(a_free)), int(np.prod(inner_a)))
        sb2 = (int(np.prod(inner_b)), int(np.prod(b_free)))
        raise _iae(
            f"Matrix size-incompatible: In[0]: [{_dims(sa2)}], In[1]: [{_dims(sb2)}]", "MatMul"
        )
    return apply(_tensordot_op, (a, b), (("axes", (tuple(a_axes), tuple(b_axes))),))


# -- norms ------------------------------------------------------------------------------------


def _tf_abs(x):
    # TF's Abs gradient at 0 is sign(0) = 0.
    return jnp.abs(x) if jnp.iscomplexobj(x) else x * jnp.sign(x)


def _norm_fn(x, *, ord, axis, keepdims, matrix, sqrt=jnp.sqrt):  # noqa: A002 - TF's name
    # TF's composite (linalg_ops.norm), op for op.
    if ord in ("fro", "euclidean", 2.0) and not (matrix and ord == 2.0):
        r = sqrt(jnp.sum(x * jnp.conj(x), axis=axis, keepdims=True, dtype=x.dtype))
    elif ord == 2.0:  # the matrix 2-norm: the largest singular value
        moved = jnp.moveaxis(x, axis, (-2, -1))
        s = _wide(lambda m: jnp.linalg.svd(m, compute_uv=False))(moved)
        r = jnp.max(_tf_abs(s), axis=-1, keepdims=True)[..., None]
        r = jnp.moveaxis(r, (-2, -1), axis)
    else:
        r = _tf_abs(x)
        if ord == 1.0:
            r = jnp.sum(r, axis=None if axis is None else axis[0], keepdims=True, dtype=r.dtype)
            if matrix:
                r = jnp.max(r, axis=axis[1], keepdims=True)
        elif ord == np.inf:
            if matrix:
                r = jnp.sum(r, axis=axis[1], keepdims=True, dtype=r.dtype)
            r = jnp.max(r, axis=None if axis is None else axis[0], keepdims=True)
        else:
            r = jnp.power(jnp.sum(jnp.power(r, ord), axis=axis, keepdims=True), 1.0 / ord)
    if not keepdims:
        r = jnp.squeeze(r, axis)
    return r


_norm_op = Op("Norm", _norm_fn)
# TF's SqrtGrad: a zero upstream gives a zero gradient even where the norm is 0.
register_reverse_rule(
    "Norm", lambda static: functools.partial(_norm_fn, sqrt=tf_rules.sqrt_reverse, **dict(static))
)

_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector or matrix norm (``tf.norm``/``tf.linalg.norm``), TF's composite op for op.

    ``ord``: 'euclidean' (default), 'fro', 1, 2, ``np.inf``, or (vectors) any p > 0. ``axis``:
    None (the whole tensor as one vector), an int, or a pair of ints (matrix norms). The
    Euclidean norm of a complex tensor is complex, as TF; its gradient at 0 is TF's NaN
    (and 0 where no gradient flows in).
    """
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if (not np.isreal(ord) or ord <= 0) and ord not in ["euclidean", 1, 2, np.inf]:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    x = to_tensor(tensor)
    if is_matrix and ord == 2:
        require(x, "fc", "Svd")
    elif isinstance(ord, str) or ord == 2:
        require(x, "fc", "Sqrt")
    elif ord in (1, np.inf):
        require(x, NUMERIC, "ComplexAbs" if x._value.dtype.kind == "c" else "Abs")
    else:
        require(x, "fc", "Pow")
    if axis is not None:
        axis = normalize_axis(list(axis), x._value.ndim, "Sum")
    static = (
        ("axis", axis),
        ("keepdims", bool(keepdims)),
        ("matrix", is_matrix),
        ("ord", ord if isinstance(ord, str) else float(ord)),
    )
    return apply(_norm_op, (x,), static)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept as dims (``tf.linalg.normalize``)."""
    x = to_tensor(tensor)
    n = cast(norm(x, ord, axis, keepdims=True), x.dtype)
    return divide(x, n), n


def _global_norm_fn(*ts, sqrt=jnp.sqrt):
    half_squared = jnp.sum(jnp.stack([jnp.sum(jnp.square(t)) / 2 for t in ts]))
    return sqrt(half_squared * 2.0)


_global_norm_op = Op("GlobalNorm", _global_norm_fn)
register_reverse_rule(
    "GlobalNorm", lambda static: functools.partial(_global_norm_fn, sqrt=tf_rules.sqrt_reverse)
)


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``, skipping ``None`` entries
    (``tf.linalg.global_norm``)."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    ts = [to_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm needs at least one tensor that is not None.")
    for t in ts:
        require(t, "f", "L2Loss")
    for i, t in enumerate(ts[1:], 1):
        if t._value.dtype != ts[0]._value.dtype:
            raise dtype_mismatch("Pack", i, ts[0]._value.dtype, t._value.dtype)
    return apply(_global_norm_op, tuple(ts))


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
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"Input `a` must have `float`-like `dtype` (saw {tf_type_name(x._value.dtype)})."
        )
    if x._value.ndim < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {x._value.ndim}).")
    if rcond is None:
        m, n = x._value.shape[-2:]
        rcond = 10.0 * max(m, n) * float(np.finfo(x._value.dtype).eps)
    return apply(_pinv_op, (x,), (("rcond", float(np.asarray(rcond))),))


_expm_op = Op("MatrixExponential", _wide(jax.scipy.linalg.expm))


def expm(input, name=None):  # noqa: A002 - TF's name
    """Matrix exponential of each square matrix (``tf.linalg.expm``; Padé approximant with
    scaling and squaring, as TF, here JAX's implementation)."""
    x = to_tensor(input)
    dt = x._value.dtype
    if dt.kind not in "fc":
        raise ValueError(
            f"tf.linalg.expm does not support matrices of type <dtype: '{tf_type_name(dt)}'>"
        )
    shape = x._value.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        # TF reshapes to [-1, M, N] and fails in its first matrix product.
        flat = (1, shape[0]) if len(shape) < 2 else (int(np.prod(shape[:-2])),) + shape[-2:]
        op = "MatMul" if len(flat) == 2 else "BatchMatMulV2"
        raise _iae(f"Matrix size-incompatible: In[0]: [{_dims(flat)}], In[1]: [{_dims(flat)}]", op)
    return apply(_expm_op, (x,))
