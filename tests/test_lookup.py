"""tapejax.lookup against live TensorFlow: static tables, vocabulary tables with hash
buckets, mutable tables, their errors, and lookups inside tapejax.function."""

import re

import numpy as np
import pytest
import tensorflow as tf_real

import tapejax as tf

pytestmark = pytest.mark.usefixtures("x64")

KEY_DTYPES = ["int32", "int64"]
VALUE_DTYPES = ["int32", "int64", "float32", "float64"]


def _pair(dtype_name):
    return getattr(tf, dtype_name), getattr(tf_real, dtype_name)


def _both(fn):
    """``fn(module)`` for tapejax and TF; returns (ours, theirs) as NumPy."""
    return fn(tf), fn(tf_real)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        # TF numbers its tables' shared names; tapejax's tables have none.
        return type(e).__name__, re.sub(r'shared_name="\d+"', 'shared_name="0"', str(e))
    raise AssertionError("no error")


@pytest.mark.parametrize("key_dtype", KEY_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 2)])
def test_static_hash_table_lookup(key_dtype, value_dtype, shape):
    rng = np.random.default_rng(len(shape) * 10 + VALUE_DTYPES.index(value_dtype))
    keys = rng.permutation(40)[:15] - 20
    values = rng.integers(-100, 100, size=15)
    query = rng.integers(-25, 25, size=shape)

    def run(m):
        kd, vd = getattr(m, key_dtype), getattr(m, value_dtype)
        init = m.lookup.KeyValueTensorInitializer(m.constant(keys, kd), m.constant(values, vd))
        table = m.lookup.StaticHashTable(init, m.constant(-7, vd))
        q = m.constant(query, kd)
        out = table.lookup(q)
        return out.numpy(), table[q].numpy(), table.size().numpy(), out.dtype.name

    if (
        value_dtype
        not in {"int32": ("int32", "float32", "float64"), "int64": VALUE_DTYPES}[key_dtype]
    ):
        assert _error(lambda: run(tf)) == _error(lambda: run(tf_real))
        return
    ours, theirs = _both(run)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
    assert np.isin(query, keys).any() or query.size < 5  # both branches exercised


def test_static_hash_table_properties_and_export():
    keys = np.array([16, 3, 11, 0, 7, 19, 2], np.int64)
    values = np.arange(7, dtype=np.float32) * 1.5

    def run(m):
        init = m.lookup.KeyValueTensorInitializer(keys, values)
        return m.lookup.StaticHashTable(init, -1.0, name="t")

    ours, theirs = _both(run)
    assert (ours.key_dtype.name, ours.value_dtype.name) == (
        theirs.key_dtype.name,
        theirs.value_dtype.name,
    )
    assert ours.default_value.numpy() == theirs.default_value.numpy()
    k, v = ours.export()
    tk, tv = theirs.export()
    # TF exports in its hash map's order; tapejax sorts by key: equal as sets of pairs.
    assert dict(zip(k.numpy().tolist(), v.numpy().tolist(), strict=True)) == dict(
        zip(tk.numpy().tolist(), tv.numpy().tolist(), strict=True)
    )
    np.testing.assert_array_equal(k.numpy(), np.sort(keys))
    assert not hasattr(ours, "resource_handle")


def test_static_hash_table_duplicate_keys():
    def dup(m, values):
        return lambda: m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer([1, 4, 1], values), 0
        )

    assert _error(dup(tf, [2, 5, 3])) == _error(dup(tf_real, [2, 5, 3]))
    # The same value twice is accepted by TF.
    ours, theirs = _both(lambda m: dup(m, [2, 5, 2])().lookup(m.constant([1, 4, 0])).numpy())
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "case",
    [
        lambda m: m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer([1, 2], [1, 2]), 0
        ).lookup(m.constant([1], m.int64)),
        lambda m: m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer(m.constant([1, 2], m.int64), [1, 2]), 0
        ).lookup(m.constant([1], m.int32)),
        lambda m: m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer([1, 2], [1, 2]), 0
        ).lookup(m.constant([1.0])),
        lambda m: m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer([1, 2], [1, 2]), 0.5),
        lambda m: m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer([1, 2], [2, 3, 4]), 0
        ),
    ],
    ids=["int64_in_int32", "int32_in_int64", "float_keys", "default_dtype", "value_shape"],
)
def test_static_hash_table_errors(case):
    assert _error(lambda: case(tf)) == _error(lambda: case(tf_real))


def test_python_list_keys():
    def table(m):
        return m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer([1, 2], [5, 6]), 0)

    # TF reads ``keys.dtype`` before converting; tapejax converts lists as TF's ops do.
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        table(tf_real).lookup([1, 3])
    np.testing.assert_array_equal(table(tf).lookup([1, 3]).numpy(), [5, 0])


def test_sparse_keys():
    def run(m):
        table = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer([1, 9], [5, 6]), -1)
        st = m.SparseTensor([[0, 0], [1, 2], [2, 1]], m.constant([1, 9, 4]), [3, 3])
        out = table.lookup(st)
        return out.indices.numpy(), out.values.numpy(), out.dense_shape.numpy()

    ours, theirs = _both(run)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("num_oov_buckets", [1, 3, 7, 100])
def test_static_vocabulary_table_buckets(num_oov_buckets):
    rng = np.random.default_rng(num_oov_buckets)
    vocab = np.array([7, 42, -3, 1000, 12345], np.int64)
    query = np.concatenate(
        [
            vocab,
            rng.integers(-(2**62), 2**62, size=201),
            rng.integers(-50, 50, size=100),
            [0, -1, 2**63 - 1, -(2**63)],
        ]
    ).reshape(-1, 10)

    def run(m):
        init = m.lookup.KeyValueTensorInitializer(
            m.constant(vocab, m.int64), m.constant([0, 1, 2, -1, 4], m.int64)
        )
        table = m.lookup.StaticVocabularyTable(init, num_oov_buckets)
        return table.lookup(m.constant(query, m.int64)).numpy(), table.size().numpy()

    ours, theirs = _both(run)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
    oov = ours[0][ours[0] >= len(vocab)]
    assert np.unique(oov).size >= min(num_oov_buckets, 50)  # the buckets are all reached


@pytest.mark.parametrize("key_dtype", ["int32", "int64", "int8", "uint16"])
def test_static_vocabulary_table_lookup_key_dtype_and_sparse(key_dtype):
    def run(m):
        init = m.lookup.KeyValueTensorInitializer(
            m.constant([7, 42], m.int64), m.constant([0, 1], m.int64)
        )
        table = m.lookup.StaticVocabularyTable(init, 5, lookup_key_dtype=getattr(m, key_dtype))
        dense = table[m.constant([[7, 5], [42, 100]], getattr(m, key_dtype))].numpy()
        st = m.SparseTensor([[0, 1], [2, 0]], m.constant([42, 3], getattr(m, key_dtype)), [3, 2])
        sparse = table.lookup(st)
        return dense, sparse.indices.numpy(), sparse.values.numpy(), table.key_dtype.name

    ours, theirs = _both(run)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "case",
    [
        lambda m: m.lookup.StaticVocabularyTable(
            m.lookup.KeyValueTensorInitializer(m.constant([7], m.int64), m.constant([0], m.int64)),
            0,
        ),
        lambda m: m.lookup.StaticVocabularyTable(
            m.lookup.KeyValueTensorInitializer(m.constant([7], m.int32), m.constant([0], m.int64)),
            2,
        ),
        lambda m: m.lookup.StaticVocabularyTable(
            m.lookup.KeyValueTensorInitializer(m.constant([7], m.int64), m.constant([0], m.int32)),
            2,
        ),
        lambda m: m.lookup.StaticVocabularyTable(
            m.lookup.KeyValueTensorInitializer(m.constant([7], m.int64), m.constant([0], m.int64)),
            2,
        ).lookup(m.constant([7], m.int32)),
        lambda m: m.lookup.StaticVocabularyTable(
            m.lookup.KeyValueTensorInitializer(m.constant([7], m.int64), m.constant([0], m.int64)),
            2,
            lookup_key_dtype=m.float32,
        ),
    ],
    ids=["zero_buckets", "int32_vocab", "int32_ids", "lookup_dtype", "float_lookup_dtype"],
)
def test_static_vocabulary_table_errors(case):
    assert _error(lambda: case(tf)) == _error(lambda: case(tf_real))


def test_static_vocabulary_table_without_initializer_is_not_provided():
    # TF's table without an initializer takes string keys only.
    real = tf_real.lookup.StaticVocabularyTable(None, 3, lookup_key_dtype=tf_real.int64)
    assert real.key_dtype == tf_real.string
    with pytest.raises(NotImplementedError, match="tapejax has no string tensors"):
        tf.lookup.StaticVocabularyTable(None, 3, lookup_key_dtype=tf.int64)


def test_lookup_inside_function_does_not_retrace():
    vocab = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(
            tf.constant([7, 42], tf.int64), tf.constant([0, 1], tf.int64)
        ),
        4,
    )
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([7, 42], tf.int64), [1.5, 2.5]), 0.0
    )
    real_vocab = tf_real.lookup.StaticVocabularyTable(
        tf_real.lookup.KeyValueTensorInitializer(
            tf_real.constant([7, 42], tf_real.int64), tf_real.constant([0, 1], tf_real.int64)
        ),
        4,
    )

    @tf.function
    def step(keys):
        return vocab.lookup(keys), table[keys] * 2.0

    for keys in ([7, 1, 42], [5, 6, 7], [-9, 42, 300]):
        ids, values = step(tf.constant(keys, tf.int64))
        np.testing.assert_array_equal(
            ids.numpy(), real_vocab.lookup(tf_real.constant(keys, tf_real.int64)).numpy()
        )
        np.testing.assert_array_equal(values.numpy(), [{7: 3.0, 42: 5.0}.get(k, 0.0) for k in keys])
    assert step.experimental_get_tracing_count() == 1


def _export_dict(table):
    keys, values = table.export()
    return {k: np.asarray(v).tolist() for k, v in zip(keys.numpy().tolist(), values.numpy())}


@pytest.mark.parametrize("key_dtype", KEY_DTYPES)
@pytest.mark.parametrize("value_dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("value_shape", [(), (3,)])
def test_mutable_hash_table_sequence(key_dtype, value_dtype, value_shape):
    rng = np.random.default_rng(len(value_shape) + VALUE_DTYPES.index(value_dtype))
    steps = []
    for _ in range(12):
        n = int(rng.integers(0, 6))
        keys = rng.integers(-8, 8, size=n)
        steps.append(
            (
                rng.choice(["insert", "remove", "lookup"]),
                keys,
                rng.integers(-50, 50, size=(n, *value_shape)),
            )
        )

    def run(m):
        kd, vd = getattr(m, key_dtype), getattr(m, value_dtype)
        table = m.lookup.experimental.MutableHashTable(
            kd, vd, m.constant(np.full(value_shape, -1), vd)
        )
        log = []
        for op, keys, values in steps:
            if op == "insert":
                table.insert(m.constant(keys, kd), m.constant(values, vd))
            elif op == "remove":
                table.remove(m.constant(keys, kd))
            else:
                log.append(table[m.constant(keys.reshape(-1, 1), kd)].numpy())
            log.append((int(table.size().numpy()), _export_dict(table)))
        log.append(table.lookup(m.constant([[0, 1], [2, 3]], kd)).numpy())
        return log

    ours, theirs = _both(run)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(a, tuple):
            assert a == b
        else:
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def test_mutable_hash_table_duplicate_keys_and_dynamic_defaults():
    def run(m):
        table = m.lookup.experimental.MutableHashTable(m.int64, m.float32, 0.0)
        table.insert(m.constant([3, 3, 5], m.int64), [8.0, 9.0, 1.0])
        dyn = table.lookup(m.constant([3, 4, 6], m.int64), dynamic_default_values=[7.0, 6.0, 5.0])
        return table.lookup(m.constant([3, 5], m.int64)).numpy(), dyn.numpy()

    ours, theirs = _both(run)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "case",
    [
        lambda m, t: t.insert(m.constant([3], m.int32), [7.0]),
        lambda m, t: t.insert(m.constant([3], m.int64), m.constant([7], m.int32)),
        lambda m, t: t.insert(m.constant([3, 4], m.int64), [7.0]),
        lambda m, t: t.remove(m.constant([3], m.int32)),
        lambda m, t: t.lookup(m.constant([3], m.int32)),
        lambda m, t: m.lookup.experimental.MutableHashTable(m.int32, m.int64, -1),
        lambda m, t: m.lookup.experimental.MutableHashTable(m.int64, m.float32, 0.0).insert(
            m.constant([1], m.int64), [[1.0, 2.0]]
        ),
    ],
    ids=[
        "key_dtype",
        "value_dtype",
        "value_shape",
        "remove_dtype",
        "lookup_dtype",
        "dtype_pair",
        "vector",
    ],
)
def test_mutable_hash_table_errors(case):
    def run(m):
        return case(m, m.lookup.experimental.MutableHashTable(m.int64, m.float32, -1.0))

    ours, theirs = _error(lambda: run(tf)), _error(lambda: run(tf_real))
    # TF numbers its tables' shared names ("table_<n>").
    theirs = (theirs[0], re.sub(r'shared_name="table_\d+"', 'shared_name="table_0"', theirs[1]))
    assert ours == theirs


@pytest.mark.parametrize("method", ["lookup", "insert", "remove"])
def test_mutable_hash_table_inside_function_raises(method):
    table = tf.lookup.experimental.MutableHashTable(tf.int32, tf.float32, -1.0)
    table.insert([1], [2.0])

    @tf.function
    def step(keys):
        if method == "insert":
            return table.insert(keys, tf.cast(keys, tf.float32))
        return getattr(table, method)(keys)

    step(tf.constant([1]))  # the first call runs eagerly
    with pytest.raises(NotImplementedError, match=f"MutableHashTable.{method} cannot run inside"):
        step(tf.constant([2]))


def _dense(m, key_dtype="int64", value_dtype="float32", default=-1.0, empty=-1, deleted=-2, n=8):
    return m.lookup.experimental.DenseHashTable(
        getattr(m, key_dtype),
        getattr(m, value_dtype),
        default,
        empty_key=empty,
        deleted_key=deleted,
        initial_num_buckets=n,
    )


def _dense_state(table):
    keys, values = table.export()
    return keys.numpy().tolist(), values.numpy().tolist(), int(table.size())


@pytest.mark.parametrize("key_dtype", KEY_DTYPES)
@pytest.mark.parametrize("value_dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("value_shape", [(), (2,)])
@pytest.mark.parametrize("seed", [0, 1])
def test_dense_hash_table_buckets_follow_tf(key_dtype, value_dtype, value_shape, seed):
    """Random inserts (with collisions, duplicates and growth) and removes give TF's
    bucket arrays, sizes and lookups after every step."""
    rng = np.random.default_rng(seed)
    default = np.full(value_shape, -1).tolist()
    ours = _dense(tf, key_dtype, value_dtype, default, n=4)
    theirs = _dense(tf_real, key_dtype, value_dtype, default, n=4)
    for step in range(12):
        keys = rng.integers(0, 40, size=rng.integers(1, 6))
        if step % 3 == 2:
            ours.remove(tf.constant(keys, getattr(tf, key_dtype)))
            theirs.remove(tf_real.constant(keys, getattr(tf_real, key_dtype)))
        else:
            values = rng.integers(0, 100, size=keys.shape + value_shape)
            ours.insert(
                tf.constant(keys, getattr(tf, key_dtype)),
                tf.constant(values, getattr(tf, value_dtype)),
            )
            theirs.insert(
                tf_real.constant(keys, getattr(tf_real, key_dtype)),
                tf_real.constant(values, getattr(tf_real, value_dtype)),
            )
        assert _dense_state(ours) == _dense_state(theirs)
        probe = rng.integers(0, 50, size=7)
        a = ours.lookup(tf.constant(probe, getattr(tf, key_dtype)))
        b = theirs.lookup(tf_real.constant(probe, getattr(tf_real, key_dtype)))
        assert a.dtype.name == b.dtype.name and a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_dense_hash_table_vector_keys_scalar_keys_and_defaults():
    def run(m):
        table = _dense(m, default=[0.0, 0.5], empty=[0, 0], deleted=[-2, -2], n=16)
        table.insert(
            m.constant([[1, 2], [3, 4], [5, 7], [-1, 1]], m.int64),
            m.constant([[1.0, 2], [3, 4], [5, 6], [7, 8]]),
        )
        scalar = _dense(m, n=4)
        scalar.insert(m.constant(7, m.int64), m.constant(1.0))
        got = (
            table.lookup(m.constant([[1, 2], [9, 9]], m.int64)).numpy(),
            scalar.lookup(m.constant(7, m.int64)).numpy(),
            scalar[m.constant([7, 8], m.int64)].numpy(),
        )
        default = m.lookup.experimental.DenseHashTable(m.int64, m.float32, -1.0, -1, -2)
        facts = (scalar.name, scalar.key_dtype.name, scalar.value_dtype.name)
        return _dense_state(table), _dense_state(scalar), got, default.export()[0].shape, facts

    ours, theirs = run(tf), run(tf_real)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2], theirs[2]):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert ours[3] == theirs[3] == (131072, 1)
    assert ours[4] == theirs[4] == (None, "int64", "float32")


def test_dense_hash_table_keys_before_a_reserved_key_are_inserted():
    def run(m):
        table = _dense(m, n=4)
        try:
            table.insert(m.constant([5, -1, 6], m.int64), m.constant([1.0, 2, 3]))
        except m.errors.InvalidArgumentError as e:
            return str(e), _dense_state(table)
        raise AssertionError("no error")

    assert run(tf) == run(tf_real)


@pytest.mark.parametrize(
    "case",
    [
        lambda m, t: t.insert(m.constant([-1], m.int64), m.constant([1.0])),
        lambda m, t: t.insert(m.constant([-2], m.int64), m.constant([1.0])),
        lambda m, t: t.lookup(m.constant([-1], m.int64)),
        lambda m, t: t.remove(m.constant([-2], m.int64)),
        lambda m, t: t.insert(m.constant([1, 2], m.int64), m.constant([1.0])),
        lambda m, t: t.insert(m.constant([[1, 2, 3]], m.int64), m.constant([[1.0, 2, 3]])),
        lambda m, t: t.lookup(m.constant([[7, 1, 3]], m.int64)),
        lambda m, t: t.insert(m.constant([1], m.int32), m.constant([1.0])),
        lambda m, t: t.remove(m.constant([7], m.int32)),
        lambda m, t: t.remove([7]),
        lambda m, t: _dense(m, empty=-1, deleted=-1),
        lambda m, t: _dense(m, empty=-1, deleted=-1, n=3),
        lambda m, t: _dense(m, n=6),
        lambda m, t: _dense(m, n=2),
        lambda m, t: _dense(m, deleted=[-2, -3]),
        lambda m, t: _dense(m, empty=[[-1]], deleted=[[-2]]),
        lambda m, t: _dense(m, default=[[1.0, 2], [3, 4]]),
        lambda m, t: _dense(m, "int32", "bool", False),
    ],
    ids=[
        "insert_empty",
        "insert_deleted",
        "lookup_empty",
        "remove_deleted",
        "value_shape",
        "key_shape",
        "lookup_key_shape",
        "insert_dtype",
        "remove_dtype",
        "remove_list",
        "equal_markers",
        "equal_markers_before_buckets",
        "buckets_not_power_of_two",
        "too_few_buckets",
        "marker_shapes",
        "matrix_key",
        "matrix_value",
        "dtype_pair",
    ],
)
def test_dense_hash_table_errors(case):
    def run(m):
        return case(m, _dense(m))

    ours, theirs = _error(lambda: run(tf)), _error(lambda: run(tf_real))
    theirs = (theirs[0], re.sub(r'shared_name="table_\d+"', 'shared_name="table_0"', theirs[1]))
    assert ours == theirs


def test_dense_hash_table_remove_of_a_scalar_key_raises():
    # TF prints an uninitialized batch size in this message; the error type is TF's.
    table = _dense(tf)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected key shape"):
        table.remove(tf.constant(7, tf.int64))
    with pytest.raises(tf_real.errors.InvalidArgumentError, match="Expected key shape"):
        _dense(tf_real).remove(tf_real.constant(7, tf_real.int64))


@pytest.mark.parametrize("method", ["lookup", "insert", "remove"])
def test_dense_hash_table_inside_function_raises(method):
    table = tf.lookup.experimental.DenseHashTable(tf.int32, tf.float32, -1.0, -1, -2)
    table.insert([1], [2.0])

    @tf.function
    def step(keys):
        if method == "insert":
            return table.insert(keys, tf.cast(keys, tf.float32))
        return getattr(table, method)(keys)

    step(tf.constant([1]))  # the first call runs eagerly
    with pytest.raises(NotImplementedError, match=f"DenseHashTable.{method} cannot run inside"):
        step(tf.constant([2]))
