"""What the block operators share: arguments given whole or as a list of blocks.

``LinearOperatorBlockDiag`` and ``LinearOperatorBlockLowerTriangular`` accept for
``matmul``/``matvec``/``solve``/``solvevec`` either one tensor or a list with one tensor
per block (then they return a list), as TF's do.
"""

from __future__ import annotations

from ..conversion import convert_to_tensor
from ..ops import array_ops, join_split_ops
from . import _util
from .linear_operator import LinearOperator


class BlockwiseOperator(LinearOperator):
    """A ``LinearOperator`` made of blocks, the diagonal ones in ``_diagonal_operators``."""

    def _block_range_dimensions(self):
        return [op.range_dimension for op in self._diagonal_operators]

    def _block_domain_dimensions(self):
        return [op.domain_dimension for op in self._diagonal_operators]

    def _block_range_dimension_tensors(self):
        return [op.range_dimension_tensor() for op in self._diagonal_operators]

    def _block_domain_dimension_tensors(self):
        return [op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _blockwise_arg(self, arg, block_dimensions, arg_dim):
        """``arg`` converted: a list of checked blocks, or one checked tensor (``None`` for
        the whole-tensor dimension check, done by the caller)."""
        if _util.arg_is_blockwise(block_dimensions, arg, arg_dim):
            blocks = list(arg)
            for i, block in enumerate(blocks):
                if not isinstance(block, LinearOperator):
                    block = convert_to_tensor(block)
                    self._check_input_dtype(block)
                    _util.assert_dims_compatible(block_dimensions[i], block.shape[arg_dim])
                    blocks[i] = block
            return blocks, True
        return arg, False

    def _whole_arg(self, x, op_dimension, arg_dim, name):
        x = convert_to_tensor(x, name=name)
        self._check_input_dtype(x)
        _util.assert_dims_compatible(op_dimension, x.shape[arg_dim])
        return x

    def _check_operator_blocks(self, left_operator, right_operator, what):
        """A hook: block-by-block checks of an operator argument."""

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` for a [batch] matrix, a list of blocks (giving a list) or an operator."""
        if isinstance(x, LinearOperator):
            left, right = self._operator_pair(x, adjoint, adjoint_arg, "x")
            self._check_operator_blocks(left, right, "x")
            with self._name_scope(name):
                return self._linop_matmul(left, right)
        with self._name_scope(name):
            arg_dim = -1 if adjoint_arg else -2
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            x, blockwise = self._blockwise_arg(x, block_dimensions, arg_dim)
            if not blockwise:
                op_dimension = self.range_dimension if adjoint else self.domain_dimension
                x = self._whole_arg(x, op_dimension, arg_dim, "x")
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for a [batch] vector, or a list of blocks (giving a list)."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_range_dimensions() if adjoint else self._block_domain_dimensions()
            )
            x, blockwise = self._blockwise_arg(x, block_dimensions, -1)
            if blockwise:
                y_mat = self.matmul([block[..., None] for block in x], adjoint=adjoint)
                return [array_ops.squeeze(y, axis=-1) for y in y_mat]
            op_dimension = self.range_dimension if adjoint else self.domain_dimension
            x = self._whole_arg(x, op_dimension, -1, "x")
            y_mat = self.matmul(x[..., None], adjoint=adjoint)
            return array_ops.squeeze(y_mat, axis=-1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``A x = rhs`` for a [batch] vector, or a list of blocks (giving a list)."""
        with self._name_scope(name):
            block_dimensions = (
                self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
            )
            rhs, blockwise = self._blockwise_arg(rhs, block_dimensions, -1)
            if blockwise:
                rhs_mat = [array_ops.expand_dims(block, axis=-1) for block in rhs]
                solution_mat = self.solve(rhs_mat, adjoint=adjoint)
                return [array_ops.squeeze(x, axis=-1) for x in solution_mat]
            op_dimension = self.domain_dimension if adjoint else self.range_dimension
            rhs = self._whole_arg(rhs, op_dimension, -1, "rhs")
            solution_mat = self.solve(array_ops.expand_dims(rhs, axis=-1), adjoint=adjoint)
            return array_ops.squeeze(solution_mat, axis=-1)

    # How TF's text of an operator ``rhs`` of the wrong dimension names it.
    _solve_operator_name = "rhs"

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs``: ``rhs`` one tensor, a list of blocks or an operator."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left, right = self._operator_pair(rhs, adjoint, adjoint_arg, self._solve_operator_name)
            self._check_operator_blocks(left, right, "rhs")
            with self._name_scope(name):
                return self._linop_solve(left, right)
        with self._name_scope(name):
            return self._solve_blocks(rhs, adjoint, adjoint_arg)

    @property
    def operators(self):
        return self._operators

    def _determinant(self):
        return _util.product_of(self._diagonal_operators, "determinant")

    def _log_abs_determinant(self):
        return _util.sum_of(self._diagonal_operators, "log_abs_determinant")

    def _solve_args(self, rhs, adjoint, adjoint_arg):
        """``(rhs, blockwise)``, checked, for ``solve``."""
        block_dimensions = (
            self._block_domain_dimensions() if adjoint else self._block_range_dimensions()
        )
        arg_dim = -1 if adjoint_arg else -2
        rhs, blockwise = self._blockwise_arg(rhs, block_dimensions, arg_dim)
        if not blockwise:
            op_dimension = self.domain_dimension if adjoint else self.range_dimension
            rhs = self._whole_arg(rhs, op_dimension, arg_dim, "rhs")
        return rhs, blockwise

    def _assert_non_singular(self):
        for operator in self._diagonal_operators:
            operator.assert_non_singular()

    def _eigvals(self):
        return self._diagonal_concat([op.eigvals() for op in self._diagonal_operators])

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    def _diagonal_concat(self, values):
        """Per-block ``[..., n_i]`` vectors as one ``[..., n]`` (batch shapes broadcast)."""
        parts = _util.broadcast_matrix_batch_dims([v[..., None] for v in values])
        return array_ops.squeeze(join_split_ops.concat(parts, axis=-2), axis=-1)

    def _stack_blocks(self, results, blockwise):
        """Per-block results as a list (blockwise arguments) or one tensor."""
        if blockwise:
            return results
        return join_split_ops.concat(_util.broadcast_matrix_batch_dims(results), axis=-2)
