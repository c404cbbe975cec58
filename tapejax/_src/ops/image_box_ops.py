"""``tf.image``'s box utilities: ``draw_bounding_boxes``, ``extract_glimpse`` and
``non_max_suppression_overlaps``, with TF's CPU kernels' arithmetic and checks.

Drawing and glimpses are JAX functions (they trace); the overlap NMS runs TF's greedy kernel on
the host (its output size depends on the values), eagerly only. None of them has a gradient
(TF registers none). Must never read traced values.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor, wrap
from ._helpers import TF_ALLOWED, require, to_tensor
from .nms_ops import _dims, _greedy, _iae, _scalar, check_scores_and_size
from .random_ops import normal, uniform

TF_ALLOWED["DrawBoundingBoxes"] = TF_ALLOWED["DrawBoundingBoxesV2"] = "float, half"

# TF's DefaultColorTable (draw_bounding_box_op.cc): RGBA, cycled over the boxes.
_DEFAULT_COLORS = np.array(
    [
        [1, 1, 0, 1],  # yellow
        [0, 0, 1, 1],  # blue
        [1, 0, 0, 1],  # red
        [0, 1, 0, 1],  # lime
        [0.5, 0, 0.5, 1],  # purple
        [0.5, 0.5, 0, 1],  # olive
        [0.5, 0, 0, 1],  # maroon
        [0, 0, 0.5, 1],  # navy blue
        [0, 1, 1, 1],  # aqua
        [1, 0, 1, 1],  # fuchsia
    ],
    np.float32,
)

# Float-to-int conversion of values beyond int32 is undefined in TF's kernels; clipping first
# keeps XLA's conversion defined without changing any in-range result.
_INT_LIMIT = float(2**30)


def _trunc(x):
    """C++'s float-to-integer conversion: toward zero."""
    return jnp.clip(x, -_INT_LIMIT, _INT_LIMIT).astype(jnp.int32)


def _float_input(value, op_name: str) -> Tensor:
    """An input TF's op types ``T in {float, half}`` with default float: Python and NumPy
    values are converted to float32, Tensors must already be float32 or float16."""
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = to_tensor(value)
        require(t, "f", op_name)
        return t
    return convert_to_tensor(value, dtype=dtypes.float32)


# -- draw_bounding_boxes ----------------------------------------------------------------------


def _draw_fn(images, boxes, table):
    """TF's DrawBoundingBoxesOp: each box's four edges (truncated to pixels, clipped to the
    image) painted in turn, a later box over an earlier one."""
    _, height, width, _ = images.shape
    f32 = jnp.float32
    min_row = _trunc(boxes[..., 0] * f32(height - 1))[..., None, None]
    max_row = _trunc(boxes[..., 2] * f32(height - 1))[..., None, None]
    min_col = _trunc(boxes[..., 1] * f32(width - 1))[..., None, None]
    max_col = _trunc(boxes[..., 3] * f32(width - 1))[..., None, None]
    drawn = ~((min_row > max_row) | (min_col > max_col))
    drawn &= ~((min_row >= height) | (max_row < 0) | (min_col >= width) | (max_col < 0))
    rows = jnp.arange(height)[:, None]
    cols = jnp.arange(width)[None, :]
    in_cols = (cols >= jnp.maximum(min_col, 0)) & (cols <= jnp.minimum(max_col, width - 1))
    in_rows = (rows >= jnp.maximum(min_row, 0)) & (rows <= jnp.minimum(max_row, height - 1))
    edge = (
        ((rows == min_row) & (min_row >= 0) & in_cols)
        | ((rows == max_row) & (max_row < height) & in_cols)
        | ((cols == min_col) & (min_col >= 0) & in_rows)
        | ((cols == max_col) & (max_col < width) & in_rows)
    )
    painted = drawn & edge  # [batch, boxes, height, width]
    order = jnp.arange(boxes.shape[1])[None, :, None, None]
    last = jnp.max(jnp.where(painted, order, -1), axis=1)  # the box painted last, or -1
    colour = table.astype(images.dtype)[jnp.maximum(last, 0) % table.shape[0]]
    return jnp.where((last >= 0)[..., None], colour, images)


_draw_ops = {
    name: Op(name, _draw_fn, differentiable=False)
    for name in ("DrawBoundingBoxes", "DrawBoundingBoxesV2")
}


def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws the edges of ``boxes`` (``[batch, num_boxes, 4]``, normalized ``[y_min, x_min,
    y_max, x_max]``) on ``images`` (``[batch, height, width, depth]``, depth 1, 3 or 4),
    cycling through the rows of ``colors`` (``tf.image.draw_bounding_boxes``).

    Box corners are scaled by ``height - 1``/``width - 1`` and truncated to pixels; edges
    outside the image are skipped, inverted boxes are not drawn, and a later box paints over
    an earlier one, as TF's kernel. ``colors`` empty (shape ``[0, k]``) or ``None`` uses TF's
    table (yellow, blue, red, lime, purple, olive, maroon, navy, aqua, fuchsia).

    Example:
        >>> import tapejax as tf
        >>> out = tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 1]), [[[0.0, 0.0, 1.0, 1.0]]], [[0.5]])
        >>> out[0, :, :, 0].numpy()
        array([[0.5, 0.5, 0.5, 0.5],
               [0.5, 0. , 0. , 0.5],
               [0.5, 0. , 0. , 0.5],
               [0.5, 0.5, 0.5, 0.5]], dtype=float32)
    """
    op_name = "DrawBoundingBoxes" if colors is None else "DrawBoundingBoxesV2"
    x = _float_input(images, op_name)
    b = convert_to_tensor(boxes, dtype=dtypes.float32)
    c = None if colors is None else convert_to_tensor(colors, dtype=dtypes.float32)
    if x._v.ndim != 4:
        raise _iae("The rank of the images should be 4", op_name)
    if b._v.ndim != 3:
        raise _iae("The rank of the boxes tensor should be 3", op_name)
    if x._v.shape[0] != b._v.shape[0]:
        raise _iae("The batch sizes should be the same", op_name)
    depth = x._v.shape[3]
    if depth not in (1, 3, 4):
        raise _iae("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)", op_name)
    if b._v.shape[2] != 4:
        raise _iae(
            f"The size of the third dimension of the box must be 4. Received: {b._v.shape[2]}",
            op_name,
        )
    if c is not None:
        if c._v.ndim != 2:
            raise _iae(f"colors must be a 2-D matrix{_dims(c._v.shape)}", op_name)
        if c._v.shape[1] < depth:
            raise _iae(
                "colors must have equal or more channels than the image provided: "
                f"{_dims(c._v.shape)}",
                op_name,
            )
    if c is None or c._v.size == 0:
        table = _DEFAULT_COLORS[:, :depth].copy()
        if depth == 1:
            table[:, 0] = 1
        c = wrap(jnp.asarray(table))
    else:
        c = c[:, :depth]
    return apply(_draw_ops[op_name], (x, b, c))


# -- extract_glimpse --------------------------------------------------------------------------

_NOISES = ("uniform", "gaussian", "zero")


def _glimpse_origin(offsets, *, image_hw, size, centered, normalized):
    """The glimpse's top-left pixel per image: TF's v2 float32 arithmetic, truncated."""
    f32 = jnp.float32
    height, width = (f32(d) for d in image_hw)
    y, x = offsets[:, 0], offsets[:, 1]
    if normalized:
        x, y = x * width, y * height
        if centered:
            x, y = x / f32(2), y / f32(2)
            x, y = x + width / f32(2), y + height / f32(2)
            x, y = x - f32(size[1]) / f32(2), y - f32(size[0]) / f32(2)
    elif centered:
        x, y = x + width / f32(2), y + height / f32(2)
    return _trunc(y), _trunc(x)


def _glimpse_fn(x, offsets, fill, *, size, centered, normalized):
    """TF's GlimpseExtractionOp: pixels of the window inside the image, ``fill`` outside."""
    _, height, width, _ = x.shape
    top, left = _glimpse_origin(
        offsets, image_hw=(height, width), size=size, centered=centered, normalized=normalized
    )
    rows = top[:, None] + jnp.arange(size[0])[None]  # [batch, h]
    cols = left[:, None] + jnp.arange(size[1])[None]  # [batch, w]
    inside = ((rows >= 0) & (rows < height))[:, :, None] & ((cols >= 0) & (cols < width))[:, None]
    picked = jnp.take_along_axis(x, jnp.clip(rows, 0, height - 1)[:, :, None, None], axis=1)
    picked = jnp.take_along_axis(picked, jnp.clip(cols, 0, width - 1)[:, None, :, None], axis=2)
    return jnp.where(inside[..., None], picked, fill)


def _uniform_fill(x, u):
    """TF's uniform noise: ``min + u * (max - min)`` over each whole image."""
    low = jnp.min(x, axis=(1, 2, 3), keepdims=True)
    return low + u * (jnp.max(x, axis=(1, 2, 3), keepdims=True) - low)


def _gaussian_fill(x, n):
    """TF's gaussian noise: each channel's mean and standard deviation, clipped to its range."""
    mean = jnp.mean(x, axis=(1, 2), keepdims=True)
    sigma = jnp.sqrt(jnp.mean(jnp.square(x - mean), axis=(1, 2), keepdims=True))
    low, high = jnp.min(x, axis=(1, 2), keepdims=True), jnp.max(x, axis=(1, 2), keepdims=True)
    return jnp.maximum(jnp.minimum(mean + n * sigma, high), low)


def _noisy_glimpse_fn(x, offsets, draw, *, size, centered, normalized, noise):
    fill = _uniform_fill(x, draw) if noise == "uniform" else _gaussian_fill(x, draw)
    return _glimpse_fn(x, offsets, fill, size=size, centered=centered, normalized=normalized)


def _zero_glimpse_fn(x, offsets, *, size, centered, normalized):
    return _glimpse_fn(
        x, offsets, jnp.zeros((), x.dtype), size=size, centered=centered, normalized=normalized
    )


_glimpse_op = Op("ExtractGlimpseV2", _noisy_glimpse_fn, differentiable=False)
_zero_glimpse_op = Op("ExtractGlimpseV2", _zero_glimpse_fn, differentiable=False)


def extract_glimpse(
    input, size, offsets, centered=True, normalized=True, noise="uniform", name=None
):  # noqa: A002 - TF's argument name
    """Windows of ``size`` (``[height, width]``) from each image of ``input``
    (``[batch, height, width, channels]``) at ``offsets`` (``[batch, 2]``, ``(y, x)``)
    (``tf.image.extract_glimpse``, TF 2's semantics).

    ``centered``/``normalized`` say how offsets are read, as in TF 2 (normalized and centered:
    ``[-1, 1]`` over the image, the window centred there; normalized only: ``[0, 1]`` to the
    window's corner; centered only: pixels from the image centre to the window's corner;
    neither: pixels to the window's corner). Pixels of the window outside the image are
    ``noise``: ``'zero'``, ``'uniform'`` (between the image's minimum and maximum) or
    ``'gaussian'`` (each channel's mean and deviation, clipped to its range).

    .. warning::
        The random fills draw from ``tapejax.random``'s global stream, not TF's unseeded
        Eigen generators: same distributions, other numbers (``docs/compat.md``).

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        >>> tf.image.extract_glimpse(x, [2, 2], [[-1.0, -1.0]], noise="zero")[0, :, :, 0].numpy()
        array([[0., 0.],
               [0., 0.]], dtype=float32)
    """
    op_name = "ExtractGlimpseV2"
    x = convert_to_tensor(input, dtype=dtypes.float32)
    s = convert_to_tensor(size, dtype=dtypes.int32)
    o = convert_to_tensor(offsets, dtype=dtypes.float32)
    if noise not in _NOISES:
        raise _iae(f"The noise could only be uniform, gaussian, or zero, got{noise}", op_name)
    if x._v.ndim != 4:
        raise _iae(
            f"input must be 4-dimensional (batch_size, height, width, depth){_dims(x._v.shape)}",
            op_name,
        )
    if s._v.shape != (2,):
        raise _iae(f"input must be a vector of size 2 (height, width){_dims(s._v.shape)}", op_name)
    if isinstance(size, (list, tuple, np.ndarray)):  # static, even inside a trace
        window = np.asarray(size, np.int64)
    elif isinstance(s._value, jax.core.Tracer):
        raise NotImplementedError(
            "tapejax.image.extract_glimpse: a traced `size` sets the output shape; pass "
            "Python ints (or a constant) for it."
        )
    else:
        window = np.asarray(s._value)
    window = tuple(int(v) for v in window)
    for v in window:
        if v < 0:
            raise _iae(f"Expected a non-negative size, got {v}", op_name)
    if o._v.ndim != 2:
        raise _iae(f"input must be a matrix{_dims(o._v.shape)}", op_name)
    if o._v.shape[0] != x._v.shape[0]:
        raise _iae(f"first dimension should be batch{_dims(o._v.shape)}", op_name)
    if o._v.shape[1] != 2:
        raise _iae(f"second dimension should be of size 2 (y,x){_dims(o._v.shape)}", op_name)
    static = (("size", window), ("centered", bool(centered)), ("normalized", bool(normalized)))
    out_shape = [x._v.shape[0], *window, x._v.shape[3]]
    if noise == "zero" or 0 in out_shape:
        return apply(_zero_glimpse_op, (x, o), static)
    draw = uniform(out_shape) if noise == "uniform" else normal(out_shape)
    return apply(_glimpse_op, (x, o, draw), (*static, ("noise", noise)))


# -- non_max_suppression_overlaps -------------------------------------------------------------


def non_max_suppression_overlaps(
    overlaps,
    scores,
    max_output_size,
    overlap_threshold=0.5,
    score_threshold=float("-inf"),
    name=None,
):
    """Indices of at most ``max_output_size`` boxes, greedily by decreasing score, dropping
    those whose ``overlaps[candidate, selected]`` exceeds ``overlap_threshold``
    (``tf.image.non_max_suppression_overlaps``). Eager only (the size depends on the values).

    Example:
        >>> import tapejax as tf
        >>> overlaps = [[1.0, 0.6, 0.2], [0.6, 1.0, 0.1], [0.2, 0.1, 1.0]]
        >>> tf.image.non_max_suppression_overlaps(overlaps, [0.9, 0.8, 0.7], 3).numpy()
        array([0, 2], dtype=int32)
    """
    op_name = "NonMaxSuppressionWithOverlaps"
    ov = convert_to_tensor(overlaps, dtype=dtypes.float32)
    s = convert_to_tensor(scores, dtype=dtypes.float32)
    size = _scalar(max_output_size, "max_output_size", op_name, dtypes.int32, suffix=False)
    threshold = _scalar(
        overlap_threshold, "overlap_threshold", op_name, dtypes.float32, suffix=False
    )
    score = _scalar(score_threshold, "score_threshold", op_name, dtypes.float32, suffix=False)
    if ov._v.ndim != 2:
        raise _iae(f"overlaps must be 2-D{_dims(ov._v.shape)}", op_name)
    n = ov._v.shape[0]
    if ov._v.shape[1] != n:
        raise _iae(f"overlaps must be square{_dims(ov._v.shape)}", op_name)
    check_scores_and_size(s, n, size, op_name)
    values = [ov._value, s._value]
    if (
        size is None
        or threshold is None
        or score is None
        or any(isinstance(v, jax.core.Tracer) for v in values)
    ):
        raise NotImplementedError(
            "tapejax.image.non_max_suppression_overlaps: the number of boxes selected depends "
            "on the values, so it cannot be traced (inside tapejax.function or a JAX "
            "transform); call it eagerly."
        )
    table = np.asarray(values[0])
    selected, _ = _greedy(
        None,
        np.asarray(values[1]),
        int(size),
        threshold,
        score,
        0.0,
        similarity=lambda i, j: table[i, j],
    )
    return wrap(jnp.asarray(selected))
