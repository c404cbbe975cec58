"""Convolutions and pooling of ``tf.nn`` (channels-last), on ``jax.lax`` convolutions and
``reduce_window``.

Shapes, strides, dilations and paddings are checked the way TF's CPU kernels check them,
with TF's texts, before JAX runs: JAX would otherwise pad or broadcast where TF refuses.
TF's "SAME" rule (``pad_before = total // 2``) is computed here as explicit pads, so the
pure functions only ever see explicit pads. Derivatives are JAX's: they equal TF's,
max-pool ties included (the gradient goes to the first maximum of a window). This module
must never accept a channels-first ``data_format`` silently: TF's CPU kernels refuse
them, and so does this module, with TF's error.
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ._helpers import TF_ALLOWED, binary_operands, require, to_tensor

_NN = "half, bfloat16, float, double"
TF_ALLOWED.update(
    {
        "Conv2D": f"{_NN}, int32",
        "Conv3D": _NN,
        "DepthwiseConv2dNative": _NN,
        "Conv2DBackpropInput": f"{_NN}, int32",
        "Conv3DBackpropInputV2": _NN,
        "MaxPool": f"{_NN}, int32, int64, uint8, int16, int8, uint16, qint8",
        "MaxPool3D": "half, bfloat16, float",
        "AvgPool": _NN,
        "AvgPool3D": _NN,
    }
)

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
_CHANNELS_LAST = {1: ("NWC",), 2: ("NHWC",), 3: ("NDHWC",)}
_CHANNELS_FIRST = {1: ("NCW",), 2: ("NCHW",), 3: ("NCDHW",)}


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


# -- arguments ------------------------------------------------------------------------------


def _sequence(value, n: int, name: str) -> list:
    """TF's ``_get_sequence``: an int or a list of 1, ``n`` or ``n + 2`` ints, as ``n + 2``
    ints (channels last)."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (list, tuple)):
        value = list(value)
    elif hasattr(value, "__len__"):
        value = list(np.asarray(value).reshape(-1))
    else:
        value = [value]
    if len(value) == n + 2:
        return [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(
            f"{name} should be of length 1, {n} or {n + 2}. "
            f"Received: {name}={value} of length {len(value)}"
        )
    return [1] + [int(v) for v in value] + [1]


def _explicit_padding(padding, expected_length: int) -> list:
    """TF's ``convert_padding``: a list of ``[before, after]`` pairs, one per dimension."""
    pairs = []
    for i, pair in enumerate(padding):
        if not isinstance(pair, (list, tuple)):
            raise ValueError(
                "When `padding` is a list, each element of `padding` must be a list/tuple of "
                f"size 2. Received: padding={padding} with element at index {i} of type "
                f"{type(pair)}"
            )
        if len(pair) != 2:
            raise ValueError(
                "When `padding` is a list, each element of `padding` must be a list/tuple of "
                f"size 2. Received: padding={padding} with element at index {i} of size "
                f"{len(pair)}"
            )
        pairs.append((int(pair[0]), int(pair[1])))
    if len(padding) != expected_length:
        raise ValueError(
            f"When padding is a list, it must be of size {expected_length}. "
            f"Received: padding={padding} of size {len(padding)}"
        )
    return pairs


def _padding_attr(padding, op_name: str, explicit_ok: bool):
    """``padding`` as "SAME", "VALID" or a list of pairs (where the op takes one)."""
    if isinstance(padding, (list, tuple)):
        if not explicit_ok:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        return padding
    if padding == "EXPLICIT" and explicit_ok:
        raise ValueError(
            "'EXPLICIT' is not a valid value for `padding`. To use explicit padding, "
            "`padding` must be a list."
        )
    allowed = '"SAME", "VALID", "EXPLICIT"' if explicit_ok else '"SAME", "VALID"'
    if padding not in ("SAME", "VALID"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
            f"{allowed}",
        )
    return padding


def _channels_last(data_format, n: int, op_name: str, default: str | None = None) -> None:
    """Accepts TF's channels-last formats; channels-first gets TF's CPU kernel error."""
    fmt = default if data_format is None else data_format
    if fmt is None or fmt in _CHANNELS_LAST[n]:
        return
    if fmt in _CHANNELS_FIRST[n]:
        raise _CHANNELS_FIRST_ERRORS[op_name](fmt)
    allowed = ", ".join(f'"{f}"' for f in _CHANNELS_LAST[n] + _CHANNELS_FIRST[n])
    raise InvalidArgumentError(
        None,
        None,
        f"Value for attr 'data_format' of \"{fmt}\" is not in the list of allowed values: "
        f"{allowed}",
    )


_CHANNELS_FIRST_ERRORS = {
    "Conv2D": lambda fmt: UnimplementedError(
        None,
        None,
        "The Conv2D op currently only supports the NHWC tensor format on the CPU. The op was "
        f"given the format: {fmt} [Op:Conv2D]",
    ),
    "Conv3D": lambda fmt: _iae(
        "CPU implementation of Conv3D currently only supports the NHWC tensor format.", "Conv3D"
    ),
    "DepthwiseConv2dNative": lambda fmt: UnimplementedError(
        None,
        None,
        "Depthwise convolution on CPU is only supported for NHWC format [Op:DepthwiseConv2dNative]",
    ),
    "Conv2DBackpropInput": lambda fmt: _iae(
        "Conv2DCustomBackpropInputOp only supports NHWC.", "Conv2DBackpropInput"
    ),
    "Conv3DBackpropInputV2": lambda fmt: _iae(
        "CPU implementation of Conv3DBackpropInputOp only supports NHWC tensor format.",
        "Conv3DBackpropInputV2",
    ),
    "MaxPool": lambda fmt: _iae(
        "Default MaxPoolingOp only supports NHWC on device type CPU", "MaxPool"
    ),
    "AvgPool": lambda fmt: _iae(
        "Default AvgPoolingOp only supports NHWC on device type CPU", "AvgPool"
    ),
    "MaxPool3D": lambda fmt: _iae(
        "Default Pooling3DOp only supports NDHWC on device type CPU", "MaxPool3D"
    ),
    "AvgPool3D": lambda fmt: _iae(
        "Default Pooling3DOp only supports NDHWC on device type CPU", "AvgPool3D"
    ),
}


def _window_pads(in_sizes, windows, strides, dilations, padding, op_name: str) -> tuple:
    """Per spatial dimension ``(before, after)`` pads, with TF's output-size check."""
    pads = []
    for i, (size, k, s, d) in enumerate(zip(in_sizes, windows, strides, dilations, strict=True)):
        eff = (k - 1) * d + 1
        if padding == "SAME":
            out = -(-size // s)
            total = max((out - 1) * s + eff - size, 0)
            pads.append((total // 2, total - total // 2))
            continue
        before, after = (0, 0) if padding == "VALID" else padding[i]
        out = int((size + before + after - eff + s) / s)  # C++'s truncating division
        if out < 0:
            raise _iae(
                f"Computed output size would be negative: {out} [input_size: {size}, "
                f"effective_filter_size: {eff}, stride: {s}]",
                op_name,
            )
        pads.append((before, after))
    return tuple(pads)


# -- convolution ----------------------------------------------------------------------------


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
    xshape, wshape = x._value.shape, w._value.shape
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
    n = w._value.ndim - 2
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
    xs, ws = x._value.shape, w._value.shape
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
        x._value.shape[1:3],
        w._value.shape[:2],
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
    if pw._value.ndim != 4:
        raise ValueError(f"Shape {pw.shape} must have rank 4")
    for d in pw._value.shape[:2]:
        if d != 1:
            raise ValueError(f"Dimensions {d} and 1 are not compatible")
    depthwise = depthwise_conv2d(x, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pw, 1, "VALID", data_format="NHWC")


# -- transposed convolution -----------------------------------------------------------------


def _conv_transpose_fn(y, w, *, n, strides, dilations, pads, input_shape):
    """The input-gradient of the convolution of an ``input_shape`` input (TF's
    ``Conv2DBackpropInput`` by definition), written as the convolution that computes it:
    ``y`` dilated by the strides, against the spatially flipped filter."""
    tpads = []
    for size, out, k, s, d, (before, _) in zip(
        input_shape[1:-1], y.shape[1:-1], w.shape[:n], strides, dilations, pads, strict=True
    ):
        eff = (k - 1) * d + 1
        lo = eff - 1 - before
        tpads.append((lo, size + eff - 1 - ((out - 1) * s + 1) - lo))
    spatial = _SPATIAL[n]
    return jax.lax.conv_general_dilated(
        y,
        jnp.flip(w, axis=tuple(range(n))),
        window_strides=(1,) * n,
        padding=tpads,
        lhs_dilation=strides,
        rhs_dilation=dilations,
        dimension_numbers=(f"N{spatial}C", f"{spatial}OI", f"N{spatial}C"),
    )


def _check_transpose_shapes(shape, ys, ws, n: int, op_name: str) -> None:
    """TF's Conv2DBackpropInput / Conv3DBackpropInputV2 shape checks, with their texts."""
    if n == 3:
        if len(ys) != 5 or len(shape) != 5 or len(ws) != 5:
            raise _iae("input, filter_sizes and out_backprop must be 5-dimensional", op_name)
        if shape[-1] != ws[-2]:
            raise _iae(
                "input and filter_sizes must have the same number of channels. Got "
                f"{shape[-1]} for input and {ws[-2]} for filter_sizes",
                op_name,
            )
        if ys[-1] != ws[-1]:
            raise _iae(
                "out_backprop and filter_sizes must have the same number of channels. Got "
                f"{ys[-1]} for out_backprop and {ws[-1]} for filter_sizes",
                op_name,
            )
        return
    if len(shape) != n + 2:
        raise _iae(
            f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but "
            f"got: {len(shape)}",
            op_name,
        )
    if len(ys) != n + 2:
        raise _iae(f"input_sizes must be 4-dimensional, got: {len(ys) + (n == 1)}", op_name)
    if len(ws) != n + 2:
        raise _iae("Conv2DCustomBackpropInput: filter must be 4-dimensional", op_name)
    if shape[-1] % ws[-2]:
        raise _iae(
            "Conv2DCustomBackpropInput: input depth must be evenly divisible by filter depth",
            op_name,
        )
    if shape[-1] != ws[-2]:
        raise _iae(
            "Gradients for grouped convolutions are not supported on CPU. Please file a feature "
            f"request if you run into this issue. Computed input depth {shape[-1]} doesn't "
            f"match filter input depth {ws[-2]}",
            op_name,
        )
    if ys[-1] != ws[-1]:
        raise _iae(
            "Conv2DCustomBackpropInput: filter and out_backprop must have the same out_depth",
            op_name,
        )
    if shape[0] != ys[0]:
        raise _iae(
            "Conv2DCustomBackpropInput: input and out_backprop must have the same batch size. "
            f"Input batch: {shape[0]}, outbackprop batch: {ys[0]}, batch_dim: 0",
            op_name,
        )


_transpose_ops = {
    1: Op("Conv2DBackpropInput", _conv_transpose_fn),
    2: Op("Conv2DBackpropInput", _conv_transpose_fn),
    3: Op("Conv3DBackpropInputV2", _conv_transpose_fn),
}


def _output_shape(output_shape) -> tuple:
    if hasattr(output_shape, "numpy") or getattr(output_shape, "_is_variable", False):
        output_shape = np.asarray(output_shape)
    return tuple(int(d) for d in np.asarray(output_shape).reshape(-1))


def _conv_transpose(input, filters, output_shape, n, strides, padding, dilations, op_name):  # noqa: A002
    y, w = binary_operands(input, filters, op_name)
    require(y, "fi" if n < 3 else "f", op_name)
    shape = _output_shape(output_shape)
    ys, ws = y._value.shape, w._value.shape
    _check_transpose_shapes(shape, ys, ws, n, op_name)
    _check_conv_attrs(strides, dilations, op_name)
    pads = _window_pads(shape[1:-1], ws[:n], strides[1:-1], dilations[1:-1], padding, op_name)
    for i in range(n):
        k, s, d, (b, a) = ws[i], strides[i + 1], dilations[i + 1], pads[i]
        computed = (shape[i + 1] + b + a - (k - 1) * d - 1) // s + 1
        if computed != ys[i + 1]:
            kernel = "Conv3DBackpropInputOp" if n == 3 else "Conv2DCustomBackpropInput"
            raise _iae(
                f"{kernel}: Size of out_backprop doesn't match computed: "
                f"actual = {ys[i + 1]}, computed = {computed} spatial_dim: {i + 1 + (n == 1)} input: "
                f"{shape[i + 1]} filter: {k} output: {ys[i + 1]} stride: {s} dilation: {d}",
                op_name,
            )
    static = (
        ("n", n),
        ("strides", tuple(strides[1:-1])),
        ("dilations", tuple(dilations[1:-1])),
        ("pads", pads),
        ("input_shape", shape),
    )
    return apply(_transpose_ops[n], (y, w), static)


def conv1d_transpose(
    input,  # noqa: A002
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NWC",
    dilations=None,
    name=None,
):
    """The transpose (input-gradient) of ``conv1d`` (``tf.nn.conv1d_transpose``).

    ``filters`` is ``[width, output_channels, in_channels]``; ``output_shape`` is
    ``[batch, width, output_channels]``.
    """
    if data_format not in (None, "NWC", "NCW"):
        raise ValueError(
            f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}"
        )
    if data_format == "NCW":
        raise _CHANNELS_FIRST_ERRORS["Conv2DBackpropInput"]("NCHW")
    pad = _padding_attr(padding, "Conv2DBackpropInput", explicit_ok=False)
    strides = _sequence(strides, 1, "stride")
    dils = _sequence(dilations, 1, "dilations")
    return _conv_transpose(
        input, filters, output_shape, 1, strides, pad, dils, "Conv2DBackpropInput"
    )


def conv2d_transpose(
    input,  # noqa: A002
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NHWC",
    dilations=None,
    name=None,
):
    """The transpose (input-gradient) of ``conv2d`` (``tf.nn.conv2d_transpose``).

    ``filters`` is ``[height, width, output_channels, in_channels]``; ``output_shape`` the
    NHWC shape of the result; ``padding`` "SAME", "VALID" or explicit pairs, as ``conv2d``.

    Example:
        >>> import tapejax as tf
        >>> y = tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 1]),
        ...                            [1, 4, 4, 1], 2)
        >>> y.shape
        TensorShape([1, 4, 4, 1])
    """
    _channels_last(data_format, 2, "Conv2DBackpropInput", "NHWC")
    strides = _sequence(strides, 2, "strides")
    dils = _sequence(dilations, 2, "dilations")
    pad = _padding_attr(padding, "Conv2DBackpropInput", explicit_ok=True)
    if isinstance(pad, (list, tuple)):
        pad = _explicit_conv_pads(pad, 2, "Conv2DBackpropInput")
    return _conv_transpose(
        input, filters, output_shape, 2, strides, pad, dils, "Conv2DBackpropInput"
    )


def conv3d_transpose(
    input,  # noqa: A002
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NDHWC",
    dilations=None,
    name=None,
):
    """The transpose (input-gradient) of ``conv3d`` (``tf.nn.conv3d_transpose``)."""
    _channels_last(data_format, 3, "Conv3DBackpropInputV2", "NDHWC")
    strides = _sequence(strides, 3, "strides")
    dils = _sequence(dilations, 3, "dilations")
    pad = _padding_attr(padding, "Conv3DBackpropInputV2", explicit_ok=False)
    return _conv_transpose(
        input, filters, output_shape, 3, strides, pad, dils, "Conv3DBackpropInputV2"
    )


def conv_transpose(
    input,  # noqa: A002
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format=None,
    dilations=None,
    name=None,
):
    """``conv1d/2d/3d_transpose`` chosen by the length of ``output_shape``
    (``tf.nn.conv_transpose``)."""
    if not hasattr(output_shape, "__len__") and not hasattr(output_shape, "shape"):
        raise ValueError(
            "`output_shape` must be a tensor or sized collection. "
            f"Received: output_shape={output_shape}"
        )
    n = len(_output_shape(output_shape)) - 2
    if not 1 <= n <= 3:
        raise ValueError(
            "`output_shape` must be of length 3, 4 or 5. "
            f"Received: output_shape={output_shape} of length {n + 2}."
        )
    fn = (conv1d_transpose, conv2d_transpose, conv3d_transpose)[n - 1]
    return fn(input, filters, output_shape, strides, padding, data_format, dilations)


# -- pooling --------------------------------------------------------------------------------


def _max_pool_fn(x, *, window, strides, pads, dilations):
    # A NumPy (concrete) identity: JAX then uses its differentiable max-window primitive,
    # whose gradient goes to the first maximum of a window, as TF's MaxPoolGrad.
    init = np.array(
        -np.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min, x.dtype
    )
    if any(d != 1 for d in dilations):
        # JAX has no VJP for dilated max windows: take the first maximum explicitly.
        stack = _window_stack(x, init, window, strides, pads, dilations)
        first = jnp.argmax(stack, axis=0)[None]
        return jnp.take_along_axis(stack, first, axis=0)[0]
    return jax.lax.reduce_window(x, init, jax.lax.max, window, strides, pads)


def _max_pool3d_fn(x, *, window, strides, pads, dilations):
    """TF's MaxPool3D: its gradient goes to every maximum of a window (MaxPool3DGrad)."""
    init = np.array(-np.inf, x.dtype)
    return _max_to_all_ties(_window_stack(x, init, window, strides, pads, dilations))


@jax.custom_jvp
def _max_to_all_ties(stack):
    return jnp.max(stack, axis=0)


@_max_to_all_ties.defjvp
def _max_to_all_ties_jvp(primals, tangents):
    (stack,), (t,) = primals, tangents
    out = jnp.max(stack, axis=0)
    return out, jnp.sum(jnp.where(stack == out, t, jnp.zeros_like(t)), axis=0)


def _window_stack(x, fill, window, strides, pads, dilations):
    """Every window element's strided view of ``x`` (padded with ``fill``), stacked on a
    new leading axis in the window's row-major order."""
    x = jax.lax.pad(x, fill, [(lo, hi, 0) for lo, hi in pads])
    outs = [
        (size - (k - 1) * d - 1) // s + 1
        for size, k, s, d in zip(x.shape, window, strides, dilations, strict=True)
    ]
    views = []
    for offset in itertools.product(*(range(k) for k in window)):
        start = [o * d for o, d in zip(offset, dilations, strict=True)]
        limit = [b + (n - 1) * s + 1 for b, n, s in zip(start, outs, strides, strict=True)]
        views.append(jax.lax.slice(x, start, limit, strides))
    return jnp.stack(views)


def _avg_pool_fn(x, *, window, strides, pads, dilations):
    zero = np.array(0, x.dtype)
    total = jax.lax.reduce_window(
        x, zero, jax.lax.add, window, strides, pads, window_dilation=dilations
    )
    # As TF: half types are summed in their own type, then divided in float32.
    total = total.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else total
    if not any(p for pair in pads for p in pair):
        return (total / math.prod(window)).astype(x.dtype)
    # As TF: a window's mean is over the elements it covers inside the input.
    ones = np.ones((1,) + x.shape[1:-1] + (1,), total.dtype)
    count = jax.lax.reduce_window(
        ones, np.array(0, total.dtype), jax.lax.add, window, strides, pads
    )
    return (total / count).astype(x.dtype)


_max_pool_ops = {2: Op("MaxPool", _max_pool_fn), 3: Op("MaxPool3D", _max_pool3d_fn)}
_avg_pool_ops = {2: Op("AvgPool", _avg_pool_fn), 3: Op("AvgPool3D", _avg_pool_fn)}


def _pool(input, ksize, strides, padding, n, kind, data_format, explicit_ok, dilations=None):  # noqa: A002
    """``n``-D pooling (``kind`` "MAX" or "AVG"); 1-D pools are TF's 2-D kernels.
    ``dilations`` (spatial, for ``pool``) space the window's elements."""
    kernel_n = max(n, 2)
    op_name = {("MAX", 2): "MaxPool", ("MAX", 3): "MaxPool3D", ("AVG", 2): "AvgPool"}.get(
        (kind, kernel_n), "AvgPool3D"
    )
    x = to_tensor(input)
    require(x, "fiu" if op_name == "MaxPool" else "f", op_name)
    window = _sequence(ksize, n, "ksize")
    steps = _sequence(strides, n, "strides")
    pad = _padding_attr(padding, op_name, explicit_ok=explicit_ok)
    _channels_last(data_format, n, op_name, _CHANNELS_LAST[n][0])
    xs = x._value.shape
    if len(xs) != n + 2:
        if kernel_n == 3:
            raise _iae("tensor_in must be 5-dimensional", op_name)
        raise _iae(f"tensor_in_shape must have 2 spatial dimensions. {len(xs) + 2 - n} 0", op_name)
    if window[0] != 1 or steps[0] != 1:
        raise UnimplementedError(
            None, None, f"Pooling is not yet supported on the batch dimension. [Op:{op_name}]"
        )
    if window[-1] != 1 or steps[-1] != 1:
        return _depth_pool(x, window, steps, op_name)
    if isinstance(pad, (list, tuple)):
        pairs = _explicit_padding(pad, n + 2)
        for (before, after), k in zip(pairs[1:-1], window[1:-1], strict=True):
            if before >= k:
                raise _iae(
                    f"Left padding {before} needs to be smaller than the window size {k}", op_name
                )
            if after >= k:
                raise _iae(
                    f"Right padding {after} needs to be smaller than the window size {k}", op_name
                )
        pad = pairs[1:-1]
    dils = [1] * n if dilations is None else dilations
    pads = _window_pads(xs[1:-1], window[1:-1], steps[1:-1], dils, pad, op_name)
    ops = _max_pool_ops if kind == "MAX" else _avg_pool_ops
    static = (
        ("window", tuple(window)),
        ("strides", tuple(steps)),
        ("pads", ((0, 0),) + pads + ((0, 0),)),
        ("dilations", (1, *dils, 1)),
    )
    return apply(ops[kernel_n], (x,), static)


def _depth_pool(x, window, steps, op_name):
    """TF's pooling across channels (MaxPool only): windows tile the channels exactly."""
    if op_name == "AvgPool":
        raise UnimplementedError(
            None, None, "Non-spatial pooling is not yet supported. Volunteers? :) [Op:AvgPool]"
        )
    if op_name != "MaxPool":
        raise UnimplementedError(
            None, None, f"Pooling is not yet supported on the depth dimension. [Op:{op_name}]"
        )
    if any(k != 1 for k in window[1:-1]) or any(s != 1 for s in steps[1:-1]):
        raise UnimplementedError(
            None,
            None,
            "MaxPooling supports exactly one of pooling across depth or pooling across "
            "width/height. [Op:MaxPool]",
        )
    if window[-1] != steps[-1]:
        raise UnimplementedError(
            None,
            None,
            "Depthwise max pooling requires the depth window to equal the depth stride "
            "[Op:MaxPool]",
        )
    if x._value.shape[-1] % window[-1]:
        raise UnimplementedError(
            None,
            None,
            "Depthwise max pooling requires the depth window to evenly divide the input depth "
            "[Op:MaxPool]",
        )
    static = (
        ("window", tuple(window)),
        ("strides", tuple(steps)),
        ("pads", ((0, 0),) * len(window)),
        ("dilations", (1,) * len(window)),
    )
    return apply(_max_pool_ops[2], (x,), static)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Max pooling over the width of ``[batch, width, channels]`` (``tf.nn.max_pool1d``)."""
    return _pool(input, ksize, strides, padding, 1, "MAX", data_format, explicit_ok=True)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max pooling, NHWC (``tf.nn.max_pool2d``); ``padding`` "SAME", "VALID" or explicit pairs.

    Its gradient goes to the first maximum of each window, as TF's.
    """
    return _pool(input, ksize, strides, padding, 2, "MAX", data_format, explicit_ok=True)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Max pooling, NDHWC (``tf.nn.max_pool3d``)."""
    return _pool(input, ksize, strides, padding, 3, "MAX", data_format, explicit_ok=False)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Average pooling over the width (``tf.nn.avg_pool1d``)."""
    return _pool(input, ksize, strides, padding, 1, "AVG", data_format, explicit_ok=False)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Average pooling, NHWC (``tf.nn.avg_pool2d``); "SAME" windows average only the input
    elements they cover, as TF."""
    return _pool(input, ksize, strides, padding, 2, "AVG", data_format, explicit_ok=False)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Average pooling, NDHWC (``tf.nn.avg_pool3d``)."""
    return _pool(input, ksize, strides, padding, 3, "AVG", data_format, explicit_ok=False)


def _by_rank(input, name: str):  # noqa: A002
    n = to_tensor(input)._value.ndim - 2
    if n not in (1, 2, 3):
        raise ValueError(
            f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={to_tensor(input).shape}"
            f" of rank {n + 2}."
        )
    return n


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling of rank-3, 4 or 5 input (``tf.nn.max_pool``)."""
    fn = (max_pool1d, max_pool2d, max_pool3d)[_by_rank(input, "max_pool") - 1]
    return fn(input, ksize, strides, padding, data_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling of rank-3, 4 or 5 input (``tf.nn.avg_pool``)."""
    fn = (avg_pool1d, avg_pool2d, avg_pool3d)[_by_rank(input, "avg_pool") - 1]
    return fn(input, ksize, strides, padding, data_format)


def pool(
    input,  # noqa: A002
    window_shape,
    pooling_type,
    strides=None,
    padding="VALID",
    data_format=None,
    dilations=None,
    name=None,
):
    """Max or average pooling with a window per spatial dimension (``tf.nn.pool``).

    ``dilations`` space the window's elements ("VALID" padding and unit strides only, as
    TF).
    """
    x = to_tensor(input)
    n = len(window_shape)
    if x._value.ndim != n + 2:
        raise ValueError(f"Shape {x.shape} must have rank {n + 2}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    steps = [1] * n if strides is None else [int(v) for v in strides]
    dils = [1] * n if dilations is None else [int(v) for v in np.ravel(dilations)]
    if any(d != 1 for d in dils):
        if padding == "SAME":
            raise ValueError(
                "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. "
                f"Received: padding={padding} and dilation_rate={np.array(dils)}"
            )
        if any(v != 1 for v in steps):
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                f"strides={np.array(steps)} and dilation_rate={np.array(dils)}"
            )
    return _pool(
        x,
        list(window_shape),
        steps,
        padding,
        n,
        pooling_type,
        data_format,
        explicit_ok=False,
        dilations=dils,
    )
