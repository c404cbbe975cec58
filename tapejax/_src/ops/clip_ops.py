"""Norm clipping: ``clip_by_norm`` and ``clip_by_global_norm``, computed with TF's own
formulas, op for op, so that values and gradients (at a zero norm, at the clipping
threshold) are TF's. (``clip_by_value`` is elementwise and lives in ``math_ops``.)
"""

from __future__ import annotations

import collections.abc

import numpy as np

from ..conversion import convert_to_tensor
from ._array_common import identity
from ._helpers import to_tensor
from .join_split_ops import stack
from .selection_ops import where

# -- norm clipping (TF's formulas, op for op, so that values and gradients are TF's) --------


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``
    (``tf.clip_by_norm``), computed with TF's own formula: gradients, including those at a
    zero norm and where the norm equals ``clip_norm``, are TF's.

    >>> import tapejax as tf
    >>> tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    from .math_ops import cast, maximum, sqrt
    from .reduction_ops import reduce_sum

    values = to_tensor(t)
    if np.isscalar(clip_norm):
        clip_norm = max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    from .creation_ops import ones_like

    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    return identity(intermediate / maximum(l2norm, clip_norm))


def _global_norm(values):
    from .loss_ops import l2_loss
    from .math_ops import sqrt
    from .reduction_ops import reduce_sum

    half = reduce_sum(stack([l2_loss(v) for v in values if v is not None]))
    return sqrt(half * convert_to_tensor(2.0, dtype=half.dtype))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Rescales a list of tensors so that their joint L2 norm is at most ``clip_norm``
    (``tf.clip_by_global_norm``); returns ``(clipped list, global norm)``. ``None``
    entries stay ``None``; an infinite norm gives NaNs, as in TF.

    >>> import tapejax as tf
    >>> clipped, norm = tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None], 1.0)
    >>> norm.numpy(), clipped[1]
    (np.float32(5.0), None)
    """
    from .math_ops import cast, minimum

    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    values = [None if v is None else to_tensor(v) for v in t_list]
    if use_norm is None:
        use_norm = _global_norm(values)
    use_norm = to_tensor(use_norm)
    one = convert_to_tensor(1.0, dtype=use_norm.dtype)
    scale = clip_norm * minimum(1.0 / use_norm, one / clip_norm)
    scale = scale + (use_norm - use_norm)
    clipped = [None if v is None else identity(v * cast(scale, v.dtype)) for v in values]
    return clipped, use_norm
