"""``tf.sparse``'s arithmetic: ``add`` (sparse + sparse, sparse + dense),
``sparse_dense_matmul``, ``maximum``, ``minimum``, and the ``*`` and ``/`` of a
SparseTensor and a dense tensor.

Each is TF's kernel: its checks and texts, and its merge of two index lists (which
assumes sorted inputs, as TF's does). Dense results, and those that keep the input's
indices, trace; those whose indices come from merging two lists (``add`` of two
SparseTensors, ``maximum``, ``minimum``) need concrete indices. Gradients are TF's: to the
values through ``add``, ``sparse_dense_matmul`` and ``*``/``/``; None through ``maximum``
and ``minimum``, whose gradient function in TF fails.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..sparse_tensor import (
    SparseTensor,
    SparseTensorValue,
    host_value,
    named_conversion,
    static_value,
)
from ..tensor import Tensor
from ._helpers import dtype_mismatch, require, to_tensor
from ._sparse_common import (
    host_indices,
    iae,
    known_indices,
    new_sparse,
    positions_tensor,
    shape_text,
    sparse_arg,
    static_dims,
    values_text,
)

__all__ = [
    "add",
    "sparse_dense_matmul",
    "sampled_addmm",
    "maximum",
    "minimum",
    "sparse_dense_mul",
    "dense_sparse_mul",
    "sparse_dense_truediv",
]


def _require_same_dtype(a: Tensor, b: Tensor, op_name: str, index: int) -> None:
    if a._v.dtype != b._v.dtype:
        raise dtype_mismatch(op_name, index, a._v.dtype, b._v.dtype)


def _check_same_shape(a_dims, b_dims, op_name: str, rank_text: str) -> None:
    if len(a_dims) != len(b_dims):
        raise iae(
            rank_text.format(
                a=values_text(a_dims), b=values_text(b_dims), ra=len(a_dims), rb=len(b_dims)
            ),
            op_name,
        )
    for d, (x, y) in enumerate(zip(a_dims, b_dims)):
        if x != y:
            raise iae(f"Operands' shapes do not match: got {x} and {y} for dimension {d}", op_name)


def _merge(a: np.ndarray, b: np.ndarray):
    """TF's merge of two row-major index lists (``SparseAdd``, ``UnionSparseIndicesAndValues``):
    ``(indices, a_pos, b_pos)`` of the result, positions -1 where a side has no entry."""
    out, a_pos, b_pos = [], [], []
    i = j = 0
    na, nb = a.shape[0], b.shape[0]
    while i < na and j < nb:
        ra, rb = tuple(a[i]), tuple(b[j])
        if ra < rb:
            out.append(a[i]), a_pos.append(i), b_pos.append(-1)
            i += 1
        elif ra == rb:
            out.append(a[i]), a_pos.append(i), b_pos.append(j)
            i += 1
            j += 1
        else:
            out.append(b[j]), a_pos.append(-1), b_pos.append(j)
            j += 1
    for k in range(i, na):
        out.append(a[k]), a_pos.append(k), b_pos.append(-1)
    for k in range(j, nb):
        out.append(b[k]), a_pos.append(-1), b_pos.append(k)
    rank = a.shape[1]
    indices = np.asarray(out, np.int64).reshape(-1, rank)
    return indices, np.asarray(a_pos, np.int64), np.asarray(b_pos, np.int64)


# -- add ------------------------------------------------------------------------------------------


def _sparse_add_fn(a_values, b_values, a_slot, b_slot, *, size):
    out = jnp.zeros((size,), a_values.dtype)
    out = out.at[a_slot].add(a_values, mode="drop")
    return out.at[b_slot].add(b_values, mode="drop")


_sparse_add_op = Op("SparseAdd", _sparse_add_fn)


def _dense_add_fn(indices, values, dense):
    where = tuple(indices[:, d] for d in range(dense.ndim))
    if not dense.ndim:
        return dense + jnp.sum(values, dtype=values.dtype)
    return dense.at[where].add(values, mode="drop")


_dense_add_op = Op("SparseTensorDenseAdd", _dense_add_fn)


def add(a, b, threshold=0):
    """``a + b`` where at least one is a SparseTensor (``tf.sparse.add``).

    Two SparseTensors give a SparseTensor (TF's ``SparseAdd``: a sum whose magnitude is
    below ``threshold`` is dropped; indices must be sorted); a SparseTensor and a dense
    tensor give a dense tensor (``SparseTensorDenseAdd``).

    Example:
        >>> import tapejax as tf
        >>> a = tf.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
        >>> b = tf.sparse.SparseTensor([[0, 0], [0, 1]], [-1.0, 3.0], [2, 2])
        >>> s = tf.sparse.add(a, b)
        >>> s.indices.numpy().tolist(), s.values.numpy().tolist()
        ([[0, 0], [0, 1], [1, 1]], [0.0, 3.0, 2.0])

    .. warning::
       With both values traced (inside ``tapejax.function``) only ``threshold=0`` works,
       and a NaN sum is kept where TF drops it.
    """
    sparse_types = (SparseTensor, SparseTensorValue)
    a_sparse, b_sparse = isinstance(a, sparse_types), isinstance(b, sparse_types)
    if not (a_sparse or b_sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        return _sparse_sparse_add(sparse_arg(a), sparse_arg(b), threshold)
    sp, dense = (a, b) if a_sparse else (b, a)
    return _sparse_dense_add(sparse_arg(sp), dense)


def _sparse_dense_add(sp: SparseTensor, dense) -> Tensor:
    op_name = "SparseTensorDenseAdd"
    values = sp.values
    d = (
        to_tensor(dense)
        if isinstance(dense, Tensor)
        else convert_to_tensor(dense, dtype_hint=values.dtype)
    )
    _require_same_dtype(values, d, op_name, 3)
    dims = static_dims(sp, "tapejax.sparse.add")
    dshape = d._v.shape
    if len(dims) != len(dshape):
        raise iae(
            f"Two operands have different ranks; received: {len(dims)} and {len(dshape)}", op_name
        )
    for i, (x, y) in enumerate(zip(dims, dshape)):
        if x != y:
            raise iae(
                f"Dimension {i} does not equal (no broadcasting is supported): sparse side {x} "
                f"vs dense side {y}",
                op_name,
            )
    host = known_indices(sp)
    if host is not None:
        for i, row in enumerate(host):
            for dim, v in enumerate(row):
                if not 0 <= v < dims[dim]:
                    raise iae(
                        f"Sparse tensor has an invalid index on dimension {dim}: a_indices({i},"
                        f"{dim}) = {v}, dense tensor shape: {values_text(dims)}",
                        op_name,
                    )
    return apply(_dense_add_op, (sp.indices, values, d))


def _sparse_sparse_add(a: SparseTensor, b: SparseTensor, threshold) -> SparseTensor:
    op_name = "SparseAdd"
    _require_same_dtype(a.values, b.values, op_name, 4)
    thresh = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype)
    ra, rb = a.indices._v.shape[1], b.indices._v.shape[1]
    if ra != rb:
        raise iae(f"Input indices must have the same dimension, got {ra} and {rb}", op_name)
    a_dims = static_dims(a, "tapejax.sparse.add")
    b_dims = static_dims(b, "tapejax.sparse.add")
    _check_same_shape(
        a_dims, b_dims, op_name, "Operands do not have the same ranks; got shapes: {a} and {b}"
    )
    indices, a_pos, b_pos = _merge(
        host_indices(a, "tapejax.sparse.add"), host_indices(b, "tapejax.sparse.add")
    )
    keep = _kept_sums(a.values, b.values, a_pos, b_pos, host_value(threshold), thresh)
    slot = np.cumsum(keep) - 1
    size = int(keep.sum())
    a_slot = np.full(a.values._v.shape[0], size, np.int64)
    b_slot = np.full(b.values._v.shape[0], size, np.int64)
    from_a, from_b = (a_pos >= 0) & keep, (b_pos >= 0) & keep
    a_slot[a_pos[from_a]] = slot[from_a]
    b_slot[b_pos[from_b]] = slot[from_b]
    values = apply(
        _sparse_add_op,
        (a.values, b.values, positions_tensor(a_slot), positions_tensor(b_slot)),
        (("size", size),),
    )
    return new_sparse(indices[keep], values, a_dims)


def _kept_sums(a_values, b_values, a_pos, b_pos, t, thresh: Tensor) -> np.ndarray:
    """TF's rule: a sum of two entries is kept when ``threshold <= |sum|``; entries of one
    side are always kept."""
    both = (a_pos >= 0) & (b_pos >= 0)
    keep = np.ones(a_pos.shape[0], bool)
    if not both.any():
        return keep
    a_host, b_host = static_value(a_values), static_value(b_values)
    t = None if t is None else np.asarray(t, thresh._v.dtype)
    if a_host is None or b_host is None or t is None:
        if t is not None and float(t) == 0:
            return keep
        raise NotImplementedError(
            "tapejax.sparse.add of traced values needs threshold=0: which sums are kept "
            "depends on the values."
        )
    sums = a_host[a_pos[both]] + b_host[b_pos[both]]
    keep[both] = t <= np.abs(sums)
    return keep


# -- sparse_dense_matmul --------------------------------------------------------------------------


def _spmm_fn(indices, values, b, *, shape, adjoint_a, adjoint_b):
    if adjoint_b:
        b = jnp.conj(b).T
    rows, cols = indices[:, 0], indices[:, 1]
    out_rows = shape[0]
    if adjoint_a:
        rows, cols, values, out_rows = cols, rows, jnp.conj(values), shape[1]
    out = jnp.zeros((out_rows, b.shape[1]), values.dtype)
    return out.at[rows].add(values[:, None] * b[cols], mode="drop")


_spmm_op = Op("SparseTensorDenseMatMul", _spmm_fn)


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a SparseTensor and a dense matrix (``tf.sparse.sparse_dense_matmul``),
    with optional adjoints; either operand may be the sparse one.

    Example:
        >>> import tapejax as tf
        >>> a = tf.sparse.SparseTensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> tf.sparse.sparse_dense_matmul(a, tf.ones([2, 1])).numpy()
        array([[2.],
               [3.]], dtype=float32)
    """
    sparse_types = (SparseTensor, SparseTensorValue)
    if isinstance(b, sparse_types):
        from .array_ops import transpose

        if adjoint_a != adjoint_b:
            return transpose(sparse_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return transpose(sparse_dense_matmul(b, sp_a, not adjoint_a, not adjoint_b))
    sp = sparse_arg(sp_a)
    op_name = "SparseTensorDenseMatMul"
    d = to_tensor(b)
    values = sp.values
    require(values, "fci", op_name)
    _require_same_dtype(values, d, op_name, 3)
    dims = static_dims(sp, "tapejax.sparse.sparse_dense_matmul")
    if len(dims) != 2:
        raise iae("Tensor 'a_shape' must have 2 elements", op_name)
    if d._v.ndim != 2:
        raise iae("Tensor 'b' is not a matrix", op_name)
    outer = dims[1] if adjoint_a else dims[0]
    inner_left = dims[0] if adjoint_a else dims[1]
    inner_right = d._v.shape[1] if adjoint_b else d._v.shape[0]
    if inner_left != inner_right:
        raise iae(
            f"Cannot multiply A and B because inner dimension does not match: {inner_left} vs. "
            f"{inner_right}.  Did you forget a transpose?  Dimensions of A: [{dims[0]}, "
            f"{dims[1]}).  Dimensions of B: {shape_text(d._v.shape)}",
            op_name,
        )
    host = known_indices(sp)
    if host is not None:
        _check_spmm_bounds(host, adjoint_a, inner_left, outer)
    static = (("shape", dims), ("adjoint_a", bool(adjoint_a)), ("adjoint_b", bool(adjoint_b)))
    return apply(_spmm_op, (sp.indices, values, d), static)


def _check_spmm_bounds(indices: np.ndarray, adjoint_a: bool, inner: int, outer: int) -> None:
    m_col, k_col = (1, 0) if adjoint_a else (0, 1)
    for i, row in enumerate(indices):
        k, m = int(row[k_col]), int(row[m_col])
        if not 0 <= k < inner:
            raise iae(
                f"k ({k}) from index[{i},{k_col}] out of bounds (>={inner})",
                "SparseTensorDenseMatMul",
            )
        if not 0 <= m < outer:
            raise iae(
                f"m ({m}) from index[{i},{m_col}] out of bounds (>={outer})",
                "SparseTensorDenseMatMul",
            )


# -- sampled_addmm -----------------------------------------------------------------------------------


def _sampled_addmm_fn(indices, values, mat1, mat2, *, alpha, beta):
    rows = jnp.take_along_axis(mat1, indices[..., 0][..., None], axis=-2)
    cols = jnp.take_along_axis(jnp.swapaxes(mat2, -1, -2), indices[..., 1][..., None], axis=-2)
    dot = jnp.sum(rows * cols, axis=-1)
    return dot * jnp.asarray(alpha, dot.dtype) + values * jnp.asarray(beta, dot.dtype)


_sampled_addmm_op = Op("SampledAddmm", _sampled_addmm_fn)


def sampled_addmm(
    indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=dtypes.float32
):
    """``alpha * (mat1 @ mat2)`` at ``indices`` plus ``beta * values``
    (``tf.sparse.sampled_addmm``), batched over leading dimensions; returns the
    ``(indices, values, dense_shape)`` of the SparseTensor result, as TF.

    Example:
        >>> import tapejax as tf
        >>> _, values, _ = tf.sparse.sampled_addmm([[0, 1]], [1.0], [2, 2], tf.ones([2, 3]), tf.ones([3, 2]))
        >>> values.numpy()
        array([4.], dtype=float32)
    """
    idx = convert_to_tensor(indices)
    vals = named_conversion(values, output_type, "values")
    shape = named_conversion(dense_shape, dtypes.int32, "dense_shape")
    m1 = named_conversion(mat1, output_type, "mat1")
    m2 = named_conversion(mat2, output_type, "mat2")
    product = [m1._v.shape[-2], m2._v.shape[-1]]
    given = host_value(dense_shape)
    if given is not None and list(np.asarray(given).reshape(-1)) != product:
        raise ValueError(
            f"Dense shape: {given.astype(np.int32)} does not match output shape: "
            f"{np.asarray(product, np.int32)}"
        )
    static = (("alpha", float(alpha)), ("beta", float(beta)))
    return idx, apply(_sampled_addmm_op, (idx, vals, m1, m2), static), shape


# -- maximum, minimum -------------------------------------------------------------------------------


def _extreme_fn(a_values, b_values, a_pos, b_pos, *, largest):
    zero = jnp.zeros((), a_values.dtype)
    a = jnp.where(a_pos >= 0, jnp.take(a_values, jnp.maximum(a_pos, 0), mode="clip"), zero)
    b = jnp.where(b_pos >= 0, jnp.take(b_values, jnp.maximum(b_pos, 0), mode="clip"), zero)
    if a_values.shape[0] == 0:
        a = jnp.zeros_like(b)
    if b_values.shape[0] == 0:
        b = jnp.zeros_like(a)
    return jnp.maximum(a, b) if largest else jnp.minimum(a, b)


_EXTREME_OPS = {
    True: Op("SparseSparseMaximum", _extreme_fn, differentiable=False),
    False: Op("SparseSparseMinimum", _extreme_fn, differentiable=False),
}


def _extreme(sp_a, sp_b, largest: bool) -> SparseTensor:
    op_name = "SparseSparseMaximum" if largest else "SparseSparseMinimum"
    a, b = sparse_arg(sp_a), sparse_arg(sp_b)
    require(a.values, "fiu", op_name)
    _require_same_dtype(a.values, b.values, op_name, 4)
    what = "tapejax.sparse.maximum" if largest else "tapejax.sparse.minimum"
    a_dims, b_dims = static_dims(a, what), static_dims(b, what)
    _check_same_shape(
        a_dims, b_dims, op_name, "Operands do not have the same ranks; got shapes: {a} and {b}"
    )
    indices, a_pos, b_pos = _merge(host_indices(a, what), host_indices(b, what))
    values = apply(
        _EXTREME_OPS[largest],
        (a.values, b.values, positions_tensor(a_pos), positions_tensor(b_pos)),
        (("largest", largest),),
    )
    return new_sparse(indices, values, a_dims)


def maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two SparseTensors of one shape, unset entries counting
    as 0 (``tf.sparse.maximum``).

    Example:
        >>> import tapejax as tf
        >>> a = tf.sparse.SparseTensor([[0], [1]], [-1.0, 2.0], [3])
        >>> b = tf.sparse.SparseTensor([[1], [2]], [3.0, -4.0], [3])
        >>> tf.sparse.maximum(a, b).values.numpy()
        array([0., 3., 0.], dtype=float32)

    .. warning::
       The tape gives None through it; TF's gradient function fails (``TypeError``).
    """
    return _extreme(sp_a, sp_b, True)


def minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two SparseTensors of one shape, unset entries counting
    as 0 (``tf.sparse.minimum``).

    Example:
        >>> import tapejax as tf
        >>> a = tf.sparse.SparseTensor([[0], [1]], [-1.0, 2.0], [3])
        >>> b = tf.sparse.SparseTensor([[1], [2]], [3.0, -4.0], [3])
        >>> tf.sparse.minimum(a, b).values.numpy()
        array([-1.,  2., -4.], dtype=float32)

    .. warning::
       The tape gives None through it; TF's gradient function fails (``TypeError``).
    """
    return _extreme(sp_a, sp_b, False)


# -- SparseTensor * dense, SparseTensor / dense ----------------------------------------------------


def _cwise_fn(indices, values, dense, *, shape, divide):
    full = jnp.broadcast_to(dense, shape)
    picked = full[tuple(indices[:, d] for d in range(len(shape)))] if shape else full
    return values / picked if divide else values * picked


_CWISE_OPS = {
    False: Op("SparseDenseCwiseMul", _cwise_fn),
    True: Op("SparseDenseCwiseDiv", _cwise_fn),
}


def _sparse_dense_cwise(sp: SparseTensor, dense: Tensor, divide: bool) -> SparseTensor:
    op_name = "SparseDenseCwiseDiv" if divide else "SparseDenseCwiseMul"
    _require_same_dtype(sp.values, dense, op_name, 3)
    dims = static_dims(sp, "a SparseTensor's * and /")
    dshape = dense._v.shape
    fits = len(dshape) <= len(dims) and all(
        y in (1, x) for x, y in zip(dims[len(dims) - len(dshape) :], dshape)
    )
    if not fits:
        raise iae(
            "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
            f"shapes: {shape_text(dims)} vs. {shape_text(dshape)}",
            op_name,
        )
    values = apply(
        _CWISE_OPS[divide], (sp.indices, sp.values, dense), (("shape", dims), ("divide", divide))
    )
    return sp._with_values(values)


def _operand(sp: SparseTensor, y) -> Tensor:
    """TF's ``binary_op_wrapper_sparse``: ``y`` converted to the values' dtype, as "y"."""
    return named_conversion(y, sp.dtype, "y")


def sparse_dense_mul(sp: SparseTensor, y) -> SparseTensor:
    """``sp * y`` for a dense ``y`` broadcast to ``sp``'s shape (TF's
    ``SparseDenseCwiseMul``)."""
    return _sparse_dense_cwise(sp, _operand(sp, y), divide=False)


def dense_sparse_mul(x: Tensor, sp: SparseTensor) -> SparseTensor:
    """``x * sp`` for a dense Tensor ``x`` (TF's ``_mul_dispatch``)."""
    return _sparse_dense_cwise(sp, x, divide=False)


def sparse_dense_truediv(sp: SparseTensor, y) -> SparseTensor:
    """``sp / y`` (TF's ``_sparse_dense_truediv``): integers are divided as floats."""
    values, d = sp.values, _operand(sp, y)
    if values._v.dtype.kind in "iu":
        from .math_ops import cast

        target = dtypes.float32 if values._v.dtype.itemsize <= 2 else dtypes.float64
        values, d = cast(values, target), cast(d, target)
    elif values._v.dtype.kind == "b":
        raise TypeError(f"Invalid dtype {values.dtype!r} in __truediv__.")
    cast_sp = sp._with_values(values)
    return _sparse_dense_cwise(cast_sp, d, divide=True)
