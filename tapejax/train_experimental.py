"""``tf.train.experimental``: Python state in checkpoints.

Reached as ``tapejax.train.experimental`` (``tapejax.train`` registers it under that
name too, so ``import tapejax.train.experimental`` works as for TF's submodule). TF's
checkpoint sharding classes are not provided: a tapejax checkpoint is one ``.npz`` file
(``tapejax/_src/not_provided.py`` says so when one is read).
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.python_state import PythonState

__getattr__ = _attribute_hook("tapejax.train.experimental", "train.experimental")

__all__ = ["PythonState"]
