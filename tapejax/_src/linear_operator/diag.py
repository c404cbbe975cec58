"""``LinearOperatorDiag``: a [batch] diagonal matrix held by its diagonal."""

from __future__ import annotations

from ..conversion import convert_to_tensor
from ..ops import array_ops, linalg_ops, math_ops, reduction_ops
from . import _checks, _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorDiag"]


def _diag_hints(left_operator, right_operator) -> dict:
    """The hints of a product (or solve) of commuting diagonal-like operators."""
    return dict(
        is_non_singular=_util.combined_non_singular_hint(left_operator, right_operator),
        is_self_adjoint=_util.combined_commuting_self_adjoint_hint(left_operator, right_operator),
        is_positive_definite=_util.combined_commuting_positive_definite_hint(
            left_operator, right_operator
        ),
        is_square=True,
    )


@_composite.make_composite_tensor
class LinearOperatorDiag(LinearOperator):
    """A [batch] square diagonal matrix ``diag(d)`` (``tf.linalg.LinearOperatorDiag``).

    A real diagonal is always self-adjoint. Products, solves and determinants are
    elementwise, ``O(N)``.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorDiag([1.0, 2.0, 4.0])
        >>> op.solvevec([1.0, 1.0, 1.0]).numpy(), float(op.log_abs_determinant())
        (array([1.  , 0.5 , 0.25], dtype=float32), 2.079441547393799)
    """

    def __init__(
        self,
        diag,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorDiag",
    ):
        parameters = _util.arguments(locals())
        self._diag = _util.convert_nonref_to_tensor(diag, name="diag")
        self._check_diag(self._diag)
        if not self._diag.dtype.is_complex:
            is_self_adjoint = _util.settled(
                is_self_adjoint, True, "A real diagonal operator is always self adjoint."
            )
        is_square = _util.settled(
            is_square, True, "Only square diagonal operators currently supported."
        )
        super().__init__(
            dtype=self._diag.dtype, parameters=parameters, name=name, **_util.hints_in(locals())
        )

    def _check_diag(self, diag):
        if diag.shape.rank is not None and diag.shape.rank < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {diag}")

    def _shape(self):
        d_shape = self._diag.shape
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self):
        d_shape = array_ops.shape(self._diag)
        return array_ops.concat((d_shape, d_shape[-1:]), 0)

    @property
    def diag(self):
        return self._diag

    def _linop_inverse(self):
        return LinearOperatorDiag(
            1.0 / self.diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        from .identity import LinearOperatorScaledIdentity
        from .lower_triangular import LinearOperatorLowerTriangular

        hints = _diag_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=left_operator.diag * right_operator.diag, **hints)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorDiag(diag=left_operator.diag * right_operator.multiplier, **hints)
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                tril=left_operator.diag[..., None] * right_operator.to_dense(),
                **dict(hints, is_positive_definite=None),
            )
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        from .identity import LinearOperatorScaledIdentity
        from .lower_triangular import LinearOperatorLowerTriangular

        hints = _diag_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag / left_operator.diag, **hints)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorDiag(diag=right_operator.multiplier / left_operator.diag, **hints)
        if isinstance(right_operator, LinearOperatorLowerTriangular):
            return LinearOperatorLowerTriangular(
                tril=right_operator.to_dense() / left_operator.diag[..., None],
                **dict(hints, is_positive_definite=None),
            )
        return super()._linop_solve(left_operator, right_operator)

    def _assert_non_singular(self):
        return _checks.assert_no_entries_with_modulus_zero(
            self._diag, message="Singular operator:  Diagonal contained zero values."
        )

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            message = (
                "Diagonal operator had diagonal entries with non-positive real part, thus was "
                "not positive definite."
            )
        else:
            message = (
                "Real diagonal operator had non-positive diagonal entries, thus was not "
                "positive definite."
            )
        return _checks.assert_positive(math_ops.real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return _checks.assert_zero_imag_part(
            self._diag,
            message=(
                "This diagonal operator contained non-zero imaginary values.   Thus it was not "
                "self-adjoint."
            ),
        )

    def _linop_adjoint(self):
        diag = self.diag
        if diag.dtype.is_complex:
            diag = math_ops.conj(diag)
        return LinearOperatorDiag(
            diag=diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorDiag(
            math_ops.sqrt(self.diag),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        diag_mat = array_ops.expand_dims(diag_term, -1)
        return diag_mat * x

    def _matvec(self, x, adjoint=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        return diag_term * x

    def _determinant(self):
        return reduction_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = reduction_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = math_ops.cast(log_det, dtype=self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        inv_diag_mat = array_ops.expand_dims(1.0 / diag_term, -1)
        return rhs * inv_diag_mat

    def _to_dense(self):
        return linalg_ops.diag(self._diag)

    def _diag_part(self):
        return self.diag

    def _add_to_tensor(self, x):
        x_diag = linalg_ops.diag_part(x)
        new_diag = self._diag + x_diag
        return linalg_ops.set_diag(x, new_diag)

    def _eigvals(self):
        return convert_to_tensor(self.diag)

    def _cond(self):
        abs_diag = math_ops.abs(self.diag)
        return reduction_ops.reduce_max(abs_diag, axis=-1) / reduction_ops.reduce_min(
            abs_diag, axis=-1
        )

    @property
    def _composite_tensor_fields(self):
        return ("diag",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"diag": 1}
