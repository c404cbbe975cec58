"""Moving spatial blocks to and from the batch or depth dimension: ``space_to_batch_nd``
(``space_to_batch``), ``batch_to_space``, ``space_to_depth`` and ``depth_to_space``, with
TF's checks.

Each is a pad or crop around a reshape and a transpose, so JAX's derivative is TF's
registered gradient (the inverse op). Block sizes, paddings and crops set the result's
shape: they must be known when the op runs (Python values, or eager tensors).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._array_common import _dims, _host
from ._helpers import tf_type_name, to_tensor

__all__ = [
    "space_to_batch",
    "space_to_batch_nd",
    "batch_to_space",
    "space_to_depth",
    "depth_to_space",
]


def _error(text: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")


def _static_ints(value, attr: str, what: str, op_name: str) -> np.ndarray:
    """A block shape, paddings or crops argument as host ints, with TF's type check."""
    host = _host(value)
    if host is None:
        raise NotImplementedError(
            f"tapejax.{what}: block_shape, paddings and crops set the result's shape, so they "
            "cannot be traced (inside tapejax.function or a JAX transform); pass Python values."
        )
    dt = host.dtype
    if host.size and dt.kind not in "iu":
        name = "float" if dt.kind == "f" else tf_type_name(dt)
        raise _error(
            f"Value for attr '{attr}' of {name} is not in the list of allowed values: int32, int64",
            op_name,
        )
    return host.astype(np.int64)


def _block_args(x, block_shape, pairs, what, pair_name, op_name):
    """TF's checks shared by SpaceToBatchND and BatchToSpaceND: ``(block, pairs)``."""
    pair_attr = "Tpaddings" if pair_name == "paddings" else "Tcrops"
    block = _static_ints(block_shape, "Tblock_shape", what, op_name)
    pairs = _static_ints(pairs, pair_attr, what, op_name)
    if block.ndim != 1:
        raise _error(f"block_shape rank should be 1 instead of {block.ndim}", op_name)
    m = block.shape[0]
    if x._v.ndim < 1 + m:
        raise _error(f"input rank should be >= {1 + m} instead of {x._v.ndim}", op_name)
    if pairs.shape != (m, 2) and not (m == 0 and pairs.size == 0):
        raise _error(
            f"{pair_name} should have shape [{m}, 2] instead of [{_dims(pairs.shape)}]", op_name
        )
    return tuple(block.tolist()), tuple(tuple(p) for p in pairs.reshape(m, 2).tolist())


# -- space_to_batch -----------------------------------------------------------------------------


def _space_to_batch_fn(x, *, block, paddings):
    m = len(block)
    x = jnp.pad(x, [(0, 0), *paddings] + [(0, 0)] * (x.ndim - 1 - m))
    batch, spatial, rest = x.shape[0], x.shape[1 : 1 + m], x.shape[1 + m :]
    split = [batch]
    for size, k in zip(spatial, block):
        split += [size // k, k]
    x = x.reshape(split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    x = x.transpose(perm + list(range(1 + 2 * m, x.ndim)))
    reduced = [size // k for size, k in zip(spatial, block)]
    return x.reshape([batch * math.prod(block)] + reduced + list(rest))


_space_to_batch_op = Op("SpaceToBatchND", _space_to_batch_fn)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """Zero-pads the ``M`` spatial dimensions after the batch one, then moves each
    ``block_shape`` block of them into the batch dimension (``tf.space_to_batch_nd``).

    Args:
        input: a tensor of shape ``[batch] + spatial (M dims) + rest``.
        block_shape: ``M`` positive ints.
        paddings: ``[M, 2]`` non-negative ints; each padded spatial size must be a
            multiple of its block size.
        name: ignored (TF's op name).

    Returns:
        Shape ``[batch * prod(block_shape)] + padded spatial / block_shape + rest``. The
        gradient is ``batch_to_space`` of the upstream gradient, as TF's.

    Example:
        >>> import tapejax as tf
        >>> x = tf.reshape(tf.range(4.0), [1, 2, 2, 1])
        >>> tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]).numpy().ravel()
        array([0., 1., 2., 3.], dtype=float32)
    """
    op_name = "SpaceToBatchND"
    x = to_tensor(input)
    block, pads = _block_args(x, block_shape, paddings, "space_to_batch", "paddings", op_name)
    for i, k in enumerate(block):
        if k <= 0:
            raise _error(
                f"All values in block_shape must be positive, got value, {k} at index {i}.",
                op_name,
            )
    for i, ((lo, hi), k) in enumerate(zip(pads, block)):
        if lo < 0 or hi < 0:
            raise _error("Paddings must be non-negative", op_name)
        padded = x._v.shape[1 + i] + lo + hi
        if padded % k:
            raise _error(
                f"padded_shape[{i}]={padded} is not divisible by block_shape[{i}]={k}", op_name
            )
    return apply(_space_to_batch_op, (x,), (("block", block), ("paddings", pads)))


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """``space_to_batch_nd`` under TF 2's other name (``tf.space_to_batch``,
    ``tf.nn.space_to_batch``)."""
    return space_to_batch_nd(input, block_shape, paddings)


# -- batch_to_space -----------------------------------------------------------------------------


def _batch_to_space_fn(x, *, block, crops):
    m = len(block)
    batch, spatial, rest = x.shape[0], x.shape[1 : 1 + m], x.shape[1 + m :]
    n = batch // math.prod(block)
    x = x.reshape(list(block) + [n] + list(spatial) + list(rest))
    perm = [m] + [axis for i in range(m) for axis in (m + 1 + i, i)]
    x = x.transpose(perm + list(range(2 * m + 1, x.ndim)))
    x = x.reshape([n] + [size * k for size, k in zip(spatial, block)] + list(rest))
    keep = [slice(lo, x.shape[1 + i] - hi) for i, (lo, hi) in enumerate(crops)]
    return x[(slice(None), *keep)]


_batch_to_space_op = Op("BatchToSpaceND", _batch_to_space_fn)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002 - TF's name
    """Moves blocks of the batch dimension back into the ``M`` spatial dimensions, then
    crops them (``tf.batch_to_space``): the inverse of ``space_to_batch_nd``.

    Args:
        input: a tensor of shape ``[batch] + spatial (M dims) + rest``, ``batch`` a
            multiple of ``prod(block_shape)``.
        block_shape: ``M`` positive ints.
        crops: ``[M, 2]`` non-negative ints to remove from each end of each spatial
            dimension.
        name: ignored (TF's op name).

    Returns:
        Shape ``[batch / prod(block_shape)] + spatial * block_shape - crops + rest``. The
        gradient is ``space_to_batch_nd`` of the upstream gradient, as TF's.

    Example:
        >>> import tapejax as tf
        >>> tf.batch_to_space(tf.reshape(tf.range(4.0), [4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]]).shape
        TensorShape([1, 2, 2, 1])
    """
    op_name = "BatchToSpaceND"
    x = to_tensor(input)
    block, crops = _block_args(x, block_shape, crops, "batch_to_space", "crops", op_name)
    product = math.prod(block)
    if product <= 0:
        raise _error(f"Product of block sizes must be positive, got {product}", op_name)
    if x._v.shape[0] % product:
        raise _error(
            f"Input batch dimension ({x._v.shape[0]}) is not divisible by product of block "
            f"sizes ({product})",
            op_name,
        )
    for i, ((lo, hi), k) in enumerate(zip(crops, block)):
        if lo < 0 or hi < 0:
            raise _error("Crops must be non-negative", op_name)
        cropped = x._v.shape[1 + i] * k - lo - hi
        if cropped < 0:
            raise _error(f"cropped_shape[{i}]={cropped} must be non-negative", op_name)
    return apply(_batch_to_space_op, (x,), (("block", block), ("crops", crops)))


# -- space_to_depth and depth_to_space ----------------------------------------------------------


def _to_depth(x, b):
    n, h, w, c = x.shape
    x = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h // b, w // b, b * b * c)


def _to_space(x, b):
    n, h, w, c = x.shape
    x = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(n, h * b, w * b, c // (b * b))


def _depth_fn(x, *, block, nchw, to_depth):
    move = _to_depth if to_depth else _to_space
    if nchw:  # as TF's XLA kernel: the same blocks, with channels first
        return move(x.transpose(0, 2, 3, 1), block).transpose(0, 3, 1, 2)
    return move(x, block)


_space_to_depth_op = Op("SpaceToDepth", _depth_fn)
_depth_to_space_op = Op("DepthToSpace", _depth_fn)


def _depth_args(input, block_size, data_format, op_name):
    x = to_tensor(input)
    block = int(block_size)
    if block < 2:
        raise _error(f"Value for attr 'block_size' of {block} must be at least minimum 2", op_name)
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise _error(
            f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed "
            'values: "NHWC", "NCHW", "NCHW_VECT_C"',
            op_name,
        )
    if data_format == "NCHW_VECT_C":
        raise NotImplementedError(
            f"tapejax.nn.{op_name[0].lower()}{op_name[1:]}: data_format NCHW_VECT_C (TF's "
            "quantized int8 layout) is not implemented; use NHWC or NCHW."
        )
    return x, block


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves each ``block_size`` x ``block_size`` spatial block into the depth dimension
    (``tf.nn.space_to_depth``).

    Args:
        input: a 4-D tensor, NHWC (or NCHW), height and width multiples of ``block_size``.
        block_size: an int, at least 2.
        data_format: "NHWC" or "NCHW" (TF's CPU build has no NCHW kernel; this computes
            its XLA kernel's result).
        name: ignored (TF's op name).

    Returns:
        Shape ``[N, H / b, W / b, C * b * b]`` (NHWC); the depth index of block position
        ``(i, j)`` and channel ``c`` is ``(i * b + j) * C + c``, as TF's.

    Example:
        >>> import tapejax as tf
        >>> tf.nn.space_to_depth(tf.reshape(tf.range(4.0), [1, 2, 2, 1]), 2).numpy()
        array([[[[0., 1., 2., 3.]]]], dtype=float32)
    """
    x, block = _depth_args(input, block_size, data_format, "SpaceToDepth")
    if x._v.ndim != 4:
        raise _error(f"Input rank should be 4 instead of {x._v.ndim}", "SpaceToDepth")
    h, w = x._v.shape[1:3] if data_format == "NHWC" else x._v.shape[2:4]
    if h % block or w % block:
        raise _error(
            f"Image width {w} and height {h} should be divisible by block_size: {block}",
            "SpaceToDepth",
        )
    static = (("block", block), ("nchw", data_format == "NCHW"), ("to_depth", True))
    return apply(_space_to_depth_op, (x,), static)


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves depth into ``block_size`` x ``block_size`` spatial blocks
    (``tf.nn.depth_to_space``): the inverse of ``space_to_depth``.

    Args:
        input: a 4-D tensor, NHWC (or NCHW), depth a multiple of ``block_size ** 2``.
        block_size: an int, at least 2.
        data_format: "NHWC" or "NCHW" (as ``space_to_depth``).
        name: ignored (TF's op name).

    Returns:
        Shape ``[N, H * b, W * b, C / (b * b)]`` (NHWC).

    Example:
        >>> import tapejax as tf
        >>> tf.nn.depth_to_space(tf.reshape(tf.range(4.0), [1, 1, 1, 4]), 2).numpy()[0, ..., 0]
        array([[0., 1.],
               [2., 3.]], dtype=float32)
    """
    x, block = _depth_args(input, block_size, data_format, "DepthToSpace")
    if x._v.ndim != 4:
        raise _error(f"Input rank should be: 4 instead of: {x._v.ndim}", "DepthToSpace")
    depth = x._v.shape[3] if data_format == "NHWC" else x._v.shape[1]
    if depth % (block * block):
        raise _error(
            f"Input depth dimension {depth} should be divisible by: {block * block}",
            "DepthToSpace",
        )
    static = (("block", block), ("nchw", data_format == "NCHW"), ("to_depth", False))
    return apply(_depth_to_space_op, (x,), static)
