"""``tf.random.experimental``: generators, seed splitting and stateless shuffles.

Reached as ``tapejax.random.experimental`` (``tapejax.random`` registers it under that
name too, so ``import tapejax.random.experimental`` works as for TF's submodule). As in
TF, ``Generator``, ``Algorithm``, ``create_rng_state`` and the global generator functions
are ``tapejax.random``'s own objects, and ``stateless_fold_in`` / ``stateless_split`` are
``tapejax.random.fold_in`` / ``split``.
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.ops.experimental_random_ops import index_shuffle, stateless_shuffle
from tapejax._src.ops.random_ops import (
    Algorithm,
    Generator,
    get_global_generator,
    set_global_generator,
)
from tapejax._src.ops.random_ops import fold_in as stateless_fold_in
from tapejax._src.ops.random_ops import split as stateless_split
from tapejax._src.ops.rng_state_ops import create_rng_state

__getattr__ = _attribute_hook("tapejax.random.experimental", "random.experimental")

__all__ = [
    "Algorithm",
    "Generator",
    "create_rng_state",
    "get_global_generator",
    "index_shuffle",
    "set_global_generator",
    "stateless_fold_in",
    "stateless_shuffle",
    "stateless_split",
]
