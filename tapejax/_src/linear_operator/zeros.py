"""``LinearOperatorZeros``: the [batch] zero matrix, square or not."""

from __future__ import annotations

from .. import dtypes
from ..ops import creation_ops, linalg_ops
from ..tensor_shape import TensorShape
from . import _checks, _composite, _shape_args, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorZeros"]


@_composite.make_composite_tensor
class LinearOperatorZeros(LinearOperator):
    """The [batch] zero matrix ``[B1, ..., Bb, M, N]`` (``tf.linalg.LinearOperatorZeros``).

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorZeros(
        ...     num_rows=2, num_columns=3, is_square=False, is_self_adjoint=False)
        >>> op.shape, op.matmul(tf.ones([3, 4])).shape
        (TensorShape([2, 3]), TensorShape([2, 4]))
    """

    def __init__(
        self,
        num_rows,
        num_columns=None,
        batch_shape=None,
        dtype=None,
        is_non_singular=False,
        is_self_adjoint=True,
        is_positive_definite=False,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorZeros",
    ):
        parameters = _util.arguments(locals())
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self._assert_proper_shapes = assert_proper_shapes
        if not is_self_adjoint and is_square:
            raise ValueError("A zero operator is always self adjoint.")
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))
        _util.assert_not_ref_type(num_rows, "num_rows")
        _util.assert_not_ref_type(num_columns, "num_columns")
        _util.assert_not_ref_type(batch_shape, "batch_shape")
        what = type(self).__name__
        self._num_rows, self._num_rows_static = _shape_args.shape_argument(
            num_rows, what, "num_rows", assert_proper_shapes
        )
        if num_columns is None:
            num_columns = num_rows
        self._num_columns, self._num_columns_static = _shape_args.shape_argument(
            num_columns, what, "num_columns", assert_proper_shapes
        )
        if is_square and self._num_rows_static != self._num_columns_static:
            raise ValueError(
                f"LinearOperatorZeros initialized as is_square=True, but got "
                f"num_rows({self._num_rows_static}) != num_columns({self._num_columns_static})"
            )
        self._batch_shape_arg = None
        if batch_shape is not None:
            self._batch_shape_arg, self._batch_shape_static = _shape_args.shape_argument(
                batch_shape, what, "batch_shape", assert_proper_shapes
            )

    def _shape(self):
        matrix_shape = TensorShape((int(self._num_rows_static), int(self._num_columns_static)))
        if self._batch_shape_arg is None:
            return matrix_shape
        return TensorShape(self._batch_shape_static.tolist()).concatenate(matrix_shape)

    def _shape_tensor(self):
        return _util.shape_tensor(self._shape().as_list())

    def _assert_non_singular(self):
        raise _util.invalid_argument("Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise _util.invalid_argument("Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return None

    def _possibly_broadcast_batch_shape(self, x):
        return _shape_args.broadcast_to_batch(self, x)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if self._assert_proper_shapes:
            x = linalg_ops.adjoint(x) if adjoint_arg else x
            _checks.assert_compatible_matrix_dimensions(self, x)
        x_shape = x.shape.as_list()
        if self.is_square:
            if adjoint_arg:
                x_shape = x_shape[:-2] + [x_shape[-1], x_shape[-2]]
            zeros = creation_ops.zeros(shape=x_shape, dtype=x.dtype)
            return self._possibly_broadcast_batch_shape(zeros)
        n = self._num_columns_static if adjoint else self._num_rows_static
        m = x_shape[-2] if adjoint_arg else x_shape[-1]
        zeros = creation_ops.zeros(shape=x_shape[:-2] + [int(n), m], dtype=x.dtype)
        return self._possibly_broadcast_batch_shape(zeros)

    def _linop_matmul(self, left_operator, right_operator):
        if not left_operator.is_square or not right_operator.is_square:
            raise ValueError(
                "Matmul with non-square `LinearOperator`s or non-square "
                "`LinearOperatorZeros` not supported at this time."
            )
        return left_operator

    def _determinant(self):
        return _shape_args.batch_of(self, creation_ops.zeros)

    def _trace(self):
        return _shape_args.batch_of(self, creation_ops.zeros)

    def _diag_part(self):
        return self._zeros_diag()

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``0 + mat``: ``mat``, broadcast against the batch shape."""
        return self._possibly_broadcast_batch_shape(mat)

    def _zeros_diag(self):
        return _shape_args.diag_of(self, creation_ops.zeros)

    def _eigvals(self):
        return self._zeros_diag()

    @property
    def _composite_tensor_prefer_static_fields(self):
        return ("num_rows", "num_columns", "batch_shape")

    @property
    def _composite_tensor_fields(self):
        return ("num_rows", "num_columns", "batch_shape", "dtype", "assert_proper_shapes")

    def __getitem__(self, slices):
        return _shape_args.batch_sliced(self, slices)
