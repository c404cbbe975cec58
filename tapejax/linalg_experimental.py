"""``tf.linalg.experimental``: the conjugate gradient solver.

Reached as ``tapejax.linalg.experimental`` (``tapejax.linalg`` registers it under that
name too, so ``import tapejax.linalg.experimental`` works as for TF's submodule).
"""

from tapejax._src.linear_operator.conjugate_gradient import conjugate_gradient
from tapejax._src.not_provided import attribute_hook as _attribute_hook

__getattr__ = _attribute_hook("tapejax.linalg.experimental", "linalg.experimental")

__all__ = ["conjugate_gradient"]
