"""CTC label preprocessing of ``tf.nn``: ``collapse_repeated`` (merge runs of a label) and
``ctc_unique_labels`` (each row's distinct labels and where each label went), TF's
Python composites (``ctc_ops.py``) with their results, dtypes and errors.

``collapse_repeated``'s result is as wide as the longest collapsed row, a size that
depends on the labels' values: its labels and lengths must be known when it runs
(inside ``tapejax.function``: NotImplementedError). ``ctc_unique_labels`` has static
shapes and traces.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._array_common import _host
from ._helpers import to_tensor
from .reduction_ops import _narrowed

__all__ = ["collapse_repeated", "ctc_unique_labels"]


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


# -- collapse_repeated --------------------------------------------------------------------------


def _collapse_fn(labels, index, keep):
    return jnp.where(keep, labels.reshape(-1)[index], jnp.zeros((), labels.dtype))


# TF's is a Python composite (a masked scatter): this name is tapejax's.
_collapse_op = Op("CollapseRepeated", _collapse_fn)


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of repeated labels into one label (``tf.nn.collapse_repeated``).

    Args:
        labels: ``[batch, max_seq_length]``.
        seq_length: ``[batch]``, each row's length (entries beyond it are dropped).
        name: ignored (TF's name scope).

    Returns:
        ``(collapsed_labels, new_seq_length)``: the collapsed rows left-aligned and
        zero-padded to the longest one, ``[batch, max(new_seq_length)]``, ``labels``'
        dtype; and the new lengths, ``seq_length``'s dtype.

    Example:
        >>> import tapejax as tf
        >>> labels, lengths = tf.nn.collapse_repeated([[1, 1, 2, 2, 1], [3, 3, 3, 0, 0]], [5, 2])
        >>> labels.numpy().tolist(), lengths.numpy().tolist()
        ([[1, 2, 1], [3, 0, 0]], [3, 1])
    """
    x = to_tensor(labels)
    lengths = to_tensor(seq_length)
    host, host_lengths = _host(x), _host(lengths)
    if host is None or host_lengths is None:
        raise NotImplementedError(
            "tapejax.nn.collapse_repeated: the result's width depends on the labels' values, "
            "so labels and seq_length cannot be traced (inside tapejax.function)."
        )
    if host.ndim < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Index out of range using input dim 1; input has only {host.ndim} dims "
            "[Op:StridedSlice]",
        )
    changed = np.concatenate([np.ones_like(host[:, :1], bool), host[:, 1:] != host[:, :-1]], axis=1)
    # TF's sequence_mask casts the lengths to int32 (floats truncate).
    in_row = np.arange(host.shape[1]) < np.trunc(host_lengths).astype(np.int64)[..., None]
    try:
        keep = changed & in_row
    except ValueError:
        raise _iae(
            f"Incompatible shapes: [{','.join(map(str, changed.shape))}] vs. "
            f"[{','.join(map(str, in_row.shape))}]",
            "LogicalAnd",
        ) from None
    new_lengths = keep.sum(axis=1).astype(np.int32)
    if not new_lengths.size:
        raise _iae("Requires start <= limit when delta > 0: 0/-2147483648", "Range")
    width = int(new_lengths.max())
    index = np.zeros((host.shape[0], width), np.int32)
    taken = np.arange(width) < new_lengths[:, None]
    index[taken] = np.flatnonzero(keep)
    out = apply(_collapse_op, (x, convert_to_tensor(index), convert_to_tensor(taken.astype(bool))))
    return out, convert_to_tensor(new_lengths.astype(host_lengths.dtype), dtype=lengths.dtype)


# -- ctc_unique_labels ------------------------------------------------------------------------


def _unique_labels_fn(labels, *, dtype):
    batch, width = labels.shape
    same = labels[:, :, None] == labels[:, None, :]
    first = jnp.argmax(same, axis=2)  # each label's first occurrence in its row
    is_first = first == jnp.arange(width)
    rank = jnp.cumsum(is_first, axis=1) - 1
    index = jnp.take_along_axis(rank, first, axis=1).astype(jnp.int32)
    slot = jnp.where(is_first, rank, width)
    rows = jnp.arange(batch)[:, None]
    unique = jnp.zeros((batch, width), dtype).at[rows, slot].set(labels.astype(dtype), mode="drop")
    return unique, index


_unique_labels_op = Op(
    "CTCUniqueLabels", _unique_labels_fn, differentiable=False, multiple_outputs=True
)


def ctc_unique_labels(labels, name=None):
    """Each row's distinct labels, in order of first appearance and zero-padded, and the
    index of each label among them (``tf.nn.ctc_unique_labels``, for ``ctc_loss``'s
    ``unique``).

    Args:
        labels: ``[batch, max_label_length]``.
        name: ignored (TF's name scope).

    Returns:
        A list ``[unique_labels, indices]``, both ``[batch, max_label_length]``:
        int64 labels (int32 unless JAX's x64 mode is on) and int32 indices, as TF's
        ``map_fn`` gives them (for an empty batch, TF's shapes ``[0]``).

    Example:
        >>> import tapejax as tf
        >>> unique, indices = tf.nn.ctc_unique_labels([[3, 4, 4, 3]])
        >>> unique.numpy().tolist(), indices.numpy().tolist()
        ([[3, 4, 0, 0]], [[0, 1, 1, 0]])
    """
    x = to_tensor(labels)
    if x._v.ndim != 2:
        raise _iae("unique expects a 1D vector.", "Unique")
    out_dt = _narrowed(dtypes.int64)
    if x._v.shape[0] == 0:  # TF's map_fn over no rows
        return [
            convert_to_tensor(np.zeros(0, out_dt)),
            convert_to_tensor(np.zeros(0, np.int32)),
        ]
    return list(apply(_unique_labels_op, (x,), (("dtype", out_dt),)))
