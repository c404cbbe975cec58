"""Circulant operators: ``LinearOperatorCirculant`` (1-D), ``...2D`` (block circulant with
circulant blocks) and ``...3D``, held by their spectrum and applied by FFTs."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..asserts import assert_less
from ..conversion import convert_to_tensor
from ..ops import array_ops, creation_ops, linalg_ops, math_ops, reduction_ops
from ..tensor_shape import TensorShape
from . import _checks, _composite, _fft, _util
from .diag import _diag_hints
from .linear_operator import LinearOperator

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D"]


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    dtype = dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
    return math_ops.cast(x, dtype)


def _rotate_transpose(x, shift):
    """``x`` with its last axis moved first (``shift=1``) or its first moved last (-1)."""
    n = x.shape.rank
    perm = [n - 1] + list(range(n - 1)) if shift == 1 else list(range(1, n)) + [0]
    return array_ops.transpose(x, perm=perm)


class _BaseLinearOperatorCirculant(LinearOperator):
    """A [batch] of [nested] block circulant matrices, ``block_depth`` levels deep."""

    def __init__(
        self,
        spectrum,
        block_depth,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        parameters=None,
        name="LinearOperatorCirculant",
    ):
        allowed_block_depths = [1, 2, 3]
        if block_depth not in allowed_block_depths:
            raise ValueError(
                f"Argument `block_depth` must be one of {allowed_block_depths}. "
                f"Received: {block_depth}."
            )
        self._block_depth = block_depth
        self._spectrum = self._check_spectrum_and_return_tensor(spectrum)
        if not self.spectrum.dtype.is_complex:
            is_self_adjoint = _util.settled(
                is_self_adjoint,
                True,
                "A real spectrum always corresponds to a self-adjoint operator. Expected "
                "argument `is_self_adjoint` to be True when `spectrum.dtype.is_complex` = "
                f"True. Received: {is_self_adjoint}.",
            )
        is_square = _util.settled(
            is_square,
            True,
            "A [[nested] block] circulant operator is always square. Expected argument "
            f"`is_square` to be True. Received: {is_square}.",
        )
        super().__init__(
            dtype=dtypes.as_dtype(input_output_dtype),
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _check_spectrum_and_return_tensor(self, spectrum):
        spectrum = _util.convert_nonref_to_tensor(spectrum, name="spectrum")
        if spectrum.shape.rank is not None and spectrum.shape.rank < self.block_depth:
            raise ValueError(
                f"Argument `spectrum` must have at least {self.block_depth} dimensions. "
                f"Received: {spectrum}."
            )
        return spectrum

    @property
    def block_depth(self):
        return self._block_depth

    def block_shape_tensor(self):
        """The block shape (the spectrum's last ``block_depth`` dimensions) as a Tensor."""
        return _util.shape_tensor(self.block_shape.as_list(), name="block_shape")

    @property
    def block_shape(self):
        return self.spectrum.shape[-self.block_depth :]

    @property
    def spectrum(self):
        return self._spectrum

    # The subclasses' rules: an operator of the same class comes out (TF writes them out
    # in each class; its base-class versions apply only to direct base instances).

    def _linop_adjoint(self):
        spectrum = self.spectrum
        if spectrum.dtype.is_complex:
            spectrum = math_ops.conj(spectrum)
        return type(self)(
            spectrum=spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_inverse(self):
        return type(self)(
            spectrum=1.0 / self.spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
            input_output_dtype=self.dtype,
        )

    def _linop_matmul(self, left_operator, right_operator):
        if not isinstance(right_operator, type(self)) or not isinstance(
            left_operator, type(right_operator)
        ):
            return super()._linop_matmul(left_operator, right_operator)
        return type(self)(
            spectrum=left_operator.spectrum * right_operator.spectrum,
            **_diag_hints(left_operator, right_operator),
        )

    def _linop_solve(self, left_operator, right_operator):
        if not isinstance(right_operator, type(self)):
            return super()._linop_solve(left_operator, right_operator)
        return type(self)(
            spectrum=right_operator.spectrum / left_operator.spectrum,
            **_diag_hints(left_operator, right_operator),
        )

    def _vectorize_then_blockify(self, matrix):
        """``[..., N, R]`` -> ``[R, ..., *block_shape]``: columns as block vectors."""
        vec = _rotate_transpose(matrix, shift=1)
        return array_ops.reshape(vec, vec.shape.as_list()[:-1] + self.block_shape.as_list())

    def _unblockify(self, x):
        shape = x.shape.as_list()
        flat = shape[: -self.block_depth] + [int(np.prod(shape[-self.block_depth :]))]
        return array_ops.reshape(x, flat)

    def _unblockify_then_matricize(self, vec):
        return _rotate_transpose(self._unblockify(vec), shift=-1)

    def _fft(self, x):
        return _fft.fft(_to_complex(x), self.block_depth)

    def _ifft(self, x):
        return _fft.fft(_to_complex(x), self.block_depth, inverse=True)

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column, as the convolution kernel ``ifft(spectrum)``, in ``dtype``."""
        with self._name_scope(name):
            h = self._ifft(_to_complex(self.spectrum))
            return math_ops.cast(h, self.dtype)

    def _shape(self):
        s_shape = self._spectrum.shape
        n = int(np.prod(s_shape[-self.block_depth :].as_list()))
        return s_shape[: -self.block_depth].concatenate(TensorShape([n, n]))

    def _shape_tensor(self, spectrum=None):
        return _util.shape_tensor(self.shape.as_list())

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """Raises unless the spectrum is Hermitian (a real convolution kernel)."""
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        with self._name_scope(name):
            max_err = eps * self.domain_dimension_tensor()
            imag_convolution_kernel = math_ops.imag(self.convolution_kernel())
            return assert_less(
                math_ops.abs(imag_convolution_kernel), max_err, message="Spectrum was not Hermitian"
            )

    def _assert_non_singular(self):
        return _checks.assert_no_entries_with_modulus_zero(
            self.spectrum, message="Singular operator:  Spectrum contained zero values."
        )

    def _assert_positive_definite(self):
        return _checks.assert_positive(
            math_ops.real(self.spectrum),
            message="Not positive definite:  Real part of spectrum was not all positive.",
        )

    def _assert_self_adjoint(self):
        return _checks.assert_zero_imag_part(
            self.spectrum,
            message="Not self-adjoint:  The spectrum contained non-zero imaginary part.",
        )

    def _broadcast_batch_dims(self, x, spectrum):
        """``x`` and the spectrum with their batch dimensions broadcast."""
        spectrum = convert_to_tensor(spectrum, name="spectrum")
        batch_shape = spectrum.shape.as_list()[: -self.block_depth]
        spec_mat = array_ops.reshape(spectrum, batch_shape + [-1, 1])
        x, spec_mat = _util.broadcast_matrix_batch_dims((x, spec_mat))
        spectrum = array_ops.reshape(spec_mat, x.shape.as_list()[:-2] + self.block_shape.as_list())
        return x, spectrum

    def _cond(self):
        abs_singular_values = math_ops.abs(self._unblockify(self.spectrum))
        return reduction_ops.reduce_max(abs_singular_values, axis=-1) / reduction_ops.reduce_min(
            abs_singular_values, axis=-1
        )

    def _eigvals(self):
        return convert_to_tensor(self._unblockify(self.spectrum))

    def _spectral(self, x, adjoint, solve):
        """``A x`` (or ``A^-1 x``) as ``ifft(spectrum * fft(x))`` (or ``/ spectrum``)."""
        spectrum = _to_complex(self.spectrum)
        if adjoint:
            spectrum = math_ops.conj(spectrum)
        if not solve:
            x = math_ops.cast(x, spectrum.dtype)
        x, spectrum = self._broadcast_batch_dims(x, spectrum)
        fft_x_vb = self._fft(self._vectorize_then_blockify(x))
        block_vector_result = self._ifft(fft_x_vb / spectrum if solve else spectrum * fft_x_vb)
        return math_ops.cast(self._unblockify_then_matricize(block_vector_result), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_ops.adjoint(x) if adjoint_arg else x
        return self._spectral(x, adjoint, solve=False)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_ops.adjoint(rhs) if adjoint_arg else rhs
        return self._spectral(rhs, adjoint, solve=True)

    def _block_axes(self):
        return [-(i + 1) for i in range(self.block_depth)]

    def _determinant(self):
        det = reduction_ops.reduce_prod(self.spectrum, axis=self._block_axes())
        return math_ops.cast(det, self.dtype)

    def _log_abs_determinant(self):
        lad = reduction_ops.reduce_sum(
            math_ops.log(math_ops.abs(self.spectrum)), axis=self._block_axes()
        )
        return math_ops.cast(lad, self.dtype)

    def _diag_part(self):
        ones_diag = creation_ops.ones(self.shape[:-1].as_list(), dtype=self.dtype)
        diag_value = self.trace() / math_ops.cast(self.domain_dimension, self.dtype)
        return diag_value[..., None] * ones_diag

    def _trace(self):
        spec_rank = self.spectrum.shape.rank
        axis = list(range(spec_rank - self.block_depth, spec_rank))
        re_d_value = reduction_ops.reduce_sum(math_ops.real(self.spectrum), axis=axis)
        if not self.dtype.is_complex:
            return math_ops.cast(re_d_value, self.dtype)
        if self.is_self_adjoint:
            im_d_value = creation_ops.zeros_like(re_d_value)
        else:
            im_d_value = reduction_ops.reduce_sum(math_ops.imag(self.spectrum), axis=axis)
        return math_ops.cast(math_ops.complex(re_d_value, im_d_value), self.dtype)

    @property
    def _composite_tensor_fields(self):
        return ("spectrum", "input_output_dtype")

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"spectrum": self.block_depth}


def _circulant_class(block_depth, class_name, doc):
    """One public class: the base with ``block_depth`` fixed, TF's constructor signature."""

    def __init__(
        self,
        spectrum,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=class_name,
    ):
        parameters = dict(
            spectrum=spectrum,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            name=name,
        )
        _BaseLinearOperatorCirculant.__init__(
            self,
            spectrum,
            block_depth=block_depth,
            input_output_dtype=input_output_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    cls = type(
        class_name,
        (_BaseLinearOperatorCirculant,),
        {"__init__": __init__, "__doc__": doc, "__module__": __name__},
    )
    cls.__init__.__qualname__ = f"{class_name}.__init__"
    return _composite.make_composite_tensor(cls)


LinearOperatorCirculant = _circulant_class(
    1,
    "LinearOperatorCirculant",
    """A [batch] circulant matrix given by its spectrum (``tf.linalg.LinearOperatorCirculant``).

    ``A = F^H diag(spectrum) F`` for the DFT matrix ``F``: products and solves are FFTs,
    ``O(N log N)``. ``input_output_dtype`` (default complex64) is the dtype of arguments
    and results; a real one needs a Hermitian spectrum.

    Example:
        >>> import tapejax as tf
        >>> op = tf.linalg.LinearOperatorCirculant(
        ...     tf.constant([6.0, -2.0, -2.0]), input_output_dtype=tf.float32)
        >>> op.to_dense().numpy()
        array([[0.6666667, 2.6666667, 2.6666667],
               [2.6666667, 0.6666667, 2.6666667],
               [2.6666667, 2.6666667, 0.6666667]], dtype=float32)
    """,
)

LinearOperatorCirculant2D = _circulant_class(
    2,
    "LinearOperatorCirculant2D",
    """A [batch] block circulant matrix with circulant blocks
    (``tf.linalg.LinearOperatorCirculant2D``): spectrum ``[..., N0, N1]``, shape
    ``[..., N0 N1, N0 N1]``, products by 2-D FFTs.""",
)

LinearOperatorCirculant3D = _circulant_class(
    3,
    "LinearOperatorCirculant3D",
    """A [batch] doubly nested block circulant matrix (``tf.linalg.LinearOperatorCirculant3D``):
    spectrum ``[..., N0, N1, N2]``, products by 3-D FFTs.""",
)
