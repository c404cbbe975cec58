"""``tf.linalg``'s LU factorization and the ops built on it, with TF's checks and values.

``lu`` is TF's ``Lu`` kernel: ``(lu, p)`` with ``lower_upper = L + U - I`` and ``x[p] = L @ U``
(JAX's LAPACK ``getrf`` pivots as TF's Eigen kernel does, on the largest magnitude). TF
registers no gradient for it. ``lu_solve``, ``lu_reconstruct`` and ``lu_matrix_inverse`` are
TF's Python composites, one op each here (``LuSolve``, ``LuReconstruct``,
``LuMatrixInverse``), differentiable in ``lower_upper`` and ``rhs`` as TF's composites are.

Checks that need values (a singular input to ``lu``, a permutation out of range) run in
eager mode only, as ``solver_ops``' invertibility checks do; they must never run on traced
values.
"""

from __future__ import annotations

from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, node_attrs, require, tf_type_name, to_tensor
from ._linalg_helpers import _LAPACK, _diag_of, _dims, _iae, _matrix_input, _second_operand, _wide
from .reduction_ops import _narrowed

TF_ALLOWED["Lu"] = _LAPACK

Lu = namedtuple("Lu", ["lu", "p"])


def _concrete(t: Tensor):
    """``t``'s value as NumPy, or None inside a trace (where value checks cannot run)."""
    v = t._value
    return None if isinstance(v, jax.core.Tracer) else np.asarray(v)


# -- lu -----------------------------------------------------------------------------------------


def _lu_fn(a, *, index_dtype):
    lu, _, perm = jax.lax.linalg.lu(a)
    return lu, perm.astype(index_dtype)


_lu_op = Op("Lu", _wide(_lu_fn), differentiable=False, multiple_outputs=True)


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """LU factorization with partial pivoting, ``(lu, p)`` (``tf.linalg.lu``): ``lu`` holds
    ``L + U - I`` and ``input[..., p, :] == L @ U``.

    ``output_idx_type`` int64 is int32 unless JAX's x64 mode is on. TF registers no gradient
    for ``Lu``: the tape gives None through it.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.lu([[1.0, 2.0], [3.0, 4.0]]).p.numpy()
        array([1, 0], dtype=int32)

    Raises:
      InvalidArgumentError: not a (batch of) square float/complex matrices, or, in eager
        mode, a singular one ("Input is not invertible.", as TF).
    """
    x = to_tensor(input)
    out_dt = dtypes.as_dtype(output_idx_type)
    out_name = tf_type_name(out_dt)
    # TF's order: the op def's T, then its output_idx_type, then the kernel, then shapes.
    if out_name in ("int32", "int64") or tf_type_name(x._v.dtype) not in TF_ALLOWED["Lu"]:
        require(x, "fc", "Lu", node_attrs(output_idx_type=f"DT_{out_name.upper()}"))
    if out_name not in ("int32", "int64"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'output_idx_type' of {out_name} is not in the list of "
            "allowed values: int32, int64 [Op:Lu]",
        )
    if x._v.ndim < 2:
        raise _iae(f"Input tensor must have rank >= 2, got {x._v.ndim}", "Lu")
    x = _matrix_input(x, "Lu")
    factors, perm = apply(_lu_op, (x,), (("index_dtype", _narrowed(out_dt)),))
    pivots = _concrete(factors)
    # TF's kernel refuses a zero (or NaN) pivot; LAPACK carries on with inf/NaN.
    if pivots is not None and pivots.size and not np.all(np.abs(_diag_of(pivots)) > 0):
        raise _iae("Input is not invertible.", "Lu")
    return Lu(factors, perm)


# -- checks of TF's composites ------------------------------------------------------------------


def _lu_operands(lower_upper, perm):
    """TF's conversions (float32 and int32 hints) and its static checks of the factors."""
    factors = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32)
    p = convert_to_tensor(perm, dtype_hint=dtypes.int32)
    shape = factors._v.shape
    if len(shape) < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if len(shape) != p._v.ndim + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if shape[-2] != shape[-1]:
        raise ValueError("`lower_upper` must be square.")
    return factors, p


def _check_perm(p: Tensor, n: int, op_name: str, batch=(), cols: int = 0) -> None:
    """TF's InvalidArgumentError for a permutation entry out of range (and, where TF inverts
    it, a repeated one), from the op TF would fail in. Eager mode only."""
    values = _concrete(p)
    if values is None:
        return
    rows = np.broadcast_to(values, tuple(batch) + values.shape[-1:]).reshape(-1, n)
    bad = np.argwhere((rows < 0) | (rows >= n))
    if bad.size:
        # TF's GatherNd kernel reports the last bad index, the others the first.
        b, i = (int(k) for k in bad[-1 if op_name == "GatherNd" else 0])
        v = int(rows[b, i])
        if op_name == "InvertPermutation":
            raise _iae(f"{v} is not between 0 and {n}", op_name)
        if op_name == "GatherV2":
            raise _iae(f"indices[{i}] = {v} is not in [0, {n})", op_name)
        raise _iae(
            f"indices[{b},{i}] = [{b}, {v}] does not index into param shape "
            f"[{len(rows)},{n},{cols}], node name: GatherNd",
            op_name,
        )
    if op_name == "InvertPermutation":
        for row in rows:
            seen = np.zeros(n, bool)
            for v in row:
                if seen[v]:
                    raise _iae(f"{int(v)} is duplicated in the input.", op_name)
                seen[v] = True


def _require_int_perm(p: Tensor, op_name: str, attr: str, allowed: str) -> None:
    if p._v.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {tf_type_name(p._v.dtype)} is not in the list of "
            f"allowed values: {allowed} [Op:{op_name}]",
        )


def _unit_lower(lu):
    n = lu.shape[-1]
    return jnp.tril(lu, -1) + jnp.eye(n, dtype=lu.dtype)


# -- lu_solve, lu_matrix_inverse ----------------------------------------------------------------


def _lu_solve_fn(lu, perm, rhs):
    batch = jnp.broadcast_shapes(lu.shape[:-2], perm.shape[:-1], rhs.shape[:-2])
    rhs = jnp.broadcast_to(rhs, batch + rhs.shape[-2:])
    perm = jnp.broadcast_to(perm, batch + perm.shape[-1:])
    permuted = jnp.take_along_axis(rhs, perm[..., None].astype(jnp.int32), axis=-2)
    lu = jnp.broadcast_to(lu, batch + lu.shape[-2:])
    y = jax.lax.linalg.triangular_solve(_unit_lower(lu), permuted, left_side=True, lower=True)
    return jax.lax.linalg.triangular_solve(lu, y, left_side=True, lower=False)


_lu_solve_op = Op("LuSolve", _wide(_lu_solve_fn))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves ``A X = rhs`` given ``A``'s factors from ``lu`` (``tf.linalg.lu_solve``).

    Batch dimensions of the factors, ``perm`` and ``rhs`` broadcast, as TF's.

    Example:
        >>> import tapejax as tf
        >>> a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> tf.linalg.lu_solve(*tf.linalg.lu(a), rhs=[[5.0], [11.0]]).numpy()
        array([[1.],
               [2.]], dtype=float32)
    """
    factors, p = _lu_operands(lower_upper, perm)
    b = _second_operand(rhs, factors, "MatrixTriangularSolve")
    if b._v.ndim < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")
    if factors._v.shape[-1] != b._v.shape[-2]:
        raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
    require(factors, "fc", "MatrixTriangularSolve")
    _require_int_perm(p, "GatherV2", "Tindices", "int16, int32, int64")
    _check_batches(factors._v.shape, p._v.shape, b._v.shape)
    _check_gather_indices(factors._v.shape, p, b._v.shape)
    return apply(_lu_solve_op, (factors, p, b))


def _check_batches(factors: tuple, perm: tuple, rhs: tuple) -> None:
    """TF's errors where the batch dimensions of the operands do not broadcast."""
    try:
        batch = np.broadcast_shapes(perm[:-1], rhs[:-2])
    except ValueError:
        raise _iae(
            f"Incompatible shapes: [{_dims(rhs[:-2])}] vs. [{_dims(perm[:-1])}]", "BroadcastArgs"
        ) from None
    try:
        np.broadcast_shapes(factors[:-2], batch)
    except ValueError:
        raise _iae(
            f"In[0] and In[1] must have compatible batch dimensions: "
            f"[{_dims(factors)}] vs. [{_dims(batch + rhs[-2:])}]",
            "MatrixTriangularSolve",
        ) from None


def _check_gather_indices(factors: tuple, p: Tensor, rhs: tuple) -> None:
    """TF's composite gathers rhs rows by ``perm``: GatherV2 unbatched, else GatherNd."""
    if len(rhs) == 2 and p._v.ndim == 1:
        _check_perm(p, factors[-1], "GatherV2")
    else:
        batch = np.broadcast_shapes(p._v.shape[:-1], rhs[:-2])
        _check_perm(p, factors[-1], "GatherNd", batch, rhs[-1])


def _lu_matrix_inverse_fn(lu, perm):
    eye = jnp.broadcast_to(jnp.eye(lu.shape[-1], dtype=lu.dtype), lu.shape)
    return _lu_solve_fn(lu, perm, eye)


_lu_matrix_inverse_op = Op("LuMatrixInverse", _wide(_lu_matrix_inverse_fn))


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """Inverse of ``A`` given its factors from ``lu`` (``tf.linalg.lu_matrix_inverse``).

    Example:
        >>> import tapejax as tf
        >>> a = tf.constant([[2.0, 0.0], [0.0, 4.0]])
        >>> tf.linalg.lu_matrix_inverse(*tf.linalg.lu(a)).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    factors, p = _lu_operands(lower_upper, perm)
    require(factors, "fc", "MatrixTriangularSolve")
    _require_int_perm(p, "GatherV2", "Tindices", "int16, int32, int64")
    _check_batches(factors._v.shape, p._v.shape, factors._v.shape)
    _check_gather_indices(factors._v.shape, p, factors._v.shape)
    return apply(_lu_matrix_inverse_op, (factors, p))


# -- lu_reconstruct -----------------------------------------------------------------------------


def _lu_reconstruct_fn(lu, perm):
    product = jnp.matmul(_unit_lower(lu), jnp.triu(lu))
    inverse = jnp.argsort(perm, axis=-1).astype(jnp.int32)
    return jnp.take_along_axis(product, inverse[..., None], axis=-2)


_lu_reconstruct_op = Op("LuReconstruct", _wide(_lu_reconstruct_fn))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix ``lu`` factored, ``P L U``, from its factors (``tf.linalg.lu_reconstruct``).

    Example:
        >>> import tapejax as tf
        >>> a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> tf.linalg.lu_reconstruct(*tf.linalg.lu(a)).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    factors, p = _lu_operands(lower_upper, perm)
    require(factors, "fciu", "BatchMatMulV2" if factors._v.ndim > 2 else "MatMul")
    _require_int_perm(p, "InvertPermutation", "T", "int32, int64")
    if p._v.shape[:-1] != factors._v.shape[:-2]:
        raise _iae(
            f"Input to reshape is a tensor with {int(np.prod(p._v.shape))} values, but the "
            f"requested shape has {int(np.prod(factors._v.shape[:-1]))}",
            "Reshape",
        )
    _check_perm(p, factors._v.shape[-1], "InvertPermutation", p._v.shape[:-1])
    return apply(_lu_reconstruct_op, (factors, p))
