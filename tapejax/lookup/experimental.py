"""``tf.lookup.experimental``: tables that ``insert`` and ``remove`` change.

``DenseHashTable`` is not provided: its ``export`` is TF's bucket array, whose layout
comes from TF's hash function (``docs/compat.md``).
"""

from tapejax._src.lookup_ops import MutableHashTable
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.lookup.experimental", "lookup.experimental")

__all__ = ["MutableHashTable"]
