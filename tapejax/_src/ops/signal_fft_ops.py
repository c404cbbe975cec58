"""``tf.signal``'s Fourier transforms: the raw ops ``fft``/``ifft`` (1-D to 3-D), the real
transforms ``rfft``/``irfft`` (1-D to 3-D) with TF's ``fft_length`` wrappers, the
N-dimensional wrappers ``fftnd``/``ifftnd``/``rfftnd``/``irfftnd`` (defaults and ``norm``
around the raw ops of ``fft_ops``), and ``fftshift``/``ifftshift``.

The transforms are ``fft_ops``'s (one pure function for every rank and kind); this module
adds TF's per-rank op names, their kernel checks and their gradients. TF registers
gradients for FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT, RFFT2D and IRFFT2D:
they are the transforms' true derivatives, which JAX computes. RFFT3D and IRFFT3D have none
(TF raises ``LookupError``; a tape gives ``None`` through them, as for every op TF registers
without a gradient).

This module must never resize an input otherwise than TF's wrapper and kernel together
do: zero-padded up to ``fft_length`` (the wrapper), cropped down to it (the kernel).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import fft_ops
from ._array_common import _concrete
from ._helpers import tf_type_name
from .creation_ops import zeros
from .fft_ops import _COMPLEX, _REAL, _dims_text, _fftnd_fn, _iae, _int_list, _signal
from .join_split_ops import concat
from .pad_ops import roll

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "fftnd",
    "fftshift",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftnd",
    "ifftshift",
    "irfft",
    "irfft2d",
    "irfft3d",
    "irfftnd",
    "rfft",
    "rfft2d",
    "rfft3d",
    "rfftnd",
]

_SUFFIX = {1: "", 2: "2D", 3: "3D"}
_OPS = {
    (kind, rank): Op(
        f"{prefix}{_SUFFIX[rank]}",
        _fftnd_fn,
        differentiable=not (rank == 3 and kind in ("r2c", "c2r")),
    )
    for kind, prefix in (("c2c", "FFT"), ("ic2c", "IFFT"), ("r2c", "RFFT"), ("c2r", "IRFFT"))
    for rank in (1, 2, 3)
}


def _raw(x: Tensor, kind: str, rank: int, lengths=None, out_dtype=None):
    """The raw op ``kind`` of ``rank`` on ``x`` (checked and converted), with TF's kernel
    checks (``FFTBase::Compute``) in TF's order. The op zero-pads short dimensions itself
    (what TF's wrappers do with ``tf.pad`` before the kernel), so the kernel's check that
    dimensions are long enough never fires."""
    op = _OPS[(kind, rank)]
    shape = x._v.shape
    if len(shape) < rank:
        raise _iae(f"Input must have rank of at least {rank} but got: {_dims_text(shape)}", op.name)
    if lengths is None:
        lengths = tuple(shape[len(shape) - rank :])
    else:
        if len(lengths) != rank:
            raise _iae(f"fft_length must have shape [{rank}]", op.name)
        for i, n in enumerate(lengths):
            if n < 0:
                raise _iae(f"fft_length[{i}] must >= 0, but got: {n}", op.name)
            # TF's wrappers do not pad an input with an empty dimension: the kernel checks
            # its other dimensions are long enough.
            least = n // 2 + 1 if kind == "c2r" and i == rank - 1 else n
            index = len(shape) - rank + i
            if 0 in shape and shape[index] != 0 and shape[index] < least:
                raise _iae(
                    f"Input dimension {index} must have length of at least {least} but got: "
                    f"{shape[index]}",
                    op.name,
                )
        lengths = tuple(lengths)
    dt = x._v.dtype if out_dtype is None else out_dtype
    return apply(op, (x,), (("kind", kind), ("lengths", lengths), ("out_dtype", dt)))


def _complex_transform(input, kind: str, rank: int):  # noqa: A002 - TF's name
    op = _OPS[(kind, rank)]
    return _raw(_signal(input, _COMPLEX, "Tcomplex", op.name), kind, rank)


def fft(input, name=None):  # noqa: A002 - TF's name
    """The discrete Fourier transform over the last axis (``tf.signal.fft``, TF's raw ``FFT``).

    Args:
      input: complex64 or complex128 tensor of rank at least 1 (Python and NumPy values
        convert to complex64).
      name: ignored (TF's op name).

    Returns:
      A tensor of ``input``'s shape and dtype.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.fft([1.0, 2.0, 3.0, 4.0]).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    """
    return _complex_transform(input, "c2c", 1)


def ifft(input, name=None):  # noqa: A002 - TF's name
    """The inverse of ``fft`` over the last axis (``tf.signal.ifft``): divided by its length."""
    return _complex_transform(input, "ic2c", 1)


def fft2d(input, name=None):  # noqa: A002 - TF's name
    """The 2-D discrete Fourier transform over the last two axes (``tf.signal.fft2d``)."""
    return _complex_transform(input, "c2c", 2)


def ifft2d(input, name=None):  # noqa: A002 - TF's name
    """The inverse of ``fft2d`` over the last two axes (``tf.signal.ifft2d``)."""
    return _complex_transform(input, "ic2c", 2)


def fft3d(input, name=None):  # noqa: A002 - TF's name
    """The 3-D discrete Fourier transform over the last three axes (``tf.signal.fft3d``)."""
    return _complex_transform(input, "c2c", 3)


def ifft3d(input, name=None):  # noqa: A002 - TF's name
    """The inverse of ``fft3d`` over the last three axes (``tf.signal.ifft3d``)."""
    return _complex_transform(input, "ic2c", 3)


def _preferred(value, hint) -> Tensor:
    """TF's ``convert_to_tensor(value, preferred_dtype=hint)``: a Tensor keeps its dtype."""
    if getattr(value, "_is_variable", False):
        return value._dense_read()
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype_hint=hint)


def _rank_at_least(x: Tensor, rank: int) -> None:
    """TF's static check ``shape.with_rank_at_least(rank)``."""
    if x._v.ndim < rank:
        raise ValueError(f"Shape {x.shape} must have rank at least {rank}")


def _lengths(fft_length, op_name: str):
    return tuple(_int_list(fft_length, "fft_length", op_name))


def _pad_to(x: Tensor, lengths, reverse: bool = False) -> Tensor:
    """TF's ``_maybe_pad_for_rfft``: zero-pads (never crops) the dimensions ``lengths``
    cover, the last one to ``lengths[-1] // 2 + 1`` for the inverse real transforms; an
    input with an empty dimension passes unchanged."""
    shape = x._v.shape
    if 0 in shape or not lengths:
        return x
    want = list(lengths)
    if reverse:
        want[-1] = want[-1] // 2 + 1
    tail = shape[-len(want) :]
    # Zeros concatenated, not tf.pad: the same values and gradient, and tapejax.pad caches
    # its compiled ops by a constant that compares equal across dtypes (0j == 0.0).
    first = len(shape) - len(tail)
    for i, (n, d) in enumerate(zip(want, tail)):
        if n > d:
            extra = list(x._v.shape)
            extra[first + i] = n - d
            x = concat([x, zeros(extra, dtype=x.dtype)], axis=first + i)
    return x


def _real_dtype_of(x: Tensor):
    return np.dtype(np.float32) if x._v.dtype == np.complex64 else np.dtype(np.float64)


def _complex_dtype_of(x: Tensor):
    return np.dtype(np.complex64) if x._v.dtype == np.float32 else np.dtype(np.complex128)


def _check_real(x: Tensor) -> None:
    if x._v.dtype not in _REAL:
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!s}")


def _check_complex(x: Tensor) -> None:
    if x._v.dtype not in _COMPLEX:
        raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x!s}")


def _rfft(input_tensor, fft_length, rank: int):
    x = _preferred(input_tensor, dtypes.float32)
    _check_real(x)
    _rank_at_least(x, rank)
    op_name = _OPS[("r2c", rank)].name
    if fft_length is None:
        lengths = tuple(x._v.shape[x._v.ndim - rank :])
    else:
        lengths = _lengths(fft_length, op_name)
    return _raw(x, "r2c", rank, lengths, _complex_dtype_of(x))


def _irfft(input_tensor, fft_length, rank: int):
    x = _preferred(input_tensor, dtypes.complex64)
    _rank_at_least(x, rank)
    _check_complex(x)
    op_name = _OPS[("c2r", rank)].name
    if fft_length is None:
        lengths = list(x._v.shape[x._v.ndim - rank :])
        lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        lengths = tuple(lengths)
    else:
        lengths = _lengths(fft_length, op_name)
    return _raw(x, "c2r", rank, lengths, _real_dtype_of(x))


def rfft(input_tensor, fft_length=None, name=None):
    """The discrete Fourier transform of a real signal over its last axis
    (``tf.signal.rfft``): the ``fft_length // 2 + 1`` non-negative frequencies.

    Args:
      input_tensor: float32 or float64 tensor of rank at least 1 (Python values convert
        to float32).
      fft_length: ``[n]``, the transform's length; defaults to the last dimension. A
        shorter input is zero-padded to it, a longer one cropped.
      name: ignored (TF's op name).

    Returns:
      complex64 (complex128 for float64 input), the last dimension ``n // 2 + 1``.

    Raises:
      ValueError: for a non-float input (TF's text).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.rfft([1.0, 2.0, 3.0, 4.0]).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _rfft(input_tensor, fft_length, 1)


def irfft(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft`` over the last axis (``tf.signal.irfft``): a real signal of
    length ``fft_length`` (default ``2 * (n - 1)`` for ``n`` input frequencies).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.irfft(tf.signal.rfft([1.0, 2.0, 3.0, 4.0])).numpy()
        array([1., 2., 3., 4.], dtype=float32)
    """
    return _irfft(input_tensor, fft_length, 1)


def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D ``rfft`` over the last two axes (``tf.signal.rfft2d``)."""
    return _rfft(input_tensor, fft_length, 2)


def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft2d`` over the last two axes (``tf.signal.irfft2d``)."""
    return _irfft(input_tensor, fft_length, 2)


def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D ``rfft`` over the last three axes (``tf.signal.rfft3d``). TF registers no
    gradient for it: a tape gives ``None`` through it."""
    return _rfft(input_tensor, fft_length, 3)


def irfft3d(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft3d`` (``tf.signal.irfft3d``). TF registers no gradient for it:
    a tape gives ``None`` through it."""
    return _irfft(input_tensor, fft_length, 3)


def _nd_arguments(input_tensor, axes, hint):
    """The wrappers' defaults: every axis; the input's whole shape as ``fft_length``."""
    x = _preferred(input_tensor, hint)
    if axes is None:
        axes = list(range(x._v.ndim))
    else:
        axes = _int_list(axes, "axes", "FFTND")
    return x, axes


def _nd_lengths(x: Tensor, fft_length, inverse_real: bool):
    if fft_length is not None:
        return _lengths(fft_length, "FFTND")
    lengths = list(x._v.shape)
    if inverse_real and lengths:
        lengths[-1] = max(0, 2 * (lengths[-1] - 1))
    return tuple(lengths)


def _normalized(x: Tensor, lengths, norm, inverse: bool) -> Tensor:
    """``norm``: "backward" (or None) leaves the input; "forward" divides a forward
    transform's input by the product of ``lengths`` (multiplies an inverse's); "ortho" by
    its square root. Other strings are ignored, as in TF."""
    if norm not in ("forward", "ortho"):
        return x
    n = 1
    for length in lengths:
        n *= int(length)
    scale = n if norm == "forward" else np.sqrt(n)
    return x * scale if inverse else x / scale


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-dimensional FFT over ``axes`` (``tf.signal.fftnd``): the raw ``tapejax.fftnd``
    with defaults (every axis, the input's shape) and a ``norm``.

    The raw op's rules apply: ``axes`` must be the input's last one to three axes. TF 2.21
    has no CPU kernel for it (``NotFoundError``); tapejax computes it on every backend. TF
    registers no gradient for it: a tape gives ``None`` through it.

    Args:
      input_tensor: complex tensor (Python values convert to complex64).
      fft_length: the transform's length on each axis; shorter dimensions are zero-padded.
      axes: the axes to transform; default every axis.
      norm: None or "backward" (unscaled), "forward" (divided by the product of
        ``fft_length``) or "ortho" (by its square root).
      name: ignored (TF's op name).

    Returns:
      A complex tensor of ``input_tensor``'s dtype.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.fftnd([[1.0, 2.0], [3.0, 4.0]]).numpy()
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    x, axes = _nd_arguments(input_tensor, axes, dtypes.complex64)
    _rank_at_least(x, len(axes))
    lengths = _nd_lengths(x, fft_length, False)
    x = _normalized(_pad_to(x, lengths), lengths, norm, inverse=False)
    return fft_ops.fftnd(x, list(lengths), axes)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of ``fftnd`` (``tf.signal.ifftnd``); see ``fftnd`` for the arguments."""
    x, axes = _nd_arguments(input_tensor, axes, dtypes.complex64)
    _rank_at_least(x, len(axes))
    lengths = _nd_lengths(x, fft_length, False)
    x = _normalized(_pad_to(x, lengths), lengths, norm, inverse=True)
    return fft_ops.ifftnd(x, list(lengths), axes)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-dimensional FFT of a real signal (``tf.signal.rfftnd``); see ``fftnd``."""
    x, axes = _nd_arguments(input_tensor, axes, dtypes.float32)
    _check_real(x)
    _rank_at_least(x, len(axes))
    lengths = _nd_lengths(x, fft_length, False)
    x = _normalized(_pad_to(x, lengths), lengths, norm, inverse=False)
    return fft_ops.rfftnd(x, list(lengths), axes, Tcomplex=_complex_dtype_of(x))


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of ``rfftnd`` (``tf.signal.irfftnd``): the last dimension of
    ``fft_length`` defaults to ``2 * (n - 1)``; see ``fftnd``."""
    x, axes = _nd_arguments(input_tensor, axes, dtypes.complex64)
    _rank_at_least(x, len(axes))
    _check_complex(x)
    lengths = _nd_lengths(x, fft_length, True)
    x = _normalized(_pad_to(x, lengths, reverse=True), lengths, norm, inverse=True)
    return fft_ops.irfftnd(x, list(lengths), axes, Treal=_real_dtype_of(x))


def _shifted(x, axes, sign: int):
    x = _preferred(x, None)
    shape = x._v.shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [sign * (d // 2) for d in shape]
    elif isinstance(axes, int):
        shift = sign * (shape[axes] // 2)
    else:
        dt = np.dtype(axes._v.dtype) if isinstance(axes, Tensor) else np.asarray(axes).dtype
        if dt.kind not in "iu":
            # TF adds the rank (int32) to the axes before gathering the shifts.
            raise InvalidArgumentError(
                None,
                None,
                f"cannot compute AddV2 as input #1(zero-based) was expected to be a "
                f"{tf_type_name(dt)} tensor but is a int32 tensor [Op:AddV2]",
            )
        if isinstance(axes, Tensor) and not _concrete(axes):
            name = "fftshift" if sign > 0 else "ifftshift"
            raise NotImplementedError(
                f"tapejax.signal.{name}: `axes` given as a traced tensor (inside "
                "tapejax.function or a JAX transform) set the shifts, which XLA programs need "
                "statically; pass them as Python ints there."
            )
        arr = np.asarray(axes._value if isinstance(axes, Tensor) else axes)
        axes = [int(a) + len(shape) if a < 0 else int(a) for a in arr.reshape(-1)]
        for i, a in enumerate(axes):
            if not 0 <= a < len(shape):
                raise InvalidArgumentError(
                    None, None, f"indices[{i}] = {a} is not in [0, {len(shape)}) [Op:GatherV2]"
                )
        shift = [sign * (shape[a] // 2) for a in axes]
    return roll(x, shift, axes)


def fftshift(x, axes=None, name=None):
    """Moves the zero frequency to the center (``tf.signal.fftshift``, ``np.fft.fftshift``).

    Args:
      x: a tensor.
      axes: an int or a sequence of ints, the axes to shift; default every axis.
      name: ignored (TF's op name).

    Returns:
      ``x`` rolled by half its length on each of ``axes``.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.fftshift([0.0, 1.0, 2.0, -2.0, -1.0]).numpy()
        array([-2., -1.,  0.,  1.,  2.], dtype=float32)
    """
    return _shifted(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift`` (``tf.signal.ifftshift``, ``np.fft.ifftshift``).

    Example:
        >>> import tapejax as tf
        >>> tf.signal.ifftshift([-2.0, -1.0, 0.0, 1.0, 2.0]).numpy()
        array([ 0.,  1.,  2., -2., -1.], dtype=float32)
    """
    return _shifted(x, axes, -1)
