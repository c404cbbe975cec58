"""Helpers the operators share: TF's ``linear_operator_util`` and ``property_hint_util``.

Shapes are always static in tapejax, so TF's dynamic-shape branches are gone; what stays
is conversion, broadcasting of batch dimensions, hint arithmetic and block splitting.
"""

from __future__ import annotations

import jax
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..module import Module
from ..ops import array_ops, join_split_ops, solver_ops
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ..tf_logging import logger


def static_value(x):
    """An argument as NumPy when it is known now (Python or NumPy data, a concrete Tensor),
    else None (a traced Tensor, a Variable, whose value can change).

    Unlike ``get_static_value`` it answers inside ``tapejax.function`` for arguments given
    as Python values (a ``num_rows`` of 3), which TF sees as constants there.
    """
    if isinstance(x, Tensor):
        v = x._value
        return None if isinstance(v, jax.core.Tracer) else np.asarray(v)
    if x is None or getattr(x, "_is_variable", False):
        return None
    if isinstance(x, (list, tuple)) and any(isinstance(e, Tensor) for e in x):
        return None
    return np.asarray(x)


def is_ref(x) -> bool:
    """A Variable, or a Module with a dtype and shape (another LinearOperator): kept as it is,
    so that its value is read anew by each op (TF's ``is_ref``)."""
    return getattr(x, "_is_variable", False) or (
        isinstance(x, Module) and hasattr(x, "dtype") and hasattr(x, "shape")
    )


def convert_nonref_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    if value is None:
        return None
    if is_ref(value):
        if dtype is None:
            return value
        want, got = dtypes.as_dtype(dtype).base_dtype, dtypes.as_dtype(value.dtype).base_dtype
        if want != got:
            raise TypeError(
                f"Argument `value` must be of dtype `{want.name}` Received: `{got.name}`."
            )
        return value
    return convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint, name=name)


def assert_not_ref_type(x, arg_name) -> None:
    if is_ref(x):
        raise TypeError(f"Argument {arg_name} cannot be reference type. Found: {type(x)}.")


def shape_tensor(shape, name=None) -> Tensor:
    """A shape as an int32 Tensor (an empty list too, which would be float32)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)) and not shape:
        return convert_to_tensor(np.zeros([0], np.int32), name=name)
    return convert_to_tensor(shape, name=name)


def check_dtype(arg, dtype) -> None:
    if arg.dtype.base_dtype != dtype:
        raise TypeError(
            f"Expected argument to have dtype {dtype}. Found: {arg.dtype} in tensor {arg}."
        )


def assert_dims_compatible(a, b) -> None:
    """TF's ``Dimension.assert_is_compatible_with`` for int-or-None dimensions."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


def dim_at(shape, index):
    """``tensor_shape.dimension_at_index``: None past the rank of an unknown shape."""
    return shape.dims[index] if shape.rank is not None else None


def warn_dense_default(
    what: str, cost: str = "  Requires conversion to a dense matrix and O(N^3) operations."
) -> None:
    """TF's log line when a generic, dense implementation runs."""
    logger.warning(f"Using (possibly slow) default implementation of {what}.{cost}")


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False):
    """``linalg.solve`` with the batch dimensions of ``matrix`` and ``rhs`` broadcast."""
    matrix = convert_to_tensor(matrix)
    rhs = convert_to_tensor(rhs, dtype=matrix.dtype)
    matrix, rhs, reshape_inv, still_need_to_transpose = _reshape_for_efficiency(
        matrix, rhs, adjoint_a=adjoint
    )
    matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
    solution = solver_ops.solve(matrix, rhs, adjoint=adjoint and still_need_to_transpose)
    return reshape_inv(solution)


def _reshape_for_efficiency(a, b, adjoint_a=False):
    """When ``b`` has more batch dimensions than ``a``, folds them into its columns so one
    factorization of ``a`` serves them all (TF's rule, which also decides when it pays)."""

    def identity(x):
        return x

    a_ndims, b_ndims = a.shape.rank, b.shape.rank
    if a_ndims >= b_ndims:
        return a, b, identity, True
    b_extra_ndims = b_ndims - a_ndims
    a_domain_sz = a.shape[-2 if adjoint_a else -1]
    b_eq_sz = b.shape[-1]
    b_extra_sz = int(np.prod(b.shape[:b_extra_ndims].as_list()))
    if b_extra_sz < 2 or a_domain_sz <= b_eq_sz:
        return a, b, identity, True
    from ..ops import linalg_ops

    if adjoint_a:
        a = linalg_ops.adjoint(a)
    b_extra_sh = b.shape.as_list()[:b_extra_ndims]
    b_main_sh = b.shape.as_list()[b_extra_ndims:]
    perm = np.concatenate((np.arange(b_extra_ndims, b_ndims), np.arange(0, b_extra_ndims)), 0)
    b_extra_on_end = array_ops.transpose(b, perm=perm.tolist())
    b_squashed_end = array_ops.reshape(b_extra_on_end, b_main_sh[:-1] + [-1])

    def reshape_inv(y):
        y_extra_shape = y.shape.as_list()[:-1] + [b_main_sh[-1]] + b_extra_sh
        y_extra_on_end = array_ops.reshape(y, y_extra_shape)
        return array_ops.transpose(y_extra_on_end, perm=np.argsort(perm).tolist())

    return a, b_squashed_end, reshape_inv, False


def broadcast_matrix_batch_dims(batch_matrices):
    """The matrices with their batch dimensions broadcast against each other."""
    batch_matrices = [convert_to_tensor(m) for m in batch_matrices]
    for m in batch_matrices:
        if m.shape.rank < 2:
            raise ValueError(
                f"Expected [batch] matrix to have at least two dimensions. Found: {m}."
            )
    if len(batch_matrices) < 2:
        return batch_matrices
    bcast = batch_matrices[0].shape[:-2]
    for m in batch_matrices[1:]:
        bcast = array_ops.broadcast_static_shape(bcast, m.shape[:-2])
    out = []
    for m in batch_matrices:
        if m.shape[:-2] != bcast:
            m = array_ops.broadcast_to(m, bcast.as_list() + m.shape.as_list()[-2:])
        out.append(m)
    return out


def broadcast_shapes(*shapes) -> TensorShape:
    """``common_shapes.broadcast_shape`` over several static shapes."""
    result = shapes[0]
    for s in shapes[1:]:
        result = array_ops.broadcast_static_shape(result, s)
    return result


# -- structure of compositions --------------------------------------------------------------------


def is_adjoint_pair(x, y) -> bool:
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def is_aat_form(operators) -> bool:
    """Whether ``operators`` read ``A1 A2 ... A2^H A1^H``."""
    operators = list(operators)
    if not operators:
        raise ValueError("AAT form is undefined for empty operators")
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


def use_operator_or_provided_hint_unless_contradicting(
    operator, hint_attr_name, provided_hint_value, message
):
    op_hint = getattr(operator, hint_attr_name)
    if op_hint is False and provided_hint_value:
        raise ValueError(message)
    if op_hint and provided_hint_value is False:
        raise ValueError(message)
    if op_hint or provided_hint_value:
        return True
    if op_hint is False or provided_hint_value is False:
        return False
    return None


def settled(given, value: bool, message: str) -> bool:
    """``value``, for a hint that the operator fixes: ``message`` when ``given`` (the
    user's hint) says the opposite."""
    if given is (not value):
        raise ValueError(message)
    return value


# -- hints of products (TF's property_hint_util) ----------------------------------------------


def combined_commuting_self_adjoint_hint(operator_a, operator_b):
    if operator_a.is_self_adjoint and operator_b.is_self_adjoint:
        return True
    if (operator_a.is_self_adjoint is True and operator_b.is_self_adjoint is False) or (
        operator_a.is_self_adjoint is False and operator_b.is_self_adjoint is True
    ):
        return False
    return None


def is_square(operator_a, operator_b):
    if operator_a.is_square and operator_b.is_square:
        return True
    if operator_a.is_square is False and operator_b.is_square is False:
        m, n = operator_a.range_dimension, operator_b.domain_dimension
        if m is not None and n is not None:
            return m == n
    if operator_a.is_square != operator_b.is_square and (
        operator_a.is_square is not None and operator_b.is_square is not None
    ):
        return False
    return None


def combined_commuting_positive_definite_hint(operator_a, operator_b):
    if (
        operator_a.is_positive_definite is True
        and operator_a.is_self_adjoint is True
        and operator_b.is_positive_definite is True
        and operator_b.is_self_adjoint is True
    ):
        return True
    return None


def combined_non_singular_hint(operator_a, operator_b):
    if operator_a.is_non_singular is False or operator_b.is_non_singular is False:
        return False
    return operator_a.is_non_singular and operator_b.is_non_singular


# -- blockwise arguments (block operators) -----------------------------------------------------------


def _is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def arg_is_blockwise(block_dimensions, arg, arg_split_dim) -> bool:
    """Whether ``arg`` is a list with one tensor per block (rather than one tensor)."""
    if not (isinstance(arg, (tuple, list)) and len(arg) == len(block_dimensions)):
        return False
    if not any(_is_nested(x) for x in arg):
        return True
    arg_dims = [convert_to_tensor(x).shape[arg_split_dim] for x in arg]
    self_dims = list(block_dimensions)
    if all(s is None for s in self_dims):
        if len(arg_dims) == 1:
            return False
        if any(d != arg_dims[0] for d in arg_dims):
            return True
        raise ValueError(
            "Parsing of the input structure is ambiguous. Please input a blockwise "
            "iterable of `Tensor`s or a single `Tensor`."
        )
    if all(s == d or s is None for s, d in zip(self_dims, arg_dims)):
        return True
    self_dim = sum(s for s in self_dims if s is not None)
    if all(d == arg_dims[0] for d in arg_dims) and arg_dims[0] >= self_dim:
        return False
    raise ValueError("Input dimension does not match operator dimension.")


def split_arg_into_blocks(block_dims, arg, axis=-1):
    return join_split_ops.split(arg, list(block_dims), axis=axis)


def invalid_argument(message: str) -> InvalidArgumentError:
    """TF's ``errors.InvalidArgumentError(node_def=None, op=None, message=...)``."""
    return InvalidArgumentError(None, None, message)


_HINTS = ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square")


def arguments(local_vars) -> dict:
    """A constructor's arguments, from its ``locals()`` at its start: TF's ``parameters``."""
    return {k: v for k, v in local_vars.items() if k not in ("self", "__class__")}


def hints_in(local_vars) -> dict:
    """The four hint arguments as a constructor has settled them (from its ``locals()``)."""
    return {k: local_vars[k] for k in _HINTS}


def product_of(operators, method: str):
    """``op1.method() * op2.method() * ...`` (determinants of blocks and factors)."""
    result = getattr(operators[0], method)()
    for operator in operators[1:]:
        result *= getattr(operator, method)()
    return result


def sum_of(operators, method: str):
    """``op1.method() + op2.method() + ...`` (their log-determinants, traces)."""
    result = getattr(operators[0], method)()
    for operator in operators[1:]:
        result += getattr(operator, method)()
    return result
