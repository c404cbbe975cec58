"""``tf.image.generate_bounding_box_proposals``: Faster R-CNN's region proposals, as TF's
``GenerateBoundingBoxProposals`` GPU kernel computes them (TF registers no CPU kernel).

Per image: the scores sorted descending (ties by index, as CUB's radix sort), the best
``pre_nms_topn`` anchors decoded with their deltas, clipped to the image and dropped when
a side is under ``min_size`` times the image scale, greedy non-max suppression with the
GPU kernel's overlap test, and the first ``post_nms_topn`` survivors, zero-padded. Output
shapes are static, so it traces. TF registers no gradient; the tape gives None. Must
never read a traced value.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, OutOfRangeError
from ..tensor import Tensor
from ._helpers import dtype_mismatch, to_tensor

_OP = "GenerateBoundingBoxProposals"
# The kernel's upper bound on the encoded width and height, log(1000 / 16), as a float.
_XFORM_CLIP = np.float32(math.log(1000.0 / 16.0))


def _descending_order(scores):
    """Indices sorting float32 ``scores`` descending by their bits (CUB's radix order:
    NaN above inf, 0.0 above -0.0), equal keys by index."""
    bits = jax.lax.bitcast_convert_type(scores, jnp.int32)
    key = jnp.where(bits >= 0, bits, bits ^ jnp.int32(0x7FFFFFFF))
    return jnp.argsort(~key, axis=-1, stable=True)


def _over_threshold(box, area, boxes, areas, threshold):
    """The GPU NMS kernel's test: intersection > union * threshold, zero areas never."""
    w = jnp.maximum(jnp.fmin(box[2], boxes[:, 2]) - jnp.fmax(box[0], boxes[:, 0]), 0.0)
    h = jnp.maximum(jnp.fmin(box[3], boxes[:, 3]) - jnp.fmax(box[1], boxes[:, 1]), 0.0)
    inter = w * h
    over = inter > (area + areas - inter) * threshold
    return over & (area != 0.0) & (areas != 0.0)


def _image_proposals(boxes, scores, keep, threshold, post_n):
    """Greedy NMS over one image's decoded ``[x1, y1, x2, y2]`` boxes, in score order."""
    n = boxes.shape[0]
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    later = jnp.arange(n)

    def step(i, state):
        suppressed, kept = state
        take = keep[i] & ~suppressed[i]
        over = _over_threshold(boxes[i], areas[i], boxes, areas, threshold) & (later > i)
        return suppressed | (take & over), kept.at[i].set(take)

    empty = jnp.zeros((n,), bool)
    _, kept = jax.lax.fori_loop(0, n, step, (empty, empty))
    rank = jnp.cumsum(kept) - 1
    slot = jnp.where(kept & (rank < post_n), rank, post_n)
    rois = jnp.stack([boxes[:, 1], boxes[:, 0], boxes[:, 3], boxes[:, 2]], axis=-1)
    out_rois = jnp.zeros((post_n, 4), jnp.float32).at[slot].set(rois, mode="drop")
    out_scores = jnp.zeros((post_n,), jnp.float32).at[slot].set(scores, mode="drop")
    return out_rois, out_scores


def _proposals_fn(scores, deltas, info, anchors, threshold, min_size, *, pre_n, post_n):
    batch, height, width, num_anchors = scores.shape
    total = height * width * num_anchors
    n = min(total, pre_n)
    flat_scores = scores.reshape(batch, total)
    order = _descending_order(flat_scores)[:, :n]
    top_scores = jnp.take_along_axis(flat_scores, order, axis=1)
    anchor = anchors.reshape(total, 4)[order]  # [y1, x1, y2, x2] per (h, w, a)
    delta = jnp.take_along_axis(deltas.reshape(batch, total, 4), order[..., None], axis=1)
    y1, x1, y2, x2 = (anchor[..., k] for k in range(4))
    dy, dx, dh, dw = (delta[..., k] for k in range(4))
    dw = jnp.fmin(dw, _XFORM_CLIP)
    dh = jnp.fmin(dh, _XFORM_CLIP)
    w = x2 - x1
    ctr_x = x1 + 0.5 * w
    pred_ctr_x = ctr_x + w * dx
    pred_w = w * jnp.exp(dw)
    x1, x2 = pred_ctr_x - 0.5 * pred_w, pred_ctr_x + 0.5 * pred_w
    h = y2 - y1
    ctr_y = y1 + 0.5 * h
    pred_ctr_y = ctr_y + h * dy
    pred_h = h * jnp.exp(dh)
    y1, y2 = pred_ctr_y - 0.5 * pred_h, pred_ctr_y + 0.5 * pred_h
    img_h, img_w = info[:, 0:1], info[:, 1:2]
    min_scaled = min_size * info[:, 2:3]
    x1 = jnp.fmax(jnp.fmin(x1, img_w), 0.0)
    y1 = jnp.fmax(jnp.fmin(y1, img_h), 0.0)
    x2 = jnp.fmax(jnp.fmin(x2, img_w), 0.0)
    y2 = jnp.fmax(jnp.fmin(y2, img_h), 0.0)
    keep = jnp.fmin(x2 - x1, y2 - y1) >= min_scaled
    boxes = jnp.stack([x1, y1, x2, y2], axis=-1)
    per_image = jax.vmap(_image_proposals, in_axes=(0, 0, 0, None, None))
    return per_image(boxes, top_scores, keep, threshold, post_n)


_proposals_op = Op(_OP, _proposals_fn, differentiable=False, multiple_outputs=True)


def _error(message: str, kind=InvalidArgumentError):
    return kind(None, None, f"{message} [Op:{_OP}]")


def _float_input(value, index: int) -> Tensor:
    t = to_tensor(value) if isinstance(value, Tensor) else convert_to_tensor(value, dtypes.float32)
    if t.dtype != dtypes.float32:
        raise dtype_mismatch(_OP, index, np.dtype(np.float32), t._v.dtype)
    return t


def _rank(t: Tensor, rank: int, what: str) -> None:
    if t._v.ndim != rank:
        raise _error(f"{what} must be rank {rank} but is rank {t._v.ndim}")


def _concrete(t: Tensor, given):
    """The value of a scalar argument, None when traced; a Python or NumPy one is static."""
    if not isinstance(given, Tensor) and not getattr(given, "_is_variable", False):
        return np.asarray(given)
    v = t._value
    return None if isinstance(v, jax.core.Tracer) else np.asarray(v)


def generate_bounding_box_proposals(
    scores,
    bbox_deltas,
    image_info,
    anchors,
    nms_threshold=0.7,
    pre_nms_topn=6000,
    min_size=16,
    post_nms_topn=300,
    name=None,
):
    """Region proposals from anchor scores and box deltas
    (``tf.image.generate_bounding_box_proposals``).

    Args:
        scores: ``[num_images, height, width, num_anchors]`` float32 scores.
        bbox_deltas: ``[num_images, height, width, 4 * num_anchors]`` deltas
            ``[dy, dx, dh, dw]`` per anchor.
        image_info: ``[num_images, 5]``: each image's height, width and scale (the last
            two columns are unused).
        anchors: ``[height, width, 4 * num_anchors]`` anchors ``[y1, x1, y2, x2]`` (TF's
            documentation says ``[num_anchors, 4]``; its op requires rank 3).
        nms_threshold: the overlap above which a lower-scored box is suppressed, in [0, 1].
        pre_nms_topn: how many of the best-scored anchors are decoded; a Python value or a
            concrete tensor (it sets a shape).
        min_size: the shortest side a box keeps, times the image's scale.
        post_nms_topn: the number of output boxes per image.
        name: unused (TF's op name).

    Returns:
        ``(rois, roi_probabilities)``: ``[num_images, post_nms_topn, 4]`` boxes
        ``[y1, x1, y2, x2]`` by descending score, and their scores; zeros past the last
        proposal.

    Raises:
        InvalidArgumentError: a threshold or count out of range, a wrong rank or dtype.
        OutOfRangeError: ``anchors`` does not hold 4 numbers per anchor (TF's text).

    .. warning::
        TF has only a GPU kernel for this op: on a CPU, TF raises ``NotFoundError``. The
        results are the GPU kernel's up to float rounding (its ``expf`` and fused
        multiply-adds may round the last bit differently). Inside ``tapejax.function`` a
        traced ``nms_threshold`` is not range-checked.

    Example:
        >>> import tapejax as tf
        >>> rois, probs = tf.image.generate_bounding_box_proposals(
        ...     tf.constant([[[[0.9, 0.8]]]]), tf.zeros([1, 1, 1, 8]),
        ...     tf.constant([[20.0, 20.0, 1.0, 0.0, 0.0]]),
        ...     tf.constant([[[0.0, 0.0, 10.0, 10.0, 0.0, 0.0, 10.0, 9.0]]]),
        ...     min_size=1, post_nms_topn=2)
        >>> probs.numpy()[0]
        array([0.9, 0. ], dtype=float32)
    """
    del name
    post_n = int(post_nms_topn)
    if post_n <= 0:
        raise _error("post_nms_topn can't be 0 or less")
    s = _float_input(scores, 0)
    d = _float_input(bbox_deltas, 1)
    info = _float_input(image_info, 2)
    a = _float_input(anchors, 3)
    threshold = _float_input(nms_threshold, 4)
    pre = convert_to_tensor(pre_nms_topn, dtypes.int32)
    size = _float_input(min_size, 6)
    for t, rank, what in (
        (s, 4, "scores"),
        (d, 4, "bbox_deltas"),
        (info, 2, "image_info"),
        (a, 3, "anchors"),
        (threshold, 0, "nms_threshold"),
        (pre, 0, "pre_nms_topn"),
        (size, 0, "min_size"),
    ):
        _rank(t, rank, what)
    batch, height, width, num_anchors = s._v.shape
    if num_anchors == 0 or a._v.shape[2] // num_anchors != 4:
        raise _error("Box dimensions need to be 4", OutOfRangeError)
    if d._v.shape != (batch, height, width, 4 * num_anchors):
        raise _error(
            f"bbox_deltas must have shape [{batch},{height},{width},{4 * num_anchors}], got "
            f"[{','.join(map(str, d._v.shape))}]"
        )
    if a._v.shape != (height, width, 4 * num_anchors):
        raise _error(
            f"anchors must have shape [{height},{width},{4 * num_anchors}], got "
            f"[{','.join(map(str, a._v.shape))}]"
        )
    if info._v.shape[0] != batch or info._v.shape[1] < 3:
        raise _error(
            f"image_info must have shape [{batch},5], got [{','.join(map(str, info._v.shape))}]"
        )
    t = _concrete(threshold, nms_threshold)
    if t is not None and (t < 0 or t > 1.0):
        raise _error(f"nms_threshold should be between 0 and 1. Got {float(t):g}")
    pre_n = _concrete(pre, pre_nms_topn)
    if pre_n is None:
        raise NotImplementedError(
            "tapejax.image.generate_bounding_box_proposals: pre_nms_topn sets the number of "
            "boxes decoded, a shape, so it must be a Python value or a concrete tensor inside "
            "tapejax.function or a JAX transform."
        )
    if int(pre_n) <= 0:
        raise _error(f"pre_nms_topn should be greater than 0{int(pre_n)}")
    static = (("post_n", post_n), ("pre_n", int(pre_n)))
    return tuple(apply(_proposals_op, (s, d, info, a, threshold, size), static))
