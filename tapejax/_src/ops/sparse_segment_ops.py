"""``tf.sparse.segment_sum``, ``segment_mean`` and ``segment_sqrt_n``: segment reductions of
the rows ``data[indices]`` (TF's ``SparseSegment*`` kernels, with their checks and
texts), differentiable in ``data``; also what ``embedding_lookup_sparse`` combines with.

Without ``num_segments`` the output has ``segment_ids[-1] + 1`` rows, which depends on the
ids: inside a traced program that needs ``num_segments``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..sparse_tensor import host_value
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, require, tf_type_name, to_tensor
from ._sparse_common import host_array, iae

__all__ = ["segment_sum", "segment_mean", "segment_sqrt_n", "sparse_segment"]

_MEAN_TYPES = "bfloat16, half, float, double"
_SUM_TYPES = (
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
)
for _name, _types in (("Sum", _SUM_TYPES), ("Mean", _MEAN_TYPES), ("SqrtN", _MEAN_TYPES)):
    TF_ALLOWED[f"SparseSegment{_name}"] = _types
    TF_ALLOWED[f"SparseSegment{_name}WithNumSegments"] = _types


def _segment_fn(data, indices, segment_ids, *, rows, kind):
    picked = jnp.take(data, indices, axis=0, mode="clip")
    out = jnp.zeros((rows,) + data.shape[1:], data.dtype)
    out = out.at[segment_ids].add(picked, mode="drop")
    if kind == "sum":
        return out
    count = jnp.zeros((rows,), data.dtype).at[segment_ids].add(1, mode="drop")
    scale = count if kind == "mean" else jnp.sqrt(count)
    scale = jnp.where(count > 0, scale, jnp.ones((), data.dtype))
    return out / scale.reshape((rows,) + (1,) * (data.ndim - 1))


_KINDS = {"sum": "Sum", "mean": "Mean", "sqrt_n": "SqrtN"}
_OPS = {
    (kind, with_num): Op(f"SparseSegment{name}{'WithNumSegments' if with_num else ''}", _segment_fn)
    for kind, name in _KINDS.items()
    for with_num in (False, True)
}


def _int_arg(x, attr: str, op_name: str) -> Tensor:
    t = to_tensor(x)
    if t._v.dtype.kind not in "iu" or tf_type_name(t._v.dtype) not in ("int32", "int64"):
        raise iae(
            f"Value for attr '{attr}' of {tf_type_name(t._v.dtype)} is not in the list of "
            "allowed values: int32, int64",
            op_name,
        )
    return t


def _check_segments(ids: np.ndarray, idx: np.ndarray, rows: int, n_data: int, op_name: str) -> None:
    """TF's kernel loop: ids grow, each run in ``[0, rows)``, each index in ``[0, n_data)``."""
    start = 0
    n = ids.shape[0]
    while start < n:
        end = start
        while end < n and ids[end] == ids[start]:
            end += 1
        if end < n and ids[start] > ids[end]:
            raise iae("segment ids are not increasing", op_name)
        if not 0 <= ids[start] < rows:
            raise iae(
                f"Segment id {ids[start]} out of range [0, {rows}), possibly because "
                "'segment_ids' input is not sorted.",
                op_name,
            )
        for k in range(start, end):
            if not 0 <= idx[k] < n_data:
                raise iae(f"Bad: indices[{k}] == {idx[k]} out of range [0, {n_data})", op_name)
        start = end


def sparse_segment(kind: str, data, indices, segment_ids, num_segments=None) -> Tensor:
    """The segment reduction ``kind`` ('sum', 'mean', 'sqrt_n') of ``data[indices]``."""
    with_num = num_segments is not None
    op = _OPS[(kind, with_num)]
    x = to_tensor(data)
    require(x, "fiu", op.name)
    idx = _int_arg(indices, "Tidx", op.name)
    ids = _int_arg(segment_ids, "Tsegmentids", op.name)
    if x._v.ndim < 1:
        raise iae("Shape must be at least rank 1", op.name)
    if idx._v.ndim != 1:
        raise iae("indices should be a vector.", op.name)
    if ids._v.ndim != 1:
        raise iae("segment_ids should be a vector.", op.name)
    if idx._v.shape[0] != ids._v.shape[0]:
        raise iae("segment_ids and indices should have same size.", op.name)
    host_ids, host_idx = host_value(segment_ids), host_value(indices)
    traced = host_ids is None or host_idx is None
    if with_num:
        rows = int(host_array(num_segments, "num_segments"))
    elif traced:
        raise NotImplementedError(
            f"tapejax.sparse.segment_{kind} of traced segment ids needs num_segments: its "
            "output has segment_ids[-1] + 1 rows otherwise, which depends on their values."
        )
    else:
        rows = int(host_ids.reshape(-1)[-1]) + 1 if host_ids.size else 0
    if not traced:
        host_ids = host_ids.astype(np.int64)
        if with_num and host_ids.size and host_ids[-1] >= rows:
            raise iae("segment ids must be < num_segments", op.name)
        _check_segments(host_ids, host_idx.astype(np.int64), rows, x._v.shape[0], op.name)
    static = (("rows", rows), ("kind", kind))
    return apply(op, (x, idx, ids), static)


def segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums the rows ``data[indices]`` per segment (``tf.sparse.segment_sum``); segment ids
    must be sorted.

    Example:
        >>> import tapejax as tf
        >>> c = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> tf.sparse.segment_sum(c, [0, 2, 1], [0, 0, 1]).numpy()
        array([[6., 8.],
               [3., 4.]], dtype=float32)

    ``sparse_gradient`` is accepted; tapejax's gradients are dense (``docs/compat.md``).
    """
    return sparse_segment("sum", data, indices, segment_ids, num_segments)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Averages the rows ``data[indices]`` per segment (``tf.sparse.segment_mean``); empty
    segments are 0.

    Example:
        >>> import tapejax as tf
        >>> c = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> tf.sparse.segment_mean(c, [0, 2], [0, 0]).numpy()
        array([[3., 4.]], dtype=float32)
    """
    return sparse_segment("mean", data, indices, segment_ids, num_segments)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums the rows ``data[indices]`` per segment divided by the square root of the
    segment's size (``tf.sparse.segment_sqrt_n``).

    Example:
        >>> import tapejax as tf
        >>> c = tf.constant([[1.0], [3.0]])
        >>> tf.sparse.segment_sqrt_n(c, [0, 1], [0, 0]).numpy()
        array([[2.828427]], dtype=float32)
    """
    return sparse_segment("sqrt_n", data, indices, segment_ids, num_segments)
