"""``tf.nn.experimental``: dropout with a stateless seed or the caller's sampler.

Reached as ``tapejax.nn.experimental`` (``tapejax.nn`` registers it under that name too,
so ``import tapejax.nn.experimental`` works as for TF's submodule).
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.ops.experimental_random_ops import general_dropout, stateless_dropout

__getattr__ = _attribute_hook("tapejax.nn.experimental", "nn.experimental")

__all__ = ["general_dropout", "stateless_dropout"]
