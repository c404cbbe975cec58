"""Pooling of ``tf.nn`` (channels-last), on ``jax.lax.reduce_window``: ``max_pool`` and
``avg_pool`` in 1, 2 and 3 dimensions, and ``pool`` (with dilations).

Windows, strides and paddings are checked the way TF's CPU kernels check them, with
TF's texts, before JAX runs. Derivatives are JAX's: they equal TF's, max-pool ties
included (the gradient goes to the first maximum of a window; 3-D max-pooling's to every
maximum, as TF's MaxPool3DGrad). This module must never accept a channels-first
``data_format`` silently: TF's CPU kernels refuse them, and so does this module, with
TF's error.
"""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import UnimplementedError
from ._helpers import TF_ALLOWED, lacks_cpu_kernel, no_kernel, node_attrs, require, to_tensor
from ._window_args import (
    _CHANNELS_LAST,
    _NN,
    _channels_last,
    _explicit_padding,
    _iae,
    _padding_attr,
    _sequence,
    _window_pads,
)

TF_ALLOWED.update(
    {
        "MaxPool": f"{_NN}, int32, int64, uint8, int16, int8, uint16, qint8",
        "MaxPool3D": "half, bfloat16, float",
        "AvgPool": _NN,
        "AvgPool3D": _NN,
    }
)


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
    missing = lacks_cpu_kernel(op_name, x._v.dtype)
    if not missing:
        require(x, "fiu" if op_name == "MaxPool" else "f", op_name)
    window = _sequence(ksize, n, "ksize")
    steps = _sequence(strides, n, "strides")
    pad = _padding_attr(padding, op_name, explicit_ok=explicit_ok)
    _channels_last(data_format, n, op_name, _CHANNELS_LAST[n][0])
    if missing:  # TF's text prints the node's attributes
        attrs = node_attrs(
            data_format=f'"{data_format or _CHANNELS_LAST[n][0]}"',
            ksize=window,
            padding=f'"{padding}"',
            strides=steps,
        )
        raise no_kernel(op_name, x._v.dtype, attrs)
    xs = x._v.shape
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
    if x._v.shape[-1] % window[-1]:
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
    n = to_tensor(input)._v.ndim - 2
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
    if x._v.ndim != n + 2:
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
