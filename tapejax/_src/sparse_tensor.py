"""``SparseTensor`` and ``SparseTensorSpec``: TF's sparse representation of a tensor, as
three Tensors (``indices [N, rank]`` int64, ``values [N]``, ``dense_shape [rank]`` int64).

A SparseTensor is a ``CompositeTensor``: ``tapejax.function`` takes and returns it as its
three components, and JAX sees it as a pytree of them. Its dense shape is also kept as a
static ``TensorShape`` (TF's ``shape``), read from ``dense_shape`` when that is concrete,
so ops know their output shapes while tracing. Ops on sparse tensors live in
``ops/sparse_*.py``; this module must not import any op.
"""

from __future__ import annotations

import collections

import jax
import numpy as np

from . import dtypes
from .composite import CompositeTensor
from .conversion import canonical_np_dtype, convert_to_tensor
from .tensor import Pending, Tensor
from .tensor_shape import TensorShape, as_shape
from .tensor_spec import ShapeDtypeSpec

__all__ = [
    "SparseTensor",
    "SparseTensorSpec",
    "SparseTensorValue",
    "convert_to_sparse_tensor",
    "static_value",
    "host_value",
]

SparseTensorValue = collections.namedtuple(
    "SparseTensorValue", ["indices", "values", "dense_shape"]
)


def static_value(t: Tensor):
    """``t``'s value as a NumPy array when it is known (not a tracer), else None."""
    v = t._v
    if type(v) is Pending:
        v = t._value
    if isinstance(v, jax.core.Tracer):
        return None
    return np.asarray(v)


def host_value(x):
    """``x`` as a NumPy array when its value is known now: Python and NumPy data always
    (even inside a traced program, where converting them would make them tracers),
    Tensors and Variables unless traced. Else None."""
    if isinstance(x, Tensor):
        return static_value(x)
    if getattr(x, "_is_variable", False):
        return static_value(x._dense_read())
    return np.asarray(x)


def named_conversion(value, dtype, name: str) -> Tensor:
    """TF's ``convert_to_tensor(value, dtype=dtype, name=name)``: a dtype mismatch says
    which argument it was."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        if str(e).startswith("Tensor conversion requested"):
            raise ValueError(f"{name}: {e}") from None
        raise


def int64_tensor(value, name: str) -> Tensor:
    """``value`` as an int64 tensor, named in its error. Without JAX's x64 mode an int64
    tensor is held as int32 (``docs/compat.md``), so a tensor of that held dtype is
    accepted too."""
    if isinstance(value, Tensor) and value._v.dtype == canonical_np_dtype(np.int64):
        return value
    return named_conversion(value, dtypes.int64, name)


def _dims_text(a, b) -> str:
    return f"Dimensions {a} and {b} are not compatible"


def shape_from_dense_shape(dense_shape: Tensor) -> TensorShape:
    """TF's ``constant_value_as_shape(dense_shape)``: the static shape, ``None`` where a
    dimension is unknown (traced, or -1)."""
    value = static_value(dense_shape)
    if value is None:
        n = dense_shape._v.shape[0] if dense_shape._v.ndim == 1 else None
        return TensorShape(None if n is None else [None] * n)
    return TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])


class SparseTensor(CompositeTensor):
    """A sparse tensor: the nonzero ``values`` of a dense tensor at ``indices``
    (``tf.sparse.SparseTensor``).

    ``indices`` is an int64 ``[N, rank]`` tensor, ``values`` a ``[N]`` tensor of any dtype
    and ``dense_shape`` an int64 ``[rank]`` tensor; ``dense[tuple(indices[i])] = values[i]``.
    Indices should be in row-major order (``tapejax.sparse.reorder`` sorts them).

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
        >>> st.shape, st.dtype
        (TensorShape([3, 4]), tf.int32)
        >>> tf.sparse.to_dense(st).numpy()
        array([[1, 0, 0, 0],
               [0, 0, 2, 0],
               [0, 0, 0, 0]], dtype=int32)

    .. warning::
       Without JAX's x64 mode, ``indices`` and ``dense_shape`` are held as int32 (the
       64-bit policy of ``docs/compat.md``).
    """

    # ``_host_indices``: the indices as NumPy when known without running anything (built
    # from Python or NumPy data, or by an op that computed them on the host), so that ops
    # needing concrete indices work on them inside a traced program too.
    __slots__ = ("_indices", "_values", "_dense_shape", "_shape", "_host_indices", "__weakref__")

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if not isinstance(sparse_tensor_value, (SparseTensor, SparseTensorValue)):
            raise TypeError(
                f"Argument sparse_tensor_value={sparse_tensor_value} is neither a SparseTensor "
                "nor SparseTensorValue."
            )
        return cls(
            sparse_tensor_value.indices,
            sparse_tensor_value.values,
            sparse_tensor_value.dense_shape,
        )

    def __init__(self, indices, values, dense_shape):
        host_indices = _host_data(indices)
        host_shape = _host_data(dense_shape)
        indices = int64_tensor(indices, "indices")
        values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        dense_shape = int64_tensor(dense_shape, "dense_shape")
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._host_indices = None if host_indices is None else host_indices.astype(np.int64)
        if host_shape is not None and host_shape.ndim == 1:
            self._shape = TensorShape([None if d < 0 else int(d) for d in host_shape])
        else:
            self._shape = shape_from_dense_shape(dense_shape)
        ishape = TensorShape(indices._v.shape).with_rank(2)
        vshape = TensorShape(values._v.shape).with_rank(1)
        TensorShape(dense_shape._v.shape).with_rank(1)
        if ishape[0] != vshape[0]:
            raise ValueError(_dims_text(ishape[0], vshape[0]))
        if ishape[1] != dense_shape._v.shape[0]:
            raise ValueError(_dims_text(ishape[1], dense_shape._v.shape[0]))

    @classmethod
    def _from_parts(cls, indices, values, dense_shape, shape, host_indices=None):
        """A SparseTensor from components and a static shape, unchecked: for ops, which
        know their outputs are well formed, and for rebuilding a traced structure."""
        st = object.__new__(cls)
        st._indices, st._values, st._dense_shape = indices, values, dense_shape
        st._shape, st._host_indices = shape, host_indices
        return st

    # -- TF's properties --------------------------------------------------------------

    @property
    def indices(self) -> Tensor:
        """The int64 ``[N, rank]`` indices of the values."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """The ``[N]`` values."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """The int64 ``[rank]`` shape of the dense tensor."""
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's static shape (``None`` where unknown)."""
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape) -> None:
        """Merges ``shape`` into the static shape (an assertion when both are known)."""
        shape = as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(f"Shapes {self._shape} and {shape} are not compatible")
        self._shape = self._shape.merge_with(shape)

    def with_values(self, new_values) -> SparseTensor:
        """A SparseTensor with the same indices and dense shape and ``new_values``."""
        values = new_values if isinstance(new_values, Tensor) else convert_to_tensor(new_values)
        TensorShape(values._v.shape).with_rank(1)
        n, m = self._indices._v.shape[0], values._v.shape[0]
        if n != m:
            raise ValueError(_dims_text(n, m))
        return self._with_values(values)

    def eval(self, feed_dict=None, session=None):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def _type_spec(self) -> SparseTensorSpec:
        return SparseTensorSpec(self._shape, self.dtype)

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
            f"dense_shape={self._dense_shape!s})"
        )

    # -- CompositeTensor ----------------------------------------------------------------

    def _components(self) -> tuple:
        return (self._indices, self._values, self._dense_shape)

    def _with_components(self, components: tuple) -> SparseTensor:
        return SparseTensor._from_parts(*components, self._shape)

    def _with_values(self, values) -> SparseTensor:
        return SparseTensor._from_parts(
            self._indices, values, self._dense_shape, self._shape, self._host_indices
        )

    def _static_key(self):
        return tuple(self._shape.as_list()) if self._shape.rank is not None else None


def _host_data(x):
    """Python or NumPy data as a NumPy array (None for Tensors, Variables and other
    array types, whose values are read through their Tensor)."""
    if isinstance(x, (list, tuple, np.ndarray, int, np.integer)):
        try:
            return np.asarray(x)
        except ValueError:
            return None
    return None


def _flatten_sparse(st):
    return (st._indices, st._values, st._dense_shape), st._shape


def _unflatten_sparse(shape, children):
    return SparseTensor._from_parts(*children, shape)


jax.tree_util.register_pytree_node(SparseTensor, _flatten_sparse, _unflatten_sparse)


def convert_to_sparse_tensor(sp_input) -> SparseTensor:
    """TF's ``_convert_to_sparse_tensor``: a SparseTensor (or SparseTensorValue), else
    TypeError."""
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


class SparseTensorSpec(ShapeDtypeSpec):
    """The type of a SparseTensor: its dense shape and dtype (``tf.SparseTensorSpec``).

    Example:
        >>> import tapejax as tf
        >>> spec = tf.SparseTensorSpec([None, 4], tf.float32)
        >>> spec.is_compatible_with(tf.sparse.eye(4))
        True
    """

    __slots__ = ()

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def value_type(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value) -> SparseTensorSpec:
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        if isinstance(value, SparseTensorValue):
            values = convert_to_tensor(value.values)
            return cls(
                shape_from_dense_shape(int64_tensor(value.dense_shape, "dense_shape")), values.dtype
            )
        raise TypeError(
            f"Expected SparseTensor or SparseTensorValue. Received: {value} of type "
            f"{type(value).__name__}."
        )

    def is_compatible_with(self, spec_or_value) -> bool:
        other = spec_or_value
        if isinstance(other, SparseTensor):
            other = SparseTensorSpec(other.shape, other.dtype)
        if not isinstance(other, SparseTensorSpec):
            return False
        return self._dtype == other._dtype and self._shape.is_compatible_with(other._shape)

    def __eq__(self, other) -> bool:
        return (
            type(other) is SparseTensorSpec
            and self._dtype == other._dtype
            and self._shape == other._shape
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype))

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"
