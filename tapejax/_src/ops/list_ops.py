"""Ops over a Python list of tensors: ``identity_n`` and ``shape_n`` (one result per
input) and ``parallel_stack``, with TF's conversions and checks."""

from __future__ import annotations

import jax.numpy as jnp

from .. import dtypes, execution
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


# TF registers no gradient for ParallelConcat (its tape raises LookupError): None here.
_parallel_stack_op = Op("ParallelConcat", lambda *xs: jnp.stack(xs), differentiable=False)


def parallel_stack(values, name="parallel_stack"):
    """Stacks tensors of one shape and dtype along a new first axis
    (``tf.parallel_stack``).

    As TF, only inside ``tapejax.function``: eagerly it raises ``RuntimeError``. Unlike
    ``stack``, it has no gradient (TF registers none).

    Example:
        >>> import tapejax as tf
        >>> f = tf.function(lambda a, b: tf.parallel_stack([a, b]))
        >>> f(tf.constant([1.0]), tf.constant([2.0])).shape
        TensorShape([2, 1])
    """
    if execution.executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    ts = [to_tensor(v) for v in values]
    kinds = [t.dtype.name for t in ts]
    if len(set(kinds)) > 1:
        raise TypeError(
            "Tensors in list passed to 'values' of 'ParallelConcat' Op have types "
            f"[{', '.join(kinds)}] that don't all match."
        )
    want = (1,) + ts[0]._v.shape
    for t in ts[1:]:
        got = (1,) + t._v.shape
        if len(got) != len(want):
            raise ValueError(f"Shapes must be equal rank, but are {len(got)} and {len(want)}")
        for d, (a, b) in enumerate(zip(got, want)):
            if a != b:
                raise ValueError(
                    f"Dimension {d} in both shapes must be equal, but are {a} and {b}. "
                    f"Shapes are [{','.join(map(str, got))}] and [{','.join(map(str, want))}]."
                )
    return apply(_parallel_stack_op, tuple(ts))
