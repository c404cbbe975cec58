"""``tf.queue``: TF's queues in eager mode, shared between Python threads."""

from tapejax._src.queue_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = [
    "FIFOQueue",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "QueueBase",
    "RandomShuffleQueue",
]
