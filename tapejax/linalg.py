"""``tf.linalg``: matrix products, decompositions and solvers."""

from tapejax._src.ops.linalg_ops import matmul

__all__ = ["matmul"]

# Names of this namespace that TF also exports at top level (``tf.einsum``); ``tapejax``'s
# ``__init__`` re-exports them.
TOPLEVEL: list[str] = []
