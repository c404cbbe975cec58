# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""``tapejax.signal`` side by side with real TensorFlow's ``tf.signal``: values, dtypes and
shapes (float32, float64 and complex), tape gradients, errors, and runs inside
``tapejax.function``.

TF 2.21 has no CPU kernel for the N-dimensional FFTs (``tf.signal.fftnd`` and friends raise
``NotFoundError``): their Cases compare with TF's transform of the same rank, scaled as
``norm`` asks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    fixed,
    grad_cases,
    value_params,
)

R = ("float32", "float64")
C = ("complex64", "complex128")
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _complex(dt, shape, seed=0):
    """Complex test data of ``dt`` (a real dtype names its complex counterpart: the
    gradient checks ask for float32)."""
    dt = _COMPLEX_OF.get(dt, dt)
    real = arr("float64", shape, seed=seed)
    return (real + 1j * arr("float64", shape, seed=seed + 1)).astype(dt)


def complex_op(name, shapes, **kw):
    kwargs = kw.pop("kwargs", {})
    return Case(
        name,
        lambda dt, shape: ((_complex(dt, shape),), dict(kwargs)),
        dtypes=C,
        shapes=shapes,
        diff=(0,),
        x64=True,
        rtol=1e-4,
        atol=1e-4,
        **kw,
    )


def real_op(name, shapes, diff=True, dtypes=R, **kwargs):
    return Case(
        name,
        lambda dt, shape: ((arr(dt, shape, seed=2),), dict(kwargs)),
        dtypes=dtypes,
        shapes=shapes,
        diff=(0,) if diff else (),
        x64=True,
        rtol=1e-4,
        atol=1e-4,
    )


@dataclasses.dataclass(frozen=True)
class ViaTF(Case):
    """A Case whose TF side is ``reference(tf, *args, **kwargs)``: TF's CPU build has no
    kernel for the N-dimensional FFTs."""

    reference: Callable = None

    def op(self, fw):
        if fw is tapejax:
            return super().op(fw)
        return lambda *args, **kwargs: self.reference(fw, *args, **kwargs)


_RANKED = {
    "fftnd": ("fft", "fft2d", "fft3d"),
    "ifftnd": ("ifft", "ifft2d", "ifft3d"),
    "rfftnd": ("rfft", "rfft2d", "rfft3d"),
    "irfftnd": ("irfft", "irfft2d", "irfft3d"),
}


def nd(name, make_input, shapes, dtypes, fft_length=None, axes=None, norm=None):
    """``tf.signal.<name>`` against TF's transform of the same rank (every axis by default),
    scaled for ``norm`` as TF's wrapper scales the input."""

    def make(dt, shape):
        kwargs = {"fft_length": fft_length, "axes": axes, "norm": norm}
        return (make_input(dt, shape),), {k: v for k, v in kwargs.items() if v is not None}

    def reference(tf, x, fft_length=None, axes=None, norm=None):
        rank = len(axes) if axes is not None else len(x.shape)
        lengths = fft_length or list(x.shape[-rank:])
        if name == "irfftnd" and fft_length is None:
            lengths[-1] = 2 * (lengths[-1] - 1)
        n = float(np.prod(lengths))
        scale = {None: 1.0, "forward": n, "ortho": np.sqrt(n)}[norm]
        fn = getattr(tf.signal, _RANKED[name][rank - 1])
        if name.startswith("i"):
            x = x * tf.cast(scale, x.dtype)
        else:
            x = x / tf.cast(scale, x.dtype)
        if name in ("rfftnd", "irfftnd"):
            return fn(x, lengths)
        pads = [[0, 0]] * (len(x.shape) - rank) + [
            [0, max(0, n - d)] for n, d in zip(lengths, x.shape[-rank:], strict=True)
        ]
        return fn(tf.pad(x, pads))

    return ViaTF(name=f"signal.{name}", make=make, dtypes=dtypes, shapes=shapes, x64=True, rtol=1e-4, atol=1e-4, reference=reference)


def _signal(dt, shape):
    return arr(dt, shape, seed=2)


def with_args(name, make, dtypes=R, shapes=((2, 3, 20),), diff=(0,), **kw):
    return Case(name, make, dtypes=dtypes, shapes=shapes, diff=diff, x64=True, rtol=1e-4, atol=1e-4, **kw)


def window(name, length, dtypes=R, **kwargs):
    return fixed(
        f"signal.{name}",
        lambda dt: (length,),
        dict(kwargs),
        dtypes=dtypes,
        x64=True,
        rtol=1e-5,
        atol=1e-6,
    )


def _with_dtype(case):
    """A window Case whose dtype keyword follows the test dtype."""
    return dataclasses.replace(case, make=lambda dt, shape, m=case.make: (m(dt, shape)[0], {**m(dt, shape)[1], "dtype": dt}))


CASES = [
    # -- the raw complex transforms ------------------------------------------------------
    complex_op("signal.fft", ((8,), (2, 5))),
    complex_op("signal.ifft", ((8,), (2, 5))),
    complex_op("signal.fft2d", ((3, 4), (2, 3, 5))),
    complex_op("signal.ifft2d", ((3, 4), (2, 3, 5))),
    complex_op("signal.fft3d", ((2, 3, 4),)),
    complex_op("signal.ifft3d", ((2, 3, 4),)),
    # -- real transforms: default, padded and odd fft_length -----------------------------
    real_op("signal.rfft", ((8,), (2, 5))),
    real_op("signal.rfft", ((2, 5),), fft_length=[9]),
    real_op("signal.rfft2d", ((3, 4), (2, 3, 5))),
    real_op("signal.rfft2d", ((2, 3, 5),), fft_length=[4, 7]),
    real_op("signal.rfft3d", ((2, 3, 4),), diff=False),  # no gradient in TF
    complex_op("signal.irfft", ((5,), (2, 5))),
    complex_op("signal.irfft", ((2, 5),), kwargs={"fft_length": [9]}),
    complex_op("signal.irfft", ((2, 5),), kwargs={"fft_length": [12]}),  # input padded
    complex_op("signal.irfft2d", ((3, 4), (2, 3, 5))),
    complex_op("signal.irfft2d", ((2, 3, 5),), kwargs={"fft_length": [4, 8]}),  # first axis padded
    dataclasses.replace(complex_op("signal.irfft3d", ((2, 3, 4),)), diff=()),
    # -- the N-dimensional wrappers (no gradient in TF) ----------------------------------
    nd("fftnd", _complex, ((3, 4), (2, 3, 4)), C),
    nd("fftnd", _complex, ((2, 3, 4),), ("complex64",), fft_length=[4, 6], axes=[-2, -1], norm="ortho"),
    nd("ifftnd", _complex, ((3, 4),), C, norm="forward"),
    nd("rfftnd", _signal, ((3, 4), (2, 3, 4)), R),
    nd("rfftnd", _signal, ((2, 3, 4),), ("float32",), fft_length=[5], axes=[-1], norm="ortho"),
    nd("irfftnd", _complex, ((3, 4),), C),
    nd("irfftnd", _complex, ((2, 3, 4),), ("complex64",), fft_length=[3, 5], axes=[1, 2], norm="forward"),
    # -- shifts --------------------------------------------------------------------------
    real_op("signal.fftshift", ((5,), (3, 4))),
    real_op("signal.fftshift", ((3, 5),), axes=-1),
    real_op("signal.ifftshift", ((5,), (3, 5))),
    real_op("signal.ifftshift", ((2, 3, 5),), axes=[0, -1]),
    # -- DCTs: every type, with and without norm="ortho", n cropping and padding ---------
    *[
        real_op(f"signal.{fn}", ((6,), (2, 7)), type=t, **({"norm": norm} if norm else {}))
        for fn in ("dct", "idct")
        for t in (1, 2, 3, 4)
        for norm in (None, "ortho")
        if not (t == 1 and norm)
    ],
    real_op("signal.dct", ((2, 7),), n=4),
    real_op("signal.dct", ((2, 7),), type=3, n=10, norm="ortho"),
    # -- framing and overlap-add ---------------------------------------------------------
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 7, 3), {})),
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 7, 3), {"pad_end": True, "pad_value": 1.5})),
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 2, 1), {"axis": 1})),
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 2, 2), {"axis": -2, "pad_end": True})),
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 30, 3), {})),  # no whole frame
    with_args("signal.frame", lambda dt, s: ((arr(dt, s), 2, 1), {}), dtypes=("int32",), diff=()),
    with_args("signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 3), {}), shapes=((2, 5, 8),)),
    with_args("signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 8), {}), shapes=((5, 8),)),
    with_args("signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 10), {}), shapes=((5, 8),)),
    # -- short-time transforms -----------------------------------------------------------
    with_args("signal.stft", lambda dt, s: ((_signal(dt, s), 8, 3), {})),
    with_args("signal.stft", lambda dt, s: ((_signal(dt, s), 6, 4), {"fft_length": 10, "pad_end": True, "window_fn": tapejax.signal.hamming_window})),
    with_args("signal.stft", lambda dt, s: ((_signal(dt, s), 6, 4), {"window_fn": None})),
    with_args("signal.inverse_stft", lambda dt, s: ((_complex(dt, s), 8, 3), {}), dtypes=C, shapes=((2, 6, 5),)),
    with_args("signal.inverse_stft", lambda dt, s: ((_complex(dt, s), 6, 3), {"fft_length": 8}), dtypes=C, shapes=((6, 5),)),
    with_args("signal.inverse_stft", lambda dt, s: ((_complex(dt, s), 10, 3), {"fft_length": 8, "window_fn": None}), dtypes=C, shapes=((6, 5),)),
    with_args("signal.mdct", lambda dt, s: ((_signal(dt, s), 8), {})),
    with_args("signal.mdct", lambda dt, s: ((_signal(dt, s), 12), {"pad_end": True, "norm": "ortho", "window_fn": None})),
    with_args("signal.inverse_mdct", lambda dt, s: ((_signal(dt, s),), {}), shapes=((2, 5, 4),)),
    with_args("signal.inverse_mdct", lambda dt, s: ((_signal(dt, s),), {"norm": "ortho", "window_fn": None}), shapes=((5, 6),)),
    # -- windows -------------------------------------------------------------------------
    *[
        _with_dtype(window(name, n, periodic=p))
        for name in ("hann_window", "hamming_window")
        for n in (0, 1, 6, 7)
        for p in (True, False)
    ],
    _with_dtype(window("hann_window", 9, dtypes=("float16",))),
    *[_with_dtype(window("kaiser_window", n, beta=b)) for n in (1, 6, 7) for b in (12.0, 2.5)],
    Case("signal.kaiser_window", lambda dt, s: ((8, np.asarray(3.0, dt)), {"dtype": dt}), shapes=((0,),), diff=(1,)),
    *[_with_dtype(window("kaiser_bessel_derived_window", n)) for n in (2, 7, 8)],
    *[_with_dtype(window("vorbis_window", n)) for n in (1, 6, 7)],
    # -- mel features --------------------------------------------------------------------
    fixed("signal.linear_to_mel_weight_matrix", lambda dt: (), rtol=1e-4, atol=1e-5),
    _with_dtype(fixed("signal.linear_to_mel_weight_matrix", lambda dt: (10, 33, 16000, 20.0, 7000.0), dtypes=R, x64=True, rtol=1e-4, atol=1e-5)),
    real_op("signal.mfccs_from_log_mel_spectrograms", ((5,), (2, 3, 8))),
]

# TF registers no gradient for RFFT3D and IRFFT3D, nor for the N-dimensional FFTs.
NOT_DIFFERENTIABLE = {"signal.rfft3d", "signal.irfft3d", "signal.fftnd", "signal.ifftnd", "signal.rfftnd", "signal.irfftnd"}

# Returns a window function, not a tensor: tested by test_inverse_stft_window_fn below.
OTHERWISE_TESTED = {"signal.inverse_stft_window_fn"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", first_of_each_op(CASES), ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)
