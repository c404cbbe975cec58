"""``tf.lookup``: tables from numeric keys to numeric values.

TF's ``TextFileInitializer`` and ``TextFileIndex`` (tables read from vocabulary files)
and its string keys are not provided: tapejax has no string tensors.
"""

from tapejax._src.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
)
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax.lookup import experimental

__getattr__ = _attribute_hook("tapejax.lookup", "lookup")

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "experimental",
]
