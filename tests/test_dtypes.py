"""Unit tests for ``tapejax._src.dtypes``: DType objects, ``as_dtype`` and their TF texts.

Every expected value was taken from TensorFlow 2.21 (``tf.as_dtype(...)``, ``tf.int8.max``
...); the tests hold them literally so that they run without TensorFlow.
"""

import pickle

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import tapejax as tf

# name, is_floating, is_integer, is_complex, is_bool, is_unsigned, is_numeric, size,
# real_dtype, as_datatype_enum -- as TF reports them.
PROPERTIES = [
    ("float16", True, False, False, False, False, True, 2, "float16", 19),
    ("bfloat16", True, False, False, False, False, True, 2, "bfloat16", 14),
    ("float32", True, False, False, False, False, True, 4, "float32", 1),
    ("float64", True, False, False, False, False, True, 8, "float64", 2),
    ("complex64", False, False, True, False, False, True, 8, "float32", 8),
    ("complex128", False, False, True, False, False, True, 16, "float64", 18),
    ("int8", False, True, False, False, False, True, 1, "int8", 6),
    ("int16", False, True, False, False, False, True, 2, "int16", 5),
    ("int32", False, True, False, False, False, True, 4, "int32", 3),
    ("int64", False, True, False, False, False, True, 8, "int64", 9),
    ("uint8", False, True, False, False, True, True, 1, "uint8", 4),
    ("uint16", False, True, False, False, True, True, 2, "uint16", 17),
    ("uint32", False, True, False, False, True, True, 4, "uint32", 22),
    ("uint64", False, True, False, False, True, True, 8, "uint64", 23),
    ("bool", False, False, False, True, False, False, 1, "bool", 10),
]


@pytest.mark.parametrize("row", PROPERTIES, ids=[r[0] for r in PROPERTIES])
def test_properties_match_tf(row):
    name, floating, integer, complex_, bool_, unsigned, numeric, size, real, enum = row
    d = tf.as_dtype(name)
    got = (
        d.name,
        d.is_floating,
        d.is_integer,
        d.is_complex,
        d.is_bool,
        d.is_unsigned,
        d.is_numeric,
        d.size,
        d.real_dtype.name,
        d.as_datatype_enum,
    )
    assert got == row, f"tf.{name}: got {got}, TF has {row}"


def test_as_numpy_dtype():
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.bool.as_numpy_dtype is np.bool_
    assert tf.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert tf.string.as_numpy_dtype is object
    assert tf.float32.base_dtype is tf.float32


@pytest.mark.parametrize(
    "other",
    ["float32", "float", np.float32, np.dtype("float32"), jnp.float32, tf.float32, 1],
    ids=["name", "c_name", "np_type", "np_dtype", "jnp_type", "dtype", "enum"],
)
def test_equality_with_names_numpy_types_and_enums(other):
    assert tf.float32 == other
    assert not tf.float32 != other


@pytest.mark.parametrize("other", [tf.float64, "float64", np.int32, None, "foo", [1], 3])
def test_inequality(other):
    assert tf.float32 != other
    assert not tf.float32 == other


def test_aliases_and_hashing():
    assert tf.half is tf.float16 and tf.double is tf.float64
    assert tf.as_dtype("half") is tf.float16 and tf.as_dtype("double") is tf.float64
    assert {tf.float32: 1}[tf.as_dtype(np.float32)] == 1
    assert hash(tf.float32) == hash(tf.as_dtype("float32"))
    assert pickle.loads(pickle.dumps(tf.float32)) is tf.float32


@pytest.mark.parametrize(
    "value, expected",
    [
        ("float32", "float32"),
        ("float", "float32"),
        ("half", "float16"),
        ("double", "float64"),
        ("bool", "bool"),
        (np.int64, "int64"),
        (np.dtype("float16"), "float16"),
        (np.object_, "string"),
        (jnp.bfloat16, "bfloat16"),
        (float, "float32"),  # TF: Python float is float32
        (bool, "bool"),
        (2, "float64"),  # TF's DataType enum
        (3, "int32"),
        (np.zeros(2, np.uint8), "uint8"),  # anything with a .dtype
    ],
)
def test_as_dtype(value, expected):
    assert tf.as_dtype(value).name == expected


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, "None"),
        (int, "<class 'int'>"),  # not a TF dtype, unlike float
        (complex, "<class 'complex'>"),
        (str, "<class 'str'>"),
        ("foo", "'foo'"),
        ([1], "[1]"),
        (1000, "1000"),
    ],
)
def test_as_dtype_errors_have_tf_text(value, shown):
    with pytest.raises(TypeError) as e:
        tf.as_dtype(value)
    assert (
        str(e.value) == f"Cannot convert the argument `type_value`: {shown} to a TensorFlow DType."
    )


def test_str_and_repr():
    assert str(tf.float32) == "<dtype: 'float32'>"
    assert repr(tf.float32) == "tf.float32"
    assert repr(tf.bool) == "tf.bool" and tf.bool.name == "bool"


@pytest.mark.parametrize(
    "dtype, lo, hi, kind",
    [
        ("float32", np.float32(-3.4028235e38), np.float32(3.4028235e38), np.float32),
        ("float64", -1.7976931348623157e308, 1.7976931348623157e308, np.float64),
        ("float16", np.float16(-65504), np.float16(65504), np.float16),
        ("bfloat16", -3.38953e38, 3.38953e38, ml_dtypes.bfloat16),
        ("int8", -128, 127, int),
        ("uint16", 0, 65535, int),
        ("int64", -(2**63), 2**63 - 1, int),
        ("uint64", 0, 2**64 - 1, int),
    ],
)
def test_min_and_max(dtype, lo, hi, kind):
    d = tf.as_dtype(dtype)
    assert type(d.min) is kind and type(d.max) is kind
    np.testing.assert_allclose(float(d.min), float(lo), rtol=1e-5)
    np.testing.assert_allclose(float(d.max), float(hi), rtol=1e-5)


@pytest.mark.parametrize("name", ["bool", "complex64", "complex128", "string"])
def test_min_and_max_of_unordered_types_raise_tf_text(name):
    d = tf.as_dtype(name)
    with pytest.raises(
        TypeError,
        match=f"^Cannot find minimum value of <dtype: '{name}'> with type <dtype: '{name}'>.$",
    ):
        _ = d.min
    with pytest.raises(
        TypeError, match=f"^Cannot find maximum value of <dtype: '{name}'> with type"
    ):
        _ = d.max


def test_is_compatible_with():
    assert tf.int32.is_compatible_with(tf.int32)
    assert tf.int32.is_compatible_with("int32")
    assert not tf.int32.is_compatible_with(np.int64)


def test_bfloat16_numpy_arrays_convert():
    """ml_dtypes' bfloat16 has NumPy kind "V", like raw void data: it is a number."""
    t = tf.constant(np.array([1.5, -2.0], ml_dtypes.bfloat16))
    assert t.dtype == tf.bfloat16 and t.numpy().tolist() == [1.5, -2.0]
    with pytest.raises(NotImplementedError, match="no string tensors"):
        tf.constant(np.zeros(2, dtype="V4"))


# -- tf.dtypes as a namespace, against live TensorFlow --------------------------------------


def _tf():
    return pytest.importorskip("tensorflow")


def _all_dtypes(ns):
    return [n for n in ns.__all__ if isinstance(getattr(ns, n), tf.DType)]


def test_dtypes_namespace_has_tfs_names():
    tft = _tf()
    for ours, theirs in (
        (tf.dtypes, tft.dtypes),
        (tf.dtypes.experimental, tft.dtypes.experimental),
    ):
        assert sorted(ours.__all__) == sorted(n for n in dir(theirs) if not n.startswith("_"))
    assert tf.dtypes.cast is tf.cast and tf.dtypes.complex is tf.complex
    assert tf.dtypes.saturate_cast is tf.saturate_cast and tf.dtypes.DType is tf.DType
    assert tf.qint8 is tf.dtypes.qint8 and tf.variant is tf.dtypes.variant


def _limit(d, attr):
    try:
        return float(getattr(d, attr))
    except TypeError as e:
        return ("TypeError", str(e))


@pytest.mark.parametrize("experimental", [False, True], ids=["dtypes", "experimental"])
def test_every_dtype_has_tfs_properties(experimental):
    tft = _tf()
    ns, tns = (
        (tf.dtypes.experimental, tft.dtypes.experimental)
        if experimental
        else (tf.dtypes, tft.dtypes)
    )
    props = ("name", "is_floating", "is_integer", "is_complex", "is_bool", "is_unsigned")
    props += ("is_numeric", "is_quantized", "size", "as_datatype_enum", "is_numpy_compatible")
    for n in _all_dtypes(ns):
        d, t = getattr(ns, n), getattr(tns, n)
        assert [getattr(d, p) for p in props] == [getattr(t, p) for p in props], n
        assert (repr(d), str(d)) == (repr(t), str(t))
        assert tf.as_dtype(t.name) is d and tf.as_dtype(t.as_datatype_enum) is d
        assert pickle.loads(pickle.dumps(d)) is d
        if t.is_numpy_compatible and t.name != "string":
            assert d.as_numpy_dtype == t.as_numpy_dtype and tf.as_dtype(t.as_numpy_dtype) is d
        if d.is_floating or d.is_integer:
            assert _limit(d, "min") == _limit(t, "min") and _limit(d, "max") == _limit(t, "max")
    assert tf.dtypes.QUANTIZED_DTYPES == {
        tf.as_dtype(t.name) for t in tft.dtypes.QUANTIZED_DTYPES if not t.name.endswith("_ref")
    }


def test_quantized_limits_raise_tfs_text():
    with pytest.raises(TypeError) as ours:
        _ = tf.qint8.min
    with pytest.raises(TypeError) as theirs:
        _ = _tf().qint8.min
    assert str(ours.value) == str(theirs.value)


def test_narrow_experimental_types_hold_values_as_tf():
    tft, ex = _tf(), tf.dtypes.experimental
    for name, value in (("float8_e4m3fn", [1.0, -2.5, 300.0]), ("float8_e5m2", [0.1, 3.0])):
        ours = tf.constant(value, dtype=getattr(ex, name))
        theirs = tft.constant(value, dtype=getattr(tft.dtypes.experimental, name))
        assert ours.dtype == getattr(ex, name)
        np.testing.assert_array_equal(
            ours.numpy().astype(np.float32), theirs.numpy().astype(np.float32)
        )
        cast = tf.cast(tf.constant(value), getattr(ex, name))
        np.testing.assert_array_equal(
            cast.numpy().astype(np.float32), ours.numpy().astype(np.float32)
        )
    assert tf.constant([-8, 7], dtype=ex.int4).numpy().tolist() == [-8, 7]
    for fw, dt in ((tf, ex.int4), (tft, tft.dtypes.experimental.int4)):
        with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int4"):
            fw.constant(1.5, dtype=dt)


@pytest.mark.parametrize("name", ["qint8", "quint16", "resource", "variant"])
def test_types_no_tensor_holds_raise(name):
    d = getattr(tf.dtypes, name)
    for make in (
        lambda: tf.constant([1, 2], dtype=d),
        lambda: tf.cast(tf.constant([1.0]), d),
        lambda: tf.zeros([2], d),
    ):
        with pytest.raises(NotImplementedError, match=f"{name[:4]}.*no JAX array type"):
            make()


def test_dtypes_casts_inside_a_function():
    @tf.function
    def f(x):
        return tf.dtypes.cast(x, tf.dtypes.int32), tf.dtypes.saturate_cast(
            x * 100.0, tf.dtypes.int8
        )

    a, b = f(tf.constant([1.7, -2.2]))
    assert a.numpy().tolist() == [1, -2] and b.numpy().tolist() == [127, -128]


# The dtypes that test_every_dtype_has_tfs_properties checks in a loop (tools/tf_coverage.py).
OTHERWISE_TESTED = {f"dtypes.{n}" for n in _all_dtypes(tf.dtypes)}


def test_dtypes_64_bit_types_with_x64(x64):
    x = tf.dtypes.cast(tf.constant([1.5, -2.5]), tf.dtypes.float64)
    assert x.dtype == tf.dtypes.float64 and x.numpy().dtype == np.float64
    assert tf.dtypes.saturate_cast(x * 1e10, tf.dtypes.int64).numpy().tolist() == [
        15000000000,
        -25000000000,
    ]
    z = tf.dtypes.complex(x, x)
    assert z.dtype == tf.dtypes.complex128
