"""``tf.sparse``: SparseTensor and the ops on it."""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.ops.sparse_count_ops import bincount
from tapejax._src.ops.sparse_cross_ops import cross_hashed
from tapejax._src.ops.sparse_math_ops import (
    add,
    maximum,
    minimum,
    sampled_addmm,
    sparse_dense_matmul,
)
from tapejax._src.ops.sparse_ops import (
    expand_dims,
    eye,
    from_dense,
    map_values,
    reorder,
    reset_shape,
    reshape,
    to_dense,
    to_indicator,
    transpose,
)
from tapejax._src.ops.sparse_reduction_ops import reduce_max, reduce_sum, softmax
from tapejax._src.ops.sparse_segment_ops import segment_mean, segment_sqrt_n, segment_sum
from tapejax._src.ops.sparse_slicing_ops import (
    concat,
    fill_empty_rows,
    mask,
    retain,
    slice,  # noqa: A004 - TF's name
    split,
)
from tapejax._src.sparse_tensor import SparseTensor

# TF 1's name of sparse_dense_matmul, still used by ported code.
matmul = sparse_dense_matmul

__getattr__ = _attribute_hook("tapejax.sparse", "sparse")

__all__ = [
    "SparseTensor",
    "add",
    "bincount",
    "concat",
    "cross_hashed",
    "expand_dims",
    "eye",
    "fill_empty_rows",
    "from_dense",
    "map_values",
    "mask",
    "matmul",
    "maximum",
    "minimum",
    "reduce_max",
    "reduce_sum",
    "reorder",
    "reset_shape",
    "reshape",
    "retain",
    "sampled_addmm",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "slice",
    "softmax",
    "sparse_dense_matmul",
    "split",
    "to_dense",
    "to_indicator",
    "transpose",
]
