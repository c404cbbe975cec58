"""``tf.lookup.experimental``: mutable tables.

Not provided yet: ``MutableHashTable``, ``DenseHashTable``, ``DatasetInitializer``.
"""

__all__: list[str] = []
