"""``tf.data.experimental``'s functions: as in TF's Python, most return a transformation
``lambda dataset: dataset.method(...)`` for ``Dataset.apply``, with TF's argument names
(those of its deprecation era included) and TF's errors. This module only composes Dataset
methods; it must never iterate a pipeline where TF would not.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .. import dtypes
from ..errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..tensor_spec import TensorSpec
from . import structure
from .structure import INFINITE, UNKNOWN


def _dataset_class():
    from .dataset import Dataset

    return Dataset


_OP = " [Op:IteratorGetNext]"


def assert_cardinality(expected_cardinality):
    """A transformation checking that a dataset has ``expected_cardinality`` elements
    while it is iterated (``tf.data.experimental.assert_cardinality``); the result reports
    that cardinality.

    Raises (while iterating):
        FailedPreconditionError: the input has fewer or more elements (TF's text).
    """
    expected = int(np.asarray(structure.to_tensor(expected_cardinality, dtypes.int64).numpy()))

    def text(n: int, more: bool) -> str:
        def count(k):
            return "infinite" if k == INFINITE else str(k)

        if more:
            return (
                f"Input dataset was expected to contain {count(expected)} elements but "
                f"contained at least {n} elements."
            )
        return (
            f"Input dataset was expected to contain {count(expected)} elements but "
            f"contained only {n} elements."
        )

    def apply_fn(dataset):
        def make_iterator():
            n = 0
            for element in dataset._elements():
                n += 1
                if expected != INFINITE and n > expected:
                    raise FailedPreconditionError(None, None, text(n, True) + _OP)
                yield element
            if n != expected:
                raise FailedPreconditionError(None, None, text(n, False) + _OP)

        return dataset._derive(make_iterator, cardinality=expected)

    return apply_fn


def cardinality(dataset):
    """``dataset.cardinality()`` (``tf.data.experimental.cardinality``)."""
    return dataset.cardinality()


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """``Dataset.choose_from_datasets``, with the experimental endpoint's default
    ``stop_on_empty_dataset=False`` (``tf.data.experimental.choose_from_datasets``)."""
    return _dataset_class().choose_from_datasets(
        datasets=datasets, choice_dataset=choice_dataset,
        stop_on_empty_dataset=stop_on_empty_dataset,
    )  # fmt: skip


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``Dataset.sample_from_datasets`` (``tf.data.experimental.sample_from_datasets``)."""
    return _dataset_class().sample_from_datasets(
        datasets=datasets, weights=weights, seed=seed,
        stop_on_empty_dataset=stop_on_empty_dataset,
    )  # fmt: skip


def enumerate_dataset(start=0):
    """A transformation: ``dataset.enumerate(start)``
    (``tf.data.experimental.enumerate_dataset``)."""
    return lambda dataset: dataset.enumerate(start)


def from_list(elements, name=None):
    """A dataset of the elements of the list ``elements``, each a structure of tensors
    (``tf.data.experimental.from_list``); a component's spec is the most specific one
    every element's fits.

    Raises:
        ValueError: ``elements`` is empty or not a list (TF's texts), or the elements'
            structures differ.
    """
    if not elements:
        raise ValueError(
            "Invalid `elements`. `elements` should not be empty. If you want an empty "
            "dataset, use `tf.data.Dataset.range(0)`."
        )
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list.")
    elements = [structure.normalize(e) for e in elements]
    specs = [structure.spec_of(e) for e in elements]
    for s in specs[1:]:
        if not structure.same_structure(specs[0], s):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {specs[0]}\n\nSecond structure: {s}"
            )
    spec = specs[0]
    for s in specs[1:]:
        spec = structure.relax(spec, s)
        for a, b in zip(structure.flatten(specs[0]), structure.flatten(s)):
            if a.dtype != b.dtype:
                raise TypeError(
                    f"Cannot convert the elements' component of dtype {b.dtype} to "
                    f"{a.dtype}: every element of from_list must have the same dtypes."
                )
    held = [structure.to_host(e) for e in elements]
    return _dataset_class()(lambda: iter(held), spec, len(held), prefetchable=True)


def get_single_element(dataset):
    """``dataset.get_single_element()`` (``tf.data.experimental.get_single_element``).

    Raises:
        TypeError: ``dataset`` is not a Dataset (TF's text).
    """
    if not isinstance(dataset, _dataset_class()):
        raise TypeError(
            f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}."
        )
    return dataset.get_single_element()


def get_structure(dataset_or_iterator):
    """The element spec of a Dataset or iterator (``tf.data.experimental.get_structure``).

    Raises:
        TypeError: neither (TF's text).
    """
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(
            "Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
            "`tf.data.Dataset` or tf.data.Iterator object, but got "
            f"{type(dataset_or_iterator)}."
        ) from None


def get_next_as_optional(iterator):
    """The iterator's next element in an ``Optional``, empty at the end
    (``tf.data.experimental.get_next_as_optional``)."""
    return iterator.get_next_as_optional()


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A transformation: ``dataset.group_by_window(...)``
    (``tf.data.experimental.group_by_window``)."""
    return lambda dataset: dataset.group_by_window(
        key_func=key_func, reduce_func=reduce_func, window_size=window_size,
        window_size_func=window_size_func,
    )  # fmt: skip


def bucket_by_sequence_length(
    element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
    padding_values=None, pad_to_bucket_boundary=False, no_padding=False, drop_remainder=False,
):  # fmt: skip
    """A transformation: ``dataset.bucket_by_sequence_length(...)``
    (``tf.data.experimental.bucket_by_sequence_length``)."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func=element_length_func, bucket_boundaries=bucket_boundaries,
        bucket_batch_sizes=bucket_batch_sizes, padded_shapes=padded_shapes,
        padding_values=padding_values, pad_to_bucket_boundary=pad_to_bucket_boundary,
        no_padding=no_padding, drop_remainder=drop_remainder,
    )  # fmt: skip


def ignore_errors(log_warning=False):
    """A transformation: ``dataset.ignore_errors(log_warning)``
    (``tf.data.experimental.ignore_errors``)."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation: ``dataset.rejection_resample(...)``
    (``tf.data.experimental.rejection_resample``)."""
    return lambda dataset: dataset.rejection_resample(
        class_func=class_func, target_dist=target_dist, initial_dist=initial_dist, seed=seed
    )


def scan(initial_state, scan_func):
    """A transformation: ``dataset.scan(initial_state, scan_func)``
    (``tf.data.experimental.scan``)."""
    return lambda dataset: dataset.scan(initial_state=initial_state, scan_func=scan_func)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: ``dataset.shuffle(buffer_size, seed).repeat(count)``
    (``tf.data.experimental.shuffle_and_repeat``); each repetition is a new order, as
    TF's."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def take_while(predicate):
    """A transformation: ``dataset.take_while(predicate)``
    (``tf.data.experimental.take_while``)."""
    return lambda dataset: dataset.take_while(predicate=predicate)


def unbatch():
    """A transformation: ``dataset.unbatch()`` (``tf.data.experimental.unbatch``)."""
    return lambda dataset: dataset.unbatch()


def unique():
    """A transformation: ``dataset.unique()`` (``tf.data.experimental.unique``)."""
    return lambda dataset: dataset.unique()


def map_and_batch(
    map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
    num_parallel_calls=None,
):  # fmt: skip
    """A transformation: ``dataset.map(map_func).batch(batch_size, drop_remainder)``
    (``tf.data.experimental.map_and_batch``).

    Raises:
        ValueError: both ``num_parallel_batches`` and ``num_parallel_calls`` (TF's text).
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "`map_and_batch` allows only one of `num_parallel_batches` and "
            "`num_parallel_calls` to be set, but "
            f"`num_parallel_batches` was set to {num_parallel_batches} "
            f"and `num_parallel_calls` as set to {num_parallel_calls}."
        )
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def parallel_interleave(
    map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
    prefetch_input_elements=None,
):  # fmt: skip
    """A transformation: ``dataset.interleave(map_func, cycle_length, block_length)``
    (``tf.data.experimental.parallel_interleave``); ``sloppy`` and the buffer sizes are
    accepted, and the order is always the deterministic one."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def pad_to_cardinality(cardinality, mask_key="valid"):
    """A transformation padding a dataset of dicts with zero elements up to
    ``cardinality`` elements, each marked by a boolean ``mask_key`` component
    (``tf.data.experimental.pad_to_cardinality``).

    Raises:
        ValueError: the input's cardinality is unknown, infinite or above
            ``cardinality``, or its elements are not dicts (TF's texts).
    """

    def apply_fn(dataset):
        Dataset = _dataset_class()
        card = dataset._card
        if card < 0:
            raise ValueError(
                "The dataset passed into `pad_to_cardinality` must have a known cardinalty, "
                f"but has cardinality {dataset.cardinality()}"
            )
        if card > cardinality:
            raise ValueError(
                "The dataset passed into `pad_to_cardinality` must have a cardinalty less "
                f"than the target cardinality ({cardinality}), but has cardinality "
                f"{dataset.cardinality()}"
            )
        if not isinstance(dataset.element_spec, Mapping):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a dictionary.")
        filler = structure.map_structure(
            lambda s: np.zeros(s.shape, s.dtype.as_numpy_dtype), dataset.element_spec
        )
        filler = dict(filler)
        filler[mask_key] = False

        def mark(x):
            x = dict(x)
            x[mask_key] = True
            return x

        fill = Dataset.from_tensors(filler).repeat(cardinality - card)
        return dataset.map(mark).concatenate(fill)

    return apply_fn


def at(dataset, index):
    """The element at ``index`` of a dataset (``tf.data.experimental.at``), found by
    iterating to it.

    Raises:
        OutOfRangeError: ``index`` is past the end (TF's text).
        InvalidArgumentError: ``index`` is negative.
    """
    index = int(np.asarray(structure.to_tensor(index).numpy()))
    if index < 0:
        raise InvalidArgumentError(
            None, None, f"Index must be non-negative, got {index}. [Op:GetElementAtIndex]"
        )
    for i, element in enumerate(dataset._elements()):
        if i == index:
            return structure.to_tensors(element)
    raise OutOfRangeError(None, None, "Index out of range. [Op:GetElementAtIndex]")


def copy_to_device(target_device, source_device="/cpu:0"):
    """A transformation giving the same elements (``tf.data.experimental.copy_to_device``):
    tapejax's elements become Tensors on JAX's default device when read. Its cardinality
    is unknown, as TF's."""
    return lambda dataset: dataset._derive(dataset._elements, cardinality=UNKNOWN)


def prefetch_to_device(device, buffer_size=None):
    """A transformation: ``dataset.prefetch(buffer_size)``
    (``tf.data.experimental.prefetch_to_device``); see ``copy_to_device``."""
    return lambda dataset: dataset.apply(copy_to_device(device)).prefetch(buffer_size)


_TABLE_ERROR = (
    "Datasets used to initialize lookup tables must produce elements in the form "
    "(key, value), where the keys and values are scalar tensors. "
)


def _check_table_spec(element_spec):
    if len(element_spec) != 2:
        raise ValueError(
            _TABLE_ERROR + "However, the given dataset produces "
            f"{len(element_spec)} components instead of two (key, value) components. "
            f"Full dataset element spec: {element_spec}."
        )
    for what, spec in (("key", element_spec[0]), ("value", element_spec[1])):
        if not isinstance(spec, TensorSpec):
            raise ValueError(
                _TABLE_ERROR + f"However, the given dataset produces non-Tensor {what}s of "
                f"type {type(spec)}."
            )
        if spec.shape.rank not in (None, 0):
            raise ValueError(
                _TABLE_ERROR + "However, the given dataset produces non-scalar "
                f"{what} Tensors of rank {spec.shape.rank}."
            )


def table_from_dataset(
    dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None, hasher_spec=None,
    key_dtype=dtypes.string, name=None,
):  # fmt: skip
    """A ``StaticHashTable`` from a dataset of ``(key, value)`` scalars
    (``tf.data.experimental.table_from_dataset``), iterated once now.

    Raises:
        ValueError: the elements are not pairs of scalars, a bad ``num_oov_buckets`` or
            ``vocab_size``, or no ``default_value`` for non-numeric values (TF's texts).
        NotImplementedError: ``num_oov_buckets`` > 0 (hash buckets of integer keys).
    """
    from .. import lookup_ops

    spec = dataset.element_spec
    _check_table_spec(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError(
                "`default_value` must be specified when creating a table from a dataset "
                f"that produces values of type {spec[1].dtype}."
            )
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater than or equal to 0, got {num_oov_buckets}."
        )
    if vocab_size is not None and not hasattr(vocab_size, "numpy") and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != dtypes.string:
        raise TypeError(
            f"`key_dtype` must be either an integer or string type, but got {key_dtype}"
        )
    if num_oov_buckets:
        raise NotImplementedError(
            "tapejax.data.experimental.table_from_dataset: num_oov_buckets > 0 is not "
            "provided (hash buckets of out-of-vocabulary keys)"
        )
    if vocab_size is not None:
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    keys, values = [], []
    for k, v in dataset._elements():
        keys.append(k)
        values.append(v)
    if not keys:
        keys_t = np.zeros([0], spec[0].dtype.as_numpy_dtype)
        values_t = np.zeros([0], spec[1].dtype.as_numpy_dtype)
    else:
        keys_t, values_t = np.stack(keys), np.stack(values)
    initializer = lookup_ops.KeyValueTensorInitializer(
        structure.to_tensor(keys_t), structure.to_tensor(values_t)
    )
    return lookup_ops.StaticHashTable(initializer, default_value)


def index_table_from_dataset(
    dataset=None, num_oov_buckets=0, vocab_size=None, default_value=-1, hasher_spec=None,
    key_dtype=dtypes.string, name=None,
):  # fmt: skip
    """A table from a dataset's elements to their positions
    (``tf.data.experimental.index_table_from_dataset``): ``table_from_dataset`` of
    ``dataset.enumerate()`` with keys and values swapped."""
    return table_from_dataset(
        dataset.enumerate().map(lambda v, k: (k, v)), num_oov_buckets, vocab_size,
        default_value, hasher_spec, key_dtype, name,
    )  # fmt: skip


class Reducer:
    """The functions of ``group_by_reducer`` (``tf.data.experimental.Reducer``):
    ``init_func(key) -> state``, ``reduce_func(state, element) -> state``,
    ``finalize_func(state) -> output``."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def group_by_reducer(key_func, reducer):
    """A transformation reducing the elements of each key with ``reducer``, one output per
    key at the end, in the order of the keys' first elements
    (``tf.data.experimental.group_by_reducer``). The functions run eagerly per element.

    Raises:
        ValueError: ``key_func`` does not return a scalar int64 (TF's text).
    """

    def apply_fn(dataset):
        Dataset = _dataset_class()
        elem_spec = dataset.element_spec
        key_spec = structure.trace_output(lambda e: structure.call(key_func, e), elem_spec)
        if not (
            isinstance(key_spec, TensorSpec)
            and key_spec.dtype == structure.held_dtype(dtypes.int64)
            and key_spec.shape.is_compatible_with([])
        ):
            types = structure.map_structure(lambda s: s.dtype, key_spec)
            shapes = structure.map_structure(lambda s: s.shape, key_spec)
            raise ValueError(
                "Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 tensor, "
                f"but instead `key_func` has output types={types} and shapes={shapes}."
            )
        key0 = TensorSpec([], structure.held_dtype(dtypes.int64))
        # the output spec: finalize of an initial state and of a state after one element,
        # relaxed (a state whose shapes change leaves those dims unknown, as TF's reruns)
        spec = structure.relax(
            structure.trace_output(lambda k: reducer.finalize_func(reducer.init_func(k)), key0),
            structure.trace_output(
                lambda k, e: reducer.finalize_func(reducer.reduce_func(reducer.init_func(k), e)),
                key0,
                elem_spec,
            ),
        )

        def make_iterator():
            states = {}
            for element in dataset._elements():
                e = structure.to_tensors(element)
                key = int(structure.run_eagerly(structure.call, key_func, e))
                if key not in states:
                    k = structure.to_tensor(np.int64(key))
                    states[key] = structure.run_eagerly(reducer.init_func, k)
                states[key] = structure.run_eagerly(reducer.reduce_func, states[key], e)
            for state in states.values():
                out = structure.run_eagerly(reducer.finalize_func, state)
                yield structure.to_host(structure.returned(out))

        return Dataset(make_iterator, spec, UNKNOWN)

    return apply_fn


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """``dataset.save(...)`` (``tf.data.experimental.save``): tapejax's own format."""
    return dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    """``Dataset.load(...)`` (``tf.data.experimental.load``): tapejax's own format."""
    return _dataset_class().load(path, element_spec, compression, reader_func)


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation: ``dataset.snapshot(...)`` (``tf.data.experimental.snapshot``),
    which is not provided."""
    return lambda dataset: dataset.snapshot(
        path, compression=compression, reader_func=reader_func, shard_func=shard_func
    )


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """A transformation: ``dataset.ragged_batch(...)``
    (``tf.data.experimental.dense_to_ragged_batch``), which is not provided."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation: ``dataset.sparse_batch(...)``
    (``tf.data.experimental.dense_to_sparse_batch``), which is not provided."""
    return lambda dataset: dataset.sparse_batch(batch_size, row_shape)
