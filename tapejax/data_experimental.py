"""``tf.data.experimental``: the cardinality constants and ``AUTOTUNE``.

Reached as ``tapejax.data.experimental`` (``tapejax.data`` registers it under that name
too, so ``import tapejax.data.experimental`` works as for TF's submodule).
"""

from tapejax._src.data.dataset import AUTOTUNE
from tapejax._src.data.structure import INFINITE as INFINITE_CARDINALITY
from tapejax._src.data.structure import UNKNOWN as UNKNOWN_CARDINALITY

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
]
