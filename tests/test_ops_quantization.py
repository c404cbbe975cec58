"""``tf.quantization`` side by side with real TensorFlow: values on grids that hit rounding
ties and range edges, TF's straight-through gradients (and None where TF registers none),
quantized outputs held in their integer types, TF's errors, and use inside
``tapejax.function``."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    case_id,
    check_accepts_variables,
    check_error,
    check_tape_gradients,
    check_values,
    value_params,
)

QUANT = "quantization."
F32 = np.float32


def _ties(lo, hi, steps, n=24):
    """Values at the midpoints between grid steps (rounding ties), the range's ends, and
    points past both ends."""
    s = (hi - lo) / steps
    mids = lo + s * (np.arange(-2, n) + 0.5)
    return np.concatenate([mids, np.linspace(lo - 1, hi + 1, 41), [lo, hi, 0.0]]).astype(F32)


def _fq_args(lo, hi, num_bits, narrow):
    steps = (1 << num_bits) - 1 - narrow

    def make(dt, shape):
        kw = {"min": lo, "max": hi, "num_bits": num_bits, "narrow_range": narrow}
        return (_ties(lo, hi, steps),), kw

    return make


def _fq_vars(lo, hi, num_bits, narrow):
    steps = (1 << num_bits) - 1 - narrow

    def make(dt, shape):
        kw = {"num_bits": num_bits, "narrow_range": narrow}
        return (_ties(lo, hi, steps), F32(lo), F32(hi)), kw

    return make


def _fq_per_channel(num_bits, narrow):
    lo, hi = np.array([-1.0, 0.1, -6.0], F32), np.array([3.0, 2.0, 6.0], F32)

    def make(dt, shape):
        s = (hi - lo) / ((1 << num_bits) - 1 - narrow)
        x = (lo + s * (np.arange(-2, 20)[:, None] + 0.5)).astype(F32)
        x = np.concatenate([x, np.linspace(lo - 1, hi + 1, 9).astype(F32)])
        return (x.reshape(shape + (3,)), lo, hi), {"num_bits": num_bits, "narrow_range": narrow}

    return make


def _gradient_op(maker, per_channel=False):
    def make(dt, shape):
        args, kw = maker(dt, shape)
        x = args[0]
        g = np.linspace(-1, 2, x.size).astype(F32).reshape(x.shape)
        return (g, *args), kw

    return make


def _qdq(lo, hi, **kw):
    def make(dt, shape):
        return (_ties(lo, hi, 254).astype(dt), np.asarray(lo, dt), np.asarray(hi, dt)), dict(kw)

    return make


RANGES = [(-1.0, 3.0), (-6.0, 6.0), (0.1, 2.0), (-2.0, -0.5), (-0.3, 7.7)]
ONE = ((0,),)  # the inputs do not depend on the shape
CASES = [
    *(
        Case(
            QUANT + "fake_quant_with_min_max_args",
            _fq_args(lo, hi, b, nr),
            shapes=ONE,
            diff=(0,) if b == 8 else (),  # a tape check per range, not per bit width
        )
        for i, (lo, hi) in enumerate(RANGES)
        for b, nr in ((4, True), (8, False), (16, True))[i % 2 :: 2 - (i == 0)]
    ),
    *(
        Case(
            QUANT + "fake_quant_with_min_max_vars",
            _fq_vars(lo, hi, b, nr),
            shapes=ONE,
            diff=(0, 1, 2) if b == 8 else (),
        )
        for i, (lo, hi) in enumerate(RANGES)
        for b, nr in ((4, False), (8, True), (16, False))[(i + 1) % 2 :: 2 - (i == 0)]
    ),
    *(
        Case(
            QUANT + "fake_quant_with_min_max_vars_per_channel",
            _fq_per_channel(b, nr),
            shapes=((31,), (1, 31, 1)),
            diff=(0, 1, 2),
        )
        for b, nr in ((4, True), (8, False))
    ),
    Case(
        QUANT + "fake_quant_with_min_max_args_gradient",
        _gradient_op(_fq_args(-6.0, 6.0, 8, False)),
        shapes=ONE,
        diff=(0, 1),
    ),
    Case(
        QUANT + "fake_quant_with_min_max_vars_gradient",
        _gradient_op(_fq_vars(-0.3, 7.7, 4, True)),
        shapes=ONE,
        diff=(0, 1, 2, 3),
    ),
    Case(
        QUANT + "fake_quant_with_min_max_vars_per_channel_gradient",
        _gradient_op(_fq_per_channel(8, True)),
        shapes=((31,), (31, 1)),
        diff=(0, 1, 2, 3),
    ),
    *(
        Case(
            QUANT + "quantize_and_dequantize_v2",
            _qdq(lo, hi, signed_input=signed, num_bits=b, range_given=given, round_mode=rm),
            shapes=ONE,
            diff=(0, 1, 2) if b in (8, 13) else (),
        )
        for lo, hi in ((-1.0, 3.0), (0.5, 2.0), (-1e-3, 1e-3))
        for signed, b, given, rm in (
            (True, 8, True, "HALF_TO_EVEN"),
            (False, 4, True, "HALF_UP"),
            (True, 13, False, "HALF_UP"),
            (True, 2, False, "HALF_TO_EVEN"),
        )
    ),
    Case(
        QUANT + "quantize_and_dequantize_v2",
        _qdq(-1.0, 3.0, num_bits=8, range_given=True, narrow_range=True),
        shapes=ONE,
    ),
    *(
        Case(
            QUANT + "quantize_and_dequantize_v2",
            _qdq(-1.0, 3.0, num_bits=b, range_given=given),
            dtypes=("float64",),
            shapes=((0,),),
            x64=True,
        )
        for b, given in ((8, True), (40, False))
    ),
    *(
        Case(
            QUANT + "quantize_and_dequantize",
            _qdq(lo, hi, range_given=given, round_mode=rm),
            shapes=ONE,
            diff=(0, 1, 2),
        )
        for lo, hi, given, rm in (
            (-1.0, 3.0, True, "HALF_UP"),
            (-1e-3, 1e-3, False, "HALF_TO_EVEN"),
        )
    ),
]

# Public ops whose tests are below instead of a Case: their quantized outputs are held in
# integer types (TF's are qint8 ...), which the shared harness would call a dtype mismatch.
OTHERWISE_TESTED = {QUANT + n for n in ("quantize", "dequantize", "quantized_concat")}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", list({c.name: c for c in CASES[::-1]}.values()), ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


# Every Case is checked against TF's tape: straight-through inside the nudged range, zero
# outside, min/max getting the rest; zeros for quantize_and_dequantize_v2's range; None for
# quantize_and_dequantize's range and through the *_gradient ops (TF: NotDifferentiable).
@pytest.mark.parametrize("case", [c for c in CASES if c.diff], ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case, rtol=0, atol=0)


def test_qdq_v2_gradient_masks_with_the_given_range_even_when_not_range_given():
    x = np.array([-7.0, -1.0, -0.5, 0.0, 2.9, 3.0, 3.5], F32)
    got = []
    for fw in (tapejax, tensorflow):
        t = fw.constant(x)
        with fw.GradientTape() as tape:
            tape.watch(t)
            y = fw.quantization.quantize_and_dequantize_v2(t, -0.5, 3.0, range_given=False)
        got.append(tape.gradient(y, t).numpy())
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[0], [0, 0, 1, 1, 1, 1, 0])


def test_per_axis_qdq():
    """TF 2.21's QuantizeAndDequantizeV2/V4 kernels reject ``axis`` with a given range
    ("input_min must be a scalar"); tapejax computes what TF's V3 kernel does."""
    x = np.linspace(-9, 9, 720).astype(F32).reshape(6, 120)
    lo = np.array([-1, -6, 0, 0.5, -2, -0.3], F32)
    hi = np.array([3, 6, 1, 2, -0.5, 7.7], F32)
    qdq = tapejax.quantization.quantize_and_dequantize_v2
    tf_qdq = tensorflow.quantization.quantize_and_dequantize_v2
    np.testing.assert_array_equal(
        qdq(x, lo, hi, range_given=False, axis=0).numpy(),
        tf_qdq(x, lo, hi, range_given=False, axis=0).numpy(),
    )
    np.testing.assert_array_equal(
        qdq(x.T, lo, hi, range_given=False, axis=-1).numpy(),
        tf_qdq(tensorflow.constant(x.T), lo, hi, range_given=False, axis=-1).numpy(),
    )
    v3 = tensorflow.raw_ops.QuantizeAndDequantizeV3(
        input=x, input_min=lo, input_max=hi, num_bits=8, range_given=True, axis=0
    )
    np.testing.assert_array_equal(qdq(x, lo, hi, range_given=True, axis=0).numpy(), v3.numpy())
    with pytest.raises(tensorflow.errors.InvalidArgumentError, match="input_min must be a scalar"):
        tf_qdq(x, lo, hi, range_given=True, axis=0)


# -- quantize / dequantize / quantized_concat ---------------------------------------------

GRID = np.concatenate([np.linspace(-9, 9, 361), np.arange(-40, 40) / 8 + 1 / 16]).astype(F32)
TYPES = ("qint8", "quint8", "qint16", "quint16", "qint32")
# The (type, mode, round_mode) combinations where TF's CPU build runs its reference kernel.
# Where it runs oneDNN's instead (MIN_FIRST for quint8/qint8, SCALED with HALF_TO_EVEN for
# qint8/quint8), TF's results differ from its own reference kernel, which tapejax follows
# (docs/compat.md).
QUANTIZE_COMBOS = [
    *((t, "MIN_COMBINED", "HALF_AWAY_FROM_ZERO", False) for t in TYPES),
    *((t, "SCALED", "HALF_AWAY_FROM_ZERO", nr) for t in TYPES for nr in (False, True)),
    *((t, "SCALED", "HALF_TO_EVEN", nr) for t in ("qint16", "quint16") for nr in (False, True)),
    *((t, "MIN_FIRST", "HALF_AWAY_FROM_ZERO", False) for t in ("qint16", "quint16")),
]
QRANGES = [(-1.0, 3.0), (0.5, 2.0), (-2.0, -0.5), (0.0, 0.0), (-1e-3, 1e-3)]


def _same(got, want):
    assert isinstance(got, tapejax.Tensor)
    w = want.numpy()
    assert got.dtype.name == w.dtype.name, (got.dtype, w.dtype)  # qint8 shows as int8 ...
    np.testing.assert_array_equal(got.numpy(), w)


@pytest.mark.parametrize("T, mode, round_mode, narrow", QUANTIZE_COMBOS)
def test_quantize_matches_tf(T, mode, round_mode, narrow):
    for lo, hi in QRANGES:
        got = tapejax.quantization.quantize(
            GRID, lo, hi, getattr(tapejax, T), mode, round_mode, narrow_range=narrow
        )
        want = tensorflow.quantization.quantize(
            GRID, lo, hi, getattr(tensorflow, T), mode, round_mode, narrow_range=narrow
        )
        assert type(got).__name__ == "QuantizeV2" and got._fields == want._fields
        assert want.output.dtype.name == T
        for g, w in zip(got, want, strict=True):
            _same(g, w)


def test_quantize_ensure_minimum_range_and_axis():
    x = GRID[:360].reshape(3, 120)
    lo, hi = np.array([-1, 0, 0.5], F32), np.array([3, 0, 2], F32)
    for kw in ({"axis": 0, "mode": "SCALED"}, {"axis": 0}, {"ensure_minimum_range": 0.5}):
        a, b = (lo, hi) if "axis" in kw else (0.0, 0.001)
        got = tapejax.quantization.quantize(x, a, b, tapejax.qint16, **kw)
        want = tensorflow.quantization.quantize(x, a, b, tensorflow.qint16, **kw)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
    # An axis of one slice is no axis: scalar output_min/output_max, as TF's.
    for mode in ("MIN_FIRST", "SCALED"):
        got = tapejax.quantization.quantize(x[:1], [-1.0], [3.0], tapejax.qint8, mode, axis=0)
        want = tensorflow.quantization.quantize(
            x[:1], [-1.0], [3.0], tensorflow.qint8, mode, axis=0
        )
        for g, w in zip(got, want, strict=True):
            _same(g, w)
            assert g.shape.as_list() == w.shape.as_list()


# Not dequantize's qint32 SCALED (TF's oneDNN rewrite has no kernel for it) nor qint16
# MIN_FIRST (1 ulp apart from TF at some values); docs/compat.md.
DEQUANTIZE_COMBOS = [
    c for c in QUANTIZE_COMBOS if c[:2] not in (("qint32", "SCALED"), ("qint16", "MIN_FIRST"))
]


@pytest.mark.parametrize("T, mode, round_mode, narrow", DEQUANTIZE_COMBOS)
def test_dequantize_matches_tf(T, mode, round_mode, narrow):
    for lo, hi in QRANGES[:4]:
        q = tensorflow.quantization.quantize(
            GRID, lo, hi, getattr(tensorflow, T), mode, round_mode, narrow_range=narrow
        )
        want = tensorflow.quantization.dequantize(
            q.output, q.output_min, q.output_max, mode, narrow_range=narrow
        )
        held = tapejax.constant(q.output.numpy())  # what tapejax's quantize returns
        got = tapejax.quantization.dequantize(
            held, q.output_min.numpy(), q.output_max.numpy(), mode, narrow_range=narrow
        )
        _same(got, want)


def test_quantize_then_dequantize_round_trip_and_bfloat16():
    for T in ("quint8", "qint8"):
        q = tapejax.quantization.quantize(GRID, -1.0, 3.0, getattr(tapejax, T))
        tq = tensorflow.quantization.quantize(GRID, -1.0, 3.0, getattr(tensorflow, T))
        got = tapejax.quantization.dequantize(q.output, q.output_min, q.output_max)
        want = tensorflow.quantization.dequantize(tq.output, tq.output_min, tq.output_max)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    q = tensorflow.quantization.quantize(GRID, -1.0, 3.0, tensorflow.qint16)
    want = tensorflow.quantization.dequantize(
        q.output, q.output_min, q.output_max, dtype=tensorflow.bfloat16
    )
    got = tapejax.quantization.dequantize(
        q.output.numpy(), -1.0, q.output_max.numpy(), dtype=tapejax.bfloat16
    )
    assert got.dtype == tapejax.bfloat16
    np.testing.assert_array_equal(got.numpy().astype(F32), want.numpy().astype(F32))


@pytest.mark.parametrize("T", ["quint8", "qint32"])
def test_quantized_concat_matches_tf(T):
    for lo2, hi2 in ((-1.0, 3.0), (0.0, 6.0), (-2.0, 2.0), (0.0, 0.5)):
        a = tensorflow.quantization.quantize(GRID, -1.0, 3.0, getattr(tensorflow, T))
        b = tensorflow.quantization.quantize(GRID[::-1], lo2, hi2, getattr(tensorflow, T))
        want = tensorflow.quantization.quantized_concat(
            0, [a.output, b.output], [a.output_min, b.output_min], [a.output_max, b.output_max]
        )
        got = tapejax.quantization.quantized_concat(
            0,
            [a.output.numpy(), b.output.numpy()],
            [a.output_min.numpy(), b.output_min.numpy()],
            [a.output_max.numpy(), b.output_max.numpy()],
        )
        assert type(got).__name__ == "QuantizedConcat"
        _same(got.output_min, want.output_min)
        _same(got.output_max, want.output_max)
        w = want.output.numpy()
        if T == "quint8":
            _same(got.output, want.output)
        else:  # TF requantizes qint32 in double; tapejax in float32 without JAX's x64
            assert got.output.dtype.name == "int32"
            np.testing.assert_allclose(got.output.numpy(), w, rtol=0, atol=2**8)


@pytest.mark.parametrize("jax_x64", [False, True])
def test_quantized_concat_requantizes_every_quint8_value_as_tf(jax_x64, request):
    if jax_x64:
        request.getfixturevalue("x64")
    every = np.arange(256, dtype=np.uint8)
    for (lo1, hi1), (lo2, hi2) in [
        ((0.0, 1.0), (0.0, 2.0)),
        ((-1.0, 3.0), (0.5, 7.0)),
        ((0.0, 0.0), (-2.0, 2.0)),
        ((-0.3, 0.1), (-6.0, 6.0)),
    ]:
        a = tensorflow.constant(every, tensorflow.quint8)
        want = tensorflow.quantization.quantized_concat(0, [a, a], [lo1, lo2], [hi1, hi2])
        got = tapejax.quantization.quantized_concat(0, [every, every], [lo1, lo2], [hi1, hi2])
        for g, w in zip(got, want, strict=True):
            _same(g, w)


def test_no_gradient_through_quantize_dequantize_concat():
    """TF registers no gradient for QuantizeV2, Dequantize, QuantizedConcat (its tape raises
    LookupError); tapejax's tape gives None, as for every such op (docs/compat.md)."""
    x = tapejax.constant(GRID)
    lo = tapejax.constant(-1.0)
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch([x, lo])
        q = tapejax.quantization.quantize(x, lo, 3.0, tapejax.quint8)
        d = tapejax.quantization.dequantize(q.output, lo, 3.0)
    assert tape.gradient(q.output_min, lo) is None
    assert tape.gradient(d, [x, lo]) == [None, None]
    t = tensorflow.constant(GRID)
    with tensorflow.GradientTape() as tf_tape:
        tf_tape.watch(t)
        tq = tensorflow.quantization.quantize(t, -1.0, 3.0, tensorflow.quint8)
    with pytest.raises(LookupError, match="no entry for: QuantizeV2"):
        tf_tape.gradient(tq.output_min, t)


def _quint8(fw, values):
    """A quint8 tensor in TF; in tapejax, its holder uint8 tensor."""
    return fw.constant(values, fw.uint8 if fw is tapejax else fw.quint8)


ERRORS = [
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_args([1.0], num_bits=1),
        "InvalidArgumentError",
        r"num_bits must be between 2 and 16, inclusive \[Op:FakeQuantWithMinMaxArgs\]",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_args([1.0], 3.0, 1.0),
        "InvalidArgumentError",
        "min has to be smaller than max, was: 3 >= 1",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_args([1.0], 0.5, 0.5),
        "InvalidArgumentError",
        "min has to be smaller than max, was: 0.5 >= 0.5",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_vars([1.0], 0.0, 1.0, num_bits=17),
        "InvalidArgumentError",
        r"num_bits must be between 2 and 16, inclusive \[Op:FakeQuantWithMinMaxVars\]",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel(
            tf.ones([2, 3]), [0.0, 0.0], [1.0, 1.0]
        ),
        "InvalidArgumentError",
        "min has incorrect size, expected 3 was 2",
    ),
    (
        lambda tf: tf.quantization.quantize_and_dequantize_v2([1.0], 3.0, 1.0, range_given=True),
        "InvalidArgumentError",
        r"Invalid range: input_min 3 > input_max 1 \[Op:QuantizeAndDequantizeV4\]",
    ),
    (
        lambda tf: tf.quantization.quantize_and_dequantize_v2([1.0], 0.0, 1.0, num_bits=0),
        "InvalidArgumentError",
        "num_bits is out of range: 0 with signed_input_ 1",
    ),
    (
        lambda tf: tf.quantization.quantize_and_dequantize_v2(
            [1.0], 0.0, 1.0, signed_input=False, num_bits=63
        ),
        "InvalidArgumentError",
        "num_bits is out of range: 63 with signed_input_ 0",
    ),
    (
        lambda tf: tf.quantization.quantize_and_dequantize_v2(
            [1.0], 0.0, 1.0, round_mode="HALF_AWAY_FROM_ZERO"
        ),
        "InvalidArgumentError",
        "Value for attr 'round_mode' of \"HALF_AWAY_FROM_ZERO\" is not in the list of allowed "
        'values: "HALF_TO_EVEN", "HALF_UP"',
    ),
    (
        lambda tf: tf.quantization.quantize([1.0], 0.0, 1.0, tf.quint8, mode="FOO"),
        "InvalidArgumentError",
        "Value for attr 'mode' of \"FOO\" is not in the list of allowed values: "
        '"MIN_COMBINED", "MIN_FIRST", "SCALED"',
    ),
    (
        lambda tf: tf.quantization.quantize([1.0], 0.0, 1.0, tf.quint8, round_mode="HALF_TO_EVEN"),
        "InvalidArgumentError",
        "Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is 'MIN_COMBINED'.",
    ),
    (
        lambda tf: tf.quantization.quantize([1.0], 0.0, 1.0, tf.float32),
        "InvalidArgumentError",
        "Value for attr 'T' of float is not in the list of allowed values: qint8, quint8, "
        "qint32, qint16, quint16",
    ),
    (
        lambda tf: tf.quantization.quantize([1.0], 1.0, 0.0, tf.qint8, mode="SCALED"),
        "InvalidArgumentError",
        "input_max_range must be larger than input_min_range.",
    ),
    (
        lambda tf: tf.quantization.dequantize(_quint8(tf, [1]), 0.0, 1.0, mode="FOO"),
        "InvalidArgumentError",
        "Value for attr 'mode' of \"FOO\" is not in the list of allowed values",
    ),
    (
        lambda tf: tf.quantization.quantized_concat(
            0, [tf.constant([1.0]), tf.constant([2.0])], [0.0, 0.0], [1.0, 1.0]
        ),
        "NotFoundError",
        r"Could not find device for node: \{\{node QuantizedConcat\}\} = "
        r"QuantizedConcat\[N=2, T=DT_FLOAT\]",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_args(tf.constant([1])),
        "ValueError",
        "Tensor conversion requested dtype float32 for Tensor with dtype int32",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_vars([1.0], 0.0, [1.0]),
        "InvalidArgumentError",
        r"`max` must be rank 0 but is rank 1 \[Op:FakeQuantWithMinMaxVars\]",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_vars_per_channel([1.0], [[0.0]], [1.0]),
        "InvalidArgumentError",
        "`min` must be rank 1 but is rank 2",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_args_gradient([1.0, 2.0], [1.0]),
        "InvalidArgumentError",
        r"Inputs to operation FakeQuantWithMinMaxArgsGradient of type "
        r"FakeQuantWithMinMaxArgsGradient must have the same size and shape.  "
        r"Input 0: \[2\] != input 1: \[1\]",
    ),
    (
        lambda tf: tf.quantization.fake_quant_with_min_max_vars_gradient(
            [1.0, 2.0], [1.0], 0.0, 1.0
        ),
        "InvalidArgumentError",
        "gradient and input must be the same size",
    ),
    (
        lambda tf: tf.quantization.quantize([[1.0]], [0.0, 0.0], [1.0, 1.0], tf.qint8, axis=1),
        "InvalidArgumentError",
        "If axis is specified, min_range must be a 1-D tensor whose size matches the axis "
        "dimension of the input and output tensors, but min_range is a 1-D tensor of size 2 "
        "and input's axis dimension is of size 1",
    ),
    (
        lambda tf: tf.quantization.quantize(
            [[1.0], [2.0]], [0.0, 0.0], [1.0, 1.0], tf.qint8, "MIN_FIRST", axis=0
        ),
        "UnimplementedError",
        r"MIN_FIRST mode is not implemented for Quantize with axis != -1. \[Op:QuantizeV2\]",
    ),
    (
        lambda tf: tf.quantization.quantize([[1.0]], 0.0, [1.0, 1.0], tf.qint8),
        "InvalidArgumentError",
        "If axis is not specified, max_range must contain a single float element, but it "
        "contains 2 elements",
    ),
    (
        lambda tf: tf.quantization.dequantize(_quint8(tf, [[1]]), [0.0, 0.0], [1.0, 1.0], axis=1),
        "InvalidArgumentError",
        r"input_min_tensor must have as many elements as input on the dequantization axis "
        r"\(1\), got 2, expected 1",
    ),
    (
        lambda tf: tf.quantization.quantized_concat(0, [_quint8(tf, [1])], [0.0], [1.0]),
        "InvalidArgumentError",
        "Value for attr 'N' of 1 must be at least minimum 2",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_dequantize_takes_the_holder_types_tf_refuses():
    """tapejax has no quantized tensors, so dequantize takes their holder integer types,
    which TF refuses (docs/compat.md)."""
    u8 = np.array([0, 128, 255], np.uint8)
    with pytest.raises(tensorflow.errors.InvalidArgumentError, match="Value for attr 'T' of uint8"):
        tensorflow.quantization.dequantize(tensorflow.constant(u8), 0.0, 1.0)
    want = tensorflow.quantization.dequantize(tensorflow.constant(u8, tensorflow.quint8), 0.0, 1.0)
    np.testing.assert_array_equal(
        tapejax.quantization.dequantize(u8, 0.0, 1.0).numpy(), want.numpy()
    )
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="Value for attr 'T' of float"):
        tapejax.quantization.dequantize([1.0], 0.0, 1.0)


def test_inside_function():
    @tapejax.function
    def f(x, lo, hi):
        fq = tapejax.quantization.fake_quant_with_min_max_vars(x, lo, hi, num_bits=4)
        q = tapejax.quantization.quantize(x, lo, hi, tapejax.qint8, mode="SCALED")
        d = tapejax.quantization.dequantize(q.output, q.output_min, q.output_max, mode="SCALED")
        return fq, tapejax.quantization.quantize_and_dequantize_v2(x, lo, hi, range_given=True), d

    x = _ties(-1.0, 3.0, 15)
    for lo in (-1.0, -1.0, -2.0):  # the first call runs eagerly, the next ones traced
        got = f(tapejax.constant(x), tapejax.constant(lo), tapejax.constant(3.0))
    tq = tensorflow.quantization.quantize(x, -2.0, 3.0, tensorflow.qint8, mode="SCALED")
    want = (
        tensorflow.quantization.fake_quant_with_min_max_vars(x, -2.0, 3.0, num_bits=4),
        tensorflow.quantization.quantize_and_dequantize_v2(x, -2.0, 3.0, range_given=True),
        tensorflow.quantization.dequantize(tq.output, tq.output_min, tq.output_max, mode="SCALED"),
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_second_order_is_tfs_and_forward_mode_differs_as_documented():
    """TF's fake-quant gradient ops are NotDifferentiable, so a nested tape and a
    ForwardAccumulator give None in TF. tapejax's straight-through rule reads the input
    only through its range comparisons, so a nested tape gives None too; forward mode
    follows the rule, a JAX custom JVP: the straight-through tangent (docs/compat.md)."""
    fq = "fake_quant_with_min_max_vars"
    results = {}
    for fw in (tapejax, tensorflow):
        x, lo = fw.Variable([-7.0, 0.3, 2.0]), fw.Variable(-1.0)
        with fw.GradientTape(persistent=True) as outer:
            with fw.GradientTape() as inner:
                y = getattr(fw.quantization, fq)(x, lo, 3.0)
            g = inner.gradient(y, [x, lo])
        second = outer.gradient(g[0], [x, lo])
        with fw.autodiff.ForwardAccumulator(x, fw.constant([1.0, 1.0, 1.0])) as acc:
            z = fw.quantization.fake_quant_with_min_max_args(x, -1.0, 3.0)
        results[fw.__name__] = (g, second, acc.jvp(z))
    (g, second, jvp), (tf_g, tf_second, tf_jvp) = results["tapejax"], results["tensorflow"]
    for a, b in zip(g, tf_g, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert tf_second == [None, None] and tf_jvp is None
    assert second == [None, None]
    np.testing.assert_array_equal(jvp.numpy(), [0.0, 1.0, 1.0])
