"""The specs of tapejax's other values (``IndexedSlicesSpec``, ``TensorArraySpec``,
``NoneTensorSpec``, a Variable's ``VariableSpec``) and ``type_spec_from_value``, which
gives any value's spec as TF's does. Specs describe values; this module never changes
one.
"""

from __future__ import annotations

from . import dtypes
from .composite import CompositeTensor
from .tensor_shape import TensorShape
from .tensor_spec import TensorSpec, TypeSpec

__all__ = [
    "IndexedSlicesSpec",
    "TensorArraySpec",
    "NoneTensorSpec",
    "NoneTensor",
    "VariableSpec",
    "type_spec_from_value",
]


def _as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


class _SerializedSpec(TypeSpec):
    """A spec that is its ``_serialize()`` tuple: TF's equality, hash and repr."""

    __slots__ = ()

    def _serialize(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__}._serialize")

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._serialize()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._serialize()!r}"

    def is_compatible_with(self, spec_or_value) -> bool:
        """TF's rule: the same spec type, shapes and dtypes compatible, the rest equal."""
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        if type(other) is not type(self):
            return False
        return all(
            _compatible(a, b) for a, b in zip(self._serialize(), other._serialize(), strict=True)
        )


def _compatible(a, b) -> bool:
    if isinstance(a, (TensorShape, dtypes.DType)) and isinstance(b, type(a)):
        return a.is_compatible_with(b)
    return a == b


class IndexedSlicesSpec(_SerializedSpec):
    """The type of an IndexedSlices (``tf.IndexedSlicesSpec``).

    Args:
        shape: the dense shape (None: any).
        dtype: the values' dtype.
        indices_dtype: the indices' dtype.
        dense_shape_dtype: the dense shape tensor's dtype, or None when the slices have
            no dense shape tensor.
        indices_shape: the indices' shape (rank 1): how many slices.

    Example:
        >>> import tapejax as tf
        >>> tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int32)
        IndexedSlicesSpec(TensorShape([None, 3]), tf.float32, tf.int32, None, TensorShape([None]))
    """

    __slots__ = (
        "_shape",
        "_values_dtype",
        "_indices_dtype",
        "_dense_shape_dtype",
        "_indices_shape",
    )

    def __init__(
        self,
        shape=None,
        dtype=dtypes.float32,
        indices_dtype=dtypes.int64,
        dense_shape_dtype=None,
        indices_shape=None,
    ):
        self._shape = _as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (
            None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        )
        self._indices_shape = _as_shape(indices_shape).with_rank(1)

    @property
    def value_type(self):
        from .indexed_slices import IndexedSlices

        return IndexedSlices

    def _serialize(self) -> tuple:
        return (
            self._shape,
            self._values_dtype,
            self._indices_dtype,
            self._dense_shape_dtype,
            self._indices_shape,
        )


class TensorArraySpec(_SerializedSpec):
    """The type of a TensorArray (``tf.TensorArraySpec``).

    Args:
        element_shape: the shape of each element (None: unknown).
        dtype: the elements' dtype.
        dynamic_size: whether the array may grow past its size.
        infer_shape: whether the element shape is learnt from the first write.

    Example:
        >>> import tapejax as tf
        >>> tf.TensorArraySpec([2], tf.int32, dynamic_size=True)
        TensorArraySpec(TensorShape([2]), tf.int32, True, True)
    """

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(
        self, element_shape=None, dtype=dtypes.float32, dynamic_size=False, infer_shape=True
    ):
        self._element_shape = _as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self):
        from .ops.tensor_array_ops import TensorArray

        return TensorArray

    @staticmethod
    def from_value(value) -> TensorArraySpec:
        """The spec of a TensorArray.

        Raises:
            TypeError: ``value`` is not a TensorArray (TF's text).
        """
        from .ops.tensor_array_ops import TensorArray

        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return TensorArraySpec(
            dtype=value.dtype,
            element_shape=value.element_shape,
            dynamic_size=value.dynamic_size,
            infer_shape=value._infer_shape,
        )

    def is_compatible_with(self, other) -> bool:
        # As TF: infer_shape does not count.
        if not isinstance(other, TypeSpec):
            other = type_spec_from_value(other)
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype.is_compatible_with(other._dtype)
            and self._element_shape.is_compatible_with(other._element_shape)
            and self._dynamic_size == other._dynamic_size
        )

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)


class NoneTensor(CompositeTensor):
    """TF's composite stand-in for a missing value: no components, spec ``NoneTensorSpec``."""

    __slots__ = ()

    def _components(self) -> tuple:
        return ()

    def _with_components(self, components: tuple) -> NoneTensor:
        return NoneTensor()

    @property
    def _type_spec(self) -> NoneTensorSpec:
        return NoneTensorSpec()


class NoneTensorSpec(_SerializedSpec):
    """The type of ``None`` where a value may be missing (``tf.NoneTensorSpec``).

    Example:
        >>> import tapejax as tf
        >>> tf.type_spec_from_value(None)
        NoneTensorSpec()
    """

    __slots__ = ()

    @property
    def value_type(self):
        return NoneTensor

    @staticmethod
    def from_value(value) -> NoneTensorSpec:
        return NoneTensorSpec()

    def _serialize(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return "NoneTensorSpec()"

    def is_compatible_with(self, spec_or_value) -> bool:
        return spec_or_value is None or isinstance(spec_or_value, (NoneTensor, NoneTensorSpec))


class VariableSpec(_SerializedSpec):
    """The type of a Variable: shape, dtype and trainability (TF's ``VariableSpec``,
    which ``tf.type_spec_from_value`` gives for a Variable).

    Example:
        >>> import tapejax as tf
        >>> tf.type_spec_from_value(tf.Variable([1.0, 2.0]))
        VariableSpec(shape=(2,), dtype=tf.float32, trainable=True, alias_id=None)
    """

    __slots__ = ("shape", "dtype", "trainable", "alias_id")

    def __init__(self, shape, dtype=dtypes.float32, trainable=True, alias_id=None):
        self.shape = _as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.trainable = trainable
        self.alias_id = alias_id

    @property
    def value_type(self):
        from .variables import Variable

        return Variable

    def _serialize(self) -> tuple:
        return (self.shape, self.dtype, self.trainable, self.alias_id)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype!r}, "
            f"trainable={self.trainable}, alias_id={self.alias_id})"
        )


def type_spec_from_value(value) -> TypeSpec:
    """The spec describing ``value`` (``tf.type_spec_from_value``).

    Tensors give a ``TensorSpec`` (no name), Variables a ``VariableSpec``, SparseTensors,
    IndexedSlices and TensorArrays their specs, None a ``NoneTensorSpec``; other values
    the ``TensorSpec`` of their conversion to a Tensor (a list of Tensors included).

    Raises:
        TypeError: no spec describes ``value`` (TF's text).

    Example:
        >>> import tapejax as tf
        >>> tf.type_spec_from_value(tf.constant([1, 2, 3]))
        TensorSpec(shape=(3,), dtype=tf.int32, name=None)
    """
    from .composite import CompositeTensor
    from .conversion import convert_to_tensor
    from .ops.tensor_array_ops import TensorArray
    from .tensor import Tensor

    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if getattr(value, "_is_variable", False):
        return VariableSpec(value.shape, value.dtype, trainable=value.trainable)
    if isinstance(value, CompositeTensor) and hasattr(value, "_type_spec"):
        return value._type_spec
    if isinstance(value, TensorArray):
        return TensorArraySpec.from_value(value)
    if value is None:
        return NoneTensorSpec()
    try:
        tensor = convert_to_tensor(value)
    except (ValueError, TypeError):
        tensor = None
    if tensor is not None:
        return TensorSpec(tensor.shape, tensor.dtype)
    raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.")
