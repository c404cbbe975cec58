"""``IndexedSlices``: slices ``values[i]`` of a dense tensor at rows ``indices[i]``, as TF's
class (``tf.IndexedSlices``).

TF produces them as the gradients of ``gather`` and ``embedding_lookup``; tapejax's
gradients stay dense (``docs/compat.md``), so here they are a value users build and
convert: ``convert_to_tensor`` gives TF's dense sum (duplicate rows add up), and TF's
operators (``-slices``, ``tensor + slices``) work as in TF. Like TF's, the constructor
stores its arguments unconverted.
"""

from __future__ import annotations

from .composite import CompositeTensor
from .conversion import convert_to_tensor
from .sparse_tensor import host_value, shape_from_dense_shape
from .tensor_shape import TensorShape

__all__ = ["IndexedSlices"]


class IndexedSlices(CompositeTensor):
    """A sparse set of slices of a dense tensor (``tf.IndexedSlices``).

    ``dense[indices[i], ...] = values[i, ...]`` for a dense tensor of shape
    ``dense_shape``; converting it to a Tensor sums the slices of repeated indices.

    Example:
        >>> import tapejax as tf
        >>> s = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 0]), tf.constant([2, 3]))
        >>> tf.convert_to_tensor(s).numpy()
        array([[2., 2., 2.],
               [0., 0., 0.]], dtype=float32)
    """

    # ``_count``: how many components it has (TF's: 2 without a dense shape, else 3);
    # ``_known``: the dense shape as ints when known (the static facts of a trace). Both are
    # kept apart from the components so that a structure rebuilt around traced ones keeps them.
    __slots__ = ("_values", "_indices", "_dense_shape", "_count", "_known", "__weakref__")

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape
        self._count = 2 if dense_shape is None else 3
        known = None if dense_shape is None else host_value(dense_shape)
        self._known = None if known is None else tuple(int(d) for d in known.reshape(-1))

    @property
    def values(self):
        """The slices, ``[D0, D1, ..., Dn]``."""
        return self._values

    @property
    def indices(self):
        """The 1-D row indices of the slices, ``[D0]``."""
        return self._indices

    @property
    def dense_shape(self):
        """The 1-D shape of the dense tensor, or None."""
        return self._dense_shape

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's static shape (unknown without ``dense_shape``)."""
        if self._dense_shape is None:
            return TensorShape(None)
        if self._known is not None:
            return TensorShape([None if d < 0 else d for d in self._known])
        return shape_from_dense_shape(convert_to_tensor(self._dense_shape))

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def device(self):
        return self._values.device

    @property
    def dtype(self):
        return self._values.dtype

    def __str__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    @property
    def _type_spec(self):
        """TF's spec of these slices: the dense shape merged from the values' and
        ``dense_shape``'s, the dtypes, and the indices' shape."""
        from .type_spec import IndexedSlicesSpec

        values, indices = convert_to_tensor(self._values), convert_to_tensor(self._indices)
        indices_shape = indices.shape.merge_with(values.shape[:1])
        dense = TensorShape([None]).concatenate(values.shape[1:])
        dense_dtype = None
        if self._dense_shape is not None:
            dense_dtype = convert_to_tensor(self._dense_shape).dtype
            dense = dense.merge_with(self.shape)
        return IndexedSlicesSpec(dense, values.dtype, indices.dtype, dense_dtype, indices_shape)

    # -- CompositeTensor ----------------------------------------------------------------

    def _components(self) -> tuple:
        return (self._values, self._indices, self._dense_shape)[: self._count]

    def _with_components(self, components: tuple) -> IndexedSlices:
        out = IndexedSlices(*components)
        out._count = len(components)
        out._known = out._known or self._known
        return out

    def _static_key(self):
        return self._known

    def _with_values(self, values) -> IndexedSlices:
        return IndexedSlices(values, self._indices, self._dense_shape)

    def _gradient_components(self):
        return (self._values,)

    def _to_dense(self, dtype):
        """TF's ``_indexed_slices_to_tensor``: the slices summed into a dense tensor."""
        if dtype is not None and dtype != self.dtype:
            raise ValueError(
                f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
                f"IndexedSlices ({self}) with dtype {self.dtype.name}"
            )
        if self._dense_shape is None:
            raise ValueError(
                "Tensor conversion requested for IndexedSlices for argument `value` without "
                f"dense_shape: {self!s}"
            )
        from .ops.segment_ops import unsorted_segment_sum  # an op: differentiable

        rows = self._known[0] if self._known is not None else self._dense_shape[0]
        return unsorted_segment_sum(self._values, self._indices, rows)
