"""``tf.data``: ``Dataset``, a host-side input pipeline whose elements are Tensors.

The pipeline runs eagerly in Python on the host (see ``docs/compat.md`` for what differs
from TF's and what of ``tf.data`` is not provided).
"""

import sys as _sys

from tapejax import data_experimental as experimental
from tapejax._src.data.dataset import AUTOTUNE, Dataset, Iterator, IteratorSpec, NumpyIterator
from tapejax._src.data.options import Options, ThreadingOptions
from tapejax._src.data.structure import INFINITE as INFINITE_CARDINALITY
from tapejax._src.data.structure import UNKNOWN as UNKNOWN_CARDINALITY
from tapejax._src.data.structure import DatasetSpec
from tapejax._src.not_provided import attribute_hook as _attribute_hook

# tapejax.data is a module, not a package: registered so that ``import
# tapejax.data.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental

__getattr__ = _attribute_hook("tapejax.data", "data")

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "DatasetSpec",
    "INFINITE_CARDINALITY",
    "Iterator",
    "IteratorSpec",
    "NumpyIterator",
    "Options",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "experimental",
]
