"""``tf.nn.ctc_greedy_decoder`` and ``tf.nn.ctc_beam_search_decoder``: TF's CPU kernels,
run on the host (their results' sizes depend on the values), returning
``([SparseTensor], log_probabilities)`` as TF does.

The greedy decoder is TF's best path (the first maximum per step, repeats merged unless
``merge_repeated=False``, the negated maxima summed in the kernel's type and order). The
beam search is TF's algorithm step for step (``_ctc_beam_search``). TF registers neither
as differentiable, and their results are new tensors: the tape gives None through them.
Inside a traced program they raise ``NotImplementedError``.
"""

from __future__ import annotations

import numpy as np

from ..conversion import convert_to_tensor
from ..errors import FailedPreconditionError
from ._ctc_beam_search import beam_search
from ._ctc_labels import length_mismatch
from ._helpers import TF_ALLOWED, dtype_mismatch, require, to_tensor
from ._sparse_common import host_array, iae, new_sparse

__all__ = ["ctc_greedy_decoder", "ctc_beam_search_decoder"]

TF_ALLOWED.update(dict.fromkeys(["CTCGreedyDecoder", "CTCBeamSearchDecoder"], "float, double"))


def _decoder_inputs(inputs, sequence_length, op_name: str):
    """TF's ``CTCDecodeHelper::ValidateInputsGenerateOutputs`` checks; host arrays."""
    x = to_tensor(inputs)
    require(x, "f", op_name)
    lengths = to_tensor(sequence_length)
    if lengths._v.dtype != np.int32:
        raise dtype_mismatch(op_name, 1, np.dtype(np.int32), lengths._v.dtype)
    shape = x._v.shape
    if len(shape) != 3:
        raise iae("inputs is not a 3-Tensor", op_name)
    if not np.prod(shape):
        raise iae("inputs must not be empty", op_name)
    if lengths._v.ndim != 1:
        raise iae("sequence_length is not a vector", op_name)
    max_time, batch = shape[0], shape[1]
    if lengths._v.shape[0] != batch:
        raise length_mismatch(FailedPreconditionError, lengths._v.shape[0], batch, op_name)
    what = f"tapejax.nn.{'ctc_greedy_decoder' if op_name == 'CTCGreedyDecoder' else 'ctc_beam_search_decoder'}"
    host_lengths = host_array(sequence_length, what)
    for b, n in enumerate(host_lengths):
        if not n <= max_time:
            raise FailedPreconditionError(
                None, None, f"sequence_length({b}) <= {max_time} [Op:{op_name}]"
            )
    return host_array(inputs, what).astype(x._v.dtype), host_lengths


def _sparse_paths(paths: list, batch: int):
    """TF's ``StoreAllDecodedSequences`` for one path rank: ``paths[b]`` is batch entry
    b's label sequence."""
    indices = [(b, t) for b, seq in enumerate(paths) for t in range(len(seq))]
    values = [v for seq in paths for v in seq]
    longest = max((len(seq) for seq in paths), default=0)
    ids = convert_to_tensor(np.asarray(values, np.int64))
    return new_sparse(np.asarray(indices, np.int64).reshape(-1, 2), ids, (batch, longest))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Greedy (best path) decoding of logits ``[max_time, batch, num_classes]``
    (``tf.nn.ctc_greedy_decoder``).

    Returns ``([decoded], neg_sum_logits)``: ``decoded`` a SparseTensor of the decoded
    classes (indices ``[batch, time]``, dense shape ``[batch, longest]``), and
    ``neg_sum_logits`` ``[batch, 1]`` the negated sum of each step's largest logit. The
    blank class is ``blank_index`` (``num_classes - 1`` by default; negative counts from
    the end).

    Example:
        >>> import tapejax as tf
        >>> logits = tf.constant([[[0.1, 0.9, 0.0]], [[0.8, 0.1, 0.1]], [[0.7, 0.2, 0.1]]])
        >>> (decoded,), neg_sum = tf.nn.ctc_greedy_decoder(logits, [3])
        >>> decoded.values.numpy().tolist(), float(neg_sum[0, 0])
        ([1, 0], -2.4000000953674316)
    """
    op_name = "CTCGreedyDecoder"
    x, lengths = _decoder_inputs(inputs, sequence_length, op_name)
    max_time, batch, classes = x.shape
    blank = -1 if blank_index is None else int(blank_index)
    resolved = classes + blank if blank < 0 else blank
    if not 0 <= resolved < classes:
        raise iae(
            f"blank_index expected to be between {-classes} and {classes - 1} but was {blank}",
            op_name,
        )
    best = np.argmax(x, axis=2)  # the first maximum, as TF's RowMax
    peak = np.take_along_axis(x, best[..., None], axis=2)[..., 0]
    neg_sum = np.zeros(batch, x.dtype)
    paths = []
    for b in range(batch):
        seq, prev = [], -1
        for t in range(int(lengths[b])):
            neg_sum[b] = neg_sum[b] - peak[t, b]
            c = int(best[t, b])
            if c != resolved and not (merge_repeated and c == prev):
                seq.append(c)
            prev = c
        paths.append(seq)
    return [_sparse_paths(paths, batch)], convert_to_tensor(neg_sum[:, None])


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search decoding of logits ``[max_time, batch, num_classes]``
    (``tf.nn.ctc_beam_search_decoder``), TF's algorithm step for step; the blank is the
    last class.

    Returns ``(decoded, log_probabilities)``: ``decoded`` a list of ``top_paths``
    SparseTensors (the j-th best label sequence of each batch entry), and
    ``log_probabilities`` ``[batch, top_paths]``.

    Example:
        >>> import tapejax as tf
        >>> logits = tf.math.log(tf.constant([[[0.3, 0.7]], [[0.4, 0.6]]]))
        >>> decoded, log_p = tf.nn.ctc_beam_search_decoder(logits, [2], beam_width=2)
        >>> decoded[0].values.numpy().tolist(), round(float(log_p[0, 0]), 4)
        ([0], -0.5447)

    .. warning::
       Runs TF's kernel on the host, eagerly only. With float32 logits its exponentials
       are rounded from double precision, which can differ from TF's ``expf`` in the last
       bit; beams whose probabilities tie within that may then be ordered differently.
    """
    op_name = "CTCBeamSearchDecoder"
    for attr, v in (("beam_width", beam_width), ("top_paths", top_paths)):
        if int(v) < 1:
            raise iae(f"Value for attr '{attr}' of {int(v)} must be at least minimum 1", op_name)
    x, lengths = _decoder_inputs(inputs, sequence_length, op_name)
    found = beam_search(x, lengths, int(beam_width), int(top_paths))
    if isinstance(found, str):
        raise iae(found, op_name)
    paths, scores = found
    batch = x.shape[1]
    decoded = [
        _sparse_paths([paths[b][p] for b in range(batch)], batch) for p in range(int(top_paths))
    ]
    return decoded, convert_to_tensor(scores)
