"""``tf.data.Dataset`` on the host: a chain of Python iterators, in TF's element order,
with TF's element specs, cardinalities and errors. Inside the pipeline an element's
components are NumPy values (slicing, shuffling and batching cost no device transfers);
user functions and the iterator get tapejax Tensors.

A Dataset is immutable; each ``iter`` starts its pipeline afresh. The pipeline itself is
never traced (``map``'s, ``filter``'s, ``take_while``'s, ``scan``'s and ``reduce``'s
functions may be, ``compiled.py``): iterating a Dataset inside a ``tapejax.function``
is refused (it would run once, at trace time), and a Dataset never records on a tape.
"""

from __future__ import annotations

import numpy as np

from .. import execution
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ..tensor_spec import TensorSpec, TypeSpec
from ..type_spec import _SerializedSpec
from . import structure
from .batching import Batching
from .options import Options
from .sampling import Sampling
from .selection import Selection
from .structure import INFINITE, UNKNOWN
from .transforms import Transformations
from .windows import Windowing

AUTOTUNE = -1

_ITERATE_IN_FUNCTION = (
    "tapejax.data: iterating a Dataset inside a tapejax.function is not supported: the "
    "pipeline runs in Python on the host and would run once, when the function is traced. "
    "Iterate the Dataset outside and pass its elements to the function (it does not "
    "retrace for elements of the same shapes and dtypes)."
)


class Dataset(Transformations, Batching, Selection, Windowing, Sampling):
    """A sequence of elements, each a nested structure (tuples, namedtuples, dicts) of
    Tensors, as ``tf.data.Dataset``: build one with ``from_tensor_slices``, ``range``,
    ``from_generator``..., transform it with ``map``, ``shuffle``, ``batch``..., and
    iterate it with ``for`` in Python.

    The pipeline runs in Python on the host. Functions given to ``map``, ``filter``,
    ``take_while``, ``scan`` and ``reduce`` are traced once and run compiled where that
    cannot change their results (see ``map`` and ``reduce``); ``flat_map``'s and
    ``interleave``'s run once per element, on eager Tensors.

    Example:
        >>> import tapejax as tf
        >>> ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
        >>> [b.numpy().tolist() for b in ds]
        [[0, 2], [4, 6], [8]]

    .. warning:: Functions that run eagerly (``flat_map``'s, ``interleave``'s, and the
       others' where they cannot run compiled) run in Python for every element (TF
       traces them once into a graph): a Python side effect happens at each element
       (and once or twice when the transformation is created, to find the element
       spec). ``shuffle``'s order is not TF's. A Dataset cannot be iterated
       inside a ``tapejax.function`` (``NotImplementedError``): iterate it outside and
       pass the elements in. See ``docs/compat.md``.
    """

    def __init__(self, make_iterator, element_spec, cardinality, options=None, prefetchable=False):
        # ``make_iterator() -> Python iterator of elements``; ``element_spec`` may be a
        # callable computing it on first use. ``prefetchable``: pulling elements ahead of
        # need cannot be observed (no Python code of the user's runs to make them), so a
        # compiled ``map`` may pull them in blocks.
        self._make_iterator = make_iterator
        self._spec = element_spec
        self._card = cardinality
        self._options = options if options is not None else Options()
        self._prefetchable = prefetchable
        # ``from_tensor_slices``'s: ``slices(start, stop)``, the elements of that range
        # stacked (host copies), for ``batch`` to cut instead of stacking elements.
        self._slices = None
        # ``make_tolerant() -> iterator`` yielding ``selection.Failed`` in place of an
        # element whose production raised, for ``ignore_errors``; None where this
        # dataset's pipeline cannot go on after an error.
        self._make_tolerant = None

    # -- what a Dataset is ---------------------------------------------------------------

    @property
    def element_spec(self):
        """The structure of ``TensorSpec`` of an element (``tf.data.Dataset.element_spec``)."""
        if callable(self._spec):
            self._spec = self._spec()
        return self._spec

    def cardinality(self) -> Tensor:
        """The number of elements, or ``INFINITE_CARDINALITY`` (-1) or
        ``UNKNOWN_CARDINALITY`` (-2), as a scalar int64 Tensor (int32 without x64)."""
        return structure.to_tensor(np.int64(self._card))

    def __len__(self) -> int:
        if self._card == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._card == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._card

    def __bool__(self) -> bool:
        return True  # TF's Datasets are always true, even empty ones

    def __iter__(self) -> Iterator:
        """A new iterator, from the first element (each ``iter`` restarts the pipeline)."""
        if execution.inside_function():
            raise NotImplementedError(_ITERATE_IN_FUNCTION)
        return Iterator(self)

    def _elements(self):
        return self._make_iterator()

    def _derive(self, make_iterator, element_spec=None, cardinality=None, prefetchable=False):
        return Dataset(
            make_iterator,
            self._spec if element_spec is None else element_spec,
            self._card if cardinality is None else cardinality,
            self._options,
            prefetchable,
        )

    def _refuse_datasets(self, what: str) -> None:
        """``structure.refuse_datasets`` on the element spec, where it is known without
        running a function (a lazy spec is checked when computed)."""
        if not callable(self._spec):
            structure.refuse_datasets(self._spec, what)

    def as_numpy_iterator(self) -> NumpyIterator:
        """An iterator of the elements as NumPy values (``tf.data.Dataset.as_numpy_iterator``)."""
        if execution.inside_function():
            raise NotImplementedError(_ITERATE_IN_FUNCTION)
        if structure.holds_datasets(self.element_spec):
            raise TypeError(
                "`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that "
                f"produce values of type {Dataset}"
            )
        return NumpyIterator(self)

    def options(self) -> Options:
        """The options set with ``with_options`` (``tf.data.Options``)."""
        return self._options

    def with_options(self, options, name=None) -> Dataset:
        """This dataset with ``options`` merged into its own; they are accepted and kept,
        and change nothing in how tapejax runs the pipeline."""
        return Dataset(
            self._make_iterator,
            self._spec,
            self._card,
            self._options.merge(options),
            self._prefetchable,
        )

    def apply(self, transformation_func) -> Dataset:
        """``transformation_func(self)``, which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(
                "`transformation_func` must return a `tf.data.Dataset` object. "
                f"Got {type(dataset)}."
            )
        return dataset

    def __repr__(self) -> str:
        return f"<Dataset element_spec={self.element_spec}>"

    # -- sources ---------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors, name=None) -> Dataset:
        """A dataset of one element, ``tensors``."""
        element = structure.normalize(tensors)
        held = []  # the host copy, made on first use (a Dataset built while tracing never is)

        def make_iterator():
            if not held:
                held.append(structure.to_host(element))
            return iter(held)

        return Dataset(make_iterator, structure.spec_of(element), 1, prefetchable=True)

    @staticmethod
    def from_tensor_slices(tensors, name=None) -> Dataset:
        """A dataset of the slices of ``tensors`` along their first dimension; every
        component must have the same size there.

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.from_tensor_slices(([1, 2], [[3.0], [4.0]]))
            >>> [(int(a), b.numpy().tolist()) for a, b in ds]
            [(1, [3.0]), (2, [4.0])]
        """
        element = structure.normalize(tensors)
        leaves = structure.flatten(element)
        if any(structure.is_dataset(t) for t in leaves):
            raise NotImplementedError(
                "tapejax.data: Dataset.from_tensor_slices of Datasets is not provided"
            )
        size = None
        for t in leaves:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            n = t.shape[0]
            if size is not None and n != size:
                raise ValueError(f"Dimensions {size} and {n} are not compatible")
            size = n
        spec = structure.map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), element)

        held = []  # the host copies, made on first use (never for a Dataset built while tracing)

        def arrays():
            if not held:
                held.extend(structure.host(t) for t in leaves)
            return held

        def make_iterator():
            held = arrays()
            for i in range(size):
                yield structure.pack(element, [a[i] for a in held])

        def slices(start, stop):
            return structure.pack(element, [a[start:stop].copy() for a in arrays()])

        dataset = Dataset(make_iterator, spec, size, prefetchable=True)
        dataset._slices = slices
        return dataset

    @staticmethod
    def range(*args, **kwargs) -> Dataset:  # noqa: A003 - TF's name
        """``range(stop)``, ``range(start, stop[, step])`` as Python's, as int64 scalars
        (``output_type=`` another dtype; int32 without JAX's x64, see ``docs/compat.md``).

        Example:
            >>> import tapejax as tf
            >>> [int(x) for x in tf.data.Dataset.range(1, 8, 3)]
            [1, 4, 7]
        """
        from .. import dtypes

        output_type = dtypes.as_dtype(kwargs.get("output_type", dtypes.int64))
        if not 1 <= len(args) <= 3:
            raise ValueError(
                "Invalid `args`. The length of `args` should be between 1 and 3 but was "
                f"{len(args)}."
            )
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        start, stop, step = (int(np.asarray(v)) for v in (start, stop, step))
        if step == 0:
            raise InvalidArgumentError(
                None, None, "step must be a non-zero integer. [Op:RangeDataset]"
            )
        values = range(start, stop, step)
        held = structure.held_dtype(output_type).as_numpy_dtype
        if values:  # 64-bit values JAX cannot hold without x64: tapejax's warning or error
            structure.to_tensor(np.asarray([values[0], values[-1]], output_type.as_numpy_dtype))

        def make_iterator():
            for v in values:
                yield np.asarray(v, held)

        spec = TensorSpec([], structure.held_dtype(output_type))
        return Dataset(make_iterator, spec, len(values), prefetchable=True)

    @staticmethod
    def zip(*args, datasets=None, name=None) -> Dataset:  # noqa: A003 - TF's name
        """A dataset of tuples (or the structure given) of the elements of ``datasets``,
        as long as the shortest."""
        if args and datasets is not None:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        members = structure.flatten(datasets)
        for d in members:
            if isinstance(d, list):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    "`tf.data.Dataset` objects. Python `list` is not supported and you "
                    "should use `tuple` instead."
                )
            if not isinstance(d, Dataset):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    f"`tf.data.Dataset` objects but encountered object of type {type(d)}."
                )
        cards = [d._card for d in members]
        if UNKNOWN in cards:
            card = UNKNOWN
        elif all(c == INFINITE for c in cards):
            card = INFINITE
        else:
            card = min(c for c in cards if c != INFINITE)

        def make_iterator():
            for parts in zip(*(d._elements() for d in members)):
                yield structure.pack(datasets, parts)

        return Dataset(
            make_iterator,
            lambda: structure.pack(datasets, [d.element_spec for d in members]),
            card,
            prefetchable=all(d._prefetchable for d in members),
        )

    @staticmethod
    def from_generator(
        generator, output_types=None, output_shapes=None, args=None, output_signature=None,
        name=None,
    ) -> Dataset:  # fmt: skip
        """A dataset of the values a Python generator yields; ``generator(*args)`` is
        called afresh for each ``iter`` (``args`` as NumPy values).

        ``output_signature`` (a structure of ``TensorSpec``) says what it yields; TF's
        older ``output_types``/``output_shapes`` are accepted too.
        """
        from .. import dtypes

        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None:
                raise TypeError(
                    "The `output_types` argument can not be used together with the "
                    "`output_signature` argument."
                )
            if output_shapes is not None:
                raise TypeError(
                    "The `output_shapes` argument can not be used together with the "
                    "`output_signature` argument."
                )
            for spec in structure.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(
                        "`output_signature` must contain objects that are subclass of "
                        f"`tf.TypeSpec` but found {type(spec)} which is not."
                    )
        else:
            if output_types is None:
                raise TypeError(
                    "To specify the output signature you need to provide either the "
                    "`output_signature` argument or the `output_types` argument."
                )
            shapes = (
                structure.map_structure(lambda _: None, output_types)
                if output_shapes is None
                else output_shapes
            )
            if not structure._is_nested(output_types):
                shapes = [shapes]
                type_leaves = [output_types]
            else:
                type_leaves = structure.flatten(output_types)
                shapes = _shape_leaves(output_types, shapes)
            output_signature = structure.pack(
                output_types,
                [
                    TensorSpec(TensorShape(s), dtypes.as_dtype(t))
                    for t, s in zip(type_leaves, shapes)
                ],
            )
        output_signature = structure.map_structure(
            lambda s: TensorSpec(s.shape, structure.held_dtype(s.dtype)), output_signature
        )
        gen_args = () if args is None else tuple(structure.to_tensor(a).numpy() for a in args)
        specs = structure.flatten(output_signature)

        def make_iterator():
            for value in generator(*gen_args):
                yield _generated(value, output_signature, specs)

        return Dataset(make_iterator, output_signature, UNKNOWN)


def _shape_leaves(output_types, shapes):
    # output_shapes nests as output_types does; a shape itself is a list or TensorShape.
    if isinstance(output_types, tuple):
        return [s for t, sh in zip(output_types, shapes) for s in _shape_leaves(t, sh)]
    if isinstance(output_types, dict):
        return [s for k in sorted(output_types) for s in _shape_leaves(output_types[k], shapes[k])]
    return [shapes]


def _generated(value, signature, specs):
    """A generator's value as an element of ``signature``. A mismatch is TF's
    ``InvalidArgumentError`` wrapping the ``TypeError`` its generator wrapper raises."""
    if type(value) is list and structure._is_nested(signature):
        value = tuple(value)
    if not structure.same_structure(value, signature):
        raise _generator_error(
            "`generator` yielded an element that did not match the expected structure. The "
            f"expected structure was {_types(signature)}, but the yielded element was {value}."
        )
    leaves = []
    for v, spec in zip(structure.flatten(value), specs):
        try:
            t = np.asarray(v, spec.dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            raise _generator_error(
                "`generator` yielded an element that could not be converted to the expected "
                f"type. The expected type was {spec.dtype.name}, but the yielded element "
                f"was {v}."
            ) from None
        if not spec.shape.is_compatible_with(t.shape):
            raise _generator_error(
                f"`generator` yielded an element of shape {tuple(t.shape)} where an element of "
                f"shape {spec.shape} was expected."
            )
        leaves.append(t)
    return structure.pack(signature, leaves)


def _generator_error(text: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"TypeError: {text} [Op:IteratorGetNext]")


def _types(signature):
    return structure.map_structure(lambda s: s.dtype, signature)


class Iterator:
    """An iterator over a Dataset's elements (``tf.data.Iterator``): ``next(it)`` or
    ``it.get_next()``."""

    def __init__(self, dataset: Dataset):
        self._dataset = dataset
        self._it = dataset._elements()

    def __iter__(self):
        return self

    def __next__(self):
        return structure.to_tensors(next(self._it))

    def get_next(self, name=None):
        """The next element; ``OutOfRangeError`` at the end, as TF's."""
        from ..errors import OutOfRangeError

        try:
            return structure.to_tensors(next(self._it))
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """The next element in an ``Optional``, empty at the end
        (``tf.data.Iterator.get_next_as_optional``)."""
        from ..optional import Optional

        try:
            return Optional.from_value(structure.to_tensors(next(self._it)))
        except StopIteration:
            return Optional.empty(self.element_spec)

    @property
    def element_spec(self):
        return self._dataset.element_spec


class NumpyIterator:
    """An iterator over a Dataset's elements as NumPy values (``tf.data.NumpyIterator``)."""

    def __init__(self, dataset: Dataset):
        self._it = dataset._elements()

    def __iter__(self):
        return self

    def __next__(self):
        return structure.to_numpy(next(self._it))

    def next(self):
        return self.__next__()


class IteratorSpec(_SerializedSpec):
    """The type of a Dataset iterator (``tf.data.IteratorSpec``).

    Args:
        element_spec: the structure of ``TensorSpec``s of the iterator's elements.

    Example:
        >>> import tapejax as tf
        >>> tf.data.IteratorSpec(tf.TensorSpec([2], tf.float32))
        IteratorSpec(TensorSpec(shape=(2,), dtype=tf.float32, name=None),)
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return Iterator

    @staticmethod
    def from_value(value) -> IteratorSpec:
        """The spec of an iterator (TF reads ``value.element_spec``)."""
        return IteratorSpec(value.element_spec)

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    def __hash__(self) -> int:
        return hash(("IteratorSpec", structure._spec_key(self._element_spec)))

    def is_compatible_with(self, spec_or_value) -> bool:
        """TF's rule: an IteratorSpec (or iterator) whose element specs are compatible
        leaf by leaf."""
        other = spec_or_value
        if isinstance(other, Iterator):
            other = IteratorSpec.from_value(other)
        if not isinstance(other, IteratorSpec):
            return False
        mine, theirs = self._element_spec, other._element_spec
        if not structure.same_structure(mine, theirs):
            return False
        return all(
            a.is_compatible_with(b) if isinstance(a, TypeSpec) else a == b
            for a, b in zip(structure.flatten(mine), structure.flatten(theirs), strict=True)
        )
