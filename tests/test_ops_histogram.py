# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Fixed-width histograms (``histogram_fixed_width``, ``histogram_fixed_width_bins``) side
by side with real TensorFlow: counts and bins, dtypes, traced use inside
``tapejax.function`` with its run-time checks, and TF's errors."""

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
    check_error,
    check_values,
    fixed,
    value_params,
)

EDGES = np.array([-1.0, 0.0, 1.0, 1.5, 2.0, 2.9999, 3.0, 4.99, 5.0, 15.0], np.float32)

CASES = [
    Case(
        "histogram_fixed_width",
        lambda dt, shape: ((arr(dt, shape, -3, 8), np.array([0, 5], dt)), {"nbins": 7}),
        dtypes=("float32", "int32"),
        shapes=((50,), (6, 20)),
    ),
    fixed("histogram_fixed_width", lambda dt: (EDGES, [0.0, 5.0]), {"nbins": 5}),
    fixed(
        "histogram_fixed_width",
        lambda dt: (EDGES, [0.0, 3.0]),
        {"nbins": 3, "dtype": "int64"},
        x64=True,
    ),
    fixed(
        "histogram_fixed_width",
        lambda dt: (EDGES.astype(np.float64), [-2.0, 0.7]),
        {"nbins": 4},
        x64=True,
    ),
    fixed(
        "histogram_fixed_width", lambda dt: (EDGES, np.array([0.0, 5.0], np.float32), np.int32(2))
    ),
    # Values at bin edges where TF's step, hi / nbins - lo / nbins, rounds differently from
    # (hi - lo) / nbins.
    *[
        fixed(
            "histogram_fixed_width",
            lambda dt, lo=lo, hi=hi, v=v: (
                np.array([v], np.float32),
                np.array([lo, hi], np.float32),
            ),
            {"nbins": n},
        )
        for lo, hi, n, v in (
            (-3.763370990753174, 8.972989082336426, 3, 4.727535724639893),
            (-1.8160172700881958, 6.554051876068115, 6, 3.764029026031494),
            (-1.5456618070602417, 7.894317150115967, 6, 3.1743273735046387),
        )
    ],
    # An int32 range whose width overflows int32: TF widens before subtracting.
    *[
        fixed(
            "histogram_fixed_width",
            lambda dt, v=v, r=r: (np.array(v, np.int32), np.array(r, np.int32)),
            {"nbins": 5},
            dtypes=("int32",),
        )
        for v, r in (
            ([-(2**31), 0, 2**31 - 1, 5], [-(2**31), 2**31 - 1]),
            ([1, 2, 3], [-(2**31) + 5, 2**31 - 3]),
            ([0, 10, 20, -2000000001], [-2000000000, 2000000000]),
        )
    ],
    fixed("histogram_fixed_width", lambda dt: (EDGES, [0.0, 5.0]), {"nbins": 1}),
    Case(
        "histogram_fixed_width_bins",
        lambda dt, shape: ((arr(dt, shape, -3, 8), np.array([0, 5], dt)), {"nbins": 7}),
        shapes=((50,), (6, 20)),
    ),
    fixed("histogram_fixed_width_bins", lambda dt: (EDGES.reshape(2, 5), [0.0, 5.0]), {"nbins": 5}),
    fixed("histogram_fixed_width_bins", lambda dt: (EDGES, [5.0, 0.0]), {"nbins": 5}),
]
NOT_DIFFERENTIABLE = {"histogram_fixed_width", "histogram_fixed_width_bins"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("name", ["histogram_fixed_width", "histogram_fixed_width_bins"])
def test_no_gradient(name):
    for fw in (tapejax, tensorflow):
        x = fw.constant([1.0, 2.0])
        with fw.GradientTape() as tape:
            tape.watch(x)
            y = fw.cast(getattr(fw, name)(x, [0.0, 5.0], nbins=3), fw.float32)
        assert tape.gradient(y, x) is None


def test_traced_histograms_and_their_run_time_checks():
    f = tapejax.function(
        lambda x, r: (
            tapejax.histogram_fixed_width(x, r, nbins=5),
            tapejax.histogram_fixed_width_bins(x, r, nbins=5),
        )
    )
    want = (
        tensorflow.histogram_fixed_width(EDGES, [0.0, 5.0], nbins=5),
        tensorflow.histogram_fixed_width_bins(EDGES, [0.0, 5.0], nbins=5),
    )
    for _ in range(2):  # the eager first call, then the traced one
        for got, w in zip(
            f(tapejax.constant(EDGES), tapejax.constant([0.0, 5.0])), want, strict=True
        ):
            np.testing.assert_array_equal(got.numpy(), w.numpy())
    with pytest.raises(
        tapejax.errors.InvalidArgumentError,
        match=r"value_range\[0\] < value_range\[1\], but got '\[5, 0\]'",
    ):
        f(tapejax.constant(EDGES), tapejax.constant([5.0, 0.0]))
    with pytest.raises(
        tapejax.errors.InvalidArgumentError, match="Histogram values must not contain NaN"
    ):
        f(tapejax.constant(EDGES * np.nan), tapejax.constant([0.0, 5.0]))
    g = tapejax.function(lambda x, n: tapejax.histogram_fixed_width(x, [0.0, 1.0], nbins=n))
    with pytest.raises(NotImplementedError, match="`nbins` sets the result's shape"):
        g(tapejax.constant(EDGES), tapejax.constant(3))
        g(tapejax.constant(EDGES), tapejax.constant(3))


IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.histogram_fixed_width([[-1.0, 0], [1.5, np.nan]], [0.0, 5.0], nbins=5),
        IAE,
        r"Histogram values must not contain NaN \[Op:HistogramFixedWidth\]",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.0, 2, 3], [5.0, 0.0], nbins=5),
        IAE,
        r"value_range should satisfy value_range\[0\] < value_range\[1\], but got '\[5, 0\]' \[Op:HistogramFixedWidth\]",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.0, 2, 3], [0.0, 5.0], nbins=0),
        IAE,
        r"nbins should be a positive number, but got '0' \[Op:HistogramFixedWidth\]",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.0, 2, 3], [0.0, 5.0, 6.0], nbins=3),
        IAE,
        r"value_range should be a vector of 2 elements. \[Op:HistogramFixedWidth\]",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.5], [0.0, 5.0], nbins=[5]),
        IAE,
        r"nbins should be a scalar. \[Op:HistogramFixedWidth\]",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.0, 2, 3], [0.0, 5.0], nbins=3, dtype=tf.float32),
        IAE,
        r"Value for attr 'dtype' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.histogram_fixed_width(
            tf.constant([1, 2, 3], tf.uint8), tf.constant([0, 5], tf.uint8), nbins=3
        ),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: int32, int64, float, double",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1.0, 2, 3], [0.0, 5.0], nbins=3.0),
        "TypeError",
        r"Cannot convert 3.0 to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.histogram_fixed_width([1, 2, 3], [0.0, 5.0], nbins=5),
        "TypeError",
        r"Cannot convert \[0.0, 5.0\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.histogram_fixed_width_bins([1.0, 2, 3], [0.0, 5.0], nbins=0),
        IAE,
        r"Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: b'nbins tf.Tensor\(0, shape=\(\), dtype=int32\) must > 0'",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
