"""``tf.image``'s random augmentations: TF's composites of a uniform draw and an adjustment.

``random_*`` draw from ``tapejax.random``'s stateful streams (TF's global/op seed rules);
``stateless_random_*`` from ``stateless_uniform`` with a ``[2]`` seed (the same seed, the
same result). The numbers are JAX's, not TF's (docs/compat.md); the ranges, argument checks,
dtypes and the adjustment applied are TF's. Crops keep a static size and take their offset
with a dynamic slice, so they trace.
"""

from __future__ import annotations

import jax
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import to_tensor
from .image_color_ops import adjust_hue, adjust_saturation
from .image_ops import _random_flip, adjust_brightness, adjust_contrast
from .random_ops import stateless_uniform, uniform


def _check_max_delta(max_delta, at_most=None) -> None:
    if at_most is not None and max_delta > at_most:
        raise ValueError(f"max_delta must be <= {at_most}.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_bounds(lower, upper) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn uniformly from ``[-max_delta, max_delta)``
    (``tf.image.random_brightness``)."""
    _check_max_delta(max_delta)
    return adjust_brightness(image, uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_brightness(image, max_delta, seed):
    """``random_brightness`` determined by ``seed`` (``tf.image.stateless_random_brightness``)."""
    _check_max_delta(max_delta)
    delta = stateless_uniform([], seed=seed, minval=-max_delta, maxval=max_delta)
    return adjust_brightness(image, delta)


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn uniformly from ``[lower, upper)``
    (``tf.image.random_contrast``)."""
    _check_bounds(lower, upper)
    return adjust_contrast(image, uniform([], lower, upper, seed=seed))


def stateless_random_contrast(image, lower, upper, seed):
    """``random_contrast`` determined by ``seed`` (``tf.image.stateless_random_contrast``)."""
    _check_bounds(lower, upper)
    return adjust_contrast(image, stateless_uniform([], seed=seed, minval=lower, maxval=upper))


def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn uniformly from ``[-max_delta, max_delta)``,
    ``max_delta`` in [0, 0.5] (``tf.image.random_hue``)."""
    _check_max_delta(max_delta, 0.5)
    return adjust_hue(image, uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_hue(image, max_delta, seed):
    """``random_hue`` determined by ``seed`` (``tf.image.stateless_random_hue``)."""
    _check_max_delta(max_delta, 0.5)
    delta = stateless_uniform([], seed=seed, minval=-max_delta, maxval=max_delta)
    return adjust_hue(image, delta)


def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn uniformly from ``[lower, upper)``
    (``tf.image.random_saturation``)."""
    _check_bounds(lower, upper)
    return adjust_saturation(image, uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image, lower, upper, seed=None):
    """``random_saturation`` determined by ``seed`` (``tf.image.stateless_random_saturation``)."""
    _check_bounds(lower, upper)
    factor = stateless_uniform([], seed=seed, minval=lower, maxval=upper)
    return adjust_saturation(image, factor)


def stateless_random_flip_left_right(image, seed):
    """Mirrors each image horizontally with probability 1/2, determined by ``seed``
    (``tf.image.stateless_random_flip_left_right``)."""
    return _random_flip(image, 2, lambda shape: stateless_uniform(shape, seed=seed, maxval=1.0))


def stateless_random_flip_up_down(image, seed):
    """Mirrors each image vertically with probability 1/2, determined by ``seed``
    (``tf.image.stateless_random_flip_up_down``)."""
    return _random_flip(image, 3, lambda shape: stateless_uniform(shape, seed=seed, maxval=1.0))


# -- crops ------------------------------------------------------------------------------------


def _crop_fn(x, offset, *, size):
    return jax.lax.dynamic_slice(x, tuple(offset[i] for i in range(x.ndim)), size)


_crop_op = Op("Slice", _crop_fn)


def _random_crop(value, size, draw) -> Tensor:
    """TF's ``random_crop``: a uniform int32 offset in each dimension, modulo the room."""
    x = to_tensor(value)
    if isinstance(size, (list, tuple, np.ndarray)):
        size = np.asarray(size, np.int32)
        static = size
    else:
        size = convert_to_tensor(size, dtype=dtypes.int32)
        static = size._value
    if isinstance(static, jax.core.Tracer):
        raise NotImplementedError(
            "tapejax.image.random_crop: a traced `size` sets the output shape; pass Python ints."
        )
    shape = np.asarray(x._v.shape, np.int32)
    size = np.asarray(static, np.int32).reshape(-1)
    if size.shape != shape.shape:
        raise InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: [{shape.size}] vs. [{size.size}] [Op:GreaterEqual]",
        )
    if np.any(shape < size):
        raise InvalidArgumentError(
            None,
            None,
            "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
            f"b'Need value.shape >= size, got '\n{', '.join(map(str, shape))}\n"
            f"{', '.join(map(str, size))}",
        )
    offset = draw([shape.size]) % convert_to_tensor(shape - size + 1)
    return apply(_crop_op, (x, offset), (("size", tuple(int(s) for s in size)),))


def random_crop(value, size, seed=None, name=None):
    """A ``size`` slice of ``value`` at a uniformly drawn offset (``tf.image.random_crop``).

    Example:
        >>> import tapejax as tf
        >>> tf.image.random_crop(tf.zeros([4, 5, 3]), [2, 2, 3], seed=1).shape
        TensorShape([2, 2, 3])
    """
    maxval = np.iinfo(np.int32).max
    return _random_crop(
        value, size, lambda shape: uniform(shape, maxval=maxval, dtype=dtypes.int32, seed=seed)
    )


def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` determined by ``seed`` (``tf.image.stateless_random_crop``)."""
    maxval = np.iinfo(np.int32).max
    return _random_crop(
        value,
        size,
        lambda shape: stateless_uniform(shape, seed=seed, maxval=maxval, dtype=dtypes.int32),
    )
