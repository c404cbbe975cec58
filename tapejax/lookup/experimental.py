"""``tf.lookup.experimental``: tables that ``insert`` and ``remove`` change.

``DenseHashTable`` keeps TF's bucket array, so its ``export`` is TF's.
"""

from tapejax._src.lookup_ops import DenseHashTable, MutableHashTable
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.lookup.experimental", "lookup.experimental")

__all__ = ["DenseHashTable", "MutableHashTable"]
