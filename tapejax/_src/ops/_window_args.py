"""TF's argument handling shared by the convolutions (``conv_ops``,
``conv_transpose_ops``) and the pooling (``pool_ops``) of ``tf.nn``: strides, dilations
and windows as lists of ints, paddings as explicit pads, data formats, and TF's texts for
what its CPU kernels refuse.

TF's "SAME" rule (``pad_before = total // 2``) is computed here as explicit pads, so the
ops' pure functions only ever see explicit pads. Nothing here may accept a
channels-first ``data_format`` silently: TF's CPU kernels refuse them, and so does
``_channels_last``, with TF's error.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError, UnimplementedError

_NN = "half, bfloat16, float, double"
_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}
_CHANNELS_LAST = {1: ("NWC",), 2: ("NHWC",), 3: ("NDHWC",)}
_CHANNELS_FIRST = {1: ("NCW",), 2: ("NCHW",), 3: ("NCDHW",)}


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _dims(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


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


def _list_attr(values, attr: str, fn_name: str, minimum: int = 4, convert=int) -> list:
    """A ``list(int)`` (or ``list(float)``) op attribute of at least ``minimum`` entries,
    with the errors of TF's generated op wrappers (``fn_name``: the wrapper's name)."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        raise TypeError(f"Expected list for '{attr}' argument to '{fn_name}' Op, not {values!r}.")
    if len(values) < minimum:
        raise InvalidArgumentError(
            None,
            None,
            f"Length for attr '{attr}' of {len(values)} must be at least minimum {minimum}",
        )
    return [convert(v) for v in values]


def _allowed_attr(value, attr: str, allowed: tuple) -> None:
    """A string attribute of an op: TF's error when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        names = ", ".join(f'"{a}"' for a in allowed)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed values: {names}",
        )
