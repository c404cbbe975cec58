"""``LinearOperatorFullMatrix``: an operator holding its dense matrix."""

from __future__ import annotations

from .. import dtypes
from ..conversion import convert_to_tensor
from ..ops import array_ops, linalg_ops
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorFullMatrix"]

_ALLOWED_DTYPES = [
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.complex64,
    dtypes.complex128,
]


@_composite.make_composite_tensor
class LinearOperatorFullMatrix(LinearOperator):
    """A [batch] dense matrix ``[B1, ..., Bb, M, N]`` as an operator
    (``tf.linalg.LinearOperatorFullMatrix``).

    ``solve`` and the determinants factor the matrix (Cholesky when hinted self-adjoint
    positive definite, else LU).

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
        >>> op.matvec([1.0, 1.0]).numpy(), float(op.determinant())
        (array([3., 7.], dtype=float32), -2.0)
    """

    def __init__(
        self,
        matrix,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorFullMatrix",
    ):
        parameters = _util.arguments(locals())
        self._matrix = _util.convert_nonref_to_tensor(matrix, name="matrix")
        self._check_matrix(self._matrix)
        super().__init__(
            dtype=self._matrix.dtype, parameters=parameters, name=name, **_util.hints_in(locals())
        )

    def _check_matrix(self, matrix):
        matrix = convert_to_tensor(matrix, name="matrix")
        if matrix.dtype not in _ALLOWED_DTYPES:
            raise TypeError(
                f"Argument `matrix` must have dtype in {_ALLOWED_DTYPES}. "
                f"Received: {matrix.dtype!s}."
            )
        if matrix.shape.rank is not None and matrix.shape.rank < 2:
            raise ValueError(
                f"Argument `matrix` must have at least 2 dimensions. Received: {matrix}."
            )

    @property
    def matrix(self):
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return linalg_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return self._matrix

    @property
    def _composite_tensor_fields(self):
        return ("matrix",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"matrix": 2}
