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
F = ("float32",)
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

    return ViaTF(
        name=f"signal.{name}",
        make=make,
        dtypes=dtypes,
        shapes=shapes,
        x64=True,
        rtol=1e-4,
        atol=1e-4,
        reference=reference,
    )


def _signal(dt, shape):
    return arr(dt, shape, seed=2)


def with_args(name, make, dtypes=R, shapes=((2, 3, 20),), diff=(0,), **kw):
    return Case(
        name, make, dtypes=dtypes, shapes=shapes, diff=diff, x64=True, rtol=1e-4, atol=1e-4, **kw
    )


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
    return dataclasses.replace(
        case,
        make=lambda dt, shape, m=case.make: (m(dt, shape)[0], {**m(dt, shape)[1], "dtype": dt}),
    )


def f32(case):
    """The Case in float32 (complex64) only: float64 is checked on each op's first Case."""
    return dataclasses.replace(case, dtypes=case.dtypes[:1], x64=False)


def values_only(case):
    """The Case without its gradient check (each op's gradient is checked on other Cases)."""
    return dataclasses.replace(case, diff=())


CASES = [
    # -- the raw complex transforms ------------------------------------------------------
    complex_op("signal.fft", ((8,), (2, 5))),
    complex_op("signal.ifft", ((2, 5),)),
    f32(complex_op("signal.fft2d", ((2, 3, 5),))),
    f32(complex_op("signal.ifft2d", ((3, 4),))),
    f32(complex_op("signal.fft3d", ((2, 3, 4),))),
    f32(complex_op("signal.ifft3d", ((2, 3, 4),))),
    # -- real transforms: default, padded and odd fft_length -----------------------------
    real_op("signal.rfft", ((8,), (2, 5))),
    f32(real_op("signal.rfft", ((2, 5),), fft_length=[9])),
    f32(real_op("signal.rfft2d", ((2, 3, 5),))),
    values_only(f32(real_op("signal.rfft2d", ((2, 3, 5),), fft_length=[4, 7]))),
    f32(real_op("signal.rfft3d", ((2, 3, 4),), diff=False)),  # no gradient in TF
    complex_op("signal.irfft", ((5,), (2, 5))),
    values_only(f32(complex_op("signal.irfft", ((2, 5),), kwargs={"fft_length": [9]}))),
    f32(complex_op("signal.irfft", ((2, 5),), kwargs={"fft_length": [12]})),  # input padded
    f32(complex_op("signal.irfft2d", ((2, 3, 5),))),
    f32(complex_op("signal.irfft2d", ((2, 3, 5),), kwargs={"fft_length": [4, 8]})),  # padded
    values_only(f32(complex_op("signal.irfft3d", ((2, 3, 4),)))),
    # -- the N-dimensional wrappers (no gradient in TF) ----------------------------------
    nd("fftnd", _complex, ((2, 3, 4),), C),
    nd(
        "fftnd",
        _complex,
        ((2, 3, 4),),
        ("complex64",),
        fft_length=[4, 6],
        axes=[-2, -1],
        norm="ortho",
    ),
    nd("ifftnd", _complex, ((3, 4),), ("complex64",), norm="forward"),
    nd("rfftnd", _signal, ((3, 4),), R),
    nd("rfftnd", _signal, ((2, 3, 4),), ("float32",), fft_length=[5], axes=[-1], norm="ortho"),
    nd("irfftnd", _complex, ((3, 4),), ("complex64",)),
    nd(
        "irfftnd",
        _complex,
        ((2, 3, 4),),
        ("complex64",),
        fft_length=[3, 5],
        axes=[1, 2],
        norm="forward",
    ),
    # -- shifts --------------------------------------------------------------------------
    f32(real_op("signal.fftshift", ((5,), (3, 4)))),
    values_only(f32(real_op("signal.fftshift", ((3, 5),), axes=-1))),
    f32(real_op("signal.ifftshift", ((2, 3, 5),), axes=[0, -1])),
    # -- DCTs: every type, with and without norm="ortho", n cropping and padding ---------
    *[
        # Gradients: every dct type unnormalized, and idct of type 2 with "ortho".
        (
            f32
            if (fn, norm) in (("dct", None), ("idct", "ortho"))
            and t in (1, 2, 3, 4)
            and (fn == "dct" or t == 2)
            else lambda c: values_only(f32(c))
        )(real_op(f"signal.{fn}", ((2, 7),), type=t, **({"norm": norm} if norm else {})))
        for fn in ("dct", "idct")
        for t in (1, 2, 3, 4)
        for norm in (None, "ortho")
        if not (t == 1 and norm)
    ],
    values_only(real_op("signal.dct", ((2, 6),), type=4, norm="ortho")),
    values_only(real_op("signal.idct", ((2, 6),), type=2, norm="ortho")),
    values_only(f32(real_op("signal.dct", ((2, 7),), n=4))),
    f32(real_op("signal.dct", ((2, 7),), type=3, n=10, norm="ortho")),
    # -- framing and overlap-add ---------------------------------------------------------
    with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 7, 3), {})),
    f32(
        with_args(
            "signal.frame",
            lambda dt, s: ((_signal(dt, s), 7, 3), {"pad_end": True, "pad_value": 1.5}),
        )
    ),
    f32(with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 2, 1), {"axis": 1}))),
    values_only(
        f32(
            with_args(
                "signal.frame",
                lambda dt, s: ((_signal(dt, s), 2, 2), {"axis": -2, "pad_end": True}),
            )
        )
    ),
    values_only(
        f32(with_args("signal.frame", lambda dt, s: ((_signal(dt, s), 30, 3), {})))
    ),  # no whole frame
    with_args("signal.frame", lambda dt, s: ((arr(dt, s), 2, 1), {}), dtypes=("int32",), diff=()),
    with_args(
        "signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 3), {}), shapes=((2, 5, 8),)
    ),
    values_only(
        f32(
            with_args(
                "signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 8), {}), shapes=((5, 8),)
            )
        )
    ),
    values_only(
        f32(
            with_args(
                "signal.overlap_and_add", lambda dt, s: ((_signal(dt, s), 10), {}), shapes=((5, 8),)
            )
        )
    ),
    # -- short-time transforms -----------------------------------------------------------
    with_args("signal.stft", lambda dt, s: ((_signal(dt, s), 8, 3), {})),
    f32(
        with_args(
            "signal.stft",
            lambda dt, s: (
                (_signal(dt, s), 6, 4),
                {"fft_length": 10, "pad_end": True, "window_fn": tapejax.signal.hamming_window},
            ),
        )
    ),
    values_only(
        f32(with_args("signal.stft", lambda dt, s: ((_signal(dt, s), 6, 4), {"window_fn": None})))
    ),
    with_args(
        "signal.inverse_stft",
        lambda dt, s: ((_complex(dt, s), 8, 3), {}),
        dtypes=C,
        shapes=((2, 6, 5),),
    ),
    f32(
        with_args(
            "signal.inverse_stft",
            lambda dt, s: ((_complex(dt, s), 6, 3), {"fft_length": 8}),
            dtypes=C,
            shapes=((6, 5),),
        )
    ),
    values_only(
        f32(
            with_args(
                "signal.inverse_stft",
                lambda dt, s: ((_complex(dt, s), 10, 3), {"fft_length": 8, "window_fn": None}),
                dtypes=C,
                shapes=((6, 5),),
            )
        )
    ),
    with_args("signal.mdct", lambda dt, s: ((_signal(dt, s), 8), {})),
    f32(
        with_args(
            "signal.mdct",
            lambda dt, s: (
                (_signal(dt, s), 12),
                {"pad_end": True, "norm": "ortho", "window_fn": None},
            ),
        )
    ),
    with_args("signal.inverse_mdct", lambda dt, s: ((_signal(dt, s),), {}), shapes=((2, 5, 4),)),
    values_only(
        f32(
            with_args(
                "signal.inverse_mdct",
                lambda dt, s: ((_signal(dt, s),), {"norm": "ortho", "window_fn": None}),
                shapes=((5, 6),),
            )
        )
    ),
    # -- windows -------------------------------------------------------------------------
    _with_dtype(window("hann_window", 8)),
    *[_with_dtype(window("hann_window", n, dtypes=F, periodic=False)) for n in (1, 7)],
    _with_dtype(window("hann_window", 0, dtypes=F)),
    _with_dtype(window("hann_window", 9, dtypes=("float16",))),
    _with_dtype(window("hamming_window", 7)),
    _with_dtype(window("hamming_window", 6, dtypes=F, periodic=False)),
    _with_dtype(window("kaiser_window", 7)),
    _with_dtype(window("kaiser_window", 1, dtypes=F, beta=2.5)),
    Case(
        "signal.kaiser_window",
        lambda dt, s: ((8, np.asarray(3.0, dt)), {"dtype": dt}),
        shapes=((0,),),
        diff=(1,),
    ),
    _with_dtype(window("kaiser_bessel_derived_window", 8)),
    _with_dtype(window("kaiser_bessel_derived_window", 7, dtypes=F, beta=4.0)),  # odd: 6 samples
    _with_dtype(window("vorbis_window", 7)),
    # -- mel features --------------------------------------------------------------------
    fixed("signal.linear_to_mel_weight_matrix", lambda dt: (), rtol=1e-4, atol=1e-5),
    _with_dtype(
        fixed(
            "signal.linear_to_mel_weight_matrix",
            lambda dt: (10, 33, 16000, 20.0, 7000.0),
            dtypes=("float64",),
            x64=True,
            rtol=1e-4,
            atol=1e-5,
        )
    ),
    real_op("signal.mfccs_from_log_mel_spectrograms", ((2, 3, 8),)),
]

# JAX's 64-bit mode only where a Case has a 64-bit dtype (switching it costs compilations).
CASES = [
    c if {"float64", "complex128"} & set(c.dtypes) else dataclasses.replace(c, x64=False)
    for c in CASES
]

# TF registers no gradient for RFFT3D and IRFFT3D, nor for the N-dimensional FFTs.
NOT_DIFFERENTIABLE = {
    "signal.rfft3d",
    "signal.irfft3d",
    "signal.fftnd",
    "signal.ifftnd",
    "signal.rfftnd",
    "signal.irfftnd",
}

# Returns a window function, not a tensor: tested by test_inverse_stft_window_fn below.
OTHERWISE_TESTED = {"signal.inverse_stft_window_fn"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", list({c.name: c for c in reversed(CASES)}.values()), ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


def test_inverse_stft_window_fn():
    """The window function it returns equals TF's, for TF's default and another forward
    window, and makes ``inverse_stft`` invert ``stft`` (away from the signal's ends)."""
    # (8, 8): no overlap, so the sum is 0 where the Hann window is: the window is 0 there.
    for step, length, forward in (
        (4, 16, None),
        (3, 8, "hamming_window"),
        (5, 8, None),
        (8, 8, None),
    ):
        got, want = (
            fw.signal.inverse_stft_window_fn(
                step, **({"forward_window_fn": getattr(fw.signal, forward)} if forward else {})
            )(length, dtype=fw.float32)
            for fw in (tapejax, tensorflow)
        )
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
        assert got.dtype == tapejax.float32 and got.shape == [length]
    x = arr("float32", (64,), seed=3)
    s = tapejax.signal.stft(x, 16, 4)
    window_fn = tapejax.signal.inverse_stft_window_fn(4)
    back = tapejax.signal.inverse_stft(s, 16, 4, window_fn=window_fn).numpy()
    np.testing.assert_allclose(back[12:-16], x[12:-16], atol=1e-5)


def test_window_fn_gets_a_python_int():
    """TF passes window functions a scalar int Tensor; tapejax a Python int (a Tensor would
    be traced inside tapejax.function), which TF's own window functions also take."""
    seen = []

    def window_fn(length, dtype):
        seen.append(length)
        return tapejax.signal.hann_window(length, dtype=dtype)

    x = arr("float32", (32,), seed=8)
    tapejax.signal.stft(x, 8, 4, window_fn=window_fn)
    tapejax.signal.inverse_stft(tapejax.signal.stft(x, 8, 4), 8, 4, window_fn=window_fn)
    tapejax.signal.mdct(x, 8, window_fn=window_fn)
    assert seen == [8, 8, 8] and all(type(n) is int for n in seen)


def test_round_trips_in_float64(x64):
    xn = arr("float64", (3, 8), seed=4)
    x = tapejax.constant(xn)
    s = tapejax.signal
    for t in (1, 2, 3, 4):
        norm = None if t == 1 else "ortho"
        y = s.idct(s.dct(x, type=t, norm=norm), type=t, norm=norm).numpy()
        np.testing.assert_allclose(y / (2 * 7 if t == 1 else 1), xn, atol=1e-12)
    assert s.rfft(x).dtype == tapejax.complex128
    np.testing.assert_allclose(s.irfft(s.rfft(x)).numpy(), xn, atol=1e-12)
    np.testing.assert_allclose(s.irfft2d(s.rfft2d(x), [3, 8]).numpy(), xn, atol=1e-12)
    np.testing.assert_allclose(
        s.ifft3d(s.fft3d(xn[None].astype("complex128"))).numpy()[0], xn, atol=1e-12
    )
    np.testing.assert_allclose(s.ifftshift(s.fftshift(x)).numpy(), xn)
    # MDCT with the Vorbis window reconstructs the signal but for the first and last half frame.
    y = s.inverse_mdct(s.mdct(x, 4)).numpy()
    np.testing.assert_allclose(y[:, 2:-2], xn[:, 2:-2], atol=1e-12)


def test_scipy_conventions_of_dct():
    """``tf.signal.dct`` is ``scipy.fft.dct`` for every type (TF's documented equivalence)."""
    scipy_fft = pytest.importorskip("scipy.fft")
    x = arr("float32", (2, 9), seed=5)
    for t in (1, 2, 3, 4):
        for norm in (None, "ortho") if t != 1 else (None,):
            got = tapejax.signal.dct(x, type=t, norm=norm).numpy()
            np.testing.assert_allclose(
                got, scipy_fft.dct(x, type=t, norm=norm), rtol=1e-4, atol=1e-4
            )


def test_runs_inside_a_function():
    """A mel-spectrogram and MFCC pipeline, and a round trip through inverse_stft, traced
    by ``tapejax.function``: the traced results equal the eager ones."""
    mel = tapejax.signal.linear_to_mel_weight_matrix(8, 9, 8000, 100.0, 4000.0)

    def features(x):
        spectrogram = tapejax.abs(tapejax.signal.stft(x, 16, 8))
        log_mel = tapejax.math.log(tapejax.matmul(spectrogram, mel) + 1e-6)
        mfcc = tapejax.signal.mfccs_from_log_mel_spectrograms(log_mel)
        frames = tapejax.signal.frame(x, 8, 4, pad_end=True, axis=-1)
        window = tapejax.signal.kaiser_bessel_derived_window(8) * tapejax.signal.vorbis_window(8)
        back = tapejax.signal.inverse_stft(tapejax.signal.stft(x, 16, 8), 16, 8)
        return (
            mfcc,
            tapejax.signal.overlap_and_add(frames * window, 4),
            back,
            tapejax.signal.dct(x, type=4),
        )

    f = tapejax.function(features)
    x = tapejax.constant(arr("float32", (2, 64), seed=6))
    want = features(x)
    for _ in range(3):  # the first call runs eagerly, the next ones traced
        for g, w in zip(f(x), want, strict=True):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_shapes_from_traced_values_are_refused():
    """A frame length sets the output's shape: a traced one cannot be used (TF builds a
    dynamic shape instead)."""
    f = tapejax.function(lambda x, n: tapejax.signal.frame(x, n, 2))
    assert f(tapejax.ones([8]), tapejax.constant(4)).shape == [3, 4]  # the first call is eager
    with pytest.raises(NotImplementedError, match="`frame_length` sets the output's shape"):
        f(tapejax.ones([8]), tapejax.constant(4))


def test_gradients_tf_cannot_give():
    """TF's gradient fails for a real FFT whose input is longer than its fft_length (the
    kernel crops it; the gradient's shape is fft_length's): tapejax's is the derivative,
    zero on the cropped samples, matching the gradient of the cropped signal's transform."""
    x = arr("float32", (7,), seed=7)
    xs = tapejax.constant(x)
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = tapejax.math.real(tapejax.signal.rfft(xs, [4]))
        z = tapejax.math.real(tapejax.signal.rfft(xs[:4]))
    np.testing.assert_allclose(
        tape.gradient(y, xs).numpy(), tape.gradient(z, xs).numpy(), atol=1e-6
    )
    assert np.all(tape.gradient(y, xs).numpy()[4:] == 0)
    t = tensorflow.constant(x)
    with tensorflow.GradientTape() as tf_tape:
        tf_tape.watch(t)
        y = tensorflow.math.real(tensorflow.signal.rfft(t, [4]))
    with pytest.raises(tensorflow.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf_tape.gradient(y, t)


def test_no_gradient_where_tf_has_none():
    """TF registers no gradient for RFFT3D and IRFFT3D (its tape raises LookupError): the
    tape gives None, as for TF's other ops without one."""
    from tensorflow.python.framework import ops

    x = tapejax.constant(arr("float32", (2, 3, 4)))
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tapejax.signal.rfft3d(x)
        z = tapejax.signal.irfft3d(y)
    assert tape.gradient(tapejax.math.real(y), x) is None
    assert tape.gradient(z, x) is None
    for op_name in ("RFFT3D", "IRFFT3D"):
        with pytest.raises(LookupError, match=f"gradient registry has no entry for: {op_name}"):
            ops.gradient_registry.lookup(op_name)


def test_nd_transforms_run_where_tf_has_no_cpu_kernel():
    x = _complex("complex64", (3, 4))
    with pytest.raises(tensorflow.errors.NotFoundError, match="no registered kernels"):
        tensorflow.signal.fftnd(tensorflow.constant(x))
    np.testing.assert_allclose(
        tapejax.signal.fftnd(x).numpy(), np.fft.fftn(x), rtol=1e-5, atol=1e-5
    )


def test_inverse_mdct_refuses_an_unknown_norm():
    """TF fails with UnboundLocalError (a bug in its code); tapejax with dct's ValueError."""
    with pytest.raises(UnboundLocalError):
        tensorflow.signal.inverse_mdct(tensorflow.ones([2, 4]), norm="forward")
    with pytest.raises(
        ValueError, match="Unknown normalization. Expected None or 'ortho', got: forward"
    ):
        tapejax.signal.inverse_mdct(tapejax.ones([2, 4]), norm="forward")


IAE = "InvalidArgumentError"
# Each error is compared with live TF (type, then text).
ERRORS = [
    (
        lambda tf: tf.signal.fft(tf.constant([1.0, 2.0])),
        IAE,
        r"Value for attr 'Tcomplex' of float is not in the list of allowed values: complex64, complex128",
    ),
    (
        lambda tf: tf.signal.fft(tf.constant(1 + 0j)),
        IAE,
        r"Input must have rank of at least 1 but got: \[\]",
    ),
    (
        lambda tf: tf.signal.ifft2d(tf.constant([1 + 0j])),
        IAE,
        r"Input must have rank of at least 2 but got: \[1\]",
    ),
    (
        lambda tf: tf.signal.rfft(tf.constant([1, 2])),
        "ValueError",
        r"RFFT requires tf.float32 or tf.float64 inputs, got: tf.Tensor\(\[1 2\], shape=\(2,\), dtype=int32\)",
    ),
    (
        lambda tf: tf.signal.irfft(tf.constant([1.0, 2.0])),
        "ValueError",
        r"IRFFT requires tf.complex64 or tf.complex128 inputs",
    ),
    (lambda tf: tf.signal.rfft(1.0), "ValueError", r"Shape \(\) must have rank at least 1"),
    (lambda tf: tf.signal.rfft([1.0, 2.0], [2, 2]), IAE, r"fft_length must have shape \[1\]"),
    (lambda tf: tf.signal.rfft2d([[1.0, 2.0]], [2]), IAE, r"fft_length must have shape \[2\]"),
    (lambda tf: tf.signal.irfft([1 + 0j, 2], [-1]), IAE, r"fft_length\[0\] must >= 0, but got: -1"),
    (
        lambda tf: tf.signal.frame([1.0, 2.0], [2], 1),
        "ValueError",
        r"Shape \(1,\) must have rank 0",
    ),
    (lambda tf: tf.signal.frame(1.0, 2, 1), "ValueError", r"Shape \(\) must have rank at least 1"),
    (lambda tf: tf.signal.frame([1.0, 2.0], 2, 0), IAE, r"Integer division by zero"),
    (
        lambda tf: tf.signal.overlap_and_add(tf.ones([2, 3]), 1.0),
        "ValueError",
        r"frame_step must be an integer. Got <dtype: 'float32'>",
    ),
    (
        lambda tf: tf.signal.overlap_and_add(tf.ones([3]), 1),
        "ValueError",
        r"Shape \(3,\) must have rank at least 2",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([3]), type=5),
        "ValueError",
        r"Types I, II, III and IV \(I\)DCT are supported.",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([3]), axis=0),
        "NotImplementedError",
        r"axis must be -1. Got: 0",
    ),
    (
        lambda tf: tf.signal.idct(tf.ones([3]), type=1, norm="ortho"),
        "ValueError",
        r"Normalization is not supported for the Type-I DCT.",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([1]), type=1),
        "ValueError",
        r"Type-I DCT requires the dimension to be greater than one.",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([3]), norm="forward"),
        "ValueError",
        r"Unknown normalization. Expected None or 'ortho', got: forward",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([3]), n=0),
        "ValueError",
        r"n should be a positive integer or None",
    ),
    (
        lambda tf: tf.signal.dct(tf.constant([1, 2, 3])),
        "TypeError",
        r"Cannot convert 0.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([4], tf.float16)),
        "TypeError",
        r"The `real` and `imag` components have incorrect types: float16 float16",
    ),
    (
        lambda tf: tf.signal.dct(tf.ones([4], tf.float16), type=1),
        "ValueError",
        r"RFFT requires tf.float32 or tf.float64 inputs",
    ),
    (
        lambda tf: tf.signal.rfft(tf.zeros([0, 8]), [16]),
        IAE,
        r"Input dimension 1 must have length of at least 16 but got: 8",
    ),
    (
        lambda tf: tf.signal.hann_window(4, dtype=tf.int32),
        "ValueError",
        r"dtype must be a floating point type. Found <dtype: 'int32'>",
    ),
    (lambda tf: tf.signal.vorbis_window([4]), "ValueError", r"Shape \(1,\) must have rank 0"),
    (
        lambda tf: tf.signal.kaiser_window(0),
        IAE,
        r"Requires start <= limit when delta > 0: 0.5/-0.4",
    ),
    (
        lambda tf: tf.signal.stft(tf.ones([12], tf.int32), 4, 2),
        "ValueError",
        r"dtype must be a floating point type. Found <dtype: 'int32'>",
    ),
    (
        lambda tf: tf.signal.stft(tf.ones([12], tf.float16), 4, 2),
        "ValueError",
        r"RFFT requires tf.float32 or tf.float64 inputs",
    ),
    (
        lambda tf: tf.signal.mdct(tf.ones([12]), 6),
        "ValueError",
        r"The frame length must be a multiple of 4.",
    ),
    (
        lambda tf: tf.signal.linear_to_mel_weight_matrix(0),
        "ValueError",
        r"num_mel_bins must be positive. Got: 0",
    ),
    (
        lambda tf: tf.signal.linear_to_mel_weight_matrix(lower_edge_hertz=-1.0),
        "ValueError",
        r"lower_edge_hertz must be non-negative. Got: -1.0",
    ),
    (
        lambda tf: tf.signal.linear_to_mel_weight_matrix(
            lower_edge_hertz=500.0, upper_edge_hertz=400.0
        ),
        "ValueError",
        r"lower_edge_hertz 500.0 >= upper_edge_hertz 400.0",
    ),
    (
        lambda tf: tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0),
        "ValueError",
        r"upper_edge_hertz must not be larger than the Nyquist frequency \(sample_rate / 2\). Got 5000.0 for sample_rate: 8000",
    ),
    (
        lambda tf: tf.signal.linear_to_mel_weight_matrix(dtype=tf.int32),
        "ValueError",
        r"dtype must be a floating point type. Got: <dtype: 'int32'>",
    ),
    (
        lambda tf: tf.signal.mfccs_from_log_mel_spectrograms(tf.ones([2, 0])),
        "ValueError",
        r"num_mel_bins must be positive. Got: tf.Tensor\(\[\], shape=\(2, 0\), dtype=float32\)",
    ),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_tf(i):
    fn, error, message = ERRORS[i]
    check_error(fn, error, message)
