"""``LinearOperatorKronecker``: the Kronecker product ``A1 x A2 x ... x An`` of operators."""

from __future__ import annotations

from ..ops import array_ops, linalg_ops, math_ops
from ..tensor_shape import TensorShape
from . import _composite, _util
from .composition import all_hint, check_operator_list
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorKronecker"]

_EMPTY = "Argument `operators` must be a list of >=1 operators. Received: {}."


@_composite.make_composite_tensor
class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product of operators (``tf.linalg.LinearOperatorKronecker``).

    Products and solves apply each factor to a reshaped argument, never forming the product.

    Example:
        >>> import tapejax as tf
        >>> a = tf.linalg.LinearOperatorDiag([1.0, 2.0])
        >>> b = tf.linalg.LinearOperatorFullMatrix([[1.0, 1.0], [0.0, 1.0]])
        >>> tf.linalg.LinearOperatorKronecker([a, b]).to_dense().numpy()
        array([[1., 1., 0., 0.],
               [0., 1., 0., 0.],
               [0., 0., 2., 2.],
               [0., 0., 0., 2.]], dtype=float32)
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = _util.arguments(locals())
        operators = check_operator_list(operators, _EMPTY)
        self._operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in operators)
                raise TypeError(
                    "Expected every operation in argument `operators` to have the same dtype. "
                    f"Received {list(name_type)}."
                )
        product = "The Kronecker product of {} operators is always {}. Expected argument `{}` to be True. Received: {}."
        is_non_singular = all_hint(
            operators,
            "is_non_singular",
            is_non_singular,
            product.format("non-singular", "non-singular", "is_non_singular", is_non_singular),
        )
        is_self_adjoint = all_hint(
            operators,
            "is_self_adjoint",
            is_self_adjoint,
            product.format("self-adjoint", "self-adjoint", "is_self_adjoint", is_self_adjoint),
        )
        is_positive_definite = all_hint(
            operators,
            "is_positive_definite",
            is_positive_definite,
            product.format(
                "positive-definite",
                "positive-definite",
                "is_positive_definite",
                is_positive_definite,
            ),
        )
        if name is None:
            name = "_x_".join(operator.name for operator in operators)
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        domain_dimension, range_dimension = 1, 1
        for operator in self.operators:
            domain_dimension *= operator.domain_dimension
            range_dimension *= operator.range_dimension
        batch_shape = _util.broadcast_shapes(*(op.batch_shape for op in self.operators))
        return batch_shape.concatenate(TensorShape([range_dimension, domain_dimension]))

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _factorwise(self, method, **hints):
        return LinearOperatorKronecker(
            operators=[getattr(operator, method)() for operator in self.operators],
            is_square=True,
            **hints,
        )

    def _linop_adjoint(self):
        return self._factorwise(
            "adjoint",
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    def _linop_cholesky(self):
        return self._factorwise("cholesky", is_non_singular=True, is_self_adjoint=None)

    def _linop_inverse(self):
        return self._factorwise(
            "inverse",
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    def _solve_matmul_internal(self, x, solve_matmul_fn, adjoint=False, adjoint_arg=False):
        # (A x B) vec(X) = vec(B X A^T): each factor, last first, acts on the argument
        # reshaped so that its dimension is the last one, then moved to the front.
        output = x
        if adjoint_arg:
            if self.dtype.is_complex:
                output = math_ops.conj(output)
        else:
            output = linalg_ops.matrix_transpose(output)
        for o in reversed(self.operators):
            operator_dimension = o.range_dimension if adjoint else o.domain_dimension
            shape = output.shape.as_list()
            dim = int(shape[-2] * shape[-1] // operator_dimension)
            output = array_ops.reshape(output, shape[:-2] + [dim, operator_dimension])
            if self.dtype.is_complex:
                output = math_ops.conj(output)
            output = solve_matmul_fn(o, output, adjoint=adjoint, adjoint_arg=True)
        col_dim = x.shape[-2] if adjoint_arg else x.shape[-1]
        row_dim = self.domain_dimension if adjoint else self.range_dimension
        return array_ops.reshape(output, output.shape.as_list()[:-2] + [row_dim, col_dim])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        def matmul_fn(o, x, adjoint, adjoint_arg):
            return o.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

        return self._solve_matmul_internal(x, matmul_fn, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        def solve_fn(o, rhs, adjoint, adjoint_arg):
            return o.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

        return self._solve_matmul_internal(rhs, solve_fn, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _power(self, operator):
        """How often ``operator``'s determinant enters the product's: ``N / N_i``."""
        return math_ops.cast(self.domain_dimension / operator.domain_dimension, operator.dtype)

    def _determinant(self):
        determinant = 1.0
        for operator in self.operators:
            determinant = determinant * operator.determinant() ** self._power(operator)
        return determinant

    def _log_abs_determinant(self):
        log_abs_det = 0.0
        for operator in self.operators:
            log_abs_det += operator.log_abs_determinant() * self._power(operator)
        return log_abs_det

    def _trace(self):
        trace = 1.0
        for operator in self.operators:
            trace = trace * operator.trace()
        return trace

    def _diag_part(self):
        diag_part = self.operators[0].diag_part()
        for operator in self.operators[1:]:
            diag_part = diag_part[..., :, None] * operator.diag_part()[..., None, :]
            diag_part = array_ops.reshape(diag_part, diag_part.shape.as_list()[:-2] + [-1])
        return diag_part

    def _to_dense(self):
        product = self.operators[0].to_dense()
        for operator in self.operators[1:]:
            product = product[..., :, None, :, None] * operator.to_dense()[..., None, :, None, :]
            s = product.shape.as_list()
            product = array_ops.reshape(product, s[:-4] + [s[-4] * s[-3], s[-2] * s[-1]])
        return product

    def _eigvals(self):
        eigvals = [operator.eigvals() for operator in self.operators]
        product = eigvals[0]
        for eigval in eigvals[1:]:
            product = product[..., None] * eigval[..., None, :]
            product = array_ops.reshape(product, product.shape.as_list()[:-2] + [-1])
        return product

    def _require_square_factors(self):
        if not all(operator.is_square for operator in self.operators):
            raise _util.invalid_argument(
                "All Kronecker factors must be square for the product to be invertible. "
                "Expected hint `is_square` to be True for every operator in argument "
                "`operators`."
            )

    def _assert_non_singular(self):
        self._require_square_factors()
        for operator in self.operators:
            operator.assert_non_singular()

    def _assert_self_adjoint(self):
        self._require_square_factors()
        for operator in self.operators:
            operator.assert_self_adjoint()

    @property
    def _composite_tensor_fields(self):
        return ("operators",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operators": [0] * len(self.operators)}
