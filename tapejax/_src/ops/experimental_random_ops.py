"""``tf.nn.experimental``'s dropouts and ``tf.random.experimental``'s shuffles.

``general_dropout`` is TF's ``_dropout`` with the caller's uniform sampler, so a sampler
that returns fixed numbers gives TF's exact values; ``stateless_dropout`` samples with
``stateless_uniform`` (threefry, not TF's Philox: the same seed gives the same mask, not
TF's mask). ``index_shuffle`` is TF's composition over ``random_index_shuffle``, whose
values are TF's; ``stateless_shuffle`` permutes with threefry. This module must never hold
random state: every draw here is stateless or the caller's.
"""

from __future__ import annotations

import functools

from ..dispatch import apply
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import to_tensor
from .array_ops import shape as _shape_of
from .index_shuffle_ops import random_index_shuffle
from .pad_ops import pad
from .random_ops import _checked_seed, dropout_with, stateless_uniform
from .random_samplers import _Sampler, _shuffle_fn

__all__ = ["general_dropout", "index_shuffle", "stateless_dropout", "stateless_shuffle"]

# TF pads a ``[2]`` seed to the ``[3]`` seed of ``RandomIndexShuffle`` with this number.
_INDEX_SHUFFLE_SEED_PAD = 498247692


def _noise_shape(x: Tensor, noise_shape):
    """What TF's ``_get_noise_shape`` hands the sampler: ``shape(x)`` (an int32 tensor) by
    default, a ``TensorShape`` with ``x``'s dims filled in for ``None`` where it can."""
    if noise_shape is None:
        return _shape_of(x)
    try:
        dims = TensorShape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if dims.rank is None or dims.rank != x._v.ndim:
        return noise_shape
    return TensorShape([x._v.shape[i] if d is None else d for i, d in enumerate(dims.as_list())])


def _dropout(x, rate, noise_shape, uniform_sampler):
    """TF's ``nn_ops._dropout`` with ``uniform_sampler(shape=..., dtype=...)`` drawing."""
    return dropout_with(
        x,
        rate,
        lambda x: uniform_sampler(shape=_noise_shape(x, noise_shape), dtype=x.dtype),
    )


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Zeroes elements with probability ``rate``, the rest scaled by ``1 / (1 - rate)``,
    the mask determined by ``seed`` (``tf.nn.experimental.stateless_dropout``).

    Args:
      x: a floating point tensor.
      rate: a Python float in ``[0, 1)`` or a scalar tensor of ``x``'s dtype: the
        probability that each element is dropped.
      seed: an int32 or int64 tensor of shape ``[2]``.
      rng_alg: accepted and ignored (tapejax's stateless numbers are threefry's).
      noise_shape: the shape of the keep/drop flags, broadcast against ``x``'s shape.
      name: unused (TF's op name).

    Returns:
      A tensor of ``x``'s shape and dtype.

    Raises:
      ValueError: ``rate`` outside ``[0, 1)``, a non-float ``x``, or a ``rate`` tensor of
        another dtype or rank (TF's texts).
      InvalidArgumentError: a ``seed`` of another shape or dtype (TF's text).

    Example:
        >>> import tapejax as tf
        >>> y = tf.nn.experimental.stateless_dropout(tf.ones([2, 3]), 0.5, seed=[1, 0])
        >>> set(y.numpy().ravel().tolist()) <= {0.0, 2.0}
        True

    .. warning::
       The mask is drawn by ``tapejax.random.stateless_uniform`` (threefry), so a seed
       gives another mask than TF's Philox stream.
    """
    sampler = functools.partial(stateless_uniform, seed=seed, alg=rng_alg)
    return _dropout(x, rate, noise_shape, sampler)


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout with the caller's ``uniform_sampler`` (``tf.nn.experimental.general_dropout``).

    Args:
      x: a floating point tensor.
      rate: a Python float in ``[0, 1)`` or a scalar tensor of ``x``'s dtype.
      uniform_sampler: called as ``uniform_sampler(shape=..., dtype=x.dtype)``, as TF
        calls it (``shape`` is ``tf.shape(x)`` without ``noise_shape``); returns numbers
        in ``[0, 1)``. An element is kept where its number is ``>= rate``.
      noise_shape: the shape of the keep/drop flags, broadcast against ``x``'s shape.
      name: unused (TF's op name).

    Returns:
      A tensor of ``x``'s shape and dtype; its gradient is the keep mask times the scale.

    Raises:
      ValueError: ``rate`` outside ``[0, 1)``, a non-float ``x``, or a ``rate`` tensor of
        another dtype or rank (TF's texts).

    Example:
        >>> import tapejax as tf
        >>> fixed = lambda shape, dtype: tf.constant([0.1, 0.7, 0.3], dtype)
        >>> tf.nn.experimental.general_dropout(tf.ones([3]), 0.5, fixed).numpy().tolist()
        [0.0, 2.0, 0.0]
    """
    return _dropout(x, rate, noise_shape, uniform_sampler)


def index_shuffle(index, seed, max_index):
    """The position of ``index`` in the permutation of ``[0, max_index]`` that ``seed``
    picks (``tf.random.experimental.index_shuffle``): TF's values exactly.

    Args:
      index: an int32, uint32, int64 or uint64 scalar or vector in ``[0, max_index]``.
      seed: shape ``[2]``, or ``[n, 2]`` for one permutation per output.
      max_index: the inclusive upper bound, of ``index``'s dtype.

    Returns:
      A tensor of ``index``'s dtype: a scalar when all inputs are (``seed`` of shape
      ``[2]``), else a vector.

    Raises:
      InvalidArgumentError: TF's errors of ``tf.random_index_shuffle``.

    Example:
        >>> import tapejax as tf
        >>> tf.random.experimental.index_shuffle(tf.range(10), [5, 8], 9).numpy().tolist()
        [3, 8, 0, 1, 2, 7, 6, 9, 4, 5]
    """
    seed = to_tensor(seed)
    paddings = [[1, 0]] + (seed._v.ndim - 1) * [[0, 0]]
    seed = pad(seed, paddings, constant_values=_INDEX_SHUFFLE_SEED_PAD)
    return random_index_shuffle(index, seed=seed, max_index=max_index, rounds=4)


_stateless_shuffle_sampler = _Sampler("RandomShuffle", _shuffle_fn, "StatelessShuffle")


def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """``value`` permuted along its first dimension, the permutation determined by ``seed``
    (``tf.random.experimental.stateless_shuffle``; no gradient, as TF's).

    Args:
      value: a tensor; a scalar is returned as is.
      seed: an int32 or int64 tensor of shape ``[2]``.
      alg: accepted and ignored (threefry).
      name: unused (TF's op name).

    Returns:
      A tensor of ``value``'s shape and dtype.

    Raises:
      InvalidArgumentError: a ``seed`` of another shape or dtype (TF's text).

    Example:
        >>> import tapejax as tf
        >>> v = tf.random.experimental.stateless_shuffle(tf.range(5), seed=[8, 9])
        >>> sorted(v.numpy().tolist())
        [0, 1, 2, 3, 4]

    .. warning::
       The permutation is threefry's, not the one TF's Philox stream gives for ``seed``.
    """
    s = _checked_seed(seed)
    return apply(_stateless_shuffle_sampler.stateless, (s, to_tensor(value)), ())
