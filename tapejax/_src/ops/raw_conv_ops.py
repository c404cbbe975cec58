"""TF's generic convolution ops at the top level: ``tf.conv`` (the N-D ``Conv`` op with
``batch_dims``) and ``tf.conv2d_backprop_filter_v2`` / ``tf.conv2d_backprop_input_v2``
(the gradients of ``conv2d`` that take the filter or input tensor instead of its shape).

They reuse ``conv_ops``' convolution and ``conv_transpose_ops``' transposed convolution;
the filter gradient is JAX's VJP of the convolution. ``Conv``'s checks and texts are its
CPU kernel's. TF's CPU build has no kernel for the V2 backprops (every call is a
NotFoundError): here they compute, with the checks and texts of the V1 kernels
(``Conv2DBackpropFilter``/``Conv2DBackpropInput``). This module must never accept a
channels-first ``data_format``: TF's CPU kernels refuse them, and so does this module.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..dispatch import Op, apply
from ..errors import UnimplementedError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, binary_operands, coerce_to, dtype_mismatch, require
from ._window_args import _NN, _allowed_attr, _dims, _iae, _list_attr, _window_pads
from .conv_ops import _conv_fn, _explicit_conv_pads
from .conv_transpose_ops import _conv_transpose

__all__ = ["conv", "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]

TF_ALLOWED.update(
    {
        "Conv": f"{_NN}, int32",
        "Conv2DBackpropFilterV2": _NN,
        "Conv2DBackpropInputV2": f"{_NN}, int32",
    }
)


def padding_attr(padding, explicit_paddings, n: int, op_name: str):
    """A string ``padding`` attribute with its ``explicit_paddings`` list (TF's gen-op
    form) as "SAME", "VALID" or ``n`` spatial ``(before, after)`` pairs, with TF's
    CheckValidPadding texts."""
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    _allowed_attr(padding, "padding", ("SAME", "VALID", "EXPLICIT"))
    explicit = [int(p) for p in (explicit_paddings or [])]
    if padding != "EXPLICIT":
        if explicit:
            raise _iae(
                "explicit_paddings attribute must be empty if the padding attribute is not "
                "EXPLICIT",
                op_name,
            )
        return padding
    if len(explicit) != 2 * (n + 2):
        raise _iae(
            f"explicit_paddings attribute must contain {2 * (n + 2)} values, but got: "
            f"{len(explicit)}",
            op_name,
        )
    return _explicit_conv_pads(
        [explicit[i : i + 2] for i in range(0, len(explicit), 2)], n, op_name
    )


def three_operands(a, b, c, op_name: str):
    """Three inputs of one dtype ``T`` (TF infers it from the first Tensor)."""
    a, b = binary_operands(a, b, op_name)
    if type(c) is not Tensor and getattr(c, "_is_variable", False):
        c = c._dense_read()
    if type(c) is Tensor:
        if c._v.dtype != a._v.dtype:
            raise dtype_mismatch(op_name, 2, a._v.dtype, c._v.dtype)
        return a, b, c
    return a, b, coerce_to(c, a)


# -- tf.conv ------------------------------------------------------------------------------------

_generic_conv_op = Op("Conv", _conv_fn)


def _check_positive_attrs(strides, dilations, n: int) -> list:
    """``Conv``'s stride and dilation checks; the dilations, ``[1] * (n + 2)`` if empty."""
    if len(strides) != n + 2:
        raise _iae(f"Sliding window strides field must specify {n + 2} dimensions", "Conv")
    if strides[0] != 1 or strides[-1] != 1:
        raise _iae(
            "Current implementation does not support strides in the batch and depth dimensions.",
            "Conv",
        )
    if min(strides[1:-1]) <= 0:
        raise _iae("Spatial strides should be larger than 0.", "Conv")
    if not dilations:
        return [1] * (n + 2)
    if len(dilations) != n + 2:
        raise _iae(f"Dilation rates field must specify{n + 2}dimensions", "Conv")
    if dilations[0] != 1 or dilations[-1] != 1:
        raise _iae(
            "Current implementation does not support dilation rates in the batch and depth "
            "dimensions.",
            "Conv",
        )
    if min(dilations[1:-1]) <= 0:
        raise _iae("Dilated rates should be larger than 0.", "Conv")
    return dilations


def conv(
    input,  # noqa: A002
    filter,  # noqa: A002
    strides,
    padding,
    explicit_paddings=(),
    data_format="CHANNELS_LAST",
    dilations=(),
    batch_dims=1,
    groups=1,
    name=None,
):
    """N-D convolution, N = 2 or 3, of ``batch_dims`` batch dimensions (``tf.conv``).

    Args:
        input: ``batch_shape + spatial_shape + [in_channels]``; half, bfloat16, float32,
            float64 or int32.
        filter: ``spatial_shape + [in_channels, out_channels]``, ``input``'s dtype.
        strides: a list of N + 2 ints, 1 in the batch and channel entries.
        padding: "SAME", "VALID" or "EXPLICIT" (then ``explicit_paddings`` holds
            ``2 * (N + 2)`` ints, zero for the batch and channels).
        explicit_paddings: see ``padding``.
        data_format: "CHANNELS_LAST" (TF's CPU kernels refuse "CHANNELS_FIRST", and so
            does this, with TF's errors).
        dilations: a list of N + 2 ints, or empty for no dilation.
        batch_dims: the number of leading batch dimensions.
        groups: 1 (TF's kernels support no other value yet).
        name: ignored (TF's op name).

    Returns:
        ``batch_shape + out_spatial_shape + [out_channels]``.

    .. warning:: Differs from TF on CPU: dilated 3-D and "EXPLICIT" 3-D convolutions are
       computed (TF's CPU kernel refuses the first and aborts the process on the
       second), and the tape differentiates ``conv`` (TF registers no gradient for it:
       its tape raises ``LookupError``).

    Example:
        >>> import tapejax as tf
        >>> tf.conv(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "VALID").shape
        TensorShape([1, 2, 2, 1])
    """
    op_name = "Conv"
    x, w = binary_operands(input, filter, op_name)
    strides = _list_attr(strides, "strides", "conv", minimum=0)
    if padding != "EXPLICIT":  # the attribute checks come before the kernel's
        padding_attr(padding, (), 0, op_name)
    dilations = _list_attr(dilations, "dilations", "conv", minimum=0)
    _allowed_attr(data_format, "data_format", ("CHANNELS_FIRST", "CHANNELS_LAST"))
    require(x, "fi", op_name)
    if groups != 1:
        raise UnimplementedError(
            None, None, f"Grouped/Depthwise Convolutions are not supported yet. [Op:{op_name}]"
        )
    xs, ws = x._v.shape, w._v.shape
    n = len(xs) - 1 - int(batch_dims)
    if n not in (2, 3):
        raise _iae(f"The input must have 2 or 3 spatial dimensions but got {n}", op_name)
    if 0 in ws:
        raise _iae(
            "filter must not have zero elements (i.e. all dimensions must be non-zero)", op_name
        )
    if len(ws) not in (4, 5):
        raise _iae(f"The filter must be rank 4 or 5 but got {len(ws)}", op_name)
    if len(ws) != n + 2:
        raise _iae(
            f"The filter must be rank {n + 2} for an input with {n} spatial dimensions, but "
            f"got {_dims(ws)}",
            op_name,
        )
    dilations = _check_positive_attrs(strides, dilations, n)
    pad = padding_attr(padding, explicit_paddings, n, op_name)
    first = data_format == "CHANNELS_FIRST"
    in_depth = xs[int(batch_dims)] if first else xs[-1]
    if ws[-2] <= 0:
        raise _iae(f"filter depth must be stricly positive, got {ws[-2]}", op_name)
    if in_depth != ws[-2]:
        raise _iae(f"Input depth must be equal to filter depth: {in_depth} vs {ws[-2]}", op_name)
    if first:
        if n == 2:
            raise UnimplementedError(
                None,
                None,
                "The Conv2D op currently only supports the NHWC tensor format on the CPU. The "
                f"op was given the format: NCHW [Op:{op_name}]",
            )
        raise _iae(
            "CPU implementation of Conv3D currently only supports the NHWC tensor format.", op_name
        )
    pads = _window_pads(xs[-(n + 1) : -1], ws[:n], strides[1:-1], dilations[1:-1], pad, op_name)
    static = (
        ("n", n),
        ("strides", tuple(strides[1:-1])),
        ("dilations", tuple(dilations[1:-1])),
        ("pads", pads),
        ("groups", 1),
    )
    return apply(_generic_conv_op, (x, w), static)


# -- the V2 backprops -------------------------------------------------------------------------


def _backprop_attrs(strides, padding, explicit_paddings, data_format, dilations, fn_name, op_name):
    """The V1 kernels' attribute checks: ``(strides, dilations, padding)``."""
    strides = _list_attr(strides, "strides", fn_name, minimum=0)
    dilations = _list_attr(dilations, "dilations", fn_name, minimum=0)
    pad = padding_attr(padding, explicit_paddings, 2, op_name)
    _allowed_attr(data_format, "data_format", ("NHWC", "NCHW"))
    limits = (
        (strides, "strides", "Row and column strides should be larger than 0."),
        (dilations, "dilations", "Dilated rates should be larger than 0."),
    )
    for values, what, positive in limits:
        if len(values) != 4:
            raise _iae(f"Sliding window {what} field must specify 4 dimensions", op_name)
        if values[0] != 1 or values[3] != 1:
            raise _iae(
                f"Current implementation does not yet support {what} in the batch and depth "
                "dimensions.",
                op_name,
            )
        if min(values[1:3]) <= 0:
            raise _iae(positive, op_name)
    if data_format == "NCHW":
        kind = "Filter" if "Filter" in op_name else "Input"
        raise _iae(f"Conv2DCustomBackprop{kind}Op only supports NHWC.", op_name)
    return strides, dilations, pad


def _filter_backprop_fn(x, dy, *, filter_shape, **conv):
    """The convolution's VJP with respect to its filter, at ``dy``."""
    _, vjp = jax.vjp(lambda w: _conv_fn(x, w, **conv), jnp.zeros(filter_shape, x.dtype))
    return vjp(dy)[0]


_filter_backprop_op = Op("Conv2DBackpropFilterV2", _filter_backprop_fn)


def _check_filter_backprop_shapes(xs, ws, ys, op_name: str) -> None:
    """ConvBackpropComputeDimensionsV2's checks (label Conv2DCustomBackpropFilter)."""
    label = "Conv2DCustomBackpropFilter"
    for shape, what in ((xs, "input"), (ws, "filter"), (ys, "out_backprop")):
        if len(shape) != 4:
            raise _iae(f"{label}: {what} must be 4-dimensional", op_name)
    if xs[0] != ys[0]:
        raise _iae(
            f"{label}: input and out_backprop must have the same batch size. Input batch: "
            f"{xs[0]}, outbackprop batch: {ys[0]}, batch_dim: 0",
            op_name,
        )
    if ws[2] <= 0 or xs[3] % ws[2]:
        raise _iae(f"{label}: input depth must be evenly divisible by filter depth", op_name)
    if ws[3] != ys[3]:
        raise _iae(f"{label}: filter and out_backprop must have the same out_depth", op_name)


def conv2d_backprop_filter_v2(
    input,  # noqa: A002
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    explicit_paddings=(),
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of ``conv2d`` with respect to its filter, of the filter's shape
    (``tf.conv2d_backprop_filter_v2``): only ``filter``'s shape is used.

    ``strides`` and ``dilations`` are lists of 4 ints; ``padding`` is "SAME", "VALID" or
    "EXPLICIT" with 8 ``explicit_paddings``; grouped filters (``input`` channels a
    multiple of the filter's) are allowed, as ``conv2d``'s.

    .. warning:: TF's CPU build has no kernel for this op (NotFoundError); this computes
       it, with the checks of TF's ``Conv2DBackpropFilter`` kernel (dilations included,
       which that kernel refuses on CPU).

    Example:
        >>> import tapejax as tf
        >>> g = tf.conv2d_backprop_filter_v2(tf.ones([1, 3, 3, 1]), tf.zeros([2, 2, 1, 1]),
        ...                                  tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], "VALID")
        >>> g[:, :, 0, 0].numpy()
        array([[4., 4.],
               [4., 4.]], dtype=float32)
    """
    op_name = "Conv2DBackpropFilterV2"
    x, w, dy = three_operands(input, filter, out_backprop, op_name)
    fn_name = "conv2d_backprop_filter_v2"
    strides, dils, pad = _backprop_attrs(
        strides, padding, explicit_paddings, data_format, dilations, fn_name, op_name
    )
    require(x, "f", op_name)
    xs, ws, ys = x._v.shape, w._v.shape, dy._v.shape
    _check_filter_backprop_shapes(xs, ws, ys, op_name)
    pads = _window_pads(xs[1:3], ws[:2], strides[1:3], dils[1:3], pad, op_name)
    for i in range(2):
        k, s, d, (b, a) = ws[i], strides[i + 1], dils[i + 1], pads[i]
        computed = (xs[i + 1] + b + a - (k - 1) * d - 1) // s + 1
        if computed != ys[i + 1]:
            raise _iae(
                f"Conv2DCustomBackpropFilter: Size of out_backprop doesn't match computed: "
                f"actual = {ys[i + 1]}, computed = {computed} spatial_dim: {i + 1} input: "
                f"{xs[i + 1]} filter: {k} output: {ys[i + 1]} stride: {s} dilation: {d}",
                op_name,
            )
    static = (
        ("filter_shape", tuple(ws)),
        ("n", 2),
        ("strides", tuple(strides[1:3])),
        ("dilations", tuple(dils[1:3])),
        ("pads", pads),
        ("groups", xs[3] // ws[2]),
    )
    return apply(_filter_backprop_op, (x, dy), static)


def conv2d_backprop_input_v2(
    input,  # noqa: A002
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    explicit_paddings=(),
    data_format="NHWC",
    dilations=(1, 1, 1, 1),
    name=None,
):
    """The gradient of ``conv2d`` with respect to its input, of the input's shape
    (``tf.conv2d_backprop_input_v2``): only ``input``'s shape is used. The transposed
    convolution ``conv2d_transpose`` computes, with its checks.

    .. warning:: TF's CPU build has no kernel for this op (NotFoundError); this computes
       it, with the checks of TF's ``Conv2DBackpropInput`` kernel.

    Example:
        >>> import tapejax as tf
        >>> g = tf.conv2d_backprop_input_v2(tf.zeros([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]),
        ...                                 tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], "VALID")
        >>> g[0, :, :, 0].numpy()
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]], dtype=float32)
    """
    op_name = "Conv2DBackpropInputV2"
    x, w, dy = three_operands(input, filter, out_backprop, op_name)
    fn_name = "conv2d_backprop_input_v2"
    strides, dils, pad = _backprop_attrs(
        strides, padding, explicit_paddings, data_format, dilations, fn_name, op_name
    )
    return _conv_transpose(dy, w, x._v.shape, 2, strides, pad, dils, op_name)
