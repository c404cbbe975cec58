"""``tf.sets`` side by side with real TensorFlow: dense and sparse operands in every
pairing, the sorted SparseTensor results, ``aminusb``, ``validate_indices``, set sizes,
TF's dtype rules and errors, no gradient, and the refusal inside ``tapejax.function``."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import Sparse, check_error, sp  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

# The ops have tests of their own here instead of a Case (their results are SparseTensors
# built on the host).
OTHERWISE_TESTED = {"sets.difference", "sets.intersection", "sets.size", "sets.union"}


@pytest.fixture(autouse=True)
def _x64(x64):
    """TF's results hold int64 indices (and TF keeps float64 for its error texts)."""


A = np.array([[1, 2, 2, 3], [4, 5, 6, 7], [3, 3, 3, 3]], np.int32)
B = np.array([[2, 2, 9, 1], [7, 8, 8, 8], [0, 1, 2, 4]], np.int32)


SA = sp([[0, 1], [1, 0], [1, 3]], [2, 7, 7], [3, 5])
SB = sp([[0, 0], [0, 2], [2, 1]], [2, 5, 3], [3, 4])
UNSORTED = sp([[0, 2], [0, 1], [2, 0]], [1, 2, 9], [3, 3])


def _build(fw, x):
    return x.build(fw) if isinstance(x, Sparse) else x


def _run(fw, name, a, b, **kwargs):
    fn = getattr(fw.sets, name)
    return fn(_build(fw, a), **kwargs) if b is None else fn(_build(fw, a), _build(fw, b), **kwargs)


def _same_sparse(got, want):
    assert isinstance(got, tapejax.sparse.SparseTensor)
    for g, w in [(got.indices, want.indices), (got.values, want.values)]:
        assert g.dtype.name == w.dtype.name
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(got.dense_shape.numpy(), want.dense_shape.numpy())
    assert got.shape.as_list() == want.shape.as_list()


CASES = {
    "dense union": ("union", A, B, {}),
    "dense intersection": ("intersection", A, B, {}),
    "dense difference": ("difference", A, B, {}),
    "dense b minus a": ("difference", A, B, {"aminusb": False}),
    "python lists": ("union", [[1, 2], [3, 3]], [[2, 0], [3, 1]], {}),
    "rank 3 int8": (
        "union",
        np.array([[[1, 2], [3, 3]]], np.int8),
        np.array([[[4], [3]]], np.int8),
        {},
    ),
    "uint16": ("intersection", A.astype(np.uint16), B.astype(np.uint16), {}),
    "empty result": ("intersection", A[:, :1], B[:, :1] + 100, {}),
    "empty sets": ("union", np.zeros((2, 0), np.int32), np.zeros((2, 0), np.int32), {}),
    "no groups": ("union", np.zeros((0, 3), np.int32), np.zeros((0, 3), np.int32), {}),
    "dense sparse": ("union", A, SB, {}),
    "sparse dense is flipped": ("difference", SB, A, {}),
    "sparse dense b minus a": ("difference", SB, A, {"aminusb": False}),
    "sparse sparse": ("intersection", SA, SB, {}),
    "sparse sparse union": ("union", SA, SB, {}),
    "sparse sparse difference": ("difference", SA, SB, {}),
    "unsorted, not validated": ("union", UNSORTED, A[:, :3], {"validate_indices": False}),
}


@pytest.mark.parametrize("name, a, b, kwargs", CASES.values(), ids=CASES.keys())
def test_values_match_tf(name, a, b, kwargs):
    _same_sparse(_run(tapejax, name, a, b, **kwargs), _run(tensorflow, name, a, b, **kwargs))


def test_int64_sets():
    a, b = A.astype(np.int64) * 2**40, B.astype(np.int64) * 2**40
    _same_sparse(tapejax.sets.union(a, b), tensorflow.sets.union(a, b))


@pytest.mark.parametrize(
    "sp, kwargs",
    [
        (SA, {}),
        (sp([[0, 0], [0, 1], [1, 2]], [3, 3, 5], [2, 4]), {}),
        (UNSORTED, {"validate_indices": False}),
    ],
)
def test_size_matches_tf(sp, kwargs):
    got, want = (
        tapejax.sets.size(sp.build(tapejax), **kwargs),
        tensorflow.sets.size(sp.build(tensorflow), **kwargs),
    )
    assert got.dtype.name == want.dtype.name == "int32"
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    "fn, error, message",
    [
        (
            lambda tf: tf.sets.union(np.array([[1.0]]), np.array([[1.0]])),
            "TypeError",
            "'a' has invalid dtype `<dtype: 'float64'>` not in supported dtypes: `frozenset",
        ),
        (
            lambda tf: tf.sets.intersection(np.array([[1]], np.uint32), np.array([[1]], np.uint32)),
            "TypeError",
            "'a' has invalid dtype `<dtype: 'uint32'>`",
        ),
        (
            lambda tf: tf.sets.union(tf.constant([[1, 2]], tf.uint16), [[3, 1]]),
            "TypeError",
            "Types don't match, <dtype: 'uint16'> vs <dtype: 'int32'>.",
        ),
        (
            lambda tf: tf.sets.size(tf.constant([[1, 2]])),
            "TypeError",
            r"Expected `SparseTensor`, got tf.Tensor\(\[\[1 2\]\], shape=\(1, 2\), dtype=int32\)",
        ),
        (
            lambda tf: tf.sets.size(tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])),
            "TypeError",
            "Invalid dtype `<dtype: 'float32'>` not in supported dtypes",
        ),
        (
            lambda tf: tf.sets.union(A[:2], A),
            "InvalidArgumentError",
            r"Mismatched shapes \[2\] vs \[3\]",
        ),
        (
            lambda tf: tf.sets.union([1, 2], [2]),
            "InvalidArgumentError",
            r"Shape \[2\] has rank 1 < 2",
        ),
        (
            lambda tf: tf.sets.union(UNSORTED.build(tf), A),
            "InvalidArgumentError",
            r"indices\[1\] = \[0,1\] is out of order. Many sparse ops require sorted indices",
        ),
        (
            lambda tf: tf.sets.union(sp([[0, 1], [0, 1]], [1, 2], [3, 3]).build(tf), A[:, :3]),
            "InvalidArgumentError",
            r"indices\[1\] = \[0,1\] is repeated",
        ),
        (
            lambda tf: tf.sets.union(sp([[0, 4]], [1], [3, 3]).build(tf), A[:, :3]),
            "InvalidArgumentError",
            r"indices\[0\] = \[0,4\] is out of bounds: need 0 <= index < \[3,3\]",
        ),
        (
            lambda tf: tf.sets.union(
                sp([[0, 4]], [1], [3, 3]).build(tf), A[:, :3], validate_indices=False
            ),
            "InternalError",
            r"indices\[0, 1\] expected < 3, got 4.",
        ),
        (
            lambda tf: tf.sets.size(sp([[1], [4]], [1, 2], [5]).build(tf)),
            "InvalidArgumentError",
            "Invalid rank 1.",
        ),
    ],
)
def test_errors_match_tf(fn, error, message):
    check_error(fn, error, message)


def test_no_gradient():
    for fw in (tapejax, tensorflow):
        x = fw.Variable(A)
        with fw.GradientTape() as tape:
            tape.watch(x)
            y = fw.sets.union(x, B).values
        assert tape.gradient(y, x) is None


def test_inside_function_is_refused():
    @tapejax.function
    def f(x):
        return tapejax.sets.union(x, B).values

    f(tapejax.constant(A))  # the first call runs eagerly
    with pytest.raises(NotImplementedError, match="tapejax.sets.union needs concrete values"):
        f(tapejax.constant(A))


def test_string_sets_are_refused():
    """TF takes string sets; tapejax has no string tensors (docs/compat.md)."""
    want = tensorflow.sets.union([["a", "b"]], [["c", "a"]])
    assert want.values.numpy().tolist() == [b"a", b"b", b"c"]
    with pytest.raises(NotImplementedError, match="tapejax has no string tensors"):
        tapejax.sets.union([["a", "b"]], [["c", "a"]])
