"""TF's default implementations of ``LinearOperator``'s hooks.

Where a subclass knows nothing better, TF's base class densifies the operator (``to_dense``
by multiplying an identity) and uses the dense ops, logging that it does (``solve``,
determinants, the assertions, eigenvalues), and builds operator-valued results from the
generic wrappers (``LinearOperatorAdjoint``, ``...Inversion``, ``...Composition``, a
Cholesky factor as ``...LowerTriangular``). ``LinearOperator`` inherits them from here.
"""

from __future__ import annotations

import numpy as np

from ..asserts import assert_equal, assert_less
from ..ops import (
    array_ops,
    creation_ops,
    decomposition_ops,
    join_split_ops,
    linalg_ops,
    math_ops,
    reduction_ops,
    solver_ops,
)
from . import _checks, _util


class DenseDefaults:
    """The hooks a ``LinearOperator`` subclass may override, as TF defines them."""

    def _assert_non_singular(self):
        _util.warn_dense_default("assert_non_singular")
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = decomposition_ops.svd(self.to_dense(), compute_uv=False)
        cond = reduction_ops.reduce_max(singular_values, axis=-1) / reduction_ops.reduce_min(
            singular_values, axis=-1
        )
        return assert_less(
            cond,
            self._max_condition_number_to_be_non_singular(),
            message="Singular matrix up to precision epsilon.",
        )

    def _max_condition_number_to_be_non_singular(self):
        dtype_eps = np.finfo(self.dtype.as_numpy_dtype).eps
        dims = [
            math_ops.cast(100.0, self.dtype),
            math_ops.cast(self.range_dimension_tensor(), self.dtype),
            math_ops.cast(self.domain_dimension_tensor(), self.dtype),
        ]
        eps = reduction_ops.reduce_max(join_split_ops.stack(dims)) * float(dtype_eps)
        return 1.0 / eps

    def _assert_positive_definite(self):
        _util.warn_dense_default("assert_positive_definite")
        if self.is_self_adjoint:
            return _checks.assert_positive(
                linalg_ops.diag_part(decomposition_ops.cholesky(self.to_dense())),
                message="Matrix was not positive definite.",
            )
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        _util.warn_dense_default("assert_self_adjoint", "  Requires conversion to a dense matrix.")
        return assert_equal(
            dense, linalg_ops.adjoint(dense), message="Matrix was not equal to its adjoint."
        )

    def _linop_matmul(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator  # the identity
        if hasattr(right_operator, "_zeros_diag"):
            if not right_operator.is_square or not left_operator.is_square:
                raise ValueError(
                    "Matmul with non-square `LinearOperator`s or non-square "
                    "`LinearOperatorZeros` not supported at this time."
                )
            return right_operator
        from .composition import LinearOperatorComposition

        return LinearOperatorComposition(
            operators=[left_operator, right_operator],
            **_product_hints(left_operator, right_operator),
        )

    def _matvec(self, x, adjoint=False):
        x_mat = array_ops.expand_dims(x, axis=-1)
        y_mat = self.matmul(x_mat, adjoint=adjoint)
        return array_ops.squeeze(y_mat, axis=-1)

    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.is_square is False:
            raise NotImplementedError("Solve is not yet implemented for non-square operators.")
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return solver_ops.cholesky_solve(decomposition_ops.cholesky(self.to_dense()), rhs)
        return _util.matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        _util.warn_dense_default("solve")
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left_operator, right_operator):
        if hasattr(right_operator, "_ones_diag") and not hasattr(right_operator, "multiplier"):
            return left_operator.inverse()
        from .composition import LinearOperatorComposition
        from .inversion import LinearOperatorInversion

        return LinearOperatorComposition(
            operators=[LinearOperatorInversion(left_operator), right_operator],
            **_product_hints(left_operator, right_operator),
        )

    def _solvevec(self, rhs, adjoint=False):
        rhs_mat = array_ops.expand_dims(rhs, axis=-1)
        solution_mat = self.solve(rhs_mat, adjoint=adjoint)
        return array_ops.squeeze(solution_mat, axis=-1)

    def _determinant(self):
        _util.warn_dense_default("determinant")
        if self._can_use_cholesky():
            return math_ops.exp(self.log_abs_determinant())
        return solver_ops.det(self.to_dense())

    def _log_abs_determinant(self):
        _util.warn_dense_default("determinant")
        if self._can_use_cholesky():
            diag = linalg_ops.diag_part(decomposition_ops.cholesky(self.to_dense()))
            return 2 * reduction_ops.reduce_sum(math_ops.log(diag), axis=[-1])
        _, log_abs_det = solver_ops.slogdet(self.to_dense())
        return log_abs_det

    def _linop_adjoint(self):
        from .adjoint import LinearOperatorAdjoint

        return LinearOperatorAdjoint(self, **self._hints())

    def _hints(self) -> dict:
        return dict(
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=self.is_square,
        )

    def _linop_inverse(self):
        from .inversion import LinearOperatorInversion

        return LinearOperatorInversion(self, **self._hints())

    def _linop_cholesky(self):
        from .lower_triangular import LinearOperatorLowerTriangular

        return LinearOperatorLowerTriangular(
            decomposition_ops.cholesky(self.to_dense()),
            is_non_singular=True,
            is_self_adjoint=False,
            is_square=True,
        )

    def _to_dense(self):
        n = self.domain_dimension
        if n is None:
            n = self.domain_dimension_tensor()
        batch_shape = self.batch_shape
        batch_shape = (
            batch_shape.as_list() if batch_shape.is_fully_defined() else self.batch_shape_tensor()
        )
        eye = creation_ops.eye(num_rows=n, batch_shape=batch_shape, dtype=self.dtype)
        return self.matmul(eye)

    def _diag_part(self):
        return linalg_ops.diag_part(self.to_dense())

    def _trace(self):
        return reduction_ops.reduce_sum(self.diag_part(), axis=-1)

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def _eigvals(self):
        return decomposition_ops.eigvalsh(self.to_dense())

    def _cond(self):
        if not self.is_self_adjoint:
            vals = decomposition_ops.svd(self.to_dense(), compute_uv=False)
        else:
            vals = math_ops.abs(self._eigvals())
        return reduction_ops.reduce_max(vals, axis=-1) / reduction_ops.reduce_min(vals, axis=-1)

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite


def _product_hints(left_operator, right_operator) -> dict:
    """The hints of ``left @ right`` (or ``left^-1 @ right``) when nothing better is known."""
    square = _util.is_square(left_operator, right_operator)
    hints = dict(
        is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=square
    )
    if square:
        hints["is_non_singular"] = _util.combined_non_singular_hint(left_operator, right_operator)
    elif square is False:
        hints.update(is_non_singular=False, is_self_adjoint=False, is_positive_definite=False)
    return hints
