# ruff: noqa: E501 - tables of pipelines and TF's texts read best one case a line
"""``tapejax.data.experimental`` and the Dataset methods it goes with (``random``,
``rejection_resample``, ``Iterator.get_next_as_optional``), side by side with live
TensorFlow: elements, element specs, cardinalities, errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error  # noqa: E402 - the shared op-test harness
from test_data import check_same_dataset  # noqa: E402

# Compared with TF's by name in loops (test_option_classes_are_tfs, and the cardinality
# constants in test_data.py's test_cardinality_constants_and_autotune_are_tfs).
OTHERWISE_TESTED = {
    f"data.experimental.{name}"
    for name in (
        "AutoShardPolicy",
        "AutotuneAlgorithm",
        "AutotuneOptions",
        "DistributeOptions",
        "ExternalStatePolicy",
        "ThreadingOptions",
        "UNKNOWN_CARDINALITY",
    )
}


@pytest.fixture(autouse=True)
def _x64(x64):
    yield


def _r(tf, n=6):
    return tf.data.Dataset.range(n)


def _key(x):
    return x % 2


PIPELINES = [
    ("enumerate_dataset", lambda tf: _r(tf).apply(tf.data.experimental.enumerate_dataset(5))),
    ("unbatch", lambda tf: _r(tf).batch(4).apply(tf.data.experimental.unbatch())),
    (
        "unique",
        lambda tf: tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2]).apply(
            tf.data.experimental.unique()
        ),
    ),
    (
        "scan",
        lambda tf: _r(tf).apply(
            tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * x))
        ),
    ),
    ("take_while", lambda tf: _r(tf).apply(tf.data.experimental.take_while(lambda x: x < 3))),
    (
        "ignore_errors",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0])
            .map(lambda x: tf.debugging.check_numerics(1.0 / x, "e"))
            .apply(tf.data.experimental.ignore_errors())
        ),
    ),
    (
        "group_by_window",
        lambda tf: _r(tf).apply(
            tf.data.experimental.group_by_window(_key, lambda k, w: w.batch(2), window_size=2)
        ),
    ),
    (
        "bucket_by_sequence_length",
        lambda tf: (
            tf.data.Dataset.range(1, 6)
            .map(lambda n: tf.fill([n], n))
            .apply(
                tf.data.experimental.bucket_by_sequence_length(
                    lambda x: tf.shape(x)[0], [3], [2, 2]
                )
            )
        ),
    ),
    (
        "map_and_batch",
        lambda tf: _r(tf, 7).apply(tf.data.experimental.map_and_batch(lambda x: x * 2, 3)),
    ),
    (
        "map_and_batch_drop",
        lambda tf: _r(tf, 7).apply(
            tf.data.experimental.map_and_batch(
                lambda x: (x, x + 1), 3, drop_remainder=True, num_parallel_batches=2
            )
        ),
    ),
    (
        "parallel_interleave",
        lambda tf: _r(tf, 3).apply(
            tf.data.experimental.parallel_interleave(
                lambda x: tf.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2
            )
        ),
    ),
    (
        "choose_from_datasets",
        lambda tf: tf.data.experimental.choose_from_datasets(
            [_r(tf, 2), _r(tf, 3).map(lambda x: x + 10)],
            tf.data.Dataset.from_tensor_slices(tf.constant([0, 0, 0, 1], tf.int64)),
        ),
    ),
    ("sample_one", lambda tf: tf.data.experimental.sample_from_datasets([_r(tf, 3)], seed=1)),
    ("from_list", lambda tf: tf.data.experimental.from_list([(1, [2.0, 3.0]), (4, [5.0, 6.0])])),
    ("from_list_dict", lambda tf: tf.data.experimental.from_list([{"a": 1}, {"a": 2}])),
    (
        "assert_cardinality",
        lambda tf: _r(tf).filter(lambda x: x > 2).apply(tf.data.experimental.assert_cardinality(3)),
    ),
    (
        "pad_to_cardinality",
        lambda tf: tf.data.Dataset.from_tensor_slices(
            {"a": [1, 2], "b": [[1.0, 2.0], [3.0, 4.0]]}
        ).apply(tf.data.experimental.pad_to_cardinality(4)),
    ),
    (
        "pad_to_cardinality_key",
        lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).apply(
            tf.data.experimental.pad_to_cardinality(2, mask_key="m")
        ),
    ),
    ("copy_to_device", lambda tf: _r(tf).apply(tf.data.experimental.copy_to_device("/cpu:0"))),
    (
        "prefetch_to_device",
        lambda tf: _r(tf).apply(tf.data.experimental.prefetch_to_device("/cpu:0", 2)),
    ),
    (
        "group_by_reducer",
        lambda tf: _r(tf, 7).apply(
            tf.data.experimental.group_by_reducer(
                _key,
                tf.data.experimental.Reducer(
                    lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: (s, s * 2)
                ),
            )
        ),
    ),
]


@pytest.mark.parametrize("build", [b for _, b in PIPELINES], ids=[n for n, _ in PIPELINES])
def test_experimental_pipeline_is_tfs(build):
    check_same_dataset(build)


def test_shuffle_and_repeat_is_a_new_permutation_each_repetition():
    want = _r(tensorflow).apply(tensorflow.data.experimental.shuffle_and_repeat(6, count=3, seed=1))
    got = _r(tapejax).apply(tapejax.data.experimental.shuffle_and_repeat(6, count=3, seed=1))
    assert repr(got.element_spec) == repr(want.element_spec)
    assert int(got.cardinality()) == int(want.cardinality()) == 18
    values = [int(x) for x in got]
    epochs = [values[i : i + 6] for i in range(0, 18, 6)]
    assert all(sorted(e) == list(range(6)) for e in epochs)
    assert len({tuple(e) for e in epochs}) > 1


ERRORS = [
    (
        "assert_cardinality_fewer",
        lambda tf: list(_r(tf, 2).apply(tf.data.experimental.assert_cardinality(3))),
        "FailedPreconditionError",
        r"Input dataset was expected to contain 3 elements but contained only 2 elements\. \[Op:IteratorGetNext\]",
    ),
    (
        "assert_cardinality_more",
        lambda tf: list(_r(tf, 5).apply(tf.data.experimental.assert_cardinality(3))),
        "FailedPreconditionError",
        r"Input dataset was expected to contain 3 elements but contained at least 4 elements\. \[Op:IteratorGetNext\]",
    ),
    (
        "from_list_empty",
        lambda tf: tf.data.experimental.from_list([]),
        "ValueError",
        r"^Invalid `elements`\. `elements` should not be empty\. If you want an empty dataset, use `tf\.data\.Dataset\.range\(0\)`\.$",
    ),
    (
        "from_list_tuple",
        lambda tf: tf.data.experimental.from_list((1, 2)),
        "ValueError",
        r"^Invalid `elements`\. `elements` must be a list\.$",
    ),
    (
        "get_single_element_not_a_dataset",
        lambda tf: tf.data.experimental.get_single_element([1]),
        "TypeError",
        r"^Invalid `dataset`\. Expected a `tf\.data\.Dataset` object but got <class 'list'>\.$",
    ),
    (
        "map_and_batch_both",
        lambda tf: tf.data.experimental.map_and_batch(
            abs, 2, num_parallel_batches=1, num_parallel_calls=2
        ),
        "ValueError",
        r"^`map_and_batch` allows only one of `num_parallel_batches` and `num_parallel_calls` to be set, but `num_parallel_batches` was set to 1 and `num_parallel_calls` as set to 2\.$",
    ),
    (
        "pad_unknown",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices({"a": [1]})
            .filter(lambda d: True)
            .apply(tf.data.experimental.pad_to_cardinality(3))
        ),
        "ValueError",
        r"must have a known cardinalty, but has cardinality",
    ),
    (
        "pad_too_many",
        lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).apply(
            tf.data.experimental.pad_to_cardinality(1)
        ),
        "ValueError",
        r"must have a cardinalty less than the target cardinality \(1\), but has cardinality",
    ),
    (
        "pad_not_a_dict",
        lambda tf: _r(tf, 2).apply(tf.data.experimental.pad_to_cardinality(3)),
        "ValueError",
        r"^`pad_to_cardinality` requires its input dataset to be a dictionary\.$",
    ),
    (
        "at_past_the_end",
        lambda tf: tf.data.experimental.at(_r(tf, 2), 2),
        "OutOfRangeError",
        r"Index out of range",
    ),
    (
        "group_by_reducer_key",
        lambda tf: _r(tf).apply(
            tf.data.experimental.group_by_reducer(
                lambda x: tf.cast(x, tf.int32),
                tf.data.experimental.Reducer(lambda k: k, lambda s, x: s, lambda s: s),
            )
        ),
        "ValueError",
        r"^Invalid `key_func`\. Expected `key_func` to return a scalar tf\.int64 tensor, but instead `key_func` has output types=<dtype: 'int32'> and shapes=\(\)\.$",
    ),
    (
        "table_three_components",
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.from_tensors((1, 2, 3)), key_dtype=tf.int32
        ),
        "ValueError",
        r"However, the given dataset produces 3 components instead of two",
    ),
    (
        "table_vector_keys",
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.from_tensors(([1], 2)), key_dtype=tf.int32
        ),
        "ValueError",
        r"non-scalar key Tensors of rank 1\.$",
    ),
    (
        "table_oov",
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.from_tensors((1, 2)), num_oov_buckets=-1, key_dtype=tf.int32
        ),
        "ValueError",
        r"^`num_oov_buckets` must be greater than or equal to 0, got -1\.$",
    ),
    (
        "table_key_dtype",
        lambda tf: tf.data.experimental.table_from_dataset(
            tf.data.Dataset.from_tensors((1, 2)), key_dtype=tf.float32
        ),
        "TypeError",
        r"^`key_dtype` must be either an integer or string type, but got <dtype: 'float32'>$",
    ),
    (
        "options_unknown",
        lambda tf: setattr(tf.data.ThreadingOptions(), "foo", 1),
        "AttributeError",
        r"^Cannot set the property foo on ThreadingOptions\.$",
    ),
    (
        "options_type",
        lambda tf: setattr(tf.data.experimental.OptimizationOptions(), "map_fusion", 1),
        "TypeError",
        r"^Property \"map_fusion\" must be of type <class 'bool'>, got: 1 \(type: <class 'int'>\)$",
    ),
]


@pytest.mark.parametrize(
    ("build", "error", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_experimental_errors_are_tfs(build, error, message):
    check_error(build, error, message)


def test_at_cardinality_get_structure_are_tfs():
    for tf in (tensorflow, tapejax):
        ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
        a, b = tf.data.experimental.at(ds, 1)
        assert (int(a), float(b)) == (2, 5.0)
        assert int(tf.data.experimental.cardinality(ds)) == 3
        assert repr(tf.data.experimental.get_structure(ds)).replace("tapejax", "tf") == repr(
            tf.data.experimental.get_structure(iter(ds))
        )
    assert repr(tapejax.data.experimental.get_structure(_r(tapejax))) == repr(
        tensorflow.data.experimental.get_structure(_r(tensorflow))
    )


def test_table_from_dataset_looks_up_as_tfs():
    for tf in (tensorflow, tapejax):
        keys = tf.constant([5, 7, 9], tf.int64)
        pairs = tf.data.Dataset.from_tensor_slices((keys, tf.constant([1.0, 2.0, 3.0])))
        table = tf.data.experimental.table_from_dataset(pairs, key_dtype=tf.int64)
        np.testing.assert_array_equal(
            table.lookup(tf.constant([7, 8], tf.int64)).numpy(), [2.0, -1.0]
        )
        index = tf.data.experimental.index_table_from_dataset(
            tf.data.Dataset.from_tensor_slices(keys), key_dtype=tf.int64, vocab_size=2
        )
        np.testing.assert_array_equal(
            index.lookup(tf.constant([5, 7, 9], tf.int64)).numpy(), [0, 1, -1]
        )


def test_option_classes_are_tfs():
    exp_tf, exp = tensorflow.data.experimental, tapejax.data.experimental
    for name in ("AutoShardPolicy", "ExternalStatePolicy", "AutotuneAlgorithm"):
        assert [(m.name, m.value) for m in getattr(exp, name)] == [
            (m.name, m.value) for m in getattr(exp_tf, name)
        ]
    for ours, theirs in (
        (exp.OptimizationOptions, exp_tf.OptimizationOptions),
        (tapejax.data.ThreadingOptions, tensorflow.data.ThreadingOptions),
        (exp.DistributeOptions, exp_tf.DistributeOptions),
        (exp.AutotuneOptions, exp_tf.AutotuneOptions),
    ):
        names = [n for n in dir(theirs) if isinstance(getattr(theirs, n), property)]
        o, t = ours(), theirs()
        assert {n: repr(getattr(o, n)) for n in names} == {n: repr(getattr(t, n)) for n in names}
        assert o == ours()
    options = tapejax.data.Options()
    assert isinstance(options.threading, tapejax.data.ThreadingOptions)
    assert isinstance(options.experimental_optimization, exp.OptimizationOptions)
    options.experimental_distribute.auto_shard_policy = exp.AutoShardPolicy.DATA
    assert options.experimental_distribute.auto_shard_policy == exp.AutoShardPolicy.DATA
    with pytest.raises(TypeError, match='Property "threading" must be of type'):
        options.threading = 5


def test_get_next_as_optional_is_tfs():
    for tf in (tensorflow, tapejax):
        it = iter(tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [3.0, 4.0])))
        first = tf.data.experimental.get_next_as_optional(it)
        assert isinstance(first, tf.data.experimental.Optional)
        assert bool(first.has_value())
        value = first.get_value()
        assert (int(value[0]["a"]), float(value[1])) == (1, 3.0)
        assert bool(it.get_next_as_optional().has_value())
        last = it.get_next_as_optional()
        assert not bool(last.has_value())
        assert repr(last.element_spec).replace("tapejax", "tf") == repr(first.element_spec)
    assert tapejax.data.experimental.Optional is tapejax.experimental.Optional


@pytest.fixture
def _no_global_seed():
    tensorflow.random.set_seed(None)
    tapejax.random.set_seed(None)
    yield
    tensorflow.random.set_seed(None)
    tapejax.random.set_seed(None)


@pytest.mark.usefixtures("_no_global_seed")
@pytest.mark.parametrize("global_seed", [None, 7, 0])
@pytest.mark.parametrize("seed", [4, 0, 2**40 + 3, -5])
def test_random_is_tfs_stream(seed, global_seed):
    for tf in (tensorflow, tapejax):
        tf.random.set_seed(global_seed)
    for rerandomize in (None, False, True):
        want_ds = tensorflow.data.Dataset.random(seed, rerandomize).take(300).repeat(2)
        got_ds = tapejax.data.Dataset.random(seed, rerandomize).take(300).repeat(2)
        assert repr(got_ds.element_spec) == repr(want_ds.element_spec)
        want = [int(x) for x in want_ds.as_numpy_iterator()] + [
            int(x) for x in want_ds.as_numpy_iterator()
        ]
        got = [int(x) for x in got_ds.as_numpy_iterator()] + [
            int(x) for x in got_ds.as_numpy_iterator()
        ]
        assert got == want
    assert int(tapejax.data.Dataset.random(seed).cardinality()) == -1


@pytest.mark.usefixtures("_no_global_seed")
def test_random_without_a_seed_differs_each_dataset():
    a = [int(x) for x in tapejax.data.Dataset.random().take(4)]
    b = [int(x) for x in tapejax.data.Dataset.random().take(4)]
    assert a != b and all(0 <= v < 2**32 for v in a)


def _resample(tf, initial_dist=None, target=(0.5, 0.5)):
    ds = tf.data.Dataset.range(600).map(lambda x: (x, tf.cast(x % 4 == 0, tf.float32)))
    return ds.rejection_resample(
        lambda x, y: tf.cast(y, tf.int32), list(target), initial_dist=initial_dist, seed=3
    )


@pytest.mark.parametrize("initial_dist", [None, [0.75, 0.25]])
def test_rejection_resample_spec_and_proportions_are_tfs(initial_dist):
    want, got = _resample(tensorflow, initial_dist), _resample(tapejax, initial_dist)
    assert repr(got.element_spec) == repr(want.element_spec)
    assert int(got.cardinality()) == int(want.cardinality())
    classes = [int(c) for c, (x, y) in got]
    assert all(int(c) == int(y) for c, (x, y) in got)
    share = collections.Counter(classes)[1] / len(classes)
    assert 0.4 < share < 0.6  # from 0.25 to the target's 0.5


def test_rejection_resample_of_a_reached_target_is_the_input_and_experimental_is_the_method():
    got = _resample(tapejax, [0.75, 0.25], target=(0.75, 0.25))
    want = _resample(tensorflow, [0.75, 0.25], target=(0.75, 0.25))
    assert [int(x) for _, (x, _) in got] == [int(x) for _, (x, _) in want] == list(range(600))
    ds = tapejax.data.Dataset.range(10).map(lambda x: (x, x % 2))
    via = ds.apply(
        tapejax.data.experimental.rejection_resample(
            lambda x, y: tapejax.cast(y, tapejax.int32), [0.5, 0.5], [0.5, 0.5]
        )
    )
    assert [int(x) for _, (x, _) in via] == list(range(10))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda ds: ds.snapshot("/tmp/x"), "Dataset.snapshot is not provided"),
        (lambda ds: ds.fingerprint(), "Dataset.fingerprint is not provided"),
        (lambda ds: tapejax.data.Dataset.list_files("*.txt"), "no string Tensors"),
        (lambda ds: ds.ragged_batch(2), "no RaggedTensor"),
        (lambda ds: ds.sparse_batch(2, [3]), "no SparseTensor components"),
        (
            lambda ds: ds.apply(tapejax.data.experimental.snapshot("/tmp/x")),
            "Dataset.snapshot is not provided",
        ),
        (
            lambda ds: ds.apply(tapejax.data.experimental.dense_to_ragged_batch(2)),
            "no RaggedTensor",
        ),
        (
            lambda ds: ds.apply(tapejax.data.experimental.dense_to_sparse_batch(2, [3])),
            "no SparseTensor components",
        ),
    ],
)
def test_what_is_not_provided_raises_naming_it(call, message):
    with pytest.raises(NotImplementedError, match=message):
        call(_r(tapejax))


def test_table_from_dataset_hash_buckets_are_not_provided():
    pairs = tapejax.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    with pytest.raises(NotImplementedError, match="num_oov_buckets > 0 is not provided"):
        tapejax.data.experimental.table_from_dataset(
            pairs, num_oov_buckets=1, key_dtype=tapejax.int32
        )


def test_iterator_spec_is_tfs():
    specs = {}
    for tf in (tensorflow, tapejax):
        s = tf.data.IteratorSpec(
            (tf.TensorSpec([2], tf.float32), {"a": tf.TensorSpec([], tf.int64)})
        )
        loose = tf.data.IteratorSpec(
            (tf.TensorSpec([None], tf.float32), {"a": tf.TensorSpec([], tf.int64)})
        )
        other = tf.data.IteratorSpec(
            (tf.TensorSpec([3], tf.float32), {"a": tf.TensorSpec([], tf.int64)})
        )
        it = iter(tf.data.Dataset.range(3))
        specs[tf] = (
            repr(s),
            s
            == tf.data.IteratorSpec(
                (tf.TensorSpec([2], tf.float32), {"a": tf.TensorSpec([], tf.int64)})
            ),
            hash(s)
            == hash(
                tf.data.IteratorSpec(
                    (tf.TensorSpec([2], tf.float32), {"a": tf.TensorSpec([], tf.int64)})
                )
            ),
            s.is_compatible_with(loose),
            loose.is_compatible_with(s),
            s.is_compatible_with(other),
            s == other,
            repr(tf.data.IteratorSpec.from_value(it)),
        )
    assert specs[tapejax] == specs[tensorflow]
    assert (
        tapejax.data.IteratorSpec.from_value(iter(tapejax.data.Dataset.range(1))).value_type
        is tapejax.data.Iterator
    )


def _saved(tf):
    return tf.data.Dataset.range(7).map(
        lambda x: {"i": x, "f": tf.fill([2], tf.cast(x, tf.float32))}
    )


@pytest.mark.parametrize(
    ("save_kwargs", "load_kwargs"),
    [
        ({}, {}),
        ({"shard_func": lambda e: e["i"] % 3}, {}),
        ({"shard_func": lambda e: e["i"] % 3, "compression": "GZIP"}, {"compression": "GZIP"}),
        (
            {"shard_func": lambda e: e["i"] % 2},
            {"reader_func": lambda ds: ds.flat_map(lambda d: d)},
        ),
    ],
)
def test_save_then_load_gives_tfs_elements_in_tfs_order(tmp_path, save_kwargs, load_kwargs):
    for tf, where in ((tensorflow, tmp_path / "tf"), (tapejax, tmp_path / "tapejax")):
        _saved(tf).save(str(where), **save_kwargs)
    want = tensorflow.data.Dataset.load(str(tmp_path / "tf"), **load_kwargs)
    got = tapejax.data.Dataset.load(str(tmp_path / "tapejax"), **load_kwargs)
    # the dict's key order in TF's loaded spec follows its proto map's: not compared
    assert {k: repr(v) for k, v in got.element_spec.items()} == {
        k: repr(v) for k, v in want.element_spec.items()
    }
    assert int(got.cardinality()) == int(want.cardinality())
    assert [int(e["i"]) for e in got] == [int(e["i"]) for e in want]
    assert [e["f"].numpy().tolist() for e in got] == [e["f"].numpy().tolist() for e in want]


def test_a_second_save_replaces_the_first_and_tf_cannot_read_tapejaxs(tmp_path):
    path = str(tmp_path / "d")
    tapejax.data.Dataset.range(5).save(path, shard_func=lambda x: x)
    tapejax.data.Dataset.range(2).map(lambda x: x * 10).save(path)
    assert [int(x) for x in tapejax.data.Dataset.load(path)] == [0, 10]
    with pytest.raises(tensorflow.errors.NotFoundError):  # a tapejax-only format
        tensorflow.data.Dataset.load(path)


def test_save_keeps_nested_specs_as_json_without_pickling(tmp_path):
    import collections
    import json

    Point = collections.namedtuple("Point", ["x", "y"])
    ds = (
        tapejax.data.Dataset.range(5)
        .map(
            lambda i: (
                Point(i, tapejax.fill([2], tapejax.cast(i, tapejax.float32))),
                {"b": i, "a": i},
            )
        )
        .filter(lambda p, d: p.x > 0)
        .batch(2)
    )
    path = str(tmp_path / "d")
    ds.save(path)
    with open(tmp_path / "d" / "tapejax_element_spec.json") as f:
        assert json.load(f)["cardinality"] == 2
    loaded = tapejax.data.Dataset.load(path)
    (point, d), (want_point, want_d) = loaded.element_spec, ds.element_spec
    assert type(point).__name__ == "Point" and point._fields == ("x", "y")
    assert tuple(point) == tuple(want_point) and list(d) == ["a", "b"] and d == want_d
    assert [e[0].x.numpy().tolist() for e in loaded] == [[1, 2], [3, 4]]
    with pytest.raises(NotImplementedError, match="SparseTensorSpec components"):
        from tapejax._src.data import saving

        saving._encode(tapejax.SparseTensorSpec([2], tapejax.float32))


def test_load_errors_are_tfs(tmp_path):
    missing = str(tmp_path / "missing")
    check_error(
        lambda tf: tf.data.Dataset.load(missing),
        "NotFoundError",
        "tf.data snapshot element_spec file not found: ",
    )
    check_error(
        lambda tf: list(tf.data.Dataset.load(missing, element_spec=tf.TensorSpec([], tf.int64))),
        "NotFoundError",
        r"Could not find metadata file \[" + missing,
    )
    with pytest.raises(NotImplementedError, match=r"wait=True"):
        tapejax.data.Dataset.load(missing, wait=True)
    with pytest.raises(NotImplementedError, match=r"checkpoint_args"):
        tapejax.data.Dataset.range(2).save(missing, checkpoint_args={})


def test_experimental_save_and_load_are_the_methods(tmp_path):
    path = str(tmp_path / "d")
    tapejax.data.experimental.save(tapejax.data.Dataset.range(3), path, shard_func=lambda x: x % 2)
    loaded = tapejax.data.experimental.load(path)
    assert [int(x) for x in loaded] == [int(x) for x in tapejax.data.Dataset.load(path)]
    assert sorted(int(x) for x in loaded) == [0, 1, 2]


def test_experimental_names_and_signatures_are_tfs():
    import inspect

    for name in tapejax.data.experimental.__all__:
        ours, theirs = (
            getattr(tapejax.data.experimental, name),
            getattr(tensorflow.data.experimental, name),
        )
        if inspect.isfunction(ours) and inspect.isfunction(theirs):
            assert list(inspect.signature(ours).parameters) == list(
                inspect.signature(theirs).parameters
            ), name


def test_random_dataset_is_dataset_random_and_shard_hint_is_tfs():
    got = [int(x) for x in tapejax.data.experimental.RandomDataset(seed=7).take(3)]
    assert got == [int(x) for x in tensorflow.data.experimental.RandomDataset(seed=7).take(3)]
    assert tapejax.data.experimental.SHARD_HINT == tensorflow.data.experimental.SHARD_HINT
