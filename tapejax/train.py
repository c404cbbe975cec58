"""Training utilities (``tf.train``): checkpoints, their readers, moving averages, threads.

Checkpoints are ``.npz`` files keyed by object path (``model/layers/0/w``); see
``tapejax/_src/checkpoint.py`` and ``docs/interop.md`` for the format. Restoring places
each value with the target Variable's sharding, so a checkpoint saved on one device
restores onto a ``tapejax.distribute`` strategy's layout and back.
``get_checkpoint_state``, ``load_checkpoint`` and ``checkpoints_iterator`` read those
directories; ``ExponentialMovingAverage`` keeps TF's update formula; ``Coordinator``
is TF's thread coordinator. ``Example``, ``SequenceExample`` and their messages
(``Features``, ``Feature``, ``FeatureList(s)``, ``BytesList``, ``FloatList``,
``Int64List``) serialize to the bytes of TF's protobuf without depending on protobuf.
"""

import sys as _sys

from tapejax import train_experimental as experimental
from tapejax._src.checkpoint import (
    Checkpoint,
    CheckpointLoadStatus,
    CheckpointManager,
    latest_checkpoint,
    list_variables,
    load_variable,
)
from tapejax._src.checkpoint_options import CheckpointOptions
from tapejax._src.checkpoint_utils import (
    CheckpointReader,
    CheckpointState,
    checkpoints_iterator,
    get_checkpoint_state,
    load_checkpoint,
)
from tapejax._src.checkpoint_view import CheckpointView, TrackableView
from tapejax._src.coordinator import Coordinator
from tapejax._src.example_proto import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from tapejax._src.moving_averages import ExponentialMovingAverage
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.train", "train")

__all__ = [
    "BytesList",
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointReader",
    "CheckpointState",
    "CheckpointView",
    "Coordinator",
    "Example",
    "ExponentialMovingAverage",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "TrackableView",
    "checkpoints_iterator",
    "experimental",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]

# tapejax.train is a module, not a package: registered so that ``import
# tapejax.train.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental
