"""``tf.sparse``'s reductions: ``reduce_sum``, ``reduce_max`` (dense results, or sparse
with ``output_is_sparse=True``) and ``softmax`` over the last dimension, as TF's kernels
compute them: ``reduce_max`` takes the maximum of the values present (0 for a group
without any), ``softmax`` normalizes over the values present in each row.

Dense results and ``softmax`` trace; sparse results need concrete indices. Gradients are
TF's through ``reduce_sum`` and ``softmax``; None through ``reduce_max`` and sparse
results (TF registers no gradient for them: ``LookupError``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ._helpers import TF_ALLOWED, axis_ints, require
from ._sparse_common import (
    host_indices,
    iae,
    new_sparse,
    positions_tensor,
    segment_values,
    sparse_arg,
    static_dims,
    values_text,
)

__all__ = ["reduce_sum", "reduce_max", "softmax"]

_SUM_TYPES = (
    "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64"
)
_MAX_TYPES = (
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
)
TF_ALLOWED.update(
    {
        "SparseReduceSum": _SUM_TYPES,
        "SparseReduceMax": _MAX_TYPES,
        "SparseSoftmax": "half, float, double",
    }
)


# -- reductions -------------------------------------------------------------------------------------


def _reduction_axes(axis, rank: int, op_name: str) -> tuple:
    if axis is None:
        return tuple(range(rank))
    out = []
    for a in axis_ints(axis):
        if not -rank <= a < rank:
            raise iae(
                f"Invalid reduction dimension {a}, for input with {rank} dimensions.", op_name
            )
        a %= rank
        if a not in out:
            out.append(a)
    return tuple(sorted(out))


def _out_dims(dims, axes, keepdims):
    return tuple(1 if d in axes else n for d, n in enumerate(dims) if keepdims or d not in axes)


def _reduce_fn(indices, values, *, shape, axes, keepdims, kind):
    kept = [d for d in range(len(shape)) if d not in axes]
    out_shape = tuple(shape[d] for d in kept)
    where = tuple(indices[:, d] for d in kept)
    if kind == "sum":
        out = jnp.zeros(out_shape, values.dtype)
        if kept:
            out = out.at[where].add(values, mode="drop")
        else:
            out = out + jnp.sum(values, dtype=values.dtype)
    else:
        lowest = _lowest(values.dtype)
        init = jnp.full(out_shape, lowest, values.dtype)
        count = jnp.zeros(out_shape, jnp.int32)
        if kept:
            init = init.at[where].max(values, mode="drop")
            count = count.at[where].add(1, mode="drop")
        else:
            init = jnp.max(values, initial=lowest)
            count = count + values.shape[0]
        out = jnp.where(count > 0, init, jnp.zeros((), values.dtype))
    return out.reshape(_out_dims(shape, axes, True)) if keepdims else out


_REDUCE_OPS = {
    "sum": Op("SparseReduceSum", _reduce_fn),
    "max": Op("SparseReduceMax", _reduce_fn, differentiable=False),
}


def _lowest(dtype):
    """The identity of a max: -inf for floats (bfloat16 included), the integer minimum."""
    return -jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min


def _group_max_fn(values, slots, *, size):
    lowest = _lowest(values.dtype)
    return jnp.full((size,), lowest, values.dtype).at[slots].max(values, mode="drop")


_group_max_op = Op("SparseReduceMaxSparse", _group_max_fn, differentiable=False)


def _reduce(kind: str, sp_input, axis, keepdims, output_is_sparse):
    op_name = "SparseReduceSum" if kind == "sum" else "SparseReduceMax"
    sp = sparse_arg(sp_input)
    require(sp.values, "fciu" if kind == "sum" else "fiu", op_name)
    dims = static_dims(sp, f"tapejax.sparse.reduce_{kind}")
    axes = _reduction_axes(axis, len(dims), op_name)
    keepdims = bool(keepdims)
    if not output_is_sparse:
        static = (("shape", dims), ("axes", axes), ("keepdims", keepdims), ("kind", kind))
        return apply(_REDUCE_OPS[kind], (sp.indices, sp.values), static)
    host = host_indices(sp, f"tapejax.sparse.reduce_{kind}(output_is_sparse=True)")
    kept = [d for d in range(len(dims)) if d not in axes]
    keys = host[:, kept]
    groups, slots = np.unique(keys, axis=0, return_inverse=True)
    slots = slots.reshape(-1)
    if kind == "sum":
        values = segment_values(
            op_name + "Sparse", sp.values, slots, groups.shape[0], differentiable=False
        )
    else:
        values = apply(
            _group_max_op, (sp.values, positions_tensor(slots)), (("size", groups.shape[0]),)
        )
    out_dims = _out_dims(dims, axes, keepdims)
    if keepdims:
        full = np.zeros((groups.shape[0], len(dims)), np.int64)
        full[:, kept] = groups
        groups = full
    return new_sparse(groups.reshape(-1, len(out_dims)), values, out_dims)


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """Sums a SparseTensor over ``axis`` (all by default) (``tf.sparse.reduce_sum``).

    The result is dense, or a SparseTensor of the groups that hold values with
    ``output_is_sparse=True``. Differentiable in the values (dense result).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 2.0, 3.0], [2, 3])
        >>> tf.sparse.reduce_sum(st, axis=1).numpy()
        array([3., 3.], dtype=float32)
    """
    return _reduce("sum", sp_input, axis, keepdims, output_is_sparse)


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of the values present over ``axis`` (``tf.sparse.reduce_max``): unset
    entries do not take part, and a group without values gives 0.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [0, 2]], [-1.0, -2.0], [2, 3])
        >>> tf.sparse.reduce_max(st, axis=1).numpy()
        array([-1.,  0.], dtype=float32)

    .. warning::
       The tape gives None through it: TF registers no gradient (``LookupError``).
    """
    return _reduce("max", sp_input, axis, keepdims, output_is_sparse)


# -- softmax --------------------------------------------------------------------------------------


def _softmax_fn(indices, values, *, shape):
    lead = shape[:-1]
    group = jnp.zeros(indices.shape[0], indices.dtype)
    for d, size in enumerate(lead):
        group = group * size + indices[:, d]
    size = int(np.prod(lead, dtype=np.int64))
    peak = jnp.full((size,), -jnp.inf, values.dtype).at[group].max(values, mode="drop")
    e = jnp.exp(values - jax.lax.stop_gradient(peak)[group])
    total = jnp.zeros((size,), values.dtype).at[group].add(e, mode="drop")
    return e / total[group]


_softmax_op = Op("SparseSoftmax", _softmax_fn)


def softmax(sp_input, name=None):
    """Softmax over the last dimension of a SparseTensor, among the values present
    (``tf.sparse.softmax``); the indices are kept.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [0, 2]], [1.0, 1.0], [1, 3])
        >>> tf.sparse.softmax(st).values.numpy()
        array([0.5, 0.5], dtype=float32)
    """
    sp = sparse_arg(sp_input)
    op_name = "SparseSoftmax"
    require(sp.values, "f", op_name)
    dims = static_dims(sp, "tapejax.sparse.softmax")
    if len(dims) < 2:
        raise iae(f"Input should have rank >= 2, but received shape: {values_text(dims)}", op_name)
    values = apply(_softmax_op, (sp.indices, sp.values), (("shape", dims),))
    return sp._with_values(values)
