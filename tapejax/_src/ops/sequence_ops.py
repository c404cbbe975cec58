"""The ``tf.math`` ops that take a list of tensors or a whole sequence rather than working
elementwise: sums of a list (``add_n``, ``accumulate_n``), a polynomial from its list of
coefficients (``polyval``), and the order of a flattened sequence (``is_non_decreasing``,
``is_strictly_increasing``, ``invert_permutation``), with TF's checks and errors.

``polyval`` is built on ``math_ops``' ``add`` and ``multiply``; the order ops are not
differentiable, as in TF.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from .. import dtypes, tensor_shape
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ._helpers import dtype_mismatch, require, tf_type_name, to_tensor
from .math_ops import NUMERIC, _concrete, add, multiply

_add_n_op = Op("AddN", lambda *xs: functools.reduce(jnp.add, xs))


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype (``tf.math.add_n``)."""
    if isinstance(inputs, Tensor) or getattr(inputs, "_is_variable", False):
        inputs = list(to_tensor(inputs))
    if not inputs:
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same "
            "dtype and shape."
        )
    first = to_tensor(inputs[0])
    ts = [first] + [
        to_tensor(x)
        if (type(x) is Tensor or getattr(x, "_is_variable", False))
        else convert_to_tensor(x, dtype=first.dtype)
        for x in inputs[1:]
    ]
    for i, t in enumerate(ts):
        if t._v.dtype != first._v.dtype:
            raise dtype_mismatch("AddN", i, first._v.dtype, t._v.dtype)
        if t._v.shape != first._v.shape:
            raise InvalidArgumentError(
                None,
                None,
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: [{','.join(map(str, first._v.shape))}] != input {i}: "
                f"[{','.join(map(str, t._v.shape))}] [Op:AddN]",
            )
    if len(ts) == 1:
        from .array_ops import identity

        return identity(first)
    require(first, NUMERIC, "AddN")
    return apply(_add_n_op, tuple(ts))


def polyval(coeffs, x, name=None):
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (``tf.math.polyval``)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = to_tensor(x)
    if not coeffs:
        return wrap(jnp.zeros_like(x._value))
    coeffs = [to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = add(c, multiply(p, x))
    return p


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Sums a list of tensors (``tf.math.accumulate_n``, deprecated in TF: ``add_n``)."""
    error = ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise error
    ts = [to_tensor(t) for t in inputs]
    if any(t._v.dtype != ts[0]._v.dtype for t in ts):
        raise error
    merged = None if shape is None else tensor_shape.as_shape(shape)
    for t in ts:
        merged = t.shape if merged is None else merged.merge_with(t.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != ts[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {dtypes.as_dtype(tensor_dtype)}, but `input` is of "
            f"type {ts[0].dtype}. These must be equal. Try casting the input to the desired type."
        )
    if len(ts) == 1:
        return ts[0]
    return add_n(ts)


_monotonic_op = Op(
    "IsMonotonic",
    lambda x, *, strict: jnp.all((x[1:] > x[:-1]) if strict else (x[1:] >= x[:-1])),
    differentiable=False,
)


def _monotonic(x, strict: bool):
    x = to_tensor(x)
    if not x.dtype.is_numeric:
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    require(x, "fiu", "Greater" if strict else "GreaterEqual")  # TF compares neighbours
    flat = wrap(x._value.reshape(-1))
    return apply(_monotonic_op, (flat,), (("strict", strict),))


def is_non_decreasing(x, name=None):
    """Whether ``x`` (flattened) satisfies ``x[i] <= x[i+1]`` everywhere (``tf.math.is_non_decreasing``)."""
    return _monotonic(x, False)


def is_strictly_increasing(x, name=None):
    """Whether ``x`` (flattened) satisfies ``x[i] < x[i+1]`` everywhere (``tf.math.is_strictly_increasing``)."""
    return _monotonic(x, True)


_invert_permutation_op = Op(
    "InvertPermutation",
    lambda x: jnp.zeros_like(x).at[x].set(jnp.arange(x.shape[0], dtype=x.dtype)),
    differentiable=False,
)


def invert_permutation(x, name=None):
    """The inverse permutation: ``y[x[i]] = i`` (``tf.math.invert_permutation``)."""
    x = to_tensor(x)
    name_ = tf_type_name(x._v.dtype)
    if name_ not in ("int32", "int64"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {name_} is not in the list of allowed values: int32, int64 "
            "[Op:InvertPermutation]",
        )
    if x._v.ndim != 1:
        raise InvalidArgumentError(
            None,
            None,
            "invert_permutation expects a 1D vector. [Op:InvertPermutation]",
        )
    v = _concrete(x)
    if v is not None:
        n = v.shape[0]
        seen = np.zeros(n, bool)
        for d in v.tolist():
            if not 0 <= d < n:
                raise InvalidArgumentError(
                    None, None, f"{d} is not between 0 and {n} [Op:InvertPermutation]"
                )
            if seen[d]:
                raise InvalidArgumentError(
                    None, None, f"{d} is duplicated in the input. [Op:InvertPermutation]"
                )
            seen[d] = True
    return apply(_invert_permutation_op, (x,))
