# ruff: noqa: E501 - tables of TF's texts and cases read best one case a line
"""``tapejax.sparse``'s ops side by side with real TensorFlow: values, dtypes and shapes of
every output (a SparseTensor's indices, values and dense shape), the ops on Variables,
tape gradients to a SparseTensor's values and to dense inputs vs TF, ``check_grads`` of
the pure functions, and TF's errors and texts.

A SparseTensor argument is an ``opcheck.Sparse`` (built in each framework); as a ``diff``
position its values are the gradient's source. Cases whose outputs hold int64 indices
run with JAX's x64 mode, as TF's are int64. Semantics beyond a Case (the tape through
ops TF gives no gradient, ``map_values``, ``mask``, tracing) are in
``tests/test_sparse.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import (  # noqa: E402 - the shared op-test harness (tests/opcheck.py)
    Case,
    Sparse,
    arr,
    case_id,
    check_accepts_variables,
    check_error,
    check_pure_gradients,
    check_tape_gradients,
    check_tf_allowed,
    check_values,
    first_of_each_op,
    grad_cases,
    value_params,
)

ONE = ((0,),)


def sp(indices, values, shape):
    return Sparse(np.asarray(indices, np.int64), np.asarray(values), tuple(shape))


def case(name, make, diff=(), dtypes=("float32",), x64=True, **kw):
    """A Case with fixed inputs; ``make(dtype)`` gives ``(args, kwargs)``."""
    return Case(
        name, lambda dt, shape: make(dt), dtypes=dtypes, shapes=ONE, diff=diff, x64=x64, **kw
    )


# A 3x4 matrix with three values, in row-major order; the same out of order; a 2x2x3 tensor.
IDX = [[0, 0], [1, 2], [2, 1]]
IDX3 = [[0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 1, 1]]


def m34(dt, seed=0):
    return sp(IDX, arr(dt, (3,), seed=seed, away=0.3), (3, 4))


def unsorted(dt):
    return sp([[2, 1], [0, 0], [1, 2]], arr(dt, (3,), seed=1, away=0.3), (3, 4))


def t223(dt):
    return sp(IDX3, arr(dt, (4,), seed=2, away=0.3), (2, 2, 3))


CASES = [
    # -- conversions
    case(
        "sparse.from_dense",
        lambda dt: ((np.array([[0, 1.5, 0], [-2, 0, 3]], dt),), {}),
        diff=(0,),
        dtypes=("float32", "int32"),
    ),
    case("sparse.to_dense", lambda dt: ((m34(dt),), {}), diff=(0,), dtypes=("float32", "int32")),
    case(
        "sparse.to_dense",
        lambda dt: ((t223(dt),), {"default_value": np.asarray(-1.5, dt)}),
        diff=(0, "default_value"),
    ),
    case("sparse.to_dense", lambda dt: ((unsorted(dt),), {"validate_indices": False}), diff=(0,)),
    case(
        "sparse.to_indicator",
        lambda dt: (
            (sp([[0, 0], [0, 1], [1, 0], [1, 2]], np.array([3, 1, 0, 3], np.int32), (3, 3)), 4),
            {},
        ),
        dtypes=("int32",),
    ),
    case("sparse.eye", lambda dt: ((3, 2), {}), dtypes=("float32",)),
    case("sparse.eye", lambda dt: ((2,), {"dtype": "int32"})),
    # -- order and shape
    case(
        "sparse.reorder", lambda dt: ((unsorted(dt),), {}), diff=(0,), dtypes=("float32", "int32")
    ),
    case("sparse.reshape", lambda dt: ((m34(dt), [2, -1]), {}), diff=(0,)),
    case("sparse.reshape", lambda dt: ((t223(dt), [3, 4]), {}), diff=(0,)),
    case("sparse.transpose", lambda dt: ((m34(dt),), {}), diff=(0,)),
    case("sparse.transpose", lambda dt: ((t223(dt), [2, 0, 1]), {}), diff=(0,)),
    case("sparse.expand_dims", lambda dt: ((m34(dt),), {}), diff=(0,)),
    case("sparse.expand_dims", lambda dt: ((t223(dt), 1), {}), diff=(0,)),
    case("sparse.reset_shape", lambda dt: ((sp(IDX, arr(dt, (3,)), (5, 6)),), {}), diff=(0,)),
    case("sparse.reset_shape", lambda dt: ((m34(dt), [4, 4]), {}), diff=(0,)),
    # -- selection and joins
    case("sparse.retain", lambda dt: ((m34(dt), np.array([True, False, True])), {}), diff=(0,)),
    case("sparse.slice", lambda dt: ((t223(dt), [0, 1, 0], [2, 1, 3]), {}), diff=(0,)),
    case("sparse.slice", lambda dt: ((m34(dt), [1, 1], [5, 5]), {}), diff=(0,)),
    case("sparse.split", lambda dt: ((), {"sp_input": t223(dt), "num_split": 2, "axis": 2})),
    case(
        "sparse.split",
        lambda dt: (
            (),
            {
                "sp_input": sp([[0, 0], [0, 4], [1, 2]], arr(dt, (3,)), (2, 5)),
                "num_split": 3,
                "axis": -1,
            },
        ),
    ),
    case("sparse.concat", lambda dt: ((0, [m34(dt), unsorted(dt)]), {})),
    case(
        "sparse.concat",
        lambda dt: ((1, [m34(dt), sp([[0, 0], [2, 1]], arr(dt, (2,)), (3, 2))]), {}),
    ),
    case(
        "sparse.concat",
        lambda dt: (
            (-1, [m34(dt), sp([[0, 0], [4, 1]], arr(dt, (2,)), (5, 2))]),
            {"expand_nonconcat_dims": True},
        ),
    ),
    case(
        "sparse.fill_empty_rows",
        lambda dt: (
            (sp([[0, 1], [2, 0], [2, 3]], arr(dt, (3,)), (4, 4)), np.asarray(-1.0, dt)),
            {},
        ),
        diff=(0, 1),
    ),
    case(
        "sparse.fill_empty_rows",
        lambda dt: ((sp([[2, 0, 1]], arr(dt, (1,)), (3, 2, 2)), np.asarray(0.5, dt)), {}),
        diff=(0, 1),
    ),
    # -- arithmetic
    case(
        "sparse.add",
        lambda dt: ((m34(dt), sp([[0, 0], [0, 3], [2, 1]], arr(dt, (3,), seed=4), (3, 4))), {}),
        diff=(0, 1),
        dtypes=("float32", "int32"),
    ),
    case(
        "sparse.add",
        lambda dt: (
            (m34(dt), sp([[0, 0], [1, 2]], -arr(dt, (3,), away=0.3)[:2], (3, 4))),
            {"threshold": 0.5},
        ),
        diff=(0, 1),
    ),
    case("sparse.add", lambda dt: ((m34(dt), arr(dt, (3, 4), seed=5)), {}), diff=(0, 1)),
    case("sparse.add", lambda dt: ((arr(dt, (2, 2, 3), seed=5), t223(dt)), {}), diff=(0, 1)),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((m34(dt), arr(dt, (4, 2), seed=3)), {}),
        diff=(0, 1),
        dtypes=("float32", "int32"),
    ),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((m34(dt), arr(dt, (3, 2), seed=3)), {"adjoint_a": True}),
        diff=(0, 1),
    ),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((m34(dt), arr(dt, (2, 4), seed=3)), {"adjoint_b": True}),
        diff=(0, 1),
    ),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((arr(dt, (2, 3), seed=3), m34(dt)), {}),
        diff=(0, 1),
    ),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((m34(dt), arr(dt, (3, 2), seed=3)), {"adjoint_a": True, "adjoint_b": False}),
        diff=(0, 1),
        dtypes=("complex64",),
    ),
    case(
        "sparse.sparse_dense_matmul",
        lambda dt: ((unsorted(dt), arr(dt, (4, 1), seed=3)), {}),
        diff=(0, 1),
    ),
    case(
        "sparse.sampled_addmm",
        lambda dt: (
            (
                np.array([[0, 1], [1, 0], [2, 2]], np.int32),
                arr(dt, (3,)),
                [3, 3],
                arr(dt, (3, 4), seed=1),
                arr(dt, (4, 3), seed=2),
            ),
            {"beta": 0.5, "alpha": 2.0, "output_type": np.dtype(dt)},
        ),
        diff=(1, 3, 4),
    ),
    case(  # batched
        "sparse.sampled_addmm",
        lambda dt: (
            (
                np.array([[[0, 1], [1, 0]], [[0, 0], [1, 1]]], np.int32),
                arr(dt, (2, 2)),
                [2, 2],
                arr(dt, (2, 2, 3), seed=1),
                arr(dt, (2, 3, 2), seed=2),
            ),
            {"output_type": np.dtype(dt)},
        ),
        diff=(1, 3, 4),
    ),
    case(
        "sparse.maximum",
        lambda dt: ((m34(dt), sp([[0, 0], [0, 3], [2, 1]], arr(dt, (3,), seed=4), (3, 4))), {}),
        dtypes=("float32", "int32"),
    ),
    case(
        "sparse.minimum",
        lambda dt: ((m34(dt), sp([[1, 1], [2, 1]], arr(dt, (2,), seed=4), (3, 4))), {}),
        dtypes=("float32", "int32"),
    ),
    # -- reductions
    case("sparse.reduce_sum", lambda dt: ((t223(dt),), {}), diff=(0,), dtypes=("float32", "int32")),
    case("sparse.reduce_sum", lambda dt: ((t223(dt), 1), {}), diff=(0,)),
    case("sparse.reduce_sum", lambda dt: ((t223(dt), [-1, 0]), {"keepdims": True}), diff=(0,)),
    case("sparse.reduce_sum", lambda dt: ((t223(dt), 1), {"output_is_sparse": True})),
    case(
        "sparse.reduce_sum",
        lambda dt: ((t223(dt), 1), {"keepdims": True, "output_is_sparse": True}),
    ),
    case("sparse.reduce_max", lambda dt: ((t223(dt),), {}), dtypes=("float32", "int32")),
    case("sparse.reduce_max", lambda dt: ((t223(dt), 2), {})),
    case(
        "sparse.reduce_max",
        lambda dt: ((sp([[0, 0], [1, 1]], np.array([-3, -4], dt), (3, 2)), 1), {}),
        dtypes=("float32", "int32"),
    ),
    case(
        "sparse.reduce_max",
        lambda dt: ((t223(dt), 2), {"keepdims": True, "output_is_sparse": True}),
    ),
    case(
        "sparse.softmax",
        lambda dt: (
            (sp([[0, 0], [0, 2], [1, 1], [1, 3], [2, 0]], arr(dt, (5,), seed=6), (3, 4)),),
            {},
        ),
        diff=(0,),
    ),
    case("sparse.softmax", lambda dt: ((t223(dt),), {}), diff=(0,), dtypes=("float64",)),
    # -- segment reductions of dense rows
    case(
        "sparse.segment_sum",
        lambda dt: (
            (arr(dt, (4, 2)), np.array([0, 3, 1, 1], np.int32), np.array([0, 0, 2, 2], np.int32)),
            {},
        ),
        diff=(0,),
        dtypes=("float32", "int32"),
    ),
    case(
        "sparse.segment_sum",
        lambda dt: (
            (arr(dt, (4, 2)), np.array([0, 3], np.int64), np.array([1, 1], np.int64)),
            {"num_segments": 4},
        ),
        diff=(0,),
    ),
    case(
        "sparse.segment_mean",
        lambda dt: (
            (arr(dt, (4, 2)), np.array([0, 3, 1, 1], np.int32), np.array([0, 0, 2, 2], np.int32)),
            {},
        ),
        diff=(0,),
    ),
    case(
        "sparse.segment_mean",
        lambda dt: (
            (arr(dt, (4,)), np.array([2, 1], np.int32), np.array([0, 1], np.int32)),
            {"num_segments": 3},
        ),
        diff=(0,),
    ),
    case(
        "sparse.segment_sqrt_n",
        lambda dt: (
            (arr(dt, (4, 2)), np.array([0, 3, 1, 2], np.int32), np.array([0, 0, 0, 3], np.int32)),
            {},
        ),
        diff=(0,),
    ),
]

# Tested in tests/test_sparse.py instead of by a Case: their arguments are a function or an
# IndexedSlices, which a Case cannot build for both frameworks.
OTHERWISE_TESTED = {"sparse.map_values", "sparse.mask"}


@pytest.mark.parametrize("case, dtype, shape", value_params(CASES))
def test_values_match_tf(case, dtype, shape, request):
    check_values(case, dtype, shape, request)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_op_accepts_variables(case, request):
    check_accepts_variables(case, request)


@pytest.mark.parametrize("case", grad_cases(CASES), ids=case_id)
def test_tape_gradients_match_tf(case):
    check_tape_gradients(case)


# ``check_grads`` traces the pure function: from_dense's indices depend on the values it
# differentiates (not traceable), and fill_empty_rows' second output is a bool vector.
NOT_PURE = {"sparse.from_dense", "sparse.fill_empty_rows"}


@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_PURE), ids=case_id)
def test_pure_function_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=1)


@pytest.mark.slow
@pytest.mark.parametrize("case", first_of_each_op(CASES, NOT_PURE), ids=case_id)
def test_pure_function_second_order_gradients_are_numerically_right(case, x64):
    check_pure_gradients(case, order=2)


# -- errors: TF's types and texts ------------------------------------------------------------------

IAE = "InvalidArgumentError"


def S(tf, indices, values, shape):
    return tf.sparse.SparseTensor(indices, values, shape)


def M(tf):
    return S(tf, [[0, 0], [1, 2]], [1.0, 2.0], [3, 4])


ERRORS = [
    # construction
    (lambda tf: S(tf, [0, 1], [1.0, 2.0], [2]), "ValueError", r"Shape \(2,\) must have rank 2"),
    (lambda tf: S(tf, [[0]], [[1.0]], [2]), "ValueError", r"Shape \(1, 1\) must have rank 1"),
    (
        lambda tf: S(tf, [[0], [1]], [1.0], [2]),
        "ValueError",
        r"Dimensions 2 and 1 are not compatible",
    ),
    (
        lambda tf: S(tf, [[0, 1]], [1.0], [2]),
        "ValueError",
        r"Dimensions 2 and 1 are not compatible",
    ),
    (
        lambda tf: S(tf, [[0.5]], [1.0], [2]),
        "TypeError",
        r"Cannot convert \[\[0.5\]\] to EagerTensor of dtype int64",
    ),
    (
        lambda tf: M(tf).with_values([1.0, 2.0, 3.0]),
        "ValueError",
        r"Dimensions 2 and 3 are not compatible",
    ),
    (
        lambda tf: M(tf).set_shape([1, 4]),
        "ValueError",
        r"Shapes \(3, 4\) and \(1, 4\) are not compatible",
    ),
    (
        lambda tf: tf.sparse.SparseTensor.from_value([1]),
        "TypeError",
        r"Argument sparse_tensor_value=\[1\] is neither a SparseTensor nor SparseTensorValue.",
    ),
    (
        lambda tf: tf.convert_to_tensor(M(tf)),
        "ValueError",
        r"Attempt to convert a value \(SparseTensor\(indices=",
    ),
    (lambda tf: tf.sparse.to_dense(tf.ones([2])), "TypeError", r"Input must be a SparseTensor."),
    # to_dense, to_indicator, from_dense
    (
        lambda tf: tf.sparse.to_dense(S(tf, [[1, 2], [0, 0]], [2.0, 1.0], [3, 4])),
        IAE,
        r"indices\[1\] = \[0,0\] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.",
    ),
    (
        lambda tf: tf.sparse.to_dense(S(tf, [[0, 0], [0, 0]], [2.0, 1.0], [3, 4])),
        IAE,
        r"indices\[1\] = \[0,0\] is repeated",
    ),
    (
        lambda tf: tf.sparse.to_dense(S(tf, [[0, 0], [3, 0]], [2.0, 1.0], [3, 4])),
        IAE,
        r"indices\[1\] = \[3,0\] is out of bounds: need 0 <= index < \[3,4\]",
    ),
    (
        lambda tf: tf.sparse.to_dense(S(tf, [[-1, 0]], [1.0], [3, 4])),
        IAE,
        r"indices\[0\] = \[-1,0\] is out of bounds: need 0 <= index < \[3,4\]",
    ),
    (
        lambda tf: tf.sparse.to_dense(S(tf, [[3, 0]], [1.0], [3, 4]), validate_indices=False),
        IAE,
        r"Indices are not valid \(out of bounds\).  Shape: \[3,4\]",
    ),
    (
        lambda tf: tf.sparse.to_dense(M(tf), default_value=[1.0, 2.0]),
        IAE,
        r"default_value should be a scalar.",
    ),
    (
        lambda tf: tf.sparse.to_indicator(S(tf, [[0, 0]], [5], [2, 2]), 4),
        IAE,
        r"Indices are not valid \(out of bounds\).  Shape: \[2,4\]",
    ),
    (lambda tf: tf.sparse.from_dense(3.0), IAE, r"WhereOp : Unhandled input dimensions: 0"),
    # reorder, reshape, transpose, expand_dims, reset_shape, eye
    (lambda tf: tf.sparse.reorder(tf.ones([2])), "TypeError", r"Input must be a SparseTensor."),
    (
        lambda tf: tf.sparse.reshape(M(tf), [-1, -1]),
        IAE,
        r"only one output dimension may be -1, not both 0 and 1",
    ),
    (lambda tf: tf.sparse.reshape(M(tf), [-2, 6]), IAE, r"size 0 must be non-negative, not -2"),
    (
        lambda tf: tf.sparse.reshape(M(tf), [5, -1]),
        IAE,
        r"Input to reshape is a SparseTensor with 12 dense values, but the requested shape requires a multiple of 5. input_shape=\[3,4\] output_shape=\[5,1\]",
    ),
    (
        lambda tf: tf.sparse.reshape(M(tf), [5, 2]),
        IAE,
        r"Input to reshape is a tensor with 12 dense values, but the requested shape has 10. input_shape=\[3,4\] output_shape=\[5,2\]",
    ),
    (
        lambda tf: tf.sparse.reshape(M(tf), [[12]]),
        IAE,
        r"Target shape should be a vector but received shape \[1,1\]",
    ),
    (lambda tf: tf.sparse.transpose(M(tf), [0, 2]), IAE, r"indices\[1\] = 2 is not in \[0, 2\)"),
    (
        lambda tf: tf.sparse.transpose(M(tf), [0]),
        "ValueError",
        r"Dimensions 1 and 2 are not compatible",
    ),
    (lambda tf: tf.sparse.expand_dims(M(tf), 3), IAE, r"Expected size\[1\] in \[0, 2\], but got 3"),
    (
        lambda tf: tf.sparse.expand_dims(M(tf), -4),
        IAE,
        r"Expected begin\[1\] in \[0, 2\], but got -1",
    ),
    (
        lambda tf: tf.sparse.expand_dims(M(tf), 1.0),
        "TypeError",
        r"axis must be an integer value in range \[-rank\(sp_input\) - 1, rank\(sp_input\)\]",
    ),
    (
        lambda tf: tf.sparse.reset_shape(M(tf), [2, 5]),
        "ValueError",
        r"Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape \(\[3 4\]\), sp_input.shape \(\[2 5\]\).",
    ),
    (
        lambda tf: tf.sparse.reset_shape(M(tf), [5, 5, 5]),
        "ValueError",
        r"Dimensions 3 and 2 are not compatible",
    ),
    (lambda tf: tf.sparse.eye(2.0), "TypeError", r"num_rows must be an integer value"),
    (lambda tf: tf.sparse.eye(-1), IAE, r"Requires start <= limit when delta > 0: 0/-1"),
    # retain, slice, split, concat, fill_empty_rows
    (
        lambda tf: tf.sparse.retain(M(tf), [True]),
        "ValueError",
        r"Dimensions 2 and 1 are not compatible",
    ),
    (
        lambda tf: tf.sparse.retain(M(tf), [[True, False]]),
        "ValueError",
        r"Shape \(1, 2\) must have rank 1",
    ),
    (
        lambda tf: tf.sparse.slice(M(tf), [0], [1]),
        IAE,
        r"Expected start to be a vector of length 2 but got length 1",
    ),
    (
        lambda tf: tf.sparse.slice(M(tf), [0, 0], [-1, 1]),
        IAE,
        r"Expected a non-negative size, got -1",
    ),
    (
        lambda tf: tf.sparse.split(sp_input=M(tf), num_split=5, axis=1),
        IAE,
        r"Input num_split should be between 1 and the splitting dimension size \(4\), got 5",
    ),
    (
        lambda tf: tf.sparse.split(sp_input=M(tf), num_split=2, axis=2),
        IAE,
        r"Input axis should be in range \[-2, 2\), got 2",
    ),
    (lambda tf: tf.sparse.split(sp_input=M(tf), num_split=2), "ValueError", r"axis is required"),
    (lambda tf: tf.sparse.split(num_split=2, axis=0), "ValueError", r"sp_input is required"),
    (
        lambda tf: tf.sparse.concat(1, [M(tf), S(tf, [[0, 0]], [5.0], [5, 2])]),
        IAE,
        r"Input shapes must match: expected 3 for dimension 0 but got 5 at position 1",
    ),
    (
        lambda tf: tf.sparse.concat(1, [M(tf), S(tf, [[0]], [5.0], [5])]),
        IAE,
        r"Ranks of all input tensors must match: expected 2 but got 1 at position 1",
    ),
    (
        lambda tf: tf.sparse.concat(1, [M(tf), S(tf, [[0, 0]], [5], [3, 2])]),
        IAE,
        r"cannot compute SparseConcat as input #3\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.sparse.concat(2, [M(tf), M(tf)]),
        IAE,
        r"Concat dimension must be in range \[-2, 2\), got 2",
    ),
    (lambda tf: tf.sparse.concat(0, M(tf)), "TypeError", r"Inputs must be a list or tuple."),
    (
        lambda tf: tf.sparse.concat(0, [M(tf), tf.ones([3, 4])]),
        "TypeError",
        r"Input must be a SparseTensor.",
    ),
    (
        lambda tf: tf.sparse.fill_empty_rows(M(tf), [0.0, 1.0]),
        IAE,
        r"default_value must be a scalar, saw: \[2\]",
    ),
    (
        lambda tf: tf.sparse.fill_empty_rows(S(tf, [[5, 0]], [1.0], [3, 4]), 0.0),
        IAE,
        r"indices\(0, 0\) is invalid: 5 >= 3",
    ),
    # add, matmul, maximum, *, /
    (
        lambda tf: tf.sparse.add(tf.ones([3, 4]), tf.ones([3, 4])),
        "TypeError",
        r"At least one input should be SparseTensor; do you mean to use tf.add\(\)\?",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), S(tf, [[0, 0]], [1.0], [3, 5])),
        IAE,
        r"Operands' shapes do not match: got 4 and 5 for dimension 1",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), S(tf, [[0, 0]], [1], [3, 4])),
        IAE,
        r"cannot compute SparseAdd as input #4\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), S(tf, [[0]], [1.0], [3])),
        IAE,
        r"Input indices must have the same dimension, got 2 and 1",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), tf.ones([4])),
        IAE,
        r"Two operands have different ranks; received: 2 and 1",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), tf.ones([3, 5])),
        IAE,
        r"Dimension 1 does not equal \(no broadcasting is supported\): sparse side 4 vs dense side 5",
    ),
    (
        lambda tf: tf.sparse.add(M(tf), tf.ones([3, 4], tf.int32)),
        IAE,
        r"cannot compute SparseTensorDenseAdd as input #3\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.sparse.add(S(tf, [[5, 0]], [1.0], [3, 4]), tf.ones([3, 4])),
        IAE,
        r"Sparse tensor has an invalid index on dimension 0: a_indices\(0,0\) = 5, dense tensor shape: 3 4",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(M(tf), tf.ones([3, 2])),
        IAE,
        r"Cannot multiply A and B because inner dimension does not match: 4 vs. 3.  Did you forget a transpose\?  Dimensions of A: \[3, 4\).  Dimensions of B: \[3,2\]",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(
            S(tf, [[0, 0, 0]], [1.0], [1, 1, 1]), tf.ones([1, 2])
        ),
        IAE,
        r"Tensor 'a_shape' must have 2 elements",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(M(tf), tf.ones([1, 4, 2])),
        IAE,
        r"Tensor 'b' is not a matrix",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(S(tf, [[0, 5]], [1.0], [3, 4]), tf.ones([4, 2])),
        IAE,
        r"k \(5\) from index\[0,1\] out of bounds \(>=4\)",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(S(tf, [[3, 0]], [1.0], [3, 4]), tf.ones([4, 2])),
        IAE,
        r"m \(3\) from index\[0,0\] out of bounds \(>=3\)",
    ),
    (
        lambda tf: tf.sparse.sparse_dense_matmul(M(tf), tf.ones([4, 2], tf.int32)),
        IAE,
        r"cannot compute SparseTensorDenseMatMul as input #3\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: tf.sparse.maximum(
            S(tf, [[0, 0]], [-1.0], [2, 2]), S(tf, [[0, 0]], [-3.0], [2, 3])
        ),
        IAE,
        r"Operands' shapes do not match: got 2 and 3 for dimension 1",
    ),
    (
        lambda tf: tf.sparse.maximum(S(tf, [[0, 0]], [-1.0], [2, 2]), S(tf, [[0]], [-3.0], [2])),
        IAE,
        r"Operands do not have the same ranks; got shapes: 2 2 and 2",
    ),
    (
        lambda tf: tf.sparse.minimum(
            S(tf, [[0, 0]], [-1.0], [2, 2]), S(tf, [[0, 0]], [-3], [2, 2])
        ),
        IAE,
        r"cannot compute SparseSparseMinimum as input #4\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: M(tf) * tf.ones([2, 4]),
        IAE,
        r"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: \[3,4\] vs. \[2,4\]",
    ),
    (
        lambda tf: M(tf) * tf.ones([2, 3, 4]),
        IAE,
        r"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: \[3,4\] vs. \[2,3,4\]",
    ),
    (
        lambda tf: 2.0 * M(tf),
        "TypeError",
        r"unsupported operand type\(s\) for \*: 'float' and 'SparseTensor'",
    ),
    (
        lambda tf: M(tf) - 1.0,
        "TypeError",
        r"unsupported operand type\(s\) for -: 'SparseTensor' and 'float'",
    ),
    (
        lambda tf: M(tf) / tf.ones([4], tf.int32),
        "ValueError",
        r"y: Tensor conversion requested dtype float32 for Tensor with dtype int32: ",
    ),
    (
        lambda tf: M(tf) * tf.ones([4], tf.int32),
        "ValueError",
        r"y: Tensor conversion requested dtype float32 for Tensor with dtype int32: ",
    ),
    (
        lambda tf: tf.ones([4], tf.int32) * M(tf),
        IAE,
        r"cannot compute SparseDenseCwiseMul as input #3\(zero-based\) was expected to be a float tensor but is a int32 tensor",
    ),
    (
        lambda tf: M(tf) * M(tf),
        "ValueError",
        r"Attempt to convert a value \(SparseTensor\(indices=",
    ),
    (
        lambda tf: tf.sparse.sampled_addmm(
            [[0, 1]], [1.0], [3, 4], tf.ones([3, 2]), tf.ones([2, 3])
        ),
        "ValueError",
        r"Dense shape: \[3 4\] does not match output shape: \[3 3\]",
    ),
    # reductions and softmax
    (
        lambda tf: tf.sparse.reduce_sum(M(tf), 2),
        IAE,
        r"Invalid reduction dimension 2, for input with 2 dimensions.",
    ),
    (
        lambda tf: tf.sparse.reduce_max(M(tf), -3),
        IAE,
        r"Invalid reduction dimension -3, for input with 2 dimensions.",
    ),
    (
        lambda tf: tf.sparse.reduce_sum(S(tf, [[0]], [True], [2])),
        IAE,
        r"Value for attr 'T' of bool is not in the list of allowed values: float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64",
    ),
    (
        lambda tf: tf.sparse.reduce_max(S(tf, [[0]], tf.constant([1.0 + 1j], tf.complex64), [2])),
        IAE,
        r"Value for attr 'T' of complex64 is not in the list of allowed values: float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
    ),
    (
        lambda tf: tf.sparse.softmax(S(tf, [[0]], [1.0], [2])),
        IAE,
        r"Input should have rank >= 2, but received shape: 2",
    ),
    (
        lambda tf: tf.sparse.softmax(S(tf, [[0, 0]], [1], [2, 2])),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: half, float, double",
    ),
    # segment reductions
    (
        lambda tf: tf.sparse.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 1], [1, 0]),
        IAE,
        r"segment ids are not increasing",
    ),
    (
        lambda tf: tf.sparse.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 5], [0, 0]),
        IAE,
        r"Bad: indices\[1\] == 5 out of range \[0, 3\)",
    ),
    (
        lambda tf: tf.sparse.segment_mean(tf.constant([1.0, 2.0, 3.0]), [0, 1], [0]),
        IAE,
        r"segment_ids and indices should have same size.",
    ),
    (
        lambda tf: tf.sparse.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 1], [-1, 0]),
        IAE,
        r"Segment id -1 out of range \[0, 1\), possibly because 'segment_ids' input is not sorted.",
    ),
    (
        lambda tf: tf.sparse.segment_sqrt_n(
            tf.constant([1.0, 2.0, 3.0]), [0, 1], [0, 3], num_segments=2
        ),
        IAE,
        r"segment ids must be < num_segments",
    ),
    (
        lambda tf: tf.sparse.segment_mean(tf.constant([1, 2, 3]), [0, 1], [0, 0]),
        IAE,
        r"Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double",
    ),
    (
        lambda tf: tf.sparse.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0.0, 1.0], [0, 0]),
        IAE,
        r"Value for attr 'Tidx' of float is not in the list of allowed values: int32, int64",
    ),
    (
        lambda tf: tf.sparse.segment_sum(tf.constant(1.0), [0], [0]),
        IAE,
        r"Shape must be at least rank 1",
    ),
    (
        lambda tf: tf.sparse.segment_sum(tf.constant([1.0, 2.0]), [[0]], [0]),
        IAE,
        r"indices should be a vector.",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_tf_allowed_entries_are_tfs():
    """The op-def type lists the sparse modules add to ``_helpers.TF_ALLOWED`` are TF's."""
    check_tf_allowed(
        (
            "SparseReduceSum",
            "SparseReduceMax",
            "SparseSoftmax",
            "SparseSegmentSum",
            "SparseSegmentMean",
            "SparseSegmentSqrtNWithNumSegments",
            "CTCGreedyDecoder",
            "CTCBeamSearchDecoder",
        )
    )


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int8"])
@pytest.mark.parametrize("output_is_sparse", [False, True])
def test_sparse_reduce_max_of_narrow_dtypes_is_tfs(dtype, output_is_sparse):
    """The max's identity is -inf for every float type, bfloat16 included (NumPy calls its
    kind "V"), and the integer minimum for integers."""
    results = []
    for fw in (tapejax, tensorflow):
        values = fw.cast(fw.constant([1.5, -2.0, -3.0]), dtype)
        st = fw.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], values, [3, 4])
        out = fw.sparse.reduce_max(st, axis=1, output_is_sparse=output_is_sparse)
        out = out.values if output_is_sparse else out
        results.append((out.dtype.name, out.numpy().astype(np.float64).tolist()))
    assert results[0] == results[1]
