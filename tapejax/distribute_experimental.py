"""``tf.distribute.experimental``: the communication options and ``ValueContext``.

Reached as ``tapejax.distribute.experimental``. The communication options are accepted
where TF takes them and change nothing: XLA chooses a compiled step's collectives.
"""

from tapejax._src.distribute.options import (
    CommunicationImplementation,
    CommunicationOptions,
    ValueContext,
)
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.distribute.experimental", "distribute.experimental")

# TF's deprecated name for CommunicationImplementation.
CollectiveCommunication = CommunicationImplementation

__all__ = [
    "CollectiveCommunication",
    "CommunicationImplementation",
    "CommunicationOptions",
    "ValueContext",
]
