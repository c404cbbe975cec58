"""``LinearOperatorLowRankUpdate``: ``L + U D V^H`` for an operator ``L``, solved with the
Woodbury identity and the matrix determinant lemma."""

from __future__ import annotations

from ..conversion import convert_to_tensor
from ..ops import array_ops, decomposition_ops, linalg_ops, math_ops, reduction_ops, solver_ops
from ..tf_logging import logger
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorLowRankUpdate"]


@_composite.make_composite_tensor
class LinearOperatorLowRankUpdate(LinearOperator):
    """``A = L + U D V^H`` (``tf.linalg.LinearOperatorLowRankUpdate``).

    ``L`` is ``base_operator`` ``[..., M, N]``, ``U`` ``[..., M, K]``, ``V`` ``[..., N, K]``
    (``U`` if None) and ``D`` ``diag(diag_update)`` (the identity if None). Solves and
    determinants go through the ``K x K`` capacitance ``D^-1 + V^H L^-1 U``, by Cholesky
    when ``L`` and ``D`` are hinted positive definite and ``V`` is None.

    Example:
        >>> import tapejax as tf
        >>> base = tf.linalg.LinearOperatorDiag([1.0, 2.0], is_positive_definite=True)
        >>> op = tf.linalg.LinearOperatorLowRankUpdate(base, u=[[1.0], [1.0]])
        >>> op.to_dense().numpy(), float(op.determinant())
        (array([[2., 1.],
               [1., 3.]], dtype=float32), 5.0)
    """

    def __init__(
        self,
        base_operator,
        u,
        diag_update=None,
        v=None,
        is_diag_update_positive=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowRankUpdate",
    ):
        parameters = _util.arguments(locals())
        dtype = base_operator.dtype
        if diag_update is not None:
            if is_diag_update_positive and dtype.is_complex:
                logger.warning(
                    "Note: setting is_diag_update_positive with a complex dtype means that "
                    "diagonal is real and positive."
                )
        if diag_update is None:
            is_diag_update_positive = _util.settled(
                is_diag_update_positive,
                True,
                "Default diagonal is the identity, which is positive.  However, user set "
                "'is_diag_update_positive' to False.",
            )
        self._use_cholesky = (
            base_operator.is_positive_definite
            and base_operator.is_self_adjoint
            and is_diag_update_positive
            and v is None
        )
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            is_self_adjoint = _util.settled(
                is_self_adjoint,
                True,
                "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is "
                "self-adjoint, this must be a self-adjoint operator.",
            )
        if self._use_cholesky:
            if (
                is_positive_definite is False
                or is_self_adjoint is False
                or is_non_singular is False
            ):
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        self._u = _util.convert_nonref_to_tensor(u, name="u")
        self._v = self._u if v is None else _util.convert_nonref_to_tensor(v, name="v")
        self._diag_update = (
            None
            if diag_update is None
            else _util.convert_nonref_to_tensor(diag_update, name="diag_update")
        )
        self._base_operator = base_operator
        super().__init__(
            dtype=self._base_operator.dtype,
            parameters=parameters,
            name=name,
            **_util.hints_in(locals()),
        )
        self._set_diag_operators(diag_update, is_diag_update_positive)
        self._is_diag_update_positive = is_diag_update_positive
        self._check_shapes()

    def _check_shapes(self):
        uv_shape = array_ops.broadcast_static_shape(self.u.shape, self.v.shape)
        batch_shape = array_ops.broadcast_static_shape(
            self.base_operator.batch_shape, uv_shape[:-2]
        )
        _util.assert_dims_compatible(self.base_operator.domain_dimension, uv_shape[-2])
        if self._diag_update is not None:
            _util.assert_dims_compatible(_util.dim_at(uv_shape, -1), self._diag_update.shape[-1])
            array_ops.broadcast_static_shape(batch_shape, self._diag_update.shape[:-1])

    def _set_diag_operators(self, diag_update, is_diag_update_positive):
        from .diag import LinearOperatorDiag
        from .identity import LinearOperatorIdentity

        if diag_update is not None:
            self._diag_operator = LinearOperatorDiag(
                self._diag_update, is_positive_definite=is_diag_update_positive
            )
        else:
            self._diag_operator = LinearOperatorIdentity(
                num_rows=self.u.shape[-1], dtype=self.dtype
            )

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def diag_operator(self):
        return self._diag_operator

    @property
    def base_operator(self):
        return self._base_operator

    def _assert_self_adjoint(self):
        if self.u is self.v and self.diag_update is None:
            return self.base_operator.assert_self_adjoint()
        return super().assert_self_adjoint()

    def _shape(self):
        batch_shape = _util.broadcast_shapes(
            self.base_operator.batch_shape,
            self.diag_operator.batch_shape,
            self.u.shape[:-2],
            self.v.shape[:-2],
        )
        return batch_shape.concatenate(self.base_operator.shape[-2:])

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _get_uv_as_tensors(self):
        u = convert_to_tensor(self.u)
        v = u if self.v is self.u else convert_to_tensor(self.v)
        return u, v

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = self._get_uv_as_tensors()
        leading_term = self.base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        if adjoint:
            u, v = v, u
        # L x + U D V^H x (and for the adjoint, with U and V swapped).
        vh_x = linalg_ops.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        d_vh_x = self.diag_operator.matmul(vh_x, adjoint=adjoint)
        return leading_term + linalg_ops.matmul(u, d_vh_x)

    def _determinant(self):
        if self.is_positive_definite:
            return math_ops.exp(self.log_abs_determinant())
        u, v = self._get_uv_as_tensors()
        det_c = solver_ops.det(self._make_capacitance(u=u, v=v))
        return det_c * self.diag_operator.determinant() * self.base_operator.determinant()

    def _diag_part(self):
        u, v = self._get_uv_as_tensors()
        product = u * math_ops.conj(v)
        if self.diag_update is not None:
            product *= array_ops.expand_dims(self.diag_update, axis=-2)
        return reduction_ops.reduce_sum(product, axis=-1) + self.base_operator.diag_part()

    def _log_abs_determinant(self):
        u, v = self._get_uv_as_tensors()
        log_abs_det_d = self.diag_operator.log_abs_determinant()
        log_abs_det_l = self.base_operator.log_abs_determinant()
        capacitance = self._make_capacitance(u=u, v=v)
        if self._use_cholesky:
            chol_cap_diag = linalg_ops.diag_part(decomposition_ops.cholesky(capacitance))
            log_abs_det_c = 2 * reduction_ops.reduce_sum(math_ops.log(chol_cap_diag), axis=[-1])
        else:
            det_c = solver_ops.det(capacitance)
            log_abs_det_c = math_ops.log(math_ops.abs(det_c))
            if self.dtype.is_complex:
                log_abs_det_c = math_ops.cast(log_abs_det_c, dtype=self.dtype)
        return log_abs_det_c + log_abs_det_d + log_abs_det_l

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.base_operator.is_non_singular is False:
            raise ValueError(
                "Solve not implemented unless this is a perturbation of a non-singular "
                "LinearOperator."
            )
        base = self.base_operator
        u, v = self._get_uv_as_tensors()
        # C = D^-1 + V^H L^-1 U either way; the adjoint solves with C^H and U, V swapped.
        capacitance = self._make_capacitance(u=u, v=v)
        if adjoint:
            u, v = v, u
        # Woodbury: A^-1 = L^-1 - L^-1 U C^-1 V^H L^-1.
        linv_rhs = base.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = linalg_ops.matmul(v, linv_rhs, adjoint_a=True)
        if self._use_cholesky:
            capinv_vh_linv_rhs = solver_ops.cholesky_solve(
                decomposition_ops.cholesky(capacitance), vh_linv_rhs
            )
        else:
            capinv_vh_linv_rhs = _util.matrix_solve_with_broadcast(
                capacitance, vh_linv_rhs, adjoint=adjoint
            )
        u_capinv_vh_linv_rhs = linalg_ops.matmul(u, capinv_vh_linv_rhs)
        return linv_rhs - base.solve(u_capinv_vh_linv_rhs, adjoint=adjoint)

    def _make_capacitance(self, u, v):
        # C = D^-1 + V^H L^-1 U.
        linv_u = self.base_operator.solve(u)
        vh_linv_u = linalg_ops.matmul(v, linv_u, adjoint_a=True)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)

    @property
    def _composite_tensor_fields(self):
        return ("base_operator", "u", "diag_update", "v", "is_diag_update_positive")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"base_operator": 0, "u": 2, "diag_update": 1, "v": 2}
