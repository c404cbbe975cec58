"""Unit tests for ``tapejax._src.tensor_shape``: ``TensorShape`` against ``tf.TensorShape``.

Expected values and error texts are TensorFlow 2.21's, held literally. One deliberate
difference: ``dims`` holds ints and None, not TF1's ``Dimension`` objects.
"""

import numpy as np
import pytest

import tapejax as tf


def test_str_and_repr():
    assert str(tf.TensorShape([1, None, 3])) == "(1, None, 3)"
    assert str(tf.TensorShape([2])) == "(2,)"
    assert str(tf.TensorShape([None])) == "(None,)"
    assert str(tf.TensorShape([])) == "()"
    assert str(tf.TensorShape(None)) == "<unknown>"
    assert repr(tf.TensorShape([1, None])) == "TensorShape([1, None])"
    assert repr(tf.TensorShape(None)) == "TensorShape(None)"
    assert repr(tf.TensorShape([])) == "TensorShape([])"


def test_construction_from_ints_numpy_and_tensors():
    assert tf.TensorShape(3).as_list() == [3]
    assert tf.TensorShape((2, None)).as_list() == [2, None]
    assert tf.TensorShape([np.int64(2), tf.constant(3)]).as_list() == [2, 3]
    assert tf.TensorShape(tf.TensorShape([1])) == [1]
    assert tf.TensorShape(iter([4, 5])).as_list() == [4, 5]


def test_bad_dimensions_raise_tf_errors():
    with pytest.raises(ValueError, match="^Dimension -1 must be >= 0$"):
        tf.TensorShape([-1])
    with pytest.raises(
        TypeError,
        match="^Dimension value must be integer or None or have an __index__ method, got value "
        "'1.5' with type '<class 'float'>'$",
    ):
        tf.TensorShape([1.5])
    with pytest.raises(TypeError, match=r"^Failed to convert ''ab'' to a shape: ''a''could not"):
        tf.TensorShape("ab")


@pytest.mark.parametrize(
    "other, equal",
    [
        ([1, None], True),
        ((1, None), True),
        ([1, 2], False),
        ([1], False),
        ("ab", False),
        (3, False),
    ],
)
def test_equality_with_lists(other, equal):
    s = tf.TensorShape([1, None])
    assert (s == other) is equal
    assert (s != other) is (not equal)


def test_unknown_shape():
    s = tf.TensorShape(None)
    assert s.rank is None and s.ndims is None and s.dims is None
    assert s == tf.TensorShape(None) and s == None  # noqa: E711 - TF compares so
    assert not s and not s.is_fully_defined()
    assert s.num_elements() is None
    assert s[1] is None and s[1:] == tf.TensorShape(None)
    with pytest.raises(
        ValueError, match=r"^as_list\(\) is not defined on an unknown TensorShape.$"
    ):
        s.as_list()
    with pytest.raises(ValueError, match="^Cannot take the length of shape with unknown rank.$"):
        len(s)
    with pytest.raises(ValueError, match="^Cannot iterate over a shape with unknown rank.$"):
        list(s)


def test_known_shape_accessors():
    s = tf.TensorShape([2, 3, 4])
    assert s.rank == 3 and s.ndims == 3 and len(s) == 3
    assert s.dims == [2, 3, 4] and list(s) == [2, 3, 4]
    assert s[1] == 3 and s[-1] == 4 and type(s[0]) is int
    assert s[1:] == tf.TensorShape([3, 4])
    with pytest.raises(IndexError):
        s[5]
    assert bool(tf.TensorShape([])) and bool(tf.TensorShape([0]))
    assert hash(tf.TensorShape([1, 2])) == hash(tf.TensorShape([1, 2]))


@pytest.mark.parametrize(
    "dims, n", [([2, 3], 6), ([], 1), ([0, 5], 0), ([2, None], None), (None, None)]
)
def test_num_elements(dims, n):
    assert tf.TensorShape(dims).num_elements() == n


@pytest.mark.parametrize(
    "other, ok",
    [([2, 5], True), ([3, 5], False), ([2], False), (None, True), ([None, None], True)],
)
def test_is_compatible_with(other, ok):
    assert tf.TensorShape([2, None]).is_compatible_with(other) is ok
    assert tf.TensorShape(None).is_compatible_with(other)


def test_merge_with():
    assert tf.TensorShape([2, None]).merge_with([None, 3]) == [2, 3]
    assert tf.TensorShape(None).merge_with([3]) == [3]
    assert tf.TensorShape([2]).merge_with(None) == [2]
    with pytest.raises(ValueError, match=r"^Shapes \(2, None\) and \(3, 3\) are not compatible$"):
        tf.TensorShape([2, None]).merge_with([3, 3])
    with pytest.raises(ValueError, match=r"^Shapes \(2, None\) and \(3,\) are not compatible$"):
        tf.TensorShape([2, None]).merge_with([3])


def test_concatenate_and_add():
    assert tf.TensorShape([2]).concatenate([3, None]) == [2, 3, None]
    assert tf.TensorShape([2]).concatenate(None) == tf.TensorShape(None)
    assert tf.TensorShape(None).concatenate([2]).rank is None
    assert tf.TensorShape([2]) + [3] == [2, 3]
    assert [3] + tf.TensorShape([2]) == [3, 2]


def test_rank_checks_with_tf_texts():
    s = tf.TensorShape([2, 3])
    assert s.with_rank_at_least(2) == s and s.with_rank(2) == s and s.with_rank_at_most(2) == s
    with pytest.raises(ValueError, match=r"^Shape \(2, 3\) must have rank at least 3$"):
        s.with_rank_at_least(3)
    with pytest.raises(ValueError, match=r"^Shape \(2, 3\) must have rank at most 1$"):
        s.with_rank_at_most(1)
    with pytest.raises(ValueError, match=r"^Shape \(2, 3\) must have rank 3$"):
        s.with_rank(3)
    with pytest.raises(ValueError, match=r"^Shape \(2, 3\) must have rank 3$"):
        s.assert_has_rank(3)
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \(1,\) must have the same rank$"):
        s.assert_same_rank([1])
    assert tf.TensorShape(None).with_rank(2) == [None, None]


def test_assertions_with_tf_texts():
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \[3, 3\] are incompatible$"):
        tf.TensorShape([2, 3]).assert_is_compatible_with([3, 3])
    with pytest.raises(ValueError, match=r"^Shape \(2, None\) is not fully defined$"):
        tf.TensorShape([2, None]).assert_is_fully_defined()
    assert tf.TensorShape([1, None]).most_specific_compatible_shape([1, 2]) == [1, None]


def test_tensor_shape_is_a_tensorshape():
    t = tf.constant([[1.0]])
    assert isinstance(t.shape, tf.TensorShape)
    assert t.shape == (1, 1) and t.get_shape() == [1, 1]
