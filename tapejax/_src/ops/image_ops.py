"""Image ops of ``tf.image`` on 3-D (HWC) and 4-D (NHWC) images, with TF's arithmetic.

``resize`` reproduces TF 2's kernels: bilinear, nearest and bicubic (half-pixel centers,
sample positions computed in float32 as TF's C++ does, bicubic weights from TF's
quantized table), where ``jax.image.resize`` differs from TF in the last bits or at the
borders; for TF's ScaleAndTranslate paths (``antialias=True``, ``lanczos3/5``) it is
``jax.image.resize``, which computes the same. ``area`` and ScaleAndTranslate's
``gaussian`` and ``mitchellcubic`` kernels, which ``jax.image`` lacks, are separable
linear maps: their per-axis weight matrices are built in NumPy with TF's float32
arithmetic (they depend on the shapes only) and applied with two matrix products. Dtype
conversions follow ``tf.image.convert_image_dtype`` (integer images are scaled to [0, 1]
and back). The random flips draw from ``tapejax.random``'s streams (TF's seed rules, not
TF's numbers).
This module must never compute a crop or pad offset from traced values: they are
shapes, so they are Python ints.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import tf_type_name, to_tensor
from .array_ops import expand_dims, reshape, where
from .math_ops import add, cast, floordiv, multiply, saturate_cast
from .random_ops import uniform

__all__ = [
    "ResizeMethod",
    "resize",
    "convert_image_dtype",
    "flip_left_right",
    "flip_up_down",
    "random_flip_left_right",
    "random_flip_up_down",
    "central_crop",
    "per_image_standardization",
    "rgb_to_grayscale",
    "grayscale_to_rgb",
    "adjust_brightness",
    "adjust_contrast",
    "crop_to_bounding_box",
    "pad_to_bounding_box",
    "resize_with_crop_or_pad",
]


# -- shape checks ------------------------------------------------------------------------------


def _shape_text(x: Tensor) -> str:
    return str(tuple(x._v.shape))


def _at_least_3d(x: Tensor) -> None:
    if x._v.ndim < 3:
        raise ValueError(f"'image' (shape {_shape_text(x)}) must be at least three-dimensional.")


def _rank_3_or_4(x: Tensor, sep: str = " ") -> None:
    """TF's "must have either 3 or 4 dimensions" (its flips omit the space before "must")."""
    _at_least_3d(x)
    if x._v.ndim > 4:
        raise ValueError(
            f"'image' (shape {_shape_text(x)}){sep}must have either 3 or 4 dimensions."
        )


def _image_rank_3_or_4(x: Tensor) -> None:
    """The check of ``crop_to_bounding_box`` and friends: one message for every bad rank."""
    if x._v.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {_shape_text(x)}) must have either 3 or 4 dimensions.")


def _hw(x: Tensor) -> tuple:
    return x._v.shape[-3], x._v.shape[-2]


# -- resize ------------------------------------------------------------------------------------


class ResizeMethod:
    """The ``method`` names of ``resize`` (``tf.image.ResizeMethod``)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# TF resizes with its ScaleAndTranslate kernel here: jax.image.resize reproduces the
# lanczos ones, the others (which jax.image lacks) are TF's span weights below.
_SCALE_AND_TRANSLATE = ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")
_INTS = "int8, uint8, int16, uint16, int32, int64"
_RESIZE_TYPES = {  # TF's op definitions, verbatim
    "ResizeBilinear": f"{_INTS}, bfloat16, half, float, double, bfloat16",
    "ResizeNearestNeighbor": f"{_INTS}, half, float, double, bfloat16",
    "ResizeBicubic": f"{_INTS}, half, float, double, bfloat16",
    "ScaleAndTranslate": f"{_INTS}, bfloat16, half, float, double",
    "ResizeArea": f"{_INTS}, half, float, double, bfloat16",
}


def _scale(n_in: int, n_out: int) -> np.float32:
    return np.float32(n_in) / np.float32(n_out)


def _linear_table(n_in: int, n_out: int):
    """TF's ``compute_interpolation_weights`` with its half-pixel scaler, in float32."""
    pos = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * _scale(n_in, n_out)
    pos = pos - np.float32(0.5)
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int32)
    upper = np.minimum(np.ceil(pos), n_in - 1).astype(np.int32)
    return lower, upper, (pos - floor).astype(np.float32)


def _nearest_table(n_in: int, n_out: int) -> np.ndarray:
    """TF's half-pixel nearest neighbour: ``floor((i + 0.5) * scale)``, clamped."""
    pos = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * _scale(n_in, n_out)
    return np.clip(np.floor(pos), 0, n_in - 1).astype(np.int32)


def _bilinear_fn(x, *, size):
    """``ResizeBilinear(half_pixel_centers=True)`` on NHWC, in ``x``'s float dtype."""
    (h_lo, h_hi, h_w), (w_lo, w_hi, w_w) = (
        _linear_table(x.shape[1], size[0]),
        _linear_table(x.shape[2], size[1]),
    )
    y_lerp = jnp.asarray(h_w, x.dtype)[None, :, None, None]
    x_lerp = jnp.asarray(w_w, x.dtype)[None, None, :, None]
    top, bottom = x[:, h_lo], x[:, h_hi]
    top_left, top_right = top[:, :, w_lo], top[:, :, w_hi]
    bottom_left, bottom_right = bottom[:, :, w_lo], bottom[:, :, w_hi]
    top = top_left + (top_right - top_left) * x_lerp
    bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
    return top + (bottom - top) * y_lerp


def _nearest_fn(x, *, size):
    rows = _nearest_table(x.shape[1], size[0])
    cols = _nearest_table(x.shape[2], size[1])
    return x[:, rows][:, :, cols]


_KEYS_TABLE_SIZE = 1024


def _keys_cubic_table() -> np.ndarray:
    """TF's bicubic coefficient table (Keys' kernel, a = -0.5), 1024 steps per pixel."""
    a = -0.5
    x = np.arange(_KEYS_TABLE_SIZE + 1, dtype=np.float64) / _KEYS_TABLE_SIZE
    table = np.empty((_KEYS_TABLE_SIZE + 1, 2), np.float32)
    table[:, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
    x = x + 1.0
    table[:, 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return table


def _cubic_table(n_in: int, n_out: int):
    """TF's ``GetWeightsAndIndices`` for half-pixel Keys cubic: 4 taps per output, the
    taps outside the image weighted 0 and the rest renormalized."""
    table = _keys_cubic_table()
    pos = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * _scale(n_in, n_out)
    pos = pos - np.float32(0.5)
    base = np.floor(pos).astype(np.int64)
    offset = np.rint((pos - base.astype(np.float32)) * np.float32(_KEYS_TABLE_SIZE))
    offset = offset.astype(np.int64)
    taps = base[:, None] + np.arange(-1, 3)[None, :]
    coeffs = np.stack(
        [
            table[offset, 1],
            table[offset, 0],
            table[_KEYS_TABLE_SIZE - offset, 0],
            table[_KEYS_TABLE_SIZE - offset, 1],
        ],
        axis=1,
    )
    inside = (taps >= 0) & (taps < n_in)
    weights = np.where(inside, coeffs, np.float32(0)).astype(np.float32)
    total = weights.sum(axis=1, keepdims=True, dtype=np.float32)
    weights = np.where(
        np.abs(total) >= 1000 * np.finfo(np.float32).tiny, weights * (1 / total), weights
    )
    return np.clip(taps, 0, n_in - 1).astype(np.int32), weights.astype(np.float32)


def _bicubic_fn(x, *, size):
    """``ResizeBicubic(half_pixel_centers=True)`` on NHWC: along x, then along y."""
    (rows, wy), (cols, wx) = _cubic_table(x.shape[1], size[0]), _cubic_table(x.shape[2], size[1])
    wy, wx = jnp.asarray(wy, x.dtype), jnp.asarray(wx, x.dtype)
    picked = x[:, rows]  # N, H', 4, W, C
    along_x = sum(picked[:, :, :, cols[:, j]] * wx[None, None, None, :, j, None] for j in range(4))
    return sum(along_x[:, :, i] * wy[None, :, i, None, None] for i in range(4))


def _area_weights(n_in: int, n_out: int) -> np.ndarray:
    """TF's ``ResizeArea`` coverage of input pixel ``i`` by output pixel ``o`` (not yet
    divided by the scale), as an ``[n_out, n_in]`` float32 matrix.

    Output pixel ``o`` covers ``[o * scale, (o + 1) * scale)`` of the input; a float32
    end that rounds past the image reads its last pixel again, as TF's ``Bound`` does.
    """
    scale = _scale(n_in, n_out)
    weights = np.zeros((n_out, n_in), np.float32)
    for o in range(n_out):
        lo, hi = np.float32(o) * scale, np.float32(o + 1) * scale
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            start, end = np.float32(i), np.float32(i + 1)
            if start < lo:
                cover = scale if end > hi else end - lo
            else:
                cover = hi - start if end > hi else np.float32(1)
            weights[o, min(max(i, 0), n_in - 1)] += cover
    return weights


def _area_fn(x, *, size):
    """``ResizeArea(align_corners=False)`` on float32 NHWC: the coverage-weighted sum of
    each row's pixels, of those sums over the rows, times ``1 / (scale_y * scale_x)``."""
    (h, w), (new_h, new_w) = x.shape[1:3], size
    wy, wx = _area_weights(h, new_h), _area_weights(w, new_w)
    inv_area = np.float32(1) / (_scale(h, new_h) * _scale(w, new_w))
    hi = jax.lax.Precision.HIGHEST
    along_x = jnp.einsum("vw,nhwc->nhvc", wx, x, precision=hi)
    return jnp.einsum("uh,nhvc->nuvc", wy, along_x, precision=hi) * inv_area


def _mitchell_cubic(x: np.ndarray) -> np.ndarray:
    """TF's ``MitchellCubicKernelFunc`` (B = C = 1/3) in float32, for ``x >= 0``."""
    f = np.float32
    near = ((f(7) / f(6) * x - f(2)) * x) * x + f(8) / f(9)
    far = ((f(-7) / f(18) * x + f(2)) * x - f(10) / f(3)) * x + f(16) / f(9)
    return np.where(x >= 2, f(0), np.where(x >= 1, far, near)).astype(np.float32)


def _gaussian(x: np.ndarray) -> np.ndarray:
    """TF's ``GaussianKernelFunc``: radius 1.5, sigma 0.5, the exponential in double."""
    value = np.exp((-x * x).astype(np.float64) / 0.5).astype(np.float32)
    return np.where(x >= np.float32(1.5), np.float32(0), value)


# ScaleAndTranslate's kernels that jax.image lacks: (kernel, radius).
_SPAN_KERNELS = {"gaussian": (_gaussian, 1.5), "mitchellcubic": (_mitchell_cubic, 2.0)}


def _span_weights(n_in: int, n_out: int, method: str, antialias: bool) -> np.ndarray:
    """TF's ``ComputeSpansCore`` for ``tf.image.resize`` (scale ``n_out / n_in``, no
    translation) as an ``[n_out, n_in]`` float32 matrix: the kernel at each input pixel
    centre, stretched by ``1 / scale`` when antialiasing a downsample, renormalized."""
    f = np.float32
    kernel, radius = _SPAN_KERNELS[method]
    inv_scale = f(1.0 / np.float64(f(n_out) / f(n_in)))  # TF divides in double here
    kernel_scale = max(inv_scale, f(1)) if antialias else f(1)
    reach = f(radius) * kernel_scale
    weights = np.zeros((n_out, n_in), np.float32)
    for o in range(n_out):
        sample = (f(o) + f(0.5)) * inv_scale + f(-0.0)
        if sample < 0 or sample > n_in:
            continue
        start = min(max(int(np.ceil(sample - reach - f(0.5))), 0), n_in - 1)
        end = min(max(int(np.floor(sample + reach - f(0.5))), 0), n_in - 1) + 1
        pos = np.arange(start, end, dtype=np.float32) + f(0.5) - sample
        taps = kernel(np.abs(pos * (f(1) / kernel_scale)))
        total = f(0)
        for t in taps:  # TF sums in order, in float32
            total = f(total + t)
        if abs(total) >= f(1000) * np.finfo(np.float32).tiny:
            weights[o, start:end] = taps * (f(1) / total)
    return weights


def _scale_and_translate_fn(x, *, size, method, antialias):
    if method not in _SPAN_KERNELS:
        shape = (x.shape[0], *size, x.shape[3])
        return jax.image.resize(x, shape, method, antialias=antialias)
    # TF gathers the rows first, then the columns of that float32 intermediate.
    wy = _span_weights(x.shape[1], size[0], method, antialias)
    wx = _span_weights(x.shape[2], size[1], method, antialias)
    hi = jax.lax.Precision.HIGHEST
    rows = jnp.einsum("uh,nhwc->nuwc", wy, x, precision=hi)
    return jnp.einsum("vw,nuwc->nuvc", wx, rows, precision=hi)


_bilinear_op = Op("ResizeBilinear", _bilinear_fn)
_nearest_op = Op("ResizeNearestNeighbor", _nearest_fn)
_bicubic_op = Op("ResizeBicubic", _bicubic_fn)
_scale_and_translate_op = Op("ScaleAndTranslate", _scale_and_translate_fn)
# TF registers no gradient for ResizeArea (its tape raises LookupError): None here.
_area_op = Op("ResizeArea", _area_fn, differentiable=False)


def _size(size) -> tuple:
    try:
        s = np.asarray(convert_to_tensor(size, dtype=dtypes.int32)._value)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if s.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return int(s[0]), int(s[1])


def resize(
    images,
    size,
    method=ResizeMethod.BILINEAR,
    preserve_aspect_ratio=False,
    antialias=False,
    name=None,
):
    """Resizes images to ``size`` = ``[new_height, new_width]`` (``tf.image.resize``).

    ``bilinear``, ``nearest`` and ``bicubic`` follow TF 2's kernels (half-pixel
    centers), ``area`` TF's ResizeArea (``antialias`` is ignored, as TF ignores it);
    ``antialias=True`` and ``lanczos3``/``lanczos5``/``gaussian``/``mitchellcubic``
    follow TF's ScaleAndTranslate. The result is float32, except for ``nearest``, which
    keeps the dtype, as TF's. Differentiable, except ``area``.

    .. warning::
       TF registers no gradient for ``area`` (its tape raises ``LookupError``); a tape
       gives ``None`` through it.

    Example:
        >>> import tapejax as tf
        >>> tf.image.resize(tf.ones([4, 4, 3]), [2, 8]).shape
        TensorShape([2, 8, 3])

    Raises:
        ValueError: ``images`` is not 3-D or 4-D, ``size`` is not two integers, or
            ``method`` is unknown.
        InvalidArgumentError: the image dtype is not one TF's kernel takes, or a new
            size is not positive.
    """
    x = to_tensor(images)
    if x._v.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    new_h, new_w = _size(size)
    h, w = _hw(x)
    if preserve_aspect_ratio:
        factor = min(np.float32(new_h) / np.float32(h), np.float32(new_w) / np.float32(w))
        new_h = int(np.round(np.float32(factor * np.float32(h))))
        new_w = int(np.round(np.float32(factor * np.float32(w))))
    method = str(method)
    if method not in ("bilinear", "nearest", "bicubic", "area", *_SCALE_AND_TRANSLATE):
        raise ValueError(f"Resize method is not implemented: {method}")
    static = (("size", (new_h, new_w)),)
    if method in _SCALE_AND_TRANSLATE or (antialias and method in ("bilinear", "bicubic")):
        op = _scale_and_translate_op
        jax_method = {"bilinear": "linear", "bicubic": "cubic"}.get(method, method)
        static += (("method", jax_method), ("antialias", bool(antialias)))
    else:
        op = {
            "bilinear": _bilinear_op,
            "nearest": _nearest_op,
            "bicubic": _bicubic_op,
            "area": _area_op,
        }[method]
    dt = x._v.dtype
    if tf_type_name(dt) not in _RESIZE_TYPES[op.name].split(", "):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed values: "
            f"{_RESIZE_TYPES[op.name]} [Op:{op.name}]",
        )
    for bad, text in (
        (new_h <= 0 or new_w <= 0, "output dimensions must be positive"),
        (x._v.shape[-1] == 0, "image must have at least one channel"),
        (h == 0 or w == 0, "input image must be of non-zero size"),
    ):
        if bad:
            raise InvalidArgumentError(None, None, f"{text} [Op:{op.name}]")
    batched = x if x._v.ndim == 4 else expand_dims(x, 0)
    if op is not _nearest_op and batched.dtype != dtypes.float32:
        batched = cast(batched, dtypes.float32)  # TF's kernels compute and return float32
    out = apply(op, (batched,), static)
    return out if x._v.ndim == 4 else _squeeze0(out)


_squeeze0_op = Op("Squeeze", lambda x: x[0])


def _squeeze0(x: Tensor) -> Tensor:
    return apply(_squeeze0_op, (x,))


# -- dtype conversion --------------------------------------------------------------------------


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts ``image`` to ``dtype``, scaling integer ranges to [0, 1] and back
    (``tf.image.convert_image_dtype``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.convert_image_dtype(tf.constant([255], tf.uint8), tf.float32).numpy()
        array([1.], dtype=float32)
    """
    x = to_tensor(image)
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating and not dt.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    src = x.dtype
    if not src.is_floating and not src.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dt == src:
        return x
    if src.is_integer and dt.is_integer:
        scale_in, scale_out = int(src.max), int(dt.max)
        if scale_in > scale_out:
            scaled = floordiv(x, convert_to_tensor((scale_in + 1) // (scale_out + 1), dtype=src))
            return saturate_cast(scaled, dt) if saturate else cast(scaled, dt)
        converted = saturate_cast(x, dt) if saturate else cast(x, dt)
        return multiply(converted, convert_to_tensor((scale_out + 1) // (scale_in + 1), dtype=dt))
    if src.is_floating and dt.is_floating:
        return cast(x, dt)
    if src.is_integer:
        return multiply(cast(x, dt), convert_to_tensor(1.0 / src.max, dtype=dt))
    scaled = multiply(x, convert_to_tensor(dt.max + 0.5, dtype=src))
    return saturate_cast(scaled, dt) if saturate else cast(scaled, dt)


# -- flips -------------------------------------------------------------------------------------

_reverse_op = Op("ReverseV2", lambda x, *, axis: jnp.flip(x, axis))


def _flip(image, axis_from_end: int) -> Tensor:
    x = to_tensor(image)
    _rank_3_or_4(x, sep="")
    return apply(_reverse_op, (x,), (("axis", x._v.ndim - axis_from_end),))


def flip_left_right(image):
    """Mirrors images horizontally (``tf.image.flip_left_right``)."""
    return _flip(image, 2)


def flip_up_down(image):
    """Mirrors images vertically (``tf.image.flip_up_down``)."""
    return _flip(image, 3)


def _random_flip(image, axis_from_end: int, draw) -> Tensor:
    """Flips with probability 1/2; ``draw(shape)`` gives uniform [0, 1) samples (stateful or
    stateless)."""
    x = to_tensor(image)
    _rank_3_or_4(x)
    flipped = _flip(x, axis_from_end)
    if x._v.ndim == 3:
        mirror = draw([]) < 0.5
    else:
        # One decision per image of the batch: TF flips where round(u) is 1.
        coin = draw([x._v.shape[0]])
        mirror = reshape(coin > 0.5, [-1, 1, 1, 1])
    return where(mirror, flipped, x)


def random_flip_left_right(image, seed=None):
    """Mirrors each image horizontally with probability 1/2 (``tf.image.random_flip_left_right``)."""
    return _random_flip(image, 2, lambda shape: uniform(shape, 0, 1.0, seed=seed))


def random_flip_up_down(image, seed=None):
    """Mirrors each image vertically with probability 1/2 (``tf.image.random_flip_up_down``)."""
    return _random_flip(image, 3, lambda shape: uniform(shape, 0, 1.0, seed=seed))


# -- crops and pads ----------------------------------------------------------------------------


def _slice_fn(x, *, start, size):
    return jax.lax.slice(x, start, tuple(s + n for s, n in zip(start, size)))


_slice_op = Op("Slice", _slice_fn)
_pad_op = Op("Pad", lambda x, *, pads: jnp.pad(x, pads))


def _crop(x: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    lead = (0,) * (x._v.ndim - 3)
    start = lead + (top, left, 0)
    size = x._v.shape[:-3] + (height, width, x._v.shape[-1])
    return apply(_slice_op, (x,), (("start", start), ("size", size)))


def _python_int(v, what: str) -> int:
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        value = np.asarray(v._value)
        if value.dtype.kind not in "iu" or value.ndim:
            raise TypeError(f"{what} must be an integer scalar, got {value.dtype} {value.shape}")
        return int(value)
    return int(v)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Crops the box with top-left corner at the offsets (``tf.image.crop_to_bounding_box``)."""
    x = to_tensor(image)
    _image_rank_3_or_4(x)
    top, left = (
        _python_int(offset_height, "offset_height"),
        _python_int(offset_width, "offset_width"),
    )
    th, tw = _python_int(target_height, "target_height"), _python_int(target_width, "target_width")
    h, w = _hw(x)
    for ok, text in (
        (left >= 0, "offset_width must be >= 0."),
        (top >= 0, "offset_height must be >= 0."),
        (tw > 0, "target_width must be > 0."),
        (th > 0, "target_height must be > 0."),
        (w >= tw + left, "width must be >= target + offset."),
        (h >= th + top, "height must be >= target + offset."),
    ):
        if not ok:
            raise ValueError(text)
    return _crop(x, top, left, th, tw)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads with zeros to ``target_height`` x ``target_width``, the image at the offsets
    (``tf.image.pad_to_bounding_box``)."""
    x = to_tensor(image)
    _image_rank_3_or_4(x)
    top, left = (
        _python_int(offset_height, "offset_height"),
        _python_int(offset_width, "offset_width"),
    )
    th, tw = _python_int(target_height, "target_height"), _python_int(target_width, "target_width")
    h, w = _hw(x)
    after_h, after_w = th - top - h, tw - left - w
    for ok, text in (
        (top >= 0, "offset_height must be >= 0"),
        (left >= 0, "offset_width must be >= 0"),
        (after_w >= 0, "width must be <= target - offset"),
        (after_h >= 0, "height must be <= target - offset"),
    ):
        if not ok:
            raise ValueError(text)
    pads = ((0, 0),) * (x._v.ndim - 3) + ((top, after_h), (left, after_w), (0, 0))
    return apply(_pad_op, (x,), (("pads", pads),))


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops or zero-pads to the target size (``tf.image.resize_with_crop_or_pad``)."""
    x = to_tensor(image)
    _image_rank_3_or_4(x)
    th, tw = _python_int(target_height, "target_height"), _python_int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = _hw(x)
    cropped = crop_to_bounding_box(
        x, max((h - th) // 2, 0), max((w - tw) // 2, 0), min(th, h), min(tw, w)
    )
    return pad_to_bounding_box(cropped, max((th - h) // 2, 0), max((tw - w) // 2, 0), th, tw)


def central_crop(image, central_fraction):
    """Keeps the central ``central_fraction`` of each side (``tf.image.central_crop``)."""
    x = to_tensor(image)
    fraction = float(np.asarray(central_fraction))
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return x
    _at_least_3d(x)
    if x._v.ndim not in (3, 4):
        raise ValueError(
            f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {x._v.ndim}."
        )
    h, w = _hw(x)
    top = int((float(h) - float(h) * fraction) / 2)
    left = int((float(w) - float(w) * fraction) / 2)
    return _crop(x, top, left, h - 2 * top, w - 2 * left)


# -- colour ------------------------------------------------------------------------------------


def _standardize_fn(x):
    axes = (-3, -2, -1)
    n = x.shape[-3] * x.shape[-2] * x.shape[-1]
    mean = jnp.mean(x, axis=axes, keepdims=True)
    stddev = jnp.sqrt(jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True))
    adjusted = jnp.maximum(stddev, jax.lax.rsqrt(jnp.asarray(n, x.dtype)))
    return (x - mean) / adjusted


_standardize_op = Op("PerImageStandardization", _standardize_fn)


def per_image_standardization(image):
    """Scales each image to mean 0 and variance 1 (``tf.image.per_image_standardization``);
    the stddev is at least ``1/sqrt(num_pixels)``. The result is float32, as TF's."""
    x = to_tensor(image)
    _at_least_3d(x)
    return apply(_standardize_op, (cast(x, dtypes.float32),))


_GRAY_WEIGHTS = np.array([0.2989, 0.5870, 0.1140], np.float32)
_gray_op = Op(
    "MatMul", lambda x: jnp.tensordot(x, jnp.asarray(_GRAY_WEIGHTS), axes=[[-1], [-1]])[..., None]
)


def rgb_to_grayscale(images, name=None):
    """Luma of RGB images, last dimension 3 -> 1 (``tf.image.rgb_to_grayscale``)."""
    x = to_tensor(images)
    flt = convert_image_dtype(x, dtypes.float32)
    if x._v.shape[-1:] != (3,):
        rows = int(np.prod(x._v.shape[:-1]))
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: [{rows},{x._v.shape[-1]}], In[1]: [3,1] [Op:MatMul]",
        )
    return convert_image_dtype(apply(_gray_op, (flt,)), x.dtype)


_tile3_op = Op("Tile", lambda x: jnp.concatenate([x, x, x], axis=-1))


def grayscale_to_rgb(images, name=None):
    """Repeats the single channel three times (``tf.image.grayscale_to_rgb``)."""
    x = to_tensor(images)
    if x._v.ndim < 2:
        raise ValueError(
            f"A grayscale image (shape {_shape_text(x)}) must be at least two-dimensional."
        )
    if x._v.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return apply(_tile3_op, (x,))


def _working_float(x: Tensor) -> Tensor:
    """TF's adjust_* work in float16/float32 as given, other dtypes through float32."""
    if x.dtype in (dtypes.float16, dtypes.float32):
        return x
    return convert_image_dtype(x, dtypes.float32)


def adjust_brightness(image, delta):
    """Adds ``delta`` to every pixel (``tf.image.adjust_brightness``; integer images are
    converted to [0, 1] floats and back, saturating)."""
    x = to_tensor(image)
    flt = _working_float(x)
    adjusted = add(flt, cast(delta, flt.dtype))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)


def _contrast_fn(x, factor):
    mean = jnp.mean(x, axis=(-3, -2), keepdims=True)
    return (x - mean) * factor.astype(x.dtype) + mean


_contrast_op = Op("AdjustContrastv2", _contrast_fn)


def adjust_contrast(images, contrast_factor):
    """Scales each channel's distance from its mean by ``contrast_factor``
    (``tf.image.adjust_contrast``).

    .. warning::
       TF registers no gradient for this op (its tape raises LookupError); tapejax's is
       the derivative of the formula above.
    """
    x = to_tensor(images)
    flt = _working_float(x)
    if flt._v.ndim < 3:
        raise InvalidArgumentError(
            None,
            None,
            f"input must be at least 3-D, got shape[{','.join(map(str, flt._v.shape))}] "
            "[Op:AdjustContrastv2]",
        )
    factor = convert_to_tensor(contrast_factor, dtype=dtypes.float32)
    adjusted = apply(_contrast_op, (flt, factor))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)
