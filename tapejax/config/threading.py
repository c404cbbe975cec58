"""``tf.config.threading``: TF's thread-pool sizes, kept and returned but without effect
(XLA sizes its CPU thread pool when JAX starts)."""

from tapejax._src.runtime_config import (
    get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads,
)

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]
