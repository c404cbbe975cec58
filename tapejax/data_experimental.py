"""``tf.data.experimental``: the cardinality constants, ``AUTOTUNE``, ``Counter``, the
option classes, ``Optional``, and the transformations TF keeps here (most return a function
for ``Dataset.apply``).

Reached as ``tapejax.data.experimental`` (``tapejax.data`` registers it under that name
too, so ``import tapejax.data.experimental`` works as for TF's submodule).
"""

from tapejax._src import dtypes as _dtypes
from tapejax._src.data.dataset import AUTOTUNE, Dataset
from tapejax._src.data.experimental_ops import (
    Reducer,
    assert_cardinality,
    at,
    bucket_by_sequence_length,
    cardinality,
    choose_from_datasets,
    copy_to_device,
    dense_to_ragged_batch,
    dense_to_sparse_batch,
    enumerate_dataset,
    from_list,
    get_next_as_optional,
    get_single_element,
    get_structure,
    group_by_reducer,
    group_by_window,
    ignore_errors,
    index_table_from_dataset,
    load,
    map_and_batch,
    pad_to_cardinality,
    parallel_interleave,
    prefetch_to_device,
    rejection_resample,
    sample_from_datasets,
    save,
    scan,
    shuffle_and_repeat,
    snapshot,
    table_from_dataset,
    take_while,
    unbatch,
    unique,
)
from tapejax._src.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)
from tapejax._src.data.structure import INFINITE as INFINITE_CARDINALITY
from tapejax._src.data.structure import UNKNOWN as UNKNOWN_CARDINALITY
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.optional import Optional


def Counter(start=0, step=1, dtype=_dtypes.int64):  # noqa: N802 - TF's name
    """``tf.data.experimental.Counter``: ``tapejax.data.Dataset.counter(start, step, dtype)``."""
    return Dataset.counter(start, step, dtype)


def RandomDataset(seed=None, rerandomize_each_iteration=None, name=None):  # noqa: N802
    """``tf.data.experimental.RandomDataset``: ``tapejax.data.Dataset.random(...)``."""
    return Dataset.random(seed, rerandomize_each_iteration, name)


# ``Dataset.shard``'s "use the auto-shard policy's count" placeholder, as TF's.
SHARD_HINT = -1


__getattr__ = _attribute_hook("tapejax.data.experimental", "data.experimental")

__all__ = [
    "RandomDataset",
    "SHARD_HINT",
    "AUTOTUNE",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "Counter",
    "DistributeOptions",
    "ExternalStatePolicy",
    "INFINITE_CARDINALITY",
    "OptimizationOptions",
    "Optional",
    "Reducer",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "assert_cardinality",
    "at",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "dense_to_ragged_batch",
    "dense_to_sparse_batch",
    "enumerate_dataset",
    "from_list",
    "get_next_as_optional",
    "get_single_element",
    "get_structure",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "index_table_from_dataset",
    "load",
    "map_and_batch",
    "pad_to_cardinality",
    "parallel_interleave",
    "prefetch_to_device",
    "rejection_resample",
    "sample_from_datasets",
    "save",
    "scan",
    "shuffle_and_repeat",
    "snapshot",
    "table_from_dataset",
    "take_while",
    "unbatch",
    "unique",
]
