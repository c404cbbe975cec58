"""``tf.nn.max_pool_with_argmax``: 2-D max pooling that also returns where each maximum
came from, as TF's flattened indices.

The window scan is TF's CPU kernel's (``_max_scan.scan_first``): the first maximum in
row-major window order wins, padding never does, and the gradient goes to that element
only (TF's MaxPoolGradWithArgmax). Checks and texts are TF's. This module must never
accept a channels-first ``data_format``: TF's Python refuses it with a ValueError, and so
does this module.
"""

from __future__ import annotations

import collections

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ._helpers import TF_ALLOWED, require, tf_type_name, to_tensor
from ._max_scan import pick, scan_first
from ._window_args import _iae, _padding_attr, _sequence, _window_pads
from .pool_ops import _window_stack
from .reduction_ops import _narrowed

__all__ = ["max_pool_with_argmax"]

_OP = "MaxPoolWithArgmax"
TF_ALLOWED.update(
    {_OP: "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"}
)

MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def window_positions(out_sizes, in_sizes, window, strides, dilations, before):
    """For each window element (row-major), the input row and column it reads at every
    output position, and whether that lies inside the input: ``rows`` ``(P, Ho, 1)``,
    ``cols`` ``(P, 1, Wo)``, ``valid`` ``(P, Ho, Wo)``."""
    (ho, wo), (h, w), (kh, kw), (sh, sw), (dh, dw), (top, left) = (
        out_sizes,
        in_sizes,
        window,
        strides,
        dilations,
        before,
    )
    di, dj = np.divmod(np.arange(kh * kw), kw)
    rows = jnp.arange(ho)[None, :, None] * sh - top + (di * dh)[:, None, None]
    cols = jnp.arange(wo)[None, None, :] * sw - left + (dj * dw)[:, None, None]
    valid = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    return rows, cols, valid


def _argmax_pool_fn(x, *, window, strides, pads, include_batch, dtype):
    n, h, w, c = x.shape
    stack = _window_stack(
        x,
        np.array(0, x.dtype),
        (1, *window, 1),
        (1, *strides, 1),
        ((0, 0), *pads, (0, 0)),
        (1, 1, 1, 1),
    )
    rows, cols, valid = window_positions(
        stack.shape[2:4], (h, w), window, strides, (1, 1), (pads[0][0], pads[1][0])
    )
    # Through the scan's selects, the gradient reaches the winning element only.
    value, pos = scan_first(stack, valid[:, None, :, :, None])
    row = pick(rows[:, None, :, :, None], pos).astype(dtype)
    col = pick(cols[:, None, :, :, None], pos).astype(dtype)
    index = (row * w + col) * c + jnp.arange(c, dtype=dtype)
    if include_batch:
        index = index + jnp.arange(n, dtype=dtype)[:, None, None, None] * (h * w * c)
    return value, index


_argmax_pool_op = Op(_OP, _argmax_pool_fn, multiple_outputs=True)


def _output_dtype(output_dtype) -> np.dtype:
    dt = dtypes.as_dtype(output_dtype)
    if dt not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Targmax' of {tf_type_name(dt._np)} is not in the list of allowed "
            "values: int32, int64",
        )
    return _narrowed(dt)


def _check_window(x, window, steps) -> None:
    """TF's MaxPoolWithArgmax kernel checks, in its order."""
    shape = x._v.shape
    if len(shape) != 4:
        raise _iae("tensor_in must be 4-dimensional (2)", _OP)
    if 0 in shape:
        raise _iae("tensor_in must not be empty (2)", _OP)
    for k in window:
        if k <= 0:
            raise _iae(f"ksize must be a positive int32 value, got:{k}", _OP)
    if window[0] != 1 or steps[0] != 1:
        raise UnimplementedError(
            None, None, f"Pooling is not yet supported on the batch dimension. [Op:{_OP}]"
        )
    if window[3] == 1 and steps[3] == 1:
        for s in steps[1:3]:
            if s <= 0:
                raise _iae(f"Stride must be > 0, but got {s}", _OP)
        return
    if window[1:3] != [1, 1] or steps[1:3] != [1, 1]:
        raise UnimplementedError(
            None,
            None,
            "MaxPooling supports exactly one of pooling across depth or pooling across "
            f"width/height. [Op:{_OP}]",
        )
    if window[3] != steps[3]:
        raise UnimplementedError(
            None,
            None,
            f"Depthwise max pooling requires the depth window to equal the depth stride [Op:{_OP}]",
        )
    # TF's kernel returns its input unpooled here, with indices of the wrong shape.
    raise NotImplementedError(
        "tapejax.nn.max_pool_with_argmax across the depth dimension is not implemented: TF's "
        "CPU kernel returns an unpooled tensor there. Pool over height and width instead."
    )


def max_pool_with_argmax(
    input,  # noqa: A002
    ksize,
    strides,
    padding,
    data_format="NHWC",
    output_dtype=dtypes.int64,
    include_batch_in_index=False,
    name=None,
):
    """Max pooling of NHWC ``input`` that also returns each maximum's flattened index
    (``tf.nn.max_pool_with_argmax``).

    Args:
        input: a 4-D ``[batch, height, width, channels]`` tensor of a real dtype.
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: the window's stride, as ``ksize``.
        padding: "SAME" or "VALID".
        data_format: "NHWC" only (TF's ValueError otherwise).
        output_dtype: int32 or int64 (the default; int32 unless JAX's x64 mode is on).
        include_batch_in_index: whether the index counts the batch dimension too.
        name: ignored (TF's op name).

    Returns:
        ``(output, argmax)``: the pooled values, and for each the index of its element,
        ``(y * width + x) * channels + c`` (plus ``b * height * width * channels`` with
        ``include_batch_in_index``). Ties go to the first element in row-major window
        order, as TF's CPU kernel; the gradient flows through ``output`` to that element.

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.constant([1.0, 4.0, 3.0, 2.0]), [1, 2, 2, 1])
        >>> out, argmax = tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=tf.int32)
        >>> float(out[0, 0, 0, 0]), int(argmax[0, 0, 0, 0])
        (4.0, 1)
    """
    if data_format != "NHWC":
        raise ValueError(
            "`data_format` values other  than 'NHWC' are not supported. "
            f"Received: data_format={data_format}"
        )
    window = _sequence(ksize, 2, "ksize")
    steps = _sequence(strides, 2, "strides")
    x = to_tensor(input)
    pad = _padding_attr(padding, _OP, explicit_ok=False)
    out_dt = _output_dtype(output_dtype)
    require(x, "fiu", _OP)
    _check_window(x, window, steps)
    pads = _window_pads(x._v.shape[1:3], window[1:3], steps[1:3], (1, 1), pad, _OP)
    static = (
        ("window", tuple(window[1:3])),
        ("strides", tuple(steps[1:3])),
        ("pads", pads),
        ("include_batch", bool(include_batch_in_index)),
        ("dtype", out_dt),
    )
    return MaxPoolWithArgmax(*apply(_argmax_pool_op, (x,), static))
