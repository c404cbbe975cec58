"""``LinearOperatorLowerTriangular``: the lower triangle of a square matrix."""

from __future__ import annotations

from ..ops import array_ops, linalg_ops, math_ops, reduction_ops, solver_ops
from . import _checks, _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorLowerTriangular"]


@_composite.make_composite_tensor
class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of a [batch] square matrix (``tf.linalg.LinearOperatorLowerTriangular``).

    Entries above the diagonal of ``tril`` are ignored. Solves are triangular solves, the
    determinant is the product of the diagonal.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorLowerTriangular([[2.0, 9.0], [1.0, 4.0]])
        >>> op.to_dense().numpy(), float(op.determinant())
        (array([[2., 0.],
               [1., 4.]], dtype=float32), 8.0)
    """

    def __init__(
        self,
        tril,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowerTriangular",
    ):
        parameters = _util.arguments(locals())
        is_square = _util.settled(
            is_square, True, "Only square lower triangular operators supported at this time."
        )
        self._tril = _util.convert_nonref_to_tensor(tril, name="tril")
        self._check_tril(self._tril)
        super().__init__(
            dtype=self._tril.dtype, parameters=parameters, name=name, **_util.hints_in(locals())
        )

    @property
    def tril(self):
        return self._tril

    def _check_tril(self, tril):
        if tril.shape.rank is not None and tril.shape.rank < 2:
            raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {tril}")

    def _get_tril(self):
        return linalg_ops.band_part(self._tril, -1, 0)

    def _get_diag(self):
        return linalg_ops.diag_part(self._tril)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _assert_non_singular(self):
        return _checks.assert_no_entries_with_modulus_zero(
            self._get_diag(), message="Singular operator:  Diagonal contained zero values."
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return linalg_ops.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_check_diag"):  # a LinearOperatorDiag
            return LinearOperatorLowerTriangular(
                tril=left_operator.to_dense() * right_operator.diag,
                is_non_singular=_util.combined_non_singular_hint(right_operator, left_operator),
                is_self_adjoint=_util.combined_commuting_self_adjoint_hint(
                    right_operator, left_operator
                ),
                is_positive_definite=None,
                is_square=True,
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _determinant(self):
        return reduction_ops.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return reduction_ops.reduce_sum(math_ops.log(math_ops.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return solver_ops.triangular_solve(self._get_tril(), rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()

    @property
    def _composite_tensor_fields(self):
        return ("tril",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"tril": 2}
