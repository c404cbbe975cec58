"""``LinearOperatorAdjoint``: ``A^H`` of an operator, without computing it."""

from __future__ import annotations

from ..ops import linalg_ops, math_ops
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorAdjoint"]


def wrapped_hints(operator, hints: dict, relation: str) -> dict:
    """The hints of an operator built from ``operator`` that shares them all: each hint is
    the operator's or the one given, which must not contradict it."""
    combine = _util.use_operator_or_provided_hint_unless_contradicting
    words = {
        "is_square": "square",
        "is_non_singular": "non-singular",
        "is_self_adjoint": "self-adjoint",
        "is_positive_definite": "positive-definite",
    }
    return {
        hint: combine(
            operator,
            hint,
            hints[hint],
            f"An operator is {word} if and only if its {relation} is {word}.",
        )
        for hint, word in words.items()
    }


@_composite.make_composite_tensor
class LinearOperatorAdjoint(LinearOperator):
    """The adjoint ``A^H`` of an operator (``tf.linalg.LinearOperatorAdjoint``).

    Every method calls ``operator``'s with ``adjoint`` flipped.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
        >>> tf.linalg.LinearOperatorAdjoint(a).to_dense().numpy()
        array([[1., 3.],
               [2., 4.]], dtype=float32)
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
        hints = wrapped_hints(
            operator,
            dict(
                is_square=is_square,
                is_non_singular=is_non_singular,
                is_self_adjoint=is_self_adjoint,
                is_positive_definite=is_positive_definite,
            ),
            "adjoint",
        )
        if name is None:
            name = operator.name + "_adjoint"
        super().__init__(dtype=operator.dtype, parameters=parameters, name=name, **hints)

    @property
    def operator(self):
        return self._operator

    def _linop_adjoint(self):
        return self.operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _shape(self):
        shape = self.operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self.operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        if self.is_self_adjoint:
            return self.operator.determinant()
        return math_ops.conj(self.operator.determinant())

    def _log_abs_determinant(self):
        return self.operator.log_abs_determinant()

    def _trace(self):
        if self.is_self_adjoint:
            return self.operator.trace()
        return math_ops.conj(self.operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self.operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self.operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self.operator.to_dense()
        return linalg_ops.adjoint(self.operator.to_dense())

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def _eigvals(self):
        eigvals = self.operator.eigvals()
        if not self.operator.is_self_adjoint:
            eigvals = math_ops.conj(eigvals)
        return eigvals

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}
