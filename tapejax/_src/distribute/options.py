"""Option and context objects of ``tf.distribute`` that TF code builds and passes on.

XLA chooses and runs the collectives of a ``tapejax.function`` step, so the
cross-device-ops classes and communication options are kept (with TF's constructor
arguments and checks) and change nothing. ``InputContext`` and ``ValueContext`` are what
``distribute_datasets_from_function`` and ``experimental_distribute_values_from_function``
pass to the user's function.
"""

from __future__ import annotations

import collections
import enum

__all__ = [
    "CommunicationImplementation",
    "CommunicationOptions",
    "CrossDeviceOps",
    "HierarchicalCopyAllReduce",
    "InputContext",
    "InputOptions",
    "InputReplicationMode",
    "NcclAllReduce",
    "ReductionToOneDevice",
    "RunOptions",
    "ValueContext",
]


class CrossDeviceOps:
    """How a strategy reduces across devices (``tf.distribute.CrossDeviceOps``).

    Accepted by ``MirroredStrategy(cross_device_ops=...)`` and unused: XLA's SPMD
    partitioner inserts the all-reduce of a compiled step and chooses its algorithm.
    """

    def __init__(self):
        pass


class ReductionToOneDevice(CrossDeviceOps):
    """TF's reduce-on-one-device-then-broadcast (``tf.distribute.ReductionToOneDevice``).

    Args:
      reduce_to_device: kept; XLA places the reduction.
      accumulation_fn: kept; XLA adds the values.
    """

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        super().__init__()
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduceCrossDeviceOps(CrossDeviceOps):
    def __init__(self, all_reduce_alg, num_packs):
        super().__init__()
        self._all_reduce_alg = all_reduce_alg
        self._num_packs = num_packs


class NcclAllReduce(_AllReduceCrossDeviceOps):
    """NCCL all-reduce (``tf.distribute.NcclAllReduce``); XLA picks the collective.

    Args:
      num_packs: a non-negative integer, kept.

    Raises:
      ValueError: ``num_packs`` is negative (TF's text).
    """

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(
                f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified"
            )
        super().__init__("nccl", num_packs)


class HierarchicalCopyAllReduce(_AllReduceCrossDeviceOps):
    """Hierarchical-copy all-reduce (``tf.distribute.HierarchicalCopyAllReduce``).

    Args:
      num_packs: a non-negative integer, kept.

    Raises:
      ValueError: ``num_packs`` is negative (TF's text).
    """

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(
                f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified"
            )
        super().__init__("hierarchical_copy", num_packs)


class CommunicationImplementation(enum.Enum):
    """The collective implementation asked for (``CommunicationImplementation``)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """Hints for collectives (``tf.distribute.experimental.CommunicationOptions``).

    Accepted by ``ReplicaContext.all_reduce`` and ``all_gather`` and unused: XLA chooses
    how a compiled step communicates.

    Args:
      bytes_per_pack: a non-negative integer, kept.
      timeout_seconds: kept.
      implementation: a ``CommunicationImplementation`` or its name.

    Raises:
      ValueError: a negative ``bytes_per_pack`` or an unknown ``implementation``
        (TF's texts).
    """

    def __init__(
        self,
        bytes_per_pack=0,
        timeout_seconds=None,
        implementation=CommunicationImplementation.AUTO,
    ):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError(
                "Argument `implementation` must be instance of "
                "`tf.distribute.experimental.CommunicationImplementation`."
            )
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def __str__(self):
        return (
            f"Options(bytes_per_pack={self.bytes_per_pack},"
            f"timeout_seconds={self.timeout_seconds}, "
            f"implementation={self.implementation})"
        )


class InputReplicationMode(enum.Enum):
    """How input is replicated (``tf.distribute.InputReplicationMode``).

    Global view has one input pipeline per process, as TF's ``PER_WORKER``;
    ``PER_REPLICA`` is refused by ``distribute_datasets_from_function``.
    """

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputOptions(
    collections.namedtuple(
        "InputOptions",
        [
            "experimental_fetch_to_device",
            "experimental_replication_mode",
            "experimental_place_dataset_on_device",
            "experimental_per_replica_buffer_size",
        ],
    )
):
    """Options for distributing a dataset (``tf.distribute.InputOptions``).

    Batches are always placed on the devices, sharded, when the loop asks for them, so
    the fetch, placement and buffer options change nothing.
    """

    def __new__(
        cls,
        experimental_fetch_to_device=None,
        experimental_replication_mode=InputReplicationMode.PER_WORKER,
        experimental_place_dataset_on_device=False,
        experimental_per_replica_buffer_size=1,
    ):
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(
            cls,
            experimental_fetch_to_device,
            experimental_replication_mode,
            experimental_place_dataset_on_device,
            experimental_per_replica_buffer_size,
        )


class RunOptions(
    collections.namedtuple(
        "RunOptions",
        [
            "experimental_enable_dynamic_batch_size",
            "experimental_bucketizing_dynamic_shape",
            "experimental_xla_options",
        ],
    )
):
    """Options for ``Strategy.run`` (``tf.distribute.RunOptions``); they are TPU-only in
    TF and change nothing here."""

    def __new__(
        cls,
        experimental_enable_dynamic_batch_size=True,
        experimental_bucketizing_dynamic_shape=False,
        experimental_xla_options=None,
    ):
        return super().__new__(
            cls,
            experimental_enable_dynamic_batch_size,
            experimental_bucketizing_dynamic_shape,
            experimental_xla_options,
        )


class InputContext:
    """What ``distribute_datasets_from_function`` tells the dataset function
    (``tf.distribute.InputContext``).

    Args:
      num_input_pipelines: how many pipelines feed the step (one per process).
      input_pipeline_id: this pipeline's index.
      num_replicas_in_sync: the strategy's replica count.
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self):
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self):
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size):
        """``global_batch_size // num_replicas_in_sync``.

        Raises:
          ValueError: ``global_batch_size`` is not divisible (TF's text).
        """
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                f"`num_replicas_in_sync` {self._num_replicas_in_sync!r} "
            )
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (
            f"tf.distribute.InputContext(input pipeline id {self.input_pipeline_id}, "
            f"total: {self.num_input_pipelines})"
        )


class ValueContext:
    """What ``experimental_distribute_values_from_function`` tells the value function
    (``tf.distribute.experimental.ValueContext``).

    Args:
      replica_id_in_sync_group: the replica the value is for.
      num_replicas_in_sync: the strategy's replica count.
    """

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        return self._num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id_in_sync_group

    def __str__(self):
        return (
            f"tf.distribute.ValueContext(replica id {self.replica_id_in_sync_group},  "
            f"total replicas in sync: {self.num_replicas_in_sync})"
        )
