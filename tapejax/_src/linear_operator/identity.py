"""``LinearOperatorIdentity`` and ``LinearOperatorScaledIdentity``: ``I`` and ``c I``."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..asserts import assert_equal
from ..conversion import convert_to_tensor
from ..ops import array_ops, creation_ops, linalg_ops, math_ops, selection_ops
from ..tensor_shape import TensorShape
from . import _checks, _composite, _shape_args, _util
from .diag import _diag_hints
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorIdentity", "LinearOperatorScaledIdentity"]


class BaseLinearOperatorIdentity(LinearOperator):
    """What the identity and the scaled identity share: a ``num_rows`` argument."""

    def _set_num_rows(self, num_rows):
        self._num_rows, self._num_rows_static = _shape_args.shape_argument(
            num_rows, type(self).__name__, "num_rows", self._assert_proper_shapes
        )

    def _min_matrix_dim(self):
        return _shape_args.min_matrix_dim(self)

    def _ones_diag(self):
        return _shape_args.diag_of(self, creation_ops.ones)

    def _check_proper_shape(self, x):
        if self._assert_proper_shapes:
            _checks.assert_compatible_matrix_dimensions(self, x)
        return x


@_composite.make_composite_tensor
class LinearOperatorIdentity(BaseLinearOperatorIdentity):
    """The [batch] identity matrix (``tf.linalg.LinearOperatorIdentity``).

    With ``batch_shape``, products broadcast their argument against it; without, the
    argument is returned as it is, at no cost.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorIdentity(num_rows=2, batch_shape=[3])
        >>> op.shape, op.matmul(tf.ones([2, 1])).shape
        (TensorShape([3, 2, 2]), TensorShape([3, 2, 1]))
    """

    def __init__(
        self,
        num_rows,
        batch_shape=None,
        dtype=None,
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorIdentity",
    ):
        parameters = _util.arguments(locals())
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self._assert_proper_shapes = assert_proper_shapes
        if not is_self_adjoint:
            raise ValueError("An identity operator is always self adjoint.")
        if not is_non_singular:
            raise ValueError("An identity operator is always non-singular.")
        if not is_positive_definite:
            raise ValueError("An identity operator is always positive-definite.")
        if not is_square:
            raise ValueError("An identity operator is always square.")
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))
        _util.assert_not_ref_type(num_rows, "num_rows")
        _util.assert_not_ref_type(batch_shape, "batch_shape")
        self._set_num_rows(num_rows)
        self._batch_shape_arg = None
        if batch_shape is not None:
            self._batch_shape_arg, self._batch_shape_static = _shape_args.shape_argument(
                batch_shape, type(self).__name__, "batch_shape", assert_proper_shapes
            )

    def _shape(self):
        n = int(self._num_rows_static)
        matrix_shape = TensorShape((n, n))
        if self._batch_shape_arg is None:
            return matrix_shape
        return TensorShape(self._batch_shape_static.tolist()).concatenate(matrix_shape)

    def _shape_tensor(self):
        return _util.shape_tensor(self._shape().as_list())

    def _linop_adjoint(self):
        return self

    def _linop_cholesky(self):
        return LinearOperatorIdentity(
            num_rows=self._num_rows,
            batch_shape=self.batch_shape,
            dtype=self.dtype,
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )

    def _linop_inverse(self):
        return self

    def _linop_matmul(self, left_operator, right_operator):
        return right_operator

    def _linop_solve(self, left_operator, right_operator):
        return right_operator

    def _assert_non_singular(self):
        return None

    def _assert_positive_definite(self):
        return None

    def _assert_self_adjoint(self):
        return None

    def _possibly_broadcast_batch_shape(self, x):
        return _shape_args.broadcast_to_batch(self, x)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        x = self._check_proper_shape(x)
        return self._possibly_broadcast_batch_shape(x)

    def _determinant(self):
        return _shape_args.batch_of(self, creation_ops.ones)

    def _log_abs_determinant(self):
        return _shape_args.batch_of(self, creation_ops.zeros)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        return self._min_matrix_dim() * _shape_args.batch_of(self, creation_ops.ones)

    def _diag_part(self):
        return self._ones_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``I + mat``: ``mat`` with 1 added to its diagonal."""
        with self._name_scope(name):
            mat = convert_to_tensor(mat, name="mat")
            mat_diag = linalg_ops.diag_part(mat)
            return linalg_ops.set_diag(mat, 1 + mat_diag)

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return _shape_args.batch_of(self, creation_ops.ones)

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        return _shape_args.batch_sliced(self, slices)


@_composite.make_composite_tensor
class LinearOperatorScaledIdentity(BaseLinearOperatorIdentity):
    """A [batch] of scaled identity matrices ``c I`` (``tf.linalg.LinearOperatorScaledIdentity``).

    ``multiplier`` has the batch shape; everything is ``O(1)`` per batch member but
    products, which are one multiplication.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorScaledIdentity(num_rows=3, multiplier=2.0)
        >>> float(op.determinant()), op.matvec([1.0, 2.0, 3.0]).numpy()
        (8.0, array([2., 4., 6.], dtype=float32))
    """

    def __init__(
        self,
        num_rows,
        multiplier,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorScaledIdentity",
    ):
        parameters = _util.arguments(locals())
        self._assert_proper_shapes = assert_proper_shapes
        self._multiplier = _util.convert_nonref_to_tensor(multiplier, name="multiplier")
        if not self._multiplier.dtype.is_complex:
            is_self_adjoint = _util.settled(
                is_self_adjoint, True, "A real diagonal operator is always self adjoint."
            )
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        _util.assert_not_ref_type(num_rows, "num_rows")
        super().__init__(
            dtype=self._multiplier.dtype.base_dtype,
            parameters=parameters,
            name=name,
            **_util.hints_in(locals()),
        )
        self._set_num_rows(num_rows)
        self._num_rows_cast_to_dtype = math_ops.cast(self._num_rows, self.dtype)
        self._num_rows_cast_to_real_dtype = math_ops.cast(self._num_rows, self.dtype.real_dtype)

    def _shape(self):
        n = int(self._num_rows_static)
        return self.multiplier.shape.concatenate(TensorShape((n, n)))

    def _shape_tensor(self):
        return _util.shape_tensor(self._shape().as_list())

    def _assert_non_singular(self):
        return _checks.assert_positive(
            math_ops.abs(self.multiplier), message="LinearOperator was singular"
        )

    def _assert_positive_definite(self):
        return _checks.assert_positive(
            math_ops.real(self.multiplier), message="LinearOperator was not positive definite."
        )

    def _assert_self_adjoint(self):
        imag_multiplier = math_ops.imag(self.multiplier)
        return assert_equal(
            creation_ops.zeros_like(imag_multiplier),
            imag_multiplier,
            message="LinearOperator was not self-adjoint",
        )

    def _make_multiplier_matrix(self, conjugate=False):
        multiplier_matrix = array_ops.expand_dims(array_ops.expand_dims(self.multiplier, -1), -1)
        if conjugate:
            multiplier_matrix = math_ops.conj(multiplier_matrix)
        return multiplier_matrix

    def _with_multiplier(self, multiplier, **hints):
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows, multiplier=multiplier, is_square=True, **hints
        )

    def _linop_adjoint(self):
        multiplier = self.multiplier
        if multiplier.dtype.is_complex:
            multiplier = math_ops.conj(multiplier)
        return self._with_multiplier(
            multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    def _linop_cholesky(self):
        return self._with_multiplier(
            math_ops.sqrt(self.multiplier),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
        )

    def _linop_inverse(self):
        return self._with_multiplier(
            1.0 / self.multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite,
        )

    def _linop_matmul(self, left_operator, right_operator):
        from .diag import LinearOperatorDiag

        hints = _diag_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left_operator.domain_dimension_tensor(),
                multiplier=left_operator.multiplier * right_operator.multiplier,
                **hints,
            )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag * left_operator.multiplier, **hints)
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        from .diag import LinearOperatorDiag

        hints = _diag_hints(left_operator, right_operator)
        if isinstance(right_operator, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left_operator.domain_dimension_tensor(),
                multiplier=right_operator.multiplier / left_operator.multiplier,
                **hints,
            )
        if isinstance(right_operator, LinearOperatorDiag):
            return LinearOperatorDiag(diag=right_operator.diag / left_operator.multiplier, **hints)
        return super()._linop_solve(left_operator, right_operator)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        x = self._check_proper_shape(x)
        return x * self._make_multiplier_matrix(conjugate=adjoint)

    def _determinant(self):
        return self.multiplier**self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        return self._num_rows_cast_to_real_dtype * math_ops.log(math_ops.abs(self.multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        rhs = self._check_proper_shape(rhs)
        return rhs / self._make_multiplier_matrix(conjugate=adjoint)

    def _trace(self):
        ones = _shape_args.batch_of(self, creation_ops.ones)
        return self.multiplier * self._min_matrix_dim() * ones

    def _diag_part(self):
        return self._ones_diag() * self.multiplier[..., None]

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``c I + mat``: ``mat`` with ``c`` added to its diagonal."""
        with self._name_scope(name):
            multiplier_vector = array_ops.expand_dims(self.multiplier, -1)
            mat = convert_to_tensor(mat, name="mat")
            mat_diag = linalg_ops.diag_part(mat)
            return linalg_ops.set_diag(mat, multiplier_vector + mat_diag)

    def _eigvals(self):
        return self._ones_diag() * self.multiplier[..., None]

    def _cond(self):
        return selection_ops.where(
            math_ops.equal(self._multiplier, 0.0),
            math_ops.cast(np.nan, dtype=self.dtype),
            math_ops.cast(1.0, dtype=self.dtype),
        )

    @property
    def multiplier(self):
        return self._multiplier

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows",)

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "multiplier", "assert_proper_shapes")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"multiplier": 0}
