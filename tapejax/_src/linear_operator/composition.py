"""``LinearOperatorComposition``: the product ``A1 A2 ... An`` of operators, kept as factors."""

from __future__ import annotations

import numpy as np

from ..ops import array_ops, decomposition_ops, math_ops
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorComposition"]


def assert_proper_iterable(values) -> None:
    """TF's ``check_ops.assert_proper_iterable``: a list-like, not a tensor or a string."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def check_operator_list(
    operators, empty_message="Expected a non-empty list of operators. Found: {}"
):
    """The operators as a non-empty list (TF's checks and texts)."""
    assert_proper_iterable(operators)
    operators = list(operators)
    if not operators:
        raise ValueError(empty_message.format(operators))
    return operators


def check_same_dtype(operators):
    dtype = operators[0].dtype
    for operator in operators:
        if operator.dtype != dtype:
            name_type = (str((o.name, o.dtype)) for o in operators)
            found = "   ".join(name_type)
            raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
    return dtype


def all_hint(operators, hint: str, given, message: str):
    """``True`` when every operator has ``hint``; a ``False`` given then is an error."""
    if all(getattr(operator, hint) for operator in operators):
        if given is False:
            raise ValueError(message)
        return True
    return given


@_composite.make_composite_tensor
class LinearOperatorComposition(LinearOperator):
    """The product ``A1 A2 ... An`` of operators (``tf.linalg.LinearOperatorComposition``).

    Products apply the factors right to left, solves left to right; determinants multiply.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorDiag([2.0, 3.0])
        >>> b = tf.linalg.LinearOperatorFullMatrix([[1.0, 1.0], [0.0, 1.0]])
        >>> ab = tf.linalg.LinearOperatorComposition([a, b])
        >>> ab.to_dense().numpy(), ab.name
        (array([[2., 2.],
               [0., 3.]], dtype=float32), 'LinearOperatorDiag_o_LinearOperatorFullMatrix')
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = _util.arguments(locals())
        operators = check_operator_list(operators)
        self._operators = operators
        dtype = check_same_dtype(operators)
        is_non_singular = all_hint(
            operators,
            "is_non_singular",
            is_non_singular,
            "The composition of non-singular operators is always non-singular.",
        )
        if _composition_must_be_self_adjoint(operators):
            is_self_adjoint = _util.settled(
                is_self_adjoint,
                True,
                "The composition was determined to be self-adjoint but user provided "
                "incorrect `False` hint.",
            )
        if _util.is_aat_form(operators):
            is_square = _util.settled(
                is_square,
                True,
                "The composition was determined have the form A @ A.H, hence it must be "
                "square. The user provided an incorrect `False` hint.",
            )
            if is_non_singular:
                is_positive_definite = _util.settled(
                    is_positive_definite,
                    True,
                    "The composition was determined to be non-singular and have the form "
                    "A @ A.H, hence it must be positive-definite. The user provided an "
                    "incorrect `False` hint.",
                )
        if name is None:
            name = "_o_".join(operator.name for operator in operators)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        domain_dimension = self.operators[0].domain_dimension
        for operator in self.operators[1:]:
            _util.assert_dims_compatible(domain_dimension, operator.range_dimension)
            domain_dimension = operator.domain_dimension
        matrix_shape = TensorShape(
            [self.operators[0].range_dimension, self.operators[-1].domain_dimension]
        )
        batch_shape = _util.broadcast_shapes(*(op.batch_shape for op in self.operators))
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _linop_cholesky(self):
        from .lower_triangular import LinearOperatorLowerTriangular

        operators = self.operators
        is_llt = (
            len(operators) == 2
            and _util.is_aat_form(operators)
            and isinstance(operators[0], LinearOperatorLowerTriangular)
        )
        if not is_llt:
            return LinearOperatorLowerTriangular(
                decomposition_ops.cholesky(self.to_dense()),
                is_non_singular=True,
                is_self_adjoint=False,
                is_square=True,
            )
        left_op = operators[0]
        if left_op.is_positive_definite:
            return left_op
        # Flips the signs of columns so that the diagonal is positive.
        diag_sign = array_ops.expand_dims(math_ops.sign(left_op.diag_part()), axis=-2)
        return LinearOperatorLowerTriangular(
            tril=left_op.tril / diag_sign,
            is_non_singular=left_op.is_non_singular,
            is_self_adjoint=left_op.is_self_adjoint,
            is_positive_definite=True if left_op.is_positive_definite else None,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self.operators if adjoint else list(reversed(self.operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        return _util.product_of(self.operators, "determinant")

    def _log_abs_determinant(self):
        return _util.sum_of(self.operators, "log_abs_determinant")

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self.operators)) if adjoint else self.operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _assert_non_singular(self):
        if all(operator.is_square for operator in self.operators):
            for operator in self.operators:
                operator.assert_non_singular()
            return None
        return super()._assert_non_singular()

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}


def _composition_must_be_self_adjoint(operators) -> bool:
    if len(operators) == 1 and operators[0].is_self_adjoint:
        return True
    return _util.is_aat_form(operators)
