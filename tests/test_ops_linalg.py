# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Unit tests for ``tapejax.linalg``, run side by side with real TensorFlow.

Every op has a ``Case``: values, dtypes and shapes equal TF's at a single matrix and a batch,
in float32, float64 (x64) and, where TF has kernels, complex64; the op accepts Variables;
tape gradients equal TF's; and the pure function passes a first-order ``check_grads``.
Inputs are well conditioned (``A A^H + n I`` for positive definite ones). Eigen- and
singular vectors are unique only up to sign, and TF (Eigen) and JAX (LAPACK) pick different
ones, so ``eigh`` and ``svd`` are compared after fixing each column's sign (``GaugeFixed``).
The places where TF's gradient is not JAX's (degenerate spectra, one-triangle inputs, the
norm at 0, the shapes TF's gradients refuse) have tests of their own.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import tapejax
import tapejax.linalg
from tapejax._src.ops import spectral_ops

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    grad_cases,
    no_kernel_case,
    value_params,
)

# -- inputs -----------------------------------------------------------------------------------


def rand(dt, shape, seed=0, lo=-1.0, hi=1.0):
    """Uniform test data; complex dtypes get an imaginary part too."""
    rng = np.random.default_rng(seed + 7 * len(shape) + sum(shape))
    x = rng.uniform(lo, hi, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    return x.astype(dt)


def _eye(shape):
    return np.eye(shape[-2], shape[-1])


def general(dt, shape, seed=0):
    """A well-conditioned square matrix (diagonally dominant)."""
    return (
        rand("complex128" if np.dtype(dt).kind == "c" else "float64", shape, seed)
        + shape[-1] * _eye(shape)
    ).astype(dt)


def hermitian(dt, shape, seed=0):
    """Hermitian with well-separated eigenvalues."""
    a = rand("complex128" if np.dtype(dt).kind == "c" else "float64", shape, seed)
    h = a + np.conj(np.swapaxes(a, -1, -2))
    return (h + np.diag(np.arange(shape[-1]) * 2.0)).astype(dt)


def spd(dt, shape, seed=0):
    """Hermitian positive definite: ``A A^H + n I``."""
    a = rand("complex128" if np.dtype(dt).kind == "c" else "float64", shape, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * _eye(shape)).astype(dt)


def lower_only(dt, shape, seed=0):
    """Positive definite in its lower triangle, garbage above: TF reads the lower one only."""
    m = spd(dt, shape, seed)
    return (np.tril(m) + np.triu(rand(dt, shape, seed + 5, 3.0, 9.0), 1)).astype(dt)


def triangular(dt, shape, seed=0, lower=True):
    """A well-conditioned triangle, garbage in the other (which must be ignored)."""
    m = general(dt, shape, seed)
    junk = rand(dt, shape, seed + 3, 5.0, 9.0)
    return (np.tril(m) + np.triu(junk, 1) if lower else np.triu(m) + np.tril(junk, -1)).astype(dt)


def chol_factor(dt, shape, seed=0):
    return np.linalg.cholesky(
        spd("complex128" if np.dtype(dt).kind == "c" else "float64", shape, seed)
    ).astype(dt)


F = ("float32", "float64")
FC = ("float32", "float64", "complex64")
SQUARE = ((3, 3), (2, 3, 3))


def square(name, gen=general, dtypes=FC, diff=True, shapes=SQUARE, **kwargs):
    """A one-matrix op at a single matrix and a batch."""
    return Case(
        name,
        lambda dt, shape: ((gen(dt, shape),), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=(0,) if diff else (),
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    )


def two(name, make_a, rhs_cols=2, dtypes=FC, shapes=SQUARE, rhs_batch=None, **kwargs):
    """A matrix op with a right-hand side ``[..., M, rhs_cols]``."""

    def make(dt, shape):
        batch = shape[:-2] if rhs_batch is None else rhs_batch
        return (make_a(dt, shape), rand(dt, batch + (shape[-2], rhs_cols), seed=1)), dict(kwargs)

    return Case(
        name, make, dtypes=dtypes, shapes=shapes, diff=(0, 1), x64=True, rtol=1e-4, atol=1e-5
    )


def one(name, shapes, dtypes=F, gen=rand, diff=True, **kwargs):
    return Case(
        name,
        lambda dt, shape: ((gen(dt, shape),), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=(0,) if diff else (),
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    )


@dataclasses.dataclass(frozen=True)
class GaugeFixed(Case):
    """A Case for ``eigh``/``svd``: vectors are unique up to sign only, so each column is
    multiplied by the sign of its first entry (in both frameworks) before comparing."""

    def op(self, fw):
        f = super().op(fw)
        kind = self.name.split(".")[-1]

        def fixed(*args, **kwargs):
            out = f(*args, **kwargs)
            if kind == "eigh":
                e, v = out
                return e, v * fw.sign(v[..., :1, :])
            s, u, v = out
            k = s.shape[-1]
            d = fw.sign(u[..., :1, :k])
            u_, v_ = [u[..., :k] * d], [v[..., :k] * d]
            if u.shape[-1] > k:
                u_.append(u[..., k:] * fw.sign(u[..., :1, k:]))
            if v.shape[-1] > k:
                v_.append(v[..., k:] * fw.sign(v[..., :1, k:]))
            return s, fw.concat(u_, -1), fw.concat(v_, -1)

        return fixed


@dataclasses.dataclass(frozen=True)
class PhaseFixed(Case):
    """A Case for ``eig``/``eigvals``: eigenvectors are unit columns unique up to a phase,
    and a real matrix's eigenvalues come in its Schur form's order (Eigen's and LAPACK's
    differ in both), so eigenvalues are sorted (by real part, then imaginary) and each
    column rotated to a real positive first entry."""

    def op(self, fw):
        f = super().op(fw)

        def fixed(*args, **kwargs):
            out = f(*args, **kwargs)
            e, v = out if isinstance(out, tuple) else (out, None)
            key = fw.math.real(e) + 1e-3 * fw.math.imag(e)
            order = fw.argsort(key, axis=-1)
            e = fw.gather(e, order, axis=-1, batch_dims=e.shape.rank - 1)
            if v is None:
                return e
            v = fw.gather(v, order, axis=-1, batch_dims=e.shape.rank - 1)
            first = v[..., :1, :]
            return e, v * fw.math.conj(first) / fw.cast(fw.abs(first), v.dtype)

        return fixed


def nonsymmetric(dt, shape, seed=0):
    """A general matrix with well-separated eigenvalues: near ±1.5i, 4, 6, ... (a real one has
    a complex-conjugate pair)."""
    n = shape[-1]
    base = np.diag(np.arange(n) * 2.0)
    base[:2, :2] = [[0.0, -1.5], [1.5, 0.0]]
    return (
        base + 0.3 * rand("complex128" if np.dtype(dt).kind == "c" else "float64", shape, seed)
    ).astype(dt)


def low_rank(dt, shape, rank=2):
    return (rand(dt, shape[:-1] + (rank,)) @ rand(dt, shape[:-2] + (rank, shape[-1]), 1)).astype(dt)


def gauge(name, shapes, gen=rand, **kwargs):
    return GaugeFixed(
        name,
        lambda dt, shape: ((gen(dt, shape),), dict(kwargs)),
        dtypes=F,
        shapes=shapes,
        diff=(0,),
        x64=True,
        rtol=2e-4,
        atol=2e-5,
    )


def perm_of(shape):
    """A fixed permutation per matrix of the batch: ``lu``'s ``p`` for factors of ``shape``."""
    n = shape[-1]
    rows = [np.roll(np.arange(n), k + 1) for k in range(int(np.prod(shape[:-2], dtype=int)))]
    return np.array(rows, np.int32).reshape(shape[:-2] + (n,))


def lu_args(dt, shape, rhs_cols=None):
    """``(lower_upper, perm[, rhs])``: any matrix with a well-conditioned upper triangle is a
    valid ``L + U - I``."""
    args = (general(dt, shape), perm_of(shape))
    if rhs_cols is not None:
        args += (rand(dt, shape[:-1] + (rhs_cols,), seed=1),)
    return args


def lu_case(name, make, dtypes=FC, shapes=SQUARE, diff=(0,), **kwargs):
    return Case(
        name,
        lambda dt, shape: (make(dt, shape), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=diff,
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    )


def tridiagonal(dt, shape, seed=0, boost=4.0):
    """Compact diagonals ``[..., 3, M]``, ``boost`` added to the diagonal: 4 makes the matrix
    diagonally dominant; with less, TF's pivoting swaps rows."""
    d = rand(dt, shape, seed)
    d[..., 1, :] += boost
    return d


def with_rhs(make_a, cols=2, vector=False, transpose=False):
    """``(a, rhs)`` for a tridiagonal or banded ``a`` of ``shape``: rhs ``[..., M, cols]``."""

    def make(dt, shape):
        m = shape[-1]
        tail = (m,) if vector else (cols, m) if transpose else (m, cols)
        return make_a(dt, shape), rand(dt, shape[:-2] + tail, seed=1)

    return make


def structured(name, make, dtypes=FC, shapes=((3, 4), (2, 3, 4)), diff=(0, 1), **kwargs):
    return Case(
        name,
        lambda dt, shape: (make(dt, shape), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=diff,
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    )


def bands(dt, shape, lower=True):
    """``[..., K, M]`` bands of a well-conditioned triangular matrix (diagonal row + 3)."""
    b = rand(dt, shape)
    b[..., 0 if lower else -1, :] += 3
    return b


def sequence_of(dt, shape):
    """TF's 'sequence' format: superdiagonal M - 1 long, diagonal, subdiagonal M long."""
    d = tridiagonal(dt, shape)
    return [d[..., 0, :-1], d[..., 1, :], d[..., 2, :]]


def _list_of_arrays(dt, shape):
    return ([rand(dt, shape, 0), rand(dt, shape[:1], 1)],), {}


def tridiagonal_eigen(dtypes=FC, shapes=((2,), (6,)), diff=(0, 1), **kwargs):
    """``eigh_tridiagonal(alpha [n], beta [n - 1])`` of a random Hermitian matrix."""
    return structured(
        "linalg.eigh_tridiagonal",
        lambda dt, s: (rand(dt, s), rand(dt, (s[0] - 1,), 1)),
        dtypes=dtypes,
        shapes=shapes,
        diff=diff,
        **kwargs,
    )


CASES = [
    # -- inverse, determinants, Cholesky
    square("linalg.inv"),
    square("linalg.inv", adjoint=True, dtypes=("float32", "complex64")),
    square("linalg.det"),
    square("linalg.slogdet"),
    square("linalg.slogdet", gen=lambda dt, s: -general(dt, s), dtypes=("float32",)),
    square("linalg.logdet", gen=spd),
    square("linalg.cholesky", gen=spd),
    square("linalg.cholesky", gen=lower_only, dtypes=("float32",)),
    square("linalg.eigvalsh", gen=hermitian),
    square("linalg.eigvalsh", gen=lower_only, dtypes=("float32",)),
    square("linalg.expm", gen=lambda dt, s: rand(dt, s) * 0.5),
    square("linalg.expm", gen=lambda dt, s: rand(dt, s) * 4.0, dtypes=("float64",), diff=False),
    # -- solvers
    two("linalg.solve", general),
    two("linalg.solve", general, adjoint=True, dtypes=("float32", "complex64")),
    two("linalg.triangular_solve", triangular),
    two(
        "linalg.triangular_solve",
        lambda dt, s: triangular(dt, s, lower=False),
        lower=False,
        adjoint=True,
    ),
    two("linalg.triangular_solve", triangular, shapes=((3, 3),), rhs_batch=(2,), dtypes=F),
    two("linalg.cholesky_solve", chol_factor),
    two("linalg.lstsq", general, shapes=((4, 3), (2, 3, 5)), dtypes=F),
    two(
        "linalg.lstsq", general, shapes=((4, 3), (2, 3, 5)), dtypes=("float32",), l2_regularizer=0.5
    ),
    Case(
        "linalg.lstsq",
        lambda dt, s: ((general(dt, s), rand(dt, s[:-1] + (2,), 1)), {"fast": False}),
        dtypes=F,
        shapes=((4, 3), (2, 5, 3)),
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    ),
    # -- decompositions
    one("linalg.qr", ((4, 3), (2, 3, 5), (3, 3))),
    one("linalg.qr", ((3, 5), (2, 3, 3)), full_matrices=True),
    one("linalg.qr", ((4, 3),), full_matrices=True, diff=False),
    one("linalg.svd", ((4, 3), (2, 3, 5)), compute_uv=False),
    Case(
        "linalg.svd",
        lambda dt, s: ((rand(dt, s),), {"compute_uv": False}),
        dtypes=("complex64",),
        shapes=((3, 4),),
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    ),
    gauge("linalg.svd", ((4, 3), (2, 3, 5), (3, 3))),
    gauge("linalg.svd", ((4, 3), (2, 4, 5)), full_matrices=True),
    gauge("linalg.eigh", SQUARE, gen=hermitian),
    gauge("linalg.eigh", ((3, 3),), gen=lower_only),
    one("linalg.pinv", ((4, 3), (2, 3, 5))),
    # -- general eigenproblems, square roots, rank
    PhaseFixed(
        "linalg.eig",
        lambda dt, s: ((nonsymmetric(dt, s),), {}),
        dtypes=("float32", "float64", "complex64"),
        shapes=((4, 4), (2, 3, 3)),
        diff=(0,),
        x64=True,
        rtol=2e-4,
        atol=2e-5,
    ),
    PhaseFixed(
        "linalg.eigvals",
        lambda dt, s: ((nonsymmetric(dt, s),), {}),
        dtypes=("float32", "float64", "complex64"),
        shapes=((4, 4), (2, 3, 3)),
        diff=(0,),
        x64=True,
        rtol=2e-4,
        atol=2e-5,
    ),
    square("linalg.eigvals", gen=rand, dtypes=("complex64",), shapes=((4, 4), (2, 3, 3))),
    PhaseFixed(
        "linalg.eig",
        lambda dt, s: ((rand(dt, s),), {}),
        dtypes=("float32", "complex64"),
        shapes=((2, 4, 4),),
        x64=True,
        rtol=2e-4,
        atol=2e-5,
    ),
    square("linalg.sqrtm", gen=spd),
    square("linalg.sqrtm", gen=general),
    square(
        "linalg.sqrtm",
        gen=lambda dt, s: (np.diag([4.0, 9.0, 1.0]) - 2 * np.eye(3, k=1)).astype(dt),
        dtypes=F,
        shapes=((3, 3),),
    ),
    square("linalg.logm", gen=spd, dtypes=("complex64", "complex128"), diff=False),
    square("linalg.logm", gen=general, dtypes=("complex64",), shapes=((2, 4, 4),), diff=False),
    square("linalg.matrix_rank", gen=low_rank, dtypes=F, shapes=((3, 4), (2, 4, 4)), diff=False),
    square("linalg.matrix_rank", gen=low_rank, dtypes=F, shapes=((2, 4, 4),), diff=False, tol=0.5),
    square("linalg.matrix_rank", gen=general, dtypes=("float32",), shapes=((3, 3),), diff=False),
    # -- LU
    square("linalg.lu", diff=False),
    square("linalg.lu", diff=False, dtypes=("float32",), output_idx_type="int64"),
    lu_case("linalg.lu_solve", lambda dt, s: lu_args(dt, s, 2), diff=(0, 2)),
    lu_case(
        "linalg.lu_solve",
        lambda dt, s: (general(dt, s), perm_of(s), rand(dt, (2,) + s[-1:] + (1,), 1)),
        dtypes=("float32",),
        shapes=((3, 3),),
        diff=(0, 2),
    ),
    lu_case("linalg.lu_reconstruct", lu_args),
    lu_case("linalg.lu_matrix_inverse", lu_args),
    # -- tensor diagonals, tridiagonal and banded matrices
    one("linalg.tensor_diag", ((3,), (2, 3)), dtypes=("float32", "float64", "int32", "complex64")),
    one(
        "linalg.tensor_diag_part", ((3, 3), (2, 3, 2, 3)), dtypes=("float32", "int32", "complex64")
    ),
    structured("linalg.tridiagonal_matmul", with_rhs(rand)),
    structured(
        "linalg.tridiagonal_matmul",
        lambda dt, s: (rand(dt, s), rand(dt, s[:-1] + (2,), 1)),
        dtypes=F,
        shapes=((4, 4), (2, 4, 4)),
        diagonals_format="matrix",
    ),
    structured(
        "linalg.tridiagonal_matmul",
        lambda dt, s: (
            [rand(dt, s[:-2] + s[-1:], k) for k in range(3)],
            rand(dt, s[:-2] + (s[-1], 2), 3),
        ),
        dtypes=("float32",),
        diff=(1,),
        diagonals_format="sequence",
    ),
    structured("linalg.tridiagonal_solve", with_rhs(tridiagonal)),
    structured("linalg.tridiagonal_solve", with_rhs(tridiagonal), partial_pivoting=False),
    structured(
        "linalg.tridiagonal_solve",
        with_rhs(lambda dt, s: tridiagonal(dt, s, boost=0.0)),
        dtypes=F,
        shapes=((3, 5), (2, 3, 6)),
    ),
    structured(
        "linalg.tridiagonal_solve",
        with_rhs(lambda dt, s: tridiagonal(dt, s, boost=1.0)),
        dtypes=F,
        shapes=((3, 5),),
        partial_pivoting=False,
    ),
    structured("linalg.tridiagonal_solve", with_rhs(tridiagonal, vector=True), dtypes=F),
    structured(
        "linalg.tridiagonal_solve",
        with_rhs(tridiagonal, transpose=True),
        dtypes=("float32", "complex64"),
        transpose_rhs=True,
        conjugate_rhs=True,
    ),
    structured(
        "linalg.tridiagonal_solve",
        with_rhs(tridiagonal, vector=True),
        dtypes=("complex64",),
        conjugate_rhs=True,
    ),
    structured(
        "linalg.tridiagonal_solve",
        lambda dt, s: (general(dt, s), rand(dt, s[:-1] + (2,), 1)),
        dtypes=F,
        shapes=((4, 4), (2, 4, 4)),
        diagonals_format="matrix",
    ),
    structured(
        "linalg.tridiagonal_solve",
        lambda dt, s: (sequence_of(dt, s), rand(dt, s[:-2] + (s[-1], 2), 1)),
        dtypes=("float32",),
        diff=(1,),
        diagonals_format="sequence",
    ),
    structured("linalg.tridiagonal_solve", with_rhs(tridiagonal), perturb_singular=True),
    structured(
        "linalg.tridiagonal_solve",
        with_rhs(lambda dt, s: tridiagonal(dt, s, boost=0.0), vector=True),
        dtypes=F,
        shapes=((3, 1), (3, 2), (2, 3, 6)),
        perturb_singular=True,
    ),
    # -- Hermitian tridiagonal eigenproblems (TF's bisection: its gradient is TF's, below)
    tridiagonal_eigen(),
    tridiagonal_eigen(dtypes=("float32",), shapes=((6,),), select="i", select_range=[1, 3]),
    tridiagonal_eigen(dtypes=("float32",), shapes=((6,),), select="v", select_range=[-0.5, 0.5]),
    tridiagonal_eigen(dtypes=("float32",), shapes=((6,),), tol=0.05),
    # Eigenvector gradients are rounding noise, in TF's too: tested on exact cases below.
    tridiagonal_eigen(shapes=((5,),), diff=(), eigvals_only=False),
    tridiagonal_eigen(
        dtypes=("float32",),
        shapes=((6,),),
        diff=(),
        eigvals_only=False,
        select="i",
        select_range=[2, 4],
    ),
    tridiagonal_eigen(dtypes=("float32", "complex64"), shapes=((1,),), eigvals_only=False),
    structured("linalg.banded_triangular_solve", with_rhs(bands)),
    structured(
        "linalg.banded_triangular_solve",
        with_rhs(lambda dt, s: bands(dt, s, lower=False)),
        lower=False,
        adjoint=True,
    ),
    structured(
        "linalg.banded_triangular_solve",
        lambda dt, s: (bands(dt, s), rand(dt, (2,) + s[-1:] + (1,), 1)),
        dtypes=F,
        shapes=((2, 4), (3, 4)),
    ),
    # More bands than rows: TF's values (its gradient fails in MatrixDiagPartV3 there).
    structured(
        "linalg.banded_triangular_solve", with_rhs(bands), dtypes=F, shapes=((5, 4),), diff=()
    ),
    # -- diagonals, bands, transposes
    one("linalg.trace", ((3, 3), (2, 3, 4)), dtypes=("float32", "float64", "int32", "complex64")),
    one("linalg.diag", ((3,), (2, 3)), dtypes=("float32", "int32")),
    one("linalg.diag", ((3,), (2, 3)), k=1),
    one("linalg.diag", ((3,),), k=-1, num_rows=5, padding_value=7.0),
    one("linalg.diag_part", ((3, 4), (2, 4, 3)), dtypes=("float32", "int32")),
    one("linalg.diag_part", ((3, 4), (2, 4, 3)), k=1),
    one("linalg.diag_part", ((3, 4),), k=-2),
    Case(
        "linalg.set_diag",
        lambda dt, s: ((rand(dt, s), rand(dt, s[:-2] + (min(s[-2:]),), 1)), {}),
        dtypes=F,
        shapes=((3, 4), (2, 4, 3)),
        diff=(0, 1),
        x64=True,
    ),
    Case(
        "linalg.set_diag",
        lambda dt, s: ((rand(dt, s), rand(dt, s[:-2] + (3,), 1)), {"k": 1}),
        dtypes=F,
        shapes=((3, 4), (2, 4, 4)),
        diff=(0, 1),
        x64=True,
    ),
    one(
        "linalg.band_part",
        ((4, 4), (2, 3, 5)),
        num_lower=1,
        num_upper=0,
        dtypes=("float32", "int32"),
    ),
    one("linalg.band_part", ((4, 4), (2, 3, 5)), num_lower=-1, num_upper=2),
    one("linalg.adjoint", ((3, 4), (2, 3, 4)), dtypes=("float32", "complex64")),
    one("linalg.matrix_transpose", ((3, 4), (2, 3, 4)), dtypes=("float32", "int32", "complex64")),
    one("linalg.matrix_transpose", ((2, 3, 4),), dtypes=("complex64",), conjugate=True),
    # -- products
    Case(
        "linalg.matvec",
        lambda dt, s: ((rand(dt, s), rand(dt, s[:-2] + s[-1:], 1)), {}),
        dtypes=FC,
        shapes=((3, 4), (2, 3, 4)),
        diff=(0, 1),
        x64=True,
    ),
    Case(
        "linalg.matvec",
        lambda dt, s: ((rand(dt, s), rand(dt, s[-2:-1], 1)), {"adjoint_a": True}),
        dtypes=("float32", "complex64"),
        shapes=((3, 4), (2, 3, 4)),
        diff=(0, 1),
    ),
    Case(
        "linalg.matmul",
        lambda dt, s: ((rand(dt, s), rand(dt, s[:-2] + s[-1:] + (2,), 1)), {}),
        dtypes=("complex64",),
        shapes=((3, 4), (2, 3, 4)),
    ),
    Case(
        "linalg.einsum",
        lambda dt, s: (("...ij,jk->...ik", rand(dt, s), rand(dt, (s[-1], 2), 1)), {}),
        dtypes=("float32", "int32", "complex64"),
        shapes=((3, 4), (2, 3, 4)),
        diff=(1, 2),
        x64=True,
    ),
    Case(
        "linalg.einsum",
        lambda dt, s: (("ij,ij->i", rand(dt, s), rand(dt, s, 1)), {}),
        dtypes=F,
        shapes=((3, 4),),
        diff=(1, 2),
        x64=True,
    ),
    Case(
        "linalg.einsum",
        lambda dt, s: (("ii", rand(dt, s)), {}),
        dtypes=F,
        shapes=((3, 3),),
        diff=(1,),
        x64=True,
    ),
    Case(
        "linalg.tensordot",
        lambda dt, s: ((rand(dt, s), rand(dt, s[-1:] + (2,), 1)), {"axes": 1}),
        dtypes=("float32", "float64", "int32"),
        shapes=((3, 4), (2, 3, 4)),
        diff=(0, 1),
        x64=True,
    ),
    Case(
        "linalg.tensordot",
        lambda dt, s: ((rand(dt, s), rand(dt, (s[2], s[1], 2), 1)), {"axes": [[1, 2], [1, 0]]}),
        dtypes=F,
        shapes=((2, 3, 4),),
        diff=(0, 1),
        x64=True,
    ),
    Case(
        "linalg.tensordot",
        lambda dt, s: ((rand(dt, s), rand(dt, (2,), 1)), {"axes": 0}),
        dtypes=F,
        shapes=((3,),),
        diff=(0, 1),
        x64=True,
    ),
    Case(
        "linalg.cross",
        lambda dt, s: ((rand(dt, s), rand(dt, s, 1)), {}),
        dtypes=("float32", "float64", "int32"),
        shapes=((3,), (2, 3)),
        diff=(0, 1),
        x64=True,
    ),
    # -- norms
    one("linalg.norm", ((3,), (2, 3))),
    one("linalg.norm", ((3,), (2, 3)), dtypes=("complex64",)),
    one("linalg.norm", ((2, 3),), ord=1, axis=0, keepdims=True),
    one("linalg.norm", ((2, 3),), ord=1, dtypes=("int32",)),
    one("linalg.norm", ((2, 3),), ord=np.inf, axis=-1),
    one("linalg.norm", ((2, 3),), ord=3, axis=1),
    one("linalg.norm", ((2, 3),), ord=0.5),
    one("linalg.norm", ((3, 4), (2, 3, 4)), ord="fro", axis=(-2, -1)),
    one("linalg.norm", ((3, 4), (2, 3, 4)), ord=1, axis=[-2, -1]),
    one("linalg.norm", ((3, 4), (2, 3, 4)), ord=np.inf, axis=(-2, -1), keepdims=True),
    one("linalg.norm", ((3, 4), (2, 3, 4)), ord=2, axis=(-1, -2)),
    one("linalg.norm", ((2, 3, 4),), ord=2, axis=(0, 2)),
    one("linalg.normalize", ((3,), (2, 3))),
    one("linalg.normalize", ((2, 3),), ord=1, axis=1),
    Case("linalg.global_norm", _list_of_arrays, dtypes=F, shapes=((2, 3),), x64=True),
]

# TF registers no gradient for these (tapes give None).
NOT_DIFFERENTIABLE: set = {"linalg.lu", "linalg.matrix_rank", "linalg.logm"}

# Public ops whose comparison needs more than a Case: eigh's, svd's and eig's vectors are
# compared through the ``GaugeFixed`` and ``PhaseFixed`` cases above (their wrapper is not
# the op itself).
OTHERWISE_TESTED = {"linalg.eigh", "linalg.eig"}  # eigvals: complex Cases are plain

# TF's gradient here is deliberately not the derivative of the forward function (Cholesky
# reads one triangle but TF's gradient is symmetric): checked on symmetric inputs below.
_SYMMETRIZED = {"linalg.cholesky", "linalg.logdet", "linalg.cholesky_solve"}
# TF's gradient of eigh_tridiagonal is that of its bisection's final midpoints (a combination of
# the starting bounds), not the eigenvalues' derivative: checked against TF only.
_BISECTION = {"linalg.eigh_tridiagonal"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in first_of_each_op(CASES, NOT_DIFFERENTIABLE)
        if c.name not in _SYMMETRIZED | _BISECTION
    ],
    ids=case_id,
)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


# Ops with many Cases (formats, flags) whose second derivatives are slow to compile: their
# second order is checked on their first Case only.
_SECOND_ORDER_ONCE = {"linalg.tridiagonal_solve", "linalg.sqrtm", "linalg.banded_triangular_solve"}


def _second_order_cases():
    seen = set()
    for c in grad_cases(CASES):
        if c.name in _SYMMETRIZED | _BISECTION | NOT_DIFFERENTIABLE or c.name in seen:
            continue
        if c.name in _SECOND_ORDER_ONCE:
            seen.add(c.name)
        yield c


@pytest.mark.slow
@pytest.mark.parametrize("case", list(_second_order_cases()), ids=case_id)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: tapejax.linalg.cholesky(a),
        lambda a: tapejax.linalg.logdet(a),
        lambda a: tapejax.linalg.cholesky_solve(tapejax.linalg.cholesky(a), a[..., :2]),
    ],
    ids=["cholesky", "logdet", "cholesky_solve"],
)
def test_symmetrized_gradients_are_numerically_right(fn, x64):
    """On symmetric inputs (``(a + a^T) / 2``) TF's symmetric gradient is the derivative."""
    a = spd("float64", (2, 3, 3))

    def f(a):
        a = tapejax.constant((a + jnp.swapaxes(a, -1, -2)) / 2)
        return fn(a)._value

    check_grads(f, (a,), order=1, modes=["rev"], atol=1e-5, rtol=1e-5)


# -- gradients where TF's rule is not JAX's ------------------------------------------------------


def _tape_grad(fw, fn, value):
    x = fw.constant(value)
    with fw.GradientTape() as tape:
        tape.watch(x)
        out = fn(fw, x)
    g = tape.gradient(out, x)
    return None if g is None else g.numpy()


def _same_as_tf(fn, value, rtol=1e-4, atol=1e-5):
    want = _tape_grad(tensorflow, fn, value)
    got = _tape_grad(tapejax, fn, value)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    return got


COMPLEX_GRADIENTS = [
    ("matmul", lambda tf, x: tf.linalg.matmul(x, x)),
    ("matmul adjoint", lambda tf, x: tf.linalg.matmul(x, x, adjoint_b=True)),
    ("inv", lambda tf, x: tf.linalg.inv(x)),
    ("det", lambda tf, x: tf.linalg.det(x)),
    ("slogdet", lambda tf, x: tf.linalg.slogdet(x)[1]),
    ("solve", lambda tf, x: tf.linalg.solve(x, x[..., :2])),
    ("triangular_solve", lambda tf, x: tf.linalg.triangular_solve(x, x[..., :2], adjoint=True)),
    ("cholesky", lambda tf, x: tf.linalg.cholesky(x)),
    ("logdet", lambda tf, x: tf.linalg.logdet(x)),
    ("eigvalsh", lambda tf, x: tf.linalg.eigvalsh(x)),
    ("norm", lambda tf, x: tf.norm(x)),
    ("trace", lambda tf, x: tf.linalg.trace(x)),
    ("einsum", lambda tf, x: tf.einsum("ij,jk->ik", x, x)),
    ("qr r", lambda tf, x: tf.math.real(tf.linalg.qr(x)[1])),
]


@pytest.mark.parametrize(
    "fn", [f for _, f in COMPLEX_GRADIENTS], ids=[n for n, _ in COMPLEX_GRADIENTS]
)
def test_complex_gradients_are_tfs(fn):
    """TF's convention for complex gradients (the conjugate of JAX's)."""
    _same_as_tf(fn, spd("complex64", (3, 3)))


def test_complex_det_gradient_is_right_where_tfs_drops_a_conjugate():
    """TF's ``MatrixDeterminant`` gradient is ``grad * det * inv(a)^H``, right only where
    the determinant is real; tapejax's is ``grad * conj(det) * inv(a)^H``, checked here
    against central differences of a real loss (docs/compat.md)."""
    a = np.array([[1 + 2j, 0.5 - 1j], [0.3 + 0.2j, 2 - 1j]], np.complex128)

    def loss(m):
        d = np.linalg.det(m)
        return d.real + 2 * d.imag

    x = tapejax.constant(a.astype(np.complex64))
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        d = tapejax.linalg.det(x)
        y = tapejax.math.real(d) + 2 * tapejax.math.imag(d)
    got = tape.gradient(y, x).numpy()
    eps = 1e-6
    want = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        for unit in (1, 1j):
            e = np.zeros_like(a)
            e[idx] = eps * unit
            want[idx] += unit * (loss(a + e) - loss(a - e)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    tf_formula = (1 + 2j) * np.linalg.det(a) * np.linalg.inv(a).conj().T
    np.testing.assert_allclose(
        _tape_grad(tensorflow, lambda tf, m: _re_2im(tf, tf.linalg.det(m)), a.astype(np.complex64)),
        tf_formula,
        rtol=1e-4,
    )
    assert not np.allclose(got, tf_formula, atol=1e-2)


def _re_2im(tf, d):
    return tf.math.real(d) + 2 * tf.math.imag(d)


def test_eigh_degenerate_eigenvalues_give_tfs_finite_gradient():
    # A repeated eigenvalue: JAX's 1 / (e_j - e_i) is inf (NaN gradients); TF broadens it.
    a = np.diag([1.0, 1.0, 3.0]).astype("float32")
    got = _same_as_tf(lambda tf, x: tf.linalg.eigh(x)[1] * tf.linalg.eigh(x)[1], a)
    assert np.all(np.isfinite(got))
    got = _same_as_tf(lambda tf, x: tf.linalg.eigvalsh(x), a)
    np.testing.assert_allclose(got, np.eye(3), atol=1e-6)


def test_eigh_gradient_is_lower_triangular_as_tf():
    got = _same_as_tf(
        lambda tf, x: tf.linalg.eigvalsh(x) * [1.0, 2.0, 3.0], hermitian("float32", (3, 3))
    )
    assert np.all(np.triu(got, 1) == 0)


def test_svd_degenerate_singular_values_give_tfs_finite_gradient():
    a = np.diag([2.0, 2.0, 1.0]).astype("float32")
    # Losses that do not depend on the basis chosen inside the degenerate subspace.
    got = _same_as_tf(lambda tf, x: tf.linalg.svd(x)[0] * [1.0, 1.0, 3.0], a)
    np.testing.assert_allclose(got, np.diag([1.0, 1.0, 3.0]), atol=1e-6)

    def projector(tf, x):
        s, u, v = tf.linalg.svd(x)
        return tf.linalg.matmul(u * [1.0, 1.0, 3.0], v, adjoint_b=True)

    got = _same_as_tf(projector, a)
    assert np.all(np.isfinite(got))


def test_cholesky_gradient_is_tfs_symmetric_one():
    got = _same_as_tf(
        lambda tf, x: tf.linalg.cholesky(x) * [[1.0, 0, 0], [2.0, 3.0, 0], [4.0, 5.0, 6.0]],
        spd("float32", (3, 3)),
    )
    np.testing.assert_allclose(got, got.T, rtol=1e-5)


def test_triangular_solve_gradient_keeps_the_triangle():
    got = _same_as_tf(
        lambda tf, x: tf.linalg.triangular_solve(x, tf.ones([3, 2])), triangular("float32", (3, 3))
    )
    assert np.all(np.triu(got, 1) == 0)


def test_euclidean_norm_gradient_at_zero_is_tfs():
    # NaN at 0 where a gradient flows in (TF's Sqrt gradient is inf there) and 0 where none
    # does (TF's SqrtGrad of a zero upstream is zero).
    got = _same_as_tf(lambda tf, x: tf.norm(x), np.zeros([3], "float32"))
    assert np.all(np.isnan(got))
    got = _same_as_tf(lambda tf, x: tf.norm(x, axis=1)[1], np.zeros([2, 3], "float32"))
    np.testing.assert_array_equal(np.isnan(got), [[False] * 3, [True] * 3])
    _same_as_tf(lambda tf, x: tf.linalg.global_norm([x, tf.ones([2])]), np.zeros([3], "float32"))
    _same_as_tf(lambda tf, x: tf.norm(x, ord=1), np.array([0.0, 1.0, -2.0], "float32"))
    _same_as_tf(lambda tf, x: tf.norm(x, ord=np.inf), np.array([2.0, 1.0, -2.0], "float32"))


def test_global_norm_gradient_matches_tf():
    _same_as_tf(lambda tf, x: tf.linalg.global_norm([x, None, 2.0 * x[:2]]), rand("float32", (3,)))


def test_qr_gradient_of_wide_and_square_matrices_matches_tf():
    for shape in ((3, 5), (4, 4), (5, 3)):
        _same_as_tf(
            lambda tf, x: (
                tf.reduce_sum(tf.linalg.qr(x)[0][..., :3] * [1.0, 2.0, 3.0])
                + tf.reduce_sum(tf.linalg.qr(x)[1][..., :1])
            ),
            rand("float32", shape),
            atol=1e-4,
        )


def test_lu_has_no_gradient_as_tf():
    """TF registers none (its tape raises LookupError); tapejax's tape gives None."""
    x = tapejax.constant(general("float32", (3, 3)))
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        lu, p = tapejax.linalg.lu(x)
    assert tape.gradient(lu, x) is None
    with pytest.raises(LookupError, match="gradient registry has no entry for: Lu"):
        _tape_grad(tensorflow, lambda tf, x: tf.linalg.lu(x)[0], x.numpy())


def test_lu_factors_reconstruct_and_solve(x64):
    a = general("float64", (2, 4, 4)) - 4 * np.eye(4)  # pivoting needed
    lu, p = tapejax.linalg.lu(a)
    np.testing.assert_allclose(tapejax.linalg.lu_reconstruct(lu, p).numpy(), a, atol=1e-12)
    b = rand("float64", (2, 4, 3))
    np.testing.assert_allclose(tapejax.linalg.lu_solve(lu, p, b).numpy(), np.linalg.solve(a, b))
    np.testing.assert_allclose(tapejax.linalg.lu_matrix_inverse(lu, p).numpy(), np.linalg.inv(a))


def test_tridiagonal_solve_fails_as_tfs_algorithms():
    """A zero pivot gives TF's all-NaN result; pivoting avoids one that Thomas hits."""
    d = tapejax.constant([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    rhs = tapejax.ones([3, 1])
    thomas = tapejax.linalg.tridiagonal_solve(d, rhs, partial_pivoting=False)
    assert np.all(np.isnan(thomas.numpy()))
    pivoted = tapejax.linalg.tridiagonal_solve(d, rhs)
    np.testing.assert_array_equal(pivoted.numpy(), [[0.0], [1.0], [0.0]])
    singular = tapejax.linalg.tridiagonal_solve(tapejax.zeros([2, 3, 4]), tapejax.ones([2, 4, 1]))
    assert np.all(np.isnan(singular.numpy()))


def test_tridiagonal_solve_perturb_singular_is_tfs_on_singular_matrices():
    """TF perturbs the zero pivot by eps * max |U| and doubles it while the row could overflow:
    an exactly singular system gives TF's values and gradients. At a numerically singular one
    the pivot is a rounding error, so only the solution's direction is reproducible."""
    d = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 0.0]], "float32")
    r = np.array([[0.3], [0.7]], "float32")
    for fw in (tensorflow, tapejax):
        x = fw.linalg.tridiagonal_solve(fw.constant(d), fw.constant(r), perturb_singular=True)
        assert np.isfinite(x.numpy()).all()
    _same_as_tf(
        lambda tf, x: tf.linalg.tridiagonal_solve(x, tf.constant(r), perturb_singular=True),
        d,
        rtol=1e-6,
    )
    a, b = rand("float64", (5,)), rand("float64", (4,), 1)
    lam = np.linalg.eigvalsh(np.diag(a) + np.diag(b, 1) + np.diag(b, -1))[0]
    near = np.stack([np.append(b, 0.0), a - lam, np.insert(b, 0, 0.0)]).astype("float32")
    rhs = rand("float32", (5, 1), 2)
    got, want = (
        fw.linalg.tridiagonal_solve(fw.constant(near), fw.constant(rhs), perturb_singular=True)
        for fw in (tapejax, tensorflow)
    )
    got, want = got.numpy(), want.numpy()
    assert np.linalg.norm(want) > 1e5  # the solution is the eigenvector, magnified
    np.testing.assert_allclose(
        got / np.linalg.norm(got), want / np.linalg.norm(want), rtol=1e-5, atol=1e-6
    )
    with pytest.raises(ValueError, match="partial_pivoting must be True if perturb_singular is."):
        tapejax.linalg.tridiagonal_solve(d, r, partial_pivoting=False, perturb_singular=True)


def test_tridiagonal_solve_complex_gradient_is_tfs():
    """TF's rule transposes the matrix without conjugating it (not the usual convention)."""
    d = tridiagonal("complex64", (3, 5))
    r = rand("complex64", (5, 2), 1)

    def loss(tf, x):
        y = tf.linalg.tridiagonal_solve(x, tf.constant(r))
        return tf.math.real(y * tf.math.conj(y))

    _same_as_tf(loss, d)


def test_structured_ops_trace_under_jit():
    d, r = tridiagonal("float32", (2, 3, 5)), rand("float32", (2, 5, 2), 1)
    for pivoting in (True, False):
        f = jax.jit(
            lambda d, r, p=pivoting: (
                tapejax.linalg.tridiagonal_solve(d, r, partial_pivoting=p)._value
            )
        )
        np.testing.assert_allclose(
            f(d, r),
            tensorflow.linalg.tridiagonal_solve(
                tensorflow.constant(d), tensorflow.constant(r), partial_pivoting=pivoting
            ),
            rtol=1e-5,
        )
    b = bands("float32", (2, 5))
    g = jax.jit(lambda b, r: tapejax.linalg.banded_triangular_solve(b, r)._value)
    np.testing.assert_allclose(
        g(b, r[0]), tensorflow.linalg.banded_triangular_solve(b, r[0]), rtol=1e-5
    )


def test_sqrtm_is_nan_where_tfs_real_arithmetic_is():
    """A negative real eigenvalue (TF's real Schur method takes its square root) and 0 / 0
    from a repeated zero eigenvalue give NaN; complex eigenvalues of a real matrix do not."""
    for m in ([[-1.0, 0.0], [0.0, 4.0]], [[1.0, 2.0], [3.0, -4.0]], [[0.0, 0.0], [0.0, 0.0]]):
        want = tensorflow.linalg.sqrtm(tensorflow.constant(m)).numpy()
        got = tapejax.linalg.sqrtm(m).numpy()
        assert np.all(np.isnan(want)) and np.all(np.isnan(got))
    rotation = [[0.0, -1.0], [1.0, 0.0]]
    np.testing.assert_allclose(
        tapejax.linalg.sqrtm(rotation).numpy(),
        tensorflow.linalg.sqrtm(tensorflow.constant(rotation)).numpy(),
        atol=1e-6,
    )


def test_sqrtm_and_eig_complex_gradients_are_tfs():
    """sqrtm's rule transposes without conjugating (TF's, not the usual convention); eig's
    and eigvals' follow the usual one."""
    a = spd("complex64", (3, 3))
    w = rand("complex64", (3, 3), 2)
    _same_as_tf(lambda tf, x: tf.math.real(tf.linalg.sqrtm(x) * w), a)
    b = nonsymmetric("complex64", (3, 3))
    _same_as_tf(lambda tf, x: tf.math.real(tf.linalg.eigvals(x) * w[0]), b)
    _same_as_tf(lambda tf, x: tf.abs(tf.linalg.eig(x)[1]) * tf.math.real(w), b)


def test_eig_degenerate_eigenvalues_give_tfs_finite_gradient():
    a = np.diag([1.0, 1.0, 3.0]).astype("float32")
    got = _same_as_tf(lambda tf, x: tf.math.real(tf.linalg.eigvals(x)), a)
    np.testing.assert_allclose(got, np.eye(3), atol=1e-6)
    got = _same_as_tf(lambda tf, x: tf.abs(tf.linalg.eig(x)[1]), a)
    assert np.all(np.isfinite(got))


def test_logm_branch_jordan_blocks_and_singular_matrices_are_tfs():
    """The principal branch (log of -1 is i pi), a defective matrix (a Jordan block, whose
    eigenvectors cannot diagonalize it) and NaN for a singular one, as TF's Eigen kernel."""
    for m in ([[-1.0, 0.0], [0.0, -2.0]], [[1.0, 1.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]):
        m = np.array(m, "complex64")
        want = tensorflow.linalg.logm(m).numpy()
        np.testing.assert_allclose(tapejax.linalg.logm(m).numpy(), want, atol=1e-6, equal_nan=True)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]], "complex64")  # log is pi/2 times itself
    np.testing.assert_allclose(
        tapejax.linalg.logm(rotation).numpy(), rotation * np.pi / 2, atol=1e-6
    )


def test_logm_has_no_gradient_as_tf():
    """TF registers none (its tape raises LookupError); tapejax's tape gives None."""
    x = tapejax.constant(spd("complex64", (3, 3)))
    with tapejax.GradientTape() as tape:
        tape.watch(x)
        y = tapejax.linalg.logm(x)
    assert tape.gradient(y, x) is None
    with pytest.raises(LookupError, match="gradient registry has no entry for: MatrixLogarithm"):
        _tape_grad(tensorflow, lambda tf, x: tf.math.real(tf.linalg.logm(x)), x.numpy())


def _tridiagonal_eigen_loss(tf, values, vectors):
    w = tf.constant(np.arange(vectors.shape[0] * vectors.shape[1], dtype="float32") / 10)
    w = tf.reshape(w, vectors.shape)
    return tf.reduce_sum(values) + tf.reduce_sum(vectors * vectors * w) + tf.reduce_sum(vectors[0])


@pytest.mark.parametrize(
    "alpha, beta",
    [
        pytest.param([1.0, 1.0], [1.0], marks=pytest.mark.slow),
        pytest.param([0.0, 0.0], [1.0], marks=pytest.mark.slow),
        pytest.param([1.0, 2.0, 3.0], [0.0, 0.0], marks=pytest.mark.slow),
        # Two clusters of equal eigenvalues.
        pytest.param([2.0, 2.0, 2.0, 2.0], [1.0, 0.0, 1.0], marks=pytest.mark.slow),
    ],
)
def test_eigh_tridiagonal_vector_gradients_are_tfs_where_exact(alpha, beta):
    """TF's eigenvector gradient goes through its inverse iteration, solves at numerically
    singular matrices: in general it is rounding noise (TF's own changes when an input moves
    by one ulp). Where the shifted matrices are exactly singular it is deterministic, and
    tapejax's equals TF's."""
    a, b = np.array(alpha, "float32"), np.array(beta, "float32")

    def grads(fw):
        x, y = fw.constant(a), fw.constant(b)
        with fw.GradientTape() as tape:
            tape.watch([x, y])
            loss = _tridiagonal_eigen_loss(
                fw, *fw.linalg.eigh_tridiagonal(x, y, eigvals_only=False)
            )
        return [g.numpy() for g in tape.gradient(loss, [x, y])]

    for got, want in zip(grads(tapejax), grads(tensorflow)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_eigh_tridiagonal_gradient_is_tfs_bisection_not_the_derivative():
    """TF differentiates its bisection: the eigenvalues move with the Gershgorin bounds they
    started from, which involve only the rows that set those bounds."""
    a, b = np.array([1.0, 2.0, 3.0, 4.0], "float32"), np.array([0.5, -0.3, 0.7], "float32")
    got = _same_as_tf(lambda tf, x: tf.linalg.eigh_tridiagonal(x, tf.constant(b)), a, rtol=1e-6)
    true = np.linalg.eigh(np.diag(a) + np.diag(b, 1) + np.diag(b, -1))[1] ** 2  # d e_j / d a_i
    assert np.abs(got - true.sum(axis=1)).max() > 0.1
    np.testing.assert_array_equal(got[1:3], [0.0, 0.0])  # the inner rows set no bound


@pytest.mark.slow
def test_eigh_tridiagonal_clusters_are_orthonormalized_as_tf():
    """Eigenvalues closer than sqrt(eps) |T| share one QR-orthonormalized basis (Eigen's
    Householder signs), as TF's. (Where the iteration has already made a cluster's vectors
    orthogonal, as for a block-diagonal matrix, the signs QR gives are rounding noise in TF's
    results too.)"""
    cases = [(np.ones(5), np.full(4, 1e-5)), (np.full(6, 3.0), 1e-6 * np.array([1, 2, 1, 2, 1]))]
    for a, b in cases:
        for dt, atol in (("float32", 1e-6), ("complex64", 1e-4)):
            a_, b_ = a.astype(dt), (b * (1 + 1j if dt == "complex64" else 1)).astype(dt)
            want = tensorflow.linalg.eigh_tridiagonal(a_, b_, eigvals_only=False)
            got = tapejax.linalg.eigh_tridiagonal(a_, b_, eigvals_only=False)
            np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), atol=1e-6)
            np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), atol=atol)
            v = got[1].numpy()
            np.testing.assert_allclose(np.conj(v.T) @ v, np.eye(len(a)), atol=1e-5)


def test_eigh_tridiagonal_start_vectors_are_tfs():
    """Inverse iteration starts from TF's ``stateless_random_normal(seed=[7, 42])``: Philox
    reproduced bit for bit but for rare last-bit differences of its float32 sin/cos/log."""
    from tapejax._src.ops._philox import stateless_normal

    for shape in ((1, 1), (3, 7), (6, 5)):
        want = tensorflow.random.stateless_normal(shape, seed=[7, 42]).numpy()
        np.testing.assert_allclose(stateless_normal(shape, (7, 42)), want, rtol=3e-7, atol=3e-7)


@pytest.mark.slow
def test_eigh_tridiagonal_traces_under_jit():
    a, b = rand("float32", (6,)), rand("float32", (5,), 1)
    e, v = tapejax.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
    f = jax.jit(
        lambda a, b: [t._value for t in tapejax.linalg.eigh_tridiagonal(a, b, eigvals_only=False)]
    )
    traced = f(a, b)  # every eigenvalue treated as possibly clustered: the same vectors
    np.testing.assert_allclose(traced[0], e.numpy(), rtol=1e-6)
    np.testing.assert_allclose(traced[1], v.numpy(), atol=1e-6)
    g = jax.jit(lambda a, b: tapejax.linalg.eigh_tridiagonal(a, b, select="v", select_range=[0, 1]))
    with pytest.raises(NotImplementedError, match=r"select='v'"):
        g(a, b)


def test_eig_and_sqrtm_on_a_backend_without_them_say_so():
    x = tapejax.constant(general("float32", (2, 2)))
    with pytest.raises(
        NotImplementedError,
        match=r"tapejax\.linalg\.sqrtm needs JAX's tpu backend .* but runs on 'cpu'",
    ):
        spectral_ops._require_backend(x, "sqrtm", ("tpu",))


def test_spectral_ops_trace_under_jit():
    a = nonsymmetric("float32", (2, 3, 3))
    f = jax.jit(lambda a: tapejax.linalg.eigvals(a)._value)
    np.testing.assert_allclose(f(a), tapejax.linalg.eigvals(a).numpy(), rtol=1e-5)
    g = jax.jit(lambda a: tapejax.linalg.sqrtm(a)._value)
    np.testing.assert_allclose(
        g(spd("float32", (3, 3))), tapejax.linalg.sqrtm(spd("float32", (3, 3))).numpy(), rtol=1e-5
    )
    h = jax.jit(lambda a: tapejax.linalg.matrix_rank(a)._value)
    assert h(low_rank("float32", (4, 4))) == 2


def test_inv_raises_only_in_eager_mode():
    singular = np.zeros([2, 2], "float32")
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="Input is not invertible"):
        tapejax.linalg.inv(singular)
    # Traced (jax.jit, and tapejax.function after its first, eager call): LAPACK's inf/NaN.
    out = jax.jit(lambda a: tapejax.linalg.inv(a)._value)(singular)
    assert not np.all(np.isfinite(out))


def test_half_precision_is_computed_in_float32():
    # TF's CPU build has a half kernel for MatrixInverse (Cholesky, Svd, ... have none:
    # NotFoundError, as in ERRORS); tapejax computes it in float32 and rounds back.
    a = spd("float32", (2, 3, 3))
    want = tensorflow.linalg.inv(tensorflow.constant(a, tensorflow.float16)).numpy()
    got = tapejax.linalg.inv(tapejax.constant(a, tapejax.float16))
    assert got.dtype == tapejax.float16
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-2, atol=1e-3)


def test_jit_of_linalg_ops_traces_cleanly():
    def f(a):
        s, u, v = tapejax.linalg.svd(a)
        e, w = tapejax.linalg.eigh(a)
        return (
            tapejax.reduce_sum(s)._value
            + tapejax.reduce_sum(e)._value
            + tapejax.linalg.det(a)._value
        )

    a = spd("float32", (3, 3))
    np.testing.assert_allclose(jax.jit(f)(a), f(a), rtol=1e-5)


def test_eye_is_the_top_level_eye():
    assert tapejax.linalg.eye is tapejax.eye
    assert tensorflow.linalg.eye is tensorflow.eye


@pytest.mark.parametrize("name", ["eig", "eigvals", "einsum", "norm", "tensordot"])
def test_toplevel_aliases_are_tfs(name):
    assert getattr(tensorflow, name) is getattr(tensorflow.linalg, name)
    assert getattr(tapejax, name) is getattr(tapejax.linalg, name)


def test_matrix_square_root_is_sqrtm():
    assert tensorflow.matrix_square_root is tensorflow.linalg.sqrtm
    assert tapejax.matrix_square_root is tapejax.linalg.sqrtm


# -- errors: the same expression raises the same error under both frameworks -------------------


def _grad_error(op):
    def fn(tf):
        x = tf.constant(rand("float32", op[1]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = op[0](tf, x)
        return tape.gradient(out, x)

    return fn


IAE = "InvalidArgumentError"
ERRORS = [
    (lambda tf: tf.linalg.inv(tf.zeros([2, 2])), IAE, r"Input is not invertible\."),
    (lambda tf: tf.linalg.inv(tf.zeros([2, 3])), IAE, r"Input matrix must be square\."),
    (lambda tf: tf.linalg.inv(tf.zeros([2])), IAE, r"Input tensor 0 must have rank >= 2, got 1"),
    (
        lambda tf: tf.linalg.inv(tf.eye(2, dtype=tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, half, complex64, complex128",
    ),
    (lambda tf: tf.linalg.det(tf.zeros([2, 3])), IAE, r"Input matrix must be square\."),
    (
        lambda tf: tf.linalg.det(tf.ones([2, 2], tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, float, double, complex64, complex128",
    ),
    (lambda tf: tf.linalg.slogdet(tf.zeros([2, 3])), IAE, r"Input matrix must be square\."),
    (
        lambda tf: tf.linalg.cholesky(tf.zeros([2, 3])),
        IAE,
        r"Input matrix must be square\. \[Op:Cholesky\]",
    ),
    (
        lambda tf: tf.linalg.logdet(tf.zeros([2, 3])),
        IAE,
        r"Input matrix must be square\. \[Op:Cholesky\]",
    ),
    (
        lambda tf: tf.linalg.eigh(tf.zeros([2, 3])),
        IAE,
        r"Input matrix must be square\. \[Op:SelfAdjointEigV2\]",
    ),
    (
        lambda tf: tf.linalg.qr(tf.zeros([2])),
        IAE,
        r"Input tensor 0 must have rank >= 2, got 1 \[Op:Qr\]",
    ),
    (
        lambda tf: tf.linalg.svd(tf.zeros([2])),
        IAE,
        r"Input tensor 0 must have rank >= 2, got 1 \[Op:Svd\]",
    ),
    (
        lambda tf: tf.linalg.solve(tf.eye(2), tf.ones([3, 1])),
        IAE,
        r"Input matrix and rhs are incompatible\.",
    ),
    (
        lambda tf: tf.linalg.solve(tf.zeros([2, 2]), tf.ones([2, 1])),
        IAE,
        r"Input matrix is not invertible\.",
    ),
    (
        lambda tf: tf.linalg.solve(tf.eye(2), tf.ones([2, 1], tf.float64)),
        IAE,
        r"cannot compute MatrixSolve as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.solve(tf.eye(2, batch_shape=[3]), tf.ones([2, 1])),
        IAE,
        r"All input tensors must have the same rank\.",
    ),
    (
        lambda tf: tf.linalg.solve(tf.eye(2, batch_shape=[3]), tf.ones([2, 2, 1])),
        IAE,
        r"All input tensors must have the same outer dimensions\.",
    ),
    (
        lambda tf: tf.linalg.solve(tf.ones([2, 3]), tf.ones([2, 1])),
        IAE,
        r"First input \(lhs\) must be a square matrix\.",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(tf.eye(2), tf.ones([3, 1])),
        IAE,
        r"In\[0\] mismatch In\[1\] shape: 2 vs\. 3: \[2,2\] \[3,1\] 1 0",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(
            tf.eye(2), tf.ones([3, 1]), lower=False, adjoint=True
        ),
        IAE,
        r"In\[0\] mismatch In\[1\] shape: 2 vs\. 3: \[2,2\] \[3,1\] 0 1",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(tf.ones([2, 3]), tf.ones([2, 1])),
        IAE,
        r"In\[0\] matrices in the last dimensions must be square \(3 =/= 2\)",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(tf.eye(2), tf.ones([2])),
        IAE,
        r"In\[1\] ndims must be >= 2: 1",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(tf.eye(2, batch_shape=[3]), tf.ones([2, 2, 1])),
        IAE,
        r"In\[0\] and In\[1\] must have compatible batch dimensions: \[3,2,2\] vs\. \[2,2,1\]",
    ),
    (
        lambda tf: tf.linalg.triangular_solve(tf.eye(2), tf.ones([2, 1], tf.float64)),
        IAE,
        r"cannot compute MatrixTriangularSolve as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.cholesky_solve(tf.eye(2), tf.ones([3, 1])),
        IAE,
        r"In\[0\] mismatch In\[1\] shape: 2 vs\. 3: \[2,2\] \[3,1\] 1 0",
    ),
    (
        lambda tf: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([2, 1])),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[3,2\], In\[1\]: \[2,1\]",
    ),
    (
        lambda tf: tf.linalg.lstsq(tf.ones([2, 3, 2]), tf.ones([3, 1]), fast=False),
        IAE,
        r"All input tensors must have the same rank\.",
    ),
    (
        lambda tf: tf.linalg.lstsq(
            tf.ones([3, 2], tf.complex128), tf.ones([3, 1], tf.complex128), l2_regularizer=1.0
        ),
        "NotImplementedError",
        r"matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0",
    ),
    (
        lambda tf: tf.linalg.trace(tf.zeros([2])),
        IAE,
        r"input must be at least 2-dim, received shape: \[2\]",
    ),
    (
        lambda tf: tf.linalg.diag_part(tf.ones([3])),
        IAE,
        r"input must be at least 2-dim, received shape: \[3\]",
    ),
    (
        lambda tf: tf.linalg.diag(tf.constant(1.0)),
        IAE,
        r"diagonal must be at least 1-dim, received shape: \[\]",
    ),
    (
        lambda tf: tf.linalg.set_diag(tf.ones([3]), tf.ones([3])),
        IAE,
        r"input must be at least 2-dim, received shape: \[3\]",
    ),
    (
        lambda tf: tf.linalg.set_diag(tf.ones([3, 4]), tf.ones([4])),
        IAE,
        r"Either first dimensions of diagonal don't match input\.shape\[:-2\]",
    ),
    (
        lambda tf: tf.linalg.band_part(tf.ones([3]), 0, -1),
        IAE,
        r"input must be at least 2-dim, received shape: \[3\]",
    ),
    (
        lambda tf: tf.linalg.band_part(tf.ones([3, 3]), 4, -1),
        IAE,
        r"num_lower must be negative or less or equal to number of rows \(3\) got: 4",
    ),
    (
        lambda tf: tf.linalg.band_part(tf.ones([3, 3]), 0, 5),
        IAE,
        r"num_upper must be negative or less or equal to number of columns \(3\) got: 5",
    ),
    (
        lambda tf: tf.linalg.adjoint(tf.ones([2])),
        "ValueError",
        r"Argument `a` should be a \(batch\) matrix with rank >= 2\.  Received `a` = \[1\. 1\.\] with shape: \(2,\)",
    ),
    (
        lambda tf: tf.linalg.matrix_transpose(tf.ones([2])),
        "ValueError",
        r"Argument `a` should be a \(batch\) matrix with rank >= 2\.",
    ),
    (
        lambda tf: tf.linalg.matvec(tf.ones([2, 3]), tf.ones([2])),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,1\]",
    ),
    (
        lambda tf: tf.linalg.cross(tf.ones([2]), tf.ones([2])),
        "FailedPreconditionError",
        r"Cross-products are only defined for 3-element vectors\.",
    ),
    (
        lambda tf: tf.linalg.cross(tf.ones([2, 3]), tf.ones([3])),
        IAE,
        r"Both inputs must be of same shape: \[2,3\] vs\. \[3\]",
    ),
    (
        lambda tf: tf.norm(tf.constant([3, 4])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128",
    ),
    (
        lambda tf: tf.norm(tf.ones([3]), ord="fro"),
        "ValueError",
        r"'ord' must be a supported vector norm, got fro",
    ),
    (
        lambda tf: tf.norm(tf.ones([3]), ord=0),
        "ValueError",
        r"'ord' must be a supported vector norm, got 0",
    ),
    (
        lambda tf: tf.norm(tf.ones([3, 3]), ord=3, axis=[0, 1]),
        "ValueError",
        r"'ord' must be a supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got 3",
    ),
    (
        lambda tf: tf.norm(tf.ones([3, 3]), axis=[0, 0]),
        "ValueError",
        r"'axis' must be None, an integer, or a tuple of 2 unique integers, got \(0, 0\)",
    ),
    (
        lambda tf: tf.norm(tf.ones([2, 3]), axis=1.0),
        "ValueError",
        r"'axis' must be None, an integer, or a tuple of 2 unique integers, got 1\.0",
    ),
    (
        lambda tf: tf.norm(tf.ones([2, 3]), axis=2),
        IAE,
        r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)",
    ),
    (
        lambda tf: tf.linalg.normalize(tf.constant([3, 4])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values",
    ),
    (
        lambda tf: tf.linalg.global_norm(tf.ones([3])),
        "TypeError",
        r"`t_list` should be a sequence of tensors\.",
    ),
    (
        lambda tf: tf.linalg.global_norm([tf.ones([3], tf.int32)]),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (
        lambda tf: tf.linalg.global_norm([tf.ones([3], tf.float64), tf.ones([3])]),
        IAE,
        r"cannot compute Pack as input #1\(zero-based\) was expected to be a double tensor but is a float tensor",
    ),
    (
        lambda tf: tf.linalg.pinv(tf.ones([2, 2], tf.int32)),
        "TypeError",
        r"Input `a` must have `float`-like `dtype` \(saw int32\)\.",
    ),
    (
        lambda tf: tf.linalg.pinv(tf.ones([2, 2], tf.bfloat16)),
        "ValueError",
        r"data type <class 'ml_dtypes\.bfloat16'> not inexact",
    ),
    (
        lambda tf: tf.linalg.expm(tf.ones([2, 2], tf.int32)),
        "ValueError",
        r"tf\.linalg\.expm does not support matrices of type <dtype: 'int32'>",
    ),
    (
        lambda tf: tf.linalg.expm(tf.ones([2, 3])),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[1,2,3\], In\[1\]: \[1,2,3\]",
    ),
    (
        lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([2, 4]), 1),
        IAE,
        r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,4\]",
    ),
    (
        lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([3, 5]), 3),
        "ValueError",
        r"`axes` must not be larger than the number of dimensions of tensor",
    ),
    (
        lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([3, 5]), -1),
        "ValueError",
        r"`axes` must be at least 0\. Received: -1\.",
    ),
    (
        lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([3, 5]), [[1], [0, 1]]),
        "ValueError",
        r"Different number of contraction axes `a` and `b`, 1 != 2\.",
    ),
    (
        lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([3, 5], tf.float64), 1),
        IAE,
        r"cannot compute MatMul as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([2, 4])),
        IAE,
        r"Expected dimension 3 at axis 0 of the input shaped \[2,4\] but got dimension 2",
    ),
    (
        lambda tf: tf.einsum("ij,jk", tf.ones([2, 3])),
        "ValueError",
        r'Got 1 inputs for equation "ij,jk", expecting 2',
    ),
    (
        lambda tf: tf.einsum("ij->ji", tf.ones([2, 3]), bad=1),
        "TypeError",
        r"Invalid keyword arguments for einsum: bad\. Valid arguments: name, optimize, greedy\.",
    ),
    (
        lambda tf: tf.norm(tf.ones([3, 3], tf.bfloat16), ord=2, axis=[0, 1]),
        IAE,
        r"Value for attr 'T' of bfloat16 is not in the list of allowed values: double, float, half, complex64, complex128",
    ),
    (lambda tf: tf.linalg.lu(tf.ones([2, 3])), IAE, r"Input matrix must be square\. \[Op:Lu\]"),
    (
        lambda tf: tf.linalg.lu(tf.ones([3])),
        IAE,
        r"Input tensor must have rank >= 2, got 1 \[Op:Lu\]",
    ),
    (lambda tf: tf.linalg.lu(tf.ones([2, 2])), IAE, r"Input is not invertible\. \[Op:Lu\]"),
    (
        lambda tf: tf.linalg.lu(tf.ones([2, 2], tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, half, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.lu(tf.eye(2), output_idx_type=tf.int16),
        IAE,
        r"Value for attr 'output_idx_type' of int16 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [0, 1], tf.ones([2])),
        "ValueError",
        r"Input `rhs` must have at least 2 dimensions\.",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [0, 1], tf.ones([3, 1])),
        "ValueError",
        r"`lower_upper\.shape\[-1\]` must equal `rhs\.shape\[-1\]`\.",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [[0, 1]], tf.ones([2, 1])),
        "ValueError",
        r"`rank\(lower_upper\)` must equal `rank\(perm\) \+ 1`",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [0, 1], tf.ones([2, 1], tf.float64)),
        IAE,
        r"cannot compute MatrixTriangularSolve as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [0, 5], tf.ones([2, 1])),
        IAE,
        r"indices\[1\] = 5 is not in \[0, 2\)",
    ),
    (
        lambda tf: tf.linalg.lu_solve(
            tf.eye(2, batch_shape=[3]), tf.zeros([3, 2], tf.int32) + [0, 7], tf.ones([3, 2, 1])
        ),
        IAE,
        r"indices\[2,1\] = \[2, 7\] does not index into param shape \[3,2,1\], node name: GatherNd",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2, batch_shape=[3]), [[0, 1]] * 2, tf.ones([3, 2, 1])),
        IAE,
        r"Incompatible shapes: \[3\] vs\. \[2\]",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2, batch_shape=[2]), [[0, 1]], tf.ones([3, 2, 1])),
        IAE,
        r"In\[0\] and In\[1\] must have compatible batch dimensions: \[2,2,2\] vs\. \[3,2,1\]",
    ),
    (
        lambda tf: tf.linalg.lu_solve(tf.eye(2), [0.0, 1.0], tf.ones([2, 1])),
        IAE,
        r"Value for attr 'Tindices' of float is not in the list of allowed values: int16, int32, int64",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.ones([2]), [0, 1]),
        "ValueError",
        r"Input `lower_upper` must have at least 2 dimensions\.",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.ones([2, 3]), [0, 1]),
        "ValueError",
        r"`lower_upper` must be square\.",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.eye(2), [1, 5]),
        IAE,
        r"5 is not between 0 and 2 \[Op:InvertPermutation\]",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.eye(2), [1, 1]),
        IAE,
        r"1 is duplicated in the input\. \[Op:InvertPermutation\]",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.eye(2, batch_shape=[3]), [[0, 1]] * 2),
        IAE,
        r"Input to reshape is a tensor with 4 values, but the requested shape has 6",
    ),
    (
        lambda tf: tf.linalg.lu_reconstruct(tf.eye(2), [0.0, 1.0]),
        IAE,
        r"Value for attr 'T' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.linalg.lu_matrix_inverse(tf.ones([2, 2], tf.int32), [0, 1]),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, double, float, half, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.lu_matrix_inverse(tf.eye(2, batch_shape=[3]), [[0, 1]] * 2),
        IAE,
        r"Incompatible shapes: \[3\] vs\. \[2\]",
    ),
    (
        lambda tf: tf.linalg.tensor_diag(tf.constant(1.0)),
        IAE,
        r"Input must be at least rank 1, got 0 \[Op:Diag\]",
    ),
    (
        lambda tf: tf.linalg.tensor_diag(tf.ones([2], tf.bool)),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, int32, int64, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.tensor_diag_part(tf.ones([2, 3, 2])),
        IAE,
        r"The rank of the tensor should be +even and positive, got shape \[2,3,2\] \[Op:DiagPart\]",
    ),
    (
        lambda tf: tf.linalg.tensor_diag_part(tf.ones([2, 3, 3, 2])),
        IAE,
        r"Invalid shape \[2,3,3,2\]: dimensions 0 and 2 do not match\.",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(tf.ones([3, 4]), tf.ones([4])),
        IAE,
        r"All input tensors must have the same rank\. \[Op:TridiagonalMatMul\]",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(tf.ones([3, 4]), tf.ones([3, 2])),
        IAE,
        r"Invalid superdiagonal shape\. \[Op:TridiagonalMatMul\]",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(tf.ones([2, 3, 4]), tf.ones([3, 4, 2])),
        IAE,
        r"All input tensors must have the same outer dimensions\.",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(tf.ones([2, 4]), tf.ones([4, 2])),
        IAE,
        r"slice index 2 of dimension 0 out of bounds\. \[Op:StridedSlice\]",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(
            tf.ones([3, 4], tf.int32), tf.ones([4, 2], tf.int32)
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(tf.ones([3, 4]), tf.ones([4, 2], tf.float64)),
        IAE,
        r"cannot compute TridiagonalMatMul as input #3\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(
            tf.ones([3, 4]), tf.ones([4, 2]), diagonals_format="foo"
        ),
        "ValueError",
        r"Unrecognized diagonals_format: foo",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_matmul(
            tf.ones([4, 3]), tf.ones([4, 2]), diagonals_format="matrix"
        ),
        "ValueError",
        r"Expected last two dimensions of diagonals to be same, got 3 and 4",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([3, 4]), tf.ones([3, 2])),
        "ValueError",
        r"Expected number of left-hand sided and right-hand sides to be equal, got 4 and 3",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([2, 4]), tf.ones([4, 2])),
        "ValueError",
        r"Expected 3 diagonals got 2",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([4]), tf.ones([4, 2])),
        "ValueError",
        r"Expected diagonals to have rank at least 2, got 1",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([3, 4]), tf.ones([2, 2, 4, 2])),
        "ValueError",
        r"Expected the rank of rhs to be 1 or 2, got 4",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([2, 3, 4]), tf.ones([3, 4, 2])),
        "ValueError",
        r"Batch shapes \(2,\) and \(3,\) are incompatible",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(
            tf.ones([3, 4]), tf.ones([4, 2]), partial_pivoting=False, perturb_singular=True
        ),
        "ValueError",
        r"partial_pivoting must be True if perturb_singular is\.",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(
            [tf.ones([4]), tf.ones([4])], tf.ones([4, 2]), diagonals_format="sequence"
        ),
        "ValueError",
        r"Expected diagonals to be a sequence of length 3\.",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(
            [tf.ones([2]), tf.ones([4]), tf.ones([4])], tf.ones([4, 2]), diagonals_format="sequence"
        ),
        "ValueError",
        r"Expected superdiagonal to be have length 4 or 3, got 2\.",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(
            [tf.ones([3]), tf.ones([4]), tf.ones([2, 3])],
            tf.ones([4, 2]),
            diagonals_format="sequence",
        ),
        "ValueError",
        r"Tensors representing the three diagonals must have the same shape,except for the last dimension, got \(2, 3\), \(4,\), \(3,\)",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(
            tf.ones([3, 4], tf.int32), tf.ones([4, 2], tf.int32)
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.tridiagonal_solve(tf.ones([3, 4]), tf.ones([4, 2], tf.float64)),
        IAE,
        r"cannot compute TridiagonalSolve as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.ones([2, 3]), tf.ones([3])),
        IAE,
        r"In\[1\] ndims must be >= 2: 1 \[Op:BandedTriangularSolve\]",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.ones([2, 3]), tf.ones([2, 1])),
        IAE,
        r"In\[0\] mismatch In\[1\] shape: 3 vs\. 2: \[2,3\] \[2,1\] 1 0",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.ones([2, 2, 3]), tf.ones([3, 3, 1])),
        IAE,
        r"In\[0\] and In\[1\] must have compatible batch dimensions: \[2,2,3\] vs\. \[3,3,1\]",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.zeros([2, 3]), tf.ones([3, 1])),
        IAE,
        r"Input matrix is not invertible\. \[Op:BandedTriangularSolve\]",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.ones([0, 3]), tf.ones([3, 1])),
        IAE,
        r"In\[0\] must not be an empty tensor: Tensor<type: float shape: \[0,3\] values: >",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(tf.ones([2, 3]), tf.ones([3, 1], tf.float64)),
        IAE,
        r"cannot compute BandedTriangularSolve as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.linalg.banded_triangular_solve(
            tf.ones([2, 3], tf.int32), tf.ones([3, 1], tf.int32)
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, half, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.eig(tf.ones([2, 3])),
        IAE,
        r"Input matrix must be square\. \[Op:Eig\]",
    ),
    (
        lambda tf: tf.linalg.eigvals(tf.ones([3])),
        IAE,
        r"Input tensor 0 must have rank >= 2, got 1 \[Op:Eig\]",
    ),
    (
        lambda tf: tf.linalg.eig(tf.ones([2, 2], tf.int32)),
        "UnboundLocalError",
        r"cannot access local variable 'out_dtype' where it is not associated with a value",
    ),
    (
        lambda tf: tf.linalg.sqrtm(tf.ones([2, 3])),
        IAE,
        r"Input matrix must be square\. \[Op:MatrixSquareRoot\]",
    ),
    (
        lambda tf: tf.linalg.sqrtm(tf.ones([2])),
        IAE,
        r"Input tensor 0 must have rank >= 2, got 1 \[Op:MatrixSquareRoot\]",
    ),
    (
        lambda tf: tf.linalg.sqrtm(tf.ones([2, 2], tf.int32)),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: double, float, half, complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.matrix_rank(tf.ones([2, 2], tf.int32)),
        "TypeError",
        r"Input `a` must have `float`-like `dtype` \(saw int32\)\.",
    ),
    (
        lambda tf: tf.linalg.matrix_rank(tf.ones([2])),
        "ValueError",
        r"Input `a` must have at least 2 dimensions \(saw: 1\)\.",
    ),
    (
        lambda tf: tf.linalg.logm(tf.eye(2)),
        IAE,
        r"Value for attr 'T' of float is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.linalg.logm(tf.ones([2, 3], tf.complex64)),
        IAE,
        r"Input matrix must be square\. \[Op:MatrixLogarithm\]",
    ),
    (
        lambda tf: tf.linalg.logm(tf.ones([3], tf.complex64)),
        IAE,
        r"Input tensor 0 must have rank >= 2, got 1 \[Op:MatrixLogarithm\]",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(tf.ones([3]), tf.ones([2], tf.float64)),
        "ValueError",
        r"'alpha' and 'beta' must have the same type\.",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal([1, 2, 3], [1, 1]),
        "ValueError",
        r"data type <class 'numpy\.int32'> not inexact",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(tf.ones([3]), tf.ones([2]), select="x"),
        "ValueError",
        r"'select must have a value in \{'a', 'i', 'v'\}\.",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(tf.ones([4]), tf.ones([2])),
        IAE,
        r"Incompatible shapes: \[4\] vs\. \[3\]",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(
            tf.ones([3]), tf.ones([2]), select="i", select_range=[2, 1]
        ),
        IAE,
        r"Got empty index range in select_range\.\nCondition x <= y did not hold\.\nFirst 1 elements of x:\n\[2\]\nFirst 1 elements of y:\n\[1\]",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(
            tf.ones([3]), tf.ones([2]), select="v", select_range=[2.0, 1.0]
        ),
        IAE,
        r"Got empty interval in select_range\.\nCondition x < y did not hold\.",
    ),
    (
        lambda tf: tf.linalg.eigh_tridiagonal(
            tf.ones([3]), tf.ones([2]), eigvals_only=False, select="v", select_range=[8.0, 9.0]
        ),
        IAE,
        r"slice index 0 of dimension 0 out of bounds\.",
    ),
    # Gradients TF's rules refuse.
    (
        _grad_error((lambda tf, x: tf.linalg.qr(x, full_matrices=True)[0], (4, 3))),
        "NotImplementedError",
        r"QrGrad not implemented when nrows > ncols and full_matrices is true\. Received r\.shape=\(4, 3\) with nrows=4and ncols=3\.",
    ),
    (
        _grad_error((lambda tf, x: tf.linalg.svd(x, full_matrices=True)[1], (5, 3))),
        "NotImplementedError",
        r"svd gradient is not implemented for abs\(m - n\) > 1 when full_matrices is True\. Received: m=3 and n=5",
    ),
    (
        _grad_error((lambda tf, x: tf.linalg.lstsq(x, tf.ones([4, 1]), fast=False), (4, 3))),
        "ValueError",
        r"Gradient not defined for fast=False",
    ),
]


# TF's op definitions allow these dtypes, but its CPU build has no kernel for them:
# NotFoundError, before any shape check (so a non-square or rank-1 input too).
_M34, _V4 = np.ones([3, 4], np.float32), np.ones([4], np.float32)


def _h(tf, x):
    return tf.constant(x, tf.float16)


def _bf(tf, x):
    return tf.constant(x, tf.bfloat16)


# Bool and unsigned tensors: TF's norm refuses bool in Python; expm's scaling step takes
# abs(x) (no unsigned or bool Abs) before its own dtype check of signed integers.
ERRORS += [
    *(
        (
            lambda tf, f=f: f(tf)(tf.constant([[True, False]])),
            "TypeError",
            r"Expected numeric or variant tensor, got dtype tf\.bool\.",
        )
        for f in (lambda tf: tf.norm, lambda tf: tf.linalg.norm, lambda tf: tf.linalg.normalize)
    ),
    *(
        (
            lambda tf, dt=dt: tf.linalg.expm(tf.cast(tf.eye(2), dt)),
            IAE,
            rf"Value for attr 'T' of {dt} is not in the list of allowed values: bfloat16, half, "
            r"float, double, int8, int16, int32, int64",
        )
        for dt in ("uint8", "uint16", "uint32", "bool")
    ),
]

ERRORS += [
    # No unsigned matrix products on TF's CPU.
    no_kernel_case(
        lambda tf: tf.matmul(
            tf.ones([2, 3], tf.uint8), tf.ones([2, 3], tf.uint8), transpose_b=True
        ),
        "MatMul[T=DT_UINT8, grad_a=false, grad_b=false, transpose_a=false, transpose_b=true]",
    ),
    no_kernel_case(
        lambda tf: tf.ones([2, 3], tf.uint16) @ tf.ones([3, 2], tf.uint16),
        "MatMul[T=DT_UINT16, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.matvec(tf.ones([2, 3], tf.uint32), tf.ones([3], tf.uint32)),
        "MatMul[T=DT_UINT32, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false]",
    ),
    no_kernel_case(
        lambda tf: tf.matmul(
            tf.ones([1, 3, 2], tf.uint8), tf.ones([1, 3, 2], tf.uint8), adjoint_a=True
        ),
        "BatchMatMulV2[T=DT_UINT8, adj_x=true, adj_y=false, grad_x=false, grad_y=false]",
    ),
    no_kernel_case(lambda tf: tf.linalg.tensor_diag(_bf(tf, _V4)), "Diag[T=DT_BFLOAT16]"),
    no_kernel_case(lambda tf: tf.linalg.tensor_diag_part(_bf(tf, _M34)), "DiagPart[T=DT_BFLOAT16]"),
    no_kernel_case(
        lambda tf: tf.linalg.triangular_solve(_bf(tf, _M34), _bf(tf, _M34)),
        "MatrixTriangularSolve[T=DT_BFLOAT16, adjoint=false, lower=true]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.triangular_solve(
            _h(tf, _M34), _h(tf, _M34), lower=False, adjoint=True
        ),
        "MatrixTriangularSolve[T=DT_HALF, adjoint=true, lower=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.cholesky_solve(_bf(tf, _M34), _bf(tf, _M34)),
        "MatrixTriangularSolve[T=DT_BFLOAT16, adjoint=false, lower=true]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.cholesky_solve(_h(tf, _M34), _h(tf, _M34)),
        "MatrixTriangularSolve[T=DT_HALF, adjoint=false, lower=true]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.banded_triangular_solve(_h(tf, _M34), _h(tf, _M34), lower=False),
        "BandedTriangularSolve[T=DT_HALF, adjoint=false, lower=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.solve(_h(tf, _M34), _h(tf, _M34), adjoint=True),
        "MatrixSolve[T=DT_HALF, adjoint=true]",
    ),
    no_kernel_case(lambda tf: tf.linalg.sqrtm(_h(tf, _M34)), "MatrixSquareRoot[T=DT_HALF]"),
    no_kernel_case(lambda tf: tf.linalg.cholesky(_h(tf, _M34)), "Cholesky[T=DT_HALF]"),
    no_kernel_case(lambda tf: tf.linalg.logdet(_h(tf, _V4)), "Cholesky[T=DT_HALF]"),
    no_kernel_case(lambda tf: tf.linalg.det(_h(tf, _V4)), "MatrixDeterminant[T=DT_HALF]"),
    no_kernel_case(lambda tf: tf.linalg.slogdet(_h(tf, _M34)), "LogMatrixDeterminant[T=DT_HALF]"),
    no_kernel_case(
        lambda tf: tf.linalg.eigh(_h(tf, _M34)), "SelfAdjointEigV2[T=DT_HALF, compute_v=true]"
    ),
    no_kernel_case(
        lambda tf: tf.linalg.eigvalsh(_h(tf, _V4)),
        "SelfAdjointEigV2[T=DT_HALF, compute_v=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.expm(_h(tf, np.eye(3))), "MatrixSolve[T=DT_HALF, adjoint=false]"
    ),
    no_kernel_case(
        lambda tf: tf.linalg.lu(_h(tf, _V4), output_idx_type=tf.int64),
        "Lu[T=DT_HALF, output_idx_type=DT_INT64]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.svd(_h(tf, _M34)),
        "Svd[T=DT_HALF, compute_uv=true, full_matrices=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.svd(_h(tf, _V4), full_matrices=True, compute_uv=False),
        "Svd[T=DT_HALF, compute_uv=false, full_matrices=true]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.matrix_rank(_h(tf, _M34)),
        "Svd[T=DT_HALF, compute_uv=false, full_matrices=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.pinv(_h(tf, _M34)),
        "Svd[T=DT_HALF, compute_uv=true, full_matrices=false]",
    ),
    no_kernel_case(
        lambda tf: tf.linalg.lstsq(_h(tf, _M34), _h(tf, np.ones([5, 2]))), "Cholesky[T=DT_HALF]"
    ),
    no_kernel_case(
        lambda tf: tf.linalg.lstsq(_h(tf, _M34), _h(tf, _M34), fast=False),
        "MatrixSolveLs[T=DT_HALF, fast=false]",
    ),
    # bfloat16 is not in these op definitions' lists at all.
    (
        lambda tf: tf.linalg.lstsq(_bf(tf, _M34), _bf(tf, _M34)),
        IAE,
        r"(?s)Value for attr 'T' of bfloat16 is not in the list of allowed values: double, float, half, complex64, complex128.*\[Op:Cholesky\]",
    ),
    (
        lambda tf: tf.linalg.lstsq(_bf(tf, _M34), _bf(tf, _M34), fast=False),
        IAE,
        r"(?s)Value for attr 'T' of bfloat16 is not in the list of allowed values: double, float, half, complex64, complex128.*\[Op:MatrixSolveLs\]",
    ),
    (
        lambda tf: tf.linalg.matrix_rank(_bf(tf, _M34)),
        IAE,
        r"(?s)Value for attr 'T' of bfloat16 is not in the list of allowed values: double, float, half, complex64, complex128.*\[Op:Svd\]",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message, x64):
    check_error(fn, error, message)
