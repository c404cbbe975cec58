"""Mutable lookup tables saved and restored by tapejax.train.Checkpoint, against live TF:
the saved names, shapes and dtypes, contents after restore, and restore errors."""

import os

import numpy as np
import pytest

import tapejax as tf
import tapejax.train  # noqa: F401 - tf.train

tf_real = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.usefixtures("x64")

TABLE_SUFFIXES = ("/.ATTRIBUTES/table-keys", "/.ATTRIBUTES/table-values")


def _both(fn):
    """``fn(module)`` for tapejax and TF; returns (ours, theirs)."""
    return fn(tf), fn(tf_real)


def _mutable(m, key_dtype, value_dtype, value_shape=(), **kwargs):
    vd = getattr(m, value_dtype)
    default = m.constant(np.full(value_shape, -1), vd)
    return m.lookup.experimental.MutableHashTable(getattr(m, key_dtype), vd, default, **kwargs)


def _dense(m, key_dtype, value_dtype, value_shape=(), n=4, key_shape=()):
    vd = getattr(m, value_dtype)
    return m.lookup.experimental.DenseHashTable(
        getattr(m, key_dtype),
        vd,
        m.constant(np.full(value_shape, -1), vd),
        empty_key=np.full(key_shape, -1).tolist(),
        deleted_key=np.full(key_shape, -2).tolist(),
        initial_num_buckets=n,
    )


def _insert(m, table, keys, values):
    table.insert(m.constant(keys, table.key_dtype), m.constant(values, table.value_dtype))


def _table_entries(path, m):
    """``{name: (shape, dtype name)}`` of the table arrays a checkpoint lists."""
    reader = m.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    return {
        name: (list(shape), dtypes[name].name)
        for name, shape in m.train.list_variables(path)
        if name.endswith(TABLE_SUFFIXES)
    }


def _pairs(table):
    keys, values = table.export()
    return sorted(
        (k, np.asarray(v).tolist()) for k, v in zip(keys.numpy().tolist(), values.numpy())
    )


def _buckets(table):
    keys, values = table.export()
    return keys.numpy().tolist(), values.numpy().tolist(), int(table.size())


@pytest.mark.parametrize(
    ("key_dtype", "value_dtype", "value_shape"),
    [("int32", "float32", ()), ("int64", "float64", (2,)), ("int64", "int32", ())],
)
def test_mutable_hash_table_round_trip(tmp_path, key_dtype, value_dtype, value_shape):
    rng = np.random.default_rng(0)
    keys = rng.permutation(20)[:6]
    values = rng.integers(-9, 9, size=(6, *value_shape))

    def run(m):
        table = _mutable(m, key_dtype, value_dtype, value_shape)
        _insert(m, table, keys, values)
        saved = _pairs(table)
        ckpt = m.train.Checkpoint(table=table)
        path = ckpt.save(os.path.join(tmp_path, m.__name__, "ckpt"))
        # Changes after the save are gone after the restore.
        _insert(m, table, [100], np.full((1, *value_shape), 7))
        table.remove(m.constant(keys[:2], table.key_dtype))
        ckpt.restore(path).assert_consumed()
        assert _pairs(table) == saved
        return _table_entries(path, m), saved, int(table.size())

    ours, theirs = _both(run)
    assert ours == theirs
    assert set(ours[0]) == {"table" + s for s in TABLE_SUFFIXES}
    reader = tf.train.load_checkpoint(os.path.join(tmp_path, "tapejax", "ckpt-1"))
    saved_keys = reader.get_tensor("table/.ATTRIBUTES/table-keys")
    assert saved_keys.dtype == np.dtype(key_dtype)
    assert sorted(saved_keys.tolist()) == sorted(keys.tolist())


@pytest.mark.parametrize(("value_dtype", "value_shape"), [("float32", ()), ("int64", (3,))])
def test_dense_hash_table_round_trip_after_growth_and_removals(tmp_path, value_dtype, value_shape):
    rng = np.random.default_rng(1)
    keys = rng.permutation(64)[:10]
    values = rng.integers(0, 50, size=(10, *value_shape))

    def run(m):
        table = _dense(m, "int64", value_dtype, value_shape, n=4)
        _insert(m, table, keys, values)  # grows 4 -> 16 buckets
        table.remove(m.constant(keys[3:6], m.int64))
        saved = _buckets(table)
        ckpt = m.train.Checkpoint(dense=table)
        path = ckpt.write(os.path.join(tmp_path, m.__name__, "ckpt"))
        _insert(m, table, rng.permutation(64)[:12] + 100, np.ones((12, *value_shape)))
        ckpt.read(path).assert_consumed()
        assert _buckets(table) == saved
        probe = m.constant(np.arange(70), m.int64)
        return _table_entries(path, m), saved, table.lookup(probe).numpy().tolist()

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0]["dense/.ATTRIBUTES/table-keys"][0] == [16, 1]


def test_dense_hash_table_restore_takes_the_saved_bucket_count(tmp_path):
    """A table restored from a smaller one has the saved buckets; its size counts the
    buckets holding neither of its own empty and deleted keys (TF's import)."""

    def run(m):
        source = _dense(m, "int32", "float32", (2,), n=8, key_shape=(2,))
        _insert(m, source, [[1, 2], [3, 4], [5, 6]], [[1, 1], [2, 2], [3, 3]])
        source.remove(m.constant([[3, 4]], m.int32))
        path = m.train.Checkpoint(t=source).write(os.path.join(tmp_path, m.__name__, "c"))
        target = _dense(m, "int32", "float32", (2,), n=64, key_shape=(2,))
        _insert(m, target, [[7, 8]], [[9, 9]])
        m.train.Checkpoint(t=target).read(path)
        lookup = target.lookup(m.constant([[1, 2], [3, 4], [7, 8]], m.int32)).numpy().tolist()
        return _buckets(target), lookup, _buckets(source)

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0] == ours[2]


def test_checkpoint_false_tables_are_saved_as_in_tf(tmp_path):
    """TF 2's eager tables are saved and restored whatever ``checkpoint`` says."""

    def run(m):
        table = _mutable(m, "int32", "float32", checkpoint=False)
        dense = m.lookup.experimental.DenseHashTable(
            m.int32, m.float32, -1.0, -1, -2, initial_num_buckets=8, checkpoint=False
        )
        _insert(m, table, [1, 2], [1.0, 2.0])
        _insert(m, dense, [3], [3.0])
        ckpt = m.train.Checkpoint(table=table, dense=dense)
        path = ckpt.write(os.path.join(tmp_path, m.__name__, "c"))
        _insert(m, table, [5], [5.0])
        _insert(m, dense, [6], [6.0])
        ckpt.read(path)
        return _table_entries(path, m), _pairs(table), int(dense.size())

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[1:] == ([(1, 1.0), (2, 2.0)], 1)


def test_module_attribute_and_checkpoint_manager(tmp_path):
    def run(m):
        class Net(m.Module):
            def __init__(self):
                super().__init__()
                self.w = m.Variable([1.0, 2.0])
                self.vocab = _mutable(m, "int32", "int32")
                self.nested = {"dense": _dense(m, "int32", "float32")}

        net = Net()
        _insert(m, net.vocab, [4, 5], [40, 50])
        _insert(m, net.nested["dense"], [1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0])
        ckpt = m.train.Checkpoint(model=net)
        manager = m.train.CheckpointManager(ckpt, os.path.join(tmp_path, m.__name__), 2)
        first = manager.save()
        _insert(m, net.vocab, [6], [60])
        manager.save()
        net.vocab.remove(m.constant([4, 5, 6], m.int32))
        net.w.assign([0.0, 0.0])
        restored = Net()
        status = m.train.Checkpoint(model=restored).restore(manager.latest_checkpoint)
        status.assert_consumed()
        ckpt.restore(first)
        return (
            _table_entries(manager.latest_checkpoint, m),
            _pairs(restored.vocab),
            _buckets(restored.nested["dense"]),
            _pairs(net.vocab),
            net.w.numpy().tolist(),
        )

    ours, theirs = _both(run)
    assert ours == theirs
    assert set(ours[0]) == {"model/vocab" + s for s in TABLE_SUFFIXES} | {
        "model/nested/dense" + s for s in TABLE_SUFFIXES
    }
    assert ours[1] == [(4, 40), (5, 50), (6, 60)] and ours[3] == [(4, 40), (5, 50)]


def test_object_graph_node_ids_with_tables(tmp_path):
    def run(m):
        class Net(m.Module):
            def __init__(self):
                super().__init__()
                self.table = _mutable(m, "int32", "float32")
                self.v = m.Variable(1.0)
                self.tables = [_dense(m, "int32", "float32"), self.table]

        net = Net()
        path = m.train.Checkpoint(net=net, t=net.table).save(os.path.join(tmp_path, m.__name__))
        view = m.train.CheckpointView(path)
        return [view.children(i) for i in view.descendants()]

    ours, theirs = _both(run)
    assert ours == theirs


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize(
    "case",
    [
        ("mutable", ("int32", "float32", ())),  # key dtype differs
        ("mutable", ("int32", "float64", ())),  # both dtypes differ
        ("mutable", ("int64", "float32", (2,))),  # value shape differs
        ("dense", ("int64", "float64", ())),  # value dtype differs
        ("dense", ("int64", "float32", (3,))),  # value width differs
    ],
)
def test_restore_into_another_table_raises_tf_error(tmp_path, case):
    kind, (key_dtype, value_dtype, value_shape) = case
    make = _mutable if kind == "mutable" else _dense

    def run(m):
        source = make(m, "int64", "float32", (2,) if kind == "dense" else ())
        _insert(m, source, [1, 2], [[1, 1], [2, 2]] if kind == "dense" else [1, 2])
        path = m.train.Checkpoint(t=source, v=m.Variable(5.0)).write(
            os.path.join(tmp_path, m.__name__ + "src")
        )
        target, v = make(m, key_dtype, value_dtype, value_shape), m.Variable(1.0)
        _insert(m, target, [7], np.full((1, *value_shape), 7))
        before = _buckets(target) if kind == "dense" else _pairs(target)
        error = _error(lambda: m.train.Checkpoint(t=target, v=v).restore(path))
        after = _buckets(target) if kind == "dense" else _pairs(target)
        # Nothing is restored when a table's arrays do not fit.
        return error, after == before, float(v.numpy())

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0][0] == "InvalidArgumentError"


def test_checkpoint_without_the_table_leaves_it_unmatched(tmp_path):
    """A checkpoint saved with no table (an older file, too) restores the rest; the
    table keeps its contents and is reported unmatched."""

    def run(m):
        path = m.train.Checkpoint(v=m.Variable(3.0)).write(os.path.join(tmp_path, m.__name__))
        table, v = _mutable(m, "int32", "float32"), m.Variable(0.0)
        _insert(m, table, [1], [1.0])
        status = m.train.Checkpoint(v=v, t=table).read(path)
        return _error(status.assert_existing_objects_matched)[0], _pairs(table), float(v.numpy())

    ours, theirs = _both(run)
    assert ours == theirs == ("AssertionError", [(1, 1.0)], 3.0)


def test_table_attached_after_restore_is_not_filled(tmp_path):
    """tapejax restores what exists at ``restore``, for tables as for Variables (TF
    defers the values until the table is attached)."""
    table = _mutable(tf, "int32", "float32")
    _insert(tf, table, [1], [1.0])
    path = tf.train.Checkpoint(t=table).write(os.path.join(tmp_path, "c"))
    ckpt = tf.train.Checkpoint()
    ckpt.restore(path)
    later = _mutable(tf, "int32", "float32")
    ckpt.t = later
    assert _pairs(later) == []
    ckpt.restore(path)
    assert _pairs(later) == [(1, 1.0)]


def test_dense_vector_keys_into_a_scalar_key_table_raise(tmp_path):
    """TF accepts the [N, 2] key buckets into a scalar-key table (whose lookups then fail);
    tapejax refuses them with TF's key-shape text."""
    source = _dense(tf, "int32", "float32", key_shape=(2,))
    _insert(tf, source, [[1, 2]], [3.0])
    path = tf.train.Checkpoint(t=source).write(os.path.join(tmp_path, "c"))
    target = _dense(tf, "int32", "float32")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.train.Checkpoint(t=target).read(path)
    assert "Input key shape [4,2] must end with the table's key shape []" in str(info.value)
    assert int(target.size()) == 0
