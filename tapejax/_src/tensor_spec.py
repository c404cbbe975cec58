"""``TypeSpec``, the base of every spec, and ``TensorSpec``: a shape (possibly with
``None`` dimensions) and a dtype, as ``tf.TensorSpec``. This module must not import
values (Tensor, composites): specs describe them and name them lazily.
"""

from __future__ import annotations

import abc

from . import dtypes
from .tensor_shape import TensorShape

__all__ = ["TypeSpec", "TensorSpec", "ShapeDtypeSpec"]


class TypeSpec(abc.ABC):
    """The type of a tapejax value (``tf.TypeSpec``): the base of ``TensorSpec``,
    ``SparseTensorSpec``, ``IndexedSlicesSpec``, ``TensorArraySpec``, ``NoneTensorSpec``.

    Subclasses say which Python type they describe (``value_type``) and which values and
    specs they accept (``is_compatible_with``). ``tf.type_spec_from_value`` gives a
    value's spec.

    .. warning:: TF's TypeSpec also serializes, batches and encodes values as component
       Tensors (``_to_components``, ``flatten``, ``most_specific_common_supertype``, …);
       tapejax's specs describe values only.

    Example:
        >>> import tapejax as tf
        >>> isinstance(tf.TensorSpec([2]), tf.TypeSpec), tf.TensorSpec([2]).value_type.__name__
        (True, 'Tensor')
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def value_type(self):
        """The Python type of the values this spec describes."""

    @abc.abstractmethod
    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (a spec, or a value) could be described by this spec."""


class ShapeDtypeSpec(TypeSpec):
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

    @property
    def value_type(self):
        from .tensor import Tensor

        return Tensor

    @classmethod
    def from_tensor(cls, tensor, name=None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other) -> bool:
        if not isinstance(other, TypeSpec) and not (
            hasattr(other, "dtype") and hasattr(other, "shape")
        ):
            from .type_spec import type_spec_from_value  # Python data, None, TensorArrays

            other = type_spec_from_value(other)
        if isinstance(other, TypeSpec) and not isinstance(other, TensorSpec):
            return False
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
