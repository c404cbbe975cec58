"""Grayscale morphology of ``tf.nn``: ``dilation2d`` (TF's Dilation2D) and ``erosion2d``
(TF's composite: the negated dilation of the negated input by the reflected filter).

The dilation is TF's CPU kernel's scan (``_max_scan.scan_above_lowest``): the output
starts from the dtype's lowest value and takes ``input + filter`` only where strictly
greater, so ties go to the first element in row-major window order, NaNs are skipped
and padding never wins. Its gradient is TF's: the whole upstream gradient goes to that
one input element and filter tap, and where no element beat the lowest value (an
all-NaN or all ``-inf`` window), to the window's first in-range input position and the
filter's first tap, as TF's Dilation2DBackpropInput/Filter. This module must never
accept a channels-first ``data_format``: TF's Python refuses it, and so does this module.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import UnimplementedError
from ._helpers import TF_ALLOWED, binary_operands, require
from ._max_scan import pick, routed, scan_above_lowest
from ._window_args import _dims, _iae, _list_attr, _padding_attr, _window_pads
from .argmax_pool_ops import window_positions
from .math_ops import negative
from .pad_ops import reverse
from .pool_ops import _window_stack

__all__ = ["dilation2d", "erosion2d"]

_OP = "Dilation2D"
TF_ALLOWED.update(
    {_OP: "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"}
)


def _dilation_fn(x, f, *, strides, rates, pads):
    n, h, w, c = x.shape
    kh, kw, _ = f.shape
    stack = _window_stack(
        x,
        np.array(0, x.dtype),
        (1, kh, kw, 1),
        (1, *strides, 1),
        ((0, 0), *pads, (0, 0)),
        (1, *rates, 1),
    )
    rows, cols, valid = window_positions(
        stack.shape[2:4], (h, w), (kh, kw), strides, rates, (pads[0][0], pads[1][0])
    )
    sums = stack + f.reshape(kh * kw, 1, 1, 1, c)
    value, pos, found = scan_above_lowest(sums, valid[:, None, :, :, None])
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return value
    # Where nothing beat the lowest value, TF's backprop kernels keep their first guess:
    # the window's first in-range position and the filter's first tap (pos is 0 there).
    row = jnp.where(found, pick(rows[:, None, :, :, None], pos), jnp.maximum(rows[0], 0)[..., None])
    col = jnp.where(found, pick(cols[:, None, :, :, None], pos), jnp.maximum(cols[0], 0)[..., None])
    batch = jnp.arange(n)[:, None, None, None]
    channel = jnp.arange(c)
    x_index = ((batch * h + row) * w + col) * c + channel
    f_index = pos * c + channel
    return routed(jax.lax.stop_gradient(value), (x, f), (x_index, f_index))


_dilation_op = Op(_OP, _dilation_fn)


def _dilation(x, f, strides, rates, padding):
    """TF's Dilation2D op: attribute, dtype and kernel checks, then the scan."""
    x, f = binary_operands(x, f, _OP)
    strides = _list_attr(strides, "strides", "dilation2d")
    rates = _list_attr(rates, "rates", "dilation2d")
    pad = _padding_attr(padding, _OP, explicit_ok=False)
    require(x, "fiu", _OP)
    if len(strides) != 4:
        raise _iae("Sliding window stride field must specify 4 dimensions", _OP)
    if strides[0] != 1 or strides[3] != 1:
        raise UnimplementedError(
            None, None, f"Stride is only supported across spatial dimensions. [Op:{_OP}]"
        )
    if len(rates) != 4:
        raise _iae("Input stride (atrous rate) field must specify 4 dimensions", _OP)
    if rates[0] != 1 or rates[3] != 1:
        raise UnimplementedError(
            None, None, f"Rate is only supported across spatial dimensions. [Op:{_OP}]"
        )
    xs, fs = x._v.shape, f._v.shape
    if len(xs) != 4:
        raise _iae(f"input must be 4-dimensional{_dims(xs)}", _OP)
    if len(fs) != 3:
        raise _iae(f"filter must be 3-dimensional: {_dims(fs)}", _OP)
    if xs[3] != fs[2]:
        raise _iae(f"input and filter must have the same depth: {xs[3]} vs {fs[2]}", _OP)
    for s in strides[1:3]:
        if s <= 0:
            raise _iae(f"Stride must be > 0, but got {s}", _OP)
    pads = _window_pads(xs[1:3], fs[:2], strides[1:3], rates[1:3], pad, _OP)
    static = (("strides", tuple(strides[1:3])), ("rates", tuple(rates[1:3])), ("pads", pads))
    return apply(_dilation_op, (x, f), static)


def _nhwc_only(data_format) -> None:
    if data_format != "NHWC":
        raise ValueError(
            "`data_format` values other  than 'NHWC' are not supported. "
            f"Received: data_format={data_format}"
        )


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):  # noqa: A002
    """Grayscale dilation of NHWC ``input`` by a ``[height, width, depth]`` structuring
    function (``tf.nn.dilation2d``): the max over the window of ``input + filters``.

    Args:
        input: ``[batch, in_height, in_width, depth]``, a real dtype.
        filters: ``[filter_height, filter_width, depth]``, ``input``'s dtype.
        strides: a list of 4 ints, ``[1, stride_height, stride_width, 1]``.
        padding: "SAME" or "VALID".
        data_format: "NHWC" (the only one TF supports).
        dilations: a list of 4 ints, ``[1, rate_height, rate_width, 1]``.
        name: ignored (TF's op name).

    Returns:
        ``[batch, out_height, out_width, depth]``. Ties go to the first element of a
        window in row-major order, NaNs never win, and the gradient flows to the winning
        input element and filter tap, as TF's CPU kernels.

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.constant([1.0, 5.0, 2.0, 0.0]), [1, 2, 2, 1])
        >>> y = tf.nn.dilation2d(x, tf.zeros([2, 2, 1]), [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])
        >>> float(y[0, 0, 0, 0])
        5.0
    """
    _nhwc_only(data_format)
    return _dilation(input, filters, strides, dilations, padding)


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale erosion of NHWC ``value`` (``tf.nn.erosion2d``): the min over the window
    of ``value - filters``, computed as TF does, by duality with ``dilation2d`` of
    ``-value`` by the filter reflected in height and width (so the window reads
    ``value[strides * y - dilations * dy]``).

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.constant([1.0, 5.0, 2.0, 3.0]), [1, 2, 2, 1])
        >>> y = tf.nn.erosion2d(x, tf.zeros([2, 2, 1]), [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])
        >>> float(y[0, 0, 0, 0])
        1.0
    """
    _nhwc_only(data_format)
    negated = negative(value)
    flipped = reverse(filters, [0, 1])
    return negative(_dilation(negated, flipped, strides, dilations, padding))
