"""Data and tensor parallelism on ``jax.sharding`` (``tf.distribute``).

``MirroredStrategy`` replicates Variables over a device mesh and splits batches over
it; XLA's SPMD partitioner compiles one program for all devices and reduces the
gradients. See ``docs/interop.md`` for the multi-host set-up.
"""

from tapejax._src.distribute.strategy import (
    DistributedDataset,
    MirroredStrategy,
    ReduceOp,
    get_strategy,
    has_strategy,
)

__all__ = [
    "DistributedDataset",
    "MirroredStrategy",
    "ReduceOp",
    "get_strategy",
    "has_strategy",
]
