"""``tf.extract_volume_patches``: 3-D patches of a 5-D ``[batch, planes, rows, cols,
depth]`` tensor as its last dimension, TF's ExtractVolumePatches (patches flattened plane,
row, column, channel), with TF's checks; the 2-D ``tf.image.extract_patches`` is
``image_geometry_ops``', whose output-size rule this shares. The gradient is JAX's:
each patch element's gradient flows back to the input element it copied.
"""

from __future__ import annotations

import itertools

import jax.numpy as jnp

from ..dispatch import Op, apply
from ..errors import OutOfRangeError, UnimplementedError
from ._helpers import TF_ALLOWED, require, to_tensor
from ._window_args import _dims, _iae, _list_attr, _padding_attr
from .image_geometry_ops import _window

__all__ = ["extract_volume_patches"]

_OP = "ExtractVolumePatches"
TF_ALLOWED[_OP] = (
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
)


def _volume_patches_fn(x, *, sizes, strides, padding):
    outs, pads = zip(
        *(_window(n, k, s, 1, padding) for n, k, s in zip(x.shape[1:4], sizes, strides))
    )
    # Enough zeros after each axis for every window the output reads.
    after = [
        max((o - 1) * s + k - p - n, 0)
        for o, s, k, p, n in zip(outs, strides, sizes, pads, x.shape[1:4])
    ]
    x = jnp.pad(x, ((0, 0), *zip(pads, after), (0, 0)))
    patches = [
        x[
            :,
            i : i + (outs[0] - 1) * strides[0] + 1 : strides[0],
            j : j + (outs[1] - 1) * strides[1] + 1 : strides[1],
            k : k + (outs[2] - 1) * strides[2] + 1 : strides[2],
        ]
        for i, j, k in itertools.product(*(range(k) for k in sizes))
    ]
    out = jnp.stack(patches, axis=4)  # [b, planes, rows, cols, kd * kh * kw, depth]
    return out.reshape(out.shape[:4] + (out.shape[4] * out.shape[5],))


_volume_patches_op = Op(_OP, _volume_patches_fn)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """Patches of ``ksizes`` every ``strides`` as the last dimension
    (``tf.extract_volume_patches``): ``[batch, out_planes, out_rows, out_cols,
    ksize_planes * ksize_rows * ksize_cols * depth]``.

    Args:
        input: a 5-D ``[batch, in_planes, in_rows, in_cols, depth]`` real tensor.
        ksizes: 5 ints, ``[1, ksize_planes, ksize_rows, ksize_cols, 1]``.
        strides: 5 ints, ``[1, stride_planes, stride_rows, stride_cols, 1]``.
        padding: "SAME" or "VALID".
        name: ignored (TF's op name).

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(8.0), [1, 2, 2, 2, 1])
        >>> tf.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID").numpy().ravel()
        array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """
    x = to_tensor(input)
    sizes = _list_attr(ksizes, "ksizes", "extract_volume_patches", minimum=5)
    steps = _list_attr(strides, "strides", "extract_volume_patches", minimum=5)
    padding = _padding_attr(padding, _OP, explicit_ok=False)
    require(x, "fiu", _OP)
    for values, what in ((sizes, "ksizes"), (steps, "strides")):
        if values[0] != 1 or values[4] != 1:
            raise UnimplementedError(None, None, f"Only support {what} across space. [Op:{_OP}]")
    if x._v.ndim != 5:
        raise _iae(f"input must be 5-dimensional{_dims(x._v.shape)}", _OP)
    for values, what in ((sizes, "ksizes"), (steps, "strides")):
        if min(values[1:4]) < 1:
            raise OutOfRangeError(None, None, f"{what} is out of range. [Op:{_OP}]")
    static = (("sizes", tuple(sizes[1:4])), ("strides", tuple(steps[1:4])), ("padding", padding))
    return apply(_volume_patches_op, (x,), static)
