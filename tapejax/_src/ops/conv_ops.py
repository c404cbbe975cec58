"""Convolutions of ``tf.nn`` (channels-last), on ``jax.lax.conv_general_dilated``:
``conv1d``, ``conv2d``, ``conv3d``, ``convolution``, ``atrous_conv2d``,
``depthwise_conv2d`` and ``separable_conv2d``. Transposed convolutions are in
``conv_transpose_ops``, pooling in ``pool_ops``, the argument handling they share in
``_window_args``.

Shapes, strides, dilations and paddings are checked the way TF's CPU kernels check them,
with TF's texts, before JAX runs: JAX would otherwise pad or broadcast where TF refuses.
Derivatives are JAX's: they equal TF's. This module must never accept a channels-first
``data_format`` silently: TF's CPU kernels refuse them, and so does this module, with
TF's error.
"""

from __future__ import annotations

import math

import jax
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ._helpers import TF_ALLOWED, binary_operands, require, to_tensor
from ._window_args import (
    _CHANNELS_FIRST_ERRORS,
    _NN,
    _SPATIAL,
    _channels_last,
    _dims,
    _explicit_padding,
    _iae,
    _padding_attr,
    _sequence,
    _window_pads,
)

TF_ALLOWED.update({"Conv2D": f"{_NN}, int32", "Conv3D": _NN, "DepthwiseConv2dNative": _NN})


def _conv_fn(x, w, *, n, strides, dilations, pads, groups):
    """Channels-last N-D convolution; leading dimensions beyond one batch are folded."""
    lead = x.shape[: x.ndim - n - 1]
    batch = math.prod(lead)
    x = x.reshape((batch,) + x.shape[len(lead) :])
    spatial = _SPATIAL[n]
    y = jax.lax.conv_general_dilated(
        x,
        w,
        window_strides=strides,
        padding=pads,
        rhs_dilation=dilations,
        dimension_numbers=(f"N{spatial}C", f"{spatial}IO", f"N{spatial}C"),
        feature_group_count=groups,
    )
    return y.reshape(lead + y.shape[1:])


_conv_ops = {n: Op(name, _conv_fn) for n, name in ((1, "Conv2D"), (2, "Conv2D"), (3, "Conv3D"))}


def _conv_operands(input, filters, op_name: str):
    x, w = binary_operands(input, filters, op_name)
    require(x, "fi", op_name)
    return x, w


def _check_conv_attrs(strides, dilations, op_name: str) -> None:
    """TF's Conv2D/Conv3D attribute checks (``strides`` and ``dilations`` of rank n + 2)."""
    if strides[0] != 1 or strides[-1] != 1:
        raise UnimplementedError(
            None,
            None,
            "Current implementation does not yet support strides in the batch and depth "
            f"dimensions. [Op:{op_name}]",
        )
    if min(strides) < 1:
        raise _iae("Row and column strides should be larger than 0.", op_name)
    if dilations[0] != 1 or dilations[-1] != 1:
        raise UnimplementedError(
            None,
            None,
            "Current implementation does not yet support dilations in the batch and depth "
            f"dimensions. [Op:{op_name}]",
        )
    if min(dilations) < 1:
        raise _iae("Dilated rates should be larger than 0.", op_name)


def _conv_groups(xshape, wshape, n: int, op_name: str) -> int:
    """TF's shape checks of input against filter (the kernel's view); the group count."""
    if op_name == "Conv3D":
        if len(xshape) != 5:
            raise _iae("input must be 5-dimensional", op_name)
        if len(wshape) != 5:
            raise _iae("filter must be 5-dimensional", op_name)
        in_depth, patch_depth, out_depth = xshape[-1], wshape[-2], wshape[-1]
        if patch_depth <= 0 or in_depth % patch_depth:
            raise _iae(
                f"Input depth must be evenly divisible by filter depth: {in_depth} vs "
                f"{patch_depth}",
                op_name,
            )
        if patch_depth != in_depth:  # TF's CPU Conv3D has no grouped kernel
            raise _iae(
                f"Number of channels in filter ({patch_depth}) must match last dimension of "
                f"input ({in_depth})",
                op_name,
            )
        return 1
    if len(xshape) != 4:
        raise _iae(f"convolution input must be 4-dimensional: {_dims(xshape)}", op_name)
    if len(wshape) != 4:
        raise _iae(f"convolution filter must be 4-dimensional: {_dims(wshape)}", op_name)
    in_depth, patch_depth, out_depth = xshape[-1], wshape[-2], wshape[-1]
    if patch_depth <= 0:
        raise _iae(f"filter depth must be stricly positive, got {patch_depth}", op_name)
    if in_depth % patch_depth:
        raise _iae(
            f"input depth must be evenly divisible by filter depth: {in_depth} vs {patch_depth}",
            op_name,
        )
    groups = in_depth // patch_depth
    if out_depth % groups:
        raise _iae(
            f"output depth must be evenly divisible by number of groups: {out_depth} vs {groups}",
            op_name,
        )
    return groups


def _explicit_conv_pads(padding, n: int, op_name: str):
    pairs = _explicit_padding(padding, n + 2)
    if any(p < 0 for pair in pairs for p in pair):
        raise _iae("All elements of explicit_paddings must be nonnegative", op_name)
    if pairs[0] != (0, 0) or pairs[-1] != (0, 0):
        raise _iae(
            "Nonzero explicit padding in the batch or depth dimensions is not supported", op_name
        )
    return pairs[1:-1]


def _convolve(x, w, n: int, strides, dilations, padding, op_name: str):
    """Checks as TF's kernel and applies the N-D convolution (``padding``: "SAME", "VALID"
    or spatial pairs). ``strides``/``dilations`` have n + 2 entries."""
    _check_conv_attrs(strides, dilations, op_name)
    xshape, wshape = x._v.shape, w._v.shape
    # The kernel sees conv1d with an inserted height of 1, and one batch dimension.
    view_x = ((1,) + xshape[-2:]) if n == 1 else xshape[-(n + 1) :]
    view_x = ((math.prod(xshape[: len(xshape) - n - 1]),) if len(xshape) > n + 1 else ()) + view_x
    view_w = ((1,) + wshape) if n == 1 else wshape
    groups = _conv_groups(view_x, view_w, n, op_name)
    pads = _window_pads(
        xshape[-(n + 1) : -1], wshape[:n], strides[1:-1], dilations[1:-1], padding, op_name
    )
    static = (
        ("n", n),
        ("strides", tuple(strides[1:-1])),
        ("dilations", tuple(dilations[1:-1])),
        ("pads", pads),
        ("groups", groups),
    )
    return apply(_conv_ops[n], (x, w), static)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution of ``[batch, width, in_channels]`` input (``tf.nn.conv1d``).

    ``filters`` is ``[width, in_channels, out_channels]``; ``stride`` and ``dilations`` are
    an int or a list of 1 or 3 ints; ``padding`` is "SAME" or "VALID". Extra leading batch
    dimensions are allowed, as in TF.

    Example:
        >>> import tapejax as tf
        >>> tf.nn.conv1d(tf.ones([1, 4, 1]), tf.ones([2, 1, 1]), 1, "VALID").shape
        TensorShape([1, 3, 1])
    """
    if data_format not in (None, "NWC", "NHWC", "NCW", "NCHW"):
        raise ValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    if data_format in ("NCW", "NCHW"):
        raise _CHANNELS_FIRST_ERRORS["Conv2D"]("NCHW")
    x, w = _conv_operands(input, filters, "Conv2D")
    strides = _sequence(stride, 1, "stride")
    dils = _sequence(dilations, 1, "dilations")
    pad = _padding_attr(padding, "Conv2D", explicit_ok=False)
    return _convolve(x, w, 1, strides, dils, pad, "Conv2D")


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution, NHWC (``tf.nn.conv2d``).

    ``filters`` is ``[height, width, in_channels / groups, out_channels]`` (grouped when the
    input has a multiple of the filter's channels, as TF); ``strides`` and ``dilations``
    are an int or a list of 1, 2 or 4 ints; ``padding`` is "SAME", "VALID" or explicit
    ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.

    Example:
        >>> import tapejax as tf
        >>> tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "SAME")[0, :, :, 0]
        <tf.Tensor: shape=(3, 3), dtype=float32, numpy=
        array([[4., 4., 2.],
               [4., 4., 2.],
               [2., 2., 1.]], dtype=float32)>
    """
    x, w = _conv_operands(input, filters, "Conv2D")
    _channels_last(data_format, 2, "Conv2D", "NHWC")
    strides = _sequence(strides, 2, "strides")
    dils = _sequence(dilations, 2, "dilations")
    pad = _padding_attr(padding, "Conv2D", explicit_ok=True)
    if isinstance(pad, (list, tuple)):
        pad = _explicit_conv_pads(pad, 2, "Conv2D")
    return _convolve(x, w, 2, strides, dils, pad, "Conv2D")


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution, NDHWC (``tf.nn.conv3d``).

    As TF, ``strides`` must be a list of 5 ints. Differs from TF on CPU: dilations other
    than 1 are computed (TF's CPU kernel refuses them; its GPU kernel computes them).
    """
    x, w = _conv_operands(input, filters, "Conv3D")
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'conv3d' Op, not {strides}.")
    if len(strides) < 5:
        raise InvalidArgumentError(
            None, None, f"Length for attr 'strides' of {len(strides)} must be at least minimum 5"
        )
    _channels_last(data_format, 3, "Conv3D", "NDHWC")
    dils = [1] * 5 if dilations is None else [int(d) for d in dilations]
    pad = _padding_attr(padding, "Conv3D", explicit_ok=False)
    return _convolve(x, w, 3, [int(s) for s in strides], dils, pad, "Conv3D")


def convolution(
    input,  # noqa: A002
    filters,
    strides=None,
    padding="VALID",
    data_format=None,
    dilations=None,
    name=None,
):
    """N-D convolution, N = 1, 2 or 3 from the rank of ``filters`` (``tf.nn.convolution``).

    Differs from TF: explicit ``padding`` lists are accepted without dilations too (TF
    rejects them there with a TypeError but accepts them with dilations).
    """
    x, w = binary_operands(input, filters, "Conv2D")
    n = w._v.ndim - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
    op_name = "Conv3D" if n == 3 else "Conv2D"
    require(x, "fi" if n < 3 else "f", op_name)
    _channels_last(data_format, n, op_name)
    strides = _sequence(strides, n, "strides")
    dils = _sequence(dilations, n, "dilations")
    if max(strides) > 1 and max(dils) > 1:
        raise ValueError(
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
            f"strides={np.array(strides[1:-1])} and dilation_rate={np.array(dils[1:-1])}"
        )
    pad = _padding_attr(padding, op_name, explicit_ok=True)
    if isinstance(pad, (list, tuple)):
        pad = _explicit_conv_pads(pad, n, op_name)
    return _convolve(x, w, n, strides, dils, pad, op_name)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution dilated by ``rate`` (``tf.nn.atrous_conv2d``)."""
    if rate < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return conv2d(value, filters, 1, padding, dilations=rate)


# -- depthwise and separable ----------------------------------------------------------------


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution, NHWC (``tf.nn.depthwise_conv2d``).

    ``filter`` is ``[height, width, in_channels, multiplier]``; output channel
    ``c * multiplier + m`` is input channel ``c`` convolved with ``filter[..., c, m]``.
    ``strides`` is a list of 4 ints (TF's), ``dilations`` a list of 2.
    """
    x, w = binary_operands(input, filter, "DepthwiseConv2dNative")
    require(x, "f", "DepthwiseConv2dNative")
    _channels_last(data_format, 2, "DepthwiseConv2dNative")
    if not isinstance(strides, (list, tuple)):
        raise TypeError(
            f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides}."
        )
    if len(strides) != 4:
        raise _iae(
            "Sliding window strides field must specify 4 dimensions", "DepthwiseConv2dNative"
        )
    strides = [int(s) for s in strides]
    dils = _sequence(dilations, 2, "dilations")
    pad = _padding_attr(padding, "DepthwiseConv2dNative", explicit_ok=True)
    if isinstance(pad, (list, tuple)):
        pad = _explicit_conv_pads(pad, 2, "DepthwiseConv2dNative")
    if max(strides) > 1 and max(dils) > 1:
        # TF warns and computes a space-to-batch result that is not a strided dilated
        # convolution (its output shape differs): not reproduced.
        raise NotImplementedError(
            "tapejax.nn.depthwise_conv2d with both strides > 1 and dilations > 1 is not "
            "implemented (TF warns that it is invalid and computes a different shape)"
        )
    xs, ws = x._v.shape, w._v.shape
    if len(xs) != 4:
        raise _iae(f"input must be 4-dimensional{_dims(xs)}", "DepthwiseConv2dNative")
    if len(ws) != 4:
        raise _iae(f"filter must be 4-dimensional{_dims(ws)}", "DepthwiseConv2dNative")
    if xs[3] != ws[2]:
        raise _iae(
            f"input and filter must have the same depth: {xs[3]} vs {ws[2]}",
            "DepthwiseConv2dNative",
        )
    _check_conv_attrs(strides, dils, "DepthwiseConv2dNative")
    return _depthwise(x, w, strides, dils, pad)


_depthwise_op = Op(
    "DepthwiseConv2dNative",
    lambda x, w, **kw: _conv_fn(
        x, w.reshape(w.shape[:2] + (1, w.shape[2] * w.shape[3])), groups=x.shape[-1], **kw
    ),
)


def _depthwise(x, w, strides, dils, pad):
    pads = _window_pads(
        x._v.shape[1:3],
        w._v.shape[:2],
        strides[1:3],
        dils[1:3],
        pad,
        "DepthwiseConv2dNative",
    )
    static = (
        ("n", 2),
        ("strides", tuple(strides[1:3])),
        ("dilations", tuple(dils[1:3])),
        ("pads", pads),
    )
    return apply(_depthwise_op, (x, w), static)


def separable_conv2d(
    input,  # noqa: A002
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    data_format=None,
    dilations=None,
    name=None,
):
    """A depthwise convolution followed by a 1x1 convolution (``tf.nn.separable_conv2d``)."""
    x = to_tensor(input)
    pw = to_tensor(pointwise_filter)
    if pw._v.ndim != 4:
        raise ValueError(f"Shape {pw.shape} must have rank 4")
    for d in pw._v.shape[:2]:
        if d != 1:
            raise ValueError(f"Dimensions {d} and 1 are not compatible")
    depthwise = depthwise_conv2d(x, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pw, 1, "VALID", data_format="NHWC")
