"""``LinearOperatorHouseholder``: the reflection ``I - 2 v v^H / |v|^2``."""

from __future__ import annotations

from ..conversion import convert_to_tensor
from ..ops import creation_ops, join_split_ops, linalg_ops, math_ops, reduction_ops
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorHouseholder"]


@_composite.make_composite_tensor
class LinearOperatorHouseholder(LinearOperator):
    """The [batch] Householder reflection about the hyperplane orthogonal to
    ``reflection_axis`` (``tf.linalg.LinearOperatorHouseholder``).

    It is its own adjoint and inverse; the determinant is -1.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorHouseholder([0.0, 1.0])
        >>> op.matvec([3.0, 4.0]).numpy(), float(op.determinant())
        (array([ 3., -4.], dtype=float32), -1.0)
    """

    def __init__(
        self,
        reflection_axis,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorHouseholder",
    ):
        parameters = _util.arguments(locals())
        self._reflection_axis = _util.convert_nonref_to_tensor(
            reflection_axis, name="reflection_axis"
        )
        self._check_reflection_axis(self._reflection_axis)
        is_self_adjoint = _util.settled(
            is_self_adjoint, True, "A Householder operator is always self adjoint."
        )
        is_positive_definite = _util.settled(
            is_positive_definite, False, "A Householder operator is always non-positive definite."
        )
        is_square = _util.settled(is_square, True, "A Householder operator is always square.")
        super().__init__(
            dtype=self._reflection_axis.dtype,
            parameters=parameters,
            name=name,
            **_util.hints_in(locals()),
        )

    def _check_reflection_axis(self, reflection_axis):
        if reflection_axis.shape.rank is not None and reflection_axis.shape.rank < 1:
            raise ValueError(
                f"Argument reflection_axis must have at least 1 dimension.  Found: {reflection_axis}"
            )

    def _shape(self):
        d_shape = self._reflection_axis.shape
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        raise _util.invalid_argument("Householder operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _normalized_axis(self):
        return reduction_ops.l2_normalize(convert_to_tensor(self.reflection_axis), axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        mat = self._normalized_axis()[..., None]
        x_dot_normalized_v = linalg_ops.matmul(mat, x, adjoint_a=True)
        return x - 2 * mat * x_dot_normalized_v

    def _trace(self):
        n = math_ops.cast(self.domain_dimension - 2, self.dtype)
        return n * creation_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)

    def _determinant(self):
        return -creation_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return creation_ops.zeros(self.batch_shape.as_list(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        mat = self._normalized_axis()[..., None]
        matrix = -2 * linalg_ops.matmul(mat, mat, adjoint_b=True)
        return linalg_ops.set_diag(matrix, 1.0 + linalg_ops.diag_part(matrix))

    def _diag_part(self):
        normalized_axis = self._normalized_axis()
        return 1.0 - 2 * normalized_axis * math_ops.conj(normalized_axis)

    def _eigvals(self):
        shape = self.reflection_axis.shape.as_list()
        ones = creation_ops.ones(shape[:-1] + [shape[-1] - 1], dtype=self.dtype)
        minus_one = -creation_ops.ones(shape[:-1] + [1], dtype=self.dtype)
        return join_split_ops.concat([minus_one, ones], axis=-1)

    def _cond(self):
        return creation_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)

    @property
    def reflection_axis(self):
        return self._reflection_axis

    @property
    def _composite_tensor_fields(self):
        return ("reflection_axis",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"reflection_axis": 1}
