"""``tf.nn.embedding_lookup_sparse`` and ``tf.nn.safe_embedding_lookup_sparse``: embedding
rows of a SparseTensor of ids, combined per row ("sum", "mean" or "sqrtn") with optional
weights.

Both are TF's Python compositions (``embedding_ops.py``) of ops tapejax has, so values,
errors and gradients (to the parameters and to the weights) are theirs. The number of
output rows of ``embedding_lookup_sparse`` depends on the ids, and
``safe_embedding_lookup_sparse`` drops invalid ids: both need concrete ids, and raise
``NotImplementedError`` inside a traced program.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..sparse_tensor import SparseTensor
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import to_tensor
from ._sparse_common import known_indices
from .array_ops import reshape
from .creation_ops import zeros_like
from .division_ops import divide_no_nan
from .layer_ops import embedding_lookup
from .math_ops import cast, pow, sqrt
from .segment_ops import segment_sum
from .selection_ops import gather, where
from .sort_ops import unique
from .sparse_ops import reshape as sparse_reshape
from .sparse_segment_ops import sparse_segment
from .sparse_slicing_ops import fill_empty_rows, retain

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _params_list(params) -> list:
    return list(params) if isinstance(params, (list, tuple)) else [params]


def _check_compatible(a: Tensor, b: Tensor) -> None:
    sa, sb = TensorShape(a._v.shape), TensorShape(b._v.shape)
    if not sa.is_compatible_with(sb):
        raise ValueError(f"Shapes {sa} and {sb} are incompatible")


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None, allow_fast_lookup=False
):
    """Looks up the embeddings of each row's ids in a SparseTensor and combines them
    (``tf.nn.embedding_lookup_sparse``).

    Row ``i`` of the result combines ``params[sp_ids.values[j]]`` over the entries ``j``
    of ``sp_ids`` in row ``i`` (``indices[j, 0] == i``), weighted by ``sp_weights.values``
    when given: their sum ("sum"), weighted mean ("mean", the default) or sum divided by
    the root of the summed squared weights ("sqrtn"). There are ``indices[-1, 0] + 1``
    rows, and the row indices must be sorted.

    Example:
        >>> import tapejax as tf
        >>> params = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 2, 1], [2, 2])
        >>> tf.nn.embedding_lookup_sparse(params, ids, None, combiner="sum").numpy()
        array([[6., 8.],
               [3., 4.]], dtype=float32)
    """
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _params_list(params)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(
                f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}"
            )
        for a, b in (
            (sp_ids.values, sp_weights.values),
            (sp_ids.indices, sp_weights.indices),
            (sp_ids.dense_shape, sp_weights.dense_shape),
        ):
            _check_compatible(a, b)
    host = known_indices(sp_ids)
    segment_ids = host[:, 0] if host is not None else convert_to_tensor(sp_ids.indices._value[:, 0])
    return _combine(
        params, segment_ids, sp_weights, sp_ids.values, combiner, max_norm, allow_fast_lookup
    )


def _combine(params, segment_ids, sp_weights, ids, combiner, max_norm, allow_fast_lookup):
    """TF's ``embedding_lookup_sparse_impl``."""
    ignore_weights = sp_weights is None
    if len(params) == 1 and not isinstance(params[0], Tensor):
        params = [to_tensor(params[0])]
    if len(params) == 1 and max_norm is None and (allow_fast_lookup or ignore_weights):
        idx, embeddings = ids, to_tensor(params[0])
    else:
        ids, idx = unique(ids)
        embeddings = embedding_lookup(
            params if len(params) > 1 else params[0], ids, max_norm=max_norm
        )
    if ignore_weights:
        kind = {"sum": "sum", "mean": "mean", "sqrtn": "sqrt_n"}[combiner]
        return sparse_segment(kind, embeddings, idx, segment_ids)
    if segment_ids.dtype != dtypes.int32:
        segment_ids = cast(segment_ids, dtypes.int32)
    weights = sp_weights.values
    embeddings = gather(embeddings, idx)
    original = embeddings.dtype
    if original in (dtypes.float16, dtypes.bfloat16):
        embeddings = cast(embeddings, dtypes.float32)
    if weights.dtype != embeddings.dtype:
        weights = cast(weights, embeddings.dtype)
    weights = reshape(weights, [-1] + [1] * (embeddings.ndim - 1))
    embeddings = embeddings * weights
    if combiner == "sum":
        out = segment_sum(embeddings, segment_ids)
    elif combiner == "mean":
        out = divide_no_nan(segment_sum(embeddings, segment_ids), segment_sum(weights, segment_ids))
    else:
        total = segment_sum(pow(weights, 2), segment_ids)
        out = divide_no_nan(segment_sum(embeddings, segment_ids), sqrt(total))
    return cast(out, original) if out.dtype != original else out


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    max_norm=None,
    name=None,
    allow_fast_lookup=False,
):
    """``embedding_lookup_sparse`` that ignores invalid ids and fills empty rows
    (``tf.nn.safe_embedding_lookup_sparse``).

    Ids below 0 are dropped (and, unless ``combiner="sum"``, ids with a weight <= 0); a
    row left without ids gets the embedding of ``default_id``, or zeros. ``sparse_ids``
    may have any rank: the result has its shape without the last dimension, followed by
    the embedding's.

    Example:
        >>> import tapejax as tf
        >>> params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, -1, 0], [3, 2])
        >>> tf.nn.safe_embedding_lookup_sparse(params, ids).numpy()
        array([[3., 4.],
               [0., 0.],
               [1., 2.]], dtype=float32)
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    params = _params_list(embedding_weights)
    if len(params) < 1:
        raise ValueError(f"Missing embedding_weights {params}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    params = [
        p
        if getattr(p, "_is_variable", False) and dtype in (None, p.dtype)
        else convert_to_tensor(p, dtype=dtype)
        for p in params
    ]
    dims = sparse_ids.shape.as_list()
    rows = int(np.prod(dims[:-1], dtype=np.int64))
    sparse_ids = sparse_reshape(sparse_ids, [rows, dims[-1]])
    if sparse_weights is not None:
        sparse_weights = SparseTensor(
            sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape
        )
    valid = to_tensor(sparse_ids.values)._value >= 0
    sparse_ids = retain(sparse_ids, valid)
    if sparse_weights is not None:
        sparse_weights = retain(sparse_weights, valid)
        if combiner != "sum":
            positive = sparse_weights.values._value > 0
            sparse_ids = retain(sparse_ids, positive)
            sparse_weights = retain(sparse_weights, positive)
    sparse_ids, is_row_empty = fill_empty_rows(sparse_ids, default_id or 0)
    if sparse_weights is not None:
        sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
    result = embedding_lookup_sparse(
        params,
        sparse_ids,
        sparse_weights,
        combiner=combiner,
        max_norm=max_norm,
        allow_fast_lookup=allow_fast_lookup,
    )
    if default_id is None:
        empty = reshape(is_row_empty, [-1] + [1] * (result.ndim - 1))
        result = where(empty, zeros_like(result), result)
    return reshape(result, dims[:-1] + result.shape.as_list()[1:])
