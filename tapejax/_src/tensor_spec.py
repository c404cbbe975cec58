"""``TensorSpec``: a shape (possibly with ``None`` dimensions) and a dtype, as ``tf.TensorSpec``."""

from __future__ import annotations

from . import dtypes
from .tensor_shape import TensorShape

__all__ = ["TensorSpec", "ShapeDtypeSpec"]


class ShapeDtypeSpec:
    """What every spec has: a (possibly partial) shape and a dtype."""

    __slots__ = ("_shape", "_dtype")

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype


class TensorSpec(ShapeDtypeSpec):
    """Describes a tensor (``tf.TensorSpec``): used in ``tapejax.function``'s ``input_signature``.

    Example:
        >>> import tapejax as tf
        >>> spec = tf.TensorSpec([None, 3], tf.float32)
        >>> spec.is_compatible_with(tf.zeros([5, 3])), spec.is_compatible_with(tf.zeros([5, 2]))
        (True, False)
    """

    __slots__ = ("_name",)

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @property
    def name(self):
        return self._name

    @classmethod
    def from_tensor(cls, tensor, name=None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other) -> bool:
        if isinstance(other, TensorSpec):
            return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self._shape == other._shape
            and self._dtype == other._dtype
            and self._name == other._name
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"
