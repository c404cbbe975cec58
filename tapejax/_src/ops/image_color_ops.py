"""``tf.image`` colour spaces and colour adjustments with TF's kernels' arithmetic.

``rgb_to_hsv``/``hsv_to_rgb`` are TF's RGBToHSV/HSVToRGB kernels (hue in [0, 1));
``adjust_hue`` and ``adjust_saturation`` reproduce TF's CPU kernels (their own HSV
helpers, hue moved in sixths of a turn); YIQ and YUV are TF's 3x3 matrices applied by
``tensordot``; ``adjust_gamma`` is TF's ``gain * image ** gamma`` composite. Integer images
go through ``convert_image_dtype`` as in TF.

Gradients are TF's: RGBToHSV has TF's own registered formula (its tie-breaking and its
``div_no_nan`` reciprocals), written here as the JVP whose transpose it is; HSVToRGB,
AdjustHue and AdjustSaturation have none in TF, so the tape gives None through them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, require, to_tensor
from .image_ops import convert_image_dtype
from .linalg_ops import tensordot
from .math_ops import multiply
from .math_ops import pow as tf_pow

TF_ALLOWED.update(
    {
        **dict.fromkeys(["RGBToHSV", "HSVToRGB"], "half, bfloat16, float, double"),
        **dict.fromkeys(["AdjustHue", "AdjustSaturation"], "half, float"),
    }
)


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _channels(x) -> tuple:
    return x[..., 0], x[..., 1], x[..., 2]


# -- RGB <-> HSV --------------------------------------------------------------------------------


def _rgb_to_hsv_values(rgb):
    """TF's RGBToHSV kernel, in ``rgb``'s dtype."""
    r, g, b = _channels(rgb)
    dt = rgb.dtype
    v = jnp.max(rgb, axis=-1)
    span = v - jnp.min(rgb, axis=-1)
    s = jnp.where(v > 0, span / v, jnp.zeros_like(v))
    norm = (1 / span) * (jnp.asarray(1, dt) / jnp.asarray(6, dt))
    two, four = jnp.asarray(2, dt) / jnp.asarray(6, dt), jnp.asarray(4, dt) / jnp.asarray(6, dt)
    h = jnp.where(
        r == v, norm * (g - b), jnp.where(g == v, norm * (b - r) + two, norm * (r - g) + four)
    )
    h = jnp.where(span > 0, h, jnp.zeros_like(h))
    h = jnp.where(h < 0, h + 1, h)
    return jnp.stack([h, s, v], axis=-1)


def _reciprocal_no_nan(x):
    return jnp.where(x == 0, jnp.zeros_like(x), 1 / jnp.where(x == 0, jnp.ones_like(x), x))


@jax.custom_jvp
def _rgb_to_hsv(rgb):
    return _rgb_to_hsv_values(rgb)


@_rgb_to_hsv.defjvp
def _rgb_to_hsv_jvp(primals, tangents):
    # TF's _RGBToHSVGrad, term by term (ties broken R > G > B), as the Jacobian it applies.
    (rgb,), (t,) = primals, tangents
    hsv = _rgb_to_hsv(rgb)
    r, g, b = _channels(rgb)
    _, s, v = _channels(hsv)
    dt = rgb.dtype

    def ind(cond):
        return cond.astype(dt)

    inv = _reciprocal_no_nan
    r_max, g_max, b_max = ind((r >= b) & (r >= g)), ind((g > r) & (g >= b)), ind((b > r) & (b > g))
    r_min, g_min, b_min = ind((r < b) & (r < g)), ind((g <= r) & (g < b)), ind((b <= r) & (b <= g))
    r_pos, g_pos, b_pos = ind(r > 0), ind(g > 0), ind(b > 0)
    ds_dr = r_pos * (
        r_max * (g_min * g + b_min * b) * inv(r * r) - r_min * inv(g_max * g + b_max * b)
    )
    ds_dg = g_pos * (
        g_max * (r_min * r + b_min * b) * inv(g * g) - g_min * inv(r_max * r + b_max * b)
    )
    ds_db = b_pos * (
        b_max * (g_min * g + r_min * r) * inv(b * b) - b_min * inv(g_max * g + r_max * r)
    )
    sv = inv(s * s) * inv(v * v)
    dh_dr = (
        60 * (r_pos * r_max * -1 * (g - b) * sv)
        + 60 * (g_pos * g_max * r_min * (b - g) * inv((r - g) * (r - g)))
        + 60 * (g_pos * g_max * b_min * -1 * inv(g - b))
        + 60 * (b_pos * b_max * r_min * (b - g) * inv((b - r) * (b - r)))
        + 60 * (b_pos * b_max * g_min * inv(b - g))
    ) / 360
    dh_dg = (
        60 * (g_pos * g_max * -1 * (b - r) * sv)
        + 60 * (r_pos * r_max * g_min * (r - b) * inv((r - g) * (r - g)))
        + 60 * (r_pos * r_max * b_min * inv(r - b))
        + 60 * (b_pos * b_max * g_min * (r - b) * inv((b - g) * (b - g)))
        + 60 * (b_pos * b_max * r_min * -1 * inv(b - r))
    ) / 360
    dh_db = (
        60 * (b_pos * b_max * -1 * (r - g) * sv)
        + 60 * (r_pos * r_max * b_min * (g - r) * inv((r - b) * (r - b)))
        + 60 * (r_pos * r_max * g_min * -1 * inv(r - g))
        + 60 * (g_pos * g_max * b_min * (g - r) * inv((g - b) * (g - b)))
        + 60 * (g_pos * g_max * r_min * inv(g - r))
    ) / 360
    tr, tg, tb = _channels(t)
    dh = dh_dr * tr + dh_dg * tg + dh_db * tb
    ds = ds_dr * tr + ds_dg * tg + ds_db * tb
    dv = r_max * tr + g_max * tg + b_max * tb
    return hsv, jnp.stack([dh, ds, dv], axis=-1)


_rgb_to_hsv_op = Op("RGBToHSV", _rgb_to_hsv)


def _hsv_to_rgb_fn(hsv):
    h, s, v = _channels(hsv)
    dh = h * 6
    one = jnp.ones_like(dh)
    zero = jnp.zeros_like(dh)
    dr = jnp.minimum(jnp.maximum(jnp.abs(dh - 3) - 1, zero), one)
    dg = jnp.minimum(jnp.maximum(-jnp.abs(dh - 2) + 2, zero), one)
    db = jnp.minimum(jnp.maximum(-jnp.abs(dh - 4) + 2, zero), one)
    one_s = -s + 1
    return jnp.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], axis=-1)


_hsv_to_rgb_op = Op("HSVToRGB", _hsv_to_rgb_fn, differentiable=False)


def _three_channels(x: Tensor, op_name: str, kinds: str = "f") -> None:
    require(x, kinds, op_name)
    if not x._v.ndim or x._v.shape[-1] != 3:
        channels = x._v.shape[-1] if x._v.ndim else 1
        raise FailedPreconditionError(
            None,
            None,
            f"input must have 3 channels but input only has {channels} channels. [Op:{op_name}]",
        )


def rgb_to_hsv(images, name=None):
    """RGB to HSV, hue in [0, 1) (``tf.image.rgb_to_hsv``); gradients are TF's formula.

    Example:
        >>> import tapejax as tf
        >>> tf.image.rgb_to_hsv([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]).numpy()
        array([[0. , 1. , 1. ],
               [0.5, 1. , 0.5]], dtype=float32)
    """
    x = to_tensor(images)
    _three_channels(x, "RGBToHSV")
    return apply(_rgb_to_hsv_op, (x,))


def hsv_to_rgb(images, name=None):
    """HSV (hue in [0, 1)) to RGB (``tf.image.hsv_to_rgb``). TF registers no gradient for it:
    the tape gives None.

    Example:
        >>> import tapejax as tf
        >>> tf.image.hsv_to_rgb([[0.5, 1.0, 0.5]]).numpy()
        array([[0. , 0.5, 0.5]], dtype=float32)
    """
    x = to_tensor(images)
    _three_channels(x, "HSVToRGB")
    return apply(_hsv_to_rgb_op, (x,))


# -- YIQ, YUV -----------------------------------------------------------------------------------

_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _linear_colour(images, kernel) -> Tensor:
    """TF's ``tensordot(images, kernel, [[last], [0]])`` with the kernel in the images' dtype."""
    x = convert_to_tensor(images)
    k = convert_to_tensor(kernel, dtype=x.dtype)
    return tensordot(x, k, axes=[[x._v.ndim - 1], [0]])


def rgb_to_yiq(images):
    """RGB to YIQ by TF's matrix (``tf.image.rgb_to_yiq``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.rgb_to_yiq([1.0, 0.0, 0.0]).numpy()
        array([0.299    , 0.5959006, 0.2115   ], dtype=float32)
    """
    return _linear_colour(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ to RGB by TF's matrix (``tf.image.yiq_to_rgb``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.yiq_to_rgb([1.0, 0.0, 0.0]).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    return _linear_colour(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB to YUV by TF's matrix (``tf.image.rgb_to_yuv``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.rgb_to_yuv([1.0, 1.0, 1.0]).numpy().round(4)
        array([1., 0., 0.], dtype=float32)
    """
    return _linear_colour(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV to RGB by TF's matrix (``tf.image.yuv_to_rgb``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.yuv_to_rgb([1.0, 0.0, 0.0]).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    return _linear_colour(images, _YUV_TO_RGB)


# -- adjust_hue, adjust_saturation: TF's CPU kernels ------------------------------------------------


def _sorted_channels(r, g, b):
    """TF's ``rgb_to_hv_range``: max, middle and min channel and the hue sextant."""
    r_lt_g = r < g
    cases = [  # (condition, v_max, v_mid, v_min, sextant), in TF's order
        (r_lt_g & (b < r), g, r, b, 1),
        (r_lt_g & (b > g), b, g, r, 3),
        (r_lt_g, g, b, r, 2),
        (b < g, r, g, b, 0),
        (b > r, b, r, g, 4),
    ]
    v_max, v_mid, v_min, sextant = r, b, g, jnp.full(r.shape, 5, jnp.int32)
    for cond, hi, mid, lo, k in reversed(cases):
        v_max, v_mid, v_min = (
            jnp.where(cond, hi, v_max),
            jnp.where(cond, mid, v_mid),
            jnp.where(cond, lo, v_min),
        )
        sextant = jnp.where(cond, k, sextant)
    return v_max, v_mid, v_min, sextant


def _adjust_hue_fn(x, delta):
    dt = x.dtype
    x = x.astype(jnp.float32)
    v_max, v_mid, v_min, sextant = _sorted_channels(*_channels(x))
    span = v_max - v_min
    ratio = (v_mid - v_min) / jnp.where(span == 0, jnp.ones_like(span), span)
    h = sextant.astype(jnp.float32) + jnp.where(sextant % 2 == 0, ratio, 1 - ratio)
    h = jnp.where(span == 0, jnp.zeros_like(h), h)
    h = h + delta.astype(jnp.float32) * 6
    for _ in range(2):  # |delta| <= 1: TF's while loops run at most twice
        h = jnp.where(h < 0, h + 6, h)
    for _ in range(2):
        h = jnp.where(h >= 6, h - 6, h)
    sextant = h.astype(jnp.int32)
    ratio = h - sextant.astype(jnp.float32)
    ratio = jnp.where(sextant % 2 == 0, ratio, 1 - ratio)
    mid = v_min + ratio * (v_max - v_min)
    order = [  # (r, g, b) per sextant; 5 and beyond: TF's default
        (v_max, mid, v_min),
        (mid, v_max, v_min),
        (v_min, v_max, mid),
        (v_min, mid, v_max),
        (mid, v_min, v_max),
        (v_max, v_min, mid),
    ]
    rgb = [
        jnp.select([sextant == k for k in range(5)], [o[c] for o in order[:5]], order[5][c])
        for c in range(3)
    ]
    return jnp.stack(rgb, axis=-1).astype(dt)


def _hsv_of(r, g, b):
    """TF's adjust kernels' own ``rgb_to_hsv`` (another rounding than RGBToHSV's)."""
    v = jnp.maximum(r, jnp.maximum(g, b))
    span = v - jnp.minimum(r, jnp.minimum(g, b))
    s = jnp.where(v > 0, span / jnp.where(v > 0, v, 1), jnp.zeros_like(v))
    norm = 1 / (6 * span)
    h = jnp.where(
        r == v, norm * (g - b), jnp.where(g == v, norm * (b - r) + 2 / 6, norm * (r - g) + 4 / 6)
    )
    h = jnp.where(span <= 0, jnp.zeros_like(h), h)
    return jnp.where(h < 0, h + 1, h), s, v


def _rgb_of(h, s, v):
    """TF's adjust kernels' ``hsv_to_rgb`` (the sextant formula)."""
    c = s * v
    m = v - c
    dh = h * 6
    sextant = dh.astype(jnp.int32)
    f = jnp.where(dh <= 0, dh + 2, dh)
    for _ in range(3):
        f = jnp.where(f >= 2, f - 2, f)
    x = c * (1 - jnp.abs(f - 1))
    zero = jnp.zeros_like(c)
    order = [(c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c), (c, zero, x)]
    rgb = [
        jnp.select([sextant == k for k in range(6)], [o[i] for o in order], zero) + m
        for i in range(3)
    ]
    return jnp.stack(rgb, axis=-1)


def _adjust_saturation_fn(x, scale):
    dt = x.dtype
    x = x.astype(jnp.float32)
    h, s, v = _hsv_of(*_channels(x))
    s = jnp.minimum(1.0, jnp.maximum(0.0, s * scale.astype(jnp.float32)))
    return _rgb_of(h, s, v).astype(dt)


_adjust_hue_op = Op("AdjustHue", _adjust_hue_fn, differentiable=False)
_adjust_saturation_op = Op("AdjustSaturation", _adjust_saturation_fn, differentiable=False)


def _adjust(image, amount, op: Op, what: str) -> Tensor:
    """TF's adjust_hue/adjust_saturation wrapper: float16/float32 as given, other dtypes
    through float32, the kernel's checks, the result converted back."""
    x = to_tensor(image)
    flt = (
        x if x.dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(x, dtypes.float32)
    )
    amount = convert_to_tensor(amount, dtype=dtypes.float32)
    shape = flt._v.shape
    if len(shape) < 3:
        raise _iae(f"input must be at least 3-D, got shape[{','.join(map(str, shape))}]", op.name)
    if amount._v.ndim:
        raise _iae(f"{what} must be scalar: [{','.join(map(str, amount._v.shape))}]", op.name)
    if shape[-1] != 3:
        raise _iae(f"input must have 3 channels but instead has {shape[-1]} channels.", op.name)
    return convert_image_dtype(apply(op, (flt, amount)), x.dtype)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB images by ``delta`` turns, ``delta`` in [-1, 1]
    (``tf.image.adjust_hue``). TF registers no gradient for it: the tape gives None.

    Example:
        >>> import tapejax as tf
        >>> tf.image.adjust_hue([[[1.0, 0.0, 0.0]]], 1 / 3).numpy().round(5)
        array([[[0., 1., 0.]]], dtype=float32)
    """
    if delta < -1 or delta > 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    return _adjust(image, delta, _adjust_hue_op, "delta")


def adjust_saturation(image, saturation_factor, name=None):
    """Scales the saturation of RGB images by ``saturation_factor``, clipped to [0, 1]
    (``tf.image.adjust_saturation``). TF registers no gradient for it: the tape gives None.

    Example:
        >>> import tapejax as tf
        >>> tf.image.adjust_saturation([[[1.0, 0.5, 0.5]]], 0.0).numpy()
        array([[[1., 1., 1.]]], dtype=float32)
    """
    return _adjust(image, saturation_factor, _adjust_saturation_op, "scale")


# -- adjust_gamma ----------------------------------------------------------------------------------


def _check_gamma(gamma) -> None:
    """TF's ``_assert(gamma >= 0)``: a ValueError for numbers, the eager Assert for tensors."""
    if not isinstance(gamma, Tensor) and not getattr(gamma, "_is_variable", False):
        if np.any(np.asarray(gamma) < 0):
            raise ValueError("Gamma should be a non-negative real number.")
        return
    value = gamma._value if isinstance(gamma, Tensor) else gamma.read_value()._value
    if isinstance(value, jax.core.Tracer):
        return
    value = np.asarray(value)
    if value.size > 1:
        raise ValueError(
            "The truth value of an array with more than one element is ambiguous. Use a.any() "
            "or a.all()"
        )
    if value < 0:
        raise InvalidArgumentError(
            None,
            None,
            "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            "b'Gamma should be a non-negative real number.'",
        )


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction ``gain * image ** gamma`` (``tf.image.adjust_gamma``); integer images
    are scaled to [0, 1] and back, saturating.

    Example:
        >>> import tapejax as tf
        >>> tf.image.adjust_gamma(tf.constant([[[0.25]]]), gamma=0.5, gain=2.0).numpy()
        array([[[1.]]], dtype=float32)
    """
    x = to_tensor(image)
    flt = (
        x if x.dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(x, dtypes.float32)
    )
    _check_gamma(gamma)
    adjusted = multiply(gain, tf_pow(flt, gamma))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)
