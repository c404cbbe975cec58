"""Transposed convolutions of ``tf.nn`` (channels-last): ``conv1d_transpose``,
``conv2d_transpose``, ``conv3d_transpose`` and ``conv_transpose``, TF's
``Conv2DBackpropInput`` and ``Conv3DBackpropInputV2``, each written as the convolution
that computes the input-gradient of ``conv_ops``' convolution.

Shapes are checked the way TF's CPU kernels check them, with TF's texts, before JAX
runs. This module must never accept a channels-first ``data_format`` silently: TF's
CPU kernels refuse them, and so does this module, with TF's error.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ._helpers import TF_ALLOWED, binary_operands, require
from ._window_args import (
    _CHANNELS_FIRST_ERRORS,
    _NN,
    _SPATIAL,
    _channels_last,
    _iae,
    _padding_attr,
    _sequence,
    _window_pads,
)
from .conv_ops import _check_conv_attrs, _explicit_conv_pads

TF_ALLOWED.update({"Conv2DBackpropInput": f"{_NN}, int32", "Conv3DBackpropInputV2": _NN})


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
    ys, ws = y._v.shape, w._v.shape
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
