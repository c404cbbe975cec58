"""``LinearOperatorToeplitz``: a square matrix constant along its diagonals, applied by
embedding it in a circulant matrix twice its size."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..asserts import assert_equal
from ..conversion import convert_to_tensor
from ..ops import (
    array_ops,
    creation_ops,
    join_split_ops,
    linalg_ops,
    math_ops,
    pad_ops,
    selection_ops,
)
from . import _composite, _fft, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorToeplitz"]


@_composite.make_composite_tensor
class LinearOperatorToeplitz(LinearOperator):
    """A [batch] Toeplitz matrix from its first column and row
    (``tf.linalg.LinearOperatorToeplitz``); ``row[0]`` is ignored (``col[0]`` is the diagonal).

    Products are ``O(N log N)`` through a circulant embedding; solves are dense.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorToeplitz(col=[1.0, 2.0, 3.0], row=[1.0, 4.0, 5.0])
        >>> op.to_dense().numpy()
        array([[1., 4., 5.],
               [2., 1., 4.],
               [3., 2., 1.]], dtype=float32)
    """

    def __init__(
        self,
        col,
        row,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorToeplitz",
    ):
        parameters = _util.arguments(locals())
        self._row = _util.convert_nonref_to_tensor(row, name="row")
        self._col = _util.convert_nonref_to_tensor(col, name="col")
        self._check_row_col(self._row, self._col)
        is_square = _util.settled(
            is_square, True, "Only square Toeplitz operators currently supported."
        )
        super().__init__(
            dtype=self._row.dtype, parameters=parameters, name=name, **_util.hints_in(locals())
        )

    def _check_row_col(self, row, col):
        for name, tensor in [["row", row], ["col", col]]:
            if tensor.shape.rank is not None and tensor.shape.rank < 1:
                raise ValueError(
                    f"Argument {name} must have at least 1 dimension.  Found: {tensor}"
                )
        if row.shape[-1] is not None and col.shape[-1] is not None:
            if row.shape[-1] != col.shape[-1]:
                raise ValueError(
                    "Expected square matrix, got row and col with mismatched dimensions."
                )

    def _shape(self):
        v_shape = array_ops.broadcast_static_shape(self.row.shape, self.col.shape)
        return v_shape.concatenate(v_shape[-1:])

    def _shape_tensor(self, row=None, col=None):
        return _util.shape_tensor(self.shape.as_list())

    def _assert_self_adjoint(self):
        return assert_equal(
            self.row,
            self.col,
            message="row and col are not the same, and so this operator is not self-adjoint.",
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        from .circulant import LinearOperatorCirculant

        # The 2N x 2N circulant whose top-left block is this matrix, applied to [x; 0].
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        expanded_x = join_split_ops.concat([x, creation_ops.zeros_like(x)], axis=-2)
        col = convert_to_tensor(self.col)
        row = convert_to_tensor(self.row)
        circulant_col = join_split_ops.concat(
            [col, creation_ops.zeros_like(col[..., 0:1]), pad_ops.reverse(row[..., 1:], axis=[-1])],
            axis=-1,
        )
        circulant = LinearOperatorCirculant(
            _fft.fft(_to_complex(circulant_col), 1), input_output_dtype=row.dtype
        )
        result = circulant.matmul(expanded_x, adjoint=adjoint, adjoint_arg=False)
        return math_ops.cast(result[..., : self.domain_dimension, :], self.dtype)

    def _trace(self):
        return math_ops.cast(self.domain_dimension, dtype=self.dtype) * self.col[..., 0]

    def _diag_part(self):
        diag_entry = self.col[..., 0:1]
        return diag_entry * creation_ops.ones([self.domain_dimension], self.dtype)

    def _to_dense(self):
        row = convert_to_tensor(self.row)
        col = convert_to_tensor(self.col)
        total_shape = array_ops.broadcast_static_shape(row.shape, col.shape).as_list()
        n = row.shape[-1]
        row = array_ops.broadcast_to(row, total_shape)
        col = array_ops.broadcast_to(col, total_shape)
        # Entry (i, j) is elements[n - 1 - i + j] of [col reversed, row[1:]].
        elements = join_split_ops.concat([pad_ops.reverse(col, axis=[-1]), row[..., 1:]], axis=-1)
        indices = np.mod(np.arange(n) + np.arange(n - 1, -1, -1)[:, None], 2 * n - 1)
        return selection_ops.gather(elements, convert_to_tensor(indices.astype(np.int32)), axis=-1)

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    @property
    def _composite_tensor_fields(self):
        return ("col", "row")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"col": 1, "row": 1}


def _to_complex(x):
    dtype = (
        dtypes.complex128 if x.dtype in [dtypes.float64, dtypes.complex128] else dtypes.complex64
    )
    return math_ops.cast(x, dtype)
