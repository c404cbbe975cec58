"""``LinearOperatorTridiag``: a square tridiagonal matrix in TF's three diagonal formats."""

from __future__ import annotations

from ..asserts import assert_equal
from ..conversion import convert_to_tensor
from ..ops import array_ops, join_split_ops, linalg_ops, math_ops, pad_ops, tridiagonal_ops
from . import _checks, _composite, _util
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorTridiag"]

_COMPACT = "compact"
_MATRIX = "matrix"
_SEQUENCE = "sequence"
_DIAGONAL_FORMATS = frozenset({_COMPACT, _MATRIX, _SEQUENCE})


@_composite.make_composite_tensor
class LinearOperatorTridiag(LinearOperator):
    """A [batch] square tridiagonal matrix (``tf.linalg.LinearOperatorTridiag``).

    ``diagonals`` is ``[..., 3, N]`` (``'compact'``: superdiagonal, diagonal, subdiagonal,
    with ``superdiag[..., -1]`` and ``subdiag[..., 0]`` ignored), a list of those three
    ``[..., N]`` tensors (``'sequence'``) or the ``[..., N, N]`` matrix (``'matrix'``).
    Products and solves are ``tridiagonal_matmul`` and ``tridiagonal_solve``.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorTridiag(
        ...     [[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 1.0, 1.0]])
        >>> op.to_dense().numpy()
        array([[2., 1., 0.],
               [1., 2., 1.],
               [0., 1., 2.]], dtype=float32)
    """

    def __init__(
        self,
        diagonals,
        diagonals_format=_COMPACT,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorTridiag",
    ):
        parameters = _util.arguments(locals())
        if diagonals_format not in _DIAGONAL_FORMATS:
            raise ValueError(
                "Argument `diagonals_format` must be one of compact, matrix, or sequence. "
                f"Received : {diagonals_format}."
            )
        if diagonals_format == _SEQUENCE:
            self._diagonals = [
                _util.convert_nonref_to_tensor(d, name=f"diag_{i}") for i, d in enumerate(diagonals)
            ]
            dtype = self._diagonals[0].dtype
        else:
            self._diagonals = _util.convert_nonref_to_tensor(diagonals, name="diagonals")
            dtype = self._diagonals.dtype
        self._diagonals_format = diagonals_format
        super().__init__(dtype=dtype, parameters=parameters, name=name, **_util.hints_in(locals()))

    def _shape(self):
        if self.diagonals_format == _MATRIX:
            return self.diagonals.shape
        if self.diagonals_format == _COMPACT:
            d_shape = self.diagonals.shape[:-2].concatenate(self.diagonals.shape[-1:])
        else:
            batch = _util.broadcast_shapes(*(d.shape[:-1] for d in self.diagonals))
            d_shape = batch.concatenate(self.diagonals[1].shape[-1:])
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self, diagonals=None):
        return _util.shape_tensor(self.shape.as_list())

    def _assert_self_adjoint(self):
        diag_message = (
            "This tridiagonal operator contained non-zero imaginary values on the diagonal."
        )
        off_diag_message = (
            "This tridiagonal operator has non-conjugate subdiagonal and superdiagonal."
        )
        if self.diagonals_format == _MATRIX:
            assert_equal(
                self.diagonals,
                linalg_ops.adjoint(self.diagonals),
                message="Matrix was not equal to its adjoint.",
            )
            return None
        superdiag, diag, subdiag = self._three_diagonals()
        _checks.assert_zero_imag_part(diag, message=diag_message)
        subdiag = pad_ops.roll(subdiag, shift=-1, axis=-1)
        assert_equal(
            math_ops.conj(subdiag[..., :-1]), superdiag[..., :-1], message=off_diag_message
        )
        return None

    def _construct_adjoint_diagonals(self, diagonals):
        if self.diagonals_format == _SEQUENCE:
            diagonals = [math_ops.conj(d) for d in reversed(diagonals)]
            diagonals[0] = pad_ops.roll(diagonals[0], shift=-1, axis=-1)
            diagonals[2] = pad_ops.roll(diagonals[2], shift=1, axis=-1)
            return diagonals
        if self.diagonals_format == _MATRIX:
            return linalg_ops.adjoint(diagonals)
        diagonals = math_ops.conj(diagonals)
        superdiag, diag, subdiag = join_split_ops.unstack(diagonals, num=3, axis=-2)
        new_superdiag = pad_ops.roll(subdiag, shift=-1, axis=-1)
        new_subdiag = pad_ops.roll(superdiag, shift=1, axis=-1)
        return join_split_ops.stack([new_superdiag, diag, new_subdiag], axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return tridiagonal_ops.tridiagonal_matmul(
            diagonals, x, diagonals_format=self.diagonals_format
        )

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diagonals = self.diagonals
        if adjoint:
            diagonals = self._construct_adjoint_diagonals(diagonals)
        k = self.shape[-1]
        rhs_shape = rhs.shape.as_list()
        broadcast_shape = array_ops.broadcast_static_shape(
            self.batch_shape, rhs.shape[:-2]
        ).as_list()
        rhs = array_ops.broadcast_to(rhs, broadcast_shape + rhs_shape[-2:])
        if self.diagonals_format == _MATRIX:
            diagonals = array_ops.broadcast_to(diagonals, broadcast_shape + [k, k])
        elif self.diagonals_format == _COMPACT:
            diagonals = array_ops.broadcast_to(diagonals, broadcast_shape + [3, k])
        else:
            diagonals = [array_ops.broadcast_to(d, broadcast_shape + [k]) for d in diagonals]
        return tridiagonal_ops.tridiagonal_solve(
            diagonals,
            rhs,
            diagonals_format=self.diagonals_format,
            transpose_rhs=adjoint_arg,
            conjugate_rhs=adjoint_arg,
        )

    def _diag_part(self):
        if self.diagonals_format == _MATRIX:
            return linalg_ops.diag_part(self.diagonals)
        if self.diagonals_format == _SEQUENCE:
            return array_ops.broadcast_to(self.diagonals[1], self.shape[:-1].as_list())
        return self.diagonals[..., 1, :]

    def _to_dense(self):
        if self.diagonals_format == _MATRIX:
            return self.diagonals
        superdiag, diag, subdiag = self._three_diagonals()
        if self.diagonals_format == _SEQUENCE:
            shape = self.shape[:-1].as_list()
            superdiag, diag, subdiag = (
                array_ops.broadcast_to(d, shape) for d in (superdiag, diag, subdiag)
            )
        # TF's matrix_diag(k=(-1, 1), align="LEFT_RIGHT"): superdiag[..., -1] and
        # subdiag[..., 0] fall outside the matrix.
        return (
            linalg_ops.diag(diag)
            + linalg_ops.diag(superdiag[..., :-1], k=1)
            + linalg_ops.diag(subdiag[..., 1:], k=-1)
        )

    def _three_diagonals(self):
        """``(superdiag, diag, subdiag)`` of the compact or sequence format."""
        if self.diagonals_format == _COMPACT:
            diagonals = convert_to_tensor(self.diagonals)
            return tuple(diagonals[..., i, :] for i in range(3))
        return tuple(self.diagonals)

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._diagonals_format

    @property
    def _composite_tensor_fields(self):
        return ("diagonals", "diagonals_format")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"diagonals": [1, 1, 1] if self.diagonals_format == _SEQUENCE else 2}
