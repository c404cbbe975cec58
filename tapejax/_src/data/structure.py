"""The elements of a ``tapejax.data.Dataset``: tf.data's nesting rules, element specs, and
the one abstract run of a user function that tells what it returns.

tf.data nests tuples (namedtuples kept), dicts (flattened in sorted key order) and
nothing else: a list is one tensor. A component is a Tensor (held as a NumPy value
inside the pipeline) or a Dataset (``window``'s elements; held as itself, its spec a
``DatasetSpec``). Everything here runs on the host; it must never record on a tape or
leave a tracer behind in a Variable.
"""

from __future__ import annotations

import collections.abc

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, execution, recorder
from ..binding import VariableWatcher
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..indexed_slices import IndexedSlices
from ..sparse_tensor import SparseTensor
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ..tensor_spec import TensorSpec
from ..variables import Variable

INFINITE = -1
UNKNOWN = -2


class DatasetSpec:
    """The spec of a component that is a Dataset (``tf.data.DatasetSpec``): the
    ``element_spec`` of its elements and the shape of the component (``()`` for one
    dataset; tapejax's pipelines make no other).

    Example:
        >>> import tapejax as tf
        >>> tf.data.Dataset.from_tensor_slices([1.0, 2.0]).window(2).element_spec
        DatasetSpec(TensorSpec(shape=(), dtype=tf.float32, name=None), TensorShape([]))
    """

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self):
        from .dataset import Dataset

        return Dataset

    def _key(self):
        return (_spec_key(self._element_spec), repr(self._dataset_shape))

    def __eq__(self, other) -> bool:
        return type(other) is DatasetSpec and self._key() == other._key()

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def _spec_key(spec):
    """A hashable form of a structure of specs, nesting types and dict keys included."""
    if isinstance(spec, tuple):
        return (type(spec).__name__, tuple(_spec_key(s) for s in spec))
    if isinstance(spec, collections.abc.Mapping):
        return ("dict", tuple((k, _spec_key(spec[k])) for k in sorted(spec)))
    return repr(spec)


def holds_datasets(spec) -> bool:
    """Whether an element spec has a component that is a Dataset."""
    return any(isinstance(s, DatasetSpec) for s in flatten(spec))


def refuse_datasets(spec, what: str) -> None:
    """``NotImplementedError`` naming ``what`` where ``spec`` has Dataset components."""
    if holds_datasets(spec):
        raise NotImplementedError(
            f"tapejax.data: {what} of a dataset whose elements hold Datasets (from `window` "
            "or a function returning a Dataset) is not provided; turn each into tensors "
            "first (`flat_map(lambda w: w.batch(n))`, or `map` with `w.reduce(...)`)."
        )


def _is_nested(x) -> bool:
    return isinstance(x, (tuple, collections.abc.Mapping))


def flatten(structure) -> list:
    """The leaves of ``structure`` in tf.data's order (dict values by sorted key)."""
    if isinstance(structure, tuple):
        return [leaf for child in structure for leaf in flatten(child)]
    if isinstance(structure, collections.abc.Mapping):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    return [structure]


def pack(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, tuple):
            children = [build(c) for c in s]
            return type(s)(*children) if hasattr(s, "_fields") else tuple(children)
        if isinstance(s, collections.abc.Mapping):
            built = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, built[k]) for k in s)
        return next(it)

    return build(structure)


def map_structure(fn, structure, *more):
    flats = [flatten(s) for s in (structure, *more)]
    return pack(structure, [fn(*xs) for xs in zip(*flats)])


def same_structure(a, b) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same_structure(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, collections.abc.Mapping) or isinstance(b, collections.abc.Mapping):
        return (
            isinstance(a, collections.abc.Mapping)
            and isinstance(b, collections.abc.Mapping)
            and sorted(a) == sorted(b)
            and all(same_structure(a[k], b[k]) for k in a)
        )
    return True


def to_tensor(value, dtype=None) -> Tensor:
    """One component as a Tensor: Variables are read, anything else converted as TF does."""
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor) and dtype is None:
        return value
    from .dataset import Dataset

    if isinstance(value, Dataset) and dtype is None:
        return value
    if isinstance(value, (SparseTensor, IndexedSlices)):
        raise NotImplementedError(
            "tapejax.data: dataset components must be dense tensors or Datasets; "
            f"SparseTensor and IndexedSlices components are not provided (got a "
            f"{type(value).__name__})"
        )
    return convert_to_tensor(value, dtype=dtype)


def normalize(element):
    """``element`` with every component a Tensor (tf.data's ``normalize_element``)."""
    return map_structure(to_tensor, element)


def held_dtype(dtype) -> dtypes.DType:
    """The dtype a tensor of ``dtype`` has in tapejax (64-bit types need JAX's x64)."""
    dtype = dtypes.as_dtype(dtype)
    return dtypes.as_dtype(canonical_np_dtype(np.dtype(dtype.as_numpy_dtype)))


def spec_of(element):
    return map_structure(lambda t: component_spec(t, getattr(t, "shape", None)), element)


def component_spec(value, shape):
    """A component's spec: a DatasetSpec for a Dataset, else a TensorSpec of ``shape``."""
    if is_dataset(value):
        return DatasetSpec(value.element_spec)
    return TensorSpec(shape, value.dtype)


def is_dataset(value) -> bool:
    from .dataset import Dataset

    return isinstance(value, Dataset)


def host(value):
    """One component as a host (NumPy) value in the dtype tapejax holds it in: the form
    elements take inside a pipeline, so that slicing, shuffling and batching cost no
    device transfers."""
    if isinstance(value, (np.ndarray, np.generic)) or is_dataset(value):
        return value
    return np.asarray(to_tensor(value)._value)


def to_host(element):
    return map_structure(host, element)


def to_tensors(element):
    """A pipeline's host element as the Tensors a user sees."""
    return map_structure(lambda a: a if is_dataset(a) else wrap(jnp.asarray(a)), element)


def to_numpy(element):
    """A host element as ``as_numpy_iterator`` gives it: scalars as NumPy scalars, arrays
    as fresh arrays (as ``Tensor.numpy()``)."""
    return map_structure(lambda a: a[()] if a.ndim == 0 else np.array(a), element)


def merge_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both ``a`` and ``b`` have (unequal dims become None)."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def relax(spec_a, spec_b):
    def one(a, b):
        if isinstance(a, DatasetSpec):
            return DatasetSpec(relax(a.element_spec, b.element_spec), a._dataset_shape)
        return TensorSpec(merge_shapes(a.shape, b.shape), a.dtype)

    return map_structure(one, spec_a, spec_b)


def call(fn, element):
    """``fn`` applied to ``element`` as tf.data does: a tuple is unpacked into arguments."""
    return fn(*element) if type(element) is tuple else fn(element)


def returned(value):
    """A function's result as an element: a list becomes a tuple, as in tf.data."""
    return normalize(tuple(value) if type(value) is list else value)


def run_eagerly(fn, *args):
    """Runs ``fn`` on an element's Tensors without recording on any active tape (TF's
    input pipeline is not differentiable)."""
    with recorder.only(()):
        return fn(*args)


def abstract_run(fn, specs, watcher, found):
    """A function of arrays for JAX to trace: it runs ``fn(*elements)`` on the elements of
    ``specs`` made of them, as a dataset function runs (Variable reads and writes seen by
    ``watcher``, and undone; run-time checks as in ``tapejax.function``), appends ``fn``'s
    result to ``found`` and returns the arrays of its Tensors."""

    def run(*arrays):
        it = iter(arrays)
        leaves = [
            abstract_dataset(s) if isinstance(s, DatasetSpec) else wrap(next(it))
            for s in flatten(specs)
        ]
        try:
            with recorder.only((watcher,)), execution.function_body():
                out = fn(*pack(specs, leaves))
        finally:
            watcher.restore()
        found.append(out)
        return [t._value for t in flatten(out) if isinstance(t, Tensor)]

    return run


def trace_output(fn, *specs):
    """What ``fn(*specs)`` returns, found by running it once on abstract values (JAX's
    ``eval_shape``), as TF traces a dataset function once. Dims that the specs leave
    unknown are tried at two sizes; output dims that change with them are unknown.

    ``fn`` receives elements of Tensors and returns anything; ``trace_output`` returns
    ``fn``'s result with each Tensor replaced by its TensorSpec (other values kept).
    """
    leaves = [s for s in flatten(specs) if not isinstance(s, DatasetSpec)]
    if any(s.shape.rank is None for s in leaves):
        raise ValueError("tapejax.data: cannot trace a function of unknown-rank components")
    results = []
    unknown = any(d is None for s in leaves for d in s.shape.as_list())
    for size in (2, 3) if unknown else (None,):
        found = []
        run = abstract_run(fn, specs, VariableWatcher(), found)
        structs = [
            jax.ShapeDtypeStruct(
                tuple(size if d is None else d for d in s.shape.as_list()),
                np.dtype(held_dtype(s.dtype).as_numpy_dtype),
            )
            for s in leaves
        ]
        jax.eval_shape(run, *structs)
        results.append(as_specs(found[0]))
    if len(results) == 1:
        return results[0]
    return relax_found(results[0], results[1])


def as_specs(x):
    """A function's result with each Tensor replaced by its TensorSpec and each Dataset by
    its DatasetSpec (other values kept)."""
    return map_structure(
        lambda t: (
            component_spec(t, getattr(t, "shape", None))
            if isinstance(t, Tensor) or is_dataset(t)
            else t
        ),
        x,
    )


def abstract_dataset(spec: DatasetSpec):
    """A Dataset of ``spec``'s elements for an abstract run (TF's traced function gets a
    dataset it can transform, not iterate): its transformations give their specs;
    iterating it raises."""
    from .dataset import Dataset

    def make_iterator():
        raise NotImplementedError(
            "tapejax.data: a Dataset argument of a traced dataset function cannot be "
            "iterated while it is traced"
        )

    return Dataset(make_iterator, spec.element_spec, UNKNOWN)


def relax_found(a, b):
    """The results of two abstract runs as one: TensorSpecs relaxed, other values the first's."""

    def one(x, y):
        if isinstance(x, TensorSpec) and isinstance(y, TensorSpec):
            return TensorSpec(merge_shapes(x.shape, y.shape), x.dtype)
        if isinstance(x, DatasetSpec) and isinstance(y, DatasetSpec):
            return DatasetSpec(relax_found(x.element_spec, y.element_spec), x._dataset_shape)
        return x

    return map_structure(one, a, b)
