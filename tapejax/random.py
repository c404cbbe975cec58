"""``tf.random``: seeded random tensors on explicit JAX PRNG keys."""

__all__: list[str] = []

# Names of this namespace that TF also exports at top level; ``tapejax``'s ``__init__``
# re-exports them.
TOPLEVEL: list[str] = []
