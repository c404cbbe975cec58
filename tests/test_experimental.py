"""``tapejax.experimental`` side by side with live TensorFlow: DLPack exchange (with NumPy
and with TF itself), ``Optional`` and ``OptionalSpec``, the async and executor scopes and
the narrow dtypes: values, specs, reprs, error types and texts."""

from __future__ import annotations

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import raised  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}


def same_error(fn, tf_prefix_only=False):
    """``fn(tf)`` raises the same exception type with the same text in both frameworks
    (TF's text may carry a ``{{function_node ...}} `` prefix naming its device)."""
    want, got = raised(fn, tensorflow), raised(fn, tapejax)
    assert want is not None, "TF raises nothing: fix the test"
    assert got is not None, f"tapejax raised nothing; TF raises {want!r}"
    assert type(got).__name__ == type(want).__name__
    if tf_prefix_only:
        assert str(want).startswith(str(got))
    else:
        assert str(want).split("}} ", 1)[-1] == str(got)


# -- the namespace ------------------------------------------------------------------------

NOT_PROVIDED = {
    "BatchableExtensionType",
    "DynamicRaggedShape",
    "ExtensionType",
    "ExtensionTypeBatchEncoder",
    "ExtensionTypeSpec",
    "RowPartition",
    "StructuredTensor",
    "dispatch_for_api",
    "dispatch_for_binary_elementwise_apis",
    "dispatch_for_binary_elementwise_assert_apis",
    "dispatch_for_unary_elementwise_apis",
    "dtensor",
    "enable_strict_mode",
    "extension_type",
    "numpy",
    "register_filesystem_plugin",
    "tensorrt",
    "unregister_dispatch_for",
}


def test_namespace_is_tfs_less_the_names_not_provided():
    tf_names = {n for n in dir(tensorflow.experimental) if not n.startswith("_")}
    assert set(tapejax.experimental.__all__) == tf_names - NOT_PROVIDED
    assert set(tapejax.experimental.dlpack.__all__) == {"to_dlpack", "from_dlpack"}


def test_not_provided_names_are_listed_in_compat_doc():
    import pathlib

    doc = (pathlib.Path(__file__).parent.parent / "docs" / "compat.md").read_text()
    section = doc.split("## `tapejax.experimental`", 1)[1].split("\n## ", 1)[0]
    for name in NOT_PROVIDED:
        assert f"`{name}`" in section, name


# -- DLPack ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float16", "uint8"])
def test_dlpack_round_trip(dtype):
    value = np.arange(6).reshape(2, 3).astype(dtype)
    t = tapejax.constant(value)
    back = tapejax.experimental.dlpack.from_dlpack(tapejax.experimental.dlpack.to_dlpack(t))
    assert type(back) is tapejax.Tensor
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), value)


def test_dlpack_is_zero_copy():
    t = tapejax.constant(np.arange(16, dtype=np.float32))
    back = tapejax.experimental.dlpack.from_dlpack(tapejax.experimental.dlpack.to_dlpack(t))
    assert back._value.unsafe_buffer_pointer() == t._value.unsafe_buffer_pointer()


def test_dlpack_from_tensorflow_and_back():
    value = np.array([[1.5, -2.0], [3.0, 4.25]], np.float32)
    theirs = tensorflow.constant(value)
    t = tapejax.experimental.dlpack.from_dlpack(tensorflow.experimental.dlpack.to_dlpack(theirs))
    np.testing.assert_array_equal(t.numpy(), value)
    # TF's buffers are aligned as XLA needs: shared both ways, not copied.
    assert t._value.unsafe_buffer_pointer() == np.from_dlpack(theirs).ctypes.data
    doubled = t * 2.0
    tf_back = tensorflow.experimental.dlpack.from_dlpack(
        tapejax.experimental.dlpack.to_dlpack(doubled)
    )
    np.testing.assert_array_equal(tf_back.numpy(), value * 2.0)
    assert np.from_dlpack(tf_back).ctypes.data == doubled._value.unsafe_buffer_pointer()


def test_dlpack_from_a_misaligned_numpy_buffer_is_copied():
    buffer = np.zeros(4 * 8 + 1, np.uint8)
    value = buffer[1:].view(np.float32)  # 1 byte off XLA's 64-byte alignment
    value[:] = np.arange(8)
    t = tapejax.experimental.dlpack.from_dlpack(value.__dlpack__())
    np.testing.assert_array_equal(t.numpy(), np.arange(8))
    assert t._value.unsafe_buffer_pointer() != value.ctypes.data


def test_dlpack_with_numpy():
    t = tapejax.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.from_dlpack(t), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(
        np.from_dlpack(tensorflow.constant([[1, 2], [3, 4]])), np.from_dlpack(t)
    )


def test_dlpack_capsule_is_consumed_once():
    def fn(tf):
        capsule = tf.experimental.dlpack.to_dlpack(tf.constant([1.0, 2.0]))
        tf.experimental.dlpack.from_dlpack(capsule)
        tf.experimental.dlpack.from_dlpack(capsule)

    same_error(fn)


@pytest.mark.parametrize(
    "value",
    [3, np.ones(2, np.float32), [1.0]],
    ids=["int", "ndarray", "list"],
)
def test_to_dlpack_of_a_non_tensor(value):
    same_error(lambda tf: tf.experimental.dlpack.to_dlpack(value))


def test_to_dlpack_of_a_variable():
    same_error(lambda tf: tf.experimental.dlpack.to_dlpack(tf.Variable(1.0)))


@pytest.mark.parametrize("value", [3, "capsule", None], ids=["int", "str", "None"])
def test_from_dlpack_of_a_non_capsule(value):
    # TF's text ends with the address of a capsule it made: compared up to it.
    same_error(lambda tf: tf.experimental.dlpack.from_dlpack(value), tf_prefix_only=True)


# -- Optional and OptionalSpec -----------------------------------------------------------------


def _nested(tf):
    return {"a": tf.constant(1.5), "b": (tf.constant([1, 2]), [[3.0], [4.0]])}


def test_optional_from_value_nested():
    mine = tapejax.experimental.Optional.from_value(_nested(tapejax))
    theirs = tensorflow.experimental.Optional.from_value(_nested(tensorflow))
    assert repr(mine.element_spec) == repr(theirs.element_spec)
    assert repr(tapejax.type_spec_from_value(mine)) == repr(tensorflow.type_spec_from_value(theirs))
    assert mine.has_value().numpy() == theirs.has_value().numpy() == True  # noqa: E712
    got, want = mine.get_value(), theirs.get_value()
    assert sorted(got) == sorted(want) and isinstance(got["b"], tuple)
    for g, w in zip(tapejax.nest.flatten(got), tensorflow.nest.flatten(want), strict=True):
        assert g.dtype.name == w.dtype.name
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("value", [3, [1, 2], (1.0, 2)], ids=["int", "list", "tuple"])
def test_optional_from_python_values(value):
    mine = tapejax.experimental.Optional.from_value(value)
    theirs = tensorflow.experimental.Optional.from_value(value)
    assert repr(mine.element_spec) == repr(theirs.element_spec)


def test_optional_empty():
    def make(tf):
        return tf.experimental.Optional.empty(tf.TensorSpec([None, 2], tf.float32))

    mine, theirs = make(tapejax), make(tensorflow)
    assert repr(mine.element_spec) == repr(theirs.element_spec)
    assert repr(mine._type_spec) == repr(theirs._type_spec)
    assert bool(mine.has_value()) is bool(theirs.has_value()) is False
    assert mine.has_value().dtype == tapejax.bool


def test_optional_get_value_of_empty():
    same_error(lambda tf: tf.experimental.Optional.empty(tf.TensorSpec([], tf.float32)).get_value())


def test_optional_from_value_with_no_components():
    same_error(lambda tf: tf.experimental.Optional.from_value(None))


def test_optional_is_abstract():
    same_error(lambda tf: tf.experimental.Optional())


def test_optional_isinstance():
    o = tapejax.experimental.Optional.from_value(1.0)
    assert isinstance(o, tapejax.experimental.Optional)
    assert tapejax.OptionalSpec.from_value(o).value_type is type(o)


def test_optional_spec_repr_equality_hash():
    def spec(tf, shape=(2,)):
        return tf.OptionalSpec({"x": tf.TensorSpec(shape, tf.int32), "y": tf.TensorSpec([])})

    for fw in FRAMEWORKS.values():
        assert spec(fw) == spec(fw) and hash(spec(fw)) == hash(spec(fw))
        assert spec(fw) != spec(fw, (3,))
        assert spec(fw) != fw.TensorSpec([2], fw.int32)
    assert repr(spec(tapejax)) == repr(spec(tensorflow))
    assert repr(tapejax.OptionalSpec(tapejax.TensorSpec([2], tapejax.int32))) == (
        "OptionalSpec(TensorSpec(shape=(2,), dtype=tf.int32, name=None),)"
    )


def test_optional_spec_from_value():
    for fw in FRAMEWORKS.values():
        o = fw.experimental.Optional.from_value((fw.constant(1.0), fw.constant([1])))
        assert fw.OptionalSpec.from_value(o) == o._type_spec
    same_error(lambda tf: tf.OptionalSpec.from_value(3))


@pytest.mark.parametrize(
    "a, b",
    [([], []), ([], [None]), ([None], [3]), ([3], [None]), ([2], [3])],
    ids=["same", "rank", "unknown_dim", "known_dim", "other_dim"],
)
def test_optional_spec_is_compatible_with(a, b):
    results = [
        tf.OptionalSpec(tf.TensorSpec(a)).is_compatible_with(tf.OptionalSpec(tf.TensorSpec(b)))
        for tf in (tapejax, tensorflow)
    ]
    assert results[0] == results[1]


def test_optional_spec_is_compatible_with_an_optional():
    for tf in FRAMEWORKS.values():
        spec = tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
        assert spec.is_compatible_with(tf.experimental.Optional.from_value([1.0, 2.0]))
        assert not spec.is_compatible_with(tf.experimental.Optional.from_value(1.0))


def test_optional_through_function():
    traces = []

    @tapejax.function
    def f(o):
        traces.append(1)
        return o.get_value()["x"] + 1.0, o

    for v in (1.0, 2.0, 3.0):
        out, o = f(tapejax.experimental.Optional.from_value({"x": tapejax.constant(v)}))
        assert out.numpy() == v + 1.0
        assert isinstance(o, tapejax.experimental.Optional)
        assert o.get_value()["x"].numpy() == v
    assert len(traces) == 2  # the eager first call, then one trace for the later values


def test_optional_made_inside_function():
    @tapejax.function
    def f(x):
        return tapejax.experimental.Optional.from_value(x * 2.0)

    o = f(tapejax.constant([1.0, 2.0]))
    np.testing.assert_array_equal(o.get_value().numpy(), [2.0, 4.0])


def test_empty_optional_through_function():
    @tapejax.function
    def f(o):
        return o.has_value()

    empty = tapejax.experimental.Optional.empty(tapejax.TensorSpec([], tapejax.float32))
    assert not bool(f(empty))
    assert bool(f(tapejax.experimental.Optional.from_value(1.0)))


# -- async and executor scopes -------------------------------------------------------------


def test_async_scope_runs_ops_and_keeps_sync_mode():
    for tf in FRAMEWORKS.values():
        tf.constant(0)  # TF's context must exist before its async_scope syncs it
        with tf.experimental.async_scope():
            x = tf.constant([1.0, 2.0]) * 3.0
            assert tf.config.experimental.get_synchronous_execution() is True
        np.testing.assert_array_equal(x.numpy(), [3.0, 6.0])
        assert tf.experimental.async_clear_error() is None


def test_async_scope_raises_errors_of_its_ops():
    def fn(tf):
        with tf.experimental.async_scope():
            tf.constant([1, 2]) + tf.constant([1.0, 2.0])

    want, got = raised(fn, tensorflow), raised(fn, tapejax)
    assert type(got).__name__ == type(want).__name__ == "InvalidArgumentError"


def test_async_scope_lets_other_exceptions_through():
    for tf in FRAMEWORKS.values():
        with pytest.raises(KeyError, match="k"):
            with tf.experimental.async_scope():
                raise KeyError("k")


def test_async_scope_waits_for_effects_only_at_a_normal_exit(monkeypatch):
    # TF syncs its executors only when the block did not raise; tapejax's wait is JAX's.
    import jax

    waits = []
    monkeypatch.setattr(jax, "effects_barrier", lambda: waits.append(1))
    with tapejax.experimental.async_scope():
        assert not waits
    assert waits == [1]
    with pytest.raises(KeyError):
        with tapejax.experimental.async_scope():
            raise KeyError("k")
    assert waits == [1]


def test_function_executor_type_is_accepted():
    for tf in FRAMEWORKS.values():
        with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR") as r:
            assert r is None
            assert tf.function(lambda x: x + 1)(tf.constant(1)).numpy() == 2


# -- narrow dtypes ---------------------------------------------------------------------------

NARROW = [
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e4m3b11fnuz",
    "float4_e2m1fn",
    "int4",
    "uint4",
    "int2",
    "uint2",
]


@pytest.mark.parametrize("name", NARROW)
def test_narrow_dtype(name):
    mine, theirs = getattr(tapejax.experimental, name), getattr(tensorflow.experimental, name)
    assert mine is getattr(tapejax.dtypes.experimental, name)
    assert (repr(mine), mine.name, mine.as_datatype_enum) == (
        repr(theirs),
        theirs.name,
        theirs.as_datatype_enum,
    )
    assert (mine.is_floating, mine.is_integer, mine.is_unsigned, mine.size) == (
        theirs.is_floating,
        theirs.is_integer,
        theirs.is_unsigned,
        theirs.size,
    )


def test_narrow_dtypes_by_their_names():
    named = (
        tapejax.experimental.float8_e4m3fn,
        tapejax.experimental.float8_e5m2,
        tapejax.experimental.float8_e4m3fnuz,
        tapejax.experimental.float8_e5m2fnuz,
        tapejax.experimental.float8_e4m3b11fnuz,
        tapejax.experimental.float4_e2m1fn,
        tapejax.experimental.int4,
        tapejax.experimental.uint4,
        tapejax.experimental.int2,
        tapejax.experimental.uint2,
    )
    assert [d.name for d in named] == NARROW
    assert all(d is tapejax.as_dtype(d.name) for d in named)


# TF 2.21's Cast kernel has these narrow types only; tapejax's cast (XLA's) has them all.
TF_CASTS = {"float8_e4m3fn", "float8_e5m2", "int4", "uint4"}


def _narrow_input(name):
    if name.startswith("float"):
        return np.array([0.0, 0.3, -1.5, 2.0, 3.7, 6.0], np.float32)
    if name.startswith("u"):
        return np.array([0, 1, 2, 3], np.int32)
    return np.array([-2, -1, 0, 1], np.int32)


@pytest.mark.parametrize("name", NARROW)
def test_narrow_dtype_cast_round_trip(name):
    value = _narrow_input(name)
    wide = "float32" if name.startswith("float") else "int32"
    mine = tapejax.cast(tapejax.constant(value), getattr(tapejax.experimental, name))
    assert mine.dtype.name == name
    back = tapejax.cast(mine, wide)
    if name in TF_CASTS:
        theirs = tensorflow.cast(tensorflow.constant(value), getattr(tensorflow.experimental, name))
        their_back = tensorflow.cast(theirs, wide).numpy()
    else:
        # TF cannot cast to these; a TF tensor of the type is made from ml_dtypes' rounding.
        with pytest.raises(tensorflow.errors.UnimplementedError, match="is not supported"):
            tensorflow.cast(tensorflow.constant(value), getattr(tensorflow.experimental, name))
        theirs = tensorflow.constant(value.astype(mine.dtype.as_numpy_dtype))
        their_back = theirs.numpy().astype(wide)
    assert theirs.dtype.name == name
    np.testing.assert_array_equal(
        mine.numpy().astype(np.float32), theirs.numpy().astype(np.float32)
    )
    np.testing.assert_array_equal(back.numpy(), their_back)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "int4"])
def test_narrow_dtype_constant(name):
    value = np.array([1.0, 2.0], np.float32)
    t = tapejax.constant(value, dtype=getattr(tapejax.experimental, name))
    want = tensorflow.constant(value, dtype=getattr(tensorflow.experimental, name))
    assert t.dtype.name == want.dtype.name == name
    np.testing.assert_array_equal(t.numpy(), want.numpy())
