"""``tf.sparse``'s conversions and shape changes: ``from_dense``, ``to_dense``,
``to_indicator``, ``eye``, ``reorder``, ``reshape``, ``transpose``, ``expand_dims``,
``reset_shape`` and ``map_values``, with TF's checks and texts.

All but ``from_dense`` and ``reset_shape()`` (whose results' sizes depend on values) also
trace inside ``tapejax.function``, given the SparseTensor's static dense shape. Values
keep their gradients: ``to_dense`` is TF's ``SparseToDense`` (gradients to the values and
to ``default_value``), the others move values through recorded ops (``_sparse_common``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..sparse_tensor import SparseTensor, static_value
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ._helpers import to_tensor
from ._sparse_common import (
    host_array,
    host_indices,
    iae,
    int64_tensor_of,
    known_indices,
    new_sparse,
    row_major_order,
    shape_text,
    sparse_arg,
    static_dims,
    take_values,
    traced_row_major_order,
    validate_indices,
)

__all__ = [
    "from_dense",
    "to_dense",
    "to_indicator",
    "eye",
    "reorder",
    "reshape",
    "transpose",
    "expand_dims",
    "reset_shape",
    "map_values",
]


# -- from_dense / to_dense ----------------------------------------------------------------------


def _gather_nd_fn(x, indices):
    return x[tuple(indices[:, d] for d in range(x.ndim))]


_gather_nd_op = Op("GatherNd", _gather_nd_fn)


def from_dense(tensor, name=None):
    """The nonzero entries of a dense tensor as a SparseTensor (``tf.sparse.from_dense``).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.from_dense([[0, 3], [4, 0]])
        >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
        ([[0, 1], [1, 0]], [3, 4])

    Raises:
        InvalidArgumentError: a scalar (TF's ``Where`` text).
        NotImplementedError: ``tensor`` is traced (the number of values depends on it).
    """
    x = to_tensor(tensor)
    if x._v.ndim == 0:
        raise iae("WhereOp : Unhandled input dimensions: 0", "Where")
    mask = host_array(tensor, "tapejax.sparse.from_dense") != 0
    indices = np.argwhere(mask)
    values = apply(_gather_nd_op, (x, wrap(jnp.asarray(indices.astype(np.int32)))))
    return new_sparse(indices, values, x._v.shape)


def _to_dense_fn(indices, values, default, *, shape):
    out = jnp.broadcast_to(default, shape)
    if not shape:  # rank 0: the last value, if any, is the tensor
        return values[-1] if values.shape[0] else out
    where = tuple(indices[:, d] for d in range(len(shape)))
    return out.at[where].set(values, mode="drop")


_to_dense_op = Op("SparseToDense", _to_dense_fn)


def _last_of_duplicates(indices: np.ndarray, dims) -> np.ndarray | None:
    """Positions keeping only the last of repeated indices (TF's unvalidated
    ``SparseToDense`` writes in order), or None when no index repeats."""
    if indices.shape[0] < 2 or not dims:
        return None
    linear = np.ravel_multi_index(tuple(indices.T), dims, mode="clip")
    _, last_from_end = np.unique(linear[::-1], return_index=True)
    if last_from_end.size == linear.size:
        return None
    return np.sort(linear.size - 1 - last_from_end)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor a SparseTensor represents (``tf.sparse.to_dense``).

    Unset entries are ``default_value`` (zero by default). With ``validate_indices``
    the indices must be in bounds, sorted and unique (TF's errors); without it a
    repeated index keeps its last value. Differentiable in the values and
    ``default_value`` (TF's ``SparseToDense`` gradient).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1]], [5.0], [2, 2])
        >>> tf.sparse.to_dense(st, default_value=-1.0).numpy()
        array([[-1.,  5.],
               [-1., -1.]], dtype=float32)

    Raises:
        TypeError: ``sp_input`` is not a SparseTensor.
        InvalidArgumentError: TF's index checks (eagerly; traced indices are not checked
            and entries out of bounds are dropped).
    """
    sp = sparse_arg(sp_input)
    dims = static_dims(sp, "tapejax.sparse.to_dense")
    values = sp.values
    if default_value is None:
        default = wrap(jnp.zeros((), values._v.dtype))
    else:
        default = convert_to_tensor(default_value, dtype=values.dtype)
    if default._v.ndim:
        raise iae("default_value should be a scalar.", "SparseToDense")
    indices = sp.indices
    host = known_indices(sp)
    if host is not None:
        if validate_indices:
            validate_indices_(host, dims, "SparseToDense")
        else:
            _check_bounds(host, dims, "SparseToDense")
            keep = _last_of_duplicates(host, dims)
            if keep is not None:
                values = take_values("SparseToDense", values, keep)
                indices = int64_tensor_of(host[keep])
    return apply(_to_dense_op, (indices, values, default), (("shape", dims),))


validate_indices_ = validate_indices  # the argument of to_dense shadows the helper's name


def _check_bounds(indices: np.ndarray, dims, op_name: str) -> None:
    if indices.size and np.any((indices < 0) | (indices >= np.asarray(dims, np.int64))):
        raise iae(f"Indices are not valid (out of bounds).  Shape: {shape_text(dims)}", op_name)


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor marking each row's ids (``tf.sparse.to_indicator``).

    ``sp_input``'s values are ids; the result has ``sp_input``'s shape with the last
    dimension replaced by ``vocab_size``, True where a row holds that id.

    Example:
        >>> import tapejax as tf
        >>> ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 0], [2, 2])
        >>> tf.sparse.to_indicator(ids, 4).numpy()
        array([[False,  True, False,  True],
               [ True, False, False, False]])
    """
    sp = sparse_arg(sp_input)
    dims = static_dims(sp, "tapejax.sparse.to_indicator")
    if not isinstance(vocab_size, (Tensor, int, np.integer)):
        raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(vocab_size)}")
    vocab = _dimension_arg(vocab_size, "vocab_size")
    out_dims = dims[:-1] + (vocab,)
    ids = sp.values._value.astype(sp.indices._v.dtype)  # TF casts the ids to int64
    idx = jnp.concatenate([sp.indices._value[:, :-1], ids[:, None]], 1)
    host, ids_host = known_indices(sp), static_value(sp.values)
    if host is not None and ids_host is not None:
        full = np.concatenate([host[:, :-1], ids_host.astype(np.int64)[:, None]], 1)
        _check_bounds(full, out_dims, "SparseToDense")
    ones = wrap(jnp.ones(idx.shape[0], bool))
    return apply(_to_dense_op, (wrap(idx), ones, wrap(jnp.zeros((), bool))), (("shape", out_dims),))


# -- eye ------------------------------------------------------------------------------------------


def _dimension_arg(value, name: str) -> int:
    """TF's ``_make_int64_tensor``: a Python int or an integer Tensor, as an int."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if not isinstance(value, Tensor) and not getattr(value, "_is_variable", False):
        raise TypeError(f"{name} must be an integer value")
    return int(host_array(value, name))


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """A sparse identity matrix of ``num_rows`` x ``num_columns`` (``tf.sparse.eye``).

    Example:
        >>> import tapejax as tf
        >>> tf.sparse.to_dense(tf.sparse.eye(2, 3)).numpy()
        array([[1., 0., 0.],
               [0., 1., 0.]], dtype=float32)
    """
    rows = _dimension_arg(num_rows, "num_rows")
    cols = rows if num_columns is None else _dimension_arg(num_columns, "num_columns")
    size = min(rows, cols)
    if size < 0:
        raise iae(f"Requires start <= limit when delta > 0: 0/{size}", "Range")
    diag = np.arange(size)
    dtype = dtypes.as_dtype(dtype)
    values = convert_to_tensor(np.ones(size, dtype._np), dtype=dtype)
    return new_sparse(np.stack([diag, diag], 1), values, (rows, cols))


# -- reorder, reshape, transpose, expand_dims ------------------------------------------------------


def _reordered(sp: SparseTensor, dims) -> SparseTensor:
    """``sp`` with its indices sorted in row-major order (stably), as SparseReorder."""
    host = known_indices(sp)
    if host is None:
        perm = traced_row_major_order(sp.indices._value)
        values = take_values("SparseReorder", sp.values, wrap(perm.astype(jnp.int32)))
        return new_sparse(wrap(sp.indices._value[perm]), values, dims)
    perm = row_major_order(host)
    return new_sparse(host[perm], take_values("SparseReorder", sp.values, perm), dims)


def reorder(sp_input, name=None):
    """The same SparseTensor with its indices in row-major order (``tf.sparse.reorder``).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])
        >>> tf.sparse.reorder(st).indices.numpy().tolist()
        [[0, 1], [1, 0]]
    """
    sp = sparse_arg(sp_input)
    return _reordered(sp, static_dims(sp, "tapejax.sparse.reorder"))


def _target_shape(shape, in_dims) -> tuple:
    """TF's SparseReshape resolution of ``shape`` (one -1 allowed) against ``in_dims``."""
    value = host_array(shape, "the shape of tapejax.sparse.reshape")
    if value.ndim != 1:
        raise iae(
            f"Target shape should be a vector but received shape {shape_text(value.shape)}",
            "SparseReshape",
        )
    value = value.astype(np.int64)
    dense_size = int(np.prod(in_dims, dtype=np.int64))
    unknown, product = -1, 1
    for d, size in enumerate(value.tolist()):
        if size == -1:
            if unknown != -1:
                raise iae(
                    f"only one output dimension may be -1, not both {unknown} and {d}",
                    "SparseReshape",
                )
            unknown = d
        elif size < 0:
            raise iae(f"size {d} must be non-negative, not {size}", "SparseReshape")
        else:
            product *= size
    out = [int(v) for v in value]
    shown = [1 if v == -1 else v for v in out]
    if unknown != -1:
        if product == 0 or dense_size % product:
            raise iae(
                f"Input to reshape is a SparseTensor with {dense_size} dense values, but the "
                f"requested shape requires a multiple of {product}. input_shape="
                f"{shape_text(in_dims)} output_shape={shape_text(shown)}",
                "SparseReshape",
            )
        out[unknown] = dense_size // product
    elif product != dense_size:
        raise iae(
            f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
            f"shape has {product}. input_shape={shape_text(in_dims)} output_shape="
            f"{shape_text(out)}",
            "SparseReshape",
        )
    return tuple(out)


def _reshape_indices(indices, in_dims, out_dims):
    """Row-major linear positions of ``indices`` in ``in_dims``, unravelled in ``out_dims``
    (NumPy or JAX arrays alike)."""
    xp = np if isinstance(indices, np.ndarray) else jnp
    linear = xp.zeros(indices.shape[0], indices.dtype)
    for d, size in enumerate(in_dims):
        linear = linear * size + indices[:, d]
    cols = []
    for size in reversed(out_dims):
        cols.append(linear % size if size else linear)
        linear = linear // size if size else linear
    return xp.stack(cols[::-1], 1) if cols else xp.zeros((indices.shape[0], 0), indices.dtype)


def reshape(sp_input, shape, name=None):
    """A SparseTensor representing the same dense values in a new shape
    (``tf.sparse.reshape``); one dimension of ``shape`` may be -1.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
        >>> tf.sparse.reshape(st, [3, -1]).indices.numpy().tolist()
        [[0, 1], [2, 1]]
    """
    sp = sparse_arg(sp_input)
    in_dims = static_dims(sp, "tapejax.sparse.reshape")
    out_dims = _target_shape(shape, in_dims)
    host = known_indices(sp)
    if host is None:
        indices = wrap(_reshape_indices(sp.indices._value, in_dims, out_dims))
    else:
        indices = _reshape_indices(host, in_dims, out_dims)
    return new_sparse(indices, sp.values, out_dims)


def transpose(sp_input, perm=None, name=None):
    """Permutes a SparseTensor's dimensions, reversing them by default
    (``tf.sparse.transpose``); the result's indices are in row-major order.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
        >>> t = tf.sparse.transpose(st)
        >>> t.shape, t.indices.numpy().tolist()
        (TensorShape([3, 2]), [[1, 0], [2, 1]])
    """
    sp = sparse_arg(sp_input)
    dims = static_dims(sp, "tapejax.sparse.transpose")
    rank = len(dims)
    p = list(range(rank - 1, -1, -1)) if perm is None else _perm_arg(perm)
    for i, axis in enumerate(p):
        if not 0 <= axis < rank:
            raise iae(f"indices[{i}] = {axis} is not in [0, {rank})", "GatherV2")
    if len(p) != rank:  # TF builds the transposed SparseTensor, which checks this
        raise ValueError(f"Dimensions {len(p)} and {rank} are not compatible")
    new_dims = tuple(dims[axis] for axis in p)
    host = known_indices(sp)
    indices = (
        host[:, p] if host is not None else wrap(sp.indices._value[:, np.asarray(p, np.int32)])
    )
    return _reordered(new_sparse(indices, sp.values, new_dims), new_dims)


def _perm_arg(perm) -> list:
    value = np.asarray(host_array(perm, "perm"))
    return [int(v) for v in value.reshape(-1)]


def expand_dims(sp_input, axis=None, name=None):
    """Inserts a dimension of size 1 at ``axis`` (-1 by default) (``tf.sparse.expand_dims``).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])
        >>> tf.sparse.expand_dims(st, 0).shape
        TensorShape([1, 2, 3])
    """
    sp = sparse_arg(sp_input)
    dims = static_dims(sp, "tapejax.sparse.expand_dims")
    rank = len(dims)
    axis = -1 if axis is None else axis
    if isinstance(axis, Tensor):
        axis = int(host_array(axis, "axis"))
    elif not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(
            "axis must be an integer value in range [-rank(sp_input) - 1, rank(sp_input)]"
        )
    a = int(axis) if axis >= 0 else int(axis) + rank + 1
    if a > rank:
        raise iae(f"Expected size[1] in [0, {rank}], but got {a}", "Slice")
    if a < 0:
        raise iae(f"Expected begin[1] in [0, {rank}], but got {a}", "Slice")
    host = known_indices(sp)
    if host is not None:
        indices = np.insert(host, a, 0, axis=1)
    else:
        idx = sp.indices._value
        zeros = jnp.zeros((idx.shape[0], 1), idx.dtype)
        indices = wrap(jnp.concatenate([idx[:, :a], zeros, idx[:, a:]], 1))
    return new_sparse(indices, sp.values, dims[:a] + (1,) + dims[a:])


# -- reset_shape, map_values -----------------------------------------------------------------


def reset_shape(sp_input, new_shape=None):
    """The same values with a new dense shape (``tf.sparse.reset_shape``): ``new_shape``
    (no smaller than the current one), or by default the tightest shape holding the indices.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1]], [1.0], [4, 5])
        >>> tf.sparse.reset_shape(st).shape
        TensorShape([1, 2])
    """
    sp = sparse_arg(sp_input)
    if new_shape is None:
        host = host_indices(sp, "tapejax.sparse.reset_shape without new_shape")
        rank = host.shape[1]
        dims = tuple(np.maximum(0, host.max(axis=0) + 1)) if host.shape[0] else (0,) * rank
        return new_sparse(sp.indices, sp.values, dims)
    target = np.asarray(host_array(new_shape, "new_shape"))
    TensorShape(target.shape).assert_has_rank(1)
    rank = sp.dense_shape._v.shape[0]
    if target.shape[0] != rank:
        raise ValueError(f"Dimensions {target.shape[0]} and {rank} are not compatible")
    current = np.asarray(static_dims(sp, "tapejax.sparse.reset_shape"))
    if not np.all(current <= target):
        # TF's text, with its two shapes printed the other way round.
        raise ValueError(
            "Requested new_shape should have dimension sizes >= sp_input.shape.  Found "
            f"new_shape ({current}), sp_input.shape ({target})."
        )
    return new_sparse(sp.indices, sp.values, tuple(int(d) for d in target))


def _replace_sparse(value, found: list):
    from .. import nest

    flat = nest.flatten(value)
    out = []
    for v in flat:
        if isinstance(v, SparseTensor):
            found.append(v)
            out.append(v.values)
        else:
            out.append(v)
    return nest.pack_sequence_as(value, out)


def map_values(op, *args, **kwargs):
    """Applies ``op`` to the values of the SparseTensors in its arguments
    (``tf.sparse.map_values``); they must share indices and dense shape.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 1]], [2.0], [2, 2])
        >>> tf.sparse.map_values(tf.square, st).values.numpy()
        array([4.], dtype=float32)
    """
    from ..asserts import assert_equal

    found: list = []
    inner_args = _replace_sparse(args, found)
    inner_kwargs = _replace_sparse(kwargs, found)
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        assert_equal(first.dense_shape, other.dense_shape, message="Mismatched shapes!")
        assert_equal(first.indices, other.indices, message="Mismatched indices!")
    return first._with_values(to_tensor(op(*inner_args, **inner_kwargs)))
