"""``tf.lookup.experimental``: tables that ``insert`` and ``remove`` change.

``DenseHashTable`` is not provided: its ``export`` is TF's bucket array, whose layout
comes from TF's hash function (``docs/compat.md``).
"""

from tapejax._src.lookup_ops import MutableHashTable

__all__ = ["MutableHashTable"]
