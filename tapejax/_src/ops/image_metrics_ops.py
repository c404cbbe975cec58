"""``tf.image`` measures of images: total variation, finite-difference and Sobel gradients,
PSNR, SSIM and MS-SSIM, with TF's formulas, constants and checks.

SSIM uses TF's Gaussian window (``filter_size`` x ``filter_size``, a softmax of
``-coords^2 / (2 sigma^2)``, applied as a VALID depthwise convolution), its constants
``c1 = (k1 max_val)^2``, ``c2 = (k2 max_val)^2`` and its biased covariance (compensation 1).
Integer images are converted to [0, 1] floats first, ``max_val`` with them, as TF's. Each
measure is one op; derivatives are JAX's, which are TF's here (TF differentiates the same
composites). Must never read image values to decide a shape.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import require, tf_type_name, to_tensor
from .image_ops import convert_image_dtype
from .math_ops import cast
from .tf_rules import real_pow


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape) -> str:
    return ",".join(map(str, shape))


# -- total_variation, image_gradients, sobel_edges ------------------------------------------------


def _total_variation_fn(x):
    axes = tuple(range(x.ndim - 3, x.ndim))
    rows = jnp.abs(x[..., 1:, :, :] - x[..., :-1, :, :])
    cols = jnp.abs(x[..., :, 1:, :] - x[..., :, :-1, :])
    return jnp.sum(rows, axis=axes) + jnp.sum(cols, axis=axes)


_total_variation_op = Op("TotalVariation", _total_variation_fn)


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels, per image
    (``tf.image.total_variation``): a scalar for one image, ``[batch]`` for a batch.

    Example:
        >>> import tapejax as tf
        >>> tf.image.total_variation(tf.constant([[[0.0], [1.0]], [[2.0], [4.0]]])).numpy()
        np.float32(8.0)
    """
    x = to_tensor(images)
    if x._v.ndim not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    require(x, "fi", "Abs")
    return apply(_total_variation_op, (x,))


def _image_gradients_fn(x):
    zero = jnp.zeros_like(x)
    dy = jnp.concatenate([x[:, 1:] - x[:, :-1], zero[:, :1]], axis=1)
    dx = jnp.concatenate([x[:, :, 1:] - x[:, :, :-1], zero[:, :, :1]], axis=2)
    return dy, dx


_image_gradients_op = Op("ImageGradients", _image_gradients_fn, multiple_outputs=True)


def image_gradients(image):
    """One-step differences ``(dy, dx)`` of ``[batch, h, w, d]`` images, zero in the last row
    (``dy``) and column (``dx``) (``tf.image.image_gradients``).

    Example:
        >>> import tapejax as tf
        >>> dy, dx = tf.image.image_gradients(tf.reshape(tf.range(4.0), [1, 2, 2, 1]))
        >>> dx[0, ..., 0].numpy()
        array([[1., 0.],
               [1., 0.]], dtype=float32)
    """
    x = to_tensor(image)
    if x._v.ndim != 4:
        raise ValueError(
            f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {tuple(x._v.shape)}."
        )
    require(x, "fiuc", "Sub")
    return tuple(apply(_image_gradients_op, (x,)))


_SOBEL = (
    np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]]),
    np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]),
)


def _sobel_fn(x):
    h, w = x.shape[1:3]
    padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    maps = []
    for kernel in _SOBEL:
        total = jnp.zeros_like(x)
        for i in range(3):
            for j in range(3):
                if kernel[i, j]:
                    total = total + kernel[i, j] * padded[:, i : i + h, j : j + w]
        maps.append(total)
    return jnp.stack(maps, axis=-1)


_sobel_op = Op("SobelEdges", _sobel_fn)


def sobel_edges(image):
    """Sobel edge maps ``[batch, h, w, d, 2]`` (``dy``, ``dx`` per channel) of images padded
    by reflection (``tf.image.sobel_edges``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.sobel_edges(tf.ones([1, 3, 3, 1])).shape
        TensorShape([1, 3, 3, 1, 2])
    """
    x = to_tensor(image)
    shape = x._v.shape
    if len(shape) != 4:
        raise _iae(
            f"The first dimension of paddings must be the rank of inputs[4,2], [{_dims(shape)}]",
            "MirrorPad",
        )
    if shape[1] < 2 or shape[2] < 2:
        n = min(shape[1], shape[2])
        raise _iae(
            f"paddings must be less than the dimension size: 1, 1 not less than {n}", "MirrorPad"
        )
    if x._v.dtype.kind != "f" and x._v.dtype != dtypes.bfloat16._np:
        raise _iae(
            f"Value for attr 'T' of {tf_type_name(x._v.dtype)} is not in the list of allowed "
            "values: half, bfloat16, float, double",
            "DepthwiseConv2dNative",
        )
    return apply(_sobel_op, (x,))


# -- PSNR ------------------------------------------------------------------------------------------


def _float_images(a, b, max_val):
    """TF's conversions: both images to [0, 1]-scaled float32, ``max_val`` with them."""
    a, b = to_tensor(a), to_tensor(b)
    peak = convert_image_dtype(cast(max_val, a.dtype), dtypes.float32)
    return convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32), peak


def _check_compatible(a: Tensor, b: Tensor) -> None:
    """TF's ``_verify_compatible_image_shapes``."""
    sa, sb = a._v.shape, b._v.shape
    for s in (sa, sb):
        if len(s) < 3:
            raise ValueError(f"Shape {tuple(s)} must have rank at least 3")
    if sa[-3:] != sb[-3:]:
        raise ValueError(f"Shapes {tuple(sa[-3:])} and {tuple(sb[-3:])} are incompatible")
    for d1, d2 in zip(reversed(sa[:-3]), reversed(sb[:-3])):
        if d1 != 1 and d2 != 1 and d1 != d2:
            raise ValueError(f"Two images are not compatible: {tuple(sa)} and {tuple(sb)}")


def _psnr_fn(a, b, peak):
    mse = jnp.mean(jnp.square(a - b), axis=(-3, -2, -1))
    ten = jnp.float32(10.0)
    return 20 * jnp.log(peak) / jnp.log(ten) - np.float32(10 / np.log(10)) * jnp.log(mse)


_psnr_op = Op("PSNR", _psnr_fn)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of each image pair, float32 (``tf.image.psnr``); over the
    last three dimensions, the batch dimensions broadcast.

    Example:
        >>> import tapejax as tf
        >>> float(tf.image.psnr(tf.zeros([2, 2, 1]), tf.fill([2, 2, 1], 0.1), 1.0))
        20.0
    """
    fa, fb, peak = _float_images(a, b, max_val)
    sa, sb = fa._v.shape, fb._v.shape
    try:
        np.broadcast_shapes(sa, sb)
    except ValueError:
        raise _iae(
            f"Incompatible shapes: [{_dims(sa)}] vs. [{_dims(sb)}]", "SquaredDifference"
        ) from None
    rank = len(np.broadcast_shapes(sa, sb))
    if rank < 3:
        raise _iae(f"Invalid reduction dimension (-3 for input with {rank} dimension(s)", "Mean")
    _check_compatible(fa, fb)
    return apply(_psnr_op, (fa, fb, peak))


# -- SSIM ------------------------------------------------------------------------------------------


def _gaussian_window(size: int, sigma, dtype):
    """TF's ``_fspecial_gauss``: a normalized ``size`` x ``size`` Gaussian (a softmax)."""
    coords = jnp.arange(size, dtype=dtype) - jnp.asarray(size - 1, dtype) / 2.0
    g = jnp.square(coords) * (-0.5 / jnp.square(jnp.asarray(sigma, dtype)))
    g = (g[None, :] + g[:, None]).reshape(1, -1)
    return jax.nn.softmax(g).reshape(size, size)


def _windowed_mean(x, window):
    """The Gaussian-weighted local means of ``[..., h, w, c]`` images (VALID)."""
    lead = x.shape[:-3]
    flat = x.reshape((-1,) + x.shape[-3:])
    c = flat.shape[-1]
    kernel = jnp.broadcast_to(window[:, :, None, None], window.shape + (1, c))
    out = jax.lax.conv_general_dilated(
        flat,
        kernel.astype(flat.dtype),
        (1, 1),
        "VALID",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=c,
        precision=jax.lax.Precision.HIGHEST,
    )
    return out.reshape(lead + out.shape[1:])


def _ssim_parts(x, y, peak, filter_size, sigma, k1, k2):
    """TF's ``_ssim_per_channel`` maps: luminance and contrast-structure."""
    window = _gaussian_window(filter_size, sigma, x.dtype)
    c1 = jnp.square(k1 * peak)
    c2 = jnp.square(k2 * peak)
    mean0, mean1 = _windowed_mean(x, window), _windowed_mean(y, window)
    num0 = mean0 * mean1 * 2.0
    den0 = jnp.square(mean0) + jnp.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = _windowed_mean(x * y, window) * 2.0
    den1 = _windowed_mean(jnp.square(x) + jnp.square(y), window)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _ssim_fn(x, y, peak, *, filter_size, sigma, k1, k2, index_map):
    luminance, cs = _ssim_parts(x, y, peak, filter_size, sigma, k1, k2)
    per_channel = luminance * cs
    if not index_map:
        per_channel = jnp.mean(per_channel, axis=(-3, -2))
    return jnp.mean(per_channel, axis=-1)


_ssim_op = Op("SSIM", _ssim_fn)


def _check_window(shapes, filter_size: int) -> None:
    for shape in shapes:
        if min(shape[-3:-1]) < filter_size:
            raise InvalidArgumentError(
                None,
                None,
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                f"{', '.join(map(str, shape))}\n{filter_size}",
            )


def _ssim_static(filter_size, filter_sigma, k1, k2) -> tuple:
    return (
        ("filter_size", int(filter_size)),
        ("k1", float(k1)),
        ("k2", float(k2)),
        ("sigma", float(np.float32(filter_sigma))),
    )


def ssim(
    img1,
    img2,
    max_val,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    return_index_map=False,
):
    """Structural similarity of each image pair (``tf.image.ssim``): TF's Gaussian window and
    constants, averaged over pixels and channels (``return_index_map``: over channels only).

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(144.0) / 144.0, [12, 12, 1])
        >>> float(tf.image.ssim(x, x, max_val=1.0))
        1.0
    """
    x, y, peak = _float_images(img1, img2, max_val)
    _check_compatible(x, y)
    _check_window((x._v.shape, y._v.shape), int(filter_size))
    static = _ssim_static(filter_size, filter_sigma, k1, k2) + (
        ("index_map", bool(return_index_map)),
    )
    return apply(_ssim_op, (x, y, peak), static)


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


@jax.custom_jvp
def _relu(x):
    return jnp.maximum(x, 0)


@_relu.defjvp
def _relu_jvp(primals, tangents):
    # TF's ReluGrad multiplies by (x > 0): an infinite gradient (pow's, at a zero score)
    # becomes NaN there, as in TF, where a select would give 0.
    (x,), (t,) = primals, tangents
    return _relu(x), t * (x > 0).astype(t.dtype)


def _halve(x):
    """TF's MS-SSIM downscaling: symmetric padding of odd sides, then 2x2 average pooling."""
    h, w = x.shape[-3:-1]
    pads = [(0, 0)] * (x.ndim - 3) + [(0, h % 2), (0, w % 2), (0, 0)]
    x = jnp.pad(x, pads, mode="symmetric")
    h, w = x.shape[-3:-1]
    x = x.reshape(x.shape[:-3] + (h // 2, 2, w // 2, 2, x.shape[-1]))
    return jnp.sum(x, axis=(-4, -2)) / 4


def _ms_ssim_fn(x, y, peak, *, powers, filter_size, sigma, k1, k2):
    scores = []
    for k in range(len(powers)):
        if k:
            x, y = _halve(x), _halve(y)
        luminance, cs = _ssim_parts(x, y, peak, filter_size, sigma, k1, k2)
        last = k == len(powers) - 1
        score = luminance * cs if last else cs
        scores.append(_relu(jnp.mean(score, axis=(-3, -2))))
    stacked = jnp.stack(scores, axis=-1)
    ms_ssim = jnp.prod(real_pow(stacked, jnp.asarray(powers, stacked.dtype)), axis=-1)
    return jnp.mean(ms_ssim, axis=-1)


_ms_ssim_op = Op("MSSSIM", _ms_ssim_fn)


def ssim_multiscale(
    img1,
    img2,
    max_val,
    power_factors=_MSSSIM_WEIGHTS,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
):
    """Multi-scale SSIM of each image pair (``tf.image.ssim_multiscale``): one scale per
    entry of ``power_factors``, each half the previous size, combined as TF's.

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(576.0) / 576.0, [24, 24, 1])
        >>> round(float(tf.image.ssim_multiscale(x, x, 1.0, (0.5, 0.5), filter_size=5)), 5)
        1.0
    """
    x, y, peak = _float_images(img1, img2, max_val)
    _check_compatible(x, y)
    powers = tuple(float(p) for p in power_factors)
    shapes = [x._v.shape, y._v.shape]
    for k in range(len(powers)):
        if k:
            shapes = [s[:-3] + (-(-s[-3] // 2), -(-s[-2] // 2), s[-1]) for s in shapes]
        _check_window(shapes, int(filter_size))
    static = _ssim_static(filter_size, filter_sigma, k1, k2) + (("powers", powers),)
    return apply(_ms_ssim_op, (x, y, peak), static)
