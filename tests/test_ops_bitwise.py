"""``tf.bitwise`` side by side with real TensorFlow: values at every integer dtype,
broadcasting, TF's clamped out-of-range shifts, no gradient, TF's errors, and the ops
inside ``tapejax.function``."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_dtype_acceptance,
    check_error,
    check_tf_allowed,
    check_values,
    fixed,
    value_params,
)

NAMES = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
# Without JAX's 64-bit mode; the int64/uint64 cases below turn it on. The second operand
# has the first's last dimension only: broadcasting is part of every case.
INTS = ("int8", "uint16", "int32")
SHIFT_INTS = ("int8", "uint8", "int16", "uint32")
SHAPES = ((2, 5),)


def _pair(lo_y, hi_y):
    def make(dt, shape):
        lo = 0 if np.dtype(dt).kind == "u" else -100
        return (arr(dt, shape, lo, 100), arr(dt, shape[-1:], max(lo_y, lo), hi_y, seed=1)), {}

    return make


CASES = [
    *(Case(f"bitwise.{n}", _pair(-100, 100), dtypes=INTS, shapes=SHAPES) for n in NAMES[:3]),
    # amounts below 0 and at or past the width: TF clamps them to [0, bits - 1]
    *(Case(f"bitwise.{n}", _pair(-3, 40), dtypes=SHIFT_INTS, shapes=SHAPES) for n in NAMES[3:]),
    Case("bitwise.invert", lambda dt, shape: ((arr(dt, shape, 0, 100),), {}), dtypes=INTS),
    fixed("bitwise.bitwise_xor", lambda dt: (5, 3)),
    fixed("bitwise.invert", lambda dt: ([1, -2],)),
    fixed(
        "bitwise.left_shift",
        lambda dt: (np.array([1, -1, 5], np.int8), np.array([-1, 9, 70], np.int8)),
    ),
    fixed(
        "bitwise.right_shift",
        lambda dt: (np.array([1, -1, 5], np.int8), np.array([-1, 9, 70], np.int8)),
    ),
    fixed(
        "bitwise.left_shift",
        lambda dt: (np.array([1, -1, 5, 7], np.int64), np.array([-1, 63, 64, 1000], np.int64)),
        x64=True,
    ),
    fixed(
        "bitwise.right_shift",
        lambda dt: (np.array([1, -1, -8, 2**62], np.int64), np.array([-5, 63, 70, 61], np.int64)),
        x64=True,
    ),
    fixed(
        "bitwise.right_shift",
        lambda dt: (np.array([2**63, 9], np.uint64), np.array([63, 64], np.uint64)),
        x64=True,
    ),
    fixed("bitwise.bitwise_and", lambda dt: (np.array([[3], [5]], np.int16), 6)),
]
NOT_DIFFERENTIABLE = {f"bitwise.{n}" for n in (*NAMES, "invert")}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES[:6], ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


def test_dtype_lists_are_tfs():
    check_tf_allowed(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"])


def test_accepts_exactly_tfs_dtypes(x64):
    dtypes = ("bool", "float32", "float64", "int8", "uint8", "int32", "int64", "uint64")
    check_dtype_acceptance("invert", lambda fw, x: fw.bitwise.invert(x), dtypes)
    check_dtype_acceptance("left_shift", lambda fw, x: fw.bitwise.left_shift(x, x), dtypes)


@pytest.mark.parametrize("name", [*NAMES, "invert"])
def test_tape_gives_none(name):
    for fw in (tapejax, tensorflow):
        x = fw.Variable([3, 5])
        with fw.GradientTape() as tape:
            fn = getattr(fw.bitwise, name)
            y = fn(x) if name == "invert" else fn(x, fw.constant([1, 2]))
        assert tape.gradient(y, x) is None, type(fw).__name__


@pytest.mark.parametrize(
    "fn, error, message",
    [
        (
            lambda tf: tf.bitwise.bitwise_and(1.0, 2.0),
            "InvalidArgumentError",
            "Value for attr 'T' of float is not in the list of allowed values: int8, int16",
        ),
        (
            lambda tf: tf.bitwise.left_shift(True, False),
            "InvalidArgumentError",
            "Value for attr 'T' of bool is not in the list of allowed values",
        ),
        (
            lambda tf: tf.bitwise.bitwise_or(tf.constant([1, 2]), tf.constant([1, 2, 3])),
            "InvalidArgumentError",
            r"Incompatible shapes: \[2\] vs. \[3\]",
        ),
        (
            lambda tf: tf.bitwise.bitwise_xor(tf.constant([1], tf.int8), tf.constant([1])),
            "InvalidArgumentError",
            "cannot compute BitwiseXor as input #1\\(zero-based\\) was expected to be a int8 "
            "tensor but is a int32 tensor",
        ),
        (
            lambda tf: tf.bitwise.right_shift(tf.constant([1]), 1.5),
            "TypeError",
            "Cannot convert 1.5 to EagerTensor of dtype int32",
        ),
    ],
)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_inside_function():
    @tapejax.function
    def f(x, y):
        return (
            tapejax.bitwise.left_shift(x, y),
            tapejax.bitwise.right_shift(x, y),
            tapejax.bitwise.invert(tapejax.bitwise.bitwise_xor(x, y)),
        )

    x, y = np.array([-7, 1, 100], np.int32), np.array([2, 40, -1], np.int32)
    for _ in range(3):  # the first call runs eagerly, the next ones traced
        got = f(tapejax.constant(x), tapejax.constant(y))
    want = (
        tensorflow.bitwise.left_shift(x, y),
        tensorflow.bitwise.right_shift(x, y),
        tensorflow.bitwise.invert(tensorflow.bitwise.bitwise_xor(x, y)),
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_integer_tensor_operators_are_bitwise():
    x, y = np.array([12, 10], np.int32), np.array([10, 6], np.int32)
    t = tapejax.constant(x)
    np.testing.assert_array_equal((t & y).numpy(), x & y)
    np.testing.assert_array_equal((y | t).numpy(), y | x)
    np.testing.assert_array_equal((~t).numpy(), ~x)
