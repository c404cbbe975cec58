# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Ops that move data by computed indices (``unravel_index``, ``dynamic_partition``,
``dynamic_stitch``) side by side with real TensorFlow: values, dtypes and shapes, tape
gradients vs TF (TF's own rule for overwritten stitch rows), traced use inside
``tapejax.function``, and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

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

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}


def _i32(v):
    return np.array(v, np.int32)


CASES = [
    fixed("unravel_index", lambda dt: (_i32([1, 5, 7, 0]), _i32([3, 3]))),
    fixed("unravel_index", lambda dt: (_i32(22), _i32([2, 3, 4]))),
    fixed("unravel_index", lambda dt: (_i32([-1, 4]), _i32([3, 3]))),  # TF's C++ remainders
    fixed("unravel_index", lambda dt: (_i32([0]), _i32([]))),
    fixed(
        "unravel_index",
        lambda dt: (np.array([3, 11], np.int64), np.array([4, 3], np.int64)),
        x64=True,
    ),
    fixed(
        "dynamic_partition",
        lambda dt: (arr(dt, (5,)), _i32([0, 0, 1, 1, 0]), 2),
        dtypes=FI,
        diff=(0,),
    ),
    fixed("dynamic_partition", lambda dt: (arr(dt, (3, 2)), _i32([1, 0, 1]), 3), diff=(0,)),
    fixed(
        "dynamic_partition", lambda dt: (arr(dt, (2, 2, 3)), _i32([[1, 0], [1, 1]]), 2), diff=(0,)
    ),
    fixed("dynamic_partition", lambda dt: (np.float32(5.0), np.int32(0), 2), diff=(0,)),
    fixed(
        "dynamic_stitch",
        lambda dt: ([_i32([0, 2]), _i32([1, 3])], [arr(dt, (2,)), arr(dt, (2,), seed=1)]),
        dtypes=FI,
    ),
    fixed(
        "dynamic_stitch",
        lambda dt: ([_i32([0, 4]), _i32([1, 0])], [arr(dt, (2, 3)), arr(dt, (2, 3), seed=1)]),
    ),
    fixed(
        "dynamic_stitch",
        lambda dt: ([_i32([[0, 1], [5, 2]]), _i32(3)], [arr(dt, (2, 2, 2)), arr(dt, (2,), seed=1)]),
    ),
    fixed("dynamic_stitch", lambda dt: ([_i32([0, 1]), _i32([2])], [[1.0, 2.0], [3]])),
    fixed("dynamic_stitch", lambda dt: ([np.zeros(0, np.int32)], [np.zeros((0, 3), np.float32)])),
]
NOT_DIFFERENTIABLE = {"unravel_index"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_DIFFERENTIABLE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


def _stitch_gradients(fw):
    x, y = fw.constant([1.0, 2.0]), fw.constant([[3.0, 4.0], [5.0, 6.0]])
    with fw.GradientTape() as tape:
        tape.watch([x, y])
        # Row 1 is named twice: y's row wins the value, and TF gives both the gradient.
        z = fw.dynamic_stitch([[0, 1], [1, 3]], [x[:, None] * fw.ones([1, 2]), y])
        loss = fw.reduce_sum(z * fw.constant([[1.0], [2.0], [3.0], [4.0]]))
    return [z, *tape.gradient(loss, [x, y])]


def test_dynamic_stitch_values_and_gradients_are_tfs():
    for got, want in zip(_stitch_gradients(tapejax), _stitch_gradients(tensorflow), strict=True):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def _stitch_of_tensors(fw):
    rows = fw.constant([[0, 1], [3, 2]])
    data = fw.constant([[5.0, 6.0], [7.0, 8.0]])
    return [
        fw.dynamic_stitch(rows, data),  # each Tensor is the list of its rows, as in TF
        fw.dynamic_stitch(fw.Variable(rows), [data[0], data[1]]),
    ]


def test_dynamic_stitch_takes_tensors_for_its_lists_as_tf():
    for got, want in zip(_stitch_of_tensors(tapejax), _stitch_of_tensors(tensorflow), strict=True):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_dynamic_stitch_of_int64_indices_raises_tfs_error(x64):
    for fw in (tensorflow, tapejax):
        with pytest.raises(
            fw.errors.InvalidArgumentError,
            match=r"input #0\(zero-based\) was expected to be a int32 tensor but is a int64",
        ):
            fw.dynamic_stitch([fw.constant([0, 1], fw.int64)], [fw.constant([5.0, 6.0])])


def test_concrete_indices_inside_a_function_and_traced_ones_refused():
    f = tapejax.function(
        lambda x: tapejax.dynamic_stitch(
            [[1], [0, 2]], tapejax.dynamic_partition(x, np.array([1, 0, 1]), 2)
        )
    )
    x = tapejax.constant([1.0, 2.0, 3.0])
    for _ in range(2):  # the eager first call, then the traced one
        np.testing.assert_array_equal(f(x).numpy(), [1.0, 2.0, 3.0])
    g = tapejax.function(lambda x, p: tapejax.dynamic_partition(x, p, 2))
    for op, fn in (
        ("dynamic_partition", lambda x: g(x, tapejax.constant([0, 1, 0]))),
        (
            "dynamic_stitch",
            tapejax.function(lambda x: tapejax.dynamic_stitch([tapejax.constant([0, 1])], [x[:2]])),
        ),
    ):
        with pytest.raises(NotImplementedError, match=f"tapejax.{op}: the result's shape depends"):
            fn(x)
            fn(x)


def test_unravel_index_traced_and_its_run_time_bound_check():
    f = tapejax.function(lambda i: tapejax.unravel_index(i, [3, 3]))
    for _ in range(2):
        np.testing.assert_array_equal(f(tapejax.constant([1, 5])).numpy(), [[0, 1], [1, 2]])
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="index is out of bound"):
        f(tapejax.constant([1, 9]))


IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.unravel_index([1, 9], [3, 3]),
        IAE,
        r"index is out of bound as with dims \[Op:UnravelIndex\]",
    ),
    (
        lambda tf: tf.unravel_index([1], [3, 0]),
        IAE,
        r"Input dims cannot contain a dim of zero, but dims contains zero at index 1 \[Op:UnravelIndex\]",
    ),
    (
        lambda tf: tf.unravel_index([1], [3, -1]),
        IAE,
        r"Input dims cannot be negative. Got dim = -1 at index 1 \[Op:UnravelIndex\]",
    ),
    (
        lambda tf: tf.unravel_index([[1, 2], [3, 4]], [3, 3]),
        IAE,
        r'The indices can only be scalar or vector, got "\[2,2\]" \[Op:UnravelIndex\]',
    ),
    (
        lambda tf: tf.unravel_index([1], [[3, 3]]),
        IAE,
        r'The indices can only be 1-D, got "\[1,2\]" \[Op:UnravelIndex\]',
    ),
    (
        lambda tf: tf.unravel_index([1.0], [3, 3]),
        IAE,
        r"Value for attr 'Tidx' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.unravel_index(tf.constant([1]), tf.constant([3.0, 3.0])),
        IAE,
        r"cannot compute UnravelIndex as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    (
        lambda tf: tf.dynamic_partition([10, 20, 30], [0, 5, 1], 2),
        IAE,
        r"partitions\[1\] = 5 is not in \[0, 2\) \[Op:DynamicPartition\]",
    ),
    (
        lambda tf: tf.dynamic_partition([10, 20, 30], [0, -1, 1], 2),
        IAE,
        r"partitions\[1\] = -1 is not in \[0, 2\)",
    ),
    (
        lambda tf: tf.dynamic_partition([10, 20, 30], [0, 1], 2),
        IAE,
        r"data.shape must start with partitions.shape, got data.shape = \[3\], partitions.shape = \[2\] \[Op:DynamicPartition\]",
    ),
    (
        lambda tf: tf.dynamic_partition([10, 20, 30], [0, 1, 0], 0),
        IAE,
        r"Value for attr 'num_partitions' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.dynamic_partition([10, 20, 30], [0.0, 1, 0], 2),
        "TypeError",
        r"Cannot convert \[0.0, 1, 0\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0, -1]], [[1.0, 2.0]]),
        IAE,
        r"indices\[1\] is out of range \[Op:DynamicStitch\]",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0, 1]], [[1.0, 2.0, 3.0]]),
        IAE,
        r"data\[0\].shape = \[3\] does not start with indices\[0\].shape = \[2\] \[Op:DynamicStitch\]",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0, 1], [2]], [[1.0, 2.0], [[3.0]]]),
        IAE,
        r"Need data\[0\].shape\[1:\] = data\[1\].shape\[1:\], got data\[0\].shape = \[2\], data\[1\].shape = \[1,1\], indices\[0\].shape = \[2\], indices\[1\].shape = \[1\] \[Op:DynamicStitch\]",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0.5, 1]], [[1.0, 2.0]]),
        "TypeError",
        r"Cannot convert \[0.5, 1\] to EagerTensor of dtype int32",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0, 1], [2]], [tf.constant([1.0, 2.0]), tf.constant([3])]),
        IAE,
        r"cannot compute DynamicStitch as input #3\(zero-based\) was expected to be a float tensor but is a int32 tensor \[Op:DynamicStitch\]",
    ),
    (
        lambda tf: tf.dynamic_stitch([[0, 1], [2]], [[1.0, 2.0]]),
        "ValueError",
        r"List argument 'data' to 'dynamic_stitch' Op with length 1 must match length 2 of argument 'indices'.",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
