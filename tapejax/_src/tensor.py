"""``Tensor``: an immutable value wrapping a ``jax.Array`` (or a JAX tracer), and conversion.

A Tensor carries a process-unique integer id (never Python's ``id()``, which is reused
after garbage collection): tapes match sources and targets by it. Operators are
attached by ``ops/math_ops.py``; this module must not import any op module.
"""

from __future__ import annotations

import itertools
import logging
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes
from .tensor_shape import TensorShape

__all__ = ["Tensor", "convert_to_tensor", "constant", "wrap", "is_tensor"]

logger = logging.getLogger("tapejax")

_next_id = itertools.count(1).__next__


class Tensor:
    """An immutable multi-dimensional array, as ``tf.Tensor`` in eager mode.

    It wraps a ``jax.Array`` (or, inside ``tapejax.function`` and JAX transforms, a
    tracer), so ``jnp`` functions accept it and ``jnp.asarray(t)`` is free.

    Example:
        >>> import tapejax as tf
        >>> t = tf.constant([[1.0, 2.0]])
        >>> t.shape.as_list(), t.dtype.name, float(t[0, 1])
        ([1, 2], 'float32', 2.0)
    """

    __slots__ = ("_value", "_id", "__weakref__")
    # Makes NumPy defer to our reflected operators (np.float32(2) * t is a Tensor).
    __array_priority__ = 100

    def __init__(self, value):
        self._value = value
        self._id = _next_id()

    # -- value access -------------------------------------------------------------------

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_array_dtype(self._value.dtype)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def device(self) -> str:
        try:
            (dev,) = self._value.devices()
        except (AttributeError, ValueError, jax.errors.ConcretizationTypeError):
            return ""
        return f"/job:localhost/replica:0/task:0/device:{dev.platform.upper()}:{dev.id}"

    def get_shape(self) -> TensorShape:
        return self.shape

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for rank 0), as TF's ``numpy()``."""
        value = np.array(self._value)
        return value[()] if value.ndim == 0 else value

    def ref(self):
        return _TensorRef(self)

    def experimental_ref(self):
        return self.ref()

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __jax_array__(self):
        return self._value

    # -- Python protocol, as TF eager has it ----------------------------------------------

    def __bool__(self) -> bool:
        return bool(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index, got {self.dtype!r}")
        return int(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if not self._value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return f"<tf.Tensor shape={self.shape} dtype={self.dtype.name} (traced)>"
        value = np.asarray(self._value)
        shown = np.array_repr(value) if value.ndim else str(value)
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={shown}>"

    def __str__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return repr(self)
        return f"tf.Tensor({np.asarray(self._value)}, shape={self.shape}, dtype={self.dtype.name})"


class _TensorRef:
    """A hashable reference to a Tensor (``tensor.ref()``), keyed on the tensor's id."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        return self._tensor

    def __hash__(self):
        return self._tensor._id

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._tensor is self._tensor


def _flatten_tensor(t):
    return (t._value,), None


def _unflatten_tensor(_, children):
    return wrap(children[0])


jax.tree_util.register_pytree_node(Tensor, _flatten_tensor, _unflatten_tensor)


def wrap(value) -> Tensor:
    """Wraps a JAX array or tracer without conversion or checks (the op fast path)."""
    t = object.__new__(Tensor)
    t._value = value
    t._id = _next_id()
    return t


def is_tensor(x) -> bool:
    return isinstance(x, Tensor) or getattr(x, "_is_variable", False)


# -- conversion -------------------------------------------------------------------------

_NARROW = {
    np.dtype(np.float64): np.dtype(np.float32),
    np.dtype(np.int64): np.dtype(np.int32),
    np.dtype(np.uint64): np.dtype(np.uint32),
    np.dtype(np.complex128): np.dtype(np.complex64),
}
_narrow_warned: set = set()


def x64_enabled() -> bool:
    return bool(jax.config.jax_enable_x64)


def canonical_np_dtype(np_dtype) -> np.dtype:
    """The dtype an array of ``np_dtype`` really gets: 64-bit types need JAX's x64 mode.

    Without x64, JAX can only hold 32-bit types; tapejax narrows and warns once per
    dtype instead of silently changing it (``docs/compat.md``, "64-bit types").
    """
    np_dtype = np.dtype(np_dtype)
    narrow = _NARROW.get(np_dtype)
    if narrow is None or x64_enabled():
        return np_dtype
    if np_dtype not in _narrow_warned:
        _narrow_warned.add(np_dtype)
        warnings.warn(
            f"tapejax: a {np_dtype.name} value was requested but JAX's 64-bit mode is off, so "
            f"it is stored as {narrow.name}. To keep {np_dtype.name} (as TensorFlow does), run "
            "jax.config.update('jax_enable_x64', True) before creating tensors.",
            UserWarning,
            stacklevel=4,
        )
    return narrow


def _infer_python_dtype(value) -> np.dtype:
    """TF's dtype for Python data: float -> float32, int -> int32 (int64 if it must)."""
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind == "f":
        return np.dtype(np.float32)
    if kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return np.dtype(np.int64)
        return np.dtype(np.int32)
    if kind == "c":
        return np.dtype(np.complex128)
    if kind == "b":
        return np.dtype(np.bool_)
    if kind in "USO":
        raise NotImplementedError(
            "tapejax has no string tensors: JAX arrays hold numbers only. Keep strings in "
            "Python or NumPy and convert them to ids before they enter tapejax."
        )
    raise TypeError(f"Cannot convert {value!r} to a tensor.")


def _from_python_or_numpy(value, dtype: dtypes.DType | None) -> Tensor:
    is_numpy = isinstance(value, (np.ndarray, np.generic))
    if isinstance(value, (str, bytes)) or (is_numpy and value.dtype.kind in "USO"):
        _infer_python_dtype(value)  # raises the NotImplementedError for strings
    if dtype is None:
        np_dtype = value.dtype if is_numpy else _infer_python_dtype(value)
    else:
        if dtype is dtypes.string:
            _infer_python_dtype("")
        np_dtype = dtype._np
        src = np.asarray(value)
        if src.dtype.kind in "fc" and np_dtype.kind in "iub":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
        if src.dtype.kind == "c" and np_dtype.kind == "f":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    np_dtype = canonical_np_dtype(np_dtype)
    return wrap(jnp.asarray(np.asarray(value, dtype=np_dtype)))


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Converts Python, NumPy and JAX values, Tensors and Variables to a ``Tensor``.

    As ``tf.convert_to_tensor``: Python floats become float32, ints int32, NumPy arrays
    keep their dtype; a Tensor of another dtype than ``dtype`` is an error, not a cast.

    Example:
        >>> import tapejax as tf
        >>> tf.convert_to_tensor([1, 2]).dtype
        tf.int32
    """
    del name
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    if getattr(value, "_is_variable", False):
        return value._dense_read(dtype)
    if value is None:
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
            "to a Tensor."
        )
    if isinstance(value, (jax.Array, jax.core.Tracer)):
        if dtype is not None and value.dtype != dtype._np:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for array with dtype "
                f"{value.dtype.name}"
            )
        if getattr(value, "weak_type", False):
            # A weakly typed array would make every op it meets retrace once more.
            value = jax.lax.convert_element_type(value, value.dtype)
        return wrap(value)
    if isinstance(value, (list, tuple)) and any(_contains_tensor(v) for v in value):
        from .ops import array_ops  # packing nested tensors is an op (it is differentiable)

        return array_ops.pack_nested(value, dtype)
    if dtype is None and dtype_hint is not None:
        try:
            return _from_python_or_numpy(value, dtypes.as_dtype(dtype_hint))
        except (TypeError, ValueError):
            pass
    if hasattr(value, "__jax_array__") and not isinstance(value, (np.ndarray, np.generic)):
        return convert_to_tensor(value.__jax_array__(), dtype=dtype)
    return _from_python_or_numpy(value, dtype)


def _contains_tensor(v) -> bool:
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        return True
    if isinstance(v, (list, tuple)):
        return any(_contains_tensor(x) for x in v)
    return False


def constant(value, dtype=None, shape=None, name="Const") -> Tensor:
    """Creates a constant tensor (``tf.constant``), optionally broadcast to ``shape``.

    Example:
        >>> import tapejax as tf
        >>> tf.constant(1.0, shape=[2]).numpy()
        array([1., 1.], dtype=float32)
    """
    del name
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype != dtypes.as_dtype(dtype):
            from .ops import math_ops

            t = math_ops.cast(t, dtype)
    else:
        t = _from_python_or_numpy(value, None if dtype is None else dtypes.as_dtype(dtype))
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        if t._value.shape != shape:
            if t._value.size == 1:
                t = wrap(jnp.broadcast_to(t._value.reshape(()), shape))
            elif t._value.size == int(np.prod(shape)):
                t = wrap(t._value.reshape(shape))
            else:
                raise TypeError(
                    f"Eager execution of tf.constant with unsupported shape. Tensor "
                    f"{t!r} (converted from {value!r}) has {t._value.size} elements, but got "
                    f"`shape` {TensorShape(shape)} with {int(np.prod(shape))} elements)."
                )
    return t
