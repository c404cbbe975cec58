"""``LinearOperatorAdjoint``: ``A^H`` of an operator, without computing it."""

from __future__ import annotations

from ..ops import linalg_ops, math_ops
from . import _composite, _util
from ._wrapper import OperatorWrapper

__all__ = ["LinearOperatorAdjoint"]


@_composite.make_composite_tensor
class LinearOperatorAdjoint(OperatorWrapper):
    """The adjoint ``A^H`` of an operator (``tf.linalg.LinearOperatorAdjoint``).

    Every method calls ``operator``'s with ``adjoint`` flipped.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
        >>> tf.linalg.LinearOperatorAdjoint(a).to_dense().numpy()
        array([[1., 3.],
               [2., 4.]], dtype=float32)
    """

    _relation = "adjoint"
    _name_suffix = "_adjoint"

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = _util.arguments(locals())
        super().__init__(operator, parameters, name, _util.hints_in(locals()))

    def _linop_adjoint(self):
        return self.operator

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
