# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Tests of the rest of ``tapejax.nn`` and of TF's top-level convolution and patch ops:
``max_pool_with_argmax``, ``dilation2d``/``erosion2d``, the fractional pools,
``isotonic_regression``, the depthwise backprops, ``atrous_conv2d_transpose``,
``batch_norm_with_global_normalization``, ``with_space_to_batch``, the CTC label helpers,
``conv``, the V2 conv backprops, ``extract_volume_patches``, ``approx_top_k`` and
``required_space_to_batch_paddings``, side by side with real TensorFlow.

Each op has Cases (values, dtypes, shapes, Variables, tape gradients against TF,
``check_grads`` of the pure function). Where TF cannot be compared directly (random
pooling sequences, ops its CPU build has no kernel or gradient for, TF's own malformed
gradients) the tests compare with the route TF does take, and pin the deviation
``docs/compat.md`` lists. Error cases run under both frameworks.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax
import tapejax.nn
from tapejax._src.ops import fractional_pool_ops

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    arr,
    assert_same_result,
    case_id,
    check_accepts_variables,
    check_dtype_acceptance,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_values,
    first_of_each_op,
    grad_cases,
    value_params,
)

ONE = ((0,),)  # the shape argument of a Case whose inputs are fixed
F64 = ("float32", "float64")


def fixed_case(name, make, diff=(), dtypes=("float32",), **kw):
    """A Case whose inputs have fixed shapes; ``make(dtype)`` gives ``(args, kwargs)``."""
    return Case(name, lambda dt, shape: make(dt), dtypes=dtypes, shapes=ONE, diff=diff, **kw)


def _fw(t):
    """The framework a tensor belongs to (``with_space_to_batch``'s ``op`` runs under both)."""
    return tapejax if isinstance(t, tapejax.Tensor) else tensorflow


def _avg_pool_op(t, n, padding):
    return _fw(t).nn.avg_pool2d(t, 2, 1, padding)


def _conv_op(t, n, padding):
    return _fw(t).nn.conv2d(t, arr("float32", (3, 3, 2, 3), seed=9), 1, padding)


CTC = np.array([[1, 1, 2, 2, 1], [1, 2, 3, 4, 5], [3, 3, 3, 0, 0]], np.int32)
ONES4 = [1, 1, 1, 1]

CASES = [
    # -- max_pool_with_argmax (default int64 indices need x64)
    fixed_case(
        "nn.max_pool_with_argmax",
        lambda dt: ((arr(dt, (2, 5, 6, 3)), 2, 2, "SAME"), {}),
        diff=(0,),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.max_pool_with_argmax",
        lambda dt: (
            (arr(dt, (2, 6, 5, 2)), [3, 2], [2, 1], "VALID"),
            {"include_batch_in_index": True},
        ),
        diff=(0,),
        x64=True,
    ),
    fixed_case(
        "nn.max_pool_with_argmax",
        lambda dt: ((arr(dt, (1, 5, 5, 2)), 3, 2, "SAME"), {"output_dtype": "int32"}),
    ),
    fixed_case(
        "nn.max_pool_with_argmax",
        lambda dt: ((arr(dt, (2, 4, 4, 2)), 3, 1, "SAME"), {"output_dtype": "int32"}),
        dtypes=("int32", "uint8"),
    ),
    # -- grayscale morphology
    fixed_case(
        "nn.dilation2d",
        lambda dt: (
            (arr(dt, (2, 6, 5, 2)), arr(dt, (3, 2, 2), seed=1), ONES4, "SAME", "NHWC", ONES4),
            {},
        ),
        diff=(0, 1),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.dilation2d",
        lambda dt: (
            (
                arr(dt, (1, 7, 7, 2)),
                arr(dt, (2, 3, 2), seed=1),
                [1, 2, 1, 1],
                "VALID",
                "NHWC",
                [1, 2, 2, 1],
            ),
            {},
        ),
        diff=(0, 1),
    ),
    fixed_case(
        "nn.dilation2d",
        lambda dt: (
            (
                arr(dt, (1, 5, 5, 2), 0, 9),
                arr(dt, (2, 2, 2), 0, 3, seed=1),
                [1, 2, 2, 1],
                "SAME",
                "NHWC",
                ONES4,
            ),
            {},
        ),
        dtypes=("int32", "uint8"),
    ),
    fixed_case(
        "nn.erosion2d",
        lambda dt: (
            (arr(dt, (2, 6, 5, 2)), arr(dt, (3, 2, 2), seed=1), ONES4, "SAME", "NHWC", ONES4),
            {},
        ),
        diff=(0, 1),
    ),
    fixed_case(
        "nn.erosion2d",
        lambda dt: (
            (
                arr(dt, (1, 7, 7, 2)),
                arr(dt, (2, 2, 2), seed=1),
                [1, 1, 2, 1],
                "SAME",
                "NHWC",
                [1, 2, 1, 1],
            ),
            {},
        ),
        diff=(0, 1),
    ),
    # -- fractional pools: ratios that divide the sizes give the same sequences under any
    #    random bits (TF's and JAX's), so values and gradients compare directly
    fixed_case(
        "nn.fractional_max_pool",
        lambda dt: ((arr(dt, (2, 6, 6, 2), seed=3), [1.0, 2.0, 3.0, 1.0]), {"seed": 1}),
        diff=(0,),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.fractional_max_pool",
        lambda dt: (
            (arr(dt, (1, 8, 6, 2), seed=3), 2.0),
            {"pseudo_random": True, "overlapping": True, "seed": 2},
        ),
        diff=(0,),
        x64=True,
    ),
    fixed_case(
        "nn.fractional_max_pool",
        lambda dt: ((arr(dt, (1, 4, 6, 1), -9, 9), [1.0, 2.0, 2.0, 1.0]), {"seed": 5}),
        dtypes=("int32",),
        x64=True,
    ),
    fixed_case(
        "nn.fractional_avg_pool",
        lambda dt: ((arr(dt, (2, 6, 6, 2), seed=3), [1.0, 3.0, 2.0, 1.0]), {"seed": 1}),
        diff=(0,),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.fractional_avg_pool",
        lambda dt: (
            (arr(dt, (1, 8, 6, 2), seed=3), [1.0, 2.0, 2.0, 1.0]),
            {"pseudo_random": True, "overlapping": True, "seed": 2},
        ),
        diff=(0,),
        x64=True,
    ),
    fixed_case(
        "nn.fractional_avg_pool",
        lambda dt: ((arr(dt, (1, 4, 6, 1), -9, 9), [1.0, 2.0, 3.0, 1.0]), {"seed": 5}),
        dtypes=("int32",),
        x64=True,
    ),
    # -- isotonic regression (TF's gradient is well formed for 2-D inputs only)
    fixed_case(
        "nn.isotonic_regression",
        lambda dt: ((arr(dt, (3, 7)),), {}),
        diff=(0,),
        dtypes=F64,
        x64=True,
    ),
    fixed_case(
        "nn.isotonic_regression",
        lambda dt: ((arr(dt, (4, 3), seed=2),), {"decreasing": False, "axis": 0}),
        diff=(0,),
    ),
    fixed_case(
        "nn.isotonic_regression", lambda dt: ((arr(dt, (2, 3, 5), seed=4),), {"decreasing": False})
    ),
    fixed_case(
        "nn.isotonic_regression",
        lambda dt: ((np.array([[3, 1, 2, 2, 5, 0], [1, 3, 4, 4, 4, 2]], dt),), {}),
        dtypes=("int8", "int32"),
        x64=True,
    ),
    # -- depthwise backprops
    fixed_case(
        "nn.depthwise_conv2d_backprop_filter",
        lambda dt: (
            (
                arr(dt, (2, 5, 5, 3)),
                [3, 3, 3, 2],
                arr(dt, (2, 3, 3, 6), seed=1),
                [1, 2, 2, 1],
                "SAME",
            ),
            {},
        ),
        diff=(0, 2),
        dtypes=F64,
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.depthwise_conv2d_backprop_filter",
        lambda dt: (
            (
                arr(dt, (1, 6, 5, 2)),
                np.array([2, 3, 2, 1], np.int32),
                arr(dt, (1, 8, 5, 2), seed=1),
                ONES4,
                [[0, 0], [1, 2], [1, 1], [0, 0]],
            ),
            {},
        ),
        diff=(0, 2),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.depthwise_conv2d_backprop_input",
        lambda dt: (
            (
                [2, 5, 5, 3],
                arr(dt, (3, 3, 3, 2)),
                arr(dt, (2, 3, 3, 6), seed=1),
                [1, 2, 2, 1],
                "SAME",
            ),
            {},
        ),
        diff=(1, 2),
        dtypes=F64,
        x64=True,
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.depthwise_conv2d_backprop_input",
        lambda dt: (
            ([1, 6, 5, 2], arr(dt, (2, 3, 2, 1)), arr(dt, (1, 5, 3, 2), seed=1), ONES4, "VALID"),
            {},
        ),
        diff=(1, 2),
        rtol=1e-4,
        atol=1e-5,
    ),
    # -- space-to-batch composites
    fixed_case(
        "nn.atrous_conv2d_transpose",
        lambda dt: (
            (arr(dt, (2, 5, 6, 3)), arr(dt, (3, 3, 2, 3), seed=1), [2, 5, 6, 2], 2, "SAME"),
            {},
        ),
        diff=(0, 1),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.atrous_conv2d_transpose",
        lambda dt: (
            (
                arr(dt, (1, 5, 6, 2)),
                arr(dt, (2, 3, 1, 2), seed=1),
                np.array([1, 7, 10, 1]),
                2,
                "VALID",
            ),
            {},
        ),
        diff=(0, 1),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.atrous_conv2d_transpose",
        lambda dt: (
            (arr(dt, (1, 4, 4, 2)), arr(dt, (3, 3, 1, 2), seed=1), [1, 4, 4, 1], 1, "SAME"),
            {},
        ),
        diff=(0, 1),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.with_space_to_batch",
        lambda dt: ((arr(dt, (2, 7, 6, 2)), [2, 2], "SAME", _conv_op), {"filter_shape": [3, 3]}),
        diff=(0,),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "nn.with_space_to_batch",
        lambda dt: ((arr(dt, (1, 7, 6, 2)), [3, 2], "VALID", _avg_pool_op), {}),
        diff=(0,),
    ),
    fixed_case(
        "nn.with_space_to_batch",
        lambda dt: (
            (arr(dt, (1, 6, 5, 2)), [2, 2], [[0, 0], [1, 1], [2, 0], [0, 0]], _avg_pool_op),
            {},
        ),
        diff=(0,),
    ),
    fixed_case(
        "nn.with_space_to_batch",
        lambda dt: ((arr(dt, (1, 5, 5, 2)), [1, 1], "SAME", _avg_pool_op), {}),
        diff=(0,),
    ),
    fixed_case(
        "required_space_to_batch_paddings",
        lambda dt: (([5, 7], [2, 3]), {"base_paddings": [[1, 0], [2, 2]]}),
        dtypes=("int32",),
    ),
    fixed_case(
        "required_space_to_batch_paddings",
        lambda dt: ((np.array([4, 9, 1], np.int32), np.array([2, 4, 3], np.int32)), {}),
        dtypes=("int32",),
    ),
    # -- batch normalization with given statistics
    fixed_case(
        "nn.batch_norm_with_global_normalization",
        lambda dt: (
            (
                arr(dt, (2, 3, 4)),
                arr(dt, (4,), seed=1),
                arr(dt, (4,), 0.5, 2, seed=2),
                arr(dt, (4,), seed=3),
                arr(dt, (4,), seed=4),
                0.001,
                True,
            ),
            {},
        ),
        diff=(0, 1, 2, 3, 4),
    ),
    fixed_case(
        "nn.batch_norm_with_global_normalization",
        lambda dt: (
            (
                arr(dt, (5, 4)),
                arr(dt, (4,), seed=1),
                arr(dt, (4,), 0.5, 2, seed=2),
                arr(dt, (4,), seed=3),
                arr(dt, (4,), seed=4),
                0.01,
                False,
            ),
            {},
        ),
        diff=(0, 1, 2, 3, 4),
    ),
    # -- CTC label helpers
    fixed_case(
        "nn.collapse_repeated",
        lambda dt: ((CTC, np.array([5, 3, 2], np.int32)), {}),
        dtypes=("int32",),
    ),
    fixed_case(
        "nn.collapse_repeated", lambda dt: ((CTC.astype(dt) + 0.5, [5, 5, 1]), {}), diff=(0,)
    ),
    fixed_case(
        "nn.ctc_unique_labels",
        lambda dt: ((np.array([[3, 4, 4, 3], [0, 0, 1, 0], [5, 0, 5, 0]], dt),), {}),
        dtypes=("int32",),
        x64=True,
    ),
    # -- top-level convolutions, patches and search
    fixed_case(
        "conv",
        lambda dt: (
            (arr(dt, (2, 5, 6, 3)), arr(dt, (3, 2, 3, 4), seed=1), [1, 1, 2, 1], "SAME"),
            {},
        ),
        dtypes=("float32", "int32"),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "conv",
        lambda dt: (
            (arr(dt, (2, 1, 6, 5, 3)), arr(dt, (2, 2, 3, 2), seed=1), [1, 2, 1, 1], "EXPLICIT"),
            {
                "explicit_paddings": [0, 0, 1, 0, 0, 1, 0, 0],
                "dilations": [1, 1, 2, 1],
                "batch_dims": 2,
            },
        ),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "conv",
        lambda dt: (
            (arr(dt, (1, 4, 5, 4, 2)), arr(dt, (2, 3, 2, 2, 3), seed=1), [1, 1, 2, 1, 1], "VALID"),
            {},
        ),
        rtol=1e-4,
        atol=1e-5,
    ),
    fixed_case(
        "extract_volume_patches",
        lambda dt: ((arr(dt, (2, 4, 5, 3, 2)), [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "VALID"), {}),
        diff=(0,),
        dtypes=("float32", "int32"),
    ),
    fixed_case(
        "extract_volume_patches",
        lambda dt: ((arr(dt, (1, 5, 4, 5, 2)), [1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME"), {}),
        diff=(0,),
    ),
    fixed_case("approx_top_k", lambda dt: ((arr(dt, (3, 8)), 3), {}), diff=(0,)),
    fixed_case(
        "approx_top_k", lambda dt: ((arr(dt, (2, 3, 5)), 0), {}), dtypes=("float32", "bfloat16")
    ),
]

# TF's kernels for these have no float64: their pure gradients are checked in float32.
FLOAT32_ONLY = {"approx_top_k"}
# check_grads traces the op, and collapse_repeated's width depends on its labels' values
# (NotImplementedError when traced): its tape gradient is checked against TF's instead.
NO_PURE = FLOAT32_ONLY | {"nn.collapse_repeated"}

# Gradients TF does not give (``conv`` registers none; MaxPoolGradWithArgmax has no CPU
# kernel for int32 indices): checked numerically here, and ``conv``'s against
# ``tf.nn.conv2d``'s and ``conv3d``'s gradients below.
PURE_ONLY = [
    fixed_case(
        "nn.max_pool_with_argmax",
        lambda dt: ((arr(dt, (1, 5, 5, 2)), 3, 2, "SAME"), {"output_dtype": "int32"}),
        diff=(0,),
    ),
    fixed_case(
        "conv",
        lambda dt: (
            (arr(dt, (2, 5, 6, 3)), arr(dt, (3, 2, 3, 4), seed=1), [1, 1, 2, 1], "SAME"),
            {},
        ),
        diff=(0, 1),
    ),
    fixed_case(
        "conv",
        lambda dt: (
            (arr(dt, (1, 4, 5, 4, 2)), arr(dt, (2, 3, 2, 2, 3), seed=1), [1, 1, 1, 1, 1], "SAME"),
            {"dilations": [1, 2, 1, 2, 1]},
        ),
        diff=(0, 1),
    ),
]

# TF's CPU build has no kernel for the V2 backprops: compared with the V1 kernels below.
OTHERWISE_TESTED = {"conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NO_PURE) + PURE_ONLY, ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.slow
@pytest.mark.parametrize("case", first_of_each_op(CASES, NO_PURE) + PURE_ONLY, ids=case_id)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


def test_approx_top_k_gradients_are_numerically_right_in_float32():
    """``check_grads`` in float32: TF's ApproxTopK (and so tapejax's) takes no float64."""
    from jax.test_util import check_grads

    x = arr("float32", (3, 8))
    check_grads(
        lambda v: tapejax.approx_top_k(tapejax.convert_to_tensor(v), 3).values._value,
        (x,),
        order=1,
        modes=["rev"],
        eps=1e-2,
        atol=2e-2,
        rtol=2e-2,
    )


def _grads(fw, fn, *values):
    """``fn(fw, *tensors)`` and the gradients of a weighted sum of its first output."""
    ts = [fw.constant(v) for v in values]
    with fw.GradientTape() as tape:
        tape.watch(ts)
        out = fn(fw, *ts)
        y = out[0] if isinstance(out, (tuple, list)) else out
        weights = np.arange(1, y.shape.num_elements() + 1, dtype=np.float32).reshape(y.shape)
        loss = fw.reduce_sum(y * fw.constant(weights))
    grads = tape.gradient(loss, ts)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [np.asarray(o) for o in outs], [None if g is None else np.asarray(g) for g in grads]


def assert_same_as_tf(fn, *values):
    """Outputs and gradients of ``fn`` equal TF's bit for bit (NaNs where TF's are)."""
    got_out, got_grads = _grads(tapejax, fn, *values)
    want_out, want_grads = _grads(tensorflow, fn, *values)
    for g, w in zip(got_out + got_grads, want_out + want_grads, strict=True):
        np.testing.assert_array_equal(g, w)


# -- ties, NaNs and empty windows: TF's kernels' choices --------------------------------------

TIES = np.array([[1, 3, 3, 2], [3, 0, 1, 3], [0, 3, 3, 1], [2, 1, 3, 3]], np.float32)[
    None, ..., None
]
EMPTY = np.full((1, 3, 3, 1), -np.inf, np.float32)
NANS = np.array([[np.nan, 1.0, 2.0], [np.nan, np.nan, np.nan], [0.0, np.nan, 1.0]], np.float32)[
    None, ..., None
]
ZERO_FILTER = np.zeros((2, 2, 1), np.float32)


def _dilate(strides, rates, padding="SAME"):
    return lambda tf, x, f: tf.nn.dilation2d(x, f, strides, padding, "NHWC", rates)


def _erode(strides, rates, padding="SAME"):
    return lambda tf, x, f: tf.nn.erosion2d(x, f, strides, padding, "NHWC", rates)


EDGES = [
    ("argmax pool ties 2x2/2", lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME"), (TIES,)),
    ("argmax pool ties 3x3/1", lambda tf, x: tf.nn.max_pool_with_argmax(x, 3, 1, "SAME"), (TIES,)),
    (
        "argmax pool ties, batch index",
        lambda tf, x: tf.nn.max_pool_with_argmax(
            x, [3, 2], [1, 2], "VALID", include_batch_in_index=True
        ),
        (np.concatenate([TIES, 2 * TIES]),),
    ),
    ("argmax pool NaNs", lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 1, "SAME"), (NANS,)),
    ("dilation ties", _dilate(ONES4, ONES4), (TIES, ZERO_FILTER)),
    (
        "dilation ties, rate 2",
        _dilate(ONES4, [1, 2, 2, 1]),
        (np.zeros((1, 4, 4, 1), np.float32), ZERO_FILTER),
    ),
    ("dilation of -inf windows", _dilate(ONES4, ONES4), (EMPTY, ZERO_FILTER)),
    ("dilation of -inf windows, rate 2", _dilate([1, 2, 1, 1], [1, 2, 2, 1]), (EMPTY, ZERO_FILTER)),
    ("dilation of NaNs", _dilate(ONES4, ONES4), (NANS, ZERO_FILTER)),
    ("erosion ties", _erode([1, 2, 2, 1], ONES4), (TIES, ZERO_FILTER)),
    ("erosion of NaNs", _erode(ONES4, [1, 1, 2, 1]), (NANS, ZERO_FILTER)),
]


@pytest.mark.parametrize("what, fn, values", EDGES, ids=[e[0] for e in EDGES])
def test_window_maxima_ties_and_nans_are_tfs(what, fn, values):
    assert_same_as_tf(fn, *values)


# -- fractional pools: TF's sequences through the pure pooling, and the sequences' rule -------


@pytest.mark.parametrize("average", [False, True], ids=["max", "avg"])
@pytest.mark.parametrize("overlapping", [False, True], ids=["disjoint", "overlapping"])
@pytest.mark.parametrize("pseudo_random", [False, True], ids=["random", "pseudo"])
def test_fractional_pooling_on_tfs_sequences_is_tfs(average, overlapping, pseudo_random):
    """TF's random sequences, fed to the pooling tapejax runs once it has drawn its own:
    values and gradients equal TF's (cells of k and k + 1, clipped, shared boundaries)."""
    pool = tensorflow.nn.fractional_avg_pool if average else tensorflow.nn.fractional_max_pool
    x = arr("float32", (2, 9, 11, 2), seed=5)
    x[0, :3, :3] = 1.0  # ties: the first maximum of a cell gets the gradient
    ratio = [1.0, 1.44, 1.73, 1.0]
    _, rows, cols = pool(x, ratio, pseudo_random, overlapping, seed=7)

    def run(tf, v):
        if tf is tensorflow:
            return pool(v, ratio, pseudo_random, overlapping, seed=7)[0]
        return fractional_pool_ops.pool_with_sequences(v, rows, cols, overlapping, average)[0]

    got, got_grads = _grads(tapejax, run, x)
    want, want_grads = _grads(tensorflow, run, x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got_grads[0], want_grads[0], rtol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("pseudo_random", [False, True], ids=["random", "pseudo"])
def test_fractional_pool_sequences_follow_tfs_rule(pseudo_random):
    """Boundaries from 0 to the size; every cell k or k + 1 long, n_in % n_out of them
    k + 1 (TF's rule for both kinds); random cells are placed uniformly."""
    n_in, ratio = 23, 2.3
    n_out = int(np.floor(np.float32(n_in) / np.float32(ratio)))
    k, extra = divmod(n_in, n_out)
    long_cells = np.zeros(n_out)
    seen = set()
    for seed in range(1, 81):
        _, rows, cols = tapejax.nn.fractional_max_pool(
            np.zeros((1, n_in, 4, 1), np.float32), [1.0, ratio, 2.0, 1.0], pseudo_random, seed=seed
        )
        bounds = rows.numpy()
        lengths = np.diff(bounds)
        assert bounds[0] == 0 and bounds[-1] == n_in and len(bounds) == n_out + 1
        assert set(lengths) <= {k, k + 1} and (lengths == k + 1).sum() == extra
        assert cols.numpy().tolist() == [0, 2, 4]
        long_cells += lengths == k + 1
        seen.add(tuple(bounds))
    if pseudo_random:
        # a_i = ceil(alpha * (i + u)): one u fixes the sequence; few distinct ones.
        assert 1 < len(seen) < 40
    else:
        assert len(seen) > 40
        share = long_cells / 80
        assert np.all(np.abs(share - extra / n_out) < 0.25), share


@pytest.mark.slow
def test_fractional_pool_seeds_follow_tfs_rules():
    """A nonzero seed repeats its sequences on every call (TF's deterministic kernels), the
    same for both pools, and set_seed changes them; seed 0 draws new ones each call."""
    x = np.zeros((1, 30, 30, 1), np.float32)
    ratio = [1.0, 1.7, 1.3, 1.0]

    def seqs(pool, seed):
        _, rows, cols = pool(x, ratio, pseudo_random=False, seed=seed)
        return rows.numpy().tolist(), cols.numpy().tolist()

    try:
        tapejax.random.set_seed(3)
        first = seqs(tapejax.nn.fractional_max_pool, 5)
        assert seqs(tapejax.nn.fractional_max_pool, 5) == first
        assert seqs(tapejax.nn.fractional_avg_pool, 5) == first
        assert seqs(tapejax.nn.fractional_max_pool, 6) != first
        unseeded = [seqs(tapejax.nn.fractional_max_pool, 0) for _ in range(3)]
        assert unseeded[0] != unseeded[1] != unseeded[2]
        tapejax.random.set_seed(4)
        assert seqs(tapejax.nn.fractional_max_pool, 5) != first
        tapejax.random.set_seed(3)
        assert seqs(tapejax.nn.fractional_max_pool, 5) == first
    finally:
        tapejax.random.set_seed(None)


@pytest.mark.slow
def test_fractional_pool_draws_anew_in_each_tapejax_function_call():
    f = tapejax.function(lambda v: tapejax.nn.fractional_max_pool(v, [1.0, 1.5, 1.5, 1.0])[1])
    x = tapejax.constant(np.zeros((1, 30, 30, 1), np.float32))
    draws = {tuple(f(x).numpy()) for _ in range(4)}
    assert len(draws) > 1


# -- isotonic regression ----------------------------------------------------------------------


def test_isotonic_regression_gradient_averages_each_segment_at_any_rank():
    """TF's gradient is malformed beyond 2-D inputs (shape [d0, rest], segments mixed across
    problems); tapejax's is TF's 2-D gradient applied to each problem."""
    x = arr("float32", (2, 3, 5), seed=4)
    got = _grads(tapejax, lambda tf, v: tf.nn.isotonic_regression(v, decreasing=False), x)
    want = _grads(
        tensorflow, lambda tf, v: tf.nn.isotonic_regression(v, decreasing=False), x.reshape(6, 5)
    )
    np.testing.assert_allclose(got[1][0].reshape(6, 5), want[1][0], rtol=1e-6)


def test_isotonic_regression_follows_tfs_ties_and_nans():
    for x in (
        [[1.0, 1.0, 2.0, 0.0]],
        [[2.0, 1.0, 1.0, 3.0]],
        [[np.nan, 1.0, 2.0, 2.0]],
        [[3.0] * 4],
    ):
        for decreasing in (True, False):
            got = tapejax.nn.isotonic_regression(np.float32(x), decreasing)
            want = tensorflow.nn.isotonic_regression(np.float32(x), decreasing)
            np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
            np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
            assert type(got).__name__ == type(want).__name__


# -- ops TF's CPU build cannot run or differentiate: the routes TF does take ------------------


CONV_GRADS = [
    # input, filter, strides, padding, conv's keywords, the padding of conv2d/conv3d
    ((2, 5, 6, 3), (3, 2, 3, 4), [1, 1, 2, 1], "SAME", {}, "SAME"),
    ((1, 4, 5, 4, 2), (2, 3, 2, 2, 3), [1, 2, 1, 1, 1], "VALID", {}, "VALID"),
    (
        (2, 6, 5, 2),
        (2, 2, 2, 3),
        [1, 2, 1, 1],
        "EXPLICIT",
        {"explicit_paddings": [0, 0, 1, 0, 2, 1, 0, 0]},
        [[0, 0], [1, 0], [2, 1], [0, 0]],
    ),
]


@pytest.mark.parametrize("xs, ws, strides, padding, kw, reference_padding", CONV_GRADS)
def test_conv_gradients_are_conv2d_and_conv3d_gradients(
    xs, ws, strides, padding, kw, reference_padding
):
    """TF registers no gradient for Conv (its tape raises LookupError): tapejax's equals the
    gradient of the same convolution through tf.nn.conv2d / conv3d."""
    x, w = arr("float32", xs), arr("float32", ws, seed=1)
    got = _grads(tapejax, lambda tf, a, b: tf.conv(a, b, strides, padding, **kw), x, w)
    reference = tensorflow.nn.conv3d if len(xs) == 5 else tensorflow.nn.conv2d
    want = _grads(tensorflow, lambda tf, a, b: reference(a, b, strides, reference_padding), x, w)
    for g, wv in zip(got[0] + got[1], want[0] + want[1], strict=True):
        np.testing.assert_allclose(g, wv, rtol=1e-4, atol=1e-4)


def test_conv_of_3d_explicit_padding_and_dilations_is_computed():
    """TF's CPU Conv refuses 3-D dilations and aborts the process on 3-D explicit padding;
    tapejax computes both, equal to conv3d of the padded input (and its dilation)."""
    x, w = arr("float32", (1, 4, 5, 4, 2)), arr("float32", (2, 2, 2, 2, 3), seed=1)
    got = tapejax.conv(x, w, [1] * 5, "EXPLICIT", explicit_paddings=[0, 0, 1, 0, 0, 2, 1, 1, 0, 0])
    padded = np.pad(x, [(0, 0), (1, 0), (0, 2), (1, 1), (0, 0)])
    want = tensorflow.nn.conv3d(padded, w, [1] * 5, "VALID")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    got = tapejax.conv(x, w, [1] * 5, "SAME", dilations=[1, 2, 1, 2, 1])
    want = tensorflow.nn.convolution(x, w, padding="SAME", dilations=[2, 1, 2])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


V2_CASES = [
    ((2, 7, 6, 3), (3, 2, 3, 4), [1, 1, 1, 1], "SAME", {}),
    ((2, 7, 6, 3), (3, 3, 3, 2), [1, 2, 2, 1], "VALID", {}),
    (
        (1, 6, 5, 2),
        (2, 3, 2, 3),
        [1, 1, 2, 1],
        "EXPLICIT",
        {"explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]},
    ),
]


@pytest.mark.parametrize("xs, ws, strides, padding, kw", V2_CASES)
def test_conv2d_backprop_v2_are_tfs_v1_kernels(xs, ws, strides, padding, kw):
    """TF's CPU build has no V2 kernels (NotFoundError); tapejax's V2 ops equal TF's V1
    ``Conv2DBackpropFilter``/``Conv2DBackpropInput``, values and gradients."""
    x, w = arr("float32", xs), arr("float32", ws, seed=1)
    pad = padding if padding != "EXPLICIT" else [[0, 0], [1, 2], [0, 1], [0, 0]]
    dy = arr("float32", tuple(tensorflow.nn.conv2d(x, w, strides, pad).shape), seed=2)
    v1 = tensorflow.compat.v1.nn

    def filter_grad(tf, a, g):
        if tf is tensorflow:
            return v1.conv2d_backprop_filter(a, list(ws), g, strides, pad)
        return tf.conv2d_backprop_filter_v2(a, tf.zeros(ws), g, strides, padding, **kw)

    def input_grad(tf, b, g):
        if tf is tensorflow:
            return v1.conv2d_backprop_input(list(xs), b, g, strides, pad)
        return tf.conv2d_backprop_input_v2(tf.zeros(xs), b, g, strides, padding, **kw)

    for fn, first in ((filter_grad, x), (input_grad, w)):
        got, want = _grads(tapejax, fn, first, dy), _grads(tensorflow, fn, first, dy)
        for g, wv in zip(got[0] + got[1], want[0] + want[1], strict=True):
            np.testing.assert_allclose(g, wv, rtol=1e-4, atol=1e-4)


def test_conv2d_backprop_filter_v2_of_grouped_and_dilated_filters_is_conv2ds_gradient():
    """TF's CPU kernels refuse these gradients; tapejax's equal its conv2d's tape gradient."""
    x, w = arr("float32", (1, 6, 6, 4)), arr("float32", (2, 3, 2, 6), seed=1)
    for dilations in ([1, 1, 1, 1], [1, 2, 1, 1]):
        wt = tapejax.constant(w)
        with tapejax.GradientTape() as tape:
            tape.watch(wt)
            y = tapejax.nn.conv2d(x, wt, 1, "SAME", dilations=dilations)
        dy = arr("float32", tuple(y.shape), seed=2)
        want = tape.gradient(y, wt, output_gradients=tapejax.constant(dy))
        got = tapejax.conv2d_backprop_filter_v2(x, w, dy, ONES4, "SAME", dilations=dilations)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_conv2d_backprop_v2_use_only_the_shape_of_their_tensor_argument():
    x, w, dy = (
        arr("float32", (1, 4, 4, 2)),
        arr("float32", (2, 2, 2, 3), seed=1),
        arr("float32", (1, 3, 3, 3), seed=2),
    )
    xt, wt = tapejax.constant(x), tapejax.constant(w)
    with tapejax.GradientTape(persistent=True) as tape:
        tape.watch([xt, wt])
        gf = tapejax.conv2d_backprop_filter_v2(xt, wt, dy, ONES4, "VALID")
        gi = tapejax.conv2d_backprop_input_v2(xt, wt, dy, ONES4, "VALID")
    assert tape.gradient(gf, wt) is None and tape.gradient(gi, xt) is None
    np.testing.assert_array_equal(
        gf.numpy(), tapejax.conv2d_backprop_filter_v2(x, w * 0, dy, ONES4, "VALID").numpy()
    )


def test_depthwise_backprops_compute_dilations():
    """TF's CPU kernels ignore ``dilations`` (the undilated gradient); tapejax's are the
    gradients of the dilated depthwise_conv2d."""
    x, w = arr("float32", (1, 7, 6, 2)), arr("float32", (3, 2, 2, 2), seed=1)
    xt, wt = tapejax.constant(x), tapejax.constant(w)
    with tapejax.GradientTape() as tape:
        tape.watch([xt, wt])
        y = tapejax.nn.depthwise_conv2d(xt, wt, ONES4, "SAME", dilations=[2, 2])
    dy = arr("float32", tuple(y.shape), seed=2)
    gx, gw = tape.gradient(y, [xt, wt], output_gradients=tapejax.constant(dy))
    dil = [1, 2, 2, 1]
    got_w = tapejax.nn.depthwise_conv2d_backprop_filter(
        x, list(w.shape), dy, ONES4, "SAME", dilations=dil
    )
    got_x = tapejax.nn.depthwise_conv2d_backprop_input(
        list(x.shape), w, dy, ONES4, "SAME", dilations=dil
    )
    np.testing.assert_allclose(got_w.numpy(), gw.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_x.numpy(), gx.numpy(), rtol=1e-5, atol=1e-5)
    ignored = tensorflow.nn.depthwise_conv2d_backprop_input(
        list(x.shape), w, dy, ONES4, "SAME", dilations=dil
    )
    undilated = tensorflow.nn.depthwise_conv2d_backprop_input(list(x.shape), w, dy, ONES4, "SAME")
    np.testing.assert_array_equal(ignored.numpy(), undilated.numpy())


@pytest.mark.parametrize("is_max_k, axis", [(False, -1), (True, 0), (False, 1)])
def test_approx_top_k_without_a_cpu_kernel_is_tfs_xla_kernel(is_max_k, axis):
    """TF's CPU build has ApproxTopK only for is_max_k along reduction_dimension=-1; the
    rest is compared with TF's XLA kernel (jit_compile), values and indices."""
    x = arr("float32", (4, 6), seed=3)
    xla = tensorflow.function(
        lambda v: tensorflow.approx_top_k(v, 3, reduction_dimension=axis, is_max_k=is_max_k),
        jit_compile=True,
    )
    got = tapejax.approx_top_k(x, 3, reduction_dimension=axis, is_max_k=is_max_k)
    for g, w in zip(got, xla(x), strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


# -- inside tapejax.function, empty tensors, and what must be known when an op runs ----------

TRACED = [
    (
        "max_pool_with_argmax",
        lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", output_dtype=tf.int32),
    ),
    ("dilation2d", lambda tf, x: tf.nn.dilation2d(x, x[0, :2, :2], ONES4, "SAME", "NHWC", ONES4)),
    (
        "erosion2d",
        lambda tf, x: tf.nn.erosion2d(x, x[0, :2, :2], [1, 2, 2, 1], "VALID", "NHWC", ONES4),
    ),
    (
        "fractional_avg_pool",
        lambda tf, x: tf.nn.fractional_avg_pool(x, [1.0, 2.0, 2.0, 1.0], seed=3)[0],
    ),
    ("isotonic_regression", lambda tf, x: tf.nn.isotonic_regression(x[:, :, 0, 0])),
    (
        "depthwise_conv2d_backprop_input",
        lambda tf, x: tf.nn.depthwise_conv2d_backprop_input(
            [2, 4, 4, 2], x[0, :2, :2, :, None], x, ONES4, "SAME"
        ),
    ),
    (
        "with_space_to_batch",
        lambda tf, x: tf.nn.with_space_to_batch(x, [2, 2], "VALID", _avg_pool_op),
    ),
    (
        "atrous_conv2d_transpose",
        lambda tf, x: tf.nn.atrous_conv2d_transpose(
            x, tf.reshape(x[0, :3, :3], [3, 3, 1, 2]), [2, 4, 4, 1], 2, "SAME"
        ),
    ),
    (
        "ctc_unique_labels",
        lambda tf, x: tf.nn.ctc_unique_labels(tf.cast(x[:, :, 0, 0] > 0, tf.int32))[1],
    ),
    ("conv", lambda tf, x: tf.conv(x, x[0, :2, :2, :, None], ONES4, "VALID")),
    (
        "extract_volume_patches",
        lambda tf, x: tf.extract_volume_patches(x[None], [1, 1, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
    ),
    ("approx_top_k", lambda tf, x: tf.approx_top_k(x, 1)),
    (
        "required_space_to_batch_paddings",
        lambda tf, x: tf.required_space_to_batch_paddings(tf.shape(x)[1:3], [3, 3]),
    ),
]


@pytest.mark.parametrize("what, fn", TRACED, ids=[t[0] for t in TRACED])
def test_ops_run_inside_tapejax_function(what, fn):
    x = arr("float32", (2, 4, 4, 2), seed=6)
    got = tapejax.function(lambda v: fn(tapejax, v))(tapejax.constant(x))
    want = fn(tensorflow, tensorflow.constant(x))
    assert_same_result(got, want, Case(what, None, rtol=1e-5, atol=1e-5))


def test_shapes_known_only_from_values_cannot_be_traced():
    """A traced call (the second: tapejax.function's first runs eagerly) says why."""
    collapse = tapejax.function(lambda v: tapejax.nn.collapse_repeated(v, [2, 2])[0])
    backprop = tapejax.function(
        lambda s: tapejax.nn.depthwise_conv2d_backprop_input(
            s, np.ones((1, 1, 1, 1), np.float32), np.ones((1, 2, 2, 1), np.float32), ONES4, "VALID"
        )
    )
    for f, arg, match in (
        (collapse, CTC[:2, :2], "collapse_repeated: the result's width"),
        (backprop, np.array([1, 2, 2, 1], np.int32), "input_sizes sets the result's shape"),
    ):
        f(tapejax.constant(arg))
        with pytest.raises(NotImplementedError, match=match):
            f(tapejax.constant(arg))


EMPTIES = [
    (
        "dilation2d, empty batch",
        lambda tf: tf.nn.dilation2d(
            np.zeros((0, 4, 4, 2), np.float32),
            np.zeros((2, 2, 2), np.float32),
            ONES4,
            "VALID",
            "NHWC",
            ONES4,
        ),
    ),
    (
        "dilation2d, window past the input",
        lambda tf: tf.nn.dilation2d(
            np.zeros((1, 2, 4, 2), np.float32),
            np.zeros((3, 2, 2), np.float32),
            ONES4,
            "VALID",
            "NHWC",
            ONES4,
        ),
    ),
    (
        "max_pool_with_argmax, window past the input",
        lambda tf: tf.nn.max_pool_with_argmax(
            np.ones((1, 4, 4, 2), np.float32), 5, 1, "VALID", output_dtype=tf.int32
        ),
    ),
    (
        "isotonic_regression, empty rows",
        lambda tf: tf.nn.isotonic_regression(np.zeros((2, 0), np.float32)),
    ),
    (
        "isotonic_regression, no rows",
        lambda tf: tf.nn.isotonic_regression(np.zeros((0, 3), np.float32)),
    ),
    ("isotonic_regression, scalar", lambda tf: tf.nn.isotonic_regression(np.float32(2.5))),
    (
        "extract_volume_patches, empty batch",
        lambda tf: tf.extract_volume_patches(
            np.zeros((0, 3, 3, 3, 1), np.float32), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME"
        ),
    ),
    (
        "conv, empty batch",
        lambda tf: tf.conv(
            np.zeros((0, 4, 4, 2), np.float32), np.ones((2, 2, 2, 3), np.float32), ONES4, "SAME"
        ),
    ),
    ("approx_top_k, k = 0", lambda tf: tf.approx_top_k(np.ones((2, 3), np.float32), 0)),
    ("collapse_repeated, zero lengths", lambda tf: tf.nn.collapse_repeated(CTC, [0, 0, 0])),
    ("collapse_repeated, scalar length", lambda tf: tf.nn.collapse_repeated(CTC, 3)),
    (
        "collapse_repeated, int64 lengths",
        lambda tf: tf.nn.collapse_repeated(CTC, np.array([5, 1, 4], np.int64)),
    ),
    ("collapse_repeated, float lengths", lambda tf: tf.nn.collapse_repeated(CTC, [5.0, 2.5, 4.0])),
    (
        "ctc_unique_labels, empty batch",
        lambda tf: tf.nn.ctc_unique_labels(np.zeros((0, 3), np.int32)),
    ),
    (
        "required_space_to_batch_paddings, no blocks",
        lambda tf: tf.required_space_to_batch_paddings([], []),
    ),
]


@pytest.mark.parametrize("what, fn", EMPTIES, ids=[e[0] for e in EMPTIES])
def test_empty_and_degenerate_inputs_are_tfs(what, fn, x64):
    assert_same_result(fn(tapejax), fn(tensorflow), Case(what, None))


DTYPES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "bool",
    "complex64",
]
ACCEPTANCE = [
    (
        "max_pool_with_argmax",
        lambda tf, x: tf.nn.max_pool_with_argmax(tf.reshape(x, [1, 3, 1, 1]), 1, 1, "VALID"),
    ),
    (
        "fractional_max_pool",
        lambda tf, x: tf.nn.fractional_max_pool(
            tf.reshape(x, [1, 3, 1, 1]), [1.0, 1.5, 1.0, 1.0], seed=1
        ),
    ),
    (
        "extract_volume_patches",
        lambda tf, x: tf.extract_volume_patches(
            tf.reshape(x, [1, 3, 1, 1, 1]), [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], "VALID"
        ),
    ),
    (
        "conv",
        lambda tf, x: tf.conv(
            tf.reshape(x, [1, 3, 1, 1]), tf.reshape(x[:1], [1, 1, 1, 1]), ONES4, "VALID"
        ),
    ),
    ("approx_top_k", lambda tf, x: tf.approx_top_k(x, 1)),
    (
        "depthwise_conv2d_backprop_input",
        lambda tf, x: tf.nn.depthwise_conv2d_backprop_input(
            [1, 3, 1, 1],
            tf.reshape(x[:1], [1, 1, 1, 1]),
            tf.reshape(x, [1, 3, 1, 1]),
            ONES4,
            "VALID",
        ),
    ),
]


@pytest.mark.parametrize("name, fn", ACCEPTANCE, ids=[a[0] for a in ACCEPTANCE])
def test_dtypes_accepted_are_tfs(name, fn, x64):
    check_dtype_acceptance(name, fn, DTYPES)


# -- errors: the same expression raises the same error under both frameworks --------------

IAE = "InvalidArgumentError"
X = np.ones((2, 6, 6, 3), np.float32)
F3 = np.ones((3, 3, 3), np.float32)
W = np.ones((3, 3, 3, 2), np.float32)
DY = np.ones((2, 6, 6, 6), np.float32)
X5 = np.ones((2, 5, 6, 4, 3), np.float32)


def _dil(x=X, f=F3, strides=ONES4, padding="SAME", data_format="NHWC", rates=ONES4):
    return lambda tf: tf.nn.dilation2d(x, f, strides, padding, data_format, rates)


def _dwf(x=X, sizes=(3, 3, 3, 2), dy=DY, strides=ONES4, padding="SAME", **kw):
    return lambda tf: tf.nn.depthwise_conv2d_backprop_filter(
        x, list(sizes), dy, strides, padding, **kw
    )


def _dwi(sizes=(2, 6, 6, 3), w=W, dy=DY, strides=ONES4, padding="SAME", **kw):
    return lambda tf: tf.nn.depthwise_conv2d_backprop_input(
        list(sizes), w, dy, strides, padding, **kw
    )


ERRORS = [
    # max_pool_with_argmax
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, [2, 2, 1], 2, "SAME"),
        "ValueError",
        r"ksize should be of length 1, 2 or 4. Received: ksize=\[2, 2, 1\] of length 3",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, 2, 2, "SAME", data_format="NCHW"),
        "ValueError",
        r"`data_format` values other  than 'NHWC' are not supported. Received: data_format=NCHW",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, 2, 2, "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\"",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
        "TypeError",
        r"Expected string for argument 'padding' not \[\[0, 0\]",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, 2, 2, "SAME", output_dtype=tf.int16),
        IAE,
        r"Value for attr 'Targmax' of int16 is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X[0], 2, 2, "SAME"),
        IAE,
        r"tensor_in must be 4-dimensional \(2\) \[Op:MaxPoolWithArgmax\]",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X[:0], 2, 2, "SAME"),
        IAE,
        r"tensor_in must not be empty \(2\)",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, 0, 2, "SAME"),
        IAE,
        r"ksize must be a positive int32 value, got:0",
    ),
    (lambda tf: tf.nn.max_pool_with_argmax(X, 2, 0, "SAME"), IAE, r"Stride must be > 0, but got 0"),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, [2, 2, 2, 1], 2, "SAME"),
        "UnimplementedError",
        r"Pooling is not yet supported on the batch dimension.",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, [1, 2, 2, 2], [1, 2, 2, 2], "SAME"),
        "UnimplementedError",
        r"MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X, [1, 1, 1, 3], ONES4, "SAME"),
        "UnimplementedError",
        r"Depthwise max pooling requires the depth window to equal the depth stride",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(X[:, :1, :1], 3, 1, "VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 1, effective_filter_size: 3, stride: 1\]",
    ),
    (
        lambda tf: tf.nn.max_pool_with_argmax(tf.constant([[[[True]]]]), 1, 1, "VALID"),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
    ),
    # dilation2d and erosion2d
    (
        _dil(data_format="NCHW"),
        "ValueError",
        r"`data_format` values other  than 'NHWC' are not supported",
    ),
    (
        _dil(strides=1),
        "TypeError",
        r"Expected list for 'strides' argument to 'dilation2d' Op, not 1.",
    ),
    (_dil(strides=[1, 1, 1]), IAE, r"Length for attr 'strides' of 3 must be at least minimum 4"),
    (_dil(rates=[1, 1, 1]), IAE, r"Length for attr 'rates' of 3 must be at least minimum 4"),
    (_dil(strides=[1, 1, 1, 1, 1]), IAE, r"Sliding window stride field must specify 4 dimensions"),
    (
        _dil(strides=[2, 1, 1, 1]),
        "UnimplementedError",
        r"Stride is only supported across spatial dimensions.",
    ),
    (
        _dil(rates=[1, 1, 1, 2]),
        "UnimplementedError",
        r"Rate is only supported across spatial dimensions.",
    ),
    (_dil(strides=[1, 0, 1, 1]), IAE, r"Stride must be > 0, but got 0"),
    (
        _dil(padding="FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\"",
    ),
    (_dil(x=X[0]), IAE, r"input must be 4-dimensional\[6,6,3\]"),
    (_dil(f=F3[0]), IAE, r"filter must be 3-dimensional: \[3,3\]"),
    (_dil(f=F3[..., :2]), IAE, r"input and filter must have the same depth: 3 vs 2"),
    (
        _dil(x=X[:, :1], padding="VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 1, effective_filter_size: 3, stride: 1\]",
    ),
    (
        lambda tf: tf.nn.dilation2d(
            tf.constant(X), tf.constant(F3, tf.float64), ONES4, "SAME", "NHWC", ONES4
        ),
        IAE,
        r"cannot compute Dilation2D as input #1\(zero-based\) was expected to be a float tensor but is a double tensor",
    ),
    (
        lambda tf: tf.nn.erosion2d(X, F3, ONES4, "SAME", "NCHW", ONES4),
        "ValueError",
        r"`data_format` values other  than 'NHWC' are not supported",
    ),
    (
        lambda tf: tf.nn.erosion2d(X, F3[0], ONES4, "SAME", "NHWC", ONES4),
        IAE,
        r"filter must be 3-dimensional: \[3,3\]",
    ),
    (
        lambda tf: tf.nn.erosion2d(
            tf.cast(X, tf.uint8), tf.cast(F3, tf.uint8), ONES4, "SAME", "NHWC", ONES4
        ),
        IAE,
        r"Value for attr 'T' of uint8 is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
    ),
    # fractional pools
    (
        lambda tf: tf.nn.fractional_max_pool(X, [1.5, 1.2]),
        "ValueError",
        r"`pooling_ratio` should have first and last elements with value 1.0. Received: pooling_ratio=\[1.5, 1.2\]",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X, [1.0, 0.5, 1.5, 1.0]),
        "ValueError",
        r"`pooling_ratio` elements should be >= 1.0. Received: pooling_ratio=\[1.0, 0.5, 1.5, 1.0\]",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X, 0.5),
        "ValueError",
        r"`pooling_ratio` should be >= 1.0. Received: pooling_ratio=0.5",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X, "a"),
        "ValueError",
        r"`pooling_ratio` should be an int or a list of ints. Received: pooling_ratio=a",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X, [1.0, 1.5, 1.5, 1.0, 1.0]),
        "ValueError",
        r"pooling_ratio should be of length 1, 2 or 4. Received: pooling_ratio=\[1.0, 1.5, 1.5, 1.0, 1.0\] of length 5",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X, [1.0, 6.5, 1.5, 1.0], seed=1),
        IAE,
        r"Pooling ratio is higher than input dimension size for dimension 1. Input dim size: 6 pooling ratio: 6.5 \[Op:FractionalMaxPool\]",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X[0], [1.0, 1.5, 1.5, 1.0], seed=1),
        IAE,
        r"tensor_in must be 4-dimensional",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(X[:0], [1.0, 1.5, 1.5, 1.0], seed=1),
        IAE,
        r"Pooling ratio is higher than input dimension size for dimension 0. Input dim size: 0 pooling ratio: 1",
    ),
    (
        lambda tf: tf.nn.fractional_max_pool(tf.cast(X, tf.float16), 1.5, seed=1),
        IAE,
        r"Value for attr 'T' of half is not in the list of allowed values: float, double, int32, int64",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, 1.5, seed=1),
        "TypeError",
        r"Expected list for 'pooling_ratio' argument to 'fractional_avg_pool' Op, not 1.5.",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, [1.5, 1.2], seed=1),
        IAE,
        r"Length for attr 'pooling_ratio' of 2 must be at least minimum 4",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, [2.0, 1.5, 1.5, 1.0], seed=1),
        "UnimplementedError",
        r"Fractional average pooling is not yet supported on the batch nor channel dimension.",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, [1.0, 0.5, 1.5, 1.0], seed=1),
        IAE,
        r"pooling_ratio cannot be smaller than 1, got: 0.5",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, [1.0, 1.5, 1.5, 1.0, 1.0], seed=1),
        IAE,
        r"pooling_ratio field must specify 4 dimensions",
    ),
    (
        lambda tf: tf.nn.fractional_avg_pool(X, [1.0, 7.0, 1.5, 1.0], seed=1),
        IAE,
        r"Pooling ratio is higher than input dimension size for dimension 1. Input dim size: 6 pooling ratio: 7 \[Op:FractionalAvgPool\]",
    ),
    # isotonic_regression
    (
        lambda tf: tf.nn.isotonic_regression(X[0, 0], axis=2),
        IAE,
        r"`dim` must be in the range \[-2, 2\) where 2 is the number of dimensions in the input. Received: dim=2",
    ),
    (lambda tf: tf.nn.isotonic_regression(X[0, 0], axis=-3), IAE, r"Received: dim=-3"),
    (
        lambda tf: tf.nn.isotonic_regression(tf.constant([[True, False]])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
    ),
    (
        lambda tf: tf.nn.isotonic_regression(tf.constant([[1, 2]], tf.uint8)),
        "NotFoundError",
        r"Could not find device for node: \{\{node IsotonicRegression\}\} = IsotonicRegression\[T=DT_UINT8, output_dtype=DT_DOUBLE\]",
    ),
    # depthwise backprops
    (
        _dwf(strides=[1, 1, 1]),
        IAE,
        r"Sliding window strides field must specify 4 dimensions \[Op:DepthwiseConv2dNativeBackpropFilter\]",
    ),
    (
        _dwf(strides=1),
        "TypeError",
        r"Expected list for 'strides' argument to 'depthwise_conv2d_native_backprop_filter' Op, not 1.",
    ),
    (
        _dwf(strides=[1, 2, 1, 1]),
        IAE,
        r"Current implementation only supports equal length strides in the row and column dimensions.",
    ),
    (
        _dwf(strides=[2, 1, 1, 1]),
        IAE,
        r"Current implementation does not yet support strides in the batch and depth dimensions.",
    ),
    (_dwf(strides=[1, 0, 0, 1]), IAE, r"Stride must be > 0, but got 0"),
    (
        _dwf(padding="FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"",
    ),
    (
        _dwf(padding="EXPLICIT"),
        "ValueError",
        r"'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be a list.",
    ),
    (
        _dwf(padding=[[0, 0], [1, 1], [1, 1], [1, 0]]),
        IAE,
        r"Nonzero explicit padding in the batch or depth dimensions is not supported",
    ),
    (
        _dwf(padding=[[0, 0], [-1, 1], [1, 1], [0, 0]]),
        IAE,
        r"All elements of explicit_paddings must be nonnegative",
    ),
    (
        _dwf(data_format="NCWH"),
        IAE,
        r"Value for attr 'data_format' of \"NCWH\" is not in the list of allowed values: \"NHWC\", \"NCHW\"",
    ),
    (
        _dwf(x=X.transpose(0, 3, 1, 2), dy=DY.transpose(0, 3, 1, 2), data_format="NCHW"),
        "UnimplementedError",
        r"Depthwise convolution on CPU is only supported for NHWC format",
    ),
    (
        _dwf(dy=DY[..., :4]),
        IAE,
        r"DepthwiseConv2DBackpropFilter: depth_multiplier \* in_depth not equal to out_depth",
    ),
    (
        _dwf(sizes=(3, 3, 2, 2)),
        IAE,
        r"DepthwiseConv2DBackpropFilter: input and filter must have the same in_depth",
    ),
    (_dwf(sizes=(3, 3, 3)), IAE, r"DepthwiseConv2DBackpropFilter: filter must be 4-dimensional"),
    (_dwf(x=X[0]), IAE, r"DepthwiseConv2DBackpropFilter: input must be 4-dimensional"),
    (_dwf(dy=DY[0]), IAE, r"DepthwiseConv2DBackpropFilter: out_backprop must be 4-dimensional"),
    (
        _dwf(dy=DY[:1]),
        IAE,
        r"DepthwiseConv2DBackpropFilter: input and out_backprop must have the same batch size",
    ),
    (
        _dwf(dy=DY[:, :4]),
        IAE,
        r"DepthwiseConv2DBackpropFilter: Number of rows of out_backprop doesn't match computed: actual = 4, computed = 6",
    ),
    (
        _dwf(dy=DY[:, :, :5]),
        IAE,
        r"DepthwiseConv2DBackpropFilter: Number of cols of out_backprop doesn't match computed: actual = 5, computed = 6",
    ),
    (
        _dwf(x=X[:, :1, :1], dy=DY[:, :1, :1], padding="VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 1, effective_filter_size: 3, stride: 1\]",
    ),
    (
        _dwf(sizes=(3.0, 3, 3, 2)),
        "TypeError",
        r"Cannot convert \[3.0, 3, 3, 2\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d_backprop_filter(X, [[3, 3, 3, 2]], DY, ONES4, "SAME"),
        IAE,
        r"Conv2DBackpropFilter: filter_sizes input must be 1-dim, not 2",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d_backprop_filter(
            X, tf.constant([3.0, 3, 3, 2]), DY, ONES4, "SAME"
        ),
        IAE,
        r"cannot compute DepthwiseConv2dNativeBackpropFilter as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d_backprop_filter(
            tf.cast(X, tf.int32), [3, 3, 3, 2], tf.cast(DY, tf.int32), ONES4, "SAME"
        ),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, bfloat16, float, double",
    ),
    (_dwi(sizes=(2, 6, 6)), IAE, r"DepthwiseConv2DBackpropInput: input must be 4-dimensional"),
    (_dwi(w=W[0]), IAE, r"DepthwiseConv2DBackpropInput: filter must be 4-dimensional"),
    (
        _dwi(sizes=(2, 6, 6, 2)),
        IAE,
        r"DepthwiseConv2DBackpropInput: input and filter must have the same in_depth",
    ),
    (
        _dwi(dy=DY[:, :3, :3], strides=[1, 2, 2, 1], sizes=(2, 4, 6, 3)),
        IAE,
        r"DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match computed: actual = 3, computed = 2",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d_backprop_input(
            tf.constant([2, 6, 6, 3], tf.int64), W, DY, ONES4, "SAME"
        ),
        IAE,
        r"cannot compute DepthwiseConv2dNativeBackpropInput as input #0\(zero-based\) was expected to be a int32 tensor but is a int64 tensor",
    ),
    (
        lambda tf: tf.nn.depthwise_conv2d_backprop_input([[2, 6, 6, 3]], W, DY, ONES4, "SAME"),
        IAE,
        r"Conv2DBackpropInput: input_sizes input must be 1-dim, not 2",
    ),
    # space-to-batch composites
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2, 2], "SAME", _avg_pool_op),
        "ValueError",
        r"`filter_shape` must be specified for `padding='SAME'`. Received: filter_shape=None and padding=SAME",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2, 2], "FOO", _avg_pool_op),
        "ValueError",
        r"`padding` must be one of 'SAME' or 'VALID'. Received: padding=FOO",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2, 2], "EXPLICIT", _avg_pool_op),
        "ValueError",
        r"'EXPLICIT' is not a valid value for `padding`",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [[2, 2]], "VALID", _avg_pool_op),
        "ValueError",
        r"`dilation_rate.shape.rank` must be 1. Received: dilation_rate=\[\[2 2\]\] of rank 2",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, 2, "VALID", _avg_pool_op),
        "ValueError",
        r"`dilation_rate.shape.rank` must be 1. Received: dilation_rate=2 of rank 0",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [0, 2], "VALID", _avg_pool_op),
        "ValueError",
        r"`dilation_rate` must be positive. Received: dilation_rate=\[0 2\]",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2, 2], "VALID", _avg_pool_op, spatial_dims=[2, 1]),
        "ValueError",
        r"`spatial_dims` must be a monotonically increasing sequence of positive integers. Received: spatial_dims=\[2, 1\]",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2, 2], "VALID", _avg_pool_op, spatial_dims=[1, 4]),
        "ValueError",
        r"`input.shape.rank` must be at least 5. Received: input.shape=\(2, 6, 6, 3\) with rank 4",
    ),
    (
        lambda tf: tf.nn.with_space_to_batch(X, [2.5, 2], "VALID", _avg_pool_op),
        "TypeError",
        r"Cannot convert \[2.5, 2\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(DY[..., :2], W, [2, 6, 6, 3], 0, "SAME"),
        "ValueError",
        r"`rate` cannot be less than one. Received: rate=0",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(DY[..., :2], W, [2, 6, 6, 3], 2, "FOO"),
        "ValueError",
        r"`padding` must be either 'VALID' or 'SAME'. Received: padding=FOO",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(DY[..., :2], W, [2, 6, 6], 2, "SAME"),
        "ValueError",
        r"`output_shape` must have shape \(4,\). Received: output_shape=\(3,\)",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(DY[..., :2], W, [2, 6, 6, 5], 2, "SAME"),
        "ValueError",
        r"`output_shape` channel count must be compatible with `filters` output channel count. Received: output_shape=\[2, 6, 6, 5\] with channel count 5 and filters.shape=\(3, 3, 3, 2\) with output channel count 2.",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(X, W, [2, 6, 6, 3], 2, "SAME"),
        "ValueError",
        r"`value` channel count must be compatible with `filters` input channel count. Received: value.shape=\(2, 6, 6, 3\) with channel count 3 and filters.shape=\(3, 3, 3, 2\) with input channel count 2.",
    ),
    (
        lambda tf: tf.nn.atrous_conv2d_transpose(DY[..., :2], W, [2, 7, 6, 3], 2, "SAME"),
        IAE,
        r"padded_shape\[0\]=7 is not divisible by block_shape\[0\]=2",
    ),
    (
        lambda tf: tf.required_space_to_batch_paddings([5, 7], [2]),
        "ValueError",
        r"Shapes \(2,\) and \[1\] are incompatible",
    ),
    (
        lambda tf: tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0]]),
        "ValueError",
        r"Shapes \(1, 2\) and \[2, 2\] are incompatible",
    ),
    (
        lambda tf: tf.required_space_to_batch_paddings([5, 7], [[2, 3]]),
        "ValueError",
        r"Shape \(1, 2\) must have rank 1",
    ),
    (
        lambda tf: tf.required_space_to_batch_paddings([5.0, 7], [2, 3]),
        "TypeError",
        r"Cannot convert \[5.0, 7\] to EagerTensor of dtype int32",
    ),
    # batch_norm_with_global_normalization
    (
        lambda tf: tf.nn.batch_norm_with_global_normalization(
            X, np.ones(2, np.float32), np.ones(3, np.float32), None, None, 0.1, False
        ),
        IAE,
        r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Mul\]",
    ),
    # CTC label helpers
    (
        lambda tf: tf.nn.collapse_repeated(CTC, [5, 5]),
        IAE,
        r"Incompatible shapes: \[3,5\] vs. \[2,5\] \[Op:LogicalAnd\]",
    ),
    (
        lambda tf: tf.nn.collapse_repeated(CTC[0], [5]),
        IAE,
        r"Index out of range using input dim 1; input has only 1 dims",
    ),
    (
        lambda tf: tf.nn.collapse_repeated(CTC[:0], np.zeros([0], np.int32)),
        IAE,
        r"Requires start <= limit when delta > 0: 0/-2147483648 \[Op:Range\]",
    ),
    (lambda tf: tf.nn.ctc_unique_labels(CTC[0]), IAE, r"unique expects a 1D vector. \[Op:Unique\]"),
    # conv
    (
        lambda tf: tf.conv(X, W[..., :1], ONES4, "SAME", groups=3),
        "UnimplementedError",
        r"Grouped/Depthwise Convolutions are not supported yet.",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", data_format="NHWC"),
        IAE,
        r"Value for attr 'data_format' of \"NHWC\" is not in the list of allowed values: \"CHANNELS_FIRST\", \"CHANNELS_LAST\"",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"",
    ),
    (
        lambda tf: tf.conv(X, W, 1, "SAME"),
        "TypeError",
        r"Expected list for 'strides' argument to 'conv' Op, not 1.",
    ),
    (
        lambda tf: tf.conv(X[:, 0], W[0], [1, 1, 1], "SAME"),
        IAE,
        r"The input must have 2 or 3 spatial dimensions but got 1 \[Op:Conv\]",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", batch_dims=-1),
        IAE,
        r"The input must have 2 or 3 spatial dimensions but got 4",
    ),
    (lambda tf: tf.conv(X, W[0], ONES4, "SAME"), IAE, r"The filter must be rank 4 or 5 but got 3"),
    (
        lambda tf: tf.conv(X, W[..., :0], ONES4, "SAME"),
        IAE,
        r"filter must not have zero elements \(i.e. all dimensions must be non-zero\)",
    ),
    (
        lambda tf: tf.conv(X, W, [1, 1, 1], "SAME"),
        IAE,
        r"Sliding window strides field must specify 4 dimensions",
    ),
    (
        lambda tf: tf.conv(X, W, [2, 1, 1, 1], "SAME"),
        IAE,
        r"Current implementation does not support strides in the batch and depth dimensions.",
    ),
    (
        lambda tf: tf.conv(X, W, [1, 0, 1, 1], "SAME"),
        IAE,
        r"Spatial strides should be larger than 0.",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", dilations=[1, 2, 2]),
        IAE,
        r"Dilation rates field must specify4dimensions",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", dilations=[2, 1, 1, 1]),
        IAE,
        r"Current implementation does not support dilation rates in the batch and depth dimensions.",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", dilations=[1, 0, 1, 1]),
        IAE,
        r"Dilated rates should be larger than 0.",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "EXPLICIT"),
        IAE,
        r"explicit_paddings attribute must contain 8 values, but got: 0",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "SAME", explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0]),
        IAE,
        r"explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "EXPLICIT", explicit_paddings=[1, 0, 1, 1, 1, 1, 0, 0]),
        IAE,
        r"Nonzero explicit padding in the batch or depth dimensions is not supported",
    ),
    (
        lambda tf: tf.conv(X, W, ONES4, "EXPLICIT", explicit_paddings=[0, 0, -1, 1, 1, 1, 0, 0]),
        IAE,
        r"All elements of explicit_paddings must be nonnegative",
    ),
    (
        lambda tf: tf.conv(X, W[..., :2, :], ONES4, "SAME"),
        IAE,
        r"Input depth must be equal to filter depth: 3 vs 2",
    ),
    (
        lambda tf: tf.conv(X[:, :1], W, ONES4, "VALID"),
        IAE,
        r"Computed output size would be negative: -1 \[input_size: 1, effective_filter_size: 3, stride: 1\]",
    ),
    (
        lambda tf: tf.conv(X.transpose(0, 3, 1, 2), W, ONES4, "SAME", data_format="CHANNELS_FIRST"),
        "UnimplementedError",
        r"The Conv2D op currently only supports the NHWC tensor format on the CPU. The op was given the format: NCHW",
    ),
    (
        lambda tf: tf.conv(
            X5.transpose(0, 4, 1, 2, 3),
            np.ones((2, 2, 2, 3, 2), np.float32),
            [1] * 5,
            "SAME",
            data_format="CHANNELS_FIRST",
        ),
        IAE,
        r"CPU implementation of Conv3D currently only supports the NHWC tensor format.",
    ),
    (
        lambda tf: tf.conv(tf.cast(X, tf.int64), tf.cast(W, tf.int64), ONES4, "SAME"),
        IAE,
        r"Value for attr 'T' of int64 is not in the list of allowed values: half, bfloat16, float, double, int32",
    ),
    # extract_volume_patches
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 2, 2, 2], [1, 1, 1, 1, 1], "VALID"),
        IAE,
        r"Length for attr 'ksizes' of 4 must be at least minimum 5",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 2, 2, 2, 1], [1, 1, 1, 1], "VALID"),
        IAE,
        r"Length for attr 'strides' of 4 must be at least minimum 5",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [2, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
        "UnimplementedError",
        r"Only support ksizes across space.",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 2, 2, 2, 1], [1, 1, 1, 1, 2], "VALID"),
        "UnimplementedError",
        r"Only support strides across space.",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 0, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
        "OutOfRangeError",
        r"ksizes is out of range.",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 2, 2, 2, 1], [1, 0, 1, 1, 1], "VALID"),
        "OutOfRangeError",
        r"strides is out of range.",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "FOO"),
        IAE,
        r"Value for attr 'padding' of \"FOO\" is not in the list of allowed values: \"SAME\", \"VALID\"",
    ),
    (
        lambda tf: tf.extract_volume_patches(X5[0], [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
        IAE,
        r"input must be 5-dimensional\[5,6,4,3\]",
    ),
    (
        lambda tf: tf.extract_volume_patches(
            tf.cast(X5, tf.bool), [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"
        ),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values",
    ),
    # approx_top_k
    (
        lambda tf: tf.approx_top_k(X[0, 0], 4),
        IAE,
        r"input must have at least k columns. Had 3, needed 4",
    ),
    (
        lambda tf: tf.approx_top_k(X[0, 0], -1),
        IAE,
        r"Value for attr 'k' of -1 must be at least minimum 0",
    ),
    (lambda tf: tf.approx_top_k(np.float32(1.0), 1), IAE, r"input must be >= 1-D, got shape \[\]"),
    (
        lambda tf: tf.approx_top_k(tf.cast(X, tf.float64), 1),
        IAE,
        r"Value for attr 'T' of double is not in the list of allowed values: half, bfloat16, float",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message, x64):
    check_error(fn, error, message)
