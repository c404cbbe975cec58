"""Ops over a Python list of tensors with one result per input: ``identity_n`` and
``shape_n``, with TF's conversions and checks."""

from __future__ import annotations

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import to_tensor
from .array_ops import _out_type, shape
from .join_split_ops import _same_dtype

_identity_n_op = Op("IdentityN", lambda *xs: xs, multiple_outputs=True)


def identity_n(input, name=None):  # noqa: A002 - TF's name
    """A new tensor for each of ``input``'s, with the same values (``tf.identity_n``); the
    inputs may differ in dtype and shape, and the gradient passes through each.

    Example:
        >>> import tapejax as tf
        >>> a, b = tf.identity_n([tf.constant([1.0]), 2])
        >>> b.numpy()
        np.int32(2)
    """
    ts = [to_tensor(x) for x in input]
    if not ts:
        raise InvalidArgumentError(
            None, None, "Length for attr 'T' of 0 must be at least minimum 1 [Op:IdentityN]"
        )
    return list(apply(_identity_n_op, tuple(ts)))


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """The shape of each tensor in ``input``, all of one dtype (``tf.shape_n``).

    Args:
        input: a list of at least one tensor, all of the same dtype.
        out_type: int32 (the default) or int64.
        name: ignored (TF's op name).

    Returns:
        A list of 1-D ``out_type`` tensors.

    Example:
        >>> import tapejax as tf
        >>> [s.numpy().tolist() for s in tf.shape_n([tf.ones([1, 2]), tf.ones([3])])]
        [[1, 2], [3]]
    """
    values = list(input)
    if not values:
        raise InvalidArgumentError(
            None, None, "Value for attr 'N' of 0 must be at least minimum 1 [Op:ShapeN]"
        )
    dt = _out_type(out_type, "ShapeN")
    return [shape(t, dt) for t in _same_dtype(values, "ShapeN")]
