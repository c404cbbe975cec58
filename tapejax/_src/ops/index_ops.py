"""Moving data by computed indices: ``unravel_index``, ``dynamic_partition`` and
``dynamic_stitch``, with TF's checks and gradients.

``dynamic_partition``'s and ``dynamic_stitch``'s result shapes depend on index values:
the indices must be known when the op runs (eagerly, or Python/NumPy values inside
``tapejax.function``); traced indices raise ``NotImplementedError``. The data may be
traced. Index values then become static arguments, so the ops are plain gathers that XLA
compiles once per index set.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, execution
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._array_common import _dims, _host
from ._helpers import dtype_mismatch, tf_type_name, to_tensor
from .join_split_ops import _same_dtype

__all__ = ["unravel_index", "dynamic_partition", "dynamic_stitch"]

# -- unravel_index -----------------------------------------------------------------------------


def _unravel_fn(indices, dims):
    # C++ division and remainder (truncating), as TF's kernel: a negative index gives
    # TF's numbers, not NumPy's.
    strides = jnp.concatenate(
        [jnp.cumprod(dims[::-1])[::-1][1:], jnp.ones((1,), dims.dtype)]
    ).astype(dims.dtype)[: dims.shape[0]]
    if indices.ndim == 0:
        shape = dims.shape
        i, s, d = indices, strides, dims
    else:
        shape = (dims.shape[0], indices.shape[0])
        i, s, d = indices[None, :], strides[:, None], dims[:, None]
    i, s, d = (jnp.broadcast_to(a, shape) for a in (i, s, d))
    return jax.lax.rem(jax.lax.div(i, s), d)


_unravel_op = Op("UnravelIndex", _unravel_fn, differentiable=False)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``
    (``tf.unravel_index``).

    Args:
        indices: a scalar or vector of int32/int64 flat indices, each below
            ``prod(dims)``.
        dims: a vector of positive dimension sizes, of ``indices``' dtype.
        name: ignored (TF's op name).

    Returns:
        Shape ``[len(dims)]`` for a scalar index, ``[len(dims), len(indices)]`` for a
        vector; ``indices``' dtype.

    Example:
        >>> import tapejax as tf
        >>> tf.unravel_index([1, 5, 7], [3, 3]).numpy()
        array([[0, 1, 2],
               [1, 2, 1]], dtype=int32)
    """
    idx, dm = _same_dtype([indices, dims], "UnravelIndex")
    if idx._v.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tidx' of {tf_type_name(idx._v.dtype)} is not in the list of "
            "allowed values: int32, int64 [Op:UnravelIndex]",
        )
    if idx._v.ndim > 1:
        raise InvalidArgumentError(
            None,
            None,
            f'The indices can only be scalar or vector, got "[{_dims(idx._v.shape)}]" '
            "[Op:UnravelIndex]",
        )
    if dm._v.ndim != 1:
        raise InvalidArgumentError(
            None,
            None,
            f'The indices can only be 1-D, got "[{_dims(dm._v.shape)}]" [Op:UnravelIndex]',
        )
    d = _host(dm)
    if d is not None:
        for i, size in enumerate(d.tolist()):
            if size == 0:
                raise InvalidArgumentError(
                    None,
                    None,
                    "Input dims cannot contain a dim of zero, but dims contains zero at "
                    f"index {i} [Op:UnravelIndex]",
                )
            if size < 0:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Input dims cannot be negative. Got dim = {size} at index {i} "
                    "[Op:UnravelIndex]",
                )
    out_of_bound = "index is out of bound as with dims [Op:UnravelIndex]"
    i = _host(idx)
    if i is not None and d is not None:
        if (i >= np.prod(d, dtype=np.float64)).any():
            raise InvalidArgumentError(None, None, out_of_bound)
    else:
        ok = jnp.all(idx._value < jnp.prod(dm._value))
        execution.runtime_check(ok, (), lambda: out_of_bound)
    return apply(_unravel_op, (idx, dm))


# -- dynamic_partition -------------------------------------------------------------------------


def _partition_fn(data, *, rows, prefix_ndim):
    flat = data.reshape((-1,) + data.shape[prefix_ndim:])
    return tuple(flat[np.asarray(r, np.int64)] for r in rows)


_partition_op = Op("DynamicPartition", _partition_fn, multiple_outputs=True)


def _concrete_ints(value, op_name: str, what: str) -> np.ndarray:
    host = _host(value)
    if host is None:
        raise NotImplementedError(
            f"tapejax.{op_name}: the result's shape depends on the values of `{what}`, so "
            "they cannot be traced (inside tapejax.function or a JAX transform); pass them "
            "as Python or NumPy values, or call it eagerly."
        )
    return host


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors by the index in ``partitions``
    (``tf.dynamic_partition``).

    Args:
        data: a tensor whose shape starts with ``partitions``' shape.
        partitions: int32 values in ``[0, num_partitions)``, known now (not traced).
        num_partitions: a Python int, at least 1.
        name: ignored (TF's op name).

    Returns:
        A list of ``num_partitions`` tensors: the ``data`` slices of each partition, in
        order. The gradient of each slice goes back to its place in ``data``.

    Example:
        >>> import tapejax as tf
        >>> [p.numpy().tolist() for p in tf.dynamic_partition([10, 20, 30, 40], [0, 1, 1, 0], 2)]
        [[10, 40], [20, 30]]
    """
    x = to_tensor(data)
    p = convert_to_tensor(partitions, dtype=dtypes.int32)
    if num_partitions < 1:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'num_partitions' of {num_partitions} must be at least minimum 1 "
            "[Op:DynamicPartition]",
        )
    pshape, dshape = p._v.shape, x._v.shape
    if dshape[: len(pshape)] != pshape:
        raise InvalidArgumentError(
            None,
            None,
            f"data.shape must start with partitions.shape, got data.shape = [{_dims(dshape)}], "
            f"partitions.shape = [{_dims(pshape)}] [Op:DynamicPartition]",
        )
    host = _concrete_ints(partitions, "dynamic_partition", "partitions").reshape(-1)
    bad = np.nonzero((host < 0) | (host >= num_partitions))[0]
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            None,
            None,
            f"partitions[{i}] = {int(host[i])} is not in [0, {num_partitions}) "
            "[Op:DynamicPartition]",
        )
    rows = tuple(tuple(np.nonzero(host == k)[0].tolist()) for k in range(num_partitions))
    static = (("prefix_ndim", len(pshape)), ("rows", rows))
    return list(apply(_partition_op, (x,), static))


# -- dynamic_stitch ----------------------------------------------------------------------------


def _stitch_fn(*data, places, sources, prefix_ndims):
    """``places[m]``: the output rows of data[m]'s rows; ``sources``: for each output row,
    the (flat) data row that lands there (the last one, as TF), or -1 for zeros."""
    inner = data[0].shape[prefix_ndims[0] :]
    rows = jnp.concatenate(
        [d.reshape((-1,) + inner) for d in data] + [jnp.zeros((1,) + inner, data[0].dtype)]
    )
    src = np.asarray(sources, np.int64).reshape(-1)
    src = np.where(src < 0, rows.shape[0] - 1, src)

    @jax.custom_vjp
    def stitch(rows):
        return rows[src]

    def fwd(rows):
        return rows[src], None

    def bwd(_, g):
        # TF's gradient: each data row gets the output gradient at its index, even a row
        # that a later index overwrote.
        parts = [g[np.asarray(p, np.int64).reshape(-1)] for p in places]
        return (jnp.concatenate(parts + [jnp.zeros((1,) + inner, g.dtype)]),)

    stitch.defvjp(fwd, bwd)
    return stitch(rows)


_stitch_op = Op("DynamicStitch", _stitch_fn)


def dynamic_stitch(indices, data, name=None):
    """Interleaves the rows of ``data`` into one tensor, row ``indices[m][i]`` taking
    ``data[m][i]`` (``tf.dynamic_stitch``); a later (m, i) wins for a repeated index.

    Args:
        indices: a list of int32 index tensors, known now (not traced).
        data: a list of tensors of one dtype; ``data[m].shape`` starts with
            ``indices[m].shape`` and the rest is the same for all.
        name: ignored (TF's op name).

    Returns:
        Shape ``[max(indices) + 1] + data[0].shape[indices[0].ndim:]``; a row no index
        names holds zeros. The gradient of ``data[m][i]`` is the output gradient at
        ``indices[m][i]``, as TF's, overwritten rows included.

    Example:
        >>> import tapejax as tf
        >>> tf.dynamic_stitch([[0, 2], [1, 3]], [[1.0, 2.0], [3.0, 4.0]]).numpy()
        array([1., 3., 2., 4.], dtype=float32)
    """
    # As TF's list arguments, a Tensor (or Variable) stands for the list of its rows.
    if type(indices) is Tensor or getattr(indices, "_is_variable", False):
        indices = list(indices)
    if type(data) is Tensor or getattr(data, "_is_variable", False):
        data = list(data)
    if len(indices) != len(data):
        raise ValueError(
            f"List argument 'data' to 'dynamic_stitch' Op with length {len(data)} must match "
            f"length {len(indices)} of argument 'indices'."
        )
    if not indices:
        raise InvalidArgumentError(
            None, None, "Length for attr 'N' of 0 must be at least minimum 1 [Op:DynamicStitch]"
        )
    idx = []
    for m, i in enumerate(indices):
        if isinstance(i, Tensor) and i.dtype != dtypes.int32:
            raise dtype_mismatch("DynamicStitch", m, np.dtype(np.int32), i._v.dtype)
        idx.append(convert_to_tensor(i, dtype=dtypes.int32))
    try:
        ds = _same_dtype(list(data), "DynamicStitch")
    except InvalidArgumentError:  # TF counts the indices first: data[m] is input N + m
        ds = [to_tensor(d) for d in data]
        m = next(m for m, d in enumerate(ds) if d._v.dtype != ds[0]._v.dtype)
        raise dtype_mismatch(
            "DynamicStitch", len(indices) + m, ds[0]._v.dtype, ds[m]._v.dtype
        ) from None
    for m, (i, d) in enumerate(zip(idx, ds)):
        ishape, dshape = i._v.shape, d._v.shape
        if dshape[: len(ishape)] != ishape:
            raise InvalidArgumentError(
                None,
                None,
                f"data[{m}].shape = [{_dims(dshape)}] does not start with indices[{m}].shape = "
                f"[{_dims(ishape)}] [Op:DynamicStitch]",
            )
        inner0 = ds[0]._v.shape[idx[0]._v.ndim :]
        if m and dshape[len(ishape) :] != inner0:
            raise InvalidArgumentError(
                None,
                None,
                f"Need data[0].shape[{idx[0]._v.ndim}:] = data[{m}].shape[{len(ishape)}:], got "
                f"data[0].shape = [{_dims(ds[0]._v.shape)}], data[{m}].shape = [{_dims(dshape)}], "
                f"indices[0].shape = [{_dims(idx[0]._v.shape)}], indices[{m}].shape = "
                f"[{_dims(ishape)}] [Op:DynamicStitch]",
            )
    hosts = [_concrete_ints(i, "dynamic_stitch", "indices") for i in indices]
    flat_hosts = [h.astype(np.int64).reshape(-1) for h in hosts]
    everything = np.concatenate(flat_hosts) if flat_hosts else np.zeros(0, np.int64)
    out_rows = max(int(everything.max()) + 1, 0) if everything.size else 0
    sources = np.full(out_rows, -1, np.int64)
    offset = 0
    for h in flat_hosts:
        for j, row in enumerate(h.tolist()):
            if not 0 <= row < out_rows:
                raise InvalidArgumentError(
                    None, None, f"indices[{j}] is out of range [Op:DynamicStitch]"
                )
            sources[row] = offset + j
        offset += h.size
    places = tuple(tuple(h.tolist()) for h in flat_hosts)
    static = (
        ("places", places),
        ("prefix_ndims", tuple(i._v.ndim for i in idx)),
        ("sources", tuple(sources.tolist())),
    )
    return apply(_stitch_op, tuple(ds), static)
