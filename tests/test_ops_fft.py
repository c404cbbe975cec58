# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""TF's N-dimensional FFTs (``tf.fftnd``, ``ifftnd``, ``rfftnd``, ``irfftnd``) side by side
with real TensorFlow.

TF 2.21 registers these four ops on GPU only: on CPU every call raises ``NotFoundError``. So
each ``Case`` compares with TF's CPU transforms of the same rank (``tf.signal.fft``,
``fft2d``, ``fft3d``, their inverses and real versions) applied to the input cropped or
zero-padded as ``fft_length`` asks: the same numbers the GPU kernel computes. Errors TF
raises before it looks for a kernel are compared with live TF; the kernel's own checks with
its texts (``tensorflow/core/kernels/fft_ops.cc``), while live TF is checked to fail on CPU.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    case_id,
    check_accepts_variables,
    check_error,
    check_values,
    value_params,
)

_SIGNAL = {
    "fftnd": ("fft", "fft2d", "fft3d"),
    "ifftnd": ("ifft", "ifft2d", "ifft3d"),
    "rfftnd": ("rfft", "rfft2d", "rfft3d"),
    "irfftnd": ("irfft", "irfft2d", "irfft3d"),
}


def _crop_or_pad(tf, x, lengths):
    """``x`` with its last ``len(lengths)`` dimensions cropped or zero-padded to ``lengths``."""
    k = len(lengths)
    x = x[(Ellipsis, *(slice(0, n) for n in lengths))]
    shape = x.shape.as_list()
    pads = [[0, 0]] * (len(shape) - k) + [
        [0, max(0, n - d)] for n, d in zip(lengths, shape[-k:], strict=True)
    ]
    return tf.pad(x, pads)


@dataclasses.dataclass(frozen=True)
class ViaSignal(Case):
    """A Case whose TF side is ``tf.signal``'s transform of the same rank (TF's CPU build has
    no kernel for the N-dimensional ops)."""

    def op(self, fw):
        if fw is tapejax:
            return super().op(fw)

        def reference(input, fft_length, axes, **dtype):  # noqa: A002 - TF's name
            fn = getattr(fw.signal, _SIGNAL[self.name][len(fft_length) - 1])
            if self.name in ("rfftnd", "irfftnd"):
                return fn(input, fft_length)
            return fn(_crop_or_pad(fw, input, fft_length))

        return reference


def _signal(dt, shape, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dt)


_PAIR = {
    "float32": "complex64",
    "float64": "complex128",
    "complex64": "float32",
    "complex128": "float64",
}


def transform(name, lengths, dtypes, shapes):
    """``name(x, lengths(shape), the last len(lengths) axes)``; the real transforms name their
    output dtype (the raw ops default to the 32-bit one whatever the input)."""

    def make(dt, shape):
        fft_length = lengths(shape)
        axes = list(range(-len(fft_length), 0))
        attr = {"rfftnd": "Tcomplex", "irfftnd": "Treal"}.get(name)
        return (_signal(dt, shape), fft_length, axes), ({attr: _PAIR[dt]} if attr else {})

    return ViaSignal(name, make, dtypes=dtypes, shapes=shapes, x64=True, rtol=1e-5, atol=1e-5)


C, R = ("complex64", "complex128"), ("float32", "float64")
SHAPES = ((4, 6), (2, 3, 5))


def _half(shape):
    """The half spectrum of a real signal of ``shape``'s last dimension (rfftnd's output)."""
    return shape[:-1] + (shape[-1] // 2 + 1,)


CASES = [
    transform("fftnd", lambda s: [s[-1]], C, SHAPES),
    transform("fftnd", lambda s: list(s[-2:]), C, SHAPES),
    transform("fftnd", lambda s: [s[-2] + 2, s[-1] - 2], C, SHAPES),  # pad one, crop one
    transform("fftnd", lambda s: [2, 3, 4], ("complex64",), ((2, 3, 5),)),
    transform("ifftnd", lambda s: list(s[-2:]), C, SHAPES),
    transform("ifftnd", lambda s: [s[-2] - 1, s[-1] + 3], ("complex64",), SHAPES),
    transform("rfftnd", lambda s: [s[-1]], R, SHAPES),
    transform("rfftnd", lambda s: list(s[-2:]), R, SHAPES),
    transform("rfftnd", lambda s: [s[-2] - 1, s[-1] - 1], ("float32",), SHAPES),  # crops only
    transform("rfftnd", lambda s: [1, 2, 3], ("float32",), ((2, 3, 5),)),
    transform("irfftnd", lambda s: [2 * (s[-1] - 1)], C, ((4, 4), (2, 3, 5))),
    transform("irfftnd", lambda s: [s[-2], 2 * s[-1] - 1], C, ((4, 4), (2, 3, 5))),
    transform("irfftnd", lambda s: [s[-2] - 1, 3], ("complex64",), ((4, 4), (2, 3, 5))),
    transform("irfftnd", lambda s: [1, 2, 4], ("complex64",), ((2, 3, 5),)),
]

# TF registers no gradient for FFTND, IFFTND, RFFTND, IRFFTND (tapes give None).
NOT_DIFFERENTIABLE = {"fftnd", "ifftnd", "rfftnd", "irfftnd"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


def test_real_transforms_invert_each_other_in_float64(x64):
    x = _signal("float64", (2, 4, 6))
    for lengths in ([4, 6], [2, 4, 6], [6]):
        axes = list(range(-len(lengths), 0))
        y = tapejax.rfftnd(x, lengths, axes, Tcomplex=tapejax.complex128)
        assert y.dtype == tapejax.complex128
        back = tapejax.irfftnd(y, lengths, axes, Treal=tapejax.float64)
        np.testing.assert_allclose(back.numpy(), x, atol=1e-12)
        z = tapejax.ifftnd(tapejax.fftnd(x.astype("complex128"), lengths, axes), lengths, axes)
        np.testing.assert_allclose(z.numpy(), x, atol=1e-12)


def test_negative_axes_empty_inputs_and_zero_lengths():
    x = _signal("complex64", (2, 3, 4))
    np.testing.assert_array_equal(
        tapejax.fftnd(x, [3, 4], [1, 2]).numpy(), tapejax.fftnd(x, [3, 4], [-2, -1]).numpy()
    )
    # TF's kernel returns an empty input untouched (shape from fft_length) and zeros where a
    # length is 0.
    assert tapejax.fftnd(np.zeros((0, 3), "complex64"), [0, 3], [0, 1]).shape == [0, 3]
    assert tapejax.rfftnd(np.zeros((2, 0), "float32"), [0], [-1]).shape == [2, 0]
    assert tapejax.irfftnd(np.zeros((2, 3), "complex64"), [0], [-1]).shape == [2, 0]
    out = tapejax.fftnd(x, [3, 0], [-2, -1])
    assert out.shape == [2, 3, 0] and out.dtype == tapejax.complex64


def test_python_values_convert_as_tf():
    """TF's ``args_to_matching_eager``: values of an allowed dtype keep it, others are converted
    with the op's first allowed dtype as a hint (floats become complex64 for ``fftnd``)."""
    assert tapejax.fftnd([[1.0, 2.0]], [2], [1]).dtype == tapejax.complex64
    assert tapejax.fftnd(np.ones(3, "int32"), [3], [0]).dtype == tapejax.complex64
    assert tapejax.rfftnd([1, 2, 3, 4], [4], [0]).dtype == tapejax.complex64
    np.testing.assert_allclose(
        tapejax.rfftnd([1.0, 2.0, 3.0, 4.0], [4], [0]).numpy(), [10, -2 + 2j, -2]
    )


def test_no_gradient_as_tf():
    """TF registers no gradient for the four ops (its tape raises LookupError); the tape gives
    None."""
    from tensorflow.python.framework import ops

    x = tapejax.constant(_signal("float32", (3, 4)))
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tapejax.rfftnd(x, [3, 4], [0, 1])
        z = tapejax.irfftnd(y, [3, 4], [0, 1])
    assert tape.gradient(tapejax.math.real(y), x) is None
    assert tape.gradient(z, x) is None
    for op_name in ("FFTND", "IFFTND", "RFFTND", "IRFFTND"):
        with pytest.raises(LookupError, match=f"gradient registry has no entry for: {op_name}"):
            ops.gradient_registry.lookup(op_name)


def test_traces_inside_a_function():
    f = tapejax.function(
        lambda x: tapejax.irfftnd(tapejax.rfftnd(x, [3, 4], [-2, -1]), [3, 4], [-2, -1])
    )
    x = _signal("float32", (2, 3, 4))
    for _ in range(3):  # the first call runs eagerly, the next ones traced
        np.testing.assert_allclose(f(x).numpy(), x, atol=1e-6)


def test_tf_has_no_cpu_kernel():
    """Why the Cases compare with tf.signal: TF's CPU build refuses the ops themselves."""
    x = tensorflow.constant(_signal("complex64", (3, 4)))
    with pytest.raises(tensorflow.errors.NotFoundError, match="no registered kernels"):
        tensorflow.fftnd(x, [3, 4], [0, 1])


IAE = "InvalidArgumentError"
# Errors TF raises before looking for a kernel: compared with live TF.
ERRORS = [
    (
        lambda tf: tf.fftnd(tf.constant([1.0, 2.0]), [2], [0]),
        IAE,
        r"Value for attr 'Tcomplex' of float is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.ifftnd(tf.constant([1, 2]), [2], [0]),
        IAE,
        r"Value for attr 'Tcomplex' of int32 is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.rfftnd(tf.constant([1 + 1j, 2]), [2], [0]),
        IAE,
        r"Value for attr 'Treal' of complex128 is not in the list of allowed values: float, double",
    ),
    (
        lambda tf: tf.rfftnd([1.0, 2.0], [2], [0], Tcomplex=tf.float32),
        IAE,
        r"Value for attr 'Tcomplex' of float is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.irfftnd(tf.constant([1.0, 2.0]), [2], [0]),
        IAE,
        r"Value for attr 'Tcomplex' of float is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.irfftnd([1 + 1j], [1], [0], Treal=tf.complex64),
        IAE,
        r"Value for attr 'Treal' of complex64 is not in the list of allowed values: float, double",
    ),
    (
        lambda tf: tf.fftnd([1j, 2j], [2.0], [0]),
        "TypeError",
        r"Cannot convert \[2\.0\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.fftnd([1j, 2j], [2], tf.constant([0], tf.int64)),
        "ValueError",
        r"Tensor conversion requested dtype int32 for Tensor with dtype int64",
    ),
    (
        lambda tf: tf.fftnd([1j, 2j], None, [0]),
        "ValueError",
        r"Attempt to convert a value \(None\) with an unsupported type \(<class 'NoneType'>\) to a Tensor\.",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message, x64):
    check_error(fn, error, message)


X = np.ones((2, 3, 4), "complex64")
XR = np.ones((2, 3, 4), "float32")
# The kernel's checks, in its order, with its texts (TF's CPU build fails before them).
KERNEL_ERRORS = [
    (
        lambda tf: tf.fftnd(X, [1, 1, 1, 1], [0, 1, 2, 3]),
        r"Input must have rank of at least 4 but got: \[2,3,4\]",
    ),
    (lambda tf: tf.fftnd(X, [3, 4], [2, 1]), r"axes must be successive and ascending\."),
    (lambda tf: tf.fftnd(X, [2, 3], [0, 2]), r"axes must be successive and ascending\."),
    (lambda tf: tf.fftnd(X, [2, 3], [0, 1]), r"The last axis to perform transform on must be -1\."),
    (lambda tf: tf.ifftnd(X, [4], [1]), r"The last axis to perform transform on must be -1\."),
    (lambda tf: tf.fftnd(X, [3, 4, 5], [1, 2]), r"fft_length must have shape \[2\], but got: 3\."),
    (lambda tf: tf.fftnd(X, [3, -1], [1, 2]), r"fft_length\[1\] must >= 0, but got: -1"),
    (
        lambda tf: tf.rfftnd(XR, [5], [2]),
        r"Input dimension 2 must have length of at least 5 but got: 4",
    ),
    (
        lambda tf: tf.irfftnd(X, [3, 8], [1, 2]),
        r"Input dimension 2 must have length of at least 5 but got: 4",
    ),
    (
        lambda tf: tf.irfftnd(X, [4, 4], [1, 2]),
        r"Input dimension 1 must have length of at least 4 but got: 3",
    ),
    (lambda tf: tf.fftnd(X, [], []), r"Only 1D, 2D and 3D FFTs supported\."),
    (
        lambda tf: tf.fftnd(np.ones((1, 1, 1, 1), "complex64"), [1] * 4, [0, 1, 2, 3]),
        r"Only 1D, 2D and 3D FFTs supported\.",
    ),
]


@pytest.mark.parametrize("fn, message", KERNEL_ERRORS)
def test_kernel_errors_are_tfs_texts(fn, message):
    with pytest.raises(tensorflow.errors.NotFoundError):
        fn(tensorflow)
    with pytest.raises(tapejax.errors.InvalidArgumentError, match=message):
        fn(tapejax)


def test_precision_mismatch_is_the_kernels_type_error(x64):
    with pytest.raises(
        tapejax.errors.InvalidArgumentError,
        match=r"Wrong types for forward real FFT: in=1 out=18 \[Op:RFFTND\]",
    ):
        tapejax.rfftnd(XR, [4], [-1], Tcomplex=tapejax.complex128)
    with pytest.raises(
        tapejax.errors.InvalidArgumentError,
        match=r"Wrong types for backward real FFT: in=8 out=2 \[Op:IRFFTND\]",
    ):
        tapejax.irfftnd(X, [4], [-1], Treal=tapejax.float64)
