"""Training checkpoints (``tf.train``): ``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``.

Checkpoints are ``.npz`` files keyed by object path (``model/layers/0/w``); see
``tapejax/_src/checkpoint.py`` and ``docs/interop.md`` for the format. Restoring places
each value with the target Variable's sharding, so a checkpoint saved on one device
restores onto a ``tapejax.distribute`` strategy's layout and back.
"""

from tapejax._src.checkpoint import (
    Checkpoint,
    CheckpointLoadStatus,
    CheckpointManager,
    latest_checkpoint,
    list_variables,
    load_variable,
)

__all__ = [
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "latest_checkpoint",
    "list_variables",
    "load_variable",
]
