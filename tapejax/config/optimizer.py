"""``tf.config.optimizer``: TF's graph-optimizer switches, kept and returned but without
effect (every ``tapejax.function`` is compiled by XLA as a whole)."""

from tapejax._src.runtime_config import (
    get_experimental_options,
    get_jit,
    set_experimental_options,
    set_jit,
)

__all__ = ["get_experimental_options", "get_jit", "set_experimental_options", "set_jit"]
