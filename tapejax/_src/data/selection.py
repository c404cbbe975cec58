"""``tf.data``'s sources that pick among datasets or count (``counter``,
``choose_from_datasets``, ``sample_from_datasets``) and ``ignore_errors``, with TF's
element order (``sample_from_datasets``' draws excepted: a NumPy generator), element
specs, cardinalities and errors.

``ignore_errors`` needs a pipeline that can go on after an element failed; the
transformations that can say so through ``Dataset._make_tolerant`` (an iterator yielding
``Failed`` in place of an element whose production raised). It must never drop an
error it cannot resume after: that is a ``NotImplementedError``, not a shorter dataset.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np

from .. import dtypes
from ..errors import CancelledError, InvalidArgumentError, OpError
from ..tensor import Tensor
from ..tensor_spec import TensorSpec
from . import structure
from .structure import INFINITE, UNKNOWN

_END = object()


class Failed:
    """An element whose production raised ``error``, in a tolerant iterator."""

    def __init__(self, error: Exception):
        self.error = error


def swallowed(error: BaseException) -> bool:
    """Whether ``ignore_errors`` drops ``error``: TF's kernel drops every error status but
    CANCELLED; in tapejax, errors that are TF statuses are the ``OpError``s."""
    return isinstance(error, OpError) and not isinstance(error, CancelledError)


def tolerant_elements(dataset):
    """``dataset``'s elements, ``Failed`` in place of one whose production raised an error
    ``ignore_errors`` drops. Where ``dataset``'s pipeline cannot go on after such an error,
    the error becomes a ``NotImplementedError`` saying so."""
    if dataset._make_tolerant is not None:
        return dataset._make_tolerant()
    return _checked(dataset._elements())


def _checked(elements):
    try:
        yield from elements
    except Exception as error:
        if not swallowed(error):
            raise
        raise NotImplementedError(
            "tapejax.data: Dataset.ignore_errors cannot go on after this error: it was "
            "raised by a transformation that cannot resume after an error (tapejax resumes "
            "after errors raised in `map` and `filter` functions, through `map`, `filter` "
            "and `prefetch`). Move ignore_errors() right after the map that raises."
        ) from error


def common_spec(datasets):
    """The element spec of a dataset drawing from ``datasets`` (TF's most specific common
    supertype of theirs), or TF's ``TypeError``."""
    first = datasets[0].element_spec
    for dataset in datasets:
        structure.refuse_datasets(dataset.element_spec, "Drawing from datasets")
    spec = first
    for i, dataset in enumerate(datasets[1:]):
        other = dataset.element_spec
        if not structure.same_structure(spec, other) or any(
            a.dtype != b.dtype for a, b in zip(structure.flatten(spec), structure.flatten(other))
        ):
            raise TypeError(
                "Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 "
                f"element_spec={first}.\nDataset {i + 1} element_spec={other}."
            )
        spec = structure.relax(spec, other)
    return spec


def directed(selector, datasets, stop_on_empty_dataset):
    """TF's ``DirectedInterleaveDataset``: for each index ``selector()`` yields, the next
    element of that dataset; an exhausted one's index is skipped (or, with
    ``stop_on_empty_dataset``, ends the dataset); the end when all are exhausted."""
    from .dataset import Dataset

    card = INFINITE if any(d._card == INFINITE for d in datasets) else UNKNOWN
    n = len(datasets)

    def make_iterator():
        inputs = [d._elements() for d in datasets]
        active = n
        for index in selector():
            if not 0 <= index < n:
                raise InvalidArgumentError(
                    None, None, f"Selector index out of range: {index} >= {n} [Op:IteratorGetNext]"
                )
            if inputs[index] is None:
                continue
            element = next(inputs[index], _END)
            if element is not _END:
                yield element
                continue
            if stop_on_empty_dataset:
                return
            inputs[index] = None
            active -= 1
            if active == 0:
                return

    return Dataset(make_iterator, lambda: common_spec(datasets), card)


def _check_datasets(datasets):
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    return list(datasets)


class Selection:
    """The methods of ``Dataset`` that count, pick among datasets, or skip failed elements."""

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        """An infinite dataset of ``start, start + step, start + 2 * step, ...`` as scalars
        of ``dtype`` (``tf.data.Dataset.counter``; int64 is int32 without JAX's x64).

        Example:
            >>> import tapejax as tf
            >>> [int(x) for x in tf.data.Dataset.counter(3, 2).take(3)]
            [3, 5, 7]
        """
        from .dataset import Dataset

        dtype = dtypes.as_dtype(dtype)
        start = structure.to_tensor(start, dtype=dtype)
        step = structure.to_tensor(step, dtype=dtype)
        held = structure.held_dtype(dtype)
        first, delta = structure.host(start), structure.host(step)

        def make_iterator():
            value = first
            while True:
                yield value
                # as TF's scan of ``state + step``: wraps around in the dtype
                with np.errstate(over="ignore"):
                    value = np.asarray(value + delta, held.as_numpy_dtype)

        return Dataset(make_iterator, TensorSpec([], held), INFINITE, prefetchable=True)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The elements of ``datasets`` in the order ``choice_dataset``'s int64 scalars
        give: the next element of ``datasets[i]`` for each ``i``
        (``tf.data.Dataset.choose_from_datasets``). An exhausted dataset's index ends the
        dataset (``stop_on_empty_dataset``) or is skipped.

        Example:
            >>> import tapejax as tf
            >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)
            >>> choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64))
            >>> [int(x) for x in tf.data.Dataset.choose_from_datasets([a, b], choice)]
            [0, 10, 11, 1]
        """
        from .dataset import Dataset

        datasets = _check_datasets(datasets)
        if not isinstance(choice_dataset, Dataset):
            raise TypeError(
                "Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but "
                f"is {type(choice_dataset)}."
            )
        spec = choice_dataset.element_spec
        int64 = structure.held_dtype(dtypes.int64)
        if not (isinstance(spec, TensorSpec) and spec.dtype == int64 and spec.shape.rank == 0):
            raise TypeError(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                f"`tf.int64` tensors but are {spec}."
            )
        common_spec(datasets)

        def selector():
            for choice in choice_dataset._elements():
                yield int(choice)

        return directed(selector, datasets, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets, weights=None, seed=None, stop_on_empty_dataset=False,
        rerandomize_each_iteration=None,
    ):  # fmt: skip
        """The elements of ``datasets``, each drawn from a dataset picked at random with
        probabilities proportional to ``weights`` (a list, a Tensor, or a Dataset of
        weight vectors, one per draw; uniform when None)
        (``tf.data.Dataset.sample_from_datasets``). A draw of an exhausted dataset is drawn
        again, or ends the dataset with ``stop_on_empty_dataset``.

        The draws come from a NumPy generator seeded by ``seed`` (by fresh entropy when
        None): a given seed gives the same order on every run; each epoch (each ``iter``)
        draws the same order unless ``rerandomize_each_iteration``.

        .. warning:: The order is not TF's (TF's stateless multinomial draws cannot be
           reproduced); the proportions, the end and the element spec are.
        """
        from .dataset import Dataset

        datasets = _check_datasets(datasets)
        weights_dataset = weights if isinstance(weights, Dataset) else None
        if weights_dataset is None:
            if weights is None:
                probabilities = np.ones(len(datasets))
            else:
                if isinstance(weights, Tensor):
                    if not weights.shape.is_compatible_with([len(datasets)]):
                        raise ValueError(
                            "Invalid `weights`. The shape of `weights` should be compatible "
                            f"with `[len(datasets)]` but is {weights.shape}."
                        )
                elif len(datasets) != len(weights):
                    raise ValueError(
                        "Invalid `weights`. `weights` should have the same length as "
                        f"`datasets` but got `len(weights)={len(weights)}` vs. "
                        f"`len(datasets)={len(datasets)}`."
                    )
                if not isinstance(weights, Tensor):
                    # TF drops the datasets of zero weight before anything else
                    kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
                    datasets, weights = (
                        (list(t) for t in zip(*kept)) if kept else ([datasets[0].take(0)], [1.0])
                    )
                weights = structure.to_tensor(weights)
                if weights.dtype not in (dtypes.float32, dtypes.float64):
                    raise TypeError(
                        "Invalid `weights`. `weights` type must be either `tf.float32` or "
                        f"`tf.float64` but is {weights.dtype}."
                    )
                probabilities = np.asarray(weights.numpy(), np.float64)
            if len(datasets) == 1:
                return datasets[0]
        common_spec(datasets)
        base = np.random.SeedSequence().entropy if seed is None else int(np.asarray(seed))
        epochs = itertools.count()
        n = len(datasets)

        def draw(rng, p):
            p = np.asarray(p, np.float64).reshape(-1)
            return int(rng.choice(n, p=p / p.sum()))

        def selector():
            epoch = next(epochs) if rerandomize_each_iteration else 0
            rng = np.random.default_rng([base % 2**63, epoch])
            if weights_dataset is None:
                while True:
                    yield draw(rng, probabilities)
            for p in weights_dataset._elements():
                yield draw(rng, structure.flatten(p))

        return directed(selector, datasets, stop_on_empty_dataset)

    def ignore_errors(self, log_warning=False, name=None):
        """This dataset without the elements whose production raised an error
        (``tf.data.Dataset.ignore_errors``): as TF's kernel, every TF error status but
        ``CancelledError`` (in tapejax, the ``tf.errors.OpError``s, such as the
        ``InvalidArgumentError`` of ``tf.debugging.check_numerics`` in a ``map``
        function); other Python exceptions propagate. With ``log_warning``, each dropped
        error is logged as TF's warning.

        tapejax goes on after errors raised by ``map``'s and ``filter``'s functions,
        through ``map``, ``filter`` and ``prefetch``; an error raised by another
        transformation is a ``NotImplementedError`` saying so, not a dropped element.

        Example:
            >>> import tapejax as tf
            >>> ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0])
            >>> ds = ds.map(lambda x: tf.debugging.check_numerics(1.0 / x, "error"))
            >>> [float(x) for x in ds.ignore_errors()]
            [1.0, 0.5, 0.25]
        """

        def make_iterator():
            for element in tolerant_elements(self):
                if isinstance(element, Failed):
                    if log_warning:
                        logging.getLogger("tensorflow").warning(
                            "Error raised with error message %s", element.error.message
                        )
                    continue
                yield element

        # TF's kernel says nothing of its cardinality: unknown, as TF's
        return self._derive(make_iterator, cardinality=UNKNOWN)
