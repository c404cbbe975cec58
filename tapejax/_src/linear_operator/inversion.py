"""``LinearOperatorInversion``: ``A^-1`` of an operator, products being its solves."""

from __future__ import annotations

from . import _composite
from .adjoint import wrapped_hints
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorInversion"]


@_composite.make_composite_tensor
class LinearOperatorInversion(LinearOperator):
    """The inverse ``A^-1`` of a square operator (``tf.linalg.LinearOperatorInversion``).

    ``matmul`` calls ``operator.solve`` and ``solve`` calls ``operator.matmul``.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorDiag([2.0, 4.0])
        >>> tf.linalg.LinearOperatorInversion(a).matvec([1.0, 1.0]).numpy()
        array([0.5 , 0.25], dtype=float32)
    """

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = dict(
            operator=operator,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint "
                "`is_non_singular` equal to `True` or `None`. Found `operator.is_non_singular`: "
                f"{operator.is_non_singular}, `is_non_singular`: {is_non_singular}."
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint "
                "`is_square` equal to `True` or `None`. Found `operator.is_square`: "
                f"{operator.is_square}, `is_square`: {is_square}."
            )
        hints = wrapped_hints(
            operator,
            dict(
                is_square=is_square,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
            ),
            "inverse",
        )
        if name is None:
            name = operator.name + "_inv"
        super().__init__(dtype=operator.dtype, parameters=parameters, name=name, **hints)

    @property
    def operator(self):
        return self._operator

    def _linop_inverse(self):
        return self.operator

    def _linop_solve(self, left_operator, right_operator):
        return left_operator.operator.matmul(right_operator)

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        return self.operator.shape

    def _shape_tensor(self):
        return self.operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self.operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self.operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1.0 / self.operator.eigvals()

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}
