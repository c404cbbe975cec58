"""Shape arguments of the operators without a tensor to take a shape from (Identity, Zeros).

They are stored as int32 Tensors, as TF stores them, and must be known now: a ``num_rows``
traced inside ``tapejax.function`` cannot give the static shape XLA needs.
"""

from __future__ import annotations

import numpy as np

from ..asserts import assert_rank
from ..ops import array_ops, creation_ops
from . import _checks, _util


def shape_argument(value, what: str, arg_name: str, assert_proper_shapes: bool):
    """``(tensor, static NumPy value)`` of a shape argument, with TF's checks.

    ``arg_name`` is ``num_rows``, ``num_columns`` (scalars) or ``batch_shape`` (a vector).
    """
    _util.assert_not_ref_type(value, arg_name)
    tensor = _util.shape_tensor(value, name=arg_name)
    # From the argument itself: inside tapejax.function even a constant tensor is traced.
    static = _util.static_value(value)
    if static is not None:
        static = static.astype(tensor.dtype.as_numpy_dtype)
    if static is None:
        raise NotImplementedError(
            f"{what}: `{arg_name}` must be known while tracing (a Python value or a constant "
            "tensor, not a tapejax.function argument): XLA programs have static shapes."
        )
    rank, kind = (1, "1-D") if arg_name == "batch_shape" else (0, "0-D")
    if assert_proper_shapes:
        assert_rank(tensor, rank, message=f"Argument {arg_name} must be a {kind} Tensor.")
        _checks.assert_non_negative(tensor, message=f"Argument {arg_name} must be non-negative.")
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument {arg_name} must be integer type.  Found: {tensor}")
    if static.ndim != rank:
        raise ValueError(f"Argument {arg_name} must be a {kind} Tensor.  Found: {static}")
    if np.any(static < 0):
        sep = "" if arg_name == "batch_shape" else " "
        raise ValueError(f"Argument {arg_name} must be non-negative.  Found:{sep}{static}")
    return tensor, static


def broadcast_to_batch(operator, x):
    """``x`` broadcast against the operator's ``batch_shape`` argument, if it has one."""
    if operator._batch_shape_arg is None:
        return x
    special_shape = operator.batch_shape.concatenate([1, 1])
    if array_ops.broadcast_static_shape(x.shape, special_shape) == x.shape:
        return x
    return x + creation_ops.zeros(shape=special_shape.as_list(), dtype=operator.dtype)


def min_matrix_dim(operator):
    domain_dim, range_dim = operator.domain_dimension, operator.range_dimension
    if domain_dim is None or range_dim is None:
        return None
    return min(domain_dim, range_dim)


def diag_of(operator, value_fn):
    """``value_fn(shape, dtype)`` with the shape of the operator's diagonal."""
    shape = operator.batch_shape.concatenate([min_matrix_dim(operator)])
    return value_fn(shape=shape.as_list(), dtype=operator.dtype)


def batch_of(operator, value_fn):
    """``value_fn(shape, dtype)`` with the operator's batch shape."""
    return value_fn(shape=operator.batch_shape.as_list(), dtype=operator.dtype)


def batch_sliced(operator, slices):
    """``operator[slices]`` for an operator whose batch is only its ``batch_shape`` argument."""
    if operator._batch_shape_arg is None:  # TF slices ones(None), which fails so
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
            "to a Tensor."
        )
    batch = creation_ops.ones(operator._batch_shape_static.tolist())[slices]
    return type(operator)(**dict(operator.parameters, batch_shape=batch.shape.as_list()))
