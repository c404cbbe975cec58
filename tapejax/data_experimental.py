"""``tf.data.experimental``: the cardinality constants, ``AUTOTUNE`` and ``Counter``.

Reached as ``tapejax.data.experimental`` (``tapejax.data`` registers it under that name
too, so ``import tapejax.data.experimental`` works as for TF's submodule).
"""

from tapejax._src import dtypes as _dtypes
from tapejax._src.data.dataset import AUTOTUNE, Dataset
from tapejax._src.data.structure import INFINITE as INFINITE_CARDINALITY
from tapejax._src.data.structure import UNKNOWN as UNKNOWN_CARDINALITY


def Counter(start=0, step=1, dtype=_dtypes.int64):  # noqa: N802 - TF's name
    """``tf.data.experimental.Counter``: ``tapejax.data.Dataset.counter(start, step, dtype)``."""
    return Dataset.counter(start, step, dtype)


__all__ = [
    "AUTOTUNE",
    "Counter",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
]
