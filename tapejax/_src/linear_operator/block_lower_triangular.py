"""``LinearOperatorBlockLowerTriangular``: a square block matrix zero above its diagonal."""

from __future__ import annotations

from ..ops import creation_ops, join_split_ops, linalg_ops, math_ops
from ..tensor_shape import TensorShape
from . import _composite, _util
from ._blockwise import BlockwiseOperator
from .composition import assert_proper_iterable

__all__ = ["LinearOperatorBlockLowerTriangular"]


@_composite.make_composite_tensor
class LinearOperatorBlockLowerTriangular(BlockwiseOperator):
    """A block lower-triangular operator (``tf.linalg.LinearOperatorBlockLowerTriangular``).

    ``operators[i]`` is row ``i``: ``i + 1`` operators, the last on the diagonal (square).
    Solves are forward (or, for the adjoint, backward) substitution by blocks.

    Example:
        >>> import tapejax as tf
        >>> d = tf.linalg.LinearOperatorDiag([2.0])
        >>> b = tf.linalg.LinearOperatorFullMatrix([[3.0]])
        >>> op = tf.linalg.LinearOperatorBlockLowerTriangular([[d], [b, d]])
        >>> op.to_dense().numpy()
        array([[2., 0.],
               [3., 2.]], dtype=float32)
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorBlockLowerTriangular",
    ):
        parameters = _util.arguments(locals())
        assert_proper_iterable(operators)
        for row in operators:
            assert_proper_iterable(row)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(
                f"Argument `operators` must be a list of >=1 operators. Received: {operators}."
            )
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        self._validate_dtype(dtype)
        is_non_singular = self._validate_non_singular(is_non_singular)
        self._validate_num_operators()
        self._validate_operator_dimensions()
        is_square = self._validate_square(is_square)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    def _validate_num_operators(self):
        for i, row in enumerate(self.operators):
            if len(row) != i + 1:
                raise ValueError(
                    f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                    f"Received: {len(row)} blocks."
                )

    def _validate_operator_dimensions(self):
        for i in range(1, len(self.operators)):
            for j in range(i):
                op = self.operators[i][j]
                above_op = self.operators[i - 1][j]
                right_op = self.operators[i][j + 1]
                if op.domain_dimension is not None and above_op.domain_dimension is not None:
                    if op.domain_dimension != above_op.domain_dimension:
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].domain_dimension` "
                            f"({op.domain_dimension}) must be the same as "
                            f"`operators[{i - 1}][{j}].domain_dimension` "
                            f"({above_op.domain_dimension})."
                        )
                if op.range_dimension is not None and right_op.range_dimension is not None:
                    if op.range_dimension != right_op.range_dimension:
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].range_dimension` "
                            f"({op.range_dimension}) must be the same as "
                            f"`operators[{i}][{j + 1}].range_dimension` "
                            f"({right_op.range_dimension})."
                        )

    def _validate_non_singular(self, is_non_singular):
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    "A blockwise lower-triangular operator with non-singular operators on the "
                    "main diagonal is always non-singular. Expected argument `is_non_singular` "
                    f"to be True. Received: {is_non_singular}."
                )
            return True
        if any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    "A blockwise lower-triangular operator with a singular operator on the main "
                    "diagonal is always singular. Expected argument `is_non_singular` to be "
                    f"True. Received: {is_non_singular}."
                )
            return False
        return None

    def _validate_square(self, is_square):
        if is_square is False:
            raise ValueError(
                "`LinearOperatorBlockLowerTriangular` must be square. Expected argument "
                f"`is_square` to be True. Received: {is_square}."
            )
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError(
                    "Matrices on the diagonal (the final elements of each row-partition in the "
                    "`operators` list) must be square. Expected argument "
                    f"`operators[{i}][-1].is_square` to be True. Received: {op.is_square}."
                )
        return True

    def _validate_dtype(self, dtype):
        for i, row in enumerate(self.operators):
            for operator in row:
                if operator.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError(
                        f"Expected all operators to have the same dtype.  Found {name_type} in row {i} and "
                        f"{str(dtype)} in row 0."
                    )

    def _shape(self):
        # TF's order ([domain, range]); the operator is square, so they are equal.
        matrix_shape = TensorShape(
            [sum(self._block_domain_dimensions()), sum(self._block_range_dimensions())]
        )
        batch_shape = _util.broadcast_shapes(
            *(operator.batch_shape for row in self.operators for operator in row)
        )
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _linop_inverse(self):
        from .addition import SUPPORTED_OPERATORS, add_operators
        from .full_matrix import LinearOperatorFullMatrix
        from .identity import LinearOperatorScaledIdentity

        if len(self.operators) == 1:
            return LinearOperatorBlockLowerTriangular(
                [[self.operators[0][0].inverse()]],
                is_non_singular=self.is_non_singular,
                is_self_adjoint=self.is_self_adjoint,
                is_positive_definite=self.is_positive_definite,
                is_square=True,
            )
        blockwise_dim = len(self.operators)
        # [[A, 0], [B, C]]^-1 = [[A^-1, 0], [-C^-1 B A^-1, C^-1]], A itself block-triangular.
        upper_left_inverse = LinearOperatorBlockLowerTriangular(self.operators[:-1]).inverse()
        bottom_row = self.operators[-1]
        bottom_right_inverse = bottom_row[-1].inverse()
        inverse_bottom_row = []
        for i in range(blockwise_dim - 1):
            blocks = []
            for j in range(i, blockwise_dim - 1):
                result = bottom_row[j].matmul(upper_left_inverse.operators[j][i])
                if not any(isinstance(result, t) for t in SUPPORTED_OPERATORS):
                    result = LinearOperatorFullMatrix(result.to_dense())
                blocks.append(result)
            summed_blocks = add_operators(blocks)
            assert len(summed_blocks) == 1
            block = bottom_right_inverse.matmul(summed_blocks[0])
            block = LinearOperatorScaledIdentity(
                num_rows=bottom_right_inverse.domain_dimension_tensor(),
                multiplier=math_ops.cast(-1, dtype=block.dtype),
            ).matmul(block)
            inverse_bottom_row.append(block)
        inverse_bottom_row.append(bottom_right_inverse)
        return LinearOperatorBlockLowerTriangular(
            upper_left_inverse.operators + [inverse_bottom_row],
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = (
            self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        )
        blockwise = _util.arg_is_blockwise(block_dimensions, x, arg_dim)
        split_x = (
            x
            if blockwise
            else _util.split_arg_into_blocks(self._block_domain_dimensions(), x, arg_dim)
        )
        n = len(self.operators)
        results = []
        if adjoint:
            for index in range(n):
                result = self.operators[index][index].matmul(
                    split_x[index], adjoint=adjoint, adjoint_arg=adjoint_arg
                )
                for j in range(index + 1, n):
                    result += self.operators[j][index].matmul(
                        split_x[j], adjoint=adjoint, adjoint_arg=adjoint_arg
                    )
                results.append(result)
        else:
            for row in self.operators:
                result = row[0].matmul(split_x[0], adjoint=adjoint, adjoint_arg=adjoint_arg)
                for j, operator in enumerate(row[1:]):
                    result += operator.matmul(
                        split_x[j + 1], adjoint=adjoint, adjoint_arg=adjoint_arg
                    )
                results.append(result)
        return self._stack_blocks(results, blockwise)

    def _determinant(self):
        if all(op.is_positive_definite for op in self._diagonal_operators):
            return math_ops.exp(self._log_abs_determinant())
        return super()._determinant()

    def _solve_blocks(self, rhs, adjoint, adjoint_arg):
        rhs, blockwise = self._solve_args(rhs, adjoint, adjoint_arg)
        if blockwise:
            split_rhs = [linalg_ops.adjoint(y) for y in rhs] if adjoint_arg else rhs
        else:
            rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
            split_rhs = _util.split_arg_into_blocks(self._block_domain_dimensions(), rhs, -2)
        n = len(self.operators)
        solutions = []
        if adjoint:
            for index in reversed(range(n)):
                y = split_rhs[index]
                for j in reversed(range(index + 1, n)):
                    y = y - self.operators[j][index].matmul(solutions[n - 1 - j], adjoint=adjoint)
                solutions.append(self._diagonal_operators[index].solve(y, adjoint=adjoint))
            solutions.reverse()
        else:
            for row, y in zip(self.operators, split_rhs):
                for i, operator in enumerate(row[:-1]):
                    y = y - operator.matmul(solutions[i], adjoint=adjoint)
                solutions.append(row[-1].solve(y, adjoint=adjoint))
        return self._stack_blocks(solutions, blockwise)

    def _diag_part(self):
        return self._diagonal_concat([op.diag_part() for op in self._diagonal_operators])

    def _trace(self):
        return _util.sum_of(self._diagonal_operators, "trace")

    def _to_dense(self):
        flat = _util.broadcast_matrix_batch_dims(
            [op.to_dense() for row in self.operators for op in row]
        )
        n = self.domain_dimension
        dense_rows, num_cols = [], 0
        for i in range(len(self.operators)):
            row_blocks = flat[i * (i + 1) // 2 : (i + 1) * (i + 2) // 2]
            batch_row_shape = row_blocks[0].shape.as_list()[:-1]
            num_cols += row_blocks[-1].shape[-1]
            after = creation_ops.zeros(batch_row_shape + [n - num_cols], dtype=self.dtype)
            dense_rows.append(join_split_ops.concat(row_blocks + [after], axis=-1))
        return join_split_ops.concat(dense_rows, axis=-2)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [[0] * len(row) for row in self.operators]}
