"""``tf.linalg`` ops on structured matrices: tensor diagonals and banded triangles.

``tensor_diag``, ``tensor_diag_part`` and ``banded_triangular_solve``, each one op named
after TF's kernel, with TF's checks; derivatives are JAX's, which are TF's rules here.
Tridiagonal matrices are in ``tridiagonal_ops``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ._helpers import TF_ALLOWED, node_attrs, require, tf_type_name, to_tensor
from ._linalg_helpers import _dims, _iae, _second_operand, _wide
from .solver_ops import _triangular_solve_fn

TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["Diag", "DiagPart"],
            "bfloat16, half, float, double, int32, int64, complex64, complex128",
        ),
        "BandedTriangularSolve": "double, float, half, complex64, complex128",
    }
)


# -- tensor_diag, tensor_diag_part --------------------------------------------------------------


def _tensor_diag_fn(d):
    return jnp.diag(d.reshape(-1)).reshape(d.shape + d.shape)


_tensor_diag_op = Op("Diag", _tensor_diag_fn)


def tensor_diag(diagonal, name=None):
    """The rank-2k tensor with ``diagonal`` (rank k) on its diagonal, zeros elsewhere
    (``tf.linalg.tensor_diag``): ``out[i, j, ..., i, j, ...] = diagonal[i, j, ...]``.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.tensor_diag([1, 2]).numpy()
        array([[1, 0],
               [0, 2]], dtype=int32)
    """
    x = to_tensor(diagonal)
    require(x, "fci", "Diag")
    if x._v.ndim < 1:
        raise _iae(f"Input must be at least rank 1, got {x._v.ndim}", "Diag")
    return apply(_tensor_diag_op, (x,))


def _tensor_diag_part_fn(x):
    half = x.shape[: x.ndim // 2]
    n = int(np.prod(half, dtype=np.int64))
    return jnp.diagonal(x.reshape(n, n)).reshape(half)


_tensor_diag_part_op = Op("DiagPart", _tensor_diag_part_fn)


def tensor_diag_part(input, name=None):  # noqa: A002 - TF's name
    """The diagonal of a rank-2k tensor, ``out[i, j, ...] = input[i, j, ..., i, j, ...]``
    (``tf.linalg.tensor_diag_part``).

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.tensor_diag_part([[1.0, 2.0], [3.0, 4.0]]).numpy()
        array([1., 4.], dtype=float32)
    """
    x = to_tensor(input)
    require(x, "fci", "DiagPart")
    shape = x._v.shape
    if len(shape) % 2:
        raise _iae(
            "The rank of the tensor should be                                          even "
            f"and positive, got shape [{_dims(shape)}]",
            "DiagPart",
        )
    k = len(shape) // 2
    for i in range(k):
        if shape[i] != shape[i + k]:
            raise _iae(
                f"Invalid shape [{_dims(shape)}]: dimensions {i} and {i + k} do not match.",
                "DiagPart",
            )
    return apply(_tensor_diag_part_op, (x,))


# -- banded_triangular_solve ------------------------------------------------------------------------


def _banded_dense(bands, lower):
    """The triangular matrix whose bands TF stores in ``bands`` ``[..., K, M]`` (LEFT_RIGHT
    alignment: row k of a lower one holds subdiagonal k, padded on the left; row K-1-k of an
    upper one superdiagonal k, padded on the right)."""
    k, m = bands.shape[-2:]
    i = np.arange(m)[:, None]
    j = np.arange(m)[None, :]
    offset = i - j if lower else j - i
    valid = (offset >= 0) & (offset < k)
    band = np.clip(offset if lower else k - 1 - offset, 0, k - 1)
    by_row = jnp.swapaxes(bands, -1, -2)  # [..., M, K]: row i's entries
    picked = jnp.take_along_axis(by_row, jnp.broadcast_to(band, bands.shape[:-2] + (m, m)), axis=-1)
    return jnp.where(valid, picked, jnp.zeros_like(picked))


def _banded_fn(bands, rhs, *, lower, adjoint):
    # The dense triangle, solved as ``triangular_solve`` solves it.
    return _triangular_solve_fn(_banded_dense(bands, lower), rhs, lower=lower, adjoint=adjoint)


_banded_op = Op("BandedTriangularSolve", _wide(_banded_fn))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """Solves triangular systems whose matrix has ``K`` bands, stored ``[..., K, M]``
    (``tf.linalg.banded_triangular_solve``); batch dimensions broadcast, as TF's.

    Example:
        >>> import tapejax as tf
        >>> bands = tf.constant([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])
        >>> tf.linalg.banded_triangular_solve(bands, tf.ones([3, 1])).numpy()
        array([[0.5 ],
               [0.  ],
               [0.25]], dtype=float32)

    Raises:
      InvalidArgumentError: TF's shape errors, or, in eager mode, a zero on the diagonal
        ("Input matrix is not invertible.").
    """
    op_name = "BandedTriangularSolve"
    a = to_tensor(bands)
    b = _second_operand(rhs, a, op_name)
    require(a, "fc", op_name, node_attrs(adjoint=bool(adjoint), lower=bool(lower)))
    sa, sb = a._v.shape, b._v.shape
    for i, s in enumerate((sa, sb)):
        if len(s) < 2:
            raise _iae(f"In[{i}] ndims must be >= 2: {len(s)}", op_name)
    if a._v.size == 0:
        raise _iae(
            f"In[0] must not be an empty tensor: Tensor<type: {tf_type_name(a._v.dtype)} shape: "
            f"[{_dims(sa)}] values: >",
            op_name,
        )
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise _iae(
            f"In[0] and In[1] must have compatible batch dimensions: [{_dims(sa)}] vs. "
            f"[{_dims(sb)}]",
            op_name,
        ) from None
    if sa[-1] != sb[-2]:
        raise _iae(
            f"In[0] mismatch In[1] shape: {sa[-1]} vs. {sb[-2]}: [{_dims(sa)}] [{_dims(sb)}] "
            f"{int(bool(lower))} {int(bool(adjoint))}",
            op_name,
        )
    diagonal = a._value[..., 0 if lower else -1, :]
    if not isinstance(diagonal, jax.core.Tracer) and bool(jnp.any(diagonal == 0)):
        raise _iae("Input matrix is not invertible.", op_name)
    static = (("adjoint", bool(adjoint)), ("lower", bool(lower)))
    return apply(_banded_op, (a, b), static)
