# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""Ops over a list of tensors (``identity_n``, ``shape_n``, ``parallel_stack``) side by side
with real TensorFlow: values, dtypes and shapes, gradients vs TF, and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    FI,
    Case,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_values,
    fixed,
    value_params,
)

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}

CASES = [
    Case(
        "identity_n",
        lambda dt, shape: (([arr(dt, shape), arr("int32", shape[:1])],), {}),
        dtypes=FI,
    ),
    fixed("identity_n", lambda dt: ([arr("float32", (2, 3)), 2.0, np.array([True])],)),
    fixed("identity_n", lambda dt: (arr("float32", (3, 2)),)),  # a tensor: its rows
    Case("shape_n", lambda dt, shape: (([arr(dt, shape), arr(dt, (4,) + shape)],), {}), dtypes=FI),
    fixed("shape_n", lambda dt: ([arr("float32", (2, 3)), 1.5],), {"out_type": "int64"}, x64=True),
    fixed("shape_n", lambda dt: ([[1, 2], [3]],)),
]
NOT_DIFFERENTIABLE = {"shape_n"}
# Public ops a Case cannot express (TF runs parallel_stack only inside tf.function).
OTHERWISE_TESTED = {"parallel_stack"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


def _list_gradients(fw, op):
    a, b = fw.constant([1.0, 2.0]), fw.constant([[3.0], [4.0]])
    with fw.GradientTape() as tape:
        tape.watch([a, b])
        out = op(fw, a, b)
        loss = fw.reduce_sum(out[0] * 2.0) + fw.reduce_sum(out[1] * out[1])
    return tape.gradient(loss, [a, b])


@pytest.mark.parametrize(
    "op",
    [lambda tf, a, b: tf.identity_n([a, b])],
    ids=["identity_n"],
)
def test_list_gradients_are_tfs(op):
    got, want = _list_gradients(tapejax, op), _list_gradients(tensorflow, op)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy())


def test_shape_n_has_no_gradient():
    for fw in (tapejax, tensorflow):
        a = fw.constant([1.0, 2.0])
        with fw.GradientTape() as tape:
            tape.watch(a)
            s = fw.cast(fw.shape_n([a])[0], fw.float32)
        assert tape.gradient(s, a) is None


def test_parallel_stack_inside_a_function_is_tfs():
    a, b = arr("float32", (2, 3)), arr("float32", (2, 3), seed=1)
    want = tensorflow.function(lambda a, b: tensorflow.parallel_stack([a, b]))(a, b)
    f = tapejax.function(lambda a, b: tapejax.parallel_stack([a, b, a]))
    for _ in range(2):  # the eager first call and the traced one alike
        got = f(tapejax.constant(a), tapejax.constant(b))
        np.testing.assert_array_equal(got.numpy()[:2], want.numpy())
        assert got.shape == (3, 2, 3)


def test_parallel_stack_has_no_gradient():
    """TF registers none (its tape raises LookupError, wrapped by AutoGraph); tapejax gives None."""

    def grad(fw):
        @fw.function
        def f(x):
            with fw.GradientTape() as tape:
                tape.watch(x)
                y = fw.reduce_sum(fw.parallel_stack([x, x]))
            return tape.gradient(y, x)

        return f(fw.constant([1.0, 2.0]))

    with pytest.raises(Exception, match="gradient registry has no entry for: ParallelConcat"):
        grad(tensorflow)
    assert grad(tapejax) is None


IAE = "InvalidArgumentError"
ERRORS = [
    (
        lambda tf: tf.parallel_stack([tf.constant([1]), tf.constant([2])]),
        "RuntimeError",
        r"^tf.parallel_stack\(\) is not compatible with eager execution.$",
    ),
    (
        lambda tf: tf.function(lambda a, b: tf.parallel_stack([a, b]))(
            tf.constant([1.0]), tf.constant([2.0, 3.0])
        ),
        "ValueError",
        r"Dimension 1 in both shapes must be equal, but are 2 and 1. Shapes are \[1,2\] and \[1,1\].",
    ),
    (
        lambda tf: tf.function(lambda a, b: tf.parallel_stack([a, b]))(
            tf.constant([1.0]), tf.constant([2])
        ),
        "TypeError",
        r"Tensors in list passed to 'values' of 'ParallelConcat' Op have types \[float32, int32\] that don't all match.",
    ),
    (
        lambda tf: tf.identity_n([]),
        IAE,
        r"Length for attr 'T' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.shape_n([]),
        IAE,
        r"Value for attr 'N' of 0 must be at least minimum 1",
    ),
    (
        lambda tf: tf.shape_n([tf.constant([1.0]), tf.constant([[1]])]),
        IAE,
        r"cannot compute ShapeN as input #1\(zero-based\) was expected to be a float tensor but is a int32 tensor \[Op:ShapeN\]",
    ),
    (
        lambda tf: tf.shape_n([tf.constant([1.0])], out_type=tf.float32),
        IAE,
        r"Value for attr 'out_type' of float is not in the list of allowed values: int32, int64",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)
