# ruff: noqa: E501 - tables of TF's cases and texts read best one case a line
"""``tapejax.sparse.bincount`` side by side with live TensorFlow: the three parts of the
SparseTensor it returns (indices and their order, values and their dtype, dense shape) for
dense and sparse inputs, ``axis`` 0 and -1, weights, ``minlength``/``maxlength``,
``binary_output`` and empty inputs; TF's error types and texts; the tape (``None``, where
TF raises ``LookupError``, as ``docs/compat.md`` lists) and ``tapejax.function``."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error, raised  # noqa: E402 - the shared op-test harness

# Host-computed, so tested here instead of by a Case in tests/test_ops*.py.
OTHERWISE_TESTED = {"sparse.bincount"}

I32, I64, F32, F64 = np.int32, np.int64, np.float32, np.float64
DATA = np.array([[10, 20, 30, 20], [11, 101, 11, 10001]])
IDX = [[0, 3], [1, 0], [1, 2], [2, 1]]


def sp(tf, indices, values, shape):
    return tf.sparse.SparseTensor(np.asarray(indices, I64).reshape(-1, len(shape)), values, shape)


def parts(result):
    """``(indices, values, values' dtype, dense shape)`` of a result, as Python data."""
    return (
        result.indices.numpy().tolist(),
        result.values.numpy().tolist(),
        result.values.dtype.name,
        result.dense_shape.numpy().tolist(),
        result.indices.dtype.name,
        result.dense_shape.dtype.name,
    )


CASES = {
    "1d int32": lambda tf: tf.sparse.bincount(np.array([3, 1, 1, 0], I32)),
    "1d int64": lambda tf: tf.sparse.bincount(np.array([3, 1, 1, 0], I64)),
    "python list": lambda tf: tf.sparse.bincount([5, 1, 5, 5]),
    "scalar": lambda tf: tf.sparse.bincount(5),
    "2d flattened": lambda tf: tf.sparse.bincount(DATA),
    "2d axis None": lambda tf: tf.sparse.bincount(DATA, axis=None),
    "2d per row": lambda tf: tf.sparse.bincount(DATA, axis=-1),
    "1d axis -1": lambda tf: tf.sparse.bincount(np.array([2, 0, 2], I32), axis=-1),
    "float weights": lambda tf: tf.sparse.bincount(
        DATA, weights=[[2, 0.25, 15, 0.5], [2, 17, 3, 0.9]], axis=-1
    ),
    "float64 weights": lambda tf: tf.sparse.bincount(
        np.array([3, 1, 1], I32), weights=np.array([0.5, 0.25, 2.0], F64)
    ),
    "int32 weights": lambda tf: tf.sparse.bincount(
        np.array([3, 1, 1], I32), weights=np.array([7, -2, 5], I32)
    ),
    "int64 weights": lambda tf: tf.sparse.bincount(
        np.array([3, 1, 1], I64), weights=np.array([7, 2, 5], I64)
    ),
    "zero weights kept": lambda tf: tf.sparse.bincount([1, 1, 2], weights=[1.0, -1.0, 2.0]),
    "float32 sums in order": lambda tf: tf.sparse.bincount(
        [0, 0, 0], weights=np.array([1e8, 1.0, -1e8], F32)
    ),
    "weights reshaped with axis 0": lambda tf: tf.sparse.bincount(
        [[1, 2], [3, 4]], weights=[1.0, 2, 3, 4]
    ),
    "weights 2d values 1d": lambda tf: tf.sparse.bincount([1, 2, 3, 4], weights=[[1.0, 2], [3, 4]]),
    "empty weights are none": lambda tf: tf.sparse.bincount([3, 1, 1], weights=np.zeros([0], F32)),
    "minlength": lambda tf: tf.sparse.bincount([3, 1, 1, 0], minlength=7),
    "minlength below": lambda tf: tf.sparse.bincount([3, 1, 1, 0], minlength=2),
    "maxlength": lambda tf: tf.sparse.bincount([3, 1, 1, 0], maxlength=2),
    "maxlength 0": lambda tf: tf.sparse.bincount([3, 1, 1, 0], maxlength=0),
    "maxlength wins": lambda tf: tf.sparse.bincount([4, 1], maxlength=7, minlength=9),
    "both per row": lambda tf: tf.sparse.bincount(DATA, axis=-1, minlength=500, maxlength=500),
    "maxlength tensor": lambda tf: tf.sparse.bincount([1, 2, 2], maxlength=tf.constant(2)),
    "binary": lambda tf: tf.sparse.bincount(DATA, binary_output=True),
    "binary per row": lambda tf: tf.sparse.bincount(DATA, binary_output=True, axis=-1),
    "empty": lambda tf: tf.sparse.bincount(np.zeros([0], I32)),
    "empty minlength": lambda tf: tf.sparse.bincount(np.zeros([0], I64), minlength=3),
    "empty maxlength 0": lambda tf: tf.sparse.bincount(np.zeros([0], I32), maxlength=0),
    "empty rows": lambda tf: tf.sparse.bincount(np.zeros([2, 0], I32), axis=-1),
    "empty rows minlength": lambda tf: tf.sparse.bincount(
        np.zeros([2, 0], I32), axis=-1, minlength=3
    ),
    "empty rows float weights": lambda tf: tf.sparse.bincount(
        np.zeros([2, 0], I32), weights=np.zeros([2, 0], F32), axis=-1
    ),
    "large values": lambda tf: tf.sparse.bincount(np.array([2**40, 3], I64)),
    "variable": lambda tf: tf.sparse.bincount(
        tf.Variable([1, 2, 2]), weights=tf.Variable([1.0, 2.0, 0.5])
    ),
    # SparseTensor inputs: missing entries are not counted
    "sparse": lambda tf: tf.sparse.bincount(sp(tf, IDX, [5, 1, 1, 0], [3, 4])),
    "sparse per row": lambda tf: tf.sparse.bincount(sp(tf, IDX, [5, 1, 1, 0], [3, 4]), axis=-1),
    "sparse int64 per row": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, np.array([5, 1, 1, 0], I64), [3, 4]), axis=-1
    ),
    "sparse weights": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=sp(tf, IDX, [1.0, 2, 3, 4], [3, 4])
    ),
    "sparse weights per row": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=sp(tf, IDX, [1.0, 2, 3, 4], [3, 4]), axis=-1
    ),
    "sparse int64 weights per row": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, [5, 1, 1, 0], [3, 4]),
        weights=sp(tf, IDX, np.array([1, 2, 3, 4], I64), [3, 4]),
        axis=-1,
    ),
    "sparse binary per row": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, [5, 1, 1, 1], [3, 4]), binary_output=True, axis=-1
    ),
    "sparse lengths per row": lambda tf: tf.sparse.bincount(
        sp(tf, IDX, [5, 1, 1, 0], [3, 4]), minlength=9, maxlength=3, axis=-1
    ),
    "sparse unordered": lambda tf: tf.sparse.bincount(
        sp(tf, [[1, 1], [0, 1], [1, 0]], [2, 1, 2], [2, 2]), axis=-1
    ),
    "sparse 1d per row": lambda tf: tf.sparse.bincount(
        sp(tf, [[3], [1], [0]], [2, 2, 7], [5]), axis=-1
    ),
    "sparse rank 3 per first index": lambda tf: tf.sparse.bincount(
        sp(tf, [[0, 0, 1], [1, 1, 0]], [2, 4], [2, 2, 2]), axis=-1
    ),
    "sparse empty per row": lambda tf: tf.sparse.bincount(
        sp(tf, np.zeros([0, 2]), np.zeros([0], I32), [2, 2]), axis=-1
    ),
    "sparse empty": lambda tf: tf.sparse.bincount(
        sp(tf, np.zeros([0, 2]), np.zeros([0], I32), [2, 2])
    ),
    "sparse index out of bounds, axis 0": lambda tf: tf.sparse.bincount(
        sp(tf, [[0, 5], [1, 0]], [1, 2], [2, 3])
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_indices_and_shapes_are_tfs(name, x64):
    fn = CASES[name]
    assert parts(fn(tapejax)) == parts(fn(tensorflow))


def test_without_x64_indices_and_shape_are_int32_and_values_agree():
    got = tapejax.sparse.bincount(DATA.astype(I32), axis=-1)
    want = tensorflow.sparse.bincount(DATA.astype(I32), axis=-1)
    assert got.indices.dtype.name == "int32" and got.values.dtype.name == "int32"
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(got.dense_shape.numpy(), want.dense_shape.numpy())


NEG = "Input values must all be non-negative"
ATTR = "is not in the list of allowed values"

ERRORS = [
    # (fn, TF's exception type, a regex of TF's text)
    (
        lambda tf: tf.sparse.bincount([3, -1, 1, 0]),
        "InvalidArgumentError",
        rf"{NEG} \[Op:DenseCountSparseOutput\]",
    ),
    (lambda tf: tf.sparse.bincount([[3, -1], [1, 0]], axis=-1), "InvalidArgumentError", NEG),
    (lambda tf: tf.sparse.bincount([5, -1], maxlength=2), "InvalidArgumentError", NEG),
    (
        lambda tf: tf.sparse.bincount(sp(tf, [[0, 1], [1, 1]], [2, -1], [2, 2]), axis=-1),
        "InvalidArgumentError",
        rf"{NEG} \[Op:SparseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount(sp(tf, [[0, 1], [1, 1]], [2, -1], [2, 2])),
        "InvalidArgumentError",
        NEG,
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], weights=[1.0, 2], binary_output=True),
        "ValueError",
        r"(?:^|\}\} )Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.$",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], axis=1),
        "ValueError",
        r"(?:^|\}\} )Unsupported value for argument axis=1. Only 0 and -1 are currently supported.$",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], maxlength=-3),
        "InvalidArgumentError",
        r"(?:^|\}\} )Value for attr 'maxlength' of -3 must be at least minimum -1",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], minlength=-2),
        "InvalidArgumentError",
        r"(?:^|\}\} )Value for attr 'minlength' of -2 must be at least minimum -1",
    ),
    (
        lambda tf: tf.sparse.bincount([3.0, 1.0]),
        "InvalidArgumentError",
        rf"Value for attr 'T' of float {ATTR}: int32, int64",
    ),
    (
        lambda tf: tf.sparse.bincount(np.array([3, 1], F64), axis=-1),
        "InvalidArgumentError",
        rf"Value for attr 'T' of double {ATTR}: int32, int64",
    ),
    (
        lambda tf: tf.sparse.bincount(sp(tf, [[0], [1]], [2.0, 1.0], [2]), axis=-1),
        "InvalidArgumentError",
        rf"Value for attr 'T' of float {ATTR}: int32, int64",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], weights=np.array([1, 2], np.float16)),
        "InvalidArgumentError",
        rf"Value for attr 'output_type' of half {ATTR}: int32, int64, float, double",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1], weights=[True, False]),
        "InvalidArgumentError",
        rf"Value for attr 'output_type' of bool {ATTR}: int32, int64, float, double",
    ),
    (
        lambda tf: tf.sparse.bincount([[[3, 1], [1, 0]]], axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Input must be a 1 or 2-dimensional tensor. Got: \[1,2,2\] \[Op:DenseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount(5, axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Input must be a 1 or 2-dimensional tensor. Got: \[\] ",
    ),
    (
        lambda tf: tf.sparse.bincount([3, 1, 1], weights=[1.0, 2]),
        "InvalidArgumentError",
        r"(?:^|\}\} )Weights and data must have the same shape. Weight shape: \[2\]; data shape: \[3\] \[Op:DenseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount([1, 2, 2], weights=5.0),
        "InvalidArgumentError",
        r"(?:^|\}\} )Weights and data must have the same shape. Weight shape: \[1\]; data shape: \[3\]",
    ),
    (
        lambda tf: tf.sparse.bincount([[1, 2], [3, 4]], weights=[1.0, 2, 3, 4], axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Weights and data must have the same shape. Weight shape: \[4\]; data shape: \[2,2\]",
    ),
    (
        lambda tf: tf.sparse.bincount(np.zeros([0, 3], I32), axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Invalid input: Shapes dimension cannot be 0. \[Op:DenseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount(sp(tf, [[0, 5], [1, 0]], [1, 2], [2, 3]), axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Invalid index value at 0: dimension 1 has value 5 which is not in \[0, 3\) \(as given by dense shape Tensor<type: int64 shape: \[2\] values: 2 3> \[Op:SparseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount(sp(tf, [[0, 1], [3, 0]], [1, 2], [2, 3]), axis=-1),
        "InvalidArgumentError",
        r"(?:^|\}\} )Invalid index value at 1: dimension 0 has value 3 which is not in \[0, 2\)",
    ),
    (
        lambda tf: tf.sparse.bincount(
            sp(tf, np.zeros([0, 2]), np.zeros([0], I32), [0, 2]), axis=-1
        ),
        "InvalidArgumentError",
        r"(?:^|\}\} )Cannot allocate 0 batches, is the dense shape too wide\? \[Op:SparseCountSparseOutput\]",
    ),
    (
        lambda tf: tf.sparse.bincount(sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=[1.0, 2, 3, 4]),
        "ValueError",
        r"(?:^|\}\} )Argument `weights` must be a SparseTensor if `values` is a SparseTensor. Received weights=\[1. 2. 3. 4.\] of type: EagerTensor$",
    ),
    (
        lambda tf: tf.sparse.bincount(
            sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=[[1.0, 2], [3, 4]], axis=-1
        ),
        "ValueError",
        r"(?:^|\}\} )Argument `weights` must be a SparseTensor if `values` is a SparseTensor. Received weights=",
    ),
    (
        lambda tf: tf.sparse.bincount([1, 2], weights=sp(tf, [[0], [1]], [1.0, 2], [2]), axis=-1),
        "ValueError",
        r"(?:^|\}\} )Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. Received weights=SparseTensor\([\s\S]*of type: SparseTensor$",
    ),
    (
        lambda tf: tf.sparse.bincount([1, 2], weights=sp(tf, [[0], [1]], [1.0, 2], [2])),
        "ValueError",
        r"(?:^|\}\} )Attempt to convert a value \(SparseTensor\([\s\S]*with an unsupported type \(<class '.*SparseTensor'>\) to a Tensor.$",
    ),
    (
        lambda tf: tf.sparse.bincount({"a": 1}),
        "ValueError",
        r"(?:^|\}\} )Attempt to convert a value \(\{'a': 1\}\) with an unsupported type \(<class 'dict'>\) to a Tensor.$",
    ),
    (
        lambda tf: tf.sparse.bincount(
            sp(tf, IDX, [5, 1, 1, 0], [3, 4]),
            weights=sp(tf, [[0, 3], [1, 0], [1, 2], [2, 2]], [1.0, 2, 3, 4], [3, 4]),
            axis=-1,
        ),
        "InvalidArgumentError",
        r"(?:^|\}\} )'weights' and 'values' must have the same indices.\nCondition x == y did not hold.\nIndices of first 1 different values:\n\[\[3 1\]\]",
    ),
    (
        lambda tf: tf.sparse.bincount(
            sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=sp(tf, IDX, [1.0, 2, 3, 4], [3, 5])
        ),
        "InvalidArgumentError",
        r"(?:^|\}\} )'weights' and 'values' must have the same dense shape.\nCondition x == y did not hold.",
    ),
    (
        lambda tf: tf.sparse.bincount(
            sp(tf, IDX, [5, 1, 1, 0], [3, 4]), weights=sp(tf, IDX[:3], [1.0, 2, 3], [3, 4])
        ),
        "InvalidArgumentError",
        r"Incompatible shapes: \[3,2\] vs. \[4,2\]",
    ),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors_are_tfs(fn, error, message, x64):
    check_error(fn, error, message)


def test_values_and_weights_both_refused_raise_invalid_argument():
    # TF names either refused attr (its op-def check visits them in hash order, which
    # varies between runs); tapejax names T (docs/compat.md).
    fn = lambda tf: tf.sparse.bincount(np.array([1, 0], np.uint8))  # noqa: E731
    want, got = raised(fn, tensorflow), raised(fn, tapejax)
    assert type(want).__name__ == type(got).__name__ == "InvalidArgumentError"
    assert ATTR in str(want)
    assert str(got) == (
        "Value for attr 'T' of uint8 is not in the list of allowed values: int32, int64 "
        "[Op:DenseCountSparseOutput]"
    )


def test_a_tape_gives_none_where_tf_raises_lookup_error():
    def run(tf):
        w = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.reduce_sum(tf.sparse.bincount([1, 1, 2], weights=w).values)
        return tape.gradient(y, w)

    assert run(tapejax) is None
    e = raised(run, tensorflow)
    assert type(e) is LookupError and "DenseCountSparseOutput" in str(e)


def test_inside_a_function_python_data_is_counted_and_traced_tensors_say_so():
    @tapejax.function
    def from_constants(scale):
        counts = tapejax.sparse.bincount(
            [[1, 2, 2], [0, 0, 1]], weights=[[1.0, 2, 3], [4, 5, 6]], axis=-1
        )
        return counts.values * scale

    for _ in range(2):  # the eager first call and the traced one
        np.testing.assert_array_equal(
            from_constants(tapejax.constant(2.0)).numpy(), [2.0, 10.0, 18.0, 12.0]
        )

    @tapejax.function
    def from_argument(x):
        return tapejax.sparse.bincount(x).values

    np.testing.assert_array_equal(from_argument(tapejax.constant([1, 2, 2])).numpy(), [1, 2])
    with pytest.raises(NotImplementedError, match=r"tapejax.sparse.bincount needs concrete values"):
        from_argument(tapejax.constant([1, 2, 2]))


def test_tracing_refusal_of_a_jax_transform():
    import jax

    with pytest.raises(NotImplementedError, match="needs concrete values"):
        jax.jit(lambda x: tapejax.sparse.bincount(x).values)(np.array([1, 2], I32))


def test_shares_argument_checks_with_math_bincount():
    for fw in (tapejax, tensorflow):
        with pytest.raises(ValueError, match="Only 0 and -1"):
            fw.math.bincount([1, 2], axis=2)
        with pytest.raises(ValueError, match="mutually exclusive"):
            fw.math.bincount([1, 2], weights=[1.0, 2.0], binary_output=True)
