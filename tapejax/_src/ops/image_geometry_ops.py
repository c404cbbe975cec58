"""``tf.image`` geometry: rotations and transposes, patch extraction, box crops, padded
resizes, each with TF's checks and arithmetic.

``rot90`` and ``transpose`` move pixels; ``extract_patches`` is TF's ExtractImagePatches
(patches flattened row, column, channel); ``crop_and_resize`` is TF's CropAndResize kernel
(sample positions in float32, out-of-image samples get ``extrapolation_value``) with TF's
box gradient, which differentiates bilinear sampling even for ``method='nearest'``;
``resize_with_pad`` is TF's composite of ``resize`` and ``pad_to_bounding_box``.

Shapes here are static: a rotation count or crop size must be known when the op runs
(inside ``tapejax.function`` a traced one is ``NotImplementedError``); box coordinates and
indices may be traced, and the index range check then does not run.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, OutOfRangeError, UnimplementedError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, require, to_tensor
from .array_ops import expand_dims
from .image_ops import _at_least_3d, _squeeze0, pad_to_bounding_box, resize

TF_ALLOWED.update(
    {
        "ExtractImagePatches": (
            "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, complex64, complex128, bool"
        ),
        "CropAndResize": "uint8, uint16, int8, int16, int32, int64, half, float, double",
    }
)


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape) -> str:
    return ",".join(map(str, shape))


def _rank_3_or_4(x: Tensor) -> None:
    _at_least_3d(x)
    if x._v.ndim > 4:
        raise ValueError(f"'image' (shape {tuple(x._v.shape)}) must have either 3 or 4 dimensions.")


def _concrete_int(v, what: str) -> int:
    """A scalar int32 argument TF accepts as a tensor, needed here as a Python int."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    t = convert_to_tensor(v, dtype=dtypes.int32)
    if t._v.ndim:
        raise ValueError(f"Shape {tuple(t._v.shape)} must have rank 0")
    value = t._value
    if isinstance(value, jax.core.Tracer):
        raise NotImplementedError(
            f"tapejax.image: a traced `{what}` changes the output shape, which XLA cannot "
            f"trace; pass `{what}` as a Python int."
        )
    return int(value)


# -- rot90, transpose ---------------------------------------------------------------------------


_rot90_op = Op("Rot90", lambda x, *, k: jnp.rot90(x, k, axes=(x.ndim - 3, x.ndim - 2)))
_image_transpose_op = Op("Transpose", lambda x: jnp.swapaxes(x, -3, -2))


def rot90(image, k=1, name=None):
    """Rotates images counter-clockwise by ``k`` quarter turns (``tf.image.rot90``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.rot90(tf.reshape(tf.range(4), [2, 2, 1]))[..., 0].numpy()
        array([[1, 3],
               [0, 2]], dtype=int32)
    """
    x = to_tensor(image)
    _at_least_3d(x)
    turns = _concrete_int(k, "k") % 4
    _rank_3_or_4(x)
    return apply(_rot90_op, (x,), (("k", turns),))


def transpose(image, name=None):
    """Swaps the height and width of images (``tf.image.transpose``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.transpose(tf.zeros([2, 3, 1])).shape
        TensorShape([3, 2, 1])
    """
    x = to_tensor(image)
    _rank_3_or_4(x)
    return apply(_image_transpose_op, (x,))


# -- extract_patches -----------------------------------------------------------------------------


def _window(n: int, k: int, stride: int, rate: int, padding: str):
    """TF's output size and leading pad along one axis."""
    effective = (k - 1) * rate + 1
    if padding == "VALID":
        return max(-(-(n - effective + 1) // stride), 0), 0
    out = -(-n // stride)
    total = max((out - 1) * stride + effective - n, 0)
    return out, total // 2


def _extract_patches_fn(x, *, sizes, strides, rates, padding):
    (kh, kw), (sh, sw), (rh, rw) = sizes, strides, rates
    (oh, top), (ow, left) = (
        _window(x.shape[1], kh, sh, rh, padding),
        _window(x.shape[2], kw, sw, rw, padding),
    )
    # Enough zeros below and right for every window the output reads.
    bottom = max((oh - 1) * sh + (kh - 1) * rh + 1 - top - x.shape[1], 0)
    right = max((ow - 1) * sw + (kw - 1) * rw + 1 - left - x.shape[2], 0)
    x = jnp.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    patches = [
        x[:, i * rh : i * rh + (oh - 1) * sh + 1 : sh, j * rw : j * rw + (ow - 1) * sw + 1 : sw]
        for i in range(kh)
        for j in range(kw)
    ]
    out = jnp.stack(patches, axis=3)  # [b, oh, ow, kh * kw, c]
    return out.reshape(out.shape[:3] + (-1,))


_extract_patches_op = Op("ExtractImagePatches", _extract_patches_fn)


def _four(values, what: str) -> tuple:
    values = [int(v) for v in values]
    if len(values) < 4:
        raise _iae(
            f"Length for attr '{what}' of {len(values)} must be at least minimum 4",
            "ExtractImagePatches",
        )
    return tuple(values)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``sizes`` every ``strides`` (``rates``: dilation) as the last dimension,
    ``[batch, rows, cols, size_rows * size_cols * depth]`` (``tf.image.extract_patches``).

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        >>> tf.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID").shape
        TensorShape([1, 2, 2, 4])
    """
    op_name = "ExtractImagePatches"
    x = to_tensor(images)
    sizes, strides, rates = (
        _four(sizes, "ksizes"),
        _four(strides, "strides"),
        _four(rates, "rates"),
    )
    if padding not in ("SAME", "VALID"):
        raise _iae(
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            '"SAME", "VALID"',
            op_name,
        )
    require(x, "fciub", op_name)
    for values, what in ((sizes, "ksizes"), (strides, "strides"), (rates, "rates")):
        if len(values) != 4 or values[0] != 1 or values[3] != 1:
            raise UnimplementedError(
                None, None, f"Only support {what} across space. [Op:{op_name}]"
            )
    if x._v.ndim != 4:
        raise _iae(f"input must be 4-dimensional[{_dims(x._v.shape)}]", op_name)
    if min(sizes[1:3] + strides[1:3] + rates[1:3]) < 1:
        raise OutOfRangeError(None, None, f"ksizes is out of range. [Op:{op_name}]")
    static = (
        ("padding", padding),
        ("rates", rates[1:3]),
        ("sizes", sizes[1:3]),
        ("strides", strides[1:3]),
    )
    return apply(_extract_patches_op, (x,), static)


# -- crop_and_resize -------------------------------------------------------------------------------


def _sample_positions(lo, hi, n_in: int, n_out: int, for_gradient: bool = False, xp=jnp):
    """TF's float32 sample positions of ``n_out`` samples between box edges ``lo``, ``hi``.
    TF's box-gradient kernel rounds the step differently (``(hi - lo) * ((n_in - 1) /
    (n_out - 1))``), which decides floor and ceil at integer positions: both are kept."""
    f32 = np.float32
    if n_out > 1:
        if for_gradient:
            scale = (hi - lo) * (f32(n_in - 1) / f32(n_out - 1))
        else:
            scale = (hi - lo) * f32(n_in - 1) / f32(n_out - 1)
        steps = xp.arange(n_out, dtype=xp.float32)
        return lo[:, None] * f32(n_in - 1) + steps[None, :] * scale[:, None]
    return (f32(0.5) * (lo + hi) * f32(n_in - 1))[:, None]


def _positions(boxes, shape, size, xp=jnp) -> tuple:
    """Rows and columns of the samples, TF's forward kernel's and its box gradient's."""
    (h, w), out = shape, []
    for for_gradient in (False, True):
        out.append(_sample_positions(boxes[:, 0], boxes[:, 2], h, size[0], for_gradient, xp))
        out.append(_sample_positions(boxes[:, 1], boxes[:, 3], w, size[1], for_gradient, xp))
    return tuple(out)


def _inside(ys, xs, h: int, w: int):
    rows = (ys >= 0) & (ys <= h - 1)
    cols = (xs >= 0) & (xs <= w - 1)
    return rows[:, :, None, None] & cols[:, None, :, None]


def _crop_bilinear(image, ys, xs):
    """Bilinear samples ``[boxes, len(ys), len(xs), depth]`` of ``image`` ``[boxes, H, W, D]``."""
    h, w = image.shape[1:3]
    top, bottom = jnp.floor(ys), jnp.ceil(ys)
    left, right = jnp.floor(xs), jnp.ceil(xs)
    y_lerp, x_lerp = (ys - top)[:, :, None, None], (xs - left)[:, None, :, None]

    def pick(rows, cols):
        rows = jnp.clip(rows, 0, h - 1).astype(jnp.int32)
        cols = jnp.clip(cols, 0, w - 1).astype(jnp.int32)
        picked = jnp.take_along_axis(image, rows[:, :, None, None], axis=1)
        return jnp.take_along_axis(picked, cols[:, None, :, None], axis=2)

    top_left, top_right = pick(top, left), pick(top, right)
    bottom_left, bottom_right = pick(bottom, left), pick(bottom, right)
    upper = top_left + (top_right - top_left) * x_lerp
    lower = bottom_left + (bottom_right - bottom_left) * x_lerp
    return upper + (lower - upper) * y_lerp


def _crop_nearest(image, ys, xs):
    h, w = image.shape[1:3]
    # roundf: half away from zero (positions inside the image are >= 0).
    rows = jnp.clip(jnp.floor(ys + 0.5), 0, h - 1).astype(jnp.int32)
    cols = jnp.clip(jnp.floor(xs + 0.5), 0, w - 1).astype(jnp.int32)
    picked = jnp.take_along_axis(image, rows[:, :, None, None], axis=1)
    return jnp.take_along_axis(picked, cols[:, None, :, None], axis=2)


def _crop_and_resize_fn(image, boxes, box_indices, *exact, size, method, extrapolation):
    h, w = image.shape[1:3]
    image = image.astype(jnp.float32)[box_indices]
    sg = jax.lax.stop_gradient
    positions = _positions(boxes, (h, w), size)
    if exact:
        # XLA fuses TF's a * b + c into one FMA, which moves samples near an edge or an
        # integer across it: the values are TF's (computed eagerly in NumPy), the
        # derivatives these.
        positions = tuple(e + (p - sg(p)) for e, p in zip(exact, positions, strict=True))
    ys, xs, grad_ys, grad_xs = positions
    sample = _crop_bilinear if method == "bilinear" else _crop_nearest
    crops = jnp.where(_inside(ys, xs, h, w), sample(image, sg(ys), sg(xs)), extrapolation)
    # TF's box gradient (its CropAndResizeGradBoxes kernel) differentiates bilinear sampling,
    # for 'nearest' too, at its own sample positions: this term adds exactly zero to the
    # values and carries that derivative.
    inside = _inside(grad_ys, grad_xs, h, w)
    smooth = jnp.where(inside, _crop_bilinear(sg(image), grad_ys, grad_xs), 0.0)
    smooth = jnp.where(jnp.isfinite(sg(smooth)), smooth, 0.0)
    return crops + (smooth - sg(smooth))


_crop_and_resize_op = Op("CropAndResize", _crop_and_resize_fn)


def crop_and_resize(
    image,
    boxes,
    box_indices,
    crop_size,
    method="bilinear",
    extrapolation_value=0.0,
    name=None,
):
    """Crops the normalized ``boxes`` ``[y1, x1, y2, x2]`` out of the images at
    ``box_indices`` and resizes each to ``crop_size`` (``tf.image.crop_and_resize``); float32.

    Example:
        >>> import tapejax as tf
        >>> image = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        >>> crops = tf.image.crop_and_resize(image, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])
        >>> crops[0, ..., 0].numpy()
        array([[ 0.,  3.],
               [12., 15.]], dtype=float32)

    Raises:
      OutOfRangeError: in eager mode, a box index outside the batch.
    """
    op_name = "CropAndResize"
    x = to_tensor(image)
    b = convert_to_tensor(boxes, dtype=dtypes.float32)
    idx = convert_to_tensor(box_indices, dtype=dtypes.int32)
    if isinstance(crop_size, (list, tuple, np.ndarray)):  # static: never traced
        crop_size = np.asarray(crop_size)
        if crop_size.dtype.kind not in "iu":
            crop_size = crop_size.tolist()  # TF's conversion error
    size = convert_to_tensor(crop_size, dtype=dtypes.int32)
    if method not in ("bilinear", "nearest"):
        raise _iae(
            f"Value for attr 'method' of \"{method}\" is not in the list of allowed values: "
            '"bilinear", "nearest"',
            op_name,
        )
    require(x, "fiu", op_name)
    shape = x._v.shape
    if len(shape) != 4:
        raise _iae(f"input image must be 4-D[{_dims(shape)}]", op_name)
    if shape[1] <= 0 or shape[2] <= 0:
        raise _iae("image dimensions must be positive", op_name)
    if b._v.ndim != 2:
        raise _iae(f"boxes must be 2-D, got: [{_dims(b._v.shape)}]", op_name)
    if idx._v.shape != b._v.shape[:1]:
        raise _iae("box_index has incompatible shape", op_name)
    if b._v.shape[1] != 4:
        raise _iae("boxes must have 4 columns", op_name)
    if size._v.shape != (2,):
        raise _iae(f"crop_size must have two elements[{_dims(size._v.shape)}]", op_name)
    values = crop_size if isinstance(crop_size, np.ndarray) else size._value
    if isinstance(values, jax.core.Tracer):
        raise NotImplementedError(
            "tapejax.image.crop_and_resize: a traced `crop_size` changes the output shape, "
            "which XLA cannot trace; pass `crop_size` as Python ints."
        )
    crop_h, crop_w = (int(s) for s in np.asarray(values))
    if crop_h <= 0 or crop_w <= 0:
        raise _iae("crop dimensions must be positive", op_name)
    indices = idx._value
    if not isinstance(indices, jax.core.Tracer) and np.any(
        (np.asarray(indices) < 0) | (np.asarray(indices) >= shape[0])
    ):
        raise OutOfRangeError(
            None, None, f"box_index has values outside [0, batch_size) [Op:{op_name}]"
        )
    static = (
        ("extrapolation", float(np.float32(extrapolation_value))),
        ("method", method),
        ("size", (crop_h, crop_w)),
    )
    exact = ()
    if not isinstance(b._value, jax.core.Tracer):
        positions = _positions(np.asarray(b._value), shape[1:3], (crop_h, crop_w), np)
        exact = tuple(convert_to_tensor(p) for p in positions)
    return apply(_crop_and_resize_op, (x, b, idx, *exact), static)


# -- resize_with_pad -------------------------------------------------------------------------------


def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """Resizes to fit ``target_height`` x ``target_width`` keeping the aspect ratio, then pads
    with zeros (``tf.image.resize_with_pad``); TF's float32 arithmetic for the sizes.

    Example:
        >>> import tapejax as tf
        >>> tf.image.resize_with_pad(tf.ones([4, 8, 1]), 8, 8)[:, 0, 0].numpy()
        array([0., 0., 1., 1., 1., 1., 0., 0.], dtype=float32)
    """
    x = to_tensor(image)
    if x._v.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {tuple(x._v.shape)}) must have either 3 or 4 dimensions.")
    batched = x if x._v.ndim == 4 else expand_dims(x, 0)
    if min(batched._v.shape[1:]) <= 0:
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {tuple(batched._v.shape)}")
    th, tw = (
        _concrete_int(target_height, "target_height"),
        _concrete_int(target_width, "target_width"),
    )
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    f32 = np.float32
    h, w = f32(batched._v.shape[1]), f32(batched._v.shape[2])
    ratio = max(w / f32(tw), h / f32(th))
    resized_h, resized_w = h / ratio, w / ratio
    pad_h = max(0, int(np.floor((f32(th) - resized_h) / f32(2))))
    pad_w = max(0, int(np.floor((f32(tw) - resized_w) / f32(2))))
    size = [int(np.floor(resized_h)), int(np.floor(resized_w))]
    resized = resize(batched, size, method, antialias=antialias)
    padded = pad_to_bounding_box(resized, pad_h, pad_w, th, tw)
    return padded if x._v.ndim == 4 else _squeeze0(padded)
