"""``tf.image``'s non-max suppression with static output shapes, written in JAX so that
it also traces (inside ``tapejax.function``).

``non_max_suppression_padded`` is TF's tiled algorithm (its corner canonicalization from
the first box, its ``iou >= threshold`` within a tile, its zeroed boxes as "suppressed");
``combined_non_max_suppression`` TF's per-class kernel (greedy per class, then the best
over all classes, clipped and zero-padded). Not differentiable, as in TF.
"""

from __future__ import annotations

import math
from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import wrap
from ._helpers import to_tensor
from .nms_ops import _dims, _host, _iae, _scalar

# -- non_max_suppression_padded: TF's tiled algorithm, in JAX ---------------------------------------


def _overlap(a, b):
    """TF's ``_bbox_overlap``: IoU ``[batch, N, M]`` of canonical boxes, with its epsilon."""
    a_ymin, a_xmin, a_ymax, a_xmax = (a[..., k][:, :, None] for k in range(4))
    b_ymin, b_xmin, b_ymax, b_xmax = (b[..., k][:, None, :] for k in range(4))
    i_area = jnp.maximum(
        jnp.minimum(a_xmax, b_xmax) - jnp.maximum(a_xmin, b_xmin), 0
    ) * jnp.maximum(jnp.minimum(a_ymax, b_ymax) - jnp.maximum(a_ymin, b_ymin), 0)
    a_area = (a_ymax - a_ymin) * (a_xmax - a_xmin)
    b_area = (b_ymax - b_ymin) * (b_xmax - b_xmin)
    return i_area / (a_area + b_area - i_area + 1e-8)


def _suppress_tile(boxes, output_size, idx, *, tile, threshold):
    """TF's ``_suppression_loop_body`` for tile ``idx``."""
    batch = boxes.shape[0]
    box_slice = jax.lax.dynamic_slice_in_dim(boxes, idx * tile, tile, axis=1)

    def cross(inner, box_slice):
        earlier = jax.lax.dynamic_slice_in_dim(boxes, inner * tile, tile, axis=1)
        keep = jnp.all(_overlap(earlier, box_slice) < threshold, axis=1)
        return keep[..., None].astype(box_slice.dtype) * box_slice

    box_slice = jax.lax.fori_loop(0, idx, cross, box_slice)
    iou = _overlap(box_slice, box_slice)
    later = jnp.arange(tile)[None, :] > jnp.arange(tile)[:, None]
    iou = iou * (later[None] & (iou >= threshold)).astype(iou.dtype)

    def self_suppress(state):
        iou, _, iou_sum = state
        free = (jnp.max(iou, axis=1) < threshold).astype(iou.dtype).reshape(batch, -1, 1)
        kept = (jnp.max(free * iou, axis=1) < threshold).astype(iou.dtype).reshape(batch, -1, 1)
        iou = kept * iou
        new_sum = jnp.sum(iou, axis=(1, 2))
        return iou, jnp.any(iou_sum - new_sum > threshold), new_sum

    iou, _, _ = jax.lax.while_loop(
        lambda state: state[1], self_suppress, (iou, jnp.array(True), jnp.sum(iou, axis=(1, 2)))
    )
    suppressed = jnp.sum(iou, axis=1) > 0
    box_slice = box_slice * (1.0 - suppressed.astype(box_slice.dtype))[..., None]
    boxes = jax.lax.dynamic_update_slice_in_dim(boxes, box_slice, idx * tile, axis=1)
    output_size = output_size + jnp.sum(jnp.any(box_slice > 0, axis=2), axis=1, dtype=jnp.int32)
    return boxes, output_size


def _padded_fn(
    boxes, scores, *, size, iou_threshold, score_threshold, sorted_input, canonical, tile
):
    n = boxes.shape[1]
    if score_threshold != float("-inf"):
        mask = (scores > score_threshold).astype(scores.dtype)
        scores = scores * mask
        boxes = boxes * mask[..., None].astype(boxes.dtype)
    if not canonical:  # TF decides the corner order from the first box only
        y1, x1, y2, x2 = (boxes[..., k] for k in range(4))
        y_first, x_first = y1[0, 0] <= y2[0, 0], x1[0, 0] <= x2[0, 0]
        boxes = jnp.stack(
            [
                jnp.where(y_first, y1, y2),
                jnp.where(x_first, x1, x2),
                jnp.where(y_first, y2, y1),
                jnp.where(x_first, x2, x1),
            ],
            axis=-1,
        )
    order = None
    if not sorted_input:
        order = jnp.argsort(scores, axis=1, descending=True, stable=True)
        boxes = jnp.take_along_axis(boxes, order[..., None], axis=1)
    padded = math.ceil(max(n, size) / tile) * tile
    boxes = jnp.pad(boxes.astype(jnp.float32), ((0, 0), (0, padded - n), (0, 0)))
    iterations = padded // tile

    def cond(state):
        _, output_size, idx = state
        return (jnp.min(output_size) < size) & (idx < iterations)

    def body(state):
        boxes, output_size, idx = state
        boxes, output_size = _suppress_tile(
            boxes, output_size, idx, tile=tile, threshold=iou_threshold
        )
        return boxes, output_size, idx + 1

    state = (boxes, jnp.zeros(boxes.shape[0], jnp.int32), jnp.array(0))
    boxes, output_size, _ = jax.lax.while_loop(cond, body, state)
    num_valid = jnp.minimum(output_size, size)
    alive = jnp.any(boxes > 0, axis=2).astype(jnp.int32) * jnp.arange(padded, 0, -1)[None]
    idx = padded - jax.lax.top_k(alive, size)[0]
    idx = jnp.minimum(idx, n - 1)
    if order is not None:
        idx = jnp.take_along_axis(order.astype(jnp.int32), idx, axis=1)
    idx = jnp.where(jnp.arange(size)[None] < num_valid[:, None], idx, 0)
    return idx.astype(jnp.int32), num_valid


_padded_op = Op("NonMaxSuppressionPadded", _padded_fn, differentiable=False, multiple_outputs=True)


def non_max_suppression_padded(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_to_max_output_size=False,
    name=None,
    sorted_input=False,
    canonicalized_coordinates=False,
    tile_size=512,
):
    """``(indices, num_valid)`` of TF's tiled non-max suppression for ``[..., N, 4]`` boxes
    (``tf.image.non_max_suppression_padded``): indices zero-padded to ``max_output_size``
    (with ``pad_to_max_output_size``; then it also traces), else the ``num_valid`` first.

    Example:
        >>> import tapejax as tf
        >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]]
        >>> idx, n = tf.image.non_max_suppression_padded(boxes, [0.9, 0.8, 0.7], 3, pad_to_max_output_size=True)
        >>> idx.numpy(), int(n)
        (array([0, 2, 0], dtype=int32), 2)
    """
    b, s = to_tensor(boxes), to_tensor(scores)
    if not pad_to_max_output_size and b._v.ndim > 2:
        raise ValueError(
            f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for "
            "batched input"
        )
    size = _scalar(max_output_size, "max_output_size", "NonMaxSuppressionPadded", dtypes.int32)
    if size is None:
        raise NotImplementedError(
            "tapejax.image.non_max_suppression_padded: a traced `max_output_size` sets the "
            "output shape; pass it as a Python int."
        )
    batch = b._v.shape[:-2]
    n = b._v.shape[-2]
    flat_boxes = b._value.reshape((-1, n, 4))
    flat_scores = s._value.reshape((-1, n))
    static = (
        ("canonical", bool(canonicalized_coordinates)),
        ("iou_threshold", float(np.float32(iou_threshold))),
        ("score_threshold", float(score_threshold)),
        ("size", int(size)),
        ("sorted_input", bool(sorted_input)),
        ("tile", int(tile_size)),
    )
    idx, num_valid = apply(_padded_op, (wrap(flat_boxes), wrap(flat_scores)), static)
    if not pad_to_max_output_size:
        count = _host(num_valid, "non_max_suppression_padded (pad_to_max_output_size=False)")
        return wrap(idx._value[0, : int(count[0])]), wrap(num_valid._value.reshape(batch))
    return wrap(idx._value.reshape(batch + (int(size),))), wrap(num_valid._value.reshape(batch))


# -- combined_non_max_suppression: TF's per-class kernel, in JAX ------------------------------------

CombinedNonMaxSuppression = namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"],
)


def _kernel_iou(a, b):
    """TF's kernel IOU ``[..., N, M]``: corners in any order, 0 for an empty box."""

    def canonical(x):
        return (
            jnp.minimum(x[..., 0], x[..., 2]),
            jnp.minimum(x[..., 1], x[..., 3]),
            jnp.maximum(x[..., 0], x[..., 2]),
            jnp.maximum(x[..., 1], x[..., 3]),
        )

    ay0, ax0, ay1, ax1 = (v[..., :, None] for v in canonical(a))
    by0, bx0, by1, bx1 = (v[..., None, :] for v in canonical(b))
    area_a = (ay1 - ay0) * (ax1 - ax0)
    area_b = (by1 - by0) * (bx1 - bx0)
    inter = jnp.maximum(jnp.minimum(ay1, by1) - jnp.maximum(ay0, by0), 0) * jnp.maximum(
        jnp.minimum(ax1, bx1) - jnp.maximum(ax0, bx0), 0
    )
    iou = inter / jnp.where((area_a <= 0) | (area_b <= 0), 1.0, area_a + area_b - inter)
    return jnp.where((area_a <= 0) | (area_b <= 0), 0.0, iou)


def _combined_fn(
    boxes,
    scores,
    *,
    per_class,
    total,
    per_batch,
    iou_threshold,
    score_threshold,
    pad_per_class,
    clip,
):
    batch, n, q, _ = boxes.shape
    classes = scores.shape[2]
    size_per_class = min(per_class, n)
    by_class = jnp.moveaxis(scores, 2, 1)  # [batch, classes, n]
    class_boxes = (
        jnp.moveaxis(boxes, 2, 1) if q > 1 else jnp.repeat(boxes[:, None, :, 0], classes, 1)
    )
    order = jnp.argsort(by_class, axis=2, descending=True, stable=True)
    s = jnp.take_along_axis(by_class, order, axis=2)
    bx = jnp.take_along_axis(class_boxes, order[..., None], axis=2)
    iou = _kernel_iou(bx, bx)
    candidate = s > score_threshold

    def step(k, state):
        selected, count = state
        clear = ~jnp.any(selected & (iou[..., k, :] > iou_threshold), axis=-1)
        take = candidate[..., k] & (count < size_per_class) & clear
        return selected.at[..., k].set(take), count + take

    selected, count = jax.lax.fori_loop(
        0, n, step, (jnp.zeros(s.shape, bool), jnp.zeros(s.shape[:2], jnp.int32))
    )
    # Each class's selections in order, in ``size_per_class`` slots (unused: score -inf).
    rank = jnp.cumsum(selected, axis=2) - 1
    slot = jnp.where(selected, rank, size_per_class)
    slots = jnp.full(s.shape[:2] + (size_per_class + 1,), -jnp.inf, s.dtype)
    slot_scores = slots.at[
        jnp.arange(batch)[:, None, None], jnp.arange(classes)[None, :, None], slot
    ].set(s)[..., :-1]
    box_slots = jnp.zeros(s.shape[:2] + (size_per_class + 1, 4), bx.dtype)
    slot_boxes = box_slots.at[
        jnp.arange(batch)[:, None, None], jnp.arange(classes)[None, :, None], slot
    ].set(bx)[..., :-1, :]
    flat_scores = slot_scores.reshape(batch, -1)
    flat_boxes = slot_boxes.reshape(batch, -1, 4)
    flat_classes = jnp.broadcast_to(
        jnp.arange(classes)[:, None], (classes, size_per_class)
    ).reshape(-1)
    best = jnp.argsort(flat_scores, axis=1, descending=True, stable=True)
    flat_scores = jnp.take_along_axis(flat_scores, best, axis=1)
    flat_boxes = jnp.take_along_axis(flat_boxes, best[..., None], axis=1)
    flat_classes = flat_classes[best].astype(jnp.float32)
    found = jnp.sum(count, axis=1)
    valid = jnp.minimum(found, per_batch if pad_per_class else total)
    if clip:
        flat_boxes = jnp.clip(flat_boxes, 0.0, 1.0)
    width = flat_scores.shape[1]
    if width < per_batch:
        extra = per_batch - width
        flat_scores = jnp.pad(flat_scores, ((0, 0), (0, extra)))
        flat_boxes = jnp.pad(flat_boxes, ((0, 0), (0, extra), (0, 0)))
        flat_classes = jnp.pad(flat_classes, ((0, 0), (0, extra)))
    keep = jnp.arange(per_batch)[None] < valid[:, None]
    return (
        jnp.where(keep[..., None], flat_boxes[:, :per_batch], 0.0),
        jnp.where(keep, flat_scores[:, :per_batch], 0.0),
        jnp.where(keep, flat_classes[:, :per_batch], 0.0),
        valid.astype(jnp.int32),
    )


_combined_op = Op(
    "CombinedNonMaxSuppression", _combined_fn, differentiable=False, multiple_outputs=True
)


def combined_non_max_suppression(
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_per_class=False,
    clip_boxes=True,
    name=None,
):
    """Per-class non-max suppression of ``[batch, N, q, 4]`` boxes with ``[batch, N, classes]``
    scores, then the best ``max_total_size`` over all classes, zero-padded
    (``tf.image.combined_non_max_suppression``); traces (static output shapes).

    Example:
        >>> import tapejax as tf
        >>> boxes = tf.constant([[[[0.0, 0.0, 1.0, 1.0]], [[0.0, 0.1, 1.0, 1.1]]]])
        >>> out = tf.image.combined_non_max_suppression(boxes, [[[0.9], [0.8]]], 2, 2)
        >>> out.valid_detections.numpy()
        array([1], dtype=int32)
    """
    op_name = "CombinedNonMaxSuppression"
    b = convert_to_tensor(boxes, dtype=dtypes.float32)
    s = convert_to_tensor(scores, dtype=dtypes.float32)
    iou = _scalar(iou_threshold, "iou_threshold", op_name, dtypes.float32, suffix=False)
    score = _scalar(score_threshold, "score_threshold", op_name, dtypes.float32, suffix=False)
    if b._v.ndim != 4:
        raise _iae(f"boxes must be 4-D{_dims(b._v.shape)}", op_name)
    if s._v.ndim != 3:  # TF 2.21's kernel aborts the process here
        raise _iae(f"scores must be 3-D{_dims(s._v.shape)}", op_name)
    batch, n, q, cols = b._v.shape
    classes = s._v.shape[2]
    if q not in (1, classes):
        raise _iae("third dimension of boxes must be either 1 or num classes", op_name)
    if cols != 4:
        raise _iae("boxes must have 4 columns", op_name)
    if s._v.shape[1] != n:
        raise _iae("scores has incompatible shape", op_name)
    if s._v.shape[0] != batch:
        raise _iae("boxes and scores must have same batch size", op_name)
    per_class = _scalar(
        max_output_size_per_class, "max_size_per_class", op_name, dtypes.int32, suffix=False
    )
    total = _scalar(max_total_size, "max_total_size", op_name, dtypes.int32, suffix=False)
    if per_class is None or total is None or iou is None or score is None:
        raise NotImplementedError(
            "tapejax.image.combined_non_max_suppression: traced sizes or thresholds; pass them "
            "as Python numbers (the boxes and scores may be traced)."
        )
    if int(per_class) <= 0:
        raise _iae("max_size_per_class must be positive", op_name)
    if int(total) <= 0:
        raise _iae("max_total_size must be > 0", op_name)
    if not 0 <= float(iou) <= 1:
        raise _iae("iou_threshold must be in [0, 1]", op_name)
    per_batch = int(total)
    if pad_per_class:
        per_batch = min(int(total), int(per_class) * classes)
    static = (
        ("clip", bool(clip_boxes)),
        ("iou_threshold", float(iou)),
        ("pad_per_class", bool(pad_per_class)),
        ("per_batch", per_batch),
        ("per_class", int(per_class)),
        ("score_threshold", float(score)),
        ("total", int(total)),
    )
    return CombinedNonMaxSuppression(*apply(_combined_op, (b, s), static))
