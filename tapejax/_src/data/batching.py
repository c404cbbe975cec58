"""``batch``, ``padded_batch`` and ``unbatch`` of ``tapejax.data.Dataset``: elements
stacked (or split) on the host with NumPy, with TF's specs, cardinalities and errors."""

from __future__ import annotations

import itertools

import jax
import numpy as np

from ..errors import DataLossError, InvalidArgumentError
from ..tensor_shape import TensorShape
from ..tensor_spec import TensorSpec
from . import structure
from .structure import INFINITE, UNKNOWN


def _batch_size(batch_size) -> int | None:
    """The batch size, or None where it is an abstract value (a dataset function traced
    for its spec, as ``w.batch(key)`` in ``group_by_window``: TF's batch of a size it
    cannot know statically has an unknown leading dim; such a dataset is never run)."""
    if isinstance(getattr(batch_size, "_value", None), jax.core.Tracer):
        return None
    size = int(np.asarray(batch_size.numpy() if hasattr(batch_size, "numpy") else batch_size))
    if size <= 0:
        raise InvalidArgumentError(
            None, None, "Batch size must be greater than zero. [Op:BatchDatasetV2]"
        )
    return size


def _batched_card(n, size, drop_remainder):
    if size is None:
        return UNKNOWN
    if n in (UNKNOWN, INFINITE):
        return n
    return n // size if drop_remainder else -(-n // size)


def _groups(elements, size, drop_remainder):
    it = iter(elements)
    while True:
        group = list(itertools.islice(it, size))
        if not group or (drop_remainder and len(group) < size):
            return
        yield group


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _stack(arrays):
    """The arrays stacked as TF's batch kernel copies them: each must hold as many
    values as the first (a different shape with as many values is taken in its shape)."""
    first = arrays[0]
    out = np.empty((len(arrays), *first.shape), first.dtype)
    for i, a in enumerate(arrays):
        if a.size != first.size:
            raise InvalidArgumentError(
                None,
                None,
                "Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {_shape_text(a.shape)}, [batch]: {_shape_text(first.shape)} "
                "[Op:IteratorGetNext]",
            )
        out[i] = a.reshape(first.shape)
    return out


def _pad(arrays, target, value):
    """The arrays padded with ``value`` to ``target`` (None dims: the largest) and stacked."""
    rank = arrays[0].ndim
    if target is None:
        target = [None] * rank
    dims = [
        max(a.shape[k] for a in arrays) if target[k] is None else target[k] for k in range(rank)
    ]
    out = np.full((len(arrays), *dims), value, arrays[0].dtype)
    for i, a in enumerate(arrays):
        if any(s > d for s, d in zip(a.shape, dims)):
            raise DataLossError(
                None,
                None,
                "Attempted to pad to a smaller size than the input element. [Op:IteratorGetNext]",
            )
        out[(i, *(slice(0, s) for s in a.shape))] = a
    return out


class Batching:
    """The methods of ``Dataset`` that combine elements into batches or split them."""

    def batch(
        self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
        name=None,
    ):  # fmt: skip
        """Consecutive elements stacked into batches of ``batch_size`` (the last one
        smaller unless ``drop_remainder``); components must have equal shapes.

        ``num_parallel_calls`` and ``deterministic`` are accepted and change nothing.

        Example:
            >>> import tapejax as tf
            >>> [b.shape.as_list() for b in tf.data.Dataset.range(5).batch(2)]
            [[2], [2], [1]]
        """
        size = _batch_size(batch_size)
        self._refuse_datasets("Dataset.batch")
        drop_remainder = bool(drop_remainder)
        lead = size if drop_remainder else None

        def spec():
            structure.refuse_datasets(self.element_spec, "Dataset.batch")
            return structure.map_structure(
                lambda s: TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype),
                self.element_spec,
            )

        def make_iterator():
            structure.refuse_datasets(self.element_spec, "Dataset.batch")
            for group in _groups(self._elements(), size, drop_remainder):
                leaves = [structure.flatten(e) for e in group]
                stacked = [_stack([np.asarray(x) for x in column]) for column in zip(*leaves)]
                yield structure.pack(group[0], stacked)

        if self._slices is not None:  # ``from_tensor_slices``: its ranges cut, not stacked
            n, slices = self._card, self._slices

            def make_iterator():
                stop = n - n % size if drop_remainder else n
                for start in range(0, stop, size):
                    yield slices(start, min(start + size, n))

        return self._derive(
            make_iterator,
            spec,
            _batched_card(self._card, size, drop_remainder),
            prefetchable=self._prefetchable,
        )

    def padded_batch(
        self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
        name=None,
    ):  # fmt: skip
        """Batches as ``batch``, each component padded (with ``padding_values``, default 0
        or False) to ``padded_shapes`` (default: the component's shape; None or -1 dims
        are padded to the longest in the batch).

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
            >>> [b.numpy().tolist() for b in ds.padded_batch(2)]
            [[[1, 0], [2, 2]], [[3, 3, 3]]]
        """
        size = _batch_size(batch_size)
        drop_remainder = bool(drop_remainder)
        in_spec = self.element_spec
        structure.refuse_datasets(in_spec, "Dataset.padded_batch")
        spec_leaves = structure.flatten(in_spec)
        shapes = padded_shape_leaves(in_spec, padded_shapes)
        for shape, s in zip(shapes, spec_leaves):
            if not _can_pad(s.shape, shape):
                raise ValueError(
                    f"The padded shape {shape} is not compatible with the shape {s.shape} of "
                    "the corresponding input component."
                )
        if padding_values is None:
            values = [np.zeros((), s.dtype.as_numpy_dtype) for s in spec_leaves]
        else:
            values = []
            for v, s in zip(_value_leaves(in_spec, padding_values), spec_leaves):
                value = structure.to_tensor(v)
                if value.dtype != s.dtype:
                    raise TypeError(
                        "Invalid `padding_values`. `padding_values` values type "
                        f"{value.dtype} does not match type {s.dtype} of the corresponding "
                        "input component."
                    )
                values.append(structure.host(value))
        lead = size if drop_remainder else None
        targets = [None if shape.rank is None else shape.as_list() for shape in shapes]
        spec = structure.pack(
            in_spec,
            [
                TensorSpec(TensorShape([lead]).concatenate(shape), s.dtype)
                for shape, s in zip(shapes, spec_leaves)
            ],
        )

        def make_iterator():
            for group in _groups(self._elements(), size, drop_remainder):
                leaves = [structure.flatten(e) for e in group]
                padded = [
                    _pad([np.asarray(x) for x in column], target, value)
                    for column, target, value in zip(zip(*leaves), targets, values)
                ]
                yield structure.pack(group[0], padded)

        return self._derive(
            make_iterator,
            spec,
            _batched_card(self._card, size, drop_remainder),
            prefetchable=self._prefetchable,
        )

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The components' rows regrouped into batches of ``batch_size`` (as
        ``unbatch().batch(batch_size)``); a list of sizes is cycled through.

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.range(8).batch(4).rebatch([2, 1, 1])
            >>> [b.numpy().tolist() for b in ds]
            [[0, 1], [2], [3], [4, 5], [6], [7]]
        """
        sizes = np.asarray(batch_size.numpy() if hasattr(batch_size, "numpy") else batch_size)
        if sizes.ndim > 1:
            raise ValueError(
                "Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. "
                f"Received `batch_sizes` of rank {sizes.ndim}."
            )
        sizes = [int(n) for n in sizes.reshape(-1)]
        if any(n <= 0 for n in sizes) or not sizes:
            # TF loops forever on a zero size; a negative or missing size is no size either.
            raise InvalidArgumentError(
                None, None, f"tapejax.data: rebatch's sizes must be positive; got {sizes}."
            )
        structure.refuse_datasets(self.element_spec, "Dataset.rebatch")
        if any(s.shape.rank == 0 for s in structure.flatten(self.element_spec)):
            raise ValueError(
                "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset "
                "with scalar elements. Fix the issue by adding the `batch` transformation to "
                "the dataset."
            )
        rows = self.unbatch()
        drop_remainder = bool(drop_remainder)
        lead = sizes[0] if drop_remainder and len(set(sizes)) == 1 else None

        def spec():
            return structure.map_structure(
                lambda s: TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype),
                rows.element_spec,
            )

        def make_iterator():
            it = rows._elements()
            for size in itertools.cycle(sizes):
                group = list(itertools.islice(it, size))
                if not group or (drop_remainder and len(group) < size):
                    return
                columns = zip(*(structure.flatten(e) for e in group))
                yield structure.pack(
                    group[0], [_stack([np.asarray(x) for x in c]) for c in columns]
                )

        return self._derive(make_iterator, spec, UNKNOWN, prefetchable=self._prefetchable)

    def unbatch(self, name=None):
        """The slices of each element along its first dimension (``batch``'s inverse)."""
        in_spec = self.element_spec
        structure.refuse_datasets(in_spec, "Dataset.unbatch")
        leaves = structure.flatten(in_spec)
        if any(s.shape.rank == 0 for s in leaves):
            raise ValueError("Cannot unbatch an input with scalar components.")
        known = {s.shape[0] for s in leaves if s.shape.rank is not None} - {None}
        if len(known) > 1:
            a, b = sorted(known)[:2]
            raise ValueError(
                "`unbatch()` is only supported for datasets of elements whose components "
                f"have a matching leading dimension. Encountered both {a} and {b}."
            )
        lead = (
            leaves[0].shape[0]
            if all(s.shape.rank is not None and s.shape[0] is not None for s in leaves)
            else None
        )
        n = self._card
        card = UNKNOWN if lead is None or n == UNKNOWN else n if n == INFINITE else n * lead
        spec = structure.map_structure(lambda s: TensorSpec(s.shape[1:], s.dtype), in_spec)

        def make_iterator():
            for element in self._elements():
                arrays = [np.asarray(a) for a in structure.flatten(element)]
                rows = {a.shape[0] for a in arrays}
                if len(rows) > 1:
                    raise InvalidArgumentError(
                        None,
                        None,
                        "Input element must have the same batch size in each component. "
                        f"Component 0 had size {arrays[0].shape[0]} but component "
                        f"{next(i for i, a in enumerate(arrays) if a.shape[0] != arrays[0].shape[0])}"  # noqa: E501
                        f" had size {next(a.shape[0] for a in arrays if a.shape[0] != arrays[0].shape[0])}."  # noqa: E501
                        " [Op:IteratorGetNext]",
                    )
                for i in range(arrays[0].shape[0]):
                    yield structure.pack(element, [a[i] for a in arrays])

        return self._derive(make_iterator, spec, card, prefetchable=self._prefetchable)


def _can_pad(shape: TensorShape, padded: TensorShape) -> bool:
    """Whether components of ``shape`` can be padded to ``padded`` (TF's test: same rank,
    no known padded dim smaller than a known dim)."""
    if shape.rank is None or padded.rank is None:
        return True
    if shape.rank != padded.rank:
        return False
    return all(p is None or d is None or p >= d for p, d in zip(padded.as_list(), shape.as_list()))


def _dims(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.rank is not None else []
    if hasattr(shape, "numpy"):
        return shape.numpy().tolist()
    return list(shape)


def padded_shape_leaves(in_spec, padded_shapes) -> list:
    """One TensorShape per component of ``in_spec``: ``padded_shapes``' (-1 and None an
    unknown dim), or the components' own shapes when it is None."""
    if padded_shapes is None:
        return [s.shape for s in structure.flatten(in_spec)]
    return [
        TensorShape([None if d == -1 else d for d in _dims(p)])
        for p in _shape_leaves(in_spec, padded_shapes)
    ]


def _shape_leaves(spec, shapes):
    # padded_shapes nests as the element does; each shape is a list, tuple or TensorShape.
    if isinstance(spec, tuple):
        return [s for sp, sh in zip(spec, shapes) for s in _shape_leaves(sp, sh)]
    if isinstance(spec, dict):
        return [s for k in sorted(spec) for s in _shape_leaves(spec[k], shapes[k])]
    return [shapes]


def _value_leaves(spec, values):
    if not structure._is_nested(spec):
        return [values]
    if not structure._is_nested(values):
        return [values] * len(structure.flatten(spec))
    return structure.flatten(values)
