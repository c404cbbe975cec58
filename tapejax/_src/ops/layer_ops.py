"""The ops of ``tf.nn`` that apply a layer's parameters to its input: ``bias_add`` (one
bias per channel, channels last or first) and ``embedding_lookup`` (rows of an
embedding table, optionally sharded over a list of tensors and clipped in norm).

Ids into a sharded table are checked eagerly against the shards, with TF's texts: a
gather of a bad id would otherwise return a silently wrong row.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import binary_operands, require, to_tensor
from .array_ops import concat, gather

_bias_add_op = Op(
    "BiasAdd",
    lambda x, b, *, channel_axis: x + jnp.expand_dims(b, tuple(range(1, x.ndim - channel_axis))),
)


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` along the channel dimension (``tf.nn.bias_add``): the last for
    ``N...C`` formats (the default), the second for ``NC...`` ones."""
    x, b = binary_operands(value, bias, "BiasAdd")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        channels_first = False
    elif data_format.startswith("NC"):
        channels_first = True
    else:
        raise ValueError(
            "`data_format` must be of the form `N...C` or `NC...`. "
            f"Received: data_format={data_format}"
        )
    require(x, "fciu", "BiasAdd")
    if x._v.ndim < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Input tensor must be at least 2D: [{','.join(map(str, x._v.shape))}] [Op:BiasAdd]",
        )
    if b._v.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"Biases must be 1D: [{','.join(map(str, b._v.shape))}] [Op:BiasAdd]"
        )
    axis = 1 if channels_first and x._v.ndim > 2 else x._v.ndim - 1
    if b._v.shape[0] != x._v.shape[axis]:
        raise InvalidArgumentError(
            None,
            None,
            f"Must provide as many biases as the last dimension of the input tensor: [{','.join(map(str, b._v.shape))}] vs. [{','.join(map(str, x._v.shape))}] [Op:BiasAdd]",
        )
    return apply(_bias_add_op, (x, b), (("channel_axis", axis),))


def _clip_rows_fn(x, *, axes, max_norm):
    # TF's clip_by_norm over each embedding: zero rows stay zero, without a NaN gradient.
    l2sum = jnp.sum(x * x, axis=axes, keepdims=True)
    positive = l2sum > 0
    l2norm = jnp.where(positive, jnp.sqrt(jnp.where(positive, l2sum, 1)), l2sum)
    clip = jnp.asarray(max_norm, x.dtype)
    return x * clip / jnp.maximum(l2norm, clip)


_clip_rows_op = Op("ClipByNorm", _clip_rows_fn)


def _div_partition(ids: np.ndarray, sizes: list) -> np.ndarray:
    """TF 2's "div" partitioning: ids as rows of the concatenated partitions, checked."""
    n, total = len(sizes), sum(sizes)
    per, extras = total // n, total % n
    part = np.maximum(ids // (per + 1), (ids - extras) // max(per, 1))
    local = np.where(part < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    bad = np.argwhere((part < 0) | (part >= n)).reshape(-1)
    if bad.size:
        raise InvalidArgumentError(
            None,
            None,
            f"partitions[{bad[0]}] = {part[bad[0]]} is not in [0, {n}) [Op:DynamicPartition]",
        )
    for p, size in enumerate(sizes):
        mine = local[part == p]
        over = np.argwhere(mine >= size).reshape(-1)
        if over.size:
            raise InvalidArgumentError(
                None,
                None,
                f"indices[{over[0]}] = {mine[over[0]]} is not in [0, {size}) [Op:GatherV2]",
            )
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(ids.dtype)
    return offsets[part] + local


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` at ``ids`` (``tf.nn.embedding_lookup``).

    ``params`` is a tensor or a list of tensors sharded with TF 2's "div" strategy (ids
    are assigned to the shards in contiguous blocks); ``max_norm`` clips each embedding's
    L2 norm. With a list, ``ids`` must be concrete (eager).
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    shards = [to_tensor(p) for p in params] if isinstance(params, (list, tuple)) else None
    ind = to_tensor(ids)
    if shards is None or len(shards) == 1:
        out = gather(shards[0] if shards else params, ind)
    else:
        if isinstance(ind._value, jax.core.Tracer):
            raise NotImplementedError(
                "tapejax.nn.embedding_lookup of a list of params needs concrete ids"
            )
        if ind._v.dtype.kind not in "iu":
            return gather(shards[0], ind)  # TF's Tindices error
        rows = _div_partition(np.asarray(ind._value), [s._v.shape[0] for s in shards])
        out = gather(concat(shards, 0), rows)
    if max_norm is None:
        return out
    axes = tuple(range(ind._v.ndim, out._v.ndim))
    return apply(_clip_rows_op, (out,), (("axes", axes), ("max_norm", float(max_norm))))
