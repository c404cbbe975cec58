"""``tf.sets``: set operations along the last dimension of dense and sparse tensors."""

from tapejax._src.ops.set_ops import difference, intersection, size, union

__all__ = [
    "difference",
    "intersection",
    "size",
    "union",
]
