# ruff: noqa: E501 - tables of TF's texts and values read best one case a line
"""Unit tests for ``tapejax._src.tensor`` (Tensor, conversion, ``constant``) and the Python
operators ``operators.py`` installs on it.

Every expected value, dtype and error text below is TensorFlow 2.21's, held literally so
the file runs without TensorFlow. The tables of cases take the framework as an argument
(``lambda tf: ...``) so the same expressions can be replayed under real TF.

Documented deviation tested here (``docs/compat.md``, "64-bit types"): without JAX's x64
mode a 64-bit value is stored in 32 bits, with one UserWarning per dtype; an integer that
does not fit in 32 bits is an error rather than a silently wrapped value.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tapejax as tf
from tapejax._src import conversion as conversion_module
from tapejax.errors import InvalidArgumentError


def assert_tensor(t, value, dtype):
    """``t`` is a Tensor holding ``value`` (exactly) with dtype ``dtype`` (a name)."""
    assert isinstance(t, tf.Tensor), f"expected a tf.Tensor, got {type(t).__name__}: {t!r}"
    assert t.dtype == dtype, f"dtype: got {t.dtype.name}, TF gives {dtype} ({t!r})"
    expected = np.asarray(value)
    assert t.shape == expected.shape, f"shape: got {t.shape}, TF gives {expected.shape}"
    np.testing.assert_array_equal(t.numpy(), expected, err_msg=f"value of {t!r}")


@pytest.fixture
def fresh_narrowing_warnings(monkeypatch):
    """Forget which 64-bit dtypes already warned, so a test sees the first warning."""
    monkeypatch.setattr(conversion_module, "_narrow_warned", set())


# -- constant / convert_to_tensor: default dtypes ------------------------------------------

DEFAULT_DTYPES = [
    (lambda tf: tf.constant(1.0), 1.0, "float32"),
    (lambda tf: tf.constant(1), 1, "int32"),
    (lambda tf: tf.constant(True), True, "bool"),
    (lambda tf: tf.constant([1, 2.5]), [1.0, 2.5], "float32"),
    (lambda tf: tf.constant([1, True]), [1, 1], "int32"),
    (lambda tf: tf.constant([1.5, True]), [1.5, 1.0], "float32"),
    (lambda tf: tf.constant([[1], [2.5]]), [[1.0], [2.5]], "float32"),
    (lambda tf: tf.constant((1, 2)), [1, 2], "int32"),
    (lambda tf: tf.constant(range(3)), [0, 1, 2], "int32"),
    (lambda tf: tf.constant([]), np.zeros(0, np.float32), "float32"),
    (lambda tf: tf.constant([[], []]), np.zeros((2, 0), np.float32), "float32"),
    (lambda tf: tf.constant(-(2**31)), -(2**31), "int32"),
    (lambda tf: tf.constant(np.array([1, 2], np.int16)), [1, 2], "int16"),
    (lambda tf: tf.constant(np.array([1, 2], np.uint8)), [1, 2], "uint8"),
    (lambda tf: tf.constant(np.float16(1)), 1.0, "float16"),
    (lambda tf: tf.constant(np.float32(2)), 2.0, "float32"),
    (lambda tf: tf.constant(np.bool_(True)), True, "bool"),
    (lambda tf: tf.constant([np.float32(1), 2]), [1.0, 2.0], "float32"),
    (lambda tf: tf.convert_to_tensor([1, 2]), [1, 2], "int32"),
    (lambda tf: tf.convert_to_tensor(jnp.array([1.0, 2.0])), [1.0, 2.0], "float32"),
]


@pytest.mark.parametrize("make, value, dtype", DEFAULT_DTYPES)
def test_default_dtypes(make, value, dtype):
    assert_tensor(make(tf), value, dtype)


def test_64_bit_defaults_under_x64(x64):
    assert_tensor(tf.constant(2**40), 2**40, "int64")
    assert_tensor(tf.constant([1, 2**40]), [1, 2**40], "int64")
    assert_tensor(tf.constant(2**63 - 1), 2**63 - 1, "int64")
    assert_tensor(tf.constant(1 + 2j), 1 + 2j, "complex128")
    assert_tensor(tf.constant([2j, 1]), [2j, 1], "complex128")
    assert_tensor(tf.constant(np.array([1.0, 2.0])), [1.0, 2.0], "float64")
    assert_tensor(tf.constant(np.array([2**40])), [2**40], "int64")


def test_float64_numpy_without_x64_is_float32_with_one_warning_per_dtype(fresh_narrowing_warnings):
    with pytest.warns(UserWarning, match="jax_enable_x64") as record:
        t = tf.constant(np.array([1.0, 2.0]))
    assert len(record) == 1, [str(w.message) for w in record]
    assert "float64" in str(record[0].message) and "float32" in str(record[0].message)
    assert_tensor(t, [1.0, 2.0], "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second float64 value warns no more
        assert_tensor(tf.constant(np.float64(3.0)), 3.0, "float32")
    with pytest.warns(UserWarning, match="int64.*jax_enable_x64"):  # a new dtype warns once
        assert_tensor(tf.constant(np.array([1, 2])), [1, 2], "int32")


def test_float64_numpy_with_x64_stays_float64_without_warning(x64):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_tensor(tf.constant(np.array([1.0, 2.0])), [1.0, 2.0], "float64")
        assert_tensor(tf.constant(np.array([1, 2])), [1, 2], "int64")


def test_ints_beyond_int32_without_x64_are_an_error_not_a_wrap(fresh_narrowing_warnings):
    with pytest.raises(ValueError, match="needs int64.*jax_enable_x64"):
        tf.constant(2**40)
    with pytest.raises(ValueError, match="needs int64.*jax_enable_x64"):
        tf.constant(np.array([2**40]))


def test_complex_without_x64_is_complex64_with_a_warning(fresh_narrowing_warnings):
    with pytest.warns(UserWarning, match="complex128.*jax_enable_x64"):
        assert_tensor(tf.constant(1 + 2j), 1 + 2j, "complex64")


# -- dtype= conversions ----------------------------------------------------------------------

DTYPE_CONVERSIONS = [
    (lambda tf: tf.constant([1, 2], dtype=tf.float32), [1.0, 2.0], "float32"),
    (lambda tf: tf.constant(1, dtype=tf.complex64), 1 + 0j, "complex64"),
    (lambda tf: tf.constant(1.5, dtype=tf.complex64), 1.5 + 0j, "complex64"),
    (lambda tf: tf.constant(True, dtype=tf.float32), 1.0, "float32"),
    (lambda tf: tf.constant([True, False], dtype=tf.int32), [1, 0], "int32"),
    (lambda tf: tf.constant(1.5, dtype="float16"), 1.5, "float16"),
    (lambda tf: tf.constant(1.5, dtype=np.float32), 1.5, "float32"),
    # Python ints wrap into narrower integer types, as TF's conversion does.
    (lambda tf: tf.constant([300], dtype=tf.uint8), [44], "uint8"),
    (lambda tf: tf.constant(-1, dtype=tf.uint32), 4294967295, "uint32"),
    (lambda tf: tf.constant([2**31], dtype=tf.int32), [-(2**31)], "int32"),
    # NumPy values are cast as NumPy casts (float -> int truncates).
    (lambda tf: tf.constant(np.array([1.5, -2.5]), dtype=tf.int32), [1, -2], "int32"),
    (lambda tf: tf.convert_to_tensor(np.float32(1.5), dtype=tf.int32), 1, "int32"),
    (lambda tf: tf.constant(np.array([1.0]), dtype=tf.bool), [True], "bool"),
    (lambda tf: tf.constant(jnp.array([1.5, 2.0]), dtype=tf.int32), [1, 2], "int32"),
    (lambda tf: tf.convert_to_tensor(1, dtype=tf.float32), 1.0, "float32"),
    (lambda tf: tf.convert_to_tensor([1, 2], dtype_hint=tf.float32), [1.0, 2.0], "float32"),
    (lambda tf: tf.convert_to_tensor([1.5, 2], dtype_hint=tf.int32), [1.5, 2.0], "float32"),
    (lambda tf: tf.constant(tf.Variable(1.5), dtype=tf.int32), 1, "int32"),
    # An empty sequence converts to any dtype: it holds no value to lose.
    (lambda tf: tf.convert_to_tensor([], dtype=tf.int32), np.zeros(0, np.int32), "int32"),
    (lambda tf: tf.constant([[]], dtype=tf.bool), np.zeros((1, 0), bool), "bool"),
]


@pytest.mark.parametrize("make, value, dtype", DTYPE_CONVERSIONS)
def test_dtype_conversions(make, value, dtype):
    assert_tensor(make(tf), value, dtype)


CONVERSION_ERRORS = [
    (
        lambda tf: tf.constant([1.5], dtype=tf.int32),
        TypeError,
        r"^Cannot convert \[1.5\] to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant(1.5, dtype=tf.int32),
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.convert_to_tensor([1.5], dtype=tf.int32),
        TypeError,
        r"^Cannot convert \[1.5\] to EagerTensor of dtype int32$",
    ),
    # TF names float32 "float" (its C++ name) here.
    (
        lambda tf: tf.constant(1 + 1j, dtype=tf.float32),
        TypeError,
        r"^Cannot convert \(1\+1j\) to EagerTensor of dtype float$",
    ),
    (
        lambda tf: tf.constant(1, dtype=tf.bool),
        TypeError,
        r"^Cannot convert 1 to EagerTensor of dtype bool$",
    ),
    (
        lambda tf: tf.constant(1.0, dtype=tf.bool),
        TypeError,
        r"^Cannot convert 1.0 to EagerTensor of dtype bool$",
    ),
    (
        lambda tf: tf.constant("a", dtype=tf.int32),
        TypeError,
        r"^Cannot convert 'a' to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant(1, dtype=tf.string),
        TypeError,
        r"^Cannot convert 1 to EagerTensor of dtype string$",
    ),
    (
        lambda tf: tf.convert_to_tensor(tf.constant(1.0), dtype=tf.int32),
        ValueError,
        r"^Tensor conversion requested dtype int32 for Tensor with dtype float32: "
        r"<tf.Tensor: shape=\(\), dtype=float32, numpy=1.0>$",
    ),
    (
        lambda tf: tf.constant(tf.constant(1.5), dtype=tf.int32),
        TypeError,
        r"^Expected tensor 1.5 with dtype tf.int32, but got dtype tf.float32.$",
    ),
    (
        lambda tf: tf.convert_to_tensor(None),
        ValueError,
        r"^Attempt to convert a value \(None\) with an unsupported type \(<class 'NoneType'>\) "
        r"to a Tensor.$",
    ),
    (lambda tf: tf.constant(None), ValueError, r"^Attempt to convert a value \(None\)"),
    (
        lambda tf: tf.constant({1: 2}),
        ValueError,
        r"^Attempt to convert a value \(\{1: 2\}\) with an unsupported type \(<class 'dict'>\)",
    ),
    (
        lambda tf: tf.constant([True, 1]),
        ValueError,
        r"^Can't convert Python sequence with mixed types to Tensor.$",
    ),
    (
        lambda tf: tf.constant([True, 1.0]),
        ValueError,
        r"^Can't convert Python sequence with mixed types",
    ),
    (
        lambda tf: tf.constant([1.0, 2j]),
        ValueError,
        r"^Can't convert Python sequence with mixed types",
    ),
    (
        lambda tf: tf.constant([1, None]),
        ValueError,
        r"^Can't convert Python sequence with mixed types",
    ),
    (
        lambda tf: tf.constant([[1, 2], [3]]),
        ValueError,
        r"^Can't convert non-rectangular Python sequence to Tensor.$",
    ),
    (
        lambda tf: tf.constant([[1, 2], 3]),
        ValueError,
        r"^Can't convert non-rectangular Python sequence to Tensor.$",
    ),
    (
        lambda tf: tf.constant([2**64]),
        ValueError,
        r"^Can't convert Python sequence with out-of-range integer to Tensor.$",
    ),
    (
        lambda tf: tf.constant([1, 2, 3], shape=[2, 2]),
        TypeError,
        r"^Eager execution of tf.constant with unsupported shape. Tensor \[1 2 3\] \(converted "
        r"from \[1, 2, 3\]\) has 3 elements, but got `shape` \(2, 2\) with 4 elements\).$",
    ),
]


@pytest.mark.parametrize("make, error, message", CONVERSION_ERRORS)
def test_conversion_errors_have_tf_types_and_texts(make, error, message):
    with pytest.raises(error, match=message):
        make(tf)


def test_strings_are_not_supported():
    # Documented deviation: JAX arrays hold numbers only.
    for value in ("abc", ["a"], np.array(["a"])):
        with pytest.raises(NotImplementedError, match="no string tensors"):
            tf.constant(value)


def test_constant_shape_broadcasts_a_scalar_and_reshapes():
    assert_tensor(tf.constant(1.0, shape=[2, 3]), np.ones((2, 3), np.float32), "float32")
    assert_tensor(tf.constant([1, 2, 3, 4], shape=[2, 2]), [[1, 2], [3, 4]], "int32")
    assert_tensor(tf.constant([7], shape=(2,)), [7, 7], "int32")


def test_convert_to_tensor_passes_tensors_through():
    t = tf.constant([1.0])
    assert tf.convert_to_tensor(t) is t
    assert tf.convert_to_tensor(t, dtype=tf.float32) is t
    assert tf.is_tensor(t) and tf.is_tensor(tf.Variable(1.0)) and not tf.is_tensor(1.0)


# -- value access ----------------------------------------------------------------------------


def test_numpy_is_a_numpy_scalar_at_rank_0():
    v = tf.constant(1.5).numpy()
    assert type(v) is np.float32 and v == 1.5
    a = tf.constant([1, 2]).numpy()
    assert type(a) is np.ndarray and a.dtype == np.int32 and a.flags.writeable


def test_shape_dtype_and_friends():
    t = tf.constant([[1.0, 2.0, 3.0]])
    assert isinstance(t.shape, tf.TensorShape) and t.shape.as_list() == [1, 3]
    assert t.shape.rank == 2 and t.ndim == 2 and t.get_shape() == [1, 3]
    assert t.dtype is tf.float32 and repr(t.dtype) == "tf.float32"
    assert tf.constant(1.0).shape == [] and tf.constant(1.0).shape.rank == 0
    assert t.device.startswith("/job:localhost/replica:0/task:0/device:")


REPRS = [
    (lambda tf: repr(tf.constant(1.0)), "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"),
    (
        lambda tf: repr(tf.constant(1.1)),
        "<tf.Tensor: shape=(), dtype=float32, numpy=1.100000023841858>",
    ),
    (lambda tf: repr(tf.constant(3)), "<tf.Tensor: shape=(), dtype=int32, numpy=3>"),
    (lambda tf: repr(tf.constant(True)), "<tf.Tensor: shape=(), dtype=bool, numpy=True>"),
    (
        lambda tf: repr(tf.constant(1.1, dtype=tf.bfloat16)),
        "<tf.Tensor: shape=(), dtype=bfloat16, numpy=1.1015625>",
    ),
    (
        lambda tf: repr(tf.constant([1.5, 2.25])),
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5 , 2.25], dtype=float32)>",
    ),
    (
        lambda tf: repr(tf.constant([[1, 2], [3, 4]])),
        "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>",
    ),
    (
        lambda tf: repr(tf.constant(np.zeros((0, 3), np.float32))),
        "<tf.Tensor: shape=(0, 3), dtype=float32, numpy=array([], shape=(0, 3), dtype=float32)>",
    ),
    (lambda tf: str(tf.constant(1.1)), "tf.Tensor(1.1, shape=(), dtype=float32)"),
    (lambda tf: str(tf.constant([1.0, 2.0])), "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"),
    (
        lambda tf: str(tf.constant([True, False])),
        "tf.Tensor([ True False], shape=(2,), dtype=bool)",
    ),
    (
        lambda tf: str(tf.constant([[1, 2], [3, 4]])),
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)",
    ),
    (lambda tf: f"{tf.constant(1.5):.3f}", "1.500"),
    (lambda tf: f"{tf.constant([1.0, 2.0])}", "[1. 2.]"),
]


@pytest.mark.parametrize("make, text", REPRS)
def test_repr_and_str_are_tfs(make, text):
    assert make(tf) == text


# -- Python protocol -----------------------------------------------------------------------


def test_bool_float_int():
    assert bool(tf.constant(0.0)) is False and bool(tf.constant([2.0])) is True
    assert bool(tf.constant(np.zeros((0,), np.float32))) is False  # TF: empty is falsy
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(2.7)) == 2
    assert complex(tf.constant(1 + 2j, dtype=tf.complex64)) == 1 + 2j
    with pytest.raises(ValueError, match="The truth value of an array with more than one element"):
        bool(tf.constant([1.0, 2.0]))
    with pytest.raises(
        TypeError, match="^only 0-dimensional arrays can be converted to Python scalars$"
    ):
        float(tf.constant([2.5]))
    with pytest.raises(
        TypeError, match="^only 0-dimensional arrays can be converted to Python scalars$"
    ):
        int(tf.constant([3, 4]))


def test_index():
    assert [1, 2, 3][tf.constant(1)] == 2
    assert [1, 2, 3][tf.constant(2, dtype=tf.int16)] == 3
    with pytest.raises(
        TypeError, match="^only integer scalar arrays can be converted to a scalar index$"
    ):
        [1, 2][tf.constant([1])]
    # TF raises AttributeError here ('numpy.float32' object has no attribute '__index__');
    # tapejax raises the TypeError Python's index protocol expects.
    with pytest.raises(TypeError):
        [1, 2][tf.constant(1.0)]


def test_len_and_iter():
    assert len(tf.constant([1, 2, 3])) == 3
    assert len(tf.constant(np.zeros((0, 2), np.float32))) == 0
    items = list(tf.constant([[1, 2], [3, 4]]))
    assert len(items) == 2 and all(isinstance(i, tf.Tensor) for i in items)
    assert_tensor(items[1], [3, 4], "int32")
    with pytest.raises(TypeError, match="^Scalar tensor has no `len\\(\\)`$"):
        len(tf.constant(1))
    with pytest.raises(TypeError, match="^Cannot iterate over a scalar tensor.$"):
        iter(tf.constant(1))


def test_unhashable_and_ref():
    t = tf.constant(1)
    with pytest.raises(
        TypeError, match=r"^Tensor is unhashable. Instead, use tensor.ref\(\) as the key.$"
    ):
        hash(t)
    with pytest.raises(TypeError):
        _ = {t: 1}
    d = {t.ref(): "one"}
    assert d[t.ref()] == "one"
    assert t.ref() == t.ref() and t.ref().deref() is t
    assert t.ref() != tf.constant(1).ref()  # another tensor with the same value
    assert repr(t.ref()) == "<Reference wrapping <tf.Tensor: shape=(), dtype=int32, numpy=1>>"


def test_array_protocols():
    t = tf.constant([1.0, 2.0])
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert isinstance(t.__jax_array__(), jax.Array)
    s = jnp.sin(t)
    assert isinstance(s, jax.Array)
    np.testing.assert_allclose(s, np.sin([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_array_equal(jnp.add(t, 1), [2.0, 3.0])


def test_pytree_and_jit():
    t = tf.constant([1.0, 2.0])
    leaves = jax.tree_util.tree_leaves(t)
    assert len(leaves) == 1 and isinstance(leaves[0], jax.Array)
    out = jax.jit(lambda x: x * 2.0 + 1.0)(t)
    assert_tensor(out, [3.0, 5.0], "float32")
    g = jax.grad(lambda x: tf.reduce_sum(x * x)._value)(t)
    assert_tensor(g, [2.0, 4.0], "float32")


# -- operators -------------------------------------------------------------------------------

I = lambda tf: tf.constant([7, -7])  # noqa: E731
F = lambda tf: tf.constant([7.0, -7.5])  # noqa: E731

OPERATORS = [
    (lambda tf: F(tf) + 1, [8.0, -6.5], "float32"),
    (lambda tf: 1 + F(tf), [8.0, -6.5], "float32"),
    (lambda tf: I(tf) + True, [8, -6], "int32"),
    (lambda tf: tf.constant([1], tf.uint8) + 300, [45], "uint8"),
    (lambda tf: I(tf) + np.float32(1.5), [8, -6], "int32"),  # NumPy values are cast
    (lambda tf: np.float64(2) * F(tf), [14.0, -15.0], "float32"),
    (lambda tf: np.int64(2) * I(tf), [14, -14], "int32"),
    (lambda tf: np.array([2.0, 3.0]) * F(tf), [14.0, -22.5], "float32"),
    (lambda tf: F(tf) * np.array([2.0, 3.0], np.float32), [14.0, -22.5], "float32"),
    (lambda tf: np.float32(3) - F(tf), [-4.0, 10.5], "float32"),
    (lambda tf: 3 - I(tf), [-4, 10], "int32"),
    (lambda tf: F(tf) - 1, [6.0, -8.5], "float32"),
    (lambda tf: I(tf) // 2, [3, -4], "int32"),
    (lambda tf: 7 // tf.constant([2, -2]), [3, -4], "int32"),
    (lambda tf: F(tf) // 2, [3.0, -4.0], "float32"),
    (lambda tf: I(tf) % 3, [1, 2], "int32"),
    (lambda tf: I(tf) % -3, [-2, -1], "int32"),
    (lambda tf: F(tf) % 3, [1.0, 1.5], "float32"),
    (lambda tf: -7 % tf.constant([3]), [2], "int32"),
    (lambda tf: tf.constant([2, 3]) ** 2, [4, 9], "int32"),
    (lambda tf: 2 ** tf.constant([2, 3]), [4, 8], "int32"),
    (lambda tf: tf.constant([4.0, 9.0]) ** 0.5, [2.0, 3.0], "float32"),
    (lambda tf: 2.0 ** tf.constant([2.0, 3.0]), [4.0, 8.0], "float32"),
    (lambda tf: F(tf) / 2, [3.5, -3.75], "float32"),
    (lambda tf: 5.0 / tf.constant([2.0]), [2.5], "float32"),
    (lambda tf: tf.constant([1, 2], tf.int16) / 2, [0.5, 1.0], "float32"),
    (lambda tf: tf.constant([1.0, 2.0]) / 0, [np.inf, np.inf], "float32"),
    (lambda tf: tf.constant([[1.0, 2.0]]) @ tf.constant([[1.0], [2.0]]), [[5.0]], "float32"),
    (lambda tf: [[1.0, 2.0]] @ tf.constant([[1.0], [2.0]]), [[5.0]], "float32"),
    (lambda tf: [[1, 2]] @ tf.constant([[1.0], [2.0]]), [[5.0]], "float32"),
    (
        lambda tf: np.array([[1.0, 2.0]], np.float32) @ tf.constant([[1.0], [2.0]]),
        [[5.0]],
        "float32",
    ),
    (lambda tf: tf.constant([[1.0, 2.0]]) @ [[1.0], [2.0]], [[5.0]], "float32"),
    (lambda tf: -I(tf), [-7, 7], "int32"),
    (lambda tf: abs(I(tf)), [7, 7], "int32"),
    (lambda tf: abs(tf.constant([3 + 4j], tf.complex64)), [5.0], "float32"),
    (lambda tf: ~tf.constant([True, False]), [False, True], "bool"),
    (lambda tf: ~tf.constant([1, 2]), [-2, -3], "int32"),
    (lambda tf: ~tf.constant([0], tf.uint8), [255], "uint8"),
    (lambda tf: tf.constant([True]) & tf.constant([False]), [False], "bool"),
    (lambda tf: tf.constant([True]) | False, [True], "bool"),
    (lambda tf: True ^ tf.constant([True]), [False], "bool"),
    (lambda tf: tf.constant(5) & 3, 1, "int32"),
    (lambda tf: tf.constant([5]) | tf.constant([2]), [7], "int32"),
    (lambda tf: 5 ^ tf.constant([1]), [4], "int32"),
    (lambda tf: tf.constant([1, 2]) < 2, [True, False], "bool"),
    (lambda tf: 2 < tf.constant([1, 2]), [False, False], "bool"),
    (lambda tf: tf.constant([1.0, 2.0]) >= tf.constant([2.0, 2.0]), [False, True], "bool"),
    (lambda tf: tf.constant([1.0, 2.0]) <= [1, 3], [True, True], "bool"),
    (lambda tf: tf.constant([1.0]) < np.float64(2.0), [True], "bool"),
    (
        lambda tf: tf.constant([1, 2]) <= tf.constant([[1], [2]]),
        [[True, False], [True, True]],
        "bool",
    ),
    (lambda tf: tf.constant([1, 2]) == tf.constant([1, 3]), [True, False], "bool"),
    (lambda tf: tf.constant([1.0, 2.0]) == 1, [True, False], "bool"),
    (lambda tf: tf.constant([1, 2]) == [1, 2], [True, True], "bool"),
    (lambda tf: tf.constant([1.0]) == np.array([1.0, 2.0]), [True, False], "bool"),
    (lambda tf: tf.constant([1, 2]) != 1, [False, True], "bool"),
    # TF's == and != do not raise on shapes that do not broadcast: a scalar bool tensor.
    (lambda tf: tf.constant([1, 2]) == tf.constant([1, 2, 3]), False, "bool"),
    (lambda tf: tf.constant([1, 2]) != tf.constant([1, 2, 3]), True, "bool"),
]


@pytest.mark.parametrize("expr, value, dtype", OPERATORS)
def test_operators_match_tf(expr, value, dtype):
    assert_tensor(expr(tf), value, dtype)


def test_comparison_with_none():
    t = tf.constant([1, 2])
    assert (t == None) is False  # noqa: E711 - the operator under test
    assert (t != None) is True  # noqa: E711


def test_int_division_is_float64_under_x64(x64):
    assert_tensor(tf.constant([1, 2]) / tf.constant([2, 4]), [0.5, 0.5], "float64")
    assert_tensor(5 / tf.constant([2]), [2.5], "float64")
    assert_tensor(tf.constant([1, 2]) / np.int64(2), [0.5, 1.0], "float64")
    assert_tensor(tf.constant(1.5, tf.float64) / 2, 0.75, "float64")
    assert_tensor(tf.constant([1], tf.int64) + 1, [2], "int64")


def test_int_division_without_x64_is_float32(fresh_narrowing_warnings):
    with pytest.warns(UserWarning, match="float64.*jax_enable_x64"):
        assert_tensor(tf.constant([1, 2]) / tf.constant([2, 4]), [0.5, 0.5], "float32")


OPERATOR_ERRORS = [
    # No silent promotion between tensors of different dtypes.
    (
        lambda tf: tf.constant([1.0]) + tf.constant([1]),
        InvalidArgumentError,
        r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a float tensor but "
        r"is a int32 tensor \[Op:AddV2\]",
    ),
    (
        lambda tf: tf.constant([1]) * tf.constant([1.0]),
        InvalidArgumentError,
        r"cannot compute Mul as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    # ``t + 1.5`` is TF's InvalidArgumentError (a dtype *hint* that falls back), ``1.5 + t``
    # a TypeError (a forced conversion).
    (
        lambda tf: tf.constant([1, 2]) + 1.5,
        InvalidArgumentError,
        r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    (lambda tf: tf.constant([1, 2]) + [1.5, 2.0], InvalidArgumentError, r"but is a float tensor"),
    (lambda tf: tf.constant([1.0]) + 1j, InvalidArgumentError, r"but is a complex128 tensor"),
    (
        lambda tf: 1.5 + tf.constant([1, 2]),
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant([1, 2]) - 1.5,
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: 1j * tf.constant([1.0]),
        TypeError,
        r"^Cannot convert 1j to EagerTensor of dtype float$",
    ),
    (
        lambda tf: tf.constant([1, 2]) < 1.5,
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant([1, 2]) / 1.5,
        TypeError,
        r"^`x` and `y` must have the same dtype, got tf.int32 != tf.float32.$",
    ),
    (
        lambda tf: tf.constant([1.0]) / tf.constant([1]),
        TypeError,
        r"^`x` and `y` must have the same dtype, got tf.float32 != tf.int32.$",
    ),
    (
        lambda tf: tf.constant([True]) & 1,
        TypeError,
        r"^Cannot convert 1 to EagerTensor of dtype bool$",
    ),
    (
        lambda tf: tf.constant([1.0]) & tf.constant([1.0]),
        InvalidArgumentError,
        r"Value for attr 'T' of float is not in the list of allowed values: int8, int16, int32, "
        r"int64, uint8, uint16, uint32, uint64",
    ),
    (
        lambda tf: ~tf.constant([1.0]),
        InvalidArgumentError,
        r"Value for attr 'T' of float is not in the list",
    ),
    (
        lambda tf: tf.constant([True]) + True,
        InvalidArgumentError,
        r"Value for attr 'T' of bool is not in the list of allowed values",
    ),
    (
        lambda tf: tf.constant([1, 2]) + tf.constant([1, 2, 3]),
        InvalidArgumentError,
        r"Incompatible shapes: \[2\] vs. \[3\] \[Op:AddV2\]",
    ),
    (
        lambda tf: tf.constant([1, 2]) > tf.constant([1, 2, 3]),
        InvalidArgumentError,
        r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Greater\]",
    ),
    (
        lambda tf: tf.constant([1, 2]) == tf.constant([1.0, 3.0]),
        InvalidArgumentError,
        r"cannot compute Equal as input #1\(zero-based\) was expected to be a int32 tensor but is a float tensor",
    ),
    (
        lambda tf: tf.constant([1, 2]) == "a",
        TypeError,
        r"^Cannot convert 'a' to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant([1, 2]) == 1.5,
        TypeError,
        r"^Cannot convert 1.5 to EagerTensor of dtype int32$",
    ),
    (
        lambda tf: tf.constant([1, 2]) // 0,
        InvalidArgumentError,
        r"Integer division by zero \[Op:FloorDiv\]",
    ),
    (
        lambda tf: tf.constant([1, 2]) % tf.constant([0, 1]),
        InvalidArgumentError,
        r"Integer division by zero \[Op:FloorMod\]",
    ),
    (
        lambda tf: tf.constant([2, 3]) ** -1,
        InvalidArgumentError,
        r"Integers to negative integer powers are not allowed \[Op:Pow\]",
    ),
    (
        lambda tf: tf.constant([[1.0, 2.0]]) @ tf.constant([[1.0, 2.0]]),
        InvalidArgumentError,
        r"Matrix size-incompatible: In\[0\]: \[1,2\], In\[1\]: \[1,2\] \[Op:MatMul\]",
    ),
]


@pytest.mark.parametrize("expr, error, message", OPERATOR_ERRORS)
def test_operator_errors_match_tf(expr, error, message):
    with pytest.raises(error, match=message):
        expr(tf)


def test_float32_plus_float64_is_an_error_under_x64(x64):
    with pytest.raises(
        InvalidArgumentError,
        match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a float tensor "
        r"but is a double tensor \[Op:AddV2\]",
    ):
        tf.constant([1.0]) + tf.constant([1.0], dtype=tf.float64)


# -- indexing and slicing --------------------------------------------------------------------

M = lambda tf: tf.constant([[1, 2, 3], [4, 5, 6]])  # noqa: E731

INDEXING = [
    (lambda tf: M(tf)[1], [4, 5, 6]),
    (lambda tf: M(tf)[-1, -2], 5),
    (lambda tf: M(tf)[:, ::2], [[1, 3], [4, 6]]),
    (lambda tf: M(tf)[:, ::-1], [[3, 2, 1], [6, 5, 4]]),
    (lambda tf: M(tf)[::-1, 2:0:-1], [[6, 5], [3, 2]]),
    (lambda tf: M(tf)[..., 1], [2, 5]),
    (lambda tf: M(tf)[tf.newaxis, 1], [[4, 5, 6]]),
    (lambda tf: M(tf)[None], [[[1, 2, 3], [4, 5, 6]]]),
    (lambda tf: M(tf)[:, None, 1:], [[[2, 3]], [[5, 6]]]),
    (lambda tf: M(tf)[tf.constant(1)], [4, 5, 6]),
    (lambda tf: M(tf)[tf.constant(1), tf.constant(-1)], 6),
    (lambda tf: M(tf)[tf.constant(1) :], [[4, 5, 6]]),
    (lambda tf: M(tf)[np.int64(1)], [4, 5, 6]),
    (lambda tf: M(tf)[np.array(1)], [4, 5, 6]),
    (lambda tf: M(tf)[[1, 2]], 6),  # a list index is read as a tuple, as TF does
    (lambda tf: M(tf)[[1]], [4, 5, 6]),
    (lambda tf: M(tf)[0:10], [[1, 2, 3], [4, 5, 6]]),
    (lambda tf: M(tf)[5:10], np.zeros((0, 3), np.int32)),
    (lambda tf: M(tf)[()], [[1, 2, 3], [4, 5, 6]]),
    (lambda tf: tf.constant(1)[...], 1),
    (lambda tf: tf.constant(1)[None], [1]),
    (lambda tf: tf.Variable([1, 2, 3])[1], 2),
    (lambda tf: M(tf)[1][tf.Variable(1)], 5),
]


@pytest.mark.parametrize("expr, value", INDEXING)
def test_indexing_matches_tf(expr, value):
    assert_tensor(expr(tf), value, "int32")


INDEXING_ERRORS = [
    (
        lambda tf: M(tf)[5],
        InvalidArgumentError,
        r"slice index 5 of dimension 0 out of bounds. \[Op:StridedSlice\]",
    ),
    (lambda tf: M(tf)[0, 3], InvalidArgumentError, r"slice index 3 of dimension 1 out of bounds."),
    (lambda tf: M(tf)[-3], InvalidArgumentError, r"slice index -1 of dimension 0 out of bounds."),
    (
        lambda tf: M(tf)[tf.constant(5)],
        InvalidArgumentError,
        r"slice index 5 of dimension 0 out of bounds.",
    ),
    (
        lambda tf: M(tf)[0, 1, 2],
        InvalidArgumentError,
        r"Index out of range using input dim 2; input has only 2 dims \[Op:StridedSlice\]",
    ),
    (
        lambda tf: M(tf)[..., ...],
        InvalidArgumentError,
        r"Multiple ellipses in slice spec not allowed",
    ),
    (lambda tf: M(tf)[::0], InvalidArgumentError, r"strides\[0\] must be non-zero"),
    (
        lambda tf: tf.constant(1)[0],
        InvalidArgumentError,
        r"Attempting to slice scalar input. \[Op:StridedSlice\]",
    ),
    (lambda tf: tf.constant(1)[:], InvalidArgumentError, r"Attempting to slice scalar input."),
    (lambda tf: M(tf)[True], ValueError, r"^mask cannot be scalar.$"),
    (
        lambda tf: M(tf)[1.0],
        TypeError,
        r"^Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar "
        r"tf.int32/tf.int64 tensors are valid indices, got 1.0$",
    ),
    (lambda tf: M(tf)["a"], TypeError, r"are valid indices, got 'a'$"),
    (lambda tf: M(tf)[1.5:], TypeError, r"are valid indices, got 1.5$"),
    (
        lambda tf: M(tf)[tf.constant([0, 1])],
        TypeError,
        r"are valid indices, got <tf.Tensor: shape=\(2,\)",
    ),
    (
        lambda tf: M(tf)[tf.constant(1.0)],
        TypeError,
        r"are valid indices, got <tf.Tensor: shape=\(\), dtype=float32",
    ),
    (lambda tf: M(tf)[np.array([0, 1])], TypeError, r"are valid indices, got array\(\[0, 1\]\)$"),
]


@pytest.mark.parametrize("expr, error, message", INDEXING_ERRORS)
def test_indexing_errors_match_tf(expr, error, message):
    with pytest.raises(error, match=message):
        expr(tf)
