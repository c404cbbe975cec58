"""``LinearOperatorPermutation``: the [batch] permutation matrix of index vectors."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..ops import array_ops, creation_ops, linalg_ops, math_ops, selection_ops, sort_ops
from . import _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorPermutation"]


@_composite.make_composite_tensor
class LinearOperatorPermutation(LinearOperator):
    """A [batch] permutation matrix: ``(P x)[i] = x[perm[i]]``
    (``tf.linalg.LinearOperatorPermutation``).

    Products are gathers, the determinant's absolute value is 1.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorPermutation([2, 0, 1])
        >>> op.matvec([10.0, 20.0, 30.0]).numpy()
        array([30., 10., 20.], dtype=float32)
    """

    def __init__(
        self,
        perm,
        dtype=dtypes.float32,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorPermutation",
    ):
        parameters = _util.arguments(locals())
        self._perm = _util.convert_nonref_to_tensor(perm, name="perm")
        self._check_perm(self._perm, _util.static_value(perm))
        if is_non_singular is False:
            raise ValueError(
                "A Permutation operator is always non-singular. Expected argument "
                f"`is_non_singular` to be True. Received: {is_non_singular}."
            )
        is_square = _util.settled(
            is_square,
            True,
            "A Permutation operator is always square. Expected argument `is_square` to be "
            f"True. Received: {is_square}.",
        )
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    def _check_perm(self, perm, static_perm):
        if perm.shape.rank is not None and perm.shape.rank < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {perm}.")
        if not perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}.")
        if static_perm is not None:
            sorted_perm = np.sort(static_perm, axis=-1)
            if np.any(sorted_perm != np.arange(0, static_perm.shape[-1])):
                raise ValueError(
                    "Argument `perm` must be a vector of unique integers from 0 to "
                    f"{static_perm.shape[-1] - 1}."
                )

    def _shape(self):
        perm_shape = self._perm.shape
        return perm_shape.concatenate(perm_shape[-1:])

    def _shape_tensor(self):
        return _util.shape_tensor(self.shape.as_list())

    def _assert_non_singular(self):
        return None

    def _domain_dimension_tensor(self, perm=None):
        perm = perm if perm is not None else self.perm
        return convert_to_tensor(perm.shape[-1])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        perm = convert_to_tensor(self.perm)
        if adjoint and not self.is_self_adjoint:
            perm = sort_ops.argsort(perm, axis=-1)
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        broadcast_shape = array_ops.broadcast_static_shape(x.shape[:-1], perm.shape).as_list()
        k = x.shape[-1]
        x = array_ops.broadcast_to(x, broadcast_shape + [k])
        perm = array_ops.broadcast_to(perm, broadcast_shape)
        m = x.shape[-2]
        x = array_ops.reshape(x, [-1, m, k])
        perm = array_ops.reshape(perm, [-1, m])
        y = selection_ops.gather(x, perm, axis=-2, batch_dims=1)
        return array_ops.reshape(y, broadcast_shape + [k])

    def _log_abs_determinant(self):
        return creation_ops.zeros(self.batch_shape.as_list(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        perm = convert_to_tensor(self.perm)
        n = perm.shape[-1]
        return math_ops.cast(math_ops.equal(_indices(n), perm[..., None]), self.dtype)

    def _diag_part(self):
        perm = convert_to_tensor(self.perm)
        n = perm.shape[-1]
        return math_ops.cast(math_ops.equal(_indices(n), perm), self.dtype)

    def _cond(self):
        return creation_ops.ones(self.batch_shape.as_list(), dtype=self.dtype)

    @property
    def perm(self):
        return self._perm

    @property
    def _composite_tensor_fields(self):
        return ("perm", "dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"perm": 1}


def _indices(n):
    """``range(n)`` as an int32 constant (built on the host: ``n`` is static)."""
    return convert_to_tensor(np.arange(n, dtype=np.int32))
