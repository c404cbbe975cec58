"""``tf.linalg``'s tridiagonal matrices: ``tridiagonal_matmul`` and ``tridiagonal_solve``
in TF's three formats ('compact', 'sequence', 'matrix'), with TF's checks (its Python
wrappers' first, then the kernels').

``tridiagonal_solve`` runs TF's own CPU algorithms (Gaussian elimination with TF's partial
pivoting, or the Thomas algorithm without; with ``perturb_singular``, TF's perturbed pivots
from ``tridiagonal_perturbed``), so values, and the NaN-filled result of a matrix that the
algorithm finds singular, are TF's on every backend. Its gradient is TF's
rule, which transposes the matrix without conjugating it: for complex inputs that is not
the conjugate of JAX's derivative. ``tridiagonal_matmul``'s derivative is JAX's (TF's rule).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ..dispatch import Op, apply
from ._helpers import TF_ALLOWED, dtype_mismatch, require, to_tensor
from ._linalg_helpers import _iae
from .tridiagonal_perturbed import perturbed_solve

TF_ALLOWED.update(
    dict.fromkeys(["TridiagonalMatMul", "TridiagonalSolve"], "double, float, complex64, complex128")
)


def _shape_text(shape) -> str:
    """A static shape as TF's TensorShape prints it: ``(2,)``, ``(2, 3)``, ``()``."""
    return str(tuple(shape))


# -- tridiagonal matrices: formats ----------------------------------------------------------------


def _from_layout(inputs, layout):
    """``(superdiag, maindiag, subdiag)``, each ``[..., M]``, from TF's three formats."""
    if layout == "sequence":
        return inputs
    (d,) = inputs
    if layout == "compact":
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    # "matrix": TF's matrix_diag_part(k=(-1, 1), align="LEFT_RIGHT").
    zero = jnp.zeros(d.shape[:-2] + (1,), d.dtype)
    main = jnp.diagonal(d, axis1=-2, axis2=-1)
    sup = jnp.concatenate([jnp.diagonal(d, 1, axis1=-2, axis2=-1), zero], axis=-1)
    sub = jnp.concatenate([zero, jnp.diagonal(d, -1, axis1=-2, axis2=-1)], axis=-1)
    return sup, main, sub


def _shifted(y, step):
    """``y`` moved ``step`` rows along axis -2 (up for 1, down for -1), zero-filled."""
    zero = jnp.zeros_like(y[..., :1, :])
    if step == 1:
        return jnp.concatenate([y[..., 1:, :], zero], axis=-2)
    return jnp.concatenate([zero, y[..., :-1, :]], axis=-2)


def _tridiagonal_product(sup, main, sub, y):
    """``A @ y`` for the tridiagonal ``A``; ``sup[..., -1]`` and ``sub[..., 0]`` unused."""
    return (
        sup[..., :, None] * _shifted(y, 1)
        + main[..., :, None] * y
        + sub[..., :, None] * _shifted(y, -1)
    )


def _diagonal_inputs(diagonals, diagonals_format: str) -> tuple:
    """The format's tensors, with TF's Python-level checks."""
    if diagonals_format == "sequence":
        return tuple(to_tensor(d) for d in diagonals)
    if diagonals_format not in ("compact", "matrix"):
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    d = to_tensor(diagonals)
    if diagonals_format == "matrix":
        m1, m2 = d._v.shape[-1], d._v.shape[-2]
        if m1 != m2:
            raise ValueError(
                f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}"
            )
    return (d,)


def _vector_shapes(inputs: tuple, layout: str) -> list:
    """The shapes of the three ``[..., M]`` diagonals ``_from_layout`` makes."""
    if layout == "sequence":
        return [t._v.shape for t in inputs]
    shape = inputs[0]._v.shape
    if layout == "matrix":
        return [shape[:-1]] * 3
    if len(shape) < 2:
        raise _iae(
            f"Index out of range using input dim {len(shape)}; input has only {len(shape)} dims",
            "StridedSlice",
        )
    if shape[-2] < 3:
        raise _iae(
            f"slice index {shape[-2]} of dimension {len(shape) - 2} out of bounds.", "StridedSlice"
        )
    return [shape[:-2] + shape[-1:]] * 3


# -- tridiagonal_matmul ---------------------------------------------------------------------------


def _tridiagonal_matmul_fn(*inputs, layout):
    *diags, rhs = inputs
    return _tridiagonal_product(*_from_layout(diags, layout), rhs)


_tridiagonal_matmul_op = Op("TridiagonalMatMul", _tridiagonal_matmul_fn)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """Multiplies tridiagonal matrices by ``rhs`` ``[..., M, N]`` (``tf.linalg.tridiagonal_matmul``).

    ``diagonals`` is ``[..., 3, M]`` (``'compact'``: superdiagonal, diagonal, subdiagonal),
    a list of three ``[..., M]`` tensors (``'sequence'``) or ``[..., M, M]`` (``'matrix'``);
    ``superdiag[..., -1]`` and ``subdiag[..., 0]`` are ignored.

    Example:
        >>> import tapejax as tf
        >>> d = tf.constant([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 1.0, 1.0]])
        >>> tf.linalg.tridiagonal_matmul(d, tf.ones([3, 1])).numpy()
        array([[3.],
               [4.],
               [3.]], dtype=float32)
    """
    op_name = "TridiagonalMatMul"
    inputs = _diagonal_inputs(diagonals, diagonals_format)
    b = to_tensor(rhs)
    shapes = _vector_shapes(inputs, diagonals_format)
    for i, t in enumerate(inputs):
        require(t, "fc", op_name)
        if t._v.dtype != inputs[0]._v.dtype:
            raise dtype_mismatch(op_name, i, inputs[0]._v.dtype, t._v.dtype)
    if b._v.dtype != inputs[0]._v.dtype:
        raise dtype_mismatch(op_name, 3, inputs[0]._v.dtype, b._v.dtype)
    rs = b._v.shape
    if any(len(s) + 1 != len(rs) for s in shapes):
        raise _iae("All input tensors must have the same rank.", op_name)
    if len(rs) < 2:
        raise _iae(f"Input must have rank >= 2, but got {len(rs)}", op_name)
    if any(s[:-1] != rs[:-2] for s in shapes):
        raise _iae("All input tensors must have the same outer dimensions.", op_name)
    for s, what in zip(shapes, ("superdiagonal", "main diagonal", "subdiagonal"), strict=True):
        if s[-1] != rs[-2]:
            raise _iae(f"Invalid {what} shape.", op_name)
    return apply(_tridiagonal_matmul_op, (*inputs, b), (("layout", diagonals_format),))


# -- tridiagonal_solve: TF's CPU algorithms ----------------------------------------------------------
#
# Both work on rows: ``diag`` etc. are ``[M, ...]`` and ``rhs`` ``[M, ..., K]`` (the solved axis
# first, for ``lax.scan``). Each is split into a factorization of the matrix and an application
# to right-hand sides that is linear in them, so that the gradient's solve reuses the factors.


def _rows(v):
    return jnp.moveaxis(v, -1, 0)


def _pivoting_factors(sup, diag, sub):
    """TF's Gaussian elimination with partial pivoting (LAPACK's ``gtsv``): per row, U's three
    diagonals, the elimination factor and whether rows were swapped; and whether a zero pivot
    stopped it (TF then fills the result with NaN)."""
    n = diag.shape[0]
    last = jnp.arange(n - 1) == n - 2

    def step(carry, row):
        u0, u1, failed = carry
        s, d, p, is_last = row
        p = jnp.where(is_last, jnp.zeros_like(p), p)
        swap = jnp.abs(u0) < jnp.abs(s)
        keep_factor = s / jnp.where(u0 == 0, jnp.ones_like(u0), u0)
        swap_factor = u0 / jnp.where(s == 0, jnp.ones_like(s), s)
        factor = jnp.where(swap, swap_factor, keep_factor)
        done = (
            jnp.where(swap, s, u0),
            jnp.where(swap, d, u1),
            jnp.where(swap, p, jnp.zeros_like(p)),
        )
        next_u0 = jnp.where(swap, u1 - factor * d, d - factor * u1)
        next_u1 = jnp.where(swap, -factor * p, p)
        failed = failed | (~swap & (u0 == 0))
        return (next_u0, next_u1, failed), (*done, factor, swap)

    init = (diag[0], sup[0] if n > 1 else jnp.zeros_like(diag[0]), jnp.zeros(diag.shape[1:], bool))
    (u0, _, failed), (d0, d1, d2, factor, swap) = jax.lax.scan(
        step, init, (sub[1:], diag[1:], sup[1:], last)
    )
    zero = jnp.zeros_like(u0)[None]
    u = (
        jnp.concatenate([d0, u0[None]]),
        jnp.concatenate([d1, zero]),
        jnp.concatenate([d2, zero]),
    )
    return (u, factor, swap), failed | (u0 == 0)


def _pivoting_apply(factors, rhs):
    (u0, u1, u2), factor, swap = factors

    def eliminate(pending, row):
        r, f, s = row
        f, s = f[..., None], s[..., None]
        out = jnp.where(s, r, pending)
        return jnp.where(s, pending - f * r, r - f * pending), out

    last, z = jax.lax.scan(eliminate, rhs[0], (rhs[1:], factor, swap))
    z = jnp.concatenate([z, last[None]])

    def back(carry, row):
        x1, x2 = carry
        zk, a0, a1, a2 = row
        x = (zk - a1[..., None] * x1 - a2[..., None] * x2) / a0[..., None]
        return (x, x1), x

    zeros = jnp.zeros_like(rhs[0])
    _, x = jax.lax.scan(back, (zeros, zeros), (z, u0, u1, u2), reverse=True)
    return x


def _thomas_factors(sup, diag, sub):
    """TF's Thomas algorithm (no pivoting): the pivots ``denom``, U's superdiagonal, and
    whether a zero pivot stopped it."""
    n = diag.shape[0]

    def step(u_prev, row):
        s, d, p, is_last = row
        denom = d - s * u_prev
        u = jnp.where(is_last, jnp.zeros_like(p), p / denom)
        return u, (denom, u)

    sub = sub.at[0].set(0)  # TF ignores subdiag[0]
    last = jnp.arange(n) == n - 1
    _, (denom, u) = jax.lax.scan(step, jnp.zeros_like(diag[0]), (sub, diag, sup, last))
    return (denom, u, sub), jnp.any(denom == 0, axis=0)


def _thomas_apply(factors, rhs):
    denom, u, sub = factors

    def forward(y_prev, row):
        r, s, dn = row
        y = (r - s[..., None] * y_prev) / dn[..., None]
        return y, y

    _, y = jax.lax.scan(forward, jnp.zeros_like(rhs[0]), (rhs, sub, denom))

    def back(x_next, row):
        yk, uk = row
        x = yk - uk[..., None] * x_next
        return x, x

    _, x = jax.lax.scan(back, jnp.zeros_like(rhs[0]), (y, u), reverse=True)
    return x


def _factor(diags, pivoting):
    sup, diag, sub = (_rows(diags[..., i, :]) for i in range(3))
    if pivoting:
        return _pivoting_factors(sup, diag, sub)
    return _thomas_factors(sup, diag, sub)


def _apply(factors, rhs, pivoting):
    """``A^-1 rhs`` from ``A``'s factors; ``rhs`` is ``[..., M, K]``."""
    rows = jnp.moveaxis(rhs, -2, 0)
    x = _pivoting_apply(factors, rows) if pivoting else _thomas_apply(factors, rows)
    return jnp.moveaxis(x, 0, -2)


def _conj_factors(factors):
    return jax.tree.map(lambda v: jnp.conj(v) if v.dtype.kind == "c" else v, factors)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _tridiagonal_solve(diags, rhs, pivoting):
    if diags.shape[-1] == 0:
        return rhs
    factors, failed = _factor(diags, pivoting)
    x = _apply(factors, rhs, pivoting)
    return jnp.where(failed[..., None, None], jnp.full_like(x, jnp.nan), x)


@_tridiagonal_solve.defjvp
def _tridiagonal_solve_jvp(pivoting, primals, tangents):
    # TF's _TridiagonalSolveGrad solves with the transposed (not conjugated) matrix:
    # grad_rhs = A^-T g, grad_diags = -three diagonals of grad_rhs x^T. In JAX's convention
    # (lowering conjugates around the program) that VJP is the transpose of this JVP, which
    # solves with conj(A); for real inputs it is the ordinary derivative.
    diags, rhs = primals
    d_diags, d_rhs = tangents
    if diags.shape[-1] == 0:
        return rhs, d_rhs
    x = _tridiagonal_solve(diags, rhs, pivoting)
    factors, failed = _factor(diags, pivoting)
    factors = _conj_factors(factors)
    dsup, dmain, dsub = (d_diags[..., i, :] for i in range(3))
    t = d_rhs - _tridiagonal_product(dsup, dmain, dsub, jnp.conj(x))
    dx = _apply(factors, t, pivoting)
    # NaN where the solve failed, as TF's: a known factor, so the tangent stays linear.
    nan_where_failed = jnp.where(failed, jnp.nan, 1.0).astype(dx.real.dtype)
    return x, dx * nan_where_failed[..., None, None]


def _tridiagonal_solve_fn(*inputs, layout, pivoting, perturb, vector, transpose, conjugate):
    *diags, rhs = inputs
    sup, main, sub = _from_layout(diags, layout)
    if layout == "sequence":  # TF pads n - 1 long off-diagonals
        m = main.shape[-1]
        if sup.shape[-1] == m - 1:
            sup = jnp.concatenate([sup, jnp.zeros_like(sup[..., :1])], axis=-1)
        if sub.shape[-1] == m - 1:
            sub = jnp.concatenate([jnp.zeros_like(sub[..., :1]), sub], axis=-1)
    compact = jnp.stack([sup, main, sub], axis=-2)
    if conjugate:
        rhs = jnp.conj(rhs)
    if transpose and not vector:
        rhs = jnp.swapaxes(rhs, -1, -2)
    if vector:
        rhs = rhs[..., None]
    if perturb:
        x = perturbed_solve(compact, rhs)
    else:
        x = _tridiagonal_solve(compact, rhs, pivoting)
    return x[..., 0] if vector else x


_tridiagonal_solve_op = Op("TridiagonalSolve", _tridiagonal_solve_fn)


def tridiagonal_solve(
    diagonals,
    rhs,
    diagonals_format="compact",
    transpose_rhs=False,
    conjugate_rhs=False,
    name=None,
    partial_pivoting=True,
    perturb_singular=False,
):
    """Solves tridiagonal systems ``A X = rhs`` (``tf.linalg.tridiagonal_solve``).

    ``diagonals`` in the formats of ``tridiagonal_matmul``; ``rhs`` is ``[..., M]`` or
    ``[..., M, K]`` (``[..., K, M]`` with ``transpose_rhs``). TF's CPU algorithms, so a matrix
    they find singular (a zero pivot) gives an all-NaN result, as TF's; with
    ``perturb_singular`` tiny pivots are perturbed instead (TF's rule, after LAPACK's
    ``xLAGTS``), which inverse iteration needs. That path has no forward-mode derivative.

    Example:
        >>> import tapejax as tf
        >>> d = tf.constant([[1.0, 1.0, 0.0], [4.0, 4.0, 4.0], [0.0, 1.0, 1.0]])
        >>> tf.linalg.tridiagonal_solve(d, tf.constant([5.0, 6.0, 5.0])).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
    inputs = _diagonal_inputs(diagonals, diagonals_format)
    b = to_tensor(rhs)
    diag_shape = _compact_shape(inputs, diagonals_format)
    dr, rr = len(diag_shape), b._v.ndim
    if dr < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {dr}")
    if rr not in (dr, dr - 1):
        raise ValueError(f"Expected the rank of rhs to be {dr - 1} or {dr}, got {rr}")
    if diag_shape[:-2] != b._v.shape[: dr - 2]:
        raise ValueError(
            f"Batch shapes {_shape_text(diag_shape[:-2])} and "
            f"{_shape_text(b._v.shape[: dr - 2])} are incompatible"
        )
    if diag_shape[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {diag_shape[-2]}")
    vector = rr == dr - 1
    rows = b._v.shape[-1] if vector or transpose_rhs else b._v.shape[-2]
    if diag_shape[-1] != rows:
        raise ValueError(
            "Expected number of left-hand sided and right-hand sides to be equal, got "
            f"{diag_shape[-1]} and {rows}"
        )
    op_name = "TridiagonalSolve"
    for t in inputs:
        require(t, "fc", op_name)
        if t._v.dtype != inputs[0]._v.dtype:
            raise dtype_mismatch("Pack", 1, inputs[0]._v.dtype, t._v.dtype)
    if b._v.dtype != inputs[0]._v.dtype:
        raise dtype_mismatch(op_name, 1, inputs[0]._v.dtype, b._v.dtype)
    static = (
        ("conjugate", bool(conjugate_rhs)),
        ("layout", diagonals_format),
        ("perturb", bool(perturb_singular)),
        ("pivoting", bool(partial_pivoting)),
        ("transpose", bool(transpose_rhs) and not vector),
        ("vector", vector),
    )
    return apply(_tridiagonal_solve_op, (*inputs, b), static)


def _compact_shape(inputs: tuple, layout: str) -> tuple:
    """The static shape of TF's compact ``[..., 3, M]`` form, with the format's checks."""
    if layout == "compact":
        return inputs[0]._v.shape
    if layout == "matrix":
        shape = inputs[0]._v.shape
        return shape[:-2] + (3, shape[-1])
    sup, main, sub = (t._v.shape for t in inputs)
    if sub[:-1] != main[:-1] or sup[:-1] != main[:-1]:
        raise ValueError(
            "Tensors representing the three diagonals must have the same shape,except for "
            f"the last dimension, got {_shape_text(sub)}, {_shape_text(main)}, {_shape_text(sup)}"
        )
    m = main[-1]
    for shape, what in ((sub, "subdiagonal"), (sup, "superdiagonal")):
        if shape[-1] not in (m, m - 1):
            raise ValueError(f"Expected {what} to be have length {m} or {m - 1}, got {shape[-1]}.")
    return main[:-1] + (3, m)
