"""SparseTensor labels of ``tf.nn.ctc_loss`` as TF's ``CTCLoss`` kernel reads them: each
batch entry's label sequence is its values in index order (the second index only orders
them), checked and shifted as TF's ``_ctc_loss_op_standard`` and the kernel do.

The result is the dense form (zero-padded ``[batch, longest]`` labels and their lengths)
that ``loss_ops``'s CTC loss takes. Eagerly every check of TF's kernel runs, with its
texts; traced labels (inside ``tapejax.function``) are taken as valid and sorted.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..errors import InvalidArgumentError
from ..sparse_tensor import SparseTensor, host_value, static_value
from ..tensor import Tensor, wrap
from ._sparse_common import iae, known_indices, validate_indices

__all__ = ["dense_ctc_labels", "length_mismatch"]


def length_mismatch(error, lengths: int, batch: int, op_name: str):
    """The CTC kernels' error for a ``sequence_length`` of another size than the batch."""
    return error(
        None,
        None,
        f"len(sequence_length) != batch_size.  len(sequence_length):  {lengths} batch_size: "
        f"{batch} [Op:{op_name}]",
    )


def _kernel_error(message: str) -> InvalidArgumentError:
    return iae(message, "CTCLoss")


def _check_host(indices, values, lengths, batch, max_time, classes) -> np.ndarray:
    """The kernel's checks in its order; each entry's label count as the kernel uses it
    (labels from the first one >= ``classes - 1`` on end the sequence)."""
    longest = int(indices[:, 1].max()) + 1 if indices.shape[0] else 0
    try:
        validate_indices(indices, (batch, longest), "CTCLoss")
    except InvalidArgumentError as e:
        raise _kernel_error(
            f"label SparseTensor is not valid: {str(e)[: -len(' [Op:CTCLoss]')]}"
        ) from None
    for b, n in enumerate(lengths):
        if not n <= max_time:
            raise _kernel_error(f"sequence_length({b}) <= {max_time}")
    counts = np.zeros(batch, np.int64)
    for b in range(batch):
        label = values[indices[:, 0] == b].tolist()
        if not label:
            raise _kernel_error(f"Labels length is zero in batch {b}")
        kept, finished = [], False
        for v in label:
            if v >= classes - 1:
                finished = True
            elif finished:
                raise _kernel_error(
                    "Saw a non-null label (index >= num_classes - 1) following a null label, "
                    f"batch: {b} num_classes: {classes} labels: {','.join(map(str, label))} "
                    f"labels seen so far: {','.join(map(str, kept))}"
                )
            else:
                kept.append(v)
        if any(v < 0 for v in kept):
            raise _kernel_error(
                f"All labels must be nonnegative integers, batch: {b} labels: "
                f"{','.join(map(str, kept))}"
            )
        if len(label) > lengths[b]:
            raise _kernel_error(
                f"Not enough time for target transition sequence (required: {len(label)}, "
                f"available: {lengths[b]}){b}You can turn this error into a warning by using "
                "the flag ignore_longer_outputs_than_inputs"
            )
        counts[b] = len(kept)
    return counts


def dense_ctc_labels(
    labels: SparseTensor, batch: int, max_time: int, classes: int, blank: int, logit_length: Tensor
):
    """``(labels, label_length)`` dense, for logits ``[max_time, batch, classes]``: the
    checks run on TF's shifted labels (those above ``blank`` moved down one, so that the
    blank is the last class), and the labels come back in the logits' classes."""
    values = labels.values
    if values._v.dtype != np.int32:
        shifted = np.where(
            np.asarray(values._value) < blank, values._value, np.asarray(values._value) - 1
        )
        raise ValueError(
            f"Tensor conversion requested dtype int32 for Tensor with dtype "
            f"{values.dtype.name}: {wrap(jnp.asarray(shifted))!r}"
        )
    shifted = jnp.where(values._value < blank, values._value, values._value - 1)
    idx = labels.indices._value
    width = labels.shape[1] if labels.shape.rank == 2 and labels.shape[1] is not None else None
    host_idx, host_values = known_indices(labels), static_value(wrap(shifted))
    host_lengths = host_value(logit_length)
    if host_idx is not None and host_values is not None and host_lengths is not None:
        counts = _check_host(
            host_idx.astype(np.int64), host_values, host_lengths, batch, max_time, classes
        )
        width = max(1, int(counts.max()) if counts.size else 1)
        lengths = jnp.asarray(counts.astype(np.int32))
    else:
        if width is None:
            raise NotImplementedError(
                "tapejax.nn.ctc_loss of traced SparseTensor labels needs their static dense shape"
            )
        rows = idx[:, 0].astype(jnp.int32)
        lengths = jnp.zeros((batch,), jnp.int32).at[rows].add(1, mode="drop")
    rows = idx[:, 0].astype(jnp.int32)
    first = jnp.searchsorted(rows, rows, side="left")
    position = jnp.arange(rows.shape[0], dtype=jnp.int32) - first.astype(jnp.int32)
    # Back to the logits' own classes (TF rotates the blank to the end instead).
    original = jnp.where(shifted < blank, shifted, shifted + 1)
    dense = (
        jnp.zeros((batch, max(width, 1)), jnp.int32).at[rows, position].set(original, mode="drop")
    )
    return wrap(dense), wrap(lengths)
