"""``tf.image``'s non-max suppression with TF's NonMaxSuppressionV3/V5 CPU kernel.

``non_max_suppression`` and ``non_max_suppression_with_scores``: a score priority queue,
ties to the lower index, soft-NMS re-queueing, IoU in float32, run on the host. Their output
size depends on the values, so they are eager only; the static-shape forms that also trace
are in ``batched_nms_ops``. TF registers no gradient for them (its tape raises
``LookupError``); here the tape gives None. Must never read traced values.
"""

from __future__ import annotations

import heapq

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ._helpers import TF_ALLOWED, dtype_mismatch, require, to_tensor

TF_ALLOWED.update(dict.fromkeys(["NonMaxSuppressionV3", "NonMaxSuppressionV5"], "half, float"))


def check_scores_and_size(s, n, size, op_name) -> None:
    """TF's NMS kernels' checks of ``scores`` (one per box of ``n``) and the output size."""
    if s._v.ndim != 1:
        raise _iae(
            f"scores must be 1-D{_dims(s._v.shape)} (Shape must be rank 1 but is rank {s._v.ndim})",
            op_name,
        )
    if s._v.shape[0] != n:
        raise _iae(
            "scores has incompatible shape (Dimensions must be equal, but are "
            f"{n} and {s._v.shape[0]})",
            op_name,
        )
    if size is not None and int(size) < 0:
        raise _iae("output size must be non-negative", op_name)


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape) -> str:
    return "[" + ",".join(map(str, shape)) + "]"


def _scalar(value, what: str, op_name: str, dtype, suffix: bool = True):
    """A scalar argument as a NumPy value of ``dtype`` (None when traced), with the kernel's
    rank check."""
    t = convert_to_tensor(value, dtype=dtype) if not isinstance(value, Tensor) else value
    if t._v.ndim:
        tail = f" (Shape must be rank 0 but is rank {t._v.ndim})" if suffix else ""
        raise _iae(f"{what} must be 0-D, got shape {_dims(t._v.shape)}{tail}", op_name)
    if not isinstance(value, Tensor) and not getattr(value, "_is_variable", False):
        return np.asarray(value, t._v.dtype)  # a Python or NumPy value: static, even in a trace
    v = t._value
    return None if isinstance(v, jax.core.Tracer) else np.asarray(v)


def _traced(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"tapejax.image.{what}: the number of boxes selected depends on the values, so it "
        "cannot be traced (inside tapejax.function or a JAX transform); call it eagerly, or "
        "use non_max_suppression_padded(pad_to_max_output_size=True) or "
        "combined_non_max_suppression there."
    )


def _host(t: Tensor, what: str):
    v = t._value
    if isinstance(v, jax.core.Tracer):
        raise _traced(what)
    return np.asarray(v)


# -- TF's NonMaxSuppressionV3/V5 kernel, on the host ------------------------------------------------


def _iou(boxes: np.ndarray, i: int, j: int) -> np.float32:
    """TF's IOU in float32, corners in any order; 0 for an empty box."""
    f = np.float32
    bi, bj = boxes[i].astype(f), boxes[j].astype(f)
    ymin_i, xmin_i = min(bi[0], bi[2]), min(bi[1], bi[3])
    ymax_i, xmax_i = max(bi[0], bi[2]), max(bi[1], bi[3])
    ymin_j, xmin_j = min(bj[0], bj[2]), min(bj[1], bj[3])
    ymax_j, xmax_j = max(bj[0], bj[2]), max(bj[1], bj[3])
    area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i)
    area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j)
    if area_i <= 0 or area_j <= 0:
        return f(0)
    height = max(min(ymax_i, ymax_j) - max(ymin_i, ymin_j), f(0))
    width = max(min(xmax_i, xmax_j) - max(xmin_i, xmin_j), f(0))
    inter = height * width
    return inter / (area_i + area_j - inter)


def _greedy(
    boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, similarity=None
):
    """TF's DoNonMaxSuppressionOp: selected indices and their (soft-NMS) scores. The
    similarity of boxes ``i`` and ``j`` is their IoU, or ``similarity(i, j)`` when given."""
    t = scores.dtype.type
    if similarity is None:
        similarity = lambda i, j: _iou(boxes, i, j)  # noqa: E731
    iou_threshold, score_threshold, sigma = t(iou_threshold), t(score_threshold), t(soft_nms_sigma)
    queue = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]
    heapq.heapify(queue)  # highest score first, ties to the lower index
    soft = sigma > 0
    scale = t(-0.5) / sigma if soft else t(0)
    selected, selected_scores = [], []
    while len(selected) < max_output_size and queue:
        neg, index, begin = heapq.heappop(queue)
        score = original = t(-neg)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = t(similarity(index, selected[j]))
            weight = t(np.exp(scale * sim * sim))
            score = t(score * (weight if soft or sim <= iou_threshold else t(0)))
            if not soft and sim > iou_threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, len(selected)))
    return np.array(selected, np.int32), np.array(selected_scores, scores.dtype)


def _nms_inputs(boxes, scores, max_output_size, iou_threshold, score_threshold, op_name):
    """The kernel's conversions and checks, in its order; host values of the scalars."""
    b, s = to_tensor(boxes), to_tensor(scores)
    require(b, "f", op_name)
    if s._v.dtype != b._v.dtype:
        raise dtype_mismatch(op_name, 1, b._v.dtype, s._v.dtype)
    size = _scalar(max_output_size, "max_output_size", op_name, dtypes.int32)
    iou = _scalar(iou_threshold, "iou_threshold", op_name, b.dtype)
    if iou is not None and not 0 <= float(iou) <= 1:
        raise _iae("iou_threshold must be in [0, 1]", op_name)
    score = _scalar(score_threshold, "score_threshold", op_name, b.dtype, suffix=False)
    if b._v.ndim != 2:
        raise _iae(
            f"boxes must be 2-D{_dims(b._v.shape)} (Shape must be rank 2 but is rank {b._v.ndim})",
            op_name,
        )
    if b._v.shape[1] != 4:
        raise _iae(
            f"boxes must have 4 columns (Dimension must be 4 but is {b._v.shape[1]})", op_name
        )
    check_scores_and_size(s, b._v.shape[0], size, op_name)
    what = "non_max_suppression" if op_name.endswith("V3") else "non_max_suppression_with_scores"
    if size is None or iou is None or score is None:
        raise _traced(what)
    return _host(b, what), _host(s, what), int(size), iou, score


def non_max_suppression(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    name=None,
):
    """Indices of at most ``max_output_size`` boxes, greedily by decreasing score, dropping
    those whose IoU with a selected one exceeds ``iou_threshold``
    (``tf.image.non_max_suppression``). Eager only (the size depends on the values).

    Example:
        >>> import tapejax as tf
        >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]]
        >>> tf.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).numpy()
        array([0, 2], dtype=int32)
    """
    op_name = "NonMaxSuppressionV3"
    selected, _ = _greedy(
        *_nms_inputs(boxes, scores, max_output_size, iou_threshold, score_threshold, op_name),
        0.0,
    )
    return wrap(jnp.asarray(selected))


def non_max_suppression_with_scores(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    soft_nms_sigma=0.0,
    name=None,
):
    """``non_max_suppression``'s indices and the selected boxes' scores; ``soft_nms_sigma`` > 0
    is Soft-NMS (scores decay by ``exp(-iou^2 / (2 sigma))``), as TF's
    (``tf.image.non_max_suppression_with_scores``). Eager only.

    Example:
        >>> import tapejax as tf
        >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.5, 1.0, 1.5]]
        >>> idx, kept = tf.image.non_max_suppression_with_scores(boxes, [0.9, 0.8], 2, soft_nms_sigma=0.5)
        >>> idx.numpy()
        array([0, 1], dtype=int32)
    """
    op_name = "NonMaxSuppressionV5"
    dtype = to_tensor(boxes).dtype
    # V5 takes its thresholds in the boxes' dtype; TF converts Python numbers to float32.
    for index, value in ((3, iou_threshold), (4, score_threshold), (5, soft_nms_sigma)):
        given = to_tensor(value).dtype
        if given != dtype:
            raise dtype_mismatch(op_name, index, dtype._np, given._np)
    sigma = _scalar(soft_nms_sigma, "soft_nms_sigma", op_name, dtype, suffix=False)
    if sigma is not None and float(sigma) < 0:
        raise _iae("soft_nms_sigma_val must be >= 0", op_name)
    inputs = _nms_inputs(boxes, scores, max_output_size, iou_threshold, score_threshold, op_name)
    if sigma is None:
        raise _traced("non_max_suppression_with_scores")
    selected, kept = _greedy(*inputs, sigma)
    return wrap(jnp.asarray(selected)), wrap(jnp.asarray(kept))
