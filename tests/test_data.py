# ruff: noqa: E501 - tables of pipelines and TF's texts read best one case a line
"""``tapejax.data`` side by side with live TensorFlow: every deterministic pipeline's
elements (values, dtypes, shapes, structure types), ``element_spec`` and
``cardinality``; TF's error types and texts; ``shuffle``'s buffer semantics; Datasets
and ``tapejax.function``; and a TF-style training loop fed by a Dataset."""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import warnings

import jax
import jax.monitoring
import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import check_error, raised  # noqa: E402 - the shared op-test harness

FRAMEWORKS = {"tapejax": tapejax, "tensorflow": tensorflow}
Point = collections.namedtuple("Point", ["x", "y"])


@pytest.fixture(autouse=True)
def _x64(x64):
    """TF's Datasets are full of int64 (``range``, ``enumerate``, ``cardinality``): the
    comparisons run with JAX's 64-bit mode, so that tapejax holds int64 too."""
    yield


def assert_same_element(got, want, where="element"):
    """Same nesting (tuple, namedtuple, dict types and keys) and, leaf by leaf, same dtype,
    shape and values."""
    if isinstance(want, (tuple, dict)):
        assert type(got) is type(want), f"{where}: {type(got)} vs TF's {type(want)}"
        keys = sorted(want) if isinstance(want, dict) else range(len(want))
        assert (sorted(got) if isinstance(got, dict) else range(len(got))) == keys, where
        for k in keys:
            assert_same_element(got[k], want[k], f"{where}[{k!r}]")
        return
    assert isinstance(got, tapejax.Tensor), f"{where}: {type(got)} is not a Tensor"
    assert got.dtype.name == want.dtype.name, f"{where}: {got.dtype} vs TF's {want.dtype}"
    assert got.shape.as_list() == want.shape.as_list(), f"{where}: {got.shape} vs {want.shape}"
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=where)


def check_same_dataset(build, iterate=True):
    """``build(tf)`` gives the same element_spec, cardinality and (when ``iterate``)
    elements in TF and in tapejax."""
    want, got = build(tensorflow), build(tapejax)
    assert isinstance(got, tapejax.data.Dataset)
    assert repr(got.element_spec) == repr(want.element_spec)
    assert int(got.cardinality()) == int(want.cardinality())
    if iterate:
        want_elements, got_elements = list(want), list(got)
        assert len(got_elements) == len(want_elements)
        for i, (g, w) in enumerate(zip(got_elements, want_elements)):
            assert_same_element(g, w, f"element {i}")


def _gen():
    for n in range(4):
        yield np.arange(n, dtype=np.float32), n


def _fill(tf):
    return tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], tf.cast(n, tf.float32)))


# (name, build(tf) -> Dataset): deterministic pipelines, compared element by element.
PIPELINES = [
    ("slices_array", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(6.0).reshape(3, 2))),
    ("slices_list", lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]])),
    (
        "slices_tuple",
        lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], np.ones((3, 2), np.float32))),
    ),
    (
        "slices_dict",
        lambda tf: tf.data.Dataset.from_tensor_slices({"b": [1.0, 2.0], "a": [[1], [2]]}),
    ),
    ("slices_namedtuple", lambda tf: tf.data.Dataset.from_tensor_slices(Point([1, 2], [3.0, 4.0]))),
    (
        "slices_nested",
        lambda tf: tf.data.Dataset.from_tensor_slices(({"x": [1, 2]}, ([3, 4], [True, False]))),
    ),
    ("slices_tensor", lambda tf: tf.data.Dataset.from_tensor_slices(tf.constant([[1.5], [2.5]]))),
    ("from_tensors", lambda tf: tf.data.Dataset.from_tensors(([1, 2, 3], {"k": 2.0}))),
    ("range_stop", lambda tf: tf.data.Dataset.range(5)),
    ("range_start_stop_step", lambda tf: tf.data.Dataset.range(2, 11, 3)),
    ("range_negative_step", lambda tf: tf.data.Dataset.range(10, 0, -3)),
    ("range_empty", lambda tf: tf.data.Dataset.range(5, 2)),
    ("range_int32", lambda tf: tf.data.Dataset.range(3, output_type=tf.int32)),
    ("range_float", lambda tf: tf.data.Dataset.range(1, 3, output_type=tf.float32)),
    (
        "zip_tuple",
        lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 15))),
    ),
    (
        "zip_args",
        lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(3), tf.data.Dataset.range(2)),
    ),
    (
        "zip_dict",
        lambda tf: tf.data.Dataset.zip(
            {"a": tf.data.Dataset.range(3), "b": tf.data.Dataset.range(3).repeat()}
        ),
    ),
    ("concatenate", lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(7, 9))),
    (
        "concatenate_relaxed",
        lambda tf: tf.data.Dataset.from_tensors([1, 2]).concatenate(
            tf.data.Dataset.from_tensors([3, 4, 5])
        ),
    ),
    (
        "generator",
        lambda tf: tf.data.Dataset.from_generator(
            _gen, output_signature=(tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32))
        ),
    ),
    (
        "generator_types_shapes",
        lambda tf: tf.data.Dataset.from_generator(
            _gen, output_types=(tf.float32, tf.int64), output_shapes=([None], [])
        ),
    ),
    (
        "generator_args",
        lambda tf: tf.data.Dataset.from_generator(
            lambda n: iter(range(n)), output_signature=tf.TensorSpec([], tf.int64), args=(4,)
        ),
    ),
    ("map", lambda tf: tf.data.Dataset.range(5).map(lambda x: x * 2 + 1)),
    (
        "map_unpacks_tuples",
        lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: a - b),
    ),
    (
        "map_dict_not_unpacked",
        lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1.0, 2.0]}).map(
            lambda d: {"a2": d["a"] * 2, "a": d["a"]}
        ),
    ),
    (
        "map_namedtuple_not_unpacked",
        lambda tf: tf.data.Dataset.from_tensor_slices(Point([1, 2], [3, 4])).map(
            lambda p: p.x + p.y
        ),
    ),
    ("map_list_to_tuple", lambda tf: tf.data.Dataset.range(3).map(lambda x: [x, x + 1])),
    ("map_nested_list_is_a_tensor", lambda tf: tf.data.Dataset.range(3).map(lambda x: (x, [x, x]))),
    ("take_tensor_count", lambda tf: tf.data.Dataset.range(5).take(tf.constant(2, tf.int64))),
    ("map_python_constant", lambda tf: tf.data.Dataset.range(2).map(lambda x: (x, 1.5))),
    (
        "map_parallel",
        lambda tf: tf.data.Dataset.range(6).map(
            lambda x: tf.cast(x, tf.float32) / 2,
            num_parallel_calls=tf.data.AUTOTUNE,
            deterministic=True,
        ),
    ),
    (
        "map_compiled_cast_scale",
        lambda tf: tf.data.Dataset.from_tensor_slices(
            (np.arange(96, dtype=np.uint8).reshape(6, 4, 4), np.arange(6))
        ).map(lambda x, y: (tf.cast(x, tf.float32) / 256 - 0.5, y)),
    ),
    (
        "map_compiled_dict_to_dict",
        lambda tf: tf.data.Dataset.from_tensor_slices(
            {"a": np.arange(8.0, dtype=np.float32).reshape(4, 2), "b": [1, 2, 3, 4]}
        ).map(lambda d: {"s": d["a"] * tf.cast(d["b"], tf.float32), "n": d["b"] - 1}),
    ),
    (
        "map_compiled_many_blocks",
        lambda tf: (
            tf.data.Dataset.range(700)
            .map(lambda x: (x * x, tf.math.sqrt(tf.cast(x, tf.float32))))
            .batch(100)
        ),
    ),
    (
        "map_compiled_after_repeat_take_skip",
        lambda tf: tf.data.Dataset.range(5).repeat(3).skip(2).take(9).map(lambda x: x - 1),
    ),
    (
        "map_compiled_before_repeat_and_batch",
        lambda tf: tf.data.Dataset.range(5).map(lambda x: tf.stack([x, -x])).repeat(2).batch(4),
    ),
    (
        "map_compiled_after_batch_drop_remainder",
        lambda tf: (
            tf.data.Dataset.range(10)
            .batch(3, drop_remainder=True)
            .map(lambda b: (tf.reduce_sum(b), tf.reverse(b, [0])))
        ),
    ),
    (
        "map_compiled_chain_with_filter",
        lambda tf: (
            tf.data.Dataset.range(30)
            .map(lambda x: x * 7 % 11)
            .filter(lambda x: x > 4)
            .map(lambda x: tf.cast(x, tf.float32))
        ),
    ),
    (
        "map_compiled_after_generator",
        lambda tf: tf.data.Dataset.from_generator(
            lambda: iter(range(5)), output_signature=tf.TensorSpec([], tf.int64)
        ).map(lambda x: x + 10),
    ),
    (
        "map_per_element_shapes_from_generator",
        lambda tf: tf.data.Dataset.from_generator(
            _gen, output_signature=(tf.TensorSpec([None]), tf.TensorSpec([], tf.int64))
        ).map(lambda v, n: (v * 2.0, tf.cast(n, tf.float32) + tf.reduce_sum(v))),
    ),
    (
        "map_compiled_captured_array",
        lambda tf: tf.data.Dataset.range(300).map(
            lambda x: tf.cast(x, tf.float32) * tf.constant(np.arange(4.0, dtype=np.float32))
        ),
    ),
    (
        "map_compiled_per_batch_shape",
        lambda tf: tf.data.Dataset.range(10).batch(3).map(lambda b: b * 2 + tf.reduce_sum(b)),
    ),
    ("filter_unknown_dims", lambda tf: _fill(tf).filter(lambda v: tf.reduce_sum(v) > 3.0)),
    ("map_unknown_dims", lambda tf: _fill(tf).map(lambda v: tf.concat([v, v], 0))),
    ("map_value_dependent_shape", lambda tf: _fill(tf)),
    ("filter", lambda tf: tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)),
    (
        "filter_tuple",
        lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [3, 2, 1])).filter(
            lambda a, b: a >= b
        ),
    ),
    ("batch", lambda tf: tf.data.Dataset.range(7).batch(3)),
    ("batch_drop_remainder", lambda tf: tf.data.Dataset.range(7).batch(3, drop_remainder=True)),
    (
        "batch_structure",
        lambda tf: tf.data.Dataset.from_tensor_slices(
            {"p": Point(np.arange(5.0), np.arange(10).reshape(5, 2))}
        ).batch(2),
    ),
    (
        "batch_parallel",
        lambda tf: tf.data.Dataset.range(5).batch(2, num_parallel_calls=2, deterministic=False),
    ),
    (
        "batch_of_batches",
        lambda tf: tf.data.Dataset.range(8).batch(2).batch(2, drop_remainder=True),
    ),
    ("padded_batch_default", lambda tf: _fill(tf).padded_batch(3)),
    (
        "padded_batch_shapes",
        lambda tf: _fill(tf).padded_batch(2, padded_shapes=[6], drop_remainder=True),
    ),
    (
        "padded_batch_values",
        lambda tf: _fill(tf).padded_batch(2, padded_shapes=[None], padding_values=-1.0),
    ),
    (
        "padded_batch_tuple",
        lambda tf: (
            _fill(tf)
            .map(lambda v: (v, tf.size(v) > 2))
            .padded_batch(2, padded_shapes=([5], []), padding_values=(0.5, True))
        ),
    ),
    (
        "padded_batch_dict",
        lambda tf: (
            _fill(tf)
            .map(lambda v: {"v": v, "n": tf.size(v)})
            .padded_batch(
                3, padded_shapes={"v": [None], "n": []}, padding_values={"v": 9.0, "n": -1}
            )
        ),
    ),
    (
        "map_to_namedtuple",
        lambda tf: tf.data.Dataset.range(3).map(lambda x: Point(x, x * x)).batch(2),
    ),
    (
        "filter_dict",
        lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 5, 2, 7]}).filter(
            lambda d: d["a"] > 1
        ),
    ),
    (
        "unbatch_dict",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices({"a": np.arange(12).reshape(6, 2)})
            .batch(4)
            .unbatch()
        ),
    ),
    (
        "zip_nested",
        lambda tf: tf.data.Dataset.zip(
            (
                tf.data.Dataset.range(3),
                (tf.data.Dataset.range(3).batch(1), {"k": tf.data.Dataset.range(4)}),
            )
        ),
    ),
    (
        "enumerate_tuple",
        lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).enumerate(),
    ),
    (
        "flat_map_zip",
        lambda tf: tf.data.Dataset.range(3).flat_map(
            lambda x: tf.data.Dataset.zip(
                (tf.data.Dataset.range(x), tf.data.Dataset.range(x).map(lambda y: y * x))
            )
        ),
    ),
    (
        "interleave_default_block",
        lambda tf: tf.data.Dataset.range(3).interleave(
            lambda x: tf.data.Dataset.range(10 * x, 10 * x + 4), cycle_length=2
        ),
    ),
    ("shard_even", lambda tf: tf.data.Dataset.range(9).shard(3, 2)),
    ("skip_take_repeat", lambda tf: tf.data.Dataset.range(6).skip(2).take(3).repeat(2).batch(4)),
    ("map_tf_function", lambda tf: tf.data.Dataset.range(4).map(tf.function(lambda x: x * 3))),
    (
        "padded_batch_larger_than_known",
        lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2)).padded_batch(
            2, padded_shapes=[4]
        ),
    ),
    (
        "padded_batch_2d",
        lambda tf: (
            _fill(tf)
            .map(lambda v: tf.reshape(v, [-1, 1]))
            .padded_batch(2, padded_shapes=[None, 3], padding_values=7.0)
        ),
    ),
    ("unbatch", lambda tf: tf.data.Dataset.range(7).batch(3).unbatch()),
    ("rebatch", lambda tf: tf.data.Dataset.range(10).batch(4).rebatch(3)),
    (
        "rebatch_drop_remainder",
        lambda tf: tf.data.Dataset.range(10).batch(4).rebatch(3, drop_remainder=True),
    ),
    ("rebatch_sizes", lambda tf: tf.data.Dataset.range(10).batch(4).rebatch([2, 1])),
    (
        "rebatch_equal_sizes",
        lambda tf: (
            tf.data.Dataset.range(10)
            .batch(4, drop_remainder=True)
            .rebatch([2, 2], drop_remainder=True)
        ),
    ),
    (
        "rebatch_sizes_drop",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices({"a": np.arange(20).reshape(10, 2)})
            .batch(4)
            .rebatch([2, 3], drop_remainder=True)
        ),
    ),
    (
        "unbatch_static",
        lambda tf: tf.data.Dataset.from_tensors((np.zeros((3, 2)), [1, 2, 3])).unbatch(),
    ),
    ("take", lambda tf: tf.data.Dataset.range(10).take(4)),
    ("take_all", lambda tf: tf.data.Dataset.range(3).take(-1)),
    ("take_of_infinite", lambda tf: tf.data.Dataset.range(3).repeat().take(7)),
    ("skip", lambda tf: tf.data.Dataset.range(10).skip(7)),
    ("skip_all", lambda tf: tf.data.Dataset.range(3).skip(-1)),
    ("repeat", lambda tf: tf.data.Dataset.range(3).repeat(3)),
    ("repeat_empty_forever", lambda tf: tf.data.Dataset.range(0).repeat()),
    ("enumerate", lambda tf: tf.data.Dataset.from_tensor_slices([5.0, 6.0]).enumerate(start=3)),
    ("prefetch", lambda tf: tf.data.Dataset.range(4).prefetch(tf.data.experimental.AUTOTUNE)),
    ("cache", lambda tf: tf.data.Dataset.range(4).map(lambda x: x * x).cache().repeat(2)),
    (
        "flat_map",
        lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(
            tf.data.Dataset.from_tensor_slices
        ),
    ),
    (
        "flat_map_varying",
        lambda tf: tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)),
    ),
    (
        "interleave",
        lambda tf: tf.data.Dataset.range(1, 6).interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1
        ),
    ),
    (
        "interleave_blocks",
        lambda tf: tf.data.Dataset.range(1, 6).interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(6 - x), cycle_length=3, block_length=2
        ),
    ),
    (
        "interleave_parallel",
        lambda tf: tf.data.Dataset.range(4).interleave(
            lambda x: tf.data.Dataset.range(x, x + 3),
            cycle_length=4,
            num_parallel_calls=2,
            deterministic=True,
        ),
    ),
    (
        "scan",
        lambda tf: tf.data.Dataset.range(6).scan(
            tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10)
        ),
    ),
    ("unique", lambda tf: tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1, 5]).unique()),
    ("shard", lambda tf: tf.data.Dataset.range(10).shard(3, 1)),
    ("take_while", lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 4)),
    ("apply", lambda tf: tf.data.Dataset.range(5).apply(lambda ds: ds.skip(1).take(2))),
    ("with_options", lambda tf: tf.data.Dataset.range(3).with_options(tf.data.Options())),
    ("shuffle_buffer_1_keeps_order", lambda tf: tf.data.Dataset.range(6).shuffle(1, seed=4)),
]


@pytest.mark.parametrize("build", [b for _, b in PIPELINES], ids=[n for n, _ in PIPELINES])
def test_pipeline_is_tfs(build):
    check_same_dataset(build)


# (name, build): infinite or unknown datasets, whose spec and cardinality are compared.
CARDINALITIES = [
    ("repeat_forever", lambda tf: tf.data.Dataset.range(3).repeat()),
    ("filter", lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0)),
    ("filter_of_infinite", lambda tf: tf.data.Dataset.range(3).repeat().filter(lambda x: x > 0)),
    ("repeat_of_unknown", lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).repeat()),
    ("repeat_twice_unknown", lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).repeat(2)),
    ("take_of_unknown", lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).take(2)),
    ("skip_of_unknown", lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).skip(1)),
    ("skip_of_infinite", lambda tf: tf.data.Dataset.range(3).repeat().skip(2)),
    ("batch_of_infinite", lambda tf: tf.data.Dataset.range(3).repeat().batch(4)),
    ("unbatch_unknown", lambda tf: tf.data.Dataset.range(6).batch(4).unbatch()),
    ("unbatch_static", lambda tf: tf.data.Dataset.range(6).batch(2, drop_remainder=True).unbatch()),
    (
        "zip_infinite",
        lambda tf: tf.data.Dataset.zip(
            (tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(2).repeat())
        ),
    ),
    (
        "zip_unknown",
        lambda tf: tf.data.Dataset.zip(
            (tf.data.Dataset.range(3).filter(lambda x: x > 0), tf.data.Dataset.range(2))
        ),
    ),
    (
        "concatenate_infinite",
        lambda tf: (
            tf.data.Dataset.range(3)
            .filter(lambda x: x > 0)
            .concatenate(tf.data.Dataset.range(2).repeat())
        ),
    ),
    (
        "concatenate_unknown",
        lambda tf: (
            tf.data.Dataset.range(3).filter(lambda x: x > 0).concatenate(tf.data.Dataset.range(2))
        ),
    ),
    ("shard_of_infinite", lambda tf: tf.data.Dataset.range(3).repeat().shard(2, 0)),
    ("enumerate_infinite", lambda tf: tf.data.Dataset.range(3).repeat().enumerate()),
    ("shuffle", lambda tf: tf.data.Dataset.range(9).shuffle(4)),
    ("flat_map", lambda tf: tf.data.Dataset.range(3).flat_map(lambda x: tf.data.Dataset.range(x))),
    (
        "generator",
        lambda tf: tf.data.Dataset.from_generator(
            _gen, output_signature=(tf.TensorSpec(None, tf.float32), tf.TensorSpec([], tf.int32))
        ),
    ),
]


@pytest.mark.parametrize("build", [b for _, b in CARDINALITIES], ids=[n for n, _ in CARDINALITIES])
def test_spec_and_cardinality_are_tfs(build):
    check_same_dataset(build, iterate=False)


def test_cardinality_constants_and_autotune_are_tfs():
    for name in ("INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AUTOTUNE"):
        assert getattr(tapejax.data, name) == getattr(tensorflow.data, name)
        assert getattr(tapejax.data.experimental, name) == getattr(
            tensorflow.data.experimental, name
        )
    import tapejax.data.experimental as experimental

    assert experimental is tapejax.data.experimental
    assert tapejax.data.experimental.INFINITE_CARDINALITY == -1


def test_len_is_tfs():
    assert (
        len(tapejax.data.Dataset.range(2, 9, 2)) == len(tensorflow.data.Dataset.range(2, 9, 2)) == 4
    )
    for build in (
        lambda tf: len(tf.data.Dataset.range(3).repeat()),
        lambda tf: len(tf.data.Dataset.range(3).filter(lambda x: x > 1)),
    ):
        want, got = raised(build, tensorflow), raised(build, tapejax)
        assert (type(got), str(got)) == (type(want), str(want))


# (build(tf), error type name, regex of TF's text): errors at construction or iteration.
ERRORS = [
    (
        lambda tf: tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4))),
        "ValueError",
        r"^Dimensions 3 and 4 are not compatible$",
    ),
    (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.float32(1)),
        "ValueError",
        r"^Unbatching a tensor is only supported for rank >= 1$",
    ),
    (
        lambda tf: list(tf.data.Dataset.range(2, 4).map(lambda x: tf.zeros([x])).batch(2)),
        "InvalidArgumentError",
        r"Cannot add tensor to the batch: number of elements does not match. Shapes are: \[tensor\]: \[[23]\], \[batch\]: \[[23]\] \[Op:IteratorGetNext\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).batch(0),
        "InvalidArgumentError",
        r"Batch size must be greater than zero. \[Op:BatchDatasetV2\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).padded_batch(-1),
        "InvalidArgumentError",
        r"Batch size must be greater than zero.",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).shuffle(0),
        "InvalidArgumentError",
        r"buffer_size must be greater than zero or UNKNOWN_CARDINALITY \[Op:ShuffleDatasetV3\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).filter(lambda x: x),
        "ValueError",
        r"^Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is TensorSpec\(shape=\(\), dtype=tf.int64, name=None\).$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).take_while(lambda x: x),
        "ValueError",
        r"^Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its return type isTensorSpec\(shape=\(\), dtype=tf.int64, name=None\).$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).reduce(
            tf.constant(0, tf.int32), lambda s, x: tf.cast(s, tf.float32)
        ),
        "TypeError",
        r"^The element types for the new state must match the initial state. Expected <dtype: 'int32'> but got <dtype: 'float32'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).scan(
            (0, {"a": 1.0}), lambda s, x: ((s[0] + 1, {"a": tf.cast(s[1]["a"], tf.float64)}), x)
        ),
        "TypeError",
        r"^Invalid `scan_func`. The element types for the new state must match the initial state. Expected \(tf.int32, \{'a': tf.float32\}\), got \(tf.int32, \{'a': tf.float64\}\).$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).unbatch(),
        "ValueError",
        r"^Cannot unbatch an input with scalar components.$",
    ),
    (
        lambda tf: tf.data.Dataset.zip(
            (
                tf.data.Dataset.from_tensors(tf.zeros([2])),
                tf.data.Dataset.from_tensors(tf.zeros([3])),
            )
        ).unbatch(),
        "ValueError",
        r"^`unbatch\(\)` is only supported for datasets of elements whose components have a matching leading dimension. Encountered both 2 and 3.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).concatenate(
            tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32))
        ),
        "TypeError",
        r"^Incompatible dataset elements:\n  TensorSpec\(shape=\(\), dtype=tf.int64, name=None\) vs.   TensorSpec\(shape=\(\), dtype=tf.float32, name=None\)$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).shard(0, 0),
        "InvalidArgumentError",
        r"Number of shards must be greater than zero \(currently num_shards = 0\). \[Op:ShardDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).shard(2, 2),
        "InvalidArgumentError",
        r"Index must be between 0 and 1 \(currently index = 2\). \[Op:ShardDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.from_tensors(1).padded_batch(2, padded_shapes=[3]),
        "ValueError",
        r"^The padded shape \(3,\) is not compatible with the shape \(\) of the corresponding input component.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_tensors([1, 2, 3]).padded_batch(2, padded_shapes=[2]),
        "ValueError",
        r"^The padded shape \(2,\) is not compatible with the shape \(3,\) of the corresponding input component.$",
    ),
    (
        lambda tf: list(
            tf.data.Dataset.range(2, 5)
            .map(lambda x: tf.zeros([x]))
            .padded_batch(2, padded_shapes=[3])
        ),
        "DataLossError",
        r"Attempted to pad to a smaller size than the input element. \[Op:IteratorGetNext\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).get_single_element(),
        "InvalidArgumentError",
        r"Dataset had more than one element. \[Op:DatasetToSingleElement\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(0).get_single_element(),
        "InvalidArgumentError",
        r"Dataset was empty. \[Op:DatasetToSingleElement\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).flat_map(lambda x: (x,)),
        "TypeError",
        r"^The `map_func` argument must return a `Dataset` object. Got <class 'tuple'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).interleave(lambda x: {"a": x}, cycle_length=1),
        "TypeError",
        r"^The `map_func` argument must return a `Dataset` object. Got <class 'dict'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).apply(lambda ds: 3),
        "TypeError",
        r"^`transformation_func` must return a `tf.data.Dataset` object. Got <class 'int'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_tensor_slices([1.0, 2.0]).unique(),
        "TypeError",
        r"^`tf.data.Dataset.unique` does not support type <dtype: 'float32'> -- only `tf.int32`, `tf.int64`, and `tf.string` are supported.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_generator(_gen),
        "TypeError",
        r"^To specify the output signature you need to provide either the `output_signature` argument or the `output_types` argument.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_generator(
            _gen, output_types=tf.int32, output_signature=tf.TensorSpec([])
        ),
        "TypeError",
        r"^The `output_types` argument can not be used together with the `output_signature` argument.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_generator(_gen, output_signature=(tf.float32, tf.int32)),
        "TypeError",
        r"^`output_signature` must contain objects that are subclass of `tf.TypeSpec` but found <class '.*DType'> which is not.$",
    ),
    (
        lambda tf: tf.data.Dataset.from_generator(3, output_signature=tf.TensorSpec([])),
        "TypeError",
        r"^`generator` must be a Python callable.$",
    ),
    (
        lambda tf: tf.data.Dataset.zip([tf.data.Dataset.range(2), tf.data.Dataset.range(3)]),
        "TypeError",
        r"^Invalid input to `zip`. Inputs are expected to be \(nested\) structures of `tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` instead.$",
    ),
    (
        lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(2), 3)),
        "TypeError",
        r"^Invalid input to `zip`. Inputs are expected to be \(nested\) structures of `tf.data.Dataset` objects but encountered object of type <class 'int'>.$",
    ),
    (lambda tf: tf.data.Dataset.zip(), "TypeError", r"^Must pass at least one dataset to `zip`.$"),
    (
        lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(2), datasets=tf.data.Dataset.range(2)),
        "TypeError",
        r"^Both `\*args` and `datasets` cannot be set.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(10).rebatch(3),
        "ValueError",
        r"^Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset with scalar elements. Fix the issue by adding the `batch` transformation to the dataset.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(10).batch(2).rebatch([[1]]),
        "ValueError",
        r"^Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. Received `batch_sizes` of rank 2.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(),
        "ValueError",
        r"^Invalid `args`. The length of `args` should be between 1 and 3 but was 0.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(1, 2, 3, 4),
        "ValueError",
        r"^Invalid `args`. The length of `args` should be between 1 and 3 but was 4.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(1, 2, 0),
        "InvalidArgumentError",
        r"step must be a non-zero integer. \[Op:RangeDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.from_tensors([1, 2]).padded_batch(
            2, padded_shapes=[3], padding_values=1.5
        ),
        "TypeError",
        r"^Invalid `padding_values`. `padding_values` values type <dtype: 'float32'> does not match type <dtype: 'int32'> of the corresponding input component.$",
    ),
    (lambda tf: next(iter(tf.data.Dataset.range(0))), "StopIteration", r"^$"),
    (lambda tf: iter(tf.data.Dataset.range(0)).get_next(), "OutOfRangeError", r"End of sequence"),
    (
        lambda tf: setattr(tf.data.Options(), "no_such_option", 1),
        "AttributeError",
        r"^Cannot set the property no_such_option on Options.$",
    ),
]


@pytest.mark.parametrize("build, error, message", ERRORS)
def test_errors_are_tfs(build, error, message):
    check_error(build, error, message)


@pytest.mark.parametrize(
    "values, message",
    [
        (
            [[1.0, 2.0], [1.0]],
            r"TypeError: `generator` yielded an element of shape \(1,\) where an element of shape \(2,\) was expected.",
        ),
        (
            [[1.0, 2.0], "ab"],
            r"TypeError: `generator` yielded an element that could not be converted to the expected type. The expected type was float32, but the yielded element was ab.",
        ),
    ],
)
def test_generator_yielding_a_wrong_element_is_tfs_error(values, message):
    def build(tf):
        ds = tf.data.Dataset.from_generator(
            lambda: iter(values), output_signature=tf.TensorSpec([2])
        )
        it = iter(ds)
        assert next(it).shape.as_list() == [2]
        next(it)

    check_error(build, "InvalidArgumentError", message)


def test_rebatch_refuses_a_zero_size():
    """TF loops forever on it (docs/compat.md)."""
    for sizes in (0, [2, 0], []):
        with pytest.raises(
            tapejax.errors.InvalidArgumentError, match="rebatch's sizes must be positive"
        ):
            tapejax.data.Dataset.range(4).batch(2).rebatch(sizes)


def test_cache_keeps_only_a_complete_first_iteration():
    calls = []

    def count(x):
        calls.append(1)
        return x

    ds = (
        tapejax.data.Dataset.range(4)
        .map(lambda x: tapejax.py_function(count, [x], tapejax.int64))
        .cache()
    )
    traced = len(calls)
    assert [int(x) for x in ds.take(2)] == [0, 1]  # partial: not kept
    assert [int(x) for x in ds] == [0, 1, 2, 3]
    assert [int(x) for x in ds] == [0, 1, 2, 3]  # replayed from memory
    assert len(calls) - traced == 2 + 4


def test_sparse_components_are_not_provided():
    sparse = tapejax.SparseTensor([[0]], [1.0], [2])
    for build in (tapejax.data.Dataset.from_tensors, tapejax.data.Dataset.from_tensor_slices):
        with pytest.raises(
            NotImplementedError,
            match="SparseTensor and IndexedSlices components are not provided",
        ):
            build(sparse)


def test_cache_to_a_file_is_not_provided():
    with pytest.raises(NotImplementedError, match=r"Dataset.cache\(filename=...\)"):
        tapejax.data.Dataset.range(3).cache("/tmp/cache")


def test_what_is_not_provided_does_not_exist():
    for name in ("TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset"):
        assert hasattr(tensorflow.data, name), name
        assert not hasattr(tapejax.data, name), name


def test_method_signatures_are_tfs():
    """Keyword calls (``ds.batch(batch_size=4, drop_remainder=True)``) work as in TF."""
    names = [n for n in dir(tapejax.data.Dataset) if not n.startswith("_")]
    assert len(names) > 30
    for name in names:
        ours, theirs = getattr(tapejax.data.Dataset, name), getattr(tensorflow.data.Dataset, name)
        if isinstance(ours, property):
            assert isinstance(theirs, property), name
            continue
        assert list(inspect.signature(ours).parameters) == list(
            inspect.signature(theirs).parameters
        ), name


# -- iteration -----------------------------------------------------------------------------


def test_each_iter_restarts_and_get_next_steps():
    ds = tapejax.data.Dataset.range(3).map(lambda x: x + 1)
    it = iter(ds)
    assert int(it.get_next()) == 1 and int(next(it)) == 2
    assert [int(x) for x in ds] == [1, 2, 3]  # a new iterator starts over
    assert [int(x) for x in it] == [3]
    assert repr(it.element_spec) == repr(ds.element_spec)


def test_as_numpy_iterator_is_tfs():
    def build(tf):
        return tf.data.Dataset.from_tensor_slices(
            ({"a": [1, 2]}, [[1.0], [2.0]])
        ).as_numpy_iterator()

    want, got = list(build(tensorflow)), list(build(tapejax))
    assert len(got) == len(want) == 2
    for (gd, ga), (wd, wa) in zip(got, want):
        assert type(gd["a"]) is type(wd["a"]) and gd["a"] == wd["a"]
        assert type(ga) is type(wa) and ga.dtype == wa.dtype
        np.testing.assert_array_equal(ga, wa)


def test_reduce_is_tfs():
    for fw in (tensorflow, tapejax):
        total = fw.data.Dataset.range(5).reduce(fw.constant(0, fw.int64), lambda s, x: s + x)
        assert int(total) == 10 and total.dtype.name == "int64"
    pair = tapejax.data.Dataset.from_tensor_slices(([1.0, 2.0], [3.0, 4.0])).reduce(
        (0.0, 0.0), lambda s, e: (s[0] + e[0], s[1] * 0 + e[1])
    )
    assert [float(v) for v in pair] == [3.0, 4.0]


def test_get_single_element_is_tfs():
    build = lambda tf: tf.data.Dataset.from_tensors({"a": [1, 2]}).get_single_element()  # noqa: E731
    assert_same_element(build(tapejax), build(tensorflow))


def test_options_are_kept():
    options = tapejax.data.Options()
    options.deterministic = False
    options.threading.private_threadpool_size = 2
    ds = tapejax.data.Dataset.range(3).with_options(options).map(lambda x: x)
    assert ds.options().deterministic is False
    assert ds.options().threading.private_threadpool_size == 2
    assert tapejax.data.Options().deterministic is None


def test_map_does_not_record_on_an_active_tape():
    x = tapejax.Variable(2.0)
    with tapejax.GradientTape() as tape:
        ds = tapejax.data.Dataset.range(2).map(lambda i: tapejax.cast(i, tapejax.float32) * x)
        total = sum(ds)
    assert tape.gradient(total, x) is None


def test_map_assigning_a_variable_is_not_left_with_a_tracer():
    counter = tapejax.Variable(0)

    def fn(x):
        counter.assign_add(1)
        return x

    ds = tapejax.data.Dataset.range(3).map(fn)
    assert int(counter) == 0  # the abstract run is undone
    assert len(list(ds)) == 3 and int(counter) == 3


# -- map and filter traced once -----------------------------------------------------------


def _calls_and_values(fw, build_fn, build, epochs=2):
    """How often the function ``build_fn(fw, calls)`` gives ran (its Python body appends
    to ``calls``) after ``build(fw, fn)`` and after each of ``epochs`` iterations, and the
    values (as lists) of each epoch."""
    calls = []
    ds = build(fw, build_fn(fw, calls))
    counts, values = [len(calls)], []
    for _ in range(epochs):
        values.append([np.asarray(x).tolist() for x in ds.as_numpy_iterator()])
        counts.append(len(calls))
    return counts, values


def _counting_double(fw, calls):
    def fn(x):
        calls.append(1)
        return x * 2

    return fn


def _counting_is_even(fw, calls):
    def fn(x):
        calls.append(1)
        return x % 2 == 0

    return fn


@pytest.mark.parametrize(
    "build_fn, build, ordered",
    [
        (_counting_double, lambda fw, fn: fw.data.Dataset.range(5).map(fn), True),
        (
            _counting_double,
            lambda fw, fn: fw.data.Dataset.range(5).shuffle(3, seed=1).map(fn),
            False,  # shuffle's order is not TF's
        ),
        (_counting_double, lambda fw, fn: fw.data.Dataset.range(7).batch(2, True).map(fn), True),
        (_counting_is_even, lambda fw, fn: fw.data.Dataset.range(6).filter(fn), True),
    ],
    ids=["map", "map_after_shuffle", "map_after_batch", "filter"],
)
def test_python_side_effects_run_once_at_trace_as_tfs(build_fn, build, ordered):
    got = _calls_and_values(tapejax, build_fn, build)
    want = _calls_and_values(tensorflow, build_fn, build)
    assert got[0] == want[0] == [1, 1, 1]
    if ordered:
        assert got[1] == want[1]
    else:
        assert [sorted(v) for v in got[1]] == [sorted(v) for v in want[1]]


def test_map_function_is_traced_once_for_a_thousand_elements():
    traces = []

    def fn(x, y):
        traces.append(tapejax.is_symbolic_tensor(x))
        return tapejax.cast(x, tapejax.float32) / 255, y + 1

    images = np.arange(1000 * 4, dtype=np.uint8).reshape(1000, 4)
    for source in (
        tapejax.data.Dataset.from_tensor_slices((images, np.arange(1000))),
        tapejax.data.Dataset.from_generator(
            lambda: zip(images, range(1000)),
            output_signature=(tapejax.TensorSpec([4], tapejax.uint8), tapejax.TensorSpec([])),
        ),
    ):
        traces.clear()
        ds = source.map(fn).shuffle(64, seed=3).batch(128)
        total = sum(float(tapejax.reduce_sum(x)) for x, _ in ds)
        assert total == pytest.approx(float(np.sum(images / np.float32(255))), rel=1e-5)
        assert traces == [True]  # one trace, on symbolic tensors; none per element


@pytest.mark.parametrize("lengths, traces", [(3, 3), (12, 8)])
def test_map_with_unknown_dims_is_traced_once_per_element_shape(lengths, traces):
    """Two traces find the spec; then one per element shape, for at most 8 shapes (the
    elements of further shapes run eagerly, once each per epoch)."""

    def build(tf, calls):
        def fn(v, n):
            calls.append(1)
            return v * 2.0, n + 1

        return tf.data.Dataset.from_generator(
            lambda: ((np.ones(k % lengths, np.float32), k) for k in range(2 * lengths)),
            output_signature=(tf.TensorSpec([None]), tf.TensorSpec([], tf.int64)),
        ).map(fn)

    check_same_dataset(lambda fw: build(fw, []))
    calls = []
    ds = build(tapejax, calls)
    assert len(calls) == 2
    eager_per_epoch = 2 * (lengths - traces)
    list(ds)
    assert len(calls) == 2 + traces + eager_per_epoch
    list(ds)
    assert len(calls) == 2 + traces + 2 * eager_per_epoch


def test_compiled_map_float_results_are_tfs_within_rounding():
    """XLA may fuse a multiply and an add, and sum a reduction over a block in another
    order: the results are TF's within a float's rounding (docs/compat.md)."""
    values = np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32)

    def build(tf):
        return tf.data.Dataset.from_tensor_slices(values).map(
            lambda v: (v * 0.3 + 0.1, tf.reduce_sum(v * v), tf.exp(v) / tf.reduce_max(v))
        )

    got, want = list(build(tapejax)), list(build(tensorflow))
    assert len(got) == len(want) == 300
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            assert a.dtype.name == b.dtype.name and a.shape.as_list() == b.shape.as_list()
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-6)


def test_map_reading_a_variable_sees_its_value_each_epoch_as_tfs():
    def epochs(fw):
        v = fw.Variable(1.0)
        ds = fw.data.Dataset.range(3).map(lambda x: fw.cast(x, fw.float32) * v)
        first = [float(x) for x in ds]
        v.assign(10.0)
        return first, [float(x) for x in ds]

    assert epochs(tapejax) == epochs(tensorflow) == ([0.0, 1.0, 2.0], [0.0, 10.0, 20.0])


@pytest.mark.parametrize(
    "draw",
    [
        lambda tf, x: tf.random.uniform([]) + tf.cast(x, tf.float32) * 0,
        lambda tf, x: tf.random.normal([2], seed=7)[0] + tf.cast(x, tf.float32) * 0,
    ],
    ids=["uniform", "normal_op_seed"],
)
def test_map_with_a_stateful_random_op_draws_per_element_as_tfs(draw):
    for fw in (tapejax, tensorflow):
        ds = fw.data.Dataset.range(6).map(lambda x, fw=fw: draw(fw, x))
        assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.float32, name=None)"
        first = [float(x) for x in ds]
        assert len(set(first)) == 6, fw.__name__


def _assert_below_4(tf, calls):
    def fn(x):
        calls.append(1)
        with tf.control_dependencies([tf.debugging.assert_less(x, tf.constant(4, tf.int64))]):
            return tf.identity(x) * 3

    return fn


def _ints_before_the_error(fw, ds):
    """The int elements ``ds`` gives before it raises ``InvalidArgumentError`` (it must)."""
    got = []
    it = iter(ds)
    with pytest.raises(fw.errors.InvalidArgumentError):
        while True:
            got.append(int(next(it)))
    return got


def test_map_assertion_fails_at_the_element_tf_fails_at():
    """A function holding a run-time check runs eagerly per element (so its Python body
    runs per element, where TF's runs once): the check fails at TF's element."""

    def run(fw):
        calls = []
        ds = fw.data.Dataset.range(8).map(_assert_below_4(fw, calls))
        return _ints_before_the_error(fw, ds), len(calls)

    got, want = run(tapejax), run(tensorflow)
    assert got[0] == want[0] == [0, 3, 6, 9]
    assert want[1] == 1 and got[1] > 4  # the fallback: eager per element


@pytest.mark.parametrize(
    "fn",
    [
        lambda tf, x: tf.numpy_function(lambda a: a + 1, [x], tf.int64),
        lambda tf, x: tf.py_function(lambda a: a + 1, [x], tf.int64),
    ],
    ids=["numpy_function", "py_function"],
)
def test_map_calling_python_runs_it_per_element_as_tfs(fn):
    def run(fw):
        seen = []

        def call(x):
            seen.append(1)
            return fn(fw, x)

        ds = fw.data.Dataset.range(4).map(call)
        return [int(x) for x in ds]

    assert run(tapejax) == run(tensorflow) == [1, 2, 3, 4]


def test_map_printing_prints_each_element_as_tfs(capfd):
    import sys

    for fw in (tapejax, tensorflow):
        ds = fw.data.Dataset.range(3).map(
            lambda x, fw=fw: (fw.print("element", x, output_stream=sys.stdout), x + 1)[1]
        )
        assert [int(x) for x in ds] == [1, 2, 3]
        sys.stdout.flush()
        printed = [line for line in capfd.readouterr().out.splitlines() if line]
        assert printed == ["element 0", "element 1", "element 2"], fw.__name__


def _pulled_from_a_generator(fw, n, transform):
    """``(elements, pulled)``: the int elements of ``transform`` applied to a dataset of a
    Python generator of ``range(n)``, and the generator's elements pulled, in order."""
    log = []

    def gen():
        for i in range(n):
            log.append(i)
            yield i

    ds = fw.data.Dataset.from_generator(gen, output_signature=fw.TensorSpec([], fw.int64))
    return [int(x) for x in transform(ds)], log


def test_compiled_map_does_not_pull_a_generator_ahead():
    """Elements of a Python generator are pulled one at a time, as they are needed (TF's
    from_generator runs one element ahead)."""

    def pulled(fw):
        return _pulled_from_a_generator(fw, 10, lambda ds: ds.map(lambda x: x * 2).take(3))

    (got, got_log), (want, want_log) = pulled(tapejax), pulled(tensorflow)
    assert got == want == [0, 2, 4]
    assert got_log == [0, 1, 2] and want_log[:3] == got_log


def test_a_map_of_many_shapes_is_not_pulled_ahead_by_a_compiled_map():
    """A map whose input leaves a dim unknown runs the Python function for each new shape
    (a trace, or eagerly past 8 shapes): a compiled map after it pulls its elements one
    at a time, as needed."""
    calls = []

    def fn(v):
        calls.append(1)
        return tapejax.reduce_sum(v + 1.0)

    ds = tapejax.data.Dataset.from_tensors(np.zeros(0, np.float32))
    for n in range(1, 12):
        ds = ds.concatenate(tapejax.data.Dataset.from_tensors(np.zeros(n, np.float32)))
    ds = ds.map(fn)
    assert len(calls) == 2
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.float32, name=None)"
    got = [float(x) for x in ds.map(lambda x: x * 2.0).take(3)]
    assert got == [0.0, 2.0, 4.0] and len(calls) == 2 + 3


def _elements_then_an_error(n):
    """Host elements 0..n-1 (int64 scalars), then the input's ``InvalidArgumentError``."""
    for i in range(n):
        yield np.asarray(i, np.int64)
    raise tapejax.errors.InvalidArgumentError(None, None, "input failed")


def test_compiled_map_over_blocks_raises_an_input_error_after_the_elements_before_it():
    from tapejax._src.data import compiled, structure

    elements = functools.partial(_elements_then_an_error, 5)
    spec = tapejax.TensorSpec([], tapejax.int64)
    traced = compiled.trace(lambda x: structure.returned(x * 2), spec)
    assert traced is not None and traced.compiled
    got = []
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="input failed"):
        for _, out in traced.results(elements(), None, prefetchable=True):
            got.append(int(out))
    assert got == [0, 2, 4, 6, 8]


# -- take_while, scan and reduce traced once ---------------------------------------------


def _counting_below_5(fw, calls):
    def fn(x):
        calls.append(1)
        return x < 5

    return fn


def _counting_running_sum(fw, calls):
    def fn(state, x):
        calls.append(1)
        return state + x, state * 2

    return fn


@pytest.mark.parametrize(
    "build",
    [
        lambda fw, fn: fw.data.Dataset.range(9).take_while(fn),
        lambda fw, fn: fw.data.Dataset.range(600).take_while(lambda x: x < 400).take_while(fn),
        lambda fw, fn: fw.data.Dataset.range(9).map(lambda x: x * 2).take_while(fn),
    ],
    ids=["take_while", "take_while_after_take_while", "take_while_after_map"],
)
def test_take_while_python_side_effects_run_once_as_tfs(build):
    got = _calls_and_values(tapejax, _counting_below_5, build)
    want = _calls_and_values(tensorflow, _counting_below_5, build)
    assert got == want
    assert got[0] == [1, 1, 1]


SCANS = [
    (
        "int64",
        lambda tf: tf.data.Dataset.range(6).scan(
            tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10)
        ),
    ),
    ("python_int_state", lambda tf: tf.data.Dataset.range(5).scan(0, lambda s, x: (s + 1, (s, x)))),
    (
        "float",
        lambda tf: tf.data.Dataset.from_tensor_slices(np.linspace(0, 1, 7, dtype=np.float32)).scan(
            1.0, lambda s, x: (s * 0.5 + x, s - x)
        ),
    ),
    (
        "tuple_state",
        lambda tf: tf.data.Dataset.range(5).scan(
            (0, 0.0),
            lambda s, x: ((s[0] + 1, s[1] + tf.cast(x, tf.float32)), {"n": s[0], "total": s[1]}),
        ),
    ),
    (
        "dict_state",
        lambda tf: tf.data.Dataset.range(5).scan(
            {"m": tf.constant(-1, tf.int64), "k": 2},
            lambda s, x: (
                {"m": tf.maximum(s["m"], 3 - x), "k": s["k"] * 2},
                s["m"] + tf.cast(s["k"], tf.int64),
            ),
        ),
    ),
    (
        "namedtuple_element",
        lambda tf: tf.data.Dataset.from_tensor_slices(Point([1, 2, 3], [4.0, 5.0, 6.0])).scan(
            0.0, lambda s, p: (s + p.y, tf.cast(p.x, tf.float32) * s)
        ),
    ),
    (
        "vector_state_after_batch",
        lambda tf: (
            tf.data.Dataset.range(10)
            .batch(2, True)
            .scan(tf.zeros([2], tf.int64), lambda s, b: (s + b, tf.reduce_sum(s)))
        ),
    ),
    (
        "blocks_of_600",
        lambda tf: tf.data.Dataset.range(600).scan(
            tf.constant(0, tf.int64), lambda s, x: (s + x * x, s % 1000)
        ),
    ),
    (
        "generator_input",
        lambda tf: tf.data.Dataset.from_generator(
            lambda: iter(range(7)), output_signature=tf.TensorSpec([], tf.int64)
        ).scan(tf.constant(1, tf.int64), lambda s, x: (s * 2 + x, s)),
    ),
    (
        "state_shape_changes",
        lambda tf: tf.data.Dataset.range(4).scan(
            tf.constant([], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))
        ),
    ),
    (
        "take_after_scan",
        lambda tf: (
            tf.data.Dataset.range(1000)
            .scan(tf.constant(0, tf.int64), lambda s, x: (s + 1, s))
            .take(300)
            .skip(297)
        ),
    ),
]


@pytest.mark.parametrize("build", [b for _, b in SCANS], ids=[i for i, _ in SCANS])
def test_scan_is_tfs(build):
    check_same_dataset(build)


REDUCES = [
    (
        "int64",
        lambda tf: tf.data.Dataset.range(10).reduce(tf.constant(0, tf.int64), lambda s, x: s + x),
    ),
    ("python_int_state", lambda tf: tf.data.Dataset.range(7).reduce(0, lambda s, x: s + 1)),
    (
        "float",
        lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(9, dtype=np.float32) / 4).reduce(
            0.5, lambda s, x: s * 0.75 + x * x
        ),
    ),
    (
        "tuple_state",
        lambda tf: tf.data.Dataset.range(5).reduce(
            (0, 0.0), lambda s, x: (s[0] + 1, s[1] + tf.cast(x, tf.float32))
        ),
    ),
    (
        "dict_state",
        lambda tf: tf.data.Dataset.range(5).reduce(
            {"n": 0, "m": tf.constant(-1, tf.int64)},
            lambda s, x: {"n": s["n"] + 1, "m": tf.maximum(s["m"], x)},
        ),
    ),
    (
        "tuple_element",
        lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [0.5, 1.5, 2.5])).reduce(
            0.0, lambda s, e: s + tf.cast(e[0], tf.float32) * e[1]
        ),
    ),
    ("empty", lambda tf: tf.data.Dataset.range(0).reduce(0.0, lambda s, x: s + 1.0)),
    (
        "empty_tuple_state",
        lambda tf: tf.data.Dataset.range(0).reduce(
            (tf.constant(3, tf.int64), [1.0, 2.0]), lambda s, x: (s[0] + x, s[1] * 2.0)
        ),
    ),
    (
        "blocks_of_1000",
        lambda tf: tf.data.Dataset.range(1000).reduce(
            tf.constant(0, tf.int64), lambda s, x: s + x * x
        ),
    ),
    (
        "blocks_and_a_rest",
        lambda tf: (
            tf.data.Dataset.range(700)
            .map(lambda x: tf.cast(x, tf.float32))
            .reduce((0.0, 0), lambda s, x: (tf.maximum(s[0], x), s[1] + 1))
        ),
    ),
    (
        "generator_input",
        lambda tf: tf.data.Dataset.from_generator(
            lambda: iter(range(5)), output_signature=tf.TensorSpec([], tf.int64)
        ).reduce(tf.constant(1, tf.int64), lambda s, x: s * 3 + x),
    ),
    (
        "state_shape_changes",
        lambda tf: tf.data.Dataset.range(4).reduce(
            tf.constant([], tf.int64), lambda s, x: tf.concat([s, [x]], 0)
        ),
    ),
    (
        "after_scan",
        lambda tf: (
            tf.data.Dataset.range(300)
            .scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s))
            .reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
        ),
    ),
]


@pytest.mark.parametrize("build", [b for _, b in REDUCES], ids=[i for i, _ in REDUCES])
def test_reduce_values_and_dtypes_are_tfs(build):
    want = build(tensorflow)
    got = build(tapejax)
    assert_same_element(got, want, "state")


def _counting(build, fw):
    calls = []

    def counted(fn):
        def wrapper(*args):
            calls.append(1)
            return fn(*args)

        return wrapper

    result = build(fw, counted)
    return calls, result


@pytest.mark.parametrize(
    "build",
    [
        lambda fw, counted: fw.data.Dataset.range(50).reduce(
            fw.constant(0, fw.int64), counted(lambda s, x: s + x)
        ),
        lambda fw, counted: fw.data.Dataset.range(400).reduce(
            (0, 1.0), counted(lambda s, x: (s[0] + 1, s[1] * 1.01))
        ),
        lambda fw, counted: fw.data.Dataset.range(0).reduce(0.0, counted(lambda s, x: s + 1.0)),
        lambda fw, counted: fw.data.Dataset.from_generator(
            lambda: iter(range(5)), output_signature=fw.TensorSpec([], fw.int64)
        ).reduce(fw.constant(0, fw.int64), counted(lambda s, x: s - x)),
        lambda fw, counted: list(
            fw.data.Dataset.range(300)
            .scan(fw.constant(0, fw.int64), counted(lambda s, x: (s + x, s)))
            .as_numpy_iterator()
        ),
        lambda fw, counted: list(
            fw.data.Dataset.range(5)
            .batch(2)
            .scan(0, counted(lambda s, b: (s + 1, b * 2)))
            .as_numpy_iterator()
        ),
    ],
    ids=[
        "reduce",
        "reduce_tuple_state_blocks",
        "reduce_empty",
        "reduce_generator",
        "scan",
        "scan_unknown_dims_in_elements",
    ],
)
def test_scan_and_reduce_python_side_effects_run_once_as_tfs(build, request):
    """As TF, the function runs once, when ``scan``/``reduce`` is called, not per element;
    where the elements' spec leaves a dim unknown (``scan_unknown_dims_in_elements``),
    tapejax runs it eagerly per element instead (docs/compat.md)."""
    unknown_dims = request.node.callspec.id == "scan_unknown_dims_in_elements"
    got_calls, got = _counting(build, tapejax)
    want_calls, want = _counting(build, tensorflow)
    if isinstance(want, list):
        assert [np.asarray(g).tolist() for g in got] == [np.asarray(w).tolist() for w in want]
    else:
        assert_same_element(got, want, "state")
    assert len(want_calls) == 1
    assert len(got_calls) == (2 + 3 if unknown_dims else 1)


def test_scan_and_reduce_functions_are_traced_once_for_a_thousand_elements():
    traces = []

    def step(s, x):
        traces.append(tapejax.is_symbolic_tensor(x))
        return s + tapejax.cast(x, tapejax.float32) / 255

    images = np.arange(1000 * 4, dtype=np.uint8).reshape(1000, 4)
    want = np.sum(images / np.float32(255), axis=0)
    for source in (
        tapejax.data.Dataset.from_tensor_slices(images),
        tapejax.data.Dataset.from_generator(
            lambda: iter(images), output_signature=tapejax.TensorSpec([4], tapejax.uint8)
        ),
    ):
        traces.clear()
        total = source.reduce(tapejax.zeros([4]), step)
        np.testing.assert_allclose(total.numpy(), want, rtol=1e-5)
        assert traces == [True]
        traces.clear()
        outs = list(source.scan(tapejax.zeros([4]), lambda s, x: (step(s, x), s)))
        assert len(outs) == 1000 and traces == [True]
        np.testing.assert_allclose(outs[-1].numpy(), want - images[-1] / np.float32(255), rtol=1e-5)
        traces.clear()
        kept = list(source.take_while(lambda x: step(0.0, x)[0] < 0.9))
        assert len(kept) == 58 and traces == [True]  # 4 * 58 = 232 > 0.9 * 255


@contextlib.contextmanager
def _counting_compiles():
    """A list that grows by one per XLA compilation inside the block (jax.monitoring)."""
    compiles = []

    def on_event(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(duration)

    jax.monitoring.register_event_duration_secs_listener(on_event)
    try:
        yield compiles
    finally:
        jax.monitoring.unregister_event_duration_listener(on_event)


def test_a_reduce_called_again_traces_again_as_tfs_but_compiles_nothing_new():
    """TF traces ``reduce_func`` on each ``reduce`` call (a side effect each call); tapejax
    too, and a trace that prints as an earlier one runs that one's programs."""

    def side_effects(fw):
        log = []

        def step(s, x):
            log.append(1)
            return s + x % 7

        ds = fw.data.Dataset.range(600, output_type=fw.int32)
        results = [int(ds.reduce(np.int32(0), step)) for _ in range(3)]
        return results, len(log)

    assert side_effects(tapejax) == side_effects(tensorflow)
    ds = tapejax.data.Dataset.range(600, output_type=tapejax.int32)
    ds.reduce(np.int32(0), lambda s, x: s + x % 7)  # blocks and single elements compiled
    with _counting_compiles() as compiles:
        for _ in range(3):  # new lambdas, as a loop in user code makes them
            got = int(ds.reduce(np.int32(0), lambda s, x: s + x % 7))
            assert got == sum(i % 7 for i in range(600))
    assert compiles == []
    with _counting_compiles() as compiles:
        for _ in range(3):
            assert [int(x) for x in ds.map(lambda x: x * 3).take(2)] == [0, 3]
    assert len(compiles) <= 1  # the first map's (none if an earlier test compiled it)


def test_shared_programs_tell_captured_values_apart():
    """Functions that differ only in a captured Python number (a literal of the program)
    or a captured tensor (an argument of the program) give their own results."""
    ds = tapejax.data.Dataset.range(10, output_type=tapejax.int32)
    for k in (3, 5, 3):
        assert int(ds.reduce(np.int32(0), lambda s, x: s + x % k))  # noqa: B023 == sum(i % k for i in range(10))
    for m in (1, 2):
        c = tapejax.constant(np.arange(4, dtype=np.int32) * m)
        got = [int(v) for v in ds.take(3).map(lambda x: x * tapejax.reduce_sum(c))]  # noqa: B023
        assert got == [0, 6 * m, 12 * m]


def test_a_function_holding_a_host_callback_gets_programs_of_its_own():
    from tapejax._src.data import compiled

    def with_callback(scale):
        def f(x):
            return jax.pure_callback(
                lambda a: np.asarray(a * scale, np.float32), jax.ShapeDtypeStruct((), np.float32), x
            )

        return jax.make_jaxpr(f)(np.float32(1)).jaxpr

    a, b = compiled._programs_of(with_callback(2)), compiled._programs_of(with_callback(3))
    assert a is not b
    plain = jax.make_jaxpr(lambda x: x * 2)(np.float32(1)).jaxpr
    assert compiled._programs_of(plain) is compiled._programs_of(
        jax.make_jaxpr(lambda y: y * 2)(np.float32(1)).jaxpr
    )


@pytest.mark.parametrize("drop_remainder", [False, True])
def test_batches_cut_from_tensor_slices_are_tfs_and_their_own_copies(drop_remainder):
    """``batch`` right after ``from_tensor_slices`` cuts ranges of the source instead of
    stacking elements: the same batches as TF's, and writing to one changes nothing else."""
    images = np.arange(10 * 3, dtype=np.uint8).reshape(10, 3)
    source = {"x": images, "y": np.arange(10, dtype=np.int32)}
    got = tapejax.data.Dataset.from_tensor_slices(source).batch(4, drop_remainder)
    want = tensorflow.data.Dataset.from_tensor_slices(source).batch(4, drop_remainder)
    assert repr(got.element_spec) == repr(want.element_spec)
    for g, w in zip(list(got), list(want), strict=True):
        assert_same_element(g, w)
    first = next(got.as_numpy_iterator())
    first["x"][...] = 0
    assert int(next(got.as_numpy_iterator())["x"][0, 1]) == 1 and int(images[0, 1]) == 1
    assert list(tapejax.data.Dataset.from_tensor_slices(np.zeros((0, 2))).batch(3)) == []


def test_take_while_does_not_pull_a_generator_past_the_first_false():
    def pulled(fw):
        return _pulled_from_a_generator(fw, 1000, lambda ds: ds.take_while(lambda x: x < 3))

    (got, got_log), (want, want_log) = pulled(tapejax), pulled(tensorflow)
    assert got == want == [0, 1, 2]
    assert got_log == [0, 1, 2, 3] and want_log[:4] == got_log


def test_take_while_over_blocks_stops_at_the_first_false():
    """A prefetchable input is evaluated in blocks: nothing after the first False comes
    out, even where later elements are True again."""

    def build(tf):
        ds = tf.data.Dataset.range(2000).map(lambda x: x % 700)
        return ds.take_while(lambda x: x < 650).concatenate(tf.data.Dataset.range(2))

    check_same_dataset(build)
    assert len(list(build(tapejax))) == 652


def test_reduce_after_an_eager_only_map_runs_eagerly():
    """A map only eager code can run (``.numpy()``) has no element spec before its first
    element: a reduce after it runs eagerly, and over no elements gives the initial state."""
    calls = []

    def eager_only(x):
        calls.append(1)
        return tapejax.constant(int(x.numpy()) * 2)

    def step(s, x):
        return s + tapejax.cast(x, tapejax.int64)

    empty = tapejax.data.Dataset.range(0).map(eager_only)
    assert int(empty.reduce(tapejax.constant(7, tapejax.int64), step)) == 7
    assert int(tapejax.data.Dataset.range(4).map(eager_only).reduce(np.int64(0), step)) == 12


def test_reduce_reading_a_variable_sees_its_value_as_tfs():
    def totals(fw):
        v = fw.Variable(1.0)
        ds = fw.data.Dataset.range(4)

        def step(s, x):
            return s + fw.cast(x, fw.float32) * v

        first = float(ds.reduce(0.0, step))
        v.assign(10.0)
        return (
            first,
            float(ds.reduce(0.0, step)),
            float(ds.scan(0.0, lambda s, x: (step(s, x), s)).reduce(0.0, lambda s, x: s + x)),
        )

    got, want = totals(tapejax), totals(tensorflow)
    assert got == want and got[:2] == (6.0, 60.0)


def test_scan_assertion_fails_at_the_element_tf_fails_at():
    def run(fw):
        calls = []

        def step(s, x):
            calls.append(1)
            with fw.control_dependencies([fw.debugging.assert_less(s, fw.constant(7, fw.int64))]):
                return s + x, fw.identity(s)

        ds = fw.data.Dataset.range(10).scan(fw.constant(0, fw.int64), step)
        return _ints_before_the_error(fw, ds), len(calls)

    got, want = run(tapejax), run(tensorflow)
    assert got[0] == want[0] == [0, 0, 1, 3, 6]
    assert want[1] == 1 and got[1] > 4  # the fallback: eager per element


def test_compiled_scan_over_blocks_raises_an_input_error_after_the_elements_before_it():
    from tapejax._src.data import compiled

    elements = functools.partial(_elements_then_an_error, 600)
    spec = tapejax.TensorSpec([], tapejax.int64)
    traced = compiled.Traced(lambda pair: (pair[0] + pair[1], pair[0] * 2), (spec, spec))
    assert traced.compiled
    got = []
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="input failed"):
        run = traced.fold([np.asarray(0, np.int64)], elements(), None, True, lambda v: int(v[0]))
        for out in run:
            got.append(out)
    assert got == [2 * (i * (i - 1) // 2) for i in range(600)]


# -- shuffle -------------------------------------------------------------------------------


def _order(ds):
    return [int(x) for x in ds]


@pytest.mark.parametrize("buffer_size", [1, 2, 5, 30])
def test_shuffle_moves_elements_only_as_far_as_the_buffer_allows(buffer_size):
    n = 30
    for seed in range(5):
        order = _order(tapejax.data.Dataset.range(n).shuffle(buffer_size, seed=seed))
        assert sorted(order) == list(range(n))  # a permutation
        # Output position j holds an element from the first j + buffer_size inputs.
        assert all(x < j + buffer_size for j, x in enumerate(order)), order


def test_shuffle_buffer_one_is_the_identity_and_larger_buffers_shuffle():
    assert _order(tapejax.data.Dataset.range(10).shuffle(1)) == list(range(10))
    assert _order(tapejax.data.Dataset.range(20).shuffle(20, seed=0)) != list(range(20))


def test_shuffle_is_deterministic_given_seed_and_reshuffles_each_epoch():
    build = lambda seed, **kw: tapejax.data.Dataset.range(20).shuffle(20, seed=seed, **kw)  # noqa: E731
    ds = build(3)
    epochs = [_order(ds) for _ in range(3)]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert len({tuple(e) for e in epochs}) == 3  # a new order each epoch
    assert [_order(build(3)) for _ in range(1)][0] == epochs[0]  # same seed, same orders
    assert _order(build(4)) != epochs[0]
    fixed = build(3, reshuffle_each_iteration=False)
    assert _order(fixed) == _order(fixed)
    repeated = _order(build(5).repeat(2))
    assert sorted(repeated[:20]) == sorted(repeated[20:]) == list(range(20))
    assert repeated[:20] != repeated[20:]
    unseeded = tapejax.data.Dataset.range(20).shuffle(20, reshuffle_each_iteration=False)
    assert _order(unseeded) == _order(unseeded)


def test_shuffle_whole_dataset_with_unknown_cardinality_buffer():
    order = _order(tapejax.data.Dataset.range(15).shuffle(tapejax.data.UNKNOWN_CARDINALITY, seed=1))
    assert sorted(order) == list(range(15)) and order != list(range(15))


# -- tapejax.function ----------------------------------------------------------------------


def test_dataset_elements_feed_a_function_without_retracing():
    @tapejax.function
    def step(x, y):
        return tapejax.reduce_sum(x * y)

    ds = tapejax.data.Dataset.from_tensor_slices(
        (np.ones((12, 3), np.float32), np.arange(12.0, dtype=np.float32)[:, None])
    ).batch(4)
    got = [float(step(x, y)) for x, y in ds]
    assert got == [18.0, 66.0, 114.0]
    count = step.experimental_get_tracing_count()
    for x, y in ds.repeat(3):
        step(x, y)
    assert step.experimental_get_tracing_count() == count <= 1


def test_iterating_a_dataset_inside_a_function_raises():
    ds = tapejax.data.Dataset.range(3)

    @tapejax.function
    def total():
        return sum(ds)

    @tapejax.function
    def reduced():
        return ds.reduce(tapejax.constant(0, tapejax.int64), lambda s, x: s + x)

    for f in (total, reduced):
        with pytest.raises(
            NotImplementedError, match="iterating a Dataset inside a tapejax.function"
        ):
            f()


# -- a TF-style training loop ------------------------------------------------------------


def test_training_loop_fed_by_a_dataset_learns():
    tf = tapejax
    rng = np.random.default_rng(0)
    features = rng.normal(size=(256, 3)).astype(np.float32)
    labels = features @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.25
    w, b = tf.Variable(tf.zeros([3, 1])), tf.Variable(0.0)

    def loss_fn(x, y):
        return tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        return loss

    ds = (
        tf.data.Dataset.from_tensor_slices((features, labels))
        .shuffle(256, seed=0)
        .batch(32, drop_remainder=True)
        .prefetch(tf.data.AUTOTUNE)
    )
    first = float(loss_fn(tf.constant(features), tf.constant(labels)))
    for _ in range(5):
        for x, y in ds:
            train_step(x, y)
    last = float(loss_fn(tf.constant(features), tf.constant(labels)))
    assert last < first / 100, (first, last)
    assert train_step.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(w.numpy().ravel(), [1.5, -2.0, 0.5], atol=0.05)


def test_eager_training_loop_with_map_and_tuple_elements():
    tf = tapejax
    ds = (
        tf.data.Dataset.range(64)
        .map(lambda i: (tf.cast(i, tf.float32) / 64.0, 3.0 * tf.cast(i, tf.float32) / 64.0))
        .shuffle(16, seed=1)
        .batch(8)
    )
    w = tf.Variable(0.0)
    for _ in range(20):
        for x, y in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(w * x - y))
            w.assign_sub(0.5 * tape.gradient(loss, w))
    assert abs(float(w) - 3.0) < 0.05


def test_an_eager_only_map_function_runs_with_unknown_dims_in_its_spec():
    """A function only eager code can run (``.numpy()``; TF would need ``py_function``)
    still maps; its spec keeps dtype and rank, with unknown dims."""
    ds = tapejax.data.Dataset.range(3).map(lambda x: tapejax.constant([float(x.numpy())] * 2))
    assert repr(ds.element_spec) == "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"
    assert [v.numpy().tolist() for v in ds] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert (
        repr(ds.batch(2).element_spec)
        == "TensorSpec(shape=(None, None), dtype=tf.float32, name=None)"
    )


def test_without_x64_int64_components_are_int32():
    """docs/compat.md: JAX holds no int64 without its x64 mode; the specs say what the
    elements are."""
    import warnings

    import jax

    jax.config.update("jax_enable_x64", False)  # the autouse fixture restores it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = tapejax.data.Dataset.range(3).enumerate()
        assert repr(ds.element_spec) == (
            "(TensorSpec(shape=(), dtype=tf.int32, name=None), "
            "TensorSpec(shape=(), dtype=tf.int32, name=None))"
        )
        assert [(i.dtype.name, int(x)) for i, x in ds] == [("int32", 0), ("int32", 1), ("int32", 2)]
        assert int(ds.cardinality()) == 3


def test_iterator_classes_are_tfs_names():
    for fw in (tensorflow, tapejax):
        ds = fw.data.Dataset.range(2)
        assert isinstance(iter(ds), fw.data.Iterator)
        assert isinstance(ds.as_numpy_iterator(), fw.data.NumpyIterator)
    assert type(iter(tapejax.data.Dataset.range(2))) is tapejax.data.Iterator
    assert type(tapejax.data.Dataset.range(2).as_numpy_iterator()) is tapejax.data.NumpyIterator


def _keras_regression(seed=1):
    keras = tapejax.keras
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(40, 2)).astype(np.float32)
    y = (x @ np.array([[2.0], [-1.0]], np.float32) > 0).astype(np.float32)
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer=keras.optimizers.SGD(0.1), metrics=["mae"])
    return model, x, y


def test_keras_fit_evaluate_predict_take_a_dataset_as_arrays():
    """A Dataset of batches trains, validates, evaluates and predicts as the same arrays
    batched by Keras (unshuffled): each epoch iterates it afresh, its cardinality is the
    number of steps, and its element may carry sample weights."""
    trained = []
    for as_dataset in (True, False):
        model, x, y = _keras_regression()
        w = np.linspace(0.5, 1.5, 40).astype(np.float32)
        ds = tapejax.data.Dataset.from_tensor_slices((x, y, w)).batch(16)
        val = tapejax.data.Dataset.from_tensor_slices((x[:8], y[:8])).batch(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Keras's shuffle=True warning
            if as_dataset:
                history = model.fit(ds, epochs=3, verbose=0, validation_data=val)
            else:
                history = model.fit(
                    x,
                    y,
                    sample_weight=w,
                    batch_size=16,
                    epochs=3,
                    verbose=0,
                    shuffle=False,
                    validation_data=(x[:8], y[:8]),
                    validation_batch_size=3,
                )
        evaluated = model.evaluate(
            val if as_dataset else x[:8], None if as_dataset else y[:8], batch_size=3, verbose=0
        )
        features = tapejax.data.Dataset.from_tensor_slices(x).batch(7)
        predicted = model.predict(features if as_dataset else x, batch_size=7, verbose=0)
        trained.append(
            (history.history, evaluated, predicted, [np.asarray(v) for v in model.weights])
        )
    (h1, e1, p1, w1), (h2, e2, p2, w2) = trained
    assert set(h1) == set(h2) == {"loss", "mae", "val_loss", "val_mae"}
    for key in h1:
        np.testing.assert_allclose(h1[key], h2[key], rtol=1e-6)
    np.testing.assert_allclose(e1, e2, rtol=1e-6)
    np.testing.assert_allclose(p1, p2, rtol=1e-6)
    for a, b in zip(w1, w2, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_keras_fit_takes_a_repeated_dataset_with_steps_and_class_weights():
    model, x, y = _keras_regression(seed=2)
    ds = tapejax.data.Dataset.from_tensor_slices((x, y)).batch(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        history = model.fit(
            ds.repeat(), steps_per_epoch=3, epochs=4, verbose=0, class_weight={0: 0.5, 1: 2.0}
        )
    reference, _, _ = _keras_regression(seed=2)
    stream = np.tile(np.arange(40), 3)[: 4 * 3 * 8]  # the iterator runs on across epochs
    reference.fit(
        x[stream],
        y[stream],
        sample_weight=np.where(y[stream, 0] == 1, 2.0, 0.5).astype(np.float32),
        batch_size=8,
        epochs=1,  # the same 12 steps
        verbose=0,
        shuffle=False,
    )
    for a, b in zip(model.weights, reference.weights, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5)
    assert len(history.history["loss"]) == 4


def test_keras_fit_with_a_dataset_refuses_what_the_dataset_carries():
    model, x, y = _keras_regression()
    ds = tapejax.data.Dataset.from_tensor_slices((x, y)).batch(8)
    for kwargs, name in (({"y": y}, "y"), ({"sample_weight": y[:, 0]}, "sample_weights")):
        with pytest.raises(
            ValueError, match=f"When providing `x` as a tf.data.Dataset, `{name}` should not"
        ):
            model.fit(ds, verbose=0, shuffle=False, **kwargs)
    weighted = tapejax.data.Dataset.from_tensor_slices((x, y, y[:, 0])).batch(8)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight`"):
        model.fit(weighted, verbose=0, shuffle=False, class_weight={0: 1.0, 1: 2.0})
    with pytest.warns(UserWarning, match="`shuffle=True` was passed, but will be ignored"):
        model.fit(ds, verbose=0)


# -- counter, choose_from_datasets, sample_from_datasets, ignore_errors --------------------


def _choices(tf, values):
    return tf.data.Dataset.from_tensor_slices(tf.constant(values, tf.int64))


def _reciprocals(tf, values):
    """A map whose function fails (check_numerics) at the zeros of ``values``."""
    return tf.data.Dataset.from_tensor_slices(values).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "reciprocal")
    )


# (name, build(tf) -> Dataset): compared element by element (finite) or by spec and
# cardinality (``None`` elements: infinite or random).
SELECTIONS = [
    ("counter", lambda tf: tf.data.Dataset.counter().take(4)),
    ("counter_start_step", lambda tf: tf.data.Dataset.counter(3, -2).take(4)),
    ("counter_int32", lambda tf: tf.data.Dataset.counter(5, 3, dtype=tf.int32).take(3)),
    ("counter_float", lambda tf: tf.data.Dataset.counter(1.5, 0.25, tf.float32).take(3)),
    ("counter_keywords", lambda tf: tf.data.Dataset.counter(start=2, step=4).batch(2).take(2)),
    ("experimental_counter", lambda tf: tf.data.experimental.Counter(7).take(2)),
    (
        "choose_stops_on_empty",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)],
            _choices(tf, [0, 1, 1, 1, 0, 0]),
        ),
    ),
    (
        "choose_skips_empty",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)],
            _choices(tf, [0, 1, 1, 1, 0, 1, 0, 0]),
            stop_on_empty_dataset=False,
        ),
    ),
    (
        "choose_relaxes_shapes",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [
                tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]),
                tf.data.Dataset.from_tensor_slices([[5, 6, 7]]),
            ],
            _choices(tf, [1, 0, 0]),
        ),
    ),
    (
        "choose_tuples",
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [
                tf.data.Dataset.range(3).map(lambda x: (x, tf.cast(x, tf.float32))),
                tf.data.Dataset.range(5, 9).map(lambda x: (x, tf.cast(-x, tf.float32))),
            ],
            tf.data.Dataset.range(6).map(lambda x: x % 2),
        ),
    ),
    (
        "sample_zero_weight_dropped",
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)], [0.0, 1.0]
        ),
    ),
    (
        "sample_all_zero_weights",
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)], [0.0, 0.0]
        ),
    ),
    (
        "sample_one_dataset",
        lambda tf: tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(3)], seed=2),
    ),
    (
        "ignore_errors_of_map",
        lambda tf: _reciprocals(tf, [1.0, 2.0, 0.0, 4.0, 0.0]).ignore_errors(),
    ),
    (
        "ignore_errors_through_maps",
        lambda tf: (
            _reciprocals(tf, [0.0, 2.0, 0.0, 4.0])
            .map(lambda x: x * 2)
            .filter(lambda x: x < 1)
            .prefetch(2)
            .ignore_errors(log_warning=False)
        ),
    ),
    (
        "ignore_errors_of_filter",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0])
            .filter(lambda x: tf.debugging.check_numerics(1.0 / x, "f") > 0.75)
            .ignore_errors()
        ),
    ),
    (
        "ignore_errors_of_py_function",
        lambda tf: (
            tf.data.Dataset.range(4)
            .map(
                lambda x: tf.reshape(
                    tf.py_function(lambda v: 10 // (int(v) - 2), [x], tf.int64), []
                )
            )
            .ignore_errors()
        ),
    ),
    (
        "ignore_errors_without_errors",
        lambda tf: tf.data.Dataset.range(4).ignore_errors().batch(3),
    ),
    (
        "ignore_errors_then_repeat",
        lambda tf: _reciprocals(tf, [0.0, 2.0]).ignore_errors().repeat(2),
    ),
    ("counter_infinite", None),
    ("choose_of_infinite", None),
    ("sample", None),
    ("sample_of_infinite", None),
]
SELECTION_SPECS = {
    "counter_infinite": lambda tf: tf.data.Dataset.counter(2, dtype=tf.int32),
    "choose_of_infinite": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(2)], tf.data.Dataset.range(2)
    ),
    "sample": lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(2)], seed=1
    ),
    "sample_of_infinite": lambda tf: tf.data.Dataset.sample_from_datasets(
        [
            tf.data.Dataset.from_tensor_slices([[1.0]]),
            tf.data.Dataset.from_tensors([2.0, 3.0]).repeat(),
        ],
        weights=tf.constant([0.5, 0.5]),
    ),
}


@pytest.mark.parametrize("name, build", SELECTIONS, ids=[n for n, _ in SELECTIONS])
def test_selection_pipeline_is_tfs(name, build):
    if build is None:
        check_same_dataset(SELECTION_SPECS[name], iterate=False)
    else:
        check_same_dataset(build)


SELECTION_ERRORS = [
    (
        lambda tf: tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(2)),
        "ValueError",
        r"^Invalid `datasets`. `datasets` should not be empty.$",
    ),
    (
        lambda tf: tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)], [0]),
        "TypeError",
        r"^Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is <class 'list'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(2)], tf.data.Dataset.from_tensor_slices([0, 0])
        ),
        "TypeError",
        r"^Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors but are TensorSpec\(shape=\(\), dtype=tf.int32, name=None\).$",
    ),
    (
        lambda tf: tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.from_tensors((1, 2))],
            tf.data.Dataset.range(2),
        ),
        "TypeError",
        r"^Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 element_spec=TensorSpec\(shape=\(\), dtype=tf.int64, name=None\).\nDataset 1 element_spec=\(TensorSpec\(shape=\(\), dtype=tf.int32, name=None\), TensorSpec\(shape=\(\), dtype=tf.int32, name=None\)\).$",
    ),
    (
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.from_tensors(1.0)]
        ),
        "TypeError",
        r"^Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 element_spec=TensorSpec\(shape=\(\), dtype=tf.int64, name=None\).\nDataset 1 element_spec=TensorSpec\(shape=\(\), dtype=tf.float32, name=None\).$",
    ),
    (
        lambda tf: list(
            tf.data.Dataset.choose_from_datasets(
                [tf.data.Dataset.range(2), tf.data.Dataset.range(2)], _choices(tf, [0, 2])
            )
        ),
        "InvalidArgumentError",
        r"Selector index out of range: 2 >= 2 \[Op:IteratorGetNext\]",
    ),
    (
        lambda tf: list(
            tf.data.Dataset.choose_from_datasets(
                [tf.data.Dataset.range(2), tf.data.Dataset.range(2)], _choices(tf, [-1])
            )
        ),
        "InvalidArgumentError",
        r"Selector index out of range: -1 >= 2 \[Op:IteratorGetNext\]",
    ),
    (
        lambda tf: tf.data.Dataset.sample_from_datasets([]),
        "ValueError",
        r"^Invalid `datasets`. `datasets` should not be empty.$",
    ),
    (
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.range(2)], [0.5]
        ),
        "ValueError",
        r"^Invalid `weights`. `weights` should have the same length as `datasets` but got `len\(weights\)=1` vs. `len\(datasets\)=2`.$",
    ),
    (
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.range(2)], [1, 2]
        ),
        "TypeError",
        r"^Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but is <dtype: 'int32'>.$",
    ),
    (
        lambda tf: tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(2), tf.data.Dataset.range(2)], tf.constant([0.5, 0.2, 0.3])
        ),
        "ValueError",
        r"^Invalid `weights`. The shape of `weights` should be compatible with `\[len\(datasets\)\]` but is \(3,\).$",
    ),
    (
        lambda tf: list(_reciprocals(tf, [1.0, 0.0])),
        "InvalidArgumentError",
        r"reciprocal : Tensor had Inf values",
    ),
]


@pytest.mark.parametrize("build, error, message", SELECTION_ERRORS)
def test_selection_errors_are_tfs(build, error, message):
    check_error(build, error, message)


def _sampled(seed, weights=None, stop=False, rerandomize=None, epochs=1):
    ds = tapejax.data.Dataset.sample_from_datasets(
        [tapejax.data.Dataset.range(100), tapejax.data.Dataset.range(1000, 1200)],
        weights,
        seed=seed,
        stop_on_empty_dataset=stop,
        rerandomize_each_iteration=rerandomize,
    )
    return [[int(x) for x in ds] for _ in range(epochs)]


def test_sample_from_datasets_is_deterministic_given_seed():
    first, again = _sampled(3, epochs=2)
    assert first == again == _sampled(3)[0]  # same order each epoch and each run
    assert first != _sampled(4)[0]
    one, two = _sampled(3, rerandomize=True, epochs=2)
    assert one != two and sorted(one) == sorted(two)
    # every element of each input once, each input's in its order
    assert sorted(first) == list(range(100)) + list(range(1000, 1200))
    assert [x for x in first if x < 1000] == list(range(100))


def test_sample_from_datasets_draws_in_the_weights_proportions():
    ds = tapejax.data.Dataset.sample_from_datasets(
        [
            tapejax.data.Dataset.from_tensors(0).repeat(),
            tapejax.data.Dataset.from_tensors(1).repeat(),
        ],
        [0.2, 0.6],
        seed=5,
    )
    drawn = [int(x) for x in ds.take(4000)]
    assert abs(np.mean(drawn) - 0.75) < 0.03
    by_dataset = tapejax.data.Dataset.sample_from_datasets(
        [
            tapejax.data.Dataset.from_tensors(0).repeat(),
            tapejax.data.Dataset.from_tensors(1).repeat(),
        ],
        tapejax.data.Dataset.from_tensors([0.9, 0.1])
        .repeat(3000)
        .concatenate(tapejax.data.Dataset.from_tensors([0.0, 1.0]).repeat(10)),
        seed=5,
    )
    drawn = [int(x) for x in by_dataset]
    assert len(drawn) == 3010  # one draw per weights element, then the end
    assert abs(np.mean(drawn[:3000]) - 0.1) < 0.03 and drawn[3000:] == [1] * 10


def test_sample_from_datasets_stop_on_empty_dataset():
    ended = _sampled(1, stop=True)[0]
    # ends at the first draw of an exhausted input: one input fully output, not the other
    first, second = [x for x in ended if x < 1000], [x for x in ended if x >= 1000]
    assert (first == list(range(100))) != (second == list(range(1000, 1200)))
    assert len(ended) < 300
    assert len(_sampled(1)[0]) == 300  # goes on with the others until all are exhausted


def test_ignore_errors_drops_only_tfs_error_statuses(caplog):
    ds = _reciprocals(tapejax, [1.0, 0.0, 4.0])
    with caplog.at_level("WARNING"):
        assert [float(x) for x in ds.ignore_errors(log_warning=True)] == [1.0, 0.25]
    assert "Error raised with error message reciprocal : Tensor had Inf values" in caplog.text

    def fails_in_python(x):
        if x.numpy() == 1:  # an eager-only function (TF could not trace it)
            raise KeyError("not a TF error")
        return x

    failing = tapejax.data.Dataset.range(3).map(fails_in_python)
    with pytest.raises(KeyError, match="not a TF error"):
        list(failing.ignore_errors())  # only TF's error statuses are dropped


def test_ignore_errors_refuses_to_drop_an_error_it_cannot_resume_after():
    batched = _reciprocals(tapejax, [1.0, 2.0, 0.0, 4.0]).batch(2).ignore_errors()
    it = iter(batched)
    assert next(it).numpy().tolist() == [1.0, 0.5]
    with pytest.raises(NotImplementedError, match="ignore_errors cannot go on after this error"):
        next(it)


# -- datasets as elements: window, group_by_window, bucket_by_sequence_length --------------


def _windows_as_lists(element):
    """A window element with each Dataset replaced by the list of its elements."""
    if isinstance(element, (tuple, dict)):
        keys = sorted(element) if isinstance(element, dict) else range(len(element))
        parts = {k: _windows_as_lists(element[k]) for k in keys}
        if isinstance(element, dict):
            return parts
        return (
            type(element)(*parts.values()) if hasattr(element, "_fields") else tuple(parts.values())
        )
    assert type(element).__name__ in ("Dataset", "DatasetV2", "_VariantDataset"), type(element)
    return (repr(element.element_spec), int(element.cardinality()), list(element))


def check_same_windows(build):
    """``build(tf)`` gives a dataset of datasets with TF's spec, cardinality, and windows
    holding TF's elements."""
    want, got = build(tensorflow), build(tapejax)
    assert repr(got.element_spec) == repr(want.element_spec)
    assert int(got.cardinality()) == int(want.cardinality())
    want_windows = [_windows_as_lists(w) for w in want]
    got_windows = [_windows_as_lists(w) for w in got]
    assert len(got_windows) == len(want_windows)
    for i, (g, w) in enumerate(zip(got_windows, want_windows)):
        g_leaves, w_leaves = tapejax.nest.flatten(g), tensorflow.nest.flatten(w)
        assert len(g_leaves) == len(w_leaves), f"window {i}"
        for j, (gl, wl) in enumerate(zip(g_leaves, w_leaves)):
            if isinstance(wl, (str, int)):
                assert gl == wl, f"window {i} part {j}"
            else:
                assert_same_element(gl, wl, f"window {i} part {j}")


def test_dataset_spec_is_tfs():
    for fw in (tapejax, tensorflow):
        spec = fw.data.DatasetSpec(fw.TensorSpec([], fw.int64))
        assert spec == fw.data.DatasetSpec(fw.TensorSpec([], fw.int64))
        assert spec != fw.data.DatasetSpec(fw.TensorSpec([], fw.int32))
        assert spec != fw.data.DatasetSpec(fw.TensorSpec([], fw.int64), [2])
        assert hash(spec) == hash(fw.data.DatasetSpec(fw.TensorSpec([], fw.int64)))
    for shape in ((), [2], [None]):
        want, got = (
            fw.data.DatasetSpec(
                (fw.TensorSpec([3], fw.float32), {"a": fw.TensorSpec([], fw.int64)}), shape
            )
            for fw in (tensorflow, tapejax)
        )
        assert repr(got) == repr(want)
        assert repr(got.element_spec) == repr(want.element_spec)
    assert tapejax.data.DatasetSpec(tapejax.TensorSpec([])).value_type is tapejax.data.Dataset


WINDOW_ARGS = [
    (3, None, 1, False),
    (3, 2, 1, False),
    (3, 1, 2, True),
    (2, 3, 1, False),
    (3, 2, 2, False),
    (3, 2, 2, True),
    (3, 1, 1, True),
    (8, 1, 1, True),
    (8, 2, 1, False),
    (1, 1, 3, False),
]


@pytest.mark.parametrize("size, shift, stride, drop_remainder", WINDOW_ARGS)
def test_window_is_tfs(size, shift, stride, drop_remainder):
    check_same_windows(
        lambda tf: tf.data.Dataset.range(7).window(size, shift, stride, drop_remainder)
    )
    check_same_windows(
        lambda tf: tf.data.Dataset.from_tensor_slices(
            (np.arange(10.0).reshape(5, 2), {"b": np.arange(5), "a": np.arange(5) > 2})
        ).window(size, shift, stride, drop_remainder)
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.range(7).repeat().window(3),
        lambda tf: tf.data.Dataset.range(7).filter(lambda x: x > 2).window(3),
        lambda tf: tf.data.Dataset.range(0).window(3),
        lambda tf: tf.data.Dataset.range(2).window(3, drop_remainder=True),
        lambda tf: tf.data.Dataset.range(6).window(2).window(2),
    ],
)
def test_window_cardinality_and_spec_are_tfs(build):
    want, got = build(tensorflow), build(tapejax)
    assert repr(got.element_spec) == repr(want.element_spec)
    assert int(got.cardinality()) == int(want.cardinality())


def _pairs(tf):
    return tf.data.Dataset.from_tensor_slices((np.arange(7), np.arange(7.0) * 10))


WINDOW_USES = [
    (
        "flat_map_batch",
        lambda tf: tf.data.Dataset.range(7).window(3, 1).flat_map(lambda w: w.batch(3)),
    ),
    (
        "flat_map_batch_drop",
        lambda tf: (
            tf.data.Dataset.range(7)
            .window(3, 2)
            .flat_map(lambda w: w.batch(3, drop_remainder=True))
        ),
    ),
    (
        "flat_map_zip",
        lambda tf: _pairs(tf).window(3).flat_map(lambda a, b: tf.data.Dataset.zip((a, b))),
    ),
    (
        "flat_map_zip_batch",
        lambda tf: (
            _pairs(tf)
            .window(2, 1, 2, True)
            .flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))
        ),
    ),
    (
        "flat_map_dict",
        lambda tf: (
            tf.data.Dataset.from_tensor_slices({"x": np.arange(5)})
            .window(2)
            .flat_map(lambda d: d["x"].map(lambda v: v * 2))
        ),
    ),
    (
        "interleave",
        lambda tf: (
            tf.data.Dataset.range(9)
            .window(3)
            .interleave(lambda w: w, cycle_length=2, block_length=2)
        ),
    ),
    (
        "map_reduce",
        lambda tf: (
            tf.data.Dataset.range(7)
            .window(3)
            .map(lambda w: w.reduce(np.int64(0), lambda s, x: s + x))
        ),
    ),
    (
        "map_batch_flat_map",
        lambda tf: (
            tf.data.Dataset.range(7).window(3).map(lambda w: w.batch(2)).flat_map(lambda d: d)
        ),
    ),
    (
        "map_pair_reduce",
        lambda tf: (
            _pairs(tf)
            .window(3)
            .map(
                lambda a, b: (
                    a.reduce(np.int64(0), lambda s, x: s + x),
                    b.reduce(np.float64(0.0), lambda s, x: tf.maximum(s, x)),
                )
            )
        ),
    ),
    (
        "filter_windows",
        lambda tf: (
            tf.data.Dataset.range(7)
            .window(3)
            .filter(lambda w: w.cardinality() > 2)
            .flat_map(lambda w: w)
        ),
    ),
    (
        "shuffle_free_take",
        lambda tf: tf.data.Dataset.range(7).window(2).skip(1).take(2).flat_map(lambda w: w),
    ),
    (
        "zip_windows",
        lambda tf: tf.data.Dataset.zip(
            (tf.data.Dataset.range(4).window(2), tf.data.Dataset.range(4).window(2, 1))
        ).flat_map(lambda a, b: a.concatenate(b)),
    ),
]


@pytest.mark.parametrize("name, build", WINDOW_USES, ids=[n for n, _ in WINDOW_USES])
def test_window_uses_are_tfs(name, build):
    check_same_dataset(build)


def test_iterating_windows_directly_is_tfs():
    got, want = (
        [[x.numpy().tolist() for x in w] for w in fw.data.Dataset.range(7).window(3)]
        for fw in (tapejax, tensorflow)
    )
    assert got == want == [[0, 1, 2], [3, 4, 5], [6]]
    window = next(iter(tapejax.data.Dataset.range(7).window(3, 2)))
    assert [int(x) for x in window] == [int(x) for x in window] == [0, 1, 2]
    assert int(window.cardinality()) == 3
    check_same_windows(lambda tf: tf.data.Dataset.range(7).window(3).map(lambda w: w.batch(2)))
    check_same_windows(lambda tf: tf.data.Dataset.from_tensors(tf.data.Dataset.range(3)))


WINDOW_ERRORS = [
    (
        lambda tf: tf.data.Dataset.range(3).window(0),
        "InvalidArgumentError",
        r"Window size must be greater than zero. \[Op:WindowDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).window(2, 0),
        "InvalidArgumentError",
        r"Window shift must be greater than zero. \[Op:WindowDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).window(2, 1, 0),
        "InvalidArgumentError",
        r"Window stride must be greater than zero. \[Op:WindowDataset\]",
    ),
    (
        lambda tf: tf.data.Dataset.range(3).window(2).as_numpy_iterator(),
        "TypeError",
        r"^`tf.data.Dataset.as_numpy_iterator\(\)` is not supported for datasets that produce values of type <class '.*Dataset.*'>$",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).group_by_window(lambda x: x, lambda k, w: w),
        "ValueError",
        r"^Either the `window_size` argument or the `window_size_func` argument must be specified.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).group_by_window(
            lambda x: x, lambda k, w: w, 2, lambda k: k
        ),
        "ValueError",
        r"^Either the `window_size` argument or the `window_size_func` argument must be specified.$",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).group_by_window(lambda x: x, lambda k, w: k, 2),
        "TypeError",
        r"^Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object but its return type is TensorSpec\(shape=\(\), dtype=tf.int64, name=None\).$",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).group_by_window(lambda x: [x, x], lambda k, w: w, 2),
        "ValueError",
        r"^Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its return type is TensorSpec\(shape=\(2,\), dtype=tf.int64, name=None\).$",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).group_by_window(
            lambda x: x, lambda k, w: w, window_size_func=lambda k: [k, k]
        ),
        "ValueError",
        r"^Invalid `window_size_func`. `window_size_func` must return a single `tf.int64` scalar tensor but its return type is TensorSpec\(shape=\(2,\), dtype=tf.int64, name=None\).$",
    ),
    (
        lambda tf: list(
            tf.data.Dataset.range(4).group_by_window(
                lambda x: x % 2, lambda k, w: w, window_size_func=lambda k: k
            )
        ),
        "InvalidArgumentError",
        r"Window size must be greater than zero, but got 0.",
    ),
    (
        lambda tf: tf.data.Dataset.range(4).bucket_by_sequence_length(lambda x: x, [3], [1]),
        "ValueError",
        r"^`len\(bucket_batch_sizes\)` must equal `len\(bucket_boundaries\) \+ 1` but `len\(bucket_batch_sizes\)=1` and `len\(bucket_boundaries\)=1`.$",
    ),
    (
        lambda tf: list(
            _sequences(tf).bucket_by_sequence_length(
                lambda x, n: tf.shape(x)[0], [3], [1, 1], pad_to_bucket_boundary=True
            )
        ),
        "InternalError",
        r"assertion failed: \[When pad_to_bucket_boundary=True, elements must have length < max\(bucket_boundaries\).\]",
    ),
]


@pytest.mark.parametrize("build, error, message", WINDOW_ERRORS)
def test_window_errors_are_tfs(build, error, message):
    check_error(build, error, message)


def _keys(tf):
    return tf.data.Dataset.from_tensor_slices(
        np.array([5, 1, 3, 2, 9, 4, 7, 0, 6, 8, 11, 13], np.int64)
    )


GROUPINGS = [
    (
        "batch_by_key",
        lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(18).reshape(9, 2)).group_by_window(
            lambda x: x[0] % 3 + 1, lambda k, w: w.batch(k, drop_remainder=True), window_size=3
        ),
    ),
    (
        "batch_by_key_empty",
        lambda tf: tf.data.Dataset.range(0).group_by_window(
            lambda x: x % 3 + 1, lambda k, w: w.batch(k), window_size=2
        ),
    ),
    (
        "batch_with_key",
        lambda tf: _keys(tf).group_by_window(
            lambda x: (x * 7) % 4, lambda k, w: w.batch(3).map(lambda b: (k, b)), window_size=3
        ),
    ),
    (
        "size_func",
        lambda tf: _keys(tf).group_by_window(
            lambda x: (x * 7) % 4, lambda k, w: w.batch(5), window_size_func=lambda k: k + 1
        ),
    ),
    (
        "end_in_key_order",
        lambda tf: _keys(tf).group_by_window(
            lambda x: tf.gather(
                tf.constant([100, -5, 7, 3, -40, 0, 2, 9, 1, -1, 50, 4, 8, 6], tf.int64), x
            ),
            lambda k, w: w.map(lambda v: (k, v)),
            window_size=2,
        ),
    ),
    (
        "tuples",
        lambda tf: _pairs(tf).group_by_window(
            lambda a, b: a % 3, lambda k, w: w.map(lambda a, b: a * 10 + k), window_size=2
        ),
    ),
    (
        "dicts",
        lambda tf: tf.data.Dataset.from_tensor_slices(
            {"a": np.arange(8), "b": np.arange(8.0)}
        ).group_by_window(lambda d: d["a"] // 3, lambda k, w: w.batch(2), window_size=2),
    ),
    (
        "python_key",
        lambda tf: tf.data.Dataset.range(6).group_by_window(
            lambda x: 0, lambda k, w: w.batch(4), window_size=4
        ),
    ),
    (
        "window_size_tensor",
        lambda tf: tf.data.Dataset.range(6).group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(2), window_size=tf.constant(2, tf.int64)
        ),
    ),
    (
        "infinite",
        lambda tf: (
            tf.data.Dataset.range(6)
            .repeat()
            .group_by_window(lambda x: x % 2, lambda k, w: w, window_size=2)
            .take(9)
        ),
    ),
]


@pytest.mark.parametrize("name, build", GROUPINGS, ids=[n for n, _ in GROUPINGS])
def test_group_by_window_is_tfs(name, build):
    check_same_dataset(build)


def test_group_by_window_cardinality_is_tfs():
    for build in (
        lambda tf: tf.data.Dataset.range(6).group_by_window(lambda x: x % 2, lambda k, w: w, 2),
        lambda tf: (
            tf.data.Dataset.range(6).repeat().group_by_window(lambda x: x % 2, lambda k, w: w, 2)
        ),
    ):
        assert int(build(tapejax).cardinality()) == int(build(tensorflow).cardinality())


def _sequences(tf):
    seqs = [
        [1],
        [1, 2, 3],
        [1, 2],
        [1, 2, 3, 4, 5],
        [7, 7, 7, 7],
        [3],
        [2, 2],
        [5, 5, 5, 5, 5, 5, 5],
    ]

    def gen():
        for s in seqs:
            yield np.array(s, np.int32), len(s)

    return tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32))
    )


BUCKETS = [
    ("default", {}),
    (
        "pad_to_boundary",
        {
            "bucket_boundaries": [3, 5, 9],
            "bucket_batch_sizes": [2, 2, 2, 2],
            "pad_to_bucket_boundary": True,
        },
    ),
    ("drop_remainder", {"bucket_batch_sizes": [3, 2, 1], "drop_remainder": True}),
    ("padded_shapes", {"padded_shapes": ([10], []), "padding_values": (-1, 0)}),
    ("unsorted_sizes", {"bucket_boundaries": [2, 4], "bucket_batch_sizes": [1, 3, 2]}),
]


@pytest.mark.parametrize("name, kwargs", BUCKETS, ids=[n for n, _ in BUCKETS])
def test_bucket_by_sequence_length_is_tfs(name, kwargs):
    def build(tf):
        args = {"bucket_boundaries": [3, 5], "bucket_batch_sizes": [2, 2, 2]}
        args.update(kwargs)
        return _sequences(tf).bucket_by_sequence_length(lambda x, n: tf.shape(x)[0], **args)

    check_same_dataset(build)


def test_bucket_by_sequence_length_without_padding_is_tfs():
    check_same_dataset(
        lambda tf: (
            _sequences(tf)
            .map(lambda x, n: (n, x[0]))
            .bucket_by_sequence_length(lambda n, x: n, [2, 5], [2, 1, 3], no_padding=True)
        )
    )


def test_what_datasets_as_elements_cannot_do_raises():
    windows = tapejax.data.Dataset.range(6).window(2)
    for make in (
        lambda: windows.batch(2),
        lambda: windows.padded_batch(2),
        lambda: windows.unbatch(),
        lambda: windows.rebatch(2),
        lambda: windows.unique(),
        lambda: windows.concatenate(windows),
        lambda: tapejax.data.Dataset.from_tensor_slices(windows),
    ):
        with pytest.raises(NotImplementedError, match="tapejax.data: .* is not provided"):
            make()
