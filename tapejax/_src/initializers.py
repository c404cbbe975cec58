"""TF 2's top-level initializer classes (``tf.zeros_initializer``, ``tf.ones_initializer``,
``tf.constant_initializer``, ``tf.random_normal_initializer``,
``tf.random_uniform_initializer``), ported from TF's ``init_ops_v2``.

An initializer is a configuration: calling it with a shape and a dtype makes a tensor
through tapejax's public ops (``zeros``, ``constant``, ``tapejax.random``), so a seeded
one draws from the ``stateless_*`` ops with seed ``[seed, 0]`` (the same numbers on every
call, as TF's) and an unseeded one from the stateful ops.

.. warning::
   The random numbers differ from TF's, as for every tapejax random op (JAX's threefry
   generator, not TF's Philox); the distributions, shapes, dtypes and seed rules are TF's.

This module must never hold random state of its own.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .conversion import constant
from .ops import random_ops
from .ops.creation_ops import ones, zeros

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal"]

_PARTITION_SHAPE = "partition_shape"
_PARTITION_OFFSET = "partition_offset"


class Initializer:
    """The initializer base class: ``__call__(shape, dtype=None, **kwargs)`` returns a
    tensor of that shape and dtype; ``get_config``/``from_config`` round-trip it."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        """The initializer's configuration, a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer from ``get_config()``'s dict (a ``dtype`` entry is dropped)."""
        config.pop("dtype", None)
        return cls(**config)

    def _validate_kwargs(self, kwargs, support_partition=True):
        for kwarg in kwargs:
            if kwarg not in (_PARTITION_SHAPE, _PARTITION_OFFSET):
                raise TypeError(
                    "Keyword argument should be one of "
                    f"{[_PARTITION_SHAPE, _PARTITION_OFFSET]}. Received: {kwarg}"
                )
            if not support_partition:
                raise ValueError(
                    f"{self.__class__.__name__} initializer doesn't support "
                    "partition-related arguments"
                )


def _numeric_or_bool(dtype) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.string:
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
    return dtype


class Zeros(Initializer):
    """Makes tensors of zeros (``tf.zeros_initializer``).

    Example:
        >>> import tapejax as tf
        >>> tf.zeros_initializer()(shape=[2], dtype=tf.int32).numpy()
        array([0, 0], dtype=int32)
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = _numeric_or_bool(dtype)
        return zeros(kwargs.get(_PARTITION_SHAPE, shape), dtype)


class Ones(Initializer):
    """Makes tensors of ones (``tf.ones_initializer``).

    Example:
        >>> import tapejax as tf
        >>> tf.ones_initializer()(shape=[2]).numpy()
        array([1., 1.], dtype=float32)
    """

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = _numeric_or_bool(dtype)
        return ones(kwargs.get(_PARTITION_SHAPE, shape), dtype)


class Constant(Initializer):
    """Makes tensors holding ``value`` (``tf.constant_initializer``): a scalar fills any
    shape; a list or array must have as many elements as the shape (TF's TypeError).

    Args:
        value: a Python scalar, a list or tuple of values, or a NumPy array.
        support_partition: whether ``partition_shape``/``partition_offset`` are accepted.

    Example:
        >>> import tapejax as tf
        >>> tf.constant_initializer([1, 2, 3, 4])(shape=[2, 2], dtype=tf.float32).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value: {type(value).__name__}. Expected "
                "Python scalar, list or tuple of values, or numpy.ndarray."
            )
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        self._validate_kwargs(kwargs, support_partition=self.support_partition)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        return constant(self.value, dtype=dtype, shape=shape)

    def get_config(self):
        return {"value": self.value}


class RandomUniform(Initializer):
    """Makes tensors of uniform samples in ``[minval, maxval)``
    (``tf.random_uniform_initializer``); with a ``seed``, the same samples on every call.

    Args:
        minval: the lower bound (inclusive), a scalar.
        maxval: the upper bound (exclusive), a scalar.
        seed: a Python int, or None for fresh samples from the global random state.

    Example:
        >>> import tapejax as tf
        >>> init = tf.random_uniform_initializer(-1.0, 1.0, seed=3)
        >>> bool(tf.reduce_all(init([2, 3]) == init([2, 3])))
        True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating and not dtype.is_integer:
            raise ValueError(
                f"Argument `dtype` expected to be numeric or boolean. Received {dtype}."
            )
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        if self.seed is not None:
            return random_ops.stateless_uniform(
                shape, [self.seed, 0], self.minval, self.maxval, dtype
            )
        return random_ops.uniform(shape, self.minval, self.maxval, dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
    """Makes tensors of normal samples (``tf.random_normal_initializer``); with a
    ``seed``, the same samples on every call.

    Args:
        mean: the mean, a scalar.
        stddev: the standard deviation, a scalar.
        seed: a Python int, or None for fresh samples from the global random state.

    Example:
        >>> import tapejax as tf
        >>> tf.random_normal_initializer(stddev=2.0, seed=1)([3, 4]).shape
        TensorShape([3, 4])
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        self._validate_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise ValueError(
                f"Argument `dtype` is expected to be floating point. Received: {dtype}."
            )
        shape = kwargs.get(_PARTITION_SHAPE, shape)
        if self.seed is not None:
            return random_ops.stateless_normal(shape, [self.seed, 0], self.mean, self.stddev, dtype)
        return random_ops.normal(shape, self.mean, self.stddev, dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}
