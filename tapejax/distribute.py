"""Data and tensor parallelism on ``jax.sharding`` (``tf.distribute``).

``MirroredStrategy`` replicates Variables over a device mesh and splits batches over
it; XLA's SPMD partitioner compiles one program for all devices and reduces the
gradients. Steps run in global view: ``strategy.run`` calls the step once on the whole
batch, and its ``ReplicaContext`` stands for all replicas (see ``docs/compat.md``). See
``docs/interop.md`` for the multi-host set-up.
"""

import sys as _sys

from tapejax import distribute_experimental as experimental
from tapejax._src.distribute.options import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    InputContext,
    InputOptions,
    InputReplicationMode,
    NcclAllReduce,
    ReductionToOneDevice,
    RunOptions,
)
from tapejax._src.distribute.strategy import (
    DistributedDataset,
    DistributedIterator,
    DistributedValues,
    MirroredStrategy,
    OneDeviceStrategy,
    ReduceOp,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.distribute", "distribute")

__all__ = [
    "CrossDeviceOps",
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "HierarchicalCopyAllReduce",
    "InputContext",
    "InputOptions",
    "InputReplicationMode",
    "MirroredStrategy",
    "NcclAllReduce",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReductionToOneDevice",
    "ReplicaContext",
    "RunOptions",
    "Strategy",
    "StrategyExtended",
    "experimental",
    "experimental_set_strategy",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

# tapejax.distribute is a module, not a package: registered so that ``import
# tapejax.distribute.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental
