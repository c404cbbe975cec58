"""``LinearOperatorBlockDiag``: operators on the diagonal of a block matrix (a direct sum)."""

from __future__ import annotations

from ..ops import creation_ops, join_split_ops
from ..tensor_shape import TensorShape
from . import _composite, _util
from ._blockwise import BlockwiseOperator
from .composition import all_hint, check_operator_list, check_same_dtype

__all__ = ["LinearOperatorBlockDiag"]


@_composite.make_composite_tensor
class LinearOperatorBlockDiag(BlockwiseOperator):
    """The block-diagonal operator ``diag(A1, ..., An)`` (``tf.linalg.LinearOperatorBlockDiag``).

    The blocks need not be square. Arguments to ``matmul``, ``matvec``, ``solve`` and
    ``solvevec`` may be one tensor or a list of one tensor per block.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorDiag([2.0])
        >>> b = tf.linalg.LinearOperatorFullMatrix([[1.0, 1.0], [0.0, 1.0]])
        >>> tf.linalg.LinearOperatorBlockDiag([a, b]).to_dense().numpy()
        array([[2., 0., 0.],
               [0., 1., 1.],
               [0., 0., 1.]], dtype=float32)
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=None,
    ):
        parameters = _util.arguments(locals())
        operators = check_operator_list(operators)
        self._operators = operators
        self._diagonal_operators = operators
        dtype = check_same_dtype(operators)
        is_non_singular = all_hint(
            operators,
            "is_non_singular",
            is_non_singular,
            "The direct sum of non-singular operators is always non-singular.",
        )
        is_self_adjoint = all_hint(
            operators,
            "is_self_adjoint",
            is_self_adjoint,
            "The direct sum of self-adjoint operators is always self-adjoint.",
        )
        is_positive_definite = all_hint(
            operators,
            "is_positive_definite",
            is_positive_definite,
            "The direct sum of positive definite operators is always positive definite.",
        )
        if name is None:
            name = "_ds_".join(operator.name for operator in operators)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    _solve_operator_name = "x"

    def _shape(self):
        matrix_shape = TensorShape(
            [sum(self._block_range_dimensions()), sum(self._block_domain_dimensions())]
        )
        batch_shape = _util.broadcast_shapes(*(op.batch_shape for op in self.operators))
        return batch_shape.concatenate(matrix_shape)

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _blockwise_hints(self, **hints):
        return dict(
            dict(
                is_non_singular=self.is_non_singular,
                is_self_adjoint=self.is_self_adjoint,
                is_positive_definite=self.is_positive_definite,
                is_square=True,
            ),
            **hints,
        )

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag(
            operators=[operator.adjoint() for operator in self.operators],
            **self._blockwise_hints(),
        )

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag(
            operators=[operator.cholesky() for operator in self.operators],
            is_non_singular=True,
            is_self_adjoint=None,
            is_square=True,
        )

    def _linop_inverse(self):
        return LinearOperatorBlockDiag(
            operators=[operator.inverse() for operator in self.operators],
            **self._blockwise_hints(),
        )

    def _blockwise_product(self, left_operator, right_operator, method):
        return LinearOperatorBlockDiag(
            operators=[
                getattr(o1, method)(o2)
                for o1, o2 in zip(left_operator.operators, right_operator.operators)
            ],
            is_non_singular=_util.combined_non_singular_hint(left_operator, right_operator),
            is_self_adjoint=None,
            is_positive_definite=None,
            is_square=True,
        )

    def _linop_matmul(self, left_operator, right_operator):
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return self._blockwise_product(left_operator, right_operator, "matmul")
        return super()._linop_matmul(left_operator, right_operator)

    def _linop_solve(self, left_operator, right_operator):
        if isinstance(right_operator, LinearOperatorBlockDiag):
            return self._blockwise_product(left_operator, right_operator, "solve")
        return super()._linop_solve(left_operator, right_operator)

    def _check_operator_blocks(self, left_operator, right_operator, what):
        if not isinstance(right_operator, LinearOperatorBlockDiag):
            return
        if len(left_operator.operators) != len(right_operator.operators):
            verb = (
                "multiply two `LinearOperatorBlockDiag`s together"
                if what == "x"
                else ("solve `LinearOperatorBlockDiag`")
            )
            raise ValueError(f"Can not efficiently {verb} when number of blocks differ.")
        for o1, o2 in zip(left_operator.operators, right_operator.operators):
            if (
                o2.range_dimension is not None
                and o1.domain_dimension is not None
                and o2.range_dimension != o1.domain_dimension
            ):
                raise ValueError(
                    "Blocks are incompatible. Expected `x` to have dimension "
                    f"{o1.domain_dimension} but got {o2.range_dimension}."
                )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        arg_dim = -1 if adjoint_arg else -2
        block_dimensions = (
            self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
        )
        blockwise = _util.arg_is_blockwise(block_dimensions, x, arg_dim)
        split_x = x if blockwise else _util.split_arg_into_blocks(block_dimensions, x, arg_dim)
        results = [
            operator.matmul(split_x[i], adjoint=adjoint, adjoint_arg=adjoint_arg)
            for i, operator in enumerate(self.operators)
        ]
        return self._stack_blocks(results, blockwise)

    def _solve_blocks(self, rhs, adjoint, adjoint_arg):
        split_rhs, blockwise = self._solve_args(rhs, adjoint, adjoint_arg)
        if not blockwise:
            split_rhs = _util.split_arg_into_blocks(
                self._block_domain_dimensions(), split_rhs, -1 if adjoint_arg else -2
            )
        solutions = [
            operator.solve(split_rhs[i], adjoint=adjoint, adjoint_arg=adjoint_arg)
            for i, operator in enumerate(self.operators)
        ]
        return self._stack_blocks(solutions, blockwise)

    def _require_square_blocks(self, what):
        if not all(operator.is_square for operator in self.operators):
            raise NotImplementedError(
                f"`{what}` not implemented for an operator whose blocks are not square."
            )

    def _diag_part(self):
        self._require_square_blocks("diag_part")
        return self._diagonal_concat([operator.diag_part() for operator in self.operators])

    def _trace(self):
        self._require_square_blocks("trace")
        return _util.sum_of(self.operators, "trace")

    def _to_dense(self):
        blocks = _util.broadcast_matrix_batch_dims([op.to_dense() for op in self.operators])
        n = self.domain_dimension
        rows, num_cols = [], 0
        for block in blocks:
            batch_row_shape = block.shape.as_list()[:-1]
            before = creation_ops.zeros(batch_row_shape + [num_cols], dtype=block.dtype)
            num_cols += block.shape[-1]
            after = creation_ops.zeros(batch_row_shape + [n - num_cols], dtype=block.dtype)
            rows.append(join_split_ops.concat([before, block, after], axis=-1))
        return join_split_ops.concat(rows, axis=-2)

    def _assert_self_adjoint(self):
        for operator in self.operators:
            operator.assert_self_adjoint()

    def _assert_positive_definite(self):
        for operator in self.operators:
            operator.assert_positive_definite()

    def _eigvals(self):
        self._require_square_blocks("eigvals")
        return super()._eigvals()

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}
