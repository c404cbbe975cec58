"""``tf.image.sample_distorted_bounding_box`` and its stateless form: TF's kernel
(sample_distorted_bounding_box_op.cc) written in JAX, drawing from ``tapejax.random``.

Every attempt gets four random 31-bit integers (TF reserves four samples per attempt too) and
all ``max_attempts`` are computed at once; the first that yields a crop satisfying TF's
constraints wins, else the whole image. The arithmetic is TF's (float32 areas, ``lrintf``,
truncated box corners), so only the random numbers differ from TF's. Value checks of
``image_size`` and the boxes run eagerly only; the op traces. Must never read traced values.
"""

from __future__ import annotations

from collections import namedtuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor, wrap
from ._helpers import TF_ALLOWED, require, to_tensor
from .array_ops import reshape
from .nms_ops import _dims, _iae
from .random_ops import _checked_seed, stateless_uniform, uniform

_OP_NAMES = ("SampleDistortedBoundingBoxV2", "StatelessSampleDistortedBoundingBox")
TF_ALLOWED.update(dict.fromkeys(_OP_NAMES, "uint8, int8, int16, int32, int64"))

_RESULTS = {name: namedtuple(name, ["begin", "size", "bboxes"]) for name in _OP_NAMES}
_INT32_MAX = 2**31 - 1


def _rint(x):
    """``lrintf``: to the nearest integer, ties to even."""
    return jnp.rint(x).astype(jnp.int32)


def _area(min_x, min_y, max_x, max_y):
    """TF's ``Rectangle::Area``: an integer product, as float32."""
    return ((max_x - min_x) * (max_y - min_y)).astype(jnp.float32)


def _random_crop(draws, width, height, min_rel, max_rel, aspect):
    """TF's ``GenerateRandomCrop`` for every attempt at once: ``(ok, x, y, w, h)``."""
    f32 = jnp.float32
    fw, fh = width.astype(f32), height.astype(f32)
    ok = (max_rel > 0) & (aspect > 0) & (width > 0) & (height > 0) & (min_rel <= max_rel)
    min_area = min_rel * fw * fh
    max_area = max_rel * fw * fh
    h = _rint(jnp.sqrt(min_area / aspect))
    max_h = _rint(jnp.sqrt(max_area / aspect))
    too_wide = _rint(max_h.astype(f32) * aspect) > width
    # TF computes this bound in double; float32 can differ by one at a rounding boundary,
    # and the check that follows keeps the width within the image either way.
    narrowed = ((fw + f32(0.5) - f32(1e-7)) / aspect).astype(jnp.int32)
    narrowed = jnp.where(_rint(narrowed.astype(f32) * aspect) > width, narrowed - 1, narrowed)
    max_h = jnp.minimum(jnp.where(too_wide, narrowed, max_h), height)
    h = jnp.minimum(h, max_h)
    h = jnp.where(h < max_h, h + draws[:, 1] % jnp.maximum(max_h - h + 1, 1), h)
    w = _rint(h.astype(f32) * aspect)
    area = (w * h).astype(f32)
    grow = area < min_area
    h = jnp.where(grow, h + 1, h)
    w = jnp.where(grow, _rint(h.astype(f32) * aspect), w)
    area = (w * h).astype(f32)
    shrink = area > max_area
    h = jnp.where(shrink, h - 1, h)
    w = jnp.where(shrink, _rint(h.astype(f32) * aspect), w)
    area = (w * h).astype(f32)
    ok &= ~((area < min_area) | (area > max_area) | (w > width) | (h > height))
    ok &= (w > 0) & (h > 0)
    y = jnp.where(h < height, draws[:, 2] % jnp.maximum(height - h, 1), 0)
    x = jnp.where(w < width, draws[:, 3] % jnp.maximum(width - w, 1), 0)
    return ok, x, y, w, h


def _covers(x, y, w, h, boxes, min_covered):
    """TF's ``SatisfiesOverlapConstraints`` of each attempt's crop against all boxes."""
    min_x, min_y, max_x, max_y = (v[:, None] for v in (x, y, x + w, y + h))
    b_min_x, b_min_y, b_max_x, b_max_y = (boxes[None, :, k] for k in range(4))
    p_min_x, p_min_y = jnp.maximum(min_x, b_min_x), jnp.maximum(min_y, b_min_y)
    p_max_x, p_max_y = jnp.minimum(max_x, b_max_x), jnp.minimum(max_y, b_max_y)
    empty = (p_min_x > p_max_x) | (p_min_y > p_max_y)
    inter = jnp.where(empty, jnp.float32(0), _area(p_min_x, p_min_y, p_max_x, p_max_y))
    object_area = _area(b_min_x, b_min_y, b_max_x, b_max_y)
    covered = (object_area >= 1) & (
        inter / jnp.where(object_area >= 1, object_area, 1) >= min_covered
    )
    return (_area(min_x, min_y, max_x, max_y)[:, 0] >= 1) & jnp.any(covered, axis=1)


def _sample_fn(image_size, boxes, min_covered, draws, ranges):
    """The crop for ``ranges`` = ``[min_aspect, max_aspect, min_area, max_area]`` (float32,
    an argument so that other ranges reuse the compiled function)."""
    aspect_range, area_range = ranges[:2], ranges[2:]
    height, width = image_size[0].astype(jnp.int32), image_size[1].astype(jnp.int32)
    f32 = jnp.float32
    if boxes.shape[0]:
        rects = jnp.stack(
            [
                jnp.trunc(boxes[:, 1] * width.astype(f32)),
                jnp.trunc(boxes[:, 0] * height.astype(f32)),
                jnp.trunc(boxes[:, 3] * width.astype(f32)),
                jnp.trunc(boxes[:, 2] * height.astype(f32)),
            ],
            axis=1,
        ).astype(jnp.int32)
    else:  # use_image_if_no_bounding_boxes
        rects = jnp.stack([jnp.int32(0), jnp.int32(0), width, height])[None]
    # RandFloat: 23 random mantissa bits.
    unit = (draws[:, 0] & 0x7FFFFF).astype(f32) / f32(2**23)
    aspect = unit * (aspect_range[1] - aspect_range[0]) + aspect_range[0]
    ok, x, y, w, h = _random_crop(draws, width, height, area_range[0], area_range[1], aspect)
    ok &= _covers(x, y, w, h, rects, min_covered)
    first = jnp.argmax(ok)
    found = ok[first]
    x, y = jnp.where(found, x[first], 0), jnp.where(found, y[first], 0)
    w, h = jnp.where(found, w[first], width), jnp.where(found, h[first], height)
    dt = image_size.dtype
    begin = jnp.stack([y, x, jnp.int32(0)]).astype(dt)
    size = jnp.stack([h, w, jnp.int32(-1)]).astype(dt)
    fh, fw = height.astype(f32), width.astype(f32)
    bbox = jnp.stack([y.astype(f32) / fh, x.astype(f32) / fw, (y + h) / fh, (x + w) / fw])
    return begin, size, bbox.astype(f32).reshape(1, 1, 4)


_sample_ops = {
    name: Op(name, _sample_fn, differentiable=False, multiple_outputs=True) for name in _OP_NAMES
}


def _attr_float(v: float) -> str:
    """A float32 attribute as TF's StrCat writes it: 6 significant digits, 9 if needed."""
    f = np.float32(v)
    text = f"{float(f):.6g}"
    return text if np.float32(text) == f else f"{float(f):.9g}"


def _checked_attrs(aspect_ratio_range, area_range, max_attempts, op_name):
    aspect = [float(v) for v in aspect_ratio_range]
    if len(aspect) != 2:
        raise _iae("Aspect ratio range field must specify 2 dimensions", op_name)
    if not (aspect[0] > 0 and aspect[1] > 0):
        raise _iae(
            f"Aspect ratio range must be non-negative: [{_attr_float(aspect[0])}, "
            f"{_attr_float(aspect[1])}]",
            op_name,
        )
    area = [float(v) for v in area_range]
    if len(area) != 2:
        raise _iae("Area range field must specify 2 dimensions", op_name)
    shown = f"[{_attr_float(area[0])}, {_attr_float(area[1])}]"
    if not (area[0] > 0 and area[1] > 0):
        raise _iae(f"Area range must be non-negative: {shown}", op_name)
    if not (area[0] <= 1 and area[1] <= 1):
        raise _iae(f"Area range must be less then or equal to 1.0: {shown}", op_name)
    if int(max_attempts) <= 0:
        raise _iae(f"Max attempts must be non-negative: {int(max_attempts)}", op_name)
    return aspect, area, int(max_attempts)


def _concrete(t: Tensor):
    v = t._value
    return None if isinstance(v, jax.core.Tracer) else np.asarray(v)


def _sample(
    op_name,
    image_size,
    bounding_boxes,
    min_object_covered,
    aspect_ratio_range,
    area_range,
    max_attempts,
    use_image_if_no_bounding_boxes,
    draw,
    seed=None,
):
    # TF's defaults, for the public functions' None.
    aspect_ratio_range = [0.75, 1.33] if aspect_ratio_range is None else aspect_ratio_range
    area_range = [0.05, 1.0] if area_range is None else area_range
    max_attempts = 100 if max_attempts is None else max_attempts
    use_image_if_no_bounding_boxes = bool(use_image_if_no_bounding_boxes)
    size = to_tensor(image_size)
    require(size, "iu", op_name)
    boxes = convert_to_tensor(bounding_boxes, dtype=dtypes.float32)
    covered = convert_to_tensor(min_object_covered, dtype=dtypes.float32)
    aspect, area, attempts = _checked_attrs(aspect_ratio_range, area_range, max_attempts, op_name)
    if seed is not None:
        seed = _checked_seed(seed, op_name)
    if size._v.ndim != 1:
        raise _iae(f"image_size must be 1-dimensional{_dims(size._v.shape)}", op_name)
    if size._v.shape[0] != 3:
        raise _iae(f"image_size must contain 3 elements{_dims(size._v.shape)}", op_name)
    dims = _concrete(size)
    if dims is not None:
        for value, what in ((dims[0], "height"), (dims[1], "width")):
            if not 0 <= int(value) < _INT32_MAX:
                raise _iae(f"image {what} cannot be >= int32 max", op_name)
    if boxes._v.ndim != 3:
        raise _iae(
            "input boxes must be 3-dimensional [batch, num_boxes, coords]: "
            f"{_dims(boxes._v.shape)}",
            op_name,
        )
    if boxes._v.shape[-1] != 4:
        raise _iae(
            f"bounding boxes must have shape [4] or [*, 4], got {_dims(boxes._v.shape)}", op_name
        )
    if covered._v.ndim:
        raise _iae(f"min_object_covered must be 0-D, got shape {_dims(covered._v.shape)}", op_name)
    value = _concrete(covered)
    if value is not None and not value >= 0:
        raise _iae(f"Min object covered must be non-negative: {_attr_float(value)}", op_name)
    flat = _concrete(boxes)
    if flat is not None:
        bad = ~((flat >= 0) & (flat <= 1))
        if bad.any():
            raise _iae(
                f"All bounding box coordinates must be in [0.0, 1.0]: {_attr_float(flat[bad][0])}",
                op_name,
            )
    if boxes._v.size == 0 and not use_image_if_no_bounding_boxes:
        raise _iae(
            "No bounding boxes provided as input. One must enable "
            "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.",
            op_name,
        )
    draws = draw([attempts, 4], seed)
    ranges = wrap(jnp.asarray(np.array([*aspect, *area], np.float32)))
    begin, crop, bbox = apply(
        _sample_ops[op_name], (size, reshape(boxes, [-1, 4]), covered, draws, ranges)
    )
    return _RESULTS[op_name](begin, crop, bbox)


def sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed=0,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """A random crop of an image of ``image_size`` (``[height, width, channels]``) that
    covers at least ``min_object_covered`` of one of ``bounding_boxes``
    (``[batch, N, 4]``, normalized), with its aspect ratio and area fraction in the ranges
    given (``tf.image.sample_distorted_bounding_box``); after ``max_attempts`` failures, the
    whole image.

    Returns ``(begin, size, bboxes)``: ``[y, x, 0]`` and ``[h, w, -1]`` for ``tf.slice``, in
    ``image_size``'s dtype, and the crop as a normalized ``[1, 1, 4]`` box.

    .. warning::
        The crops follow TF's algorithm and constraints but draw from ``tapejax.random``
        (seed rules as ``tf.random.uniform``), not TF's Philox: other crops than TF's for the
        same seed (``docs/compat.md``).

    Example:
        >>> import tapejax as tf
        >>> begin, size, box = tf.image.sample_distorted_bounding_box(
        ...     [40, 60, 3], [[[0.1, 0.2, 0.6, 0.9]]], seed=1, min_object_covered=0.5)
        >>> size.shape, box.shape
        (TensorShape([3]), TensorShape([1, 1, 4]))
    """
    return _sample(
        "SampleDistortedBoundingBoxV2",
        image_size,
        bounding_boxes,
        min_object_covered,
        aspect_ratio_range,
        area_range,
        max_attempts,
        use_image_if_no_bounding_boxes,
        lambda shape, _: uniform(shape, 0, _INT32_MAX, dtype=dtypes.int32, seed=seed or None),
    )


def stateless_sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """``sample_distorted_bounding_box`` determined by ``seed`` (shape ``[2]`` ints): the same
    seed gives the same crop (``tf.image.stateless_sample_distorted_bounding_box``).

    .. warning::
        JAX's threefry numbers, not TF's Philox: another crop than TF's for the same seed.

    Example:
        >>> import tapejax as tf
        >>> a = tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], [[[0.1, 0.2, 0.6, 0.9]]], seed=[1, 2])
        >>> b = tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], [[[0.1, 0.2, 0.6, 0.9]]], seed=[1, 2])
        >>> bool(tf.reduce_all(a.begin == b.begin))
        True
    """
    return _sample(
        "StatelessSampleDistortedBoundingBox",
        image_size,
        bounding_boxes,
        min_object_covered,
        aspect_ratio_range,
        area_range,
        max_attempts,
        use_image_if_no_bounding_boxes,
        lambda shape, s: stateless_uniform(shape, s, 0, _INT32_MAX, dtype=dtypes.int32),
        seed=seed,
    )
