"""``tf.sparse``'s selections and joins: ``retain``, ``slice``, ``split``, ``concat``,
``fill_empty_rows`` and ``mask`` (of an ``IndexedSlices``), with TF's kernels' orders,
checks and texts.

Their results' sizes depend on the indices (``concat``'s does not, and it traces), so
they run on concrete indices. Values move through recorded ops named after TF's: the
tape gives TF's gradients through ``retain``, ``slice``, ``fill_empty_rows`` and ``mask``
and None through ``split`` and ``concat`` (TF: no gradient).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..indexed_slices import IndexedSlices
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor, int64_tensor
from ..tensor import wrap
from ..tensor_shape import TensorShape
from ._helpers import dtype_mismatch, to_tensor
from ._sparse_common import (
    host_array,
    host_indices,
    iae,
    int64_tensor_of,
    known_indices,
    new_sparse,
    positions_tensor,
    row_major_order,
    sparse_arg,
    static_dims,
    take_values,
    traced_row_major_order,
)

__all__ = ["retain", "slice", "split", "concat", "fill_empty_rows", "mask"]


def retain(sp_input, to_retain):
    """The entries of a SparseTensor where ``to_retain`` (a vector, one flag per value) is
    true (``tf.sparse.retain``).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        >>> tf.sparse.retain(st, [False, True]).values.numpy()
        array([2.], dtype=float32)
    """
    sp = sparse_arg(sp_input)
    flags = to_tensor(to_retain)
    TensorShape(flags._v.shape).assert_has_rank(1)
    n, m = sp.values._v.shape[0], flags._v.shape[0]
    if n != m:
        raise ValueError(f"Dimensions {n} and {m} are not compatible")
    keep = np.flatnonzero(host_array(to_retain, "tapejax.sparse.retain"))
    host = host_indices(sp, "tapejax.sparse.retain")
    values = take_values("GatherV2", sp.values, keep)
    kept = host[keep]
    return SparseTensor._from_parts(int64_tensor_of(kept), values, sp.dense_shape, sp.shape, kept)


def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """The entries of a SparseTensor inside the box ``[start, start + size)``, shifted to
    start at 0 (``tf.sparse.slice``); the box is clipped to the dense shape.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
        >>> s = tf.sparse.slice(st, [1, 1], [2, 2])
        >>> s.indices.numpy().tolist(), s.shape
        ([[0, 1]], TensorShape([2, 2]))
    """
    op_name = "SparseSlice"
    sp = sparse_arg(sp_input)
    int64_tensor(start, "start"), int64_tensor(size, "size")  # TF's conversion errors
    begin = host_array(start, "start").astype(np.int64)
    extent = host_array(size, "size").astype(np.int64)
    dims = static_dims(sp, "tapejax.sparse.slice")
    rank = len(dims)
    for what, v in (("start", begin), ("size", extent)):
        if v.ndim != 1:
            raise iae(
                f"Input {what} should be a vector but received shape {list(v.shape)}", op_name
            )
        if v.shape[0] != rank:
            raise iae(
                f"Expected {what} to be a vector of length {rank} but got length {v.shape[0]}",
                op_name,
            )
    for s in extent:
        if s < 0:
            raise iae(f"Expected a non-negative size, got {s}", op_name)
    out_dims = []
    for n, b, s in zip(dims, begin, extent):
        out_dims.append(int(s) if b < n - s else (int(n - b) if b < n else 0))
    host = host_indices(sp, "tapejax.sparse.slice")
    hit = np.all((host >= begin) & (host < begin + extent), axis=1)
    keep = np.flatnonzero(hit)
    values = take_values(op_name, sp.values, keep)
    return new_sparse(host[keep] - begin, values, out_dims)


def split(sp_input=None, num_split=None, axis=None, name=None):
    """Splits a SparseTensor into ``num_split`` pieces along ``axis``
    (``tf.sparse.split``); the first ``size % num_split`` pieces are one larger.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [1, 3]], [1.0, 2.0], [2, 4])
        >>> [p.indices.numpy().tolist() for p in tf.sparse.split(sp_input=st, num_split=2, axis=1)]
        [[[0, 0]], [[1, 1]]]

    .. warning::
       The tape gives None through it: TF registers no gradient (``LookupError``).
    """
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    op_name = "SparseSplit"
    sp = sparse_arg(sp_input)
    dims = static_dims(sp, "tapejax.sparse.split")
    rank = len(dims)
    axis = int(host_array(axis, "axis"))
    if not -rank <= axis < rank:
        raise iae(f"Input axis should be in range [{-rank}, {rank}), got {axis}", op_name)
    axis %= rank
    n = int(num_split)
    if not 1 <= n <= dims[axis]:
        raise iae(
            f"Input num_split should be between 1 and the splitting dimension size "
            f"({dims[axis]}), got {n}",
            op_name,
        )
    small, extra = divmod(dims[axis], n)
    sizes = [small + 1] * extra + [small] * (n - extra)
    bounds = np.cumsum([0] + sizes)
    host = host_indices(sp, "tapejax.sparse.split")
    piece = np.searchsorted(bounds, host[:, axis], side="right") - 1
    out = []
    for p in range(n):
        keep = np.flatnonzero(piece == p)
        indices = host[keep].copy()
        indices[:, axis] -= bounds[p]
        values = take_values(op_name, sp.values, keep, differentiable=False)
        out_dims = list(dims)
        out_dims[axis] = sizes[p]
        out.append(new_sparse(indices, values, out_dims))
    return out


def _concat_values_fn(*args):
    *values, perm = args
    return jnp.concatenate(values)[perm]


_concat_values_op = Op("SparseConcat", _concat_values_fn, differentiable=False)


def _sparse_list(sp_inputs) -> list:
    if isinstance(sp_inputs, (list, tuple)):
        return [convert_to_sparse_tensor(s) for s in sp_inputs]
    raise TypeError("Inputs must be a list or tuple.")


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """Concatenates SparseTensors along ``axis`` (``tf.sparse.concat``); the result's
    indices are in row-major order. With ``expand_nonconcat_dims`` the other dimensions
    are the largest of the inputs'.

    Example:
        >>> import tapejax as tf
        >>> a = tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
        >>> b = tf.sparse.SparseTensor([[1, 1]], [2.0], [2, 3])
        >>> c = tf.sparse.concat(1, [a, b])
        >>> c.indices.numpy().tolist(), c.shape
        ([[0, 0], [1, 3]], TensorShape([2, 5]))

    .. warning::
       The tape gives None through it, as TF's (``SparseConcat`` is not differentiable).
    """
    op_name = "SparseConcat"
    inputs = _sparse_list(sp_inputs)
    if len(inputs) == 1:
        return inputs[0]
    count = len(inputs)
    for i, sp in enumerate(inputs[1:], 1):
        if sp.values._v.dtype != inputs[0].values._v.dtype:
            raise dtype_mismatch(op_name, count + i, inputs[0].values._v.dtype, sp.values._v.dtype)
    all_dims = [static_dims(sp, "tapejax.sparse.concat") for sp in inputs]
    rank = len(all_dims[0])
    for i, dims in enumerate(all_dims):
        if len(dims) != rank:
            raise iae(
                f"Ranks of all input tensors must match: expected {rank} but got {len(dims)} at "
                f"position {i}",
                op_name,
            )
    if not -rank <= axis < rank:
        raise iae(f"Concat dimension must be in range [{-rank}, {rank}), got {axis}", op_name)
    axis %= rank
    if expand_nonconcat_dims:
        widest = np.max(np.asarray(all_dims), axis=0)
        all_dims = [
            tuple(int(w) if d != axis else dims[d] for d, w in enumerate(widest))
            for dims in all_dims
        ]
    for i, dims in enumerate(all_dims):
        for d in range(rank):
            if d != axis and dims[d] != all_dims[0][d]:
                raise iae(
                    f"Input shapes must match: expected {all_dims[0][d]} for dimension {d} but "
                    f"got {dims[d]} at position {i}",
                    op_name,
                )
    offsets = np.cumsum([0] + [dims[axis] for dims in all_dims])
    shifted = []
    for sp, off in zip(inputs, offsets):
        idx = sp.indices._value
        shifted.append(idx.at[:, axis].add(int(off)) if idx.shape[0] else idx)
    indices = jnp.concatenate(shifted)
    out_dims = list(all_dims[0])
    out_dims[axis] = int(offsets[-1])
    hosts = [known_indices(sp) for sp in inputs]
    if all(h is not None for h in hosts):
        joined = np.concatenate(
            [h + np.eye(rank, dtype=np.int64)[axis] * off for h, off in zip(hosts, offsets)]
        )
        perm = row_major_order(joined)
        values = apply(
            _concat_values_op, tuple(sp.values for sp in inputs) + (positions_tensor(perm),)
        )
        return new_sparse(joined[perm], values, out_dims)
    perm = traced_row_major_order(indices).astype(jnp.int32)
    values = apply(_concat_values_op, tuple(sp.values for sp in inputs) + (wrap(perm),))
    return new_sparse(wrap(indices[perm]), values, out_dims)


def _fill_fn(values, default, sources):
    if values.shape[0] == 0:
        return jnp.broadcast_to(default, sources.shape)
    picked = jnp.take(values, jnp.maximum(sources, 0), mode="clip")
    return jnp.where(sources >= 0, picked, default)


_fill_op = Op("SparseFillEmptyRows", _fill_fn)


def fill_empty_rows(sp_input, default_value, name=None):
    """Adds an entry ``default_value`` at ``[row, 0, ...]`` for each empty row of a
    SparseTensor (``tf.sparse.fill_empty_rows``); returns the result and a bool vector
    marking the rows that were empty.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1]], [5.0], [2, 3])
        >>> filled, empty = tf.sparse.fill_empty_rows(st, -1.0)
        >>> filled.indices.numpy().tolist(), filled.values.numpy().tolist(), empty.numpy().tolist()
        ([[0, 1], [1, 0]], [5.0, -1.0], [False, True])
    """
    op_name = "SparseFillEmptyRows"
    sp = sparse_arg(sp_input)
    default = convert_to_tensor(default_value, dtype=sp.values.dtype)
    if default._v.ndim:
        raise iae(
            f"default_value must be a scalar, saw: [{','.join(map(str, default._v.shape))}]",
            op_name,
        )
    dims = static_dims(sp, "tapejax.sparse.fill_empty_rows")
    host = host_indices(sp, "tapejax.sparse.fill_empty_rows")
    rows = dims[0]
    for i, r in enumerate(host[:, 0]):
        if r < 0:
            raise iae(f"indices({i}, 0) is invalid: {r} < 0", op_name)
        if r >= rows:
            raise iae(f"indices({i}, 0) is invalid: {r} >= {rows}", op_name)
    order = np.argsort(host[:, 0], kind="stable")
    counts = np.bincount(host[:, 0], minlength=rows) if host.shape[0] else np.zeros(rows, np.int64)
    empty = counts == 0
    out_rows = np.where(empty, 1, counts)
    starts = np.cumsum(out_rows) - out_rows
    total = int(out_rows.sum())
    sources = np.full(total, -1, np.int64)
    indices = np.zeros((total, len(dims)), np.int64)
    filled = starts[empty]
    indices[filled, 0] = np.flatnonzero(empty)
    taken = np.ones(total, bool)
    taken[filled] = False
    slots = np.flatnonzero(taken)
    sources[slots] = order
    indices[slots] = host[order]
    values = apply(_fill_op, (sp.values, default, positions_tensor(sources)))
    indicator = wrap(jnp.asarray(empty))
    return new_sparse(indices, values, dims), indicator


def mask(a, mask_indices, name=None):
    """The slices of an IndexedSlices whose indices are not in ``mask_indices``
    (``tf.sparse.mask``).

    Example:
        >>> import tapejax as tf
        >>> s = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([0, 2, 4]))
        >>> tf.sparse.mask(s, [2]).indices.numpy()
        array([0, 4], dtype=int32)
    """
    host = host_array(a.indices, "tapejax.sparse.mask")
    drop = host_array(mask_indices, "tapejax.sparse.mask")
    keep = np.flatnonzero(~np.isin(host, drop))
    values = take_values("GatherV2", to_tensor(a.values), keep)
    out_indices = convert_to_tensor(host[keep])
    return IndexedSlices(values, out_indices, a.dense_shape)
