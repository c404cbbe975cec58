"""``window``, ``group_by_window`` and ``bucket_by_sequence_length`` of
``tapejax.data.Dataset``: transformations whose elements, or whose functions'
arguments, are Datasets of buffered input elements, in the order of TF's kernels.

A window's elements are buffered on the host before the window is output (as TF's
kernels buffer them); a window Dataset can be iterated any number of times. Nothing
here may run the input pipeline before the result is iterated.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes
from ..errors import InternalError, InvalidArgumentError
from ..tensor_shape import TensorShape
from ..tensor_spec import TensorSpec
from . import compiled, structure
from .structure import INFINITE, UNKNOWN, DatasetSpec

_END = object()


def _count(value, what: str) -> int:
    n = int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))
    if n <= 0:
        raise InvalidArgumentError(
            None, None, f"Window {what} must be greater than zero. [Op:WindowDataset]"
        )
    return n


def _held_dataset(spec, values):
    """A Dataset of the host ``values`` (elements of ``spec``), iterable again and again."""
    from .dataset import Dataset

    values = list(values)
    return Dataset(lambda: iter(values), spec, len(values), prefetchable=True)


def _int64_spec() -> TensorSpec:
    return TensorSpec([], structure.held_dtype(dtypes.int64))


def _unknown_dims(spec):
    """``spec`` with every dim unknown (ranks kept), for a spec read off one run."""

    def one(s):
        if isinstance(s, DatasetSpec):
            return DatasetSpec(_unknown_dims(s.element_spec), s._dataset_shape)
        return TensorSpec([None] * s.shape.rank, s.dtype)

    return structure.map_structure(one, spec)


def _scalar_function(fn, spec, dataset=None):
    """``(run, out_spec)``: ``run(host element) -> host result`` of ``fn`` on elements of
    ``spec``, compiled where that cannot change its results (as ``map``'s function),
    else eager; ``out_spec`` None where the trace failed (the function runs eagerly)."""
    try:
        traced = compiled.trace(fn, spec)
    except Exception:  # noqa: BLE001 - a function the trace cannot run runs eagerly
        traced = None
        out_spec = None
    else:
        out_spec = None if traced is None else traced.out_spec
        if traced is None:
            try:
                out_spec = structure.trace_output(fn, spec)
            except Exception:  # noqa: BLE001 - as above
                out_spec = None
        elif not traced.compiled:
            traced = None

    def eager(element):
        return structure.to_host(structure.run_eagerly(fn, structure.to_tensors(element)))

    def run(element):
        if traced is None:
            return eager(element)
        return next(traced.results(iter((element,)), eager, False))[1]

    def run_all(elements, prefetchable):
        """``(element, result)`` pairs for the host ``elements``, in order."""
        if traced is None:
            return ((e, eager(e)) for e in elements)
        return traced.results(iter(elements), eager, prefetchable and traced.pure)

    return run, run_all, out_spec


class Windowing:
    """The methods of ``Dataset`` that make or consume Datasets of input elements."""

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each a Dataset of ``size`` input elements (fewer at the
        end unless ``drop_remainder``), every ``stride``-th from where the window starts;
        windows start every ``shift`` (default ``size``) input elements. An element of
        tuples or dicts gives a tuple or dict of Datasets, one per component, as TF.

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.range(7).window(3, shift=2, stride=2)
            >>> [[int(x) for x in w] for w in ds]
            [[0, 2, 4], [2, 4, 6], [4, 6], [6]]
        """
        size = _count(size, "size")
        shift = size if shift is None else _count(shift, "shift")
        stride = _count(stride, "stride")
        drop_remainder = bool(np.asarray(drop_remainder))
        target = (size - 1) * stride + 1  # the input elements a full window spans

        n = self._card
        if n in (INFINITE, UNKNOWN):
            card = n
        elif drop_remainder:
            rest = n - target
            card = 0 if rest < 0 else rest // shift + 1
        else:
            card = n // shift + (n % shift != 0)

        def spec():
            return structure.map_structure(DatasetSpec, self.element_spec)

        if not callable(self._spec):  # known now: later transformations can check it
            spec = spec()

        def make_iterator():
            # TF's WindowDatasetOp: fill a buffer to the span of a full window, output
            # every stride-th buffered element, drop ``shift`` elements (skipping input
            # past the buffer where the shift is longer).
            it = self._elements()
            buffer: list = []
            ended = False
            while True:
                while len(buffer) < target and not ended:
                    element = next(it, _END)
                    if element is _END:
                        ended = True
                    else:
                        buffer.append(element)
                if not buffer or (drop_remainder and len(buffer) < target):
                    return
                members = buffer[:target:stride]
                element_spec = self.element_spec
                columns = zip(*(structure.flatten(e) for e in members))
                yield structure.pack(
                    element_spec,
                    [
                        _held_dataset(s, column)
                        for s, column in zip(structure.flatten(element_spec), columns)
                    ],
                )
                if shift < len(buffer):
                    del buffer[:shift]
                else:
                    skip = shift - len(buffer)
                    buffer.clear()
                    for _ in itertools.islice(it, skip):
                        pass

        return self._derive(make_iterator, spec, card)

    def group_by_window(
        self, key_func, reduce_func, window_size=None, window_size_func=None, name=None
    ):
        """Elements grouped by ``key_func(element)`` (a scalar int64); each group, once it
        holds ``window_size`` (or ``window_size_func(key)``) elements, is handed to
        ``reduce_func(key, dataset of them)``, and the elements of the Dataset it returns
        are output. At the end of the input the groups not full are handed over in
        ascending key order, as TF's kernel does.

        ``key_func`` and ``window_size_func`` are traced once and run compiled, or
        eagerly, as ``map``'s function; ``reduce_func`` runs eagerly per window (as
        ``flat_map``'s function), and once on abstract values when called, for the
        element spec.

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.range(7).group_by_window(
            ...     lambda x: x % 2, lambda key, w: w.batch(3), window_size=3)
            >>> [b.numpy().tolist() for b in ds]
            [[0, 2, 4], [1, 3, 5], [6]]
        """
        if (window_size is not None and window_size_func) or not (
            window_size is not None or window_size_func
        ):
            raise ValueError(
                "Either the `window_size` argument or the `window_size_func` argument must "
                "be specified."
            )
        int64 = _int64_spec()
        if window_size is not None:
            size = structure.host(structure.to_tensor(window_size, int64.dtype))

            def window_size_func(unused_key):
                return size

        def key_fn(element):
            return structure.to_tensor(structure.call(key_func, element), int64.dtype)

        def size_fn(key):
            return structure.to_tensor(window_size_func(key), int64.dtype)

        _, keyed, key_spec = _scalar_function(key_fn, self.element_spec)
        if key_spec is not None and not (
            isinstance(key_spec, TensorSpec) and key_spec.shape.is_compatible_with([])
        ):
            raise ValueError(
                "Invalid `key_func`. `key_func` must return a single `tf.int64` scalar "
                f"tensor but its return type is {key_spec}."
            )
        size_run, _, size_spec = _scalar_function(size_fn, int64)
        key_dtype = int64.dtype.as_numpy_dtype
        if size_spec is not None and not (
            isinstance(size_spec, TensorSpec) and size_spec.shape.is_compatible_with([])
        ):
            raise ValueError(
                "Invalid `window_size_func`. `window_size_func` must return a single "
                f"`tf.int64` scalar tensor but its return type is {size_spec}."
            )

        def reduce_error(found):
            return TypeError(
                "Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` "
                f"object but its return type is {found}."
            )

        failure = None
        try:
            found = structure.trace_output(reduce_func, int64, DatasetSpec(self.element_spec))
        except Exception as error:  # noqa: BLE001 - an eager-only function: its first window tells
            found, failure = None, error
        if found is not None and not isinstance(found, DatasetSpec):
            raise reduce_error(found)

        def reduce(key, group):
            window = _held_dataset(self.element_spec, group)
            out = structure.run_eagerly(
                reduce_func,
                structure.to_tensors(np.asarray(key, int64.dtype.as_numpy_dtype)),
                window,
            )
            if not structure.is_dataset(out):
                raise reduce_error(structure.as_specs(out))
            return out

        return _grouped(
            self,
            keyed,
            lambda key: size_run(np.asarray(key, key_dtype)),
            reduce,
            None if found is None else found.element_spec,
            failure,
        )

    def bucket_by_sequence_length(
        self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
        padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
        drop_remainder=False, name=None,
    ):  # fmt: skip
        """Elements grouped by length into buckets (``bucket_boundaries``) and each bucket
        padded and batched by ``bucket_batch_sizes``, as TF's (``group_by_window`` with
        ``padded_batch``, or ``batch`` with ``no_padding``).

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([n], n))
            >>> ds = ds.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3], [2, 2])
            >>> [b.numpy().tolist() for b in ds]
            [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]
        """
        if len(bucket_batch_sizes) != (len(bucket_boundaries) + 1):
            raise ValueError(
                f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
            )
        from ..ops.math_ops import cast, less, less_equal, logical_and
        from ..ops.reduction_ops import reduce_min
        from ..ops.selection_ops import where

        boundaries = [int(b) for b in bucket_boundaries]
        batch_sizes = [int(b) for b in bucket_batch_sizes]
        int32 = np.iinfo(np.int32)
        held = _int64_spec().dtype.as_numpy_dtype  # int64 (int32 without JAX's x64)
        buckets_min = np.asarray([int32.min, *boundaries], held)
        buckets_max = np.asarray([*boundaries, int32.max], held)
        ids = np.arange(len(batch_sizes), dtype=held)

        def key_fn(element):
            # TF's element_to_bucket_id: the first bucket with min <= length < max.
            length = cast(structure.call(element_length_func, element), _int64_spec().dtype)
            inside = logical_and(less_equal(buckets_min, length), less(length, buckets_max))
            return reduce_min(where(inside, ids, np.full_like(ids, np.iinfo(held).max)))

        in_spec = self.element_spec
        structure.refuse_datasets(in_spec, "Dataset.bucket_by_sequence_length")
        spec_leaves = structure.flatten(in_spec)
        from .batching import padded_shape_leaves

        shapes = padded_shape_leaves(in_spec, padded_shapes)
        # TF's batch size (and boundary filler) are tensors indexed by the bucket: the
        # batches' leading dim is unknown, and so are the filled dims.
        spec = structure.pack(
            in_spec,
            [
                TensorSpec(TensorShape([None]).concatenate(shape), s.dtype)
                for shape, s in zip(
                    shapes if not no_padding else [s.shape for s in spec_leaves], spec_leaves
                )
            ],
        )

        def reduce(bucket_id, group):
            bucket_id = int(bucket_id)
            size = batch_sizes[bucket_id]
            grouped = _held_dataset(in_spec, group)
            if no_padding:
                return grouped.batch(size, drop_remainder=drop_remainder)
            filler = None
            if pad_to_bucket_boundary:
                if not bucket_id < len(batch_sizes) - 1:
                    raise InternalError(
                        None,
                        None,
                        "Got error code INVALID_ARGUMENT and message: {assertion failed: "
                        "[When pad_to_bucket_boundary=True, elements must have length < "
                        "max(bucket_boundaries).] [Condition x < y did not hold "
                        f"element-wise:] [x (args_0:0) = ] [{bucket_id}] [y (Const_1:0) = ] "
                        f"[{len(batch_sizes) - 1}]}} [Op:IteratorGetNext]",
                    )
                filler = boundaries[bucket_id] - 1
            targets = structure.pack(
                in_spec,
                [[filler if d is None else d for d in shape.as_list()] for shape in shapes],
            )
            return grouped.padded_batch(
                size, targets, padding_values, drop_remainder=drop_remainder
            )

        _, keyed, _ = _scalar_function(key_fn, in_spec)
        return _grouped(
            self, keyed, lambda key: np.asarray(batch_sizes[int(key)]), reduce, spec, None
        )


def _grouped(dataset, keyed, window_size, reduce, spec, failure):
    """``group_by_window``'s dataset: ``keyed(elements, prefetchable)`` gives ``(element,
    key)`` pairs, ``window_size(key)`` a group's size, ``reduce(key, group)`` the Dataset
    a group becomes; ``spec`` its element spec, or None (then read off the first window's
    Dataset, every dim unknown, or ``failure`` raised where there is none)."""

    def flushes():
        # TF's GroupByWindowDatasetOp: a group is reduced when full, its Dataset's
        # elements output before more input is read; at the end, the remaining groups
        # in ascending key order (its groups are a std::map).
        groups: dict = {}
        sizes: dict = {}
        for element, key in keyed(dataset._elements(), dataset._prefetchable):
            key = int(np.asarray(key))
            if key not in sizes:
                size = int(np.asarray(window_size(key)))
                if size <= 0:
                    raise InvalidArgumentError(
                        None,
                        None,
                        f"Window size must be greater than zero, but got {size}. "
                        "[Op:IteratorGetNext]",
                    )
                sizes[key] = size
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield reduce(key, group)
        for key in sorted(groups):
            yield reduce(key, groups[key])

    def make_iterator():
        for out in flushes():
            yield from out._elements()

    if spec is None:

        def spec():
            for out in flushes():
                return _unknown_dims(out.element_spec)
            raise failure

    card = INFINITE if dataset._card == INFINITE else UNKNOWN
    return dataset._derive(make_iterator, spec, card)
