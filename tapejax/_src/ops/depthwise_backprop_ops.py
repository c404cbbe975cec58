"""The gradients of ``depthwise_conv2d`` as ops of their own (``tf.nn``):
``depthwise_conv2d_backprop_filter`` and ``depthwise_conv2d_backprop_input``, TF's
DepthwiseConv2dNativeBackpropFilter/Input.

Each is JAX's VJP of ``conv_ops``' depthwise convolution, so its own gradient is TF's
registered one (both are linear). Checks and texts are TF's CPU kernels'. This module
must never accept a channels-first ``data_format``: TF's CPU kernels refuse it, and so
does this module, with TF's error.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import UnimplementedError
from ..tensor import Tensor
from ._array_common import _host
from ._helpers import TF_ALLOWED, binary_operands, dtype_mismatch, require
from ._window_args import _NN, _allowed_attr, _iae, _list_attr, _padding_attr, _window_pads
from .conv_ops import _depthwise_op, _explicit_conv_pads

__all__ = ["depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input"]

_FILTER, _INPUT = "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput"
TF_ALLOWED.update(dict.fromkeys([_FILTER, _INPUT], _NN))


def _depthwise(x, w, conv):
    return _depthwise_op.fn(x, w, n=2, **conv)


def _filter_fn(x, dy, *, filter_shape, **conv):
    _, vjp = jax.vjp(lambda w: _depthwise(x, w, conv), jnp.zeros(filter_shape, x.dtype))
    return vjp(dy)[0]


def _input_fn(w, dy, *, input_shape, **conv):
    _, vjp = jax.vjp(lambda x: _depthwise(x, w, conv), jnp.zeros(input_shape, w.dtype))
    return vjp(dy)[0]


_filter_op = Op(_FILTER, _filter_fn)
_input_op = Op(_INPUT, _input_fn)


def _sizes(value, op_name: str, index: int, what: str) -> tuple:
    """An int32 ``input_sizes``/``filter_sizes`` argument, known now, as Python ints."""
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        dt = value.dtype._np
        if dt != np.int32:
            raise dtype_mismatch(op_name, index, np.dtype(np.int32), dt)
    host = _host(value)
    if host is None:
        raise NotImplementedError(
            f"tapejax.nn.depthwise_conv2d_backprop_*: {what} sets the result's shape, so it "
            "cannot be traced (inside tapejax.function); pass Python ints."
        )
    if host.dtype.kind not in "iu" and host.size:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
    if host.ndim != 1:
        kernel = "Conv2DBackpropFilter" if op_name == _FILTER else "Conv2DBackpropInput"
        raise _iae(f"{kernel}: {what} input must be 1-dim, not {host.ndim}", op_name)
    return tuple(int(v) for v in host)


def _attrs(strides, padding, data_format, dilations, fn_name, op_name):
    """TF's Python and kernel-constructor checks: ``(strides, dilations, padding)``."""
    pad = _padding_attr(padding, op_name, explicit_ok=True)
    strides = _list_attr(strides, "strides", fn_name, minimum=0)
    _allowed_attr(data_format, "data_format", ("NHWC", "NCHW"))
    if len(strides) != 4:
        raise _iae("Sliding window strides field must specify 4 dimensions", op_name)
    if strides[1] != strides[2]:
        raise _iae(
            "Current implementation only supports equal length strides in the row and column "
            "dimensions.",
            op_name,
        )
    if strides[0] != 1 or strides[3] != 1:
        raise _iae(
            "Current implementation does not yet support strides in the batch and depth "
            "dimensions.",
            op_name,
        )
    if isinstance(pad, (list, tuple)):
        pad = _explicit_conv_pads(pad, 2, op_name)
    dilations = _list_attr(dilations, "dilations", fn_name, minimum=0)
    if len(dilations) != 4 or dilations[0] != 1 or dilations[3] != 1 or min(dilations) < 1:
        raise _iae(
            "dilations must be 4 positive ints, 1 in the batch and depth dimensions", op_name
        )
    if data_format == "NCHW":
        raise UnimplementedError(
            None,
            None,
            f"Depthwise convolution on CPU is only supported for NHWC format [Op:{op_name}]",
        )
    return strides, dilations, pad


def _check_shapes(xs, ws, ys, strides, dilations, pad, op_name: str):
    """TF's EXTRACT_AND_VERIFY_DIMENSIONS, in its order: the spatial pads."""
    label = (
        "DepthwiseConv2DBackpropFilter" if op_name == _FILTER else "DepthwiseConv2DBackpropInput"
    )
    for shape, what in ((xs, "input"), (ws, "filter"), (ys, "out_backprop")):
        if len(shape) != 4:
            raise _iae(f"{label}: {what} must be 4-dimensional", op_name)
    if xs[0] != ys[0]:
        raise _iae(f"{label}: input and out_backprop must have the same batch size", op_name)
    if xs[3] != ws[2]:
        raise _iae(f"{label}: input and filter must have the same in_depth", op_name)
    if ws[3] * xs[3] != ys[3]:
        raise _iae(f"{label}: depth_multiplier * in_depth not equal to out_depth", op_name)
    if strides[1] <= 0:
        raise _iae(f"Stride must be > 0, but got {strides[1]}", op_name)
    pads = _window_pads(xs[1:3], ws[:2], strides[1:3], dilations[1:3], pad, op_name)
    for i, what in ((0, "rows"), (1, "cols")):
        eff = (ws[i] - 1) * dilations[i + 1] + 1
        computed = (xs[i + 1] + sum(pads[i]) - eff) // strides[i + 1] + 1
        if computed != ys[i + 1]:
            raise _iae(
                f"{label}: Number of {what} of out_backprop doesn't match computed: actual = "
                f"{ys[i + 1]}, computed = {computed}",
                op_name,
            )
    return pads


# Per op: its Python wrapper's name, the size argument's input index and name, the static
# argument the size becomes, and the op.
_KINDS = {
    _FILTER: ("depthwise_conv2d_native_backprop_filter", 1, "filter_sizes", "filter_shape"),
    _INPUT: ("depthwise_conv2d_native_backprop_input", 0, "input_sizes", "input_shape"),
}


def _backprop(op_name, sizes, operand, out_backprop, strides, padding, data_format, dilations):
    """Either backprop: ``operand`` is the input (filter backprop) or the filter."""
    fn_name, index, sizes_name, static_name = _KINDS[op_name]
    strides, dilations, pad = _attrs(strides, padding, data_format, dilations, fn_name, op_name)
    shape = _sizes(sizes, op_name, index, sizes_name)
    a, dy = binary_operands(operand, out_backprop, op_name)
    require(a, "f", op_name)
    xs, ws = (a._v.shape, shape) if op_name == _FILTER else (shape, a._v.shape)
    pads = _check_shapes(xs, ws, dy._v.shape, strides, dilations, pad, op_name)
    static = (
        (static_name, shape),
        ("strides", tuple(strides[1:3])),
        ("dilations", tuple(dilations[1:3])),
        ("pads", pads),
    )
    return apply(_filter_op if op_name == _FILTER else _input_op, (a, dy), static)


def depthwise_conv2d_backprop_filter(
    input,  # noqa: A002
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of ``depthwise_conv2d`` with respect to its filter
    (``tf.nn.depthwise_conv2d_backprop_filter``).

    Args:
        input: ``[batch, height, width, in_channels]``, a float dtype.
        filter_sizes: the filter's shape, ``[filter_height, filter_width, in_channels,
            multiplier]`` (int32; known when the op runs).
        out_backprop: ``[batch, out_height, out_width, in_channels * multiplier]``.
        strides: a list of 4 ints, equal in height and width.
        padding: "SAME", "VALID" or explicit ``[[0, 0], [top, bottom], [left, right],
            [0, 0]]``.
        data_format: "NHWC" (TF's CPU kernel refuses "NCHW", and so does this).
        dilations: a list of 4 ints.
        name: ignored (TF's op name).

    Returns:
        A tensor of shape ``filter_sizes``, ``input``'s dtype.

    .. warning:: TF's CPU kernel ignores ``dilations`` (it returns the undilated
       gradient, of the undilated shapes); this computes the gradient of the dilated
       ``depthwise_conv2d``.

    Example:
        >>> import tapejax as tf
        >>> g = tf.nn.depthwise_conv2d_backprop_filter(tf.ones([1, 3, 3, 1]), [2, 2, 1, 1],
        ...                                            tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], "VALID")
        >>> g[:, :, 0, 0].numpy()
        array([[4., 4.],
               [4., 4.]], dtype=float32)
    """
    return _backprop(
        _FILTER, filter_sizes, input, out_backprop, strides, padding, data_format, dilations
    )


def depthwise_conv2d_backprop_input(
    input_sizes,
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of ``depthwise_conv2d`` with respect to its input
    (``tf.nn.depthwise_conv2d_backprop_input``): ``input_sizes`` (int32, known when the
    op runs) is the input's shape; the rest as ``depthwise_conv2d_backprop_filter``.

    .. warning:: TF's CPU kernel ignores ``dilations``; this computes the gradient of
       the dilated ``depthwise_conv2d``.

    Example:
        >>> import tapejax as tf
        >>> g = tf.nn.depthwise_conv2d_backprop_input([1, 3, 3, 1], tf.ones([2, 2, 1, 1]),
        ...                                           tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], "VALID")
        >>> g[0, :, :, 0].numpy()
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]], dtype=float32)
    """
    return _backprop(
        _INPUT, input_sizes, filter, out_backprop, strides, padding, data_format, dilations
    )
