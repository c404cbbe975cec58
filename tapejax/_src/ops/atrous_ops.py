"""Atrous (dilated) operations through space-to-batch, as TF writes them in Python:
``tf.required_space_to_batch_paddings``, ``tf.nn.with_space_to_batch`` and
``tf.nn.atrous_conv2d_transpose``.

Each is TF's composite, step for step, on ``space_ops``' ``space_to_batch_nd`` and
``batch_to_space`` (and ``conv_transpose_ops``' transposed convolution), so values,
shapes, gradients and the errors of the inner ops are TF's. The block shapes, paddings
and crops set shapes: they must be known when the op runs (Python values or eager
tensors), as ``space_ops`` requires.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ._array_common import _host
from ._helpers import to_tensor
from ._window_args import _explicit_padding, _padding_attr
from .conv_transpose_ops import _conv_transpose, _output_shape, conv2d_transpose
from .space_ops import batch_to_space, space_to_batch_nd

__all__ = ["required_space_to_batch_paddings", "with_space_to_batch", "atrous_conv2d_transpose"]

# -- required_space_to_batch_paddings -----------------------------------------------------------


def _required_paddings_fn(input_shape, block_shape, base_paddings):
    start, end = base_paddings[:, 0], base_paddings[:, 1]
    full = input_shape + start + end
    extra = (block_shape - full % block_shape) % block_shape
    zeros = jnp.zeros_like(extra)
    return jnp.stack([start, end + extra], axis=1), jnp.stack([zeros, extra], axis=1)


# TF's is a Python composite, not an op: this name is tapejax's.
_required_paddings_op = Op(
    "RequiredSpaceToBatchPaddings",
    _required_paddings_fn,
    differentiable=False,
    multiple_outputs=True,
)


def _int32(value):
    if isinstance(value, (list, tuple)) and not np.size(value):
        value = np.zeros(np.shape(value), np.int32)  # an empty list has no dtype to refuse
    return convert_to_tensor(value, dtype=dtypes.int32)


def _incompatible(shape, expected) -> ValueError:
    dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
    return ValueError(f"Shapes ({dims}) and {list(expected)} are incompatible")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """Paddings and crops that make ``block_shape`` divide ``input_shape``
    (``tf.required_space_to_batch_paddings``), for ``space_to_batch_nd`` and
    ``batch_to_space``.

    Args:
        input_shape: int32, shape ``[N]``.
        block_shape: int32, shape ``[N]`` (known shape).
        base_paddings: optional int32 ``[N, 2]``: the least padding to use (default 0).
        name: ignored (TF's name scope).

    Returns:
        ``(paddings, crops)``, int32 ``[N, 2]``: ``paddings[i] = [base[i, 0], base[i, 1] +
        extra[i]]`` with the smallest ``extra[i] >= 0`` that makes the padded size a
        multiple of ``block_shape[i]``, and ``crops[i] = [0, extra[i]]``.

    Example:
        >>> import tapejax as tf
        >>> paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3])
        >>> paddings.numpy().tolist(), crops.numpy().tolist()
        ([[0, 1], [0, 2]], [[0, 1], [0, 2]])
    """
    shape = _int32(input_shape)
    block = _int32(block_shape)
    if block._v.ndim != 1:
        raise ValueError(f"Shape {block.shape} must have rank 1")
    n = block._v.shape[0]
    if n == 0:
        empty = convert_to_tensor(np.zeros((0, 2), np.int32))
        return empty, empty
    if shape._v.shape != (n,):
        raise _incompatible(shape._v.shape, [n])
    if base_paddings is None:
        base = convert_to_tensor(np.zeros((n, 2), np.int32))
    else:
        base = _int32(base_paddings)
        if base._v.shape != (n, 2):
            raise _incompatible(base._v.shape, [n, 2])
    return apply(_required_paddings_op, (shape, block, base))


# -- with_space_to_batch ----------------------------------------------------------------------


def _adjust(orig: np.ndarray, fill: int, spatial_dims: list) -> np.ndarray:
    """TF's ``_with_space_to_batch_adjust``: entry ``spatial_dims[i] - 1`` is ``orig[i]``,
    the others (dimensions that are not spatial) ``fill``, up to ``max(spatial_dims)``."""
    out = np.full((spatial_dims[-1],) + orig.shape[1:], fill, orig.dtype)
    out[np.asarray(spatial_dims) - 1] = orig
    return out


def _static_ints(value, what: str) -> np.ndarray:
    host = _host(value)
    if host is None:
        raise NotImplementedError(
            f"tapejax.nn.with_space_to_batch: {what} sets the result's shape, so it cannot be "
            "traced (inside tapejax.function); pass Python values."
        )
    if host.size and host.dtype.kind not in "iu":
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
    return host.astype(np.int32)


def with_space_to_batch(
    input,  # noqa: A002
    dilation_rate,
    padding,
    op,
    filter_shape=None,
    spatial_dims=None,
    data_format=None,
):
    """Runs ``op`` on the space-to-batch form of ``input`` (``tf.nn.with_space_to_batch``):
    a sliding-window ``op(converted, num_spatial_dims, "VALID")`` becomes its atrous
    version at ``dilation_rate``.

    Args:
        input: a tensor of rank > ``max(spatial_dims)``.
        dilation_rate: ``N`` positive ints (known when the op runs).
        padding: "VALID", "SAME" (with ``filter_shape``) or explicit pairs.
        op: ``op(input, num_spatial_dims, padding) -> output``.
        filter_shape: the window's shape, needed for "SAME".
        spatial_dims: increasing dimensions >= 1 (default the ``N`` after the batch one,
            or after the channels for an "NC..." ``data_format``).
        data_format: None, or a format string ("NC..." puts the channels second).

    Returns:
        ``batch_to_space(op(space_to_batch_nd(input, ...), N, "VALID"), ...)``, or
        ``op(input, N, padding)`` when every rate is 1, as TF.

    Example:
        >>> import tapejax as tf
        >>> x = tf.ones([1, 5, 5, 1])
        >>> y = tf.nn.with_space_to_batch(
        ...     x, [2, 2], "VALID", lambda t, n, p: tf.nn.max_pool2d(t, 2, 1, p))
        >>> y.shape
        TensorShape([1, 3, 3, 1])
    """
    x = to_tensor(input)
    rate = _static_ints(dilation_rate, "dilation_rate")
    if rate.ndim != 1:
        raise ValueError(
            f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={rate} of rank "
            f"{rate.ndim}"
        )
    n = rate.shape[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    start = 2 if channels_first else 1
    orig = list(range(start, n + start) if spatial_dims is None else spatial_dims)
    spatial = sorted({int(d) for d in orig})
    if spatial != orig or any(d < 1 for d in spatial):
        raise ValueError(
            "`spatial_dims` must be a monotonically increasing sequence of positive integers. "
            f"Received: spatial_dims={orig}"
        )
    rank = spatial[-1] if channels_first else spatial[-1] + 1
    if x._v.ndim < rank:
        raise ValueError(
            f"`input.shape.rank` must be at least {rank}. Received: input.shape={x.shape} "
            f"with rank {x._v.ndim}"
        )
    if np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate}")
    if np.all(rate == 1):
        return op(x, n, padding)
    if padding == "EXPLICIT" or isinstance(padding, (list, tuple)):
        # TF's convert_padding: "EXPLICIT" is a ValueError, a list has 4 pairs.
        pairs = _explicit_padding(_padding_attr(padding, "SpaceToBatchND", explicit_ok=True), 4)
        pairs = np.asarray(pairs, np.int32).reshape(n + 2, 2)
        base = pairs[2:] if channels_first else pairs[1:-1]
    elif padding == "SAME":
        if filter_shape is None:
            raise ValueError(
                "`filter_shape` must be specified for `padding='SAME'`. "
                f"Received: filter_shape={filter_shape} and padding={padding}"
            )
        extra = (_static_ints(filter_shape, "filter_shape")[:n] - 1) * rate
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros((n, 2), np.int32)
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    sizes = [x._v.shape[d] for d in spatial]
    full = np.asarray(sizes) + base.sum(axis=1)
    extra = (rate - full % rate) % rate
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1)
    crops = np.stack([np.zeros_like(extra), extra], axis=1)
    block = _adjust(rate, 1, spatial)
    converted = space_to_batch_nd(x, block, _adjust(paddings, 0, spatial))
    return batch_to_space(op(converted, n, "VALID"), block, _adjust(crops, 0, spatial))


# -- atrous_conv2d_transpose ------------------------------------------------------------------


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d`` (``tf.nn.atrous_conv2d_transpose``), computed as
    TF does: ``space_to_batch`` by ``rate``, a transposed "VALID" convolution, and
    ``batch_to_space`` cropping both paddings.

    Args:
        value: NHWC ``[batch, height, width, in_channels]``, float.
        filters: ``[filter_height, filter_width, out_channels, in_channels]``.
        output_shape: the result's shape, 4 ints.
        rate: a positive int, the filter's dilation.
        padding: "SAME" or "VALID".
        name: ignored (TF's name scope).

    Example:
        >>> import tapejax as tf
        >>> y = tf.nn.atrous_conv2d_transpose(tf.ones([1, 5, 5, 2]), tf.ones([3, 3, 1, 2]),
        ...                                   [1, 5, 5, 1], 2, "SAME")
        >>> y.shape
        TensorShape([1, 5, 5, 1])
    """
    v, f = to_tensor(value), to_tensor(filters)
    vs, fs = v._v.shape, f._v.shape
    if vs[3] != fs[3]:
        raise ValueError(
            "`value` channel count must be compatible with `filters` input channel count. "
            f"Received: value.shape={v.shape} with channel count {vs[3]} and "
            f"filters.shape={f.shape} with input channel count {fs[3]}."
        )
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    if rate == 1:
        return conv2d_transpose(v, f, output_shape, strides=[1, 1, 1, 1], padding=padding)
    shape = _output_shape(output_shape)
    if len(shape) != 4:
        raise ValueError(
            f"`output_shape` must have shape (4,). Received: output_shape=({len(shape)},)"
        )
    if isinstance(output_shape, (list, tuple, np.ndarray)) and fs[2] != shape[3]:
        raise ValueError(
            "`output_shape` channel count must be compatible with `filters` output channel "
            f"count. Received: output_shape={list(output_shape)} with channel count {shape[3]} "
            f"and filters.shape={f.shape} with output channel count {fs[3]}."
        )
    if padding == "SAME":
        pad_h, pad_w = (fs[0] - 1) * rate, (fs[1] - 1) * rate
        top, left = pad_h // 2, pad_w // 2
        bottom, right = pad_h - top, pad_w - left
    elif padding == "VALID":
        top = bottom = left = right = 0
    else:
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
    in_h, in_w = shape[1] + top + bottom, shape[2] + left + right
    extra_h, extra_w = (rate - in_h % rate) % rate, (rate - in_w % rate) % rate
    batched = space_to_batch_nd(v, [rate, rate], [[0, extra_h], [0, extra_w]])
    sizes = [rate * rate * shape[0], (in_h + extra_h) // rate, (in_w + extra_w) // rate, shape[3]]
    ones = [1, 1, 1, 1]
    y = _conv_transpose(batched, f, sizes, 2, ones, "VALID", ones, "Conv2DBackpropInput")
    return batch_to_space(y, [rate, rate], [[top, bottom + extra_h], [left, right + extra_w]])
