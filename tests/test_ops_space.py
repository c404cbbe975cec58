# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Spatial blocks to and from batch and depth (``space_to_batch_nd``, ``space_to_batch``,
``batch_to_space``, ``nn.space_to_depth``, ``nn.depth_to_space``) side by side with real
TensorFlow: values, dtypes and shapes, tape gradients vs TF, ``check_grads``, NCHW against
TF's XLA kernel (its CPU build has none), and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax
import tapejax.nn

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    FI,
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

ZERO2 = [[0, 0], [0, 0]]

CASES = [
    fixed(
        "space_to_batch_nd", lambda dt: (arr(dt, (2, 4, 6, 3)), [2, 3], ZERO2), dtypes=FI, diff=(0,)
    ),
    fixed(
        "space_to_batch_nd", lambda dt: (arr(dt, (2, 4, 6, 3)), [2, 2], [[1, 1], [0, 2]]), diff=(0,)
    ),
    fixed(
        "space_to_batch_nd",
        lambda dt: (arr(dt, (1, 5, 2)), np.array([3], np.int64), np.array([[1, 0]], np.int64)),
        diff=(0,),
    ),
    fixed(
        "space_to_batch_nd",
        lambda dt: (arr(dt, (2, 3)), np.zeros(0, np.int32), np.zeros((0, 2), np.int32)),
        diff=(0,),
    ),
    fixed(
        "space_to_batch",
        lambda dt: (arr(dt, (1, 4, 4, 2)), [2, 2], [[0, 2], [2, 0]]),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("nn.space_to_batch", lambda dt: (arr(dt, (2, 2, 6)), [2], [[1, 1]]), diff=(0,)),
    fixed(
        "batch_to_space", lambda dt: (arr(dt, (12, 2, 2, 1)), [2, 3], ZERO2), dtypes=FI, diff=(0,)
    ),
    fixed(
        "batch_to_space", lambda dt: (arr(dt, (12, 2, 2, 3)), [2, 3], [[1, 0], [2, 1]]), diff=(0,)
    ),
    fixed("batch_to_space", lambda dt: (arr(dt, (6, 3)), [3], [[1, 2]]), diff=(0,)),
    fixed(
        "nn.space_to_depth", lambda dt: (arr(dt, (2, 4, 6, 3)), 2), dtypes=FI + ("bool",), diff=(0,)
    ),
    fixed("nn.space_to_depth", lambda dt: (arr(dt, (1, 6, 3, 2)), 3), diff=(0,)),
    fixed("nn.depth_to_space", lambda dt: (arr(dt, (2, 2, 3, 8)), 2), dtypes=FI, diff=(0,)),
    fixed("nn.depth_to_space", lambda dt: (arr(dt, (1, 2, 1, 18)), 3.0), diff=(0,)),
]


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.parametrize(
    "name, shape", [("space_to_depth", (2, 3, 4, 6)), ("depth_to_space", (2, 8, 2, 3))]
)
def test_nchw_is_tfs_xla_kernel(name, shape):
    """TF's CPU build has no NCHW kernel (NotFoundError); its XLA kernel's result is the
    reference."""
    x = arr("float32", shape)
    with pytest.raises(tensorflow.errors.NotFoundError):
        getattr(tensorflow.nn, name)(x, 2, data_format="NCHW")
    want = tensorflow.function(
        lambda x: getattr(tensorflow.nn, name)(x, 2, data_format="NCHW"), jit_compile=True
    )(x)
    got = getattr(tapejax.nn, name)(x, 2, data_format="NCHW")
    assert got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_inverse_pairs_and_tracing_inside_a_function():
    x = tapejax.constant(arr("float32", (2, 4, 6, 3)))

    @tapejax.function
    def f(x):
        batched = tapejax.space_to_batch(x, [2, 3], [[2, 0], [0, 3]])
        depth = tapejax.nn.space_to_depth(x, 2)
        return tapejax.batch_to_space(batched, [2, 3], [[2, 0], [0, 3]]), tapejax.nn.depth_to_space(
            depth, 2
        )

    for _ in range(2):  # the eager first call, then the traced one
        for back in f(x):
            np.testing.assert_array_equal(back.numpy(), x.numpy())
    g = tapejax.function(lambda x, b: tapejax.space_to_batch_nd(x, b, ZERO2))
    with pytest.raises(NotImplementedError, match="cannot be traced"):
        g(x, tapejax.constant([2, 2]))
        g(x, tapejax.constant([2, 2]))
    with pytest.raises(NotImplementedError, match="NCHW_VECT_C"):
        tapejax.nn.space_to_depth(x, 2, data_format="NCHW_VECT_C")


IAE = "InvalidArgumentError"
X = arr("float32", (2, 4, 6, 3))
Y = arr("float32", (12, 2, 2, 1))
ERRORS = [
    (
        lambda tf: tf.space_to_batch(X, [3, 2], ZERO2),
        IAE,
        r"padded_shape\[0\]=4 is not divisible by block_shape\[0\]=3 \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [2, 3], [[0, 0]]),
        IAE,
        r"paddings should have shape \[2, 2\] instead of \[1,2\] \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [[2, 3]], ZERO2),
        IAE,
        r"block_shape rank should be 1 instead of 2 \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [0, 3], ZERO2),
        IAE,
        r"All values in block_shape must be positive, got value, 0 at index 0. \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [2, 3], [[-1, 1], [0, 0]]),
        IAE,
        r"Paddings must be non-negative \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [2, 3, 1, 1], [[0, 0]] * 4),
        IAE,
        r"input rank should be >= 5 instead of 4 \[Op:SpaceToBatchND\]",
    ),
    (
        lambda tf: tf.space_to_batch(X, [2.0, 3], ZERO2),
        IAE,
        r"Value for attr 'Tblock_shape' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.space_to_batch(X, [2, 3], [[0.0, 0], [0, 0]]),
        IAE,
        r"Value for attr 'Tpaddings' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [5, 1], ZERO2),
        IAE,
        r"Input batch dimension \(12\) is not divisible by product of block sizes \(5\) \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [2, 3], [[3, 2], [0, 0]]),
        IAE,
        r"cropped_shape\[0\]=-1 must be non-negative \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [2, 3], [[-1, 0], [0, 0]]),
        IAE,
        r"Crops must be non-negative \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [2, 3], [[0, 0]]),
        IAE,
        r"crops should have shape \[2, 2\] instead of \[1,2\] \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [0, 3], ZERO2),
        IAE,
        r"Product of block sizes must be positive, got 0 \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.batch_to_space(Y, [2, 3, 1, 1], [[0, 0]] * 4),
        IAE,
        r"input rank should be >= 5 instead of 4 \[Op:BatchToSpaceND\]",
    ),
    (
        lambda tf: tf.nn.space_to_depth(X, 4),
        IAE,
        r"Image width 6 and height 4 should be divisible by block_size: 4 \[Op:SpaceToDepth\]",
    ),
    (
        lambda tf: tf.nn.space_to_depth(X, 1),
        IAE,
        r"Value for attr 'block_size' of 1 must be at least minimum 2",
    ),
    (
        lambda tf: tf.nn.space_to_depth(X[0], 2),
        IAE,
        r"Input rank should be 4 instead of 3 \[Op:SpaceToDepth\]",
    ),
    (
        lambda tf: tf.nn.space_to_depth(X, 2, data_format="NWHC"),
        IAE,
        r"Value for attr 'data_format' of \"NWHC\" is not in the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"",
    ),
    (
        lambda tf: tf.nn.depth_to_space(tf.ones([1, 2, 2, 6]), 2),
        IAE,
        r"Input depth dimension 6 should be divisible by: 4 \[Op:DepthToSpace\]",
    ),
    (
        lambda tf: tf.nn.depth_to_space(tf.ones([1, 2, 2, 8]), 1),
        IAE,
        r"Value for attr 'block_size' of 1 must be at least minimum 2",
    ),
    (
        lambda tf: tf.nn.depth_to_space(tf.ones([2, 2, 8]), 2),
        IAE,
        r"Input rank should be: 4 instead of: 3 \[Op:DepthToSpace\]",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
