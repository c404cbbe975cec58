"""TF's N-dimensional FFT ops (``tf.fftnd``, ``tf.ifftnd``, ``tf.rfftnd``, ``tf.irfftnd``).

These are TF's raw ops ``FFTND``, ``IFFTND``, ``RFFTND`` and ``IRFFTND``, exported at top
level with required ``fft_length`` and ``axes`` (``tf.signal.fftnd``'s defaults and ``norm``
belong to a wrapper around them). TF 2.21 registers them on GPU only: its CPU build raises
``NotFoundError`` for every call. tapejax computes them on every backend with the GPU
kernel's rules: the axes must be the input's last ones, successive and ascending (one to
three of them); each transformed dimension is cropped or zero-padded to its ``fft_length``
(the real transforms require the input to be at least that long: they crop only); the
inverse transforms divide by the product of ``fft_length``. TF registers no gradient for
them: a tape gives ``None`` through them (TF raises ``LookupError``).

This module must never reorder or resize axes the GPU kernel refuses: its errors are TF's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import tf_type_name

_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
_REAL = (np.dtype(np.float32), np.dtype(np.float64))
_ALLOWED = {_COMPLEX: "complex64, complex128", _REAL: "float, double"}


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _attr_error(attr: str, dt, allowed: tuple, op_name: str) -> InvalidArgumentError:
    return _iae(
        f"Value for attr '{attr}' of {tf_type_name(dt)} is not in the list of allowed values: "
        f"{_ALLOWED[allowed]}",
        op_name,
    )


def _signal(value, allowed: tuple, attr: str, op_name: str) -> Tensor:
    """TF's ``args_to_matching_eager``: a Tensor keeps its dtype; other values convert as
    usual when that gives an allowed dtype, else with the first allowed one as a hint."""
    if getattr(value, "_is_variable", False):
        value = value._dense_read()
    if not isinstance(value, Tensor):
        t = convert_to_tensor(value)
        value = t if t._v.dtype in allowed else convert_to_tensor(value, dtype_hint=allowed[0])
    if value._v.dtype not in allowed:
        raise _attr_error(attr, value._v.dtype, allowed, op_name)
    return value


def _int_list(value, what: str, op_name: str) -> list[int]:
    """``fft_length`` or ``axes`` as Python ints: TF converts them to int32 tensors."""
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = convert_to_tensor(value, dtype=dtypes.int32)  # TF's ValueError for another dtype
        if isinstance(t._value, jax.core.Tracer):
            raise NotImplementedError(
                f"tapejax.{op_name.lower()}: `{what}` sets the output's shape, so it must be "
                "known when the op runs; inside tapejax.function pass a Python list."
            )
        arr = np.asarray(t._value)
    else:
        if value is None:
            convert_to_tensor(value)  # TF's ValueError
        arr = np.asarray(value)
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
    if arr.ndim != 1:
        raise _iae(f"{what} must be a vector, got shape {list(arr.shape)}", op_name)
    return [int(v) for v in arr]


def _dims_text(shape) -> str:
    return "[" + ",".join(map(str, shape)) + "]"


def _transform_lengths(x: Tensor, fft_length, axes, real: bool, forward: bool, op_name: str):
    """TF's kernel checks (``FFTNBase`` and the GPU kernel's rank limit), in its order; the
    validated lengths."""
    axes = _int_list(axes, "axes", op_name)
    lengths = _int_list(fft_length, "fft_length", op_name)
    shape, rank, k = x._v.shape, x._v.ndim, len(axes)
    if rank < k:
        raise _iae(f"Input must have rank of at least {k} but got: {_dims_text(shape)}", op_name)
    normalized = [a + rank if a < 0 else a for a in axes]
    for i in range(1, k):
        if normalized[i - 1] + 1 != normalized[i]:
            raise _iae("axes must be successive and ascending.", op_name)
    if k == 0:
        raise _iae("Only 1D, 2D and 3D FFTs supported.", op_name)
    if normalized[-1] != rank - 1:
        raise _iae("The last axis to perform transform on must be -1.", op_name)
    if len(lengths) != k:
        raise _iae(f"fft_length must have shape [{k}], but got: {len(lengths)}.", op_name)
    for i, n in enumerate(lengths):
        if n < 0:
            raise _iae(f"fft_length[{i}] must >= 0, but got: {n}", op_name)
        if real:
            least = n // 2 + 1 if not forward and i == k - 1 else n
            index = rank - k + i
            if shape[index] != 0 and shape[index] < least:
                raise _iae(
                    f"Input dimension {index} must have length of at least {least} but got: "
                    f"{shape[index]}",
                    op_name,
                )
    return tuple(lengths)


def _output_shape(in_shape, lengths, real: bool, forward: bool) -> tuple:
    tail = list(lengths)
    if real and forward and tail[-1] != 0:
        tail[-1] = tail[-1] // 2 + 1
    return tuple(in_shape[: len(in_shape) - len(tail)]) + tuple(tail)


def _fftnd_fn(x, *, lengths, kind, out_dtype):
    """One of the four transforms over the last ``len(lengths)`` axes (``kind``: 'c2c',
    'ic2c', 'r2c', 'c2r'), cropping or zero-padding each to its length."""
    real, forward = kind in ("r2c", "c2r"), kind in ("c2c", "r2c")
    out_shape = _output_shape(x.shape, lengths, real, forward)
    if x.size == 0 or 0 in out_shape:
        return jnp.zeros(out_shape, out_dtype)
    k = len(lengths)
    axes = tuple(range(x.ndim - k, x.ndim))
    if kind == "c2c":
        y = jnp.fft.fftn(x, s=lengths, axes=axes)
    elif kind == "ic2c":
        y = jnp.fft.ifftn(x, s=lengths, axes=axes)
    elif kind == "r2c":
        y = jnp.fft.rfftn(x, s=lengths, axes=axes)
    else:
        # The kernel reads the first fft_length[-1] // 2 + 1 coefficients of the last axis.
        x = x[..., : lengths[-1] // 2 + 1]
        y = jnp.fft.irfftn(x, s=lengths, axes=axes)
    return y.astype(out_dtype)


_OPS = {
    kind: Op(name, _fftnd_fn, differentiable=False)
    for kind, name in (("c2c", "FFTND"), ("ic2c", "IFFTND"), ("r2c", "RFFTND"), ("c2r", "IRFFTND"))
}
_TYPE_CODES = {"float32": 1, "float64": 2, "complex64": 8, "complex128": 18}


def _transform(input, fft_length, axes, kind: str, out_dtype=None):  # noqa: A002 - TF's name
    op = _OPS[kind]
    real, forward = kind in ("r2c", "c2r"), kind in ("c2c", "r2c")
    in_allowed, out_allowed = (_COMPLEX, _REAL) if kind == "c2r" else (_REAL, _COMPLEX)
    if not real:
        in_allowed = out_allowed = _COMPLEX
    attr_in = "Treal" if kind == "r2c" else "Tcomplex"
    if real:
        attr_out = "Tcomplex" if forward else "Treal"
        dt = canonical_np_dtype(dtypes.as_dtype(out_dtype)._np)
        if dt not in out_allowed:
            raise _attr_error(attr_out, dt, out_allowed, op.name)
    x = _signal(input, in_allowed, attr_in, op.name)
    lengths = _transform_lengths(x, fft_length, axes, real, forward, op.name)
    if not real:
        dt = x._v.dtype
    elif in_allowed.index(x._v.dtype) != out_allowed.index(dt):
        direction = "forward" if forward else "backward"
        raise _iae(
            f"Wrong types for {direction} real FFT: in={_TYPE_CODES[x._v.dtype.name]} "
            f"out={_TYPE_CODES[dt.name]}",
            op.name,
        )
    if len(lengths) > 3 and x._v.size:  # TF returns an empty input before this check
        raise _iae("Only 1D, 2D and 3D FFTs supported.", op.name)
    static = (("kind", kind), ("lengths", lengths), ("out_dtype", dt))
    return apply(op, (x,), static)


def fftnd(input, fft_length, axes, name=None):  # noqa: A002 - TF's name
    """The N-dimensional discrete Fourier transform over ``axes`` (``tf.fftnd``, TF's raw
    ``FFTND``), complex in and out.

    ``axes`` are the input's last one to three axes, successive and ascending (negative
    values count from the end); each is cropped or zero-padded to its ``fft_length``.

    Args:
      input: complex64 or complex128 tensor (other values convert to complex64).
      fft_length: int32 vector, the transform's length along each of ``axes``.
      axes: int32 vector of the same length.
      name: ignored (TF's op name).

    Returns:
      A tensor of ``input``'s dtype whose transformed dimensions are ``fft_length``.

    Raises:
      InvalidArgumentError: TF's kernel's, for axes that are not the trailing ones, lengths
        that do not match them, or more than three axes.

    Example:
        >>> import tapejax as tf
        >>> tf.fftnd([[1.0, 2.0], [3.0, 4.0]], fft_length=[2, 2], axes=[0, 1]).numpy()
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _transform(input, fft_length, axes, "c2c")


def ifftnd(input, fft_length, axes, name=None):  # noqa: A002 - TF's name
    """The inverse of ``fftnd`` (``tf.ifftnd``, TF's raw ``IFFTND``): divided by the product
    of ``fft_length``.

    Example:
        >>> import tapejax as tf
        >>> tf.ifftnd([[10.0, -2.0], [-4.0, 0.0]], fft_length=[2, 2], axes=[-2, -1]).numpy()
        array([[1.+0.j, 2.+0.j],
               [3.+0.j, 4.+0.j]], dtype=complex64)
    """
    return _transform(input, fft_length, axes, "ic2c")


def rfftnd(input, fft_length, axes, Tcomplex=dtypes.complex64, name=None):  # noqa: A002, N803
    """The N-dimensional FFT of a real signal (``tf.rfftnd``, TF's raw ``RFFTND``): the last
    axis keeps its ``fft_length[-1] // 2 + 1`` non-negative frequencies.

    The input must be at least ``fft_length`` long on each axis (it is cropped, never
    padded); ``Tcomplex`` must be complex64 for float32 input and complex128 for float64.

    Example:
        >>> import tapejax as tf
        >>> tf.rfftnd([[1.0, 2.0, 3.0, 4.0]], fft_length=[4], axes=[-1]).numpy()
        array([[10.+0.j, -2.+2.j, -2.+0.j]], dtype=complex64)
    """
    return _transform(input, fft_length, axes, "r2c", Tcomplex)


def irfftnd(input, fft_length, axes, Treal=dtypes.float32, name=None):  # noqa: A002, N803
    """The inverse of ``rfftnd`` (``tf.irfftnd``, TF's raw ``IRFFTND``): a real signal whose
    transformed dimensions are ``fft_length``, from its ``fft_length[-1] // 2 + 1``
    non-negative frequencies on the last axis.

    Example:
        >>> import tapejax as tf
        >>> x = tf.complex([[10.0, -2.0, -2.0]], [[0.0, 2.0, 0.0]])
        >>> tf.irfftnd(x, fft_length=[4], axes=[-1]).numpy()
        array([[1., 2., 3., 4.]], dtype=float32)
    """
    return _transform(input, fft_length, axes, "c2r", Treal)
