"""``Dataset.save`` and ``Dataset.load`` in a tapejax-only format: a directory holding
the element spec (as JSON) and one NumPy ``.npz`` file per shard. TF cannot read it, and
tapejax cannot read TF's snapshot files (``docs/compat.md``). This module must never write
anything TF could mistake for its own format, and never unpickle: loading a directory
runs no code from it.
"""

from __future__ import annotations

import collections
import glob
import json
import multiprocessing
import os

import numpy as np

from .. import dtypes
from ..errors import NotFoundError
from ..tensor_spec import TensorSpec
from . import structure
from .structure import UNKNOWN, DatasetSpec

_SPEC_FILE = "tapejax_element_spec.json"
_SHARD = "tapejax_shard_{:d}.npz"
_COMPRESSIONS = (None, "GZIP", "SNAPPY")


def _check_compression(compression):
    if compression not in _COMPRESSIONS:
        raise ValueError(
            f"tapejax.data: compression must be None, 'GZIP' or 'SNAPPY', got {compression!r}"
        )


def _encode(spec):
    """``spec`` as JSON data: nests of tuples, namedtuples and dicts of ``TensorSpec``s."""
    if isinstance(spec, TensorSpec):
        return {"tensor": [spec.shape.as_list() if spec.shape.rank is not None else None,
                           spec.dtype.name, spec.name]}  # fmt: skip
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        return {"namedtuple": [type(spec).__name__, list(spec._fields),
                               [_encode(s) for s in spec]]}  # fmt: skip
    if isinstance(spec, tuple):
        return {"tuple": [_encode(s) for s in spec]}
    if isinstance(spec, collections.abc.Mapping):
        return {"dict": [[k, _encode(spec[k])] for k in sorted(spec)]}
    raise NotImplementedError(
        f"tapejax.data: Dataset.save of elements with {type(spec).__name__} components is "
        "not provided (dense tensors in tuples, namedtuples and dicts are)"
    )


def _decode(data):
    ((kind, value),) = data.items()
    if kind == "tensor":
        shape, dtype, name = value
        return TensorSpec(shape, dtypes.as_dtype(dtype), name)
    if kind == "namedtuple":
        # As TF's loaded spec: a namedtuple class of the saved name and fields.
        name, fields, parts = value
        return collections.namedtuple(name, fields)(*[_decode(p) for p in parts])
    if kind == "tuple":
        return tuple(_decode(p) for p in value)
    return {k: _decode(v) for k, v in value}


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes ``dataset``'s elements under the directory ``path``: element ``n`` goes to the
    shard ``shard_func(element)`` (an int; one shard when None)."""
    if checkpoint_args is not None:
        raise NotImplementedError(
            "tapejax.data: Dataset.save(checkpoint_args=...) is not provided (saves are not "
            "checkpointed; a save runs to the end in one call)"
        )
    _check_compression(compression)
    structure.refuse_datasets(dataset.element_spec, "Dataset.save")
    encoded_spec = _encode(dataset.element_spec)
    shards: dict[int, list] = {}
    for element in dataset._elements():
        index = 0
        if shard_func is not None:
            index = int(
                np.asarray(
                    structure.run_eagerly(structure.call, shard_func,
                                          structure.to_tensors(element))
                )
            )  # fmt: skip
        shards.setdefault(index, []).append(structure.flatten(element))
    os.makedirs(path, exist_ok=True)
    # a save replaces what an earlier save left there, as TF's does
    for old in glob.glob(os.path.join(glob.escape(path), "tapejax_shard_*.npz")):
        os.remove(old)
    write = np.savez if compression is None else np.savez_compressed
    for index, elements in shards.items():
        arrays = {
            f"e{n}_c{j}": np.asarray(leaf)
            for n, leaves in enumerate(elements)
            for j, leaf in enumerate(leaves)
        }
        with open(os.path.join(path, _SHARD.format(index)), "wb") as f:
            write(f, **arrays)
    with open(os.path.join(path, _SPEC_FILE), "w") as f:
        json.dump({"element_spec": encoded_spec,
                   "cardinality": sum(map(len, shards.values()))}, f)  # fmt: skip


def _shard_dataset(spec, file_name):
    from .dataset import Dataset

    leaves = structure.flatten(spec)
    with np.load(file_name) as data:
        count = len(data.files) // max(len(leaves), 1)
    elements = []

    def make_iterator():
        if not elements:
            with np.load(file_name) as data:
                elements.extend(
                    structure.pack(spec, [data[f"e{n}_c{j}"] for j in range(len(leaves))])
                    for n in range(count)
                )
        return iter(elements)

    return Dataset(make_iterator, spec, count, prefetchable=True)


def _default_reader(datasets):
    # TF's default reader_func: the shards interleaved, cycle_length the CPU count
    return datasets.interleave(lambda x: x, cycle_length=multiprocessing.cpu_count())


def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
    """A Dataset of the elements ``save`` wrote under ``path``."""
    from .dataset import Dataset

    if wait:
        raise NotImplementedError(
            "tapejax.data: Dataset.load(wait=True) is not provided (it waits for a "
            "tf.data service distributed_save)"
        )
    _check_compression(compression)
    spec_file = os.path.join(path, _SPEC_FILE)
    saved = None
    if os.path.exists(spec_file):
        with open(spec_file) as f:
            stored = json.load(f)
        saved = (_decode(stored["element_spec"]), stored["cardinality"])
    if element_spec is None:
        if saved is None:
            raise NotFoundError(
                None, None, f"tf.data snapshot element_spec file not found: {spec_file}."
            )
        # As TF's spec coming back from its proto, each dict's keys are sorted.
        element_spec = saved[0]

    def shards():
        if saved is None:
            raise NotFoundError(
                None, None, f"Could not find metadata file [{path}] [Op:LoadDataset]"
            )
        names = glob.glob(os.path.join(glob.escape(path), "tapejax_shard_*.npz"))
        names.sort(key=lambda n: int(os.path.basename(n)[len("tapejax_shard_") : -4]))
        return [_shard_dataset(element_spec, n) for n in names]

    datasets = Dataset(lambda: iter(shards()), DatasetSpec(element_spec), UNKNOWN)
    loaded = (_default_reader if reader_func is None else reader_func)(datasets)
    # TF's load reports the saved element count, whatever its reader_func does
    return loaded._derive(loaded._elements, cardinality=UNKNOWN if saved is None else saved[1])
