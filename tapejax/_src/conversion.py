"""Conversion to ``Tensor``: TF's dtype inference for Python and NumPy data, and 64-bit policy.

``convert_to_tensor`` and ``constant`` follow TF (Python floats -> float32, ints -> int32,
NumPy arrays keep their dtype, TF's errors for lossy or ragged input). 64-bit types need
JAX's x64 mode: without it they are narrowed with a warning (``docs/compat.md``).
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import conversion_registry, dtypes
from .composite import CompositeTensor
from .tensor import Tensor, wrap
from .tensor_shape import TensorShape

__all__ = ["convert_to_tensor", "constant", "canonical_np_dtype", "x64_enabled"]

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
    if np_dtype is None or np.dtype(np_dtype).names:  # string/resource/variant, qint8 ...
        raise NotImplementedError(_NO_ARRAY_TYPE)
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


_NO_STRINGS = (
    "tapejax has no string tensors: JAX arrays hold numbers only. Keep strings in "
    "Python or NumPy and convert them to ids before they enter tapejax."
)
# TF's dtypes that no JAX array type matches (tf.string has its own text, _NO_STRINGS).
_NO_ARRAY_TYPE = (
    "tapejax tensors hold numbers and bools only: TF's string, resource, variant and "
    "quantized (qint8, quint8, qint16, quint16, qint32) dtypes have no JAX array type."
)
_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
_NP_KIND = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}
# TF infers a sequence's type from its first scalar; these kinds may follow it.
_MAY_FOLLOW = {"b": "b", "i": "bif", "f": "bif", "c": "bifc", "o": ""}
_INT64 = np.iinfo(np.int64)


def _leaves(value):
    """The leaves of nested Python lists/tuples, in order."""
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _scalar_kind(leaf) -> str | None:
    kind = _PY_KIND.get(type(leaf))
    if kind is None:
        if isinstance(leaf, np.generic):
            kind = _NP_KIND.get(leaf.dtype.kind, "o")
        elif leaf is None or isinstance(leaf, (str, bytes)):
            kind = "o"
    return kind  # None: NumPy arrays and other array-likes, which NumPy decides


def _check_sequence_types(value, array_kind: str) -> None:
    """TF's "mixed types" rule for Python sequences ([True, 1], [1.0, 2j], [1, None] ...).

    TF types a sequence by its first scalar. NumPy's result kind says which later scalars
    there can be, so for numeric results only the first leaf needs looking at.
    """
    first = value
    while isinstance(first, (list, tuple)):
        if not first:
            return
        first = first[0]
    first_kind = _scalar_kind(first)
    if first_kind is None or array_kind == "b":
        return
    if array_kind in "iuf":  # ints, floats and bools: only a bool may not come first
        ok = first_kind != "b"
    elif array_kind == "c":  # a complex somewhere: only a complex may come first
        ok = first_kind == "c"
    else:  # objects or strings: every leaf
        ok = all(
            kind is None or kind in _MAY_FOLLOW[first_kind] or kind == first_kind == "o"
            for kind in map(_scalar_kind, _leaves(value))
        )
    if not ok:
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")


def _unsupported(value) -> ValueError:
    bad = next(
        (x for x in _leaves(value) if type(x) not in _PY_KIND and not isinstance(x, np.generic)),
        value,
    )
    return ValueError(
        f"Attempt to convert a value ({bad!r}) with an unsupported type ({type(bad)!r}) to a "
        "Tensor."
    )


def _is_ml_dtype(dt) -> bool:
    """bfloat16 and the other ``ml_dtypes`` numbers, whose NumPy kind is "V"."""
    try:
        dtypes.as_dtype(dt)
    except (TypeError, ValueError):
        return False
    return True


def _python_array(value) -> np.ndarray:
    """Python data as a NumPy array with TF's default dtypes: float -> float32, int -> int32
    (int64 when a value needs it), complex -> complex128, bool -> bool."""
    try:
        arr = np.asarray(value)
    except ValueError:  # NumPy: "inhomogeneous shape"
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    except OverflowError:
        raise ValueError(
            "Can't convert Python sequence with out-of-range integer to Tensor."
        ) from None
    kind = arr.dtype.kind
    if isinstance(value, (list, tuple)):
        _check_sequence_types(value, kind)
    if kind == "f":
        return arr.astype(np.float32)
    if kind in "iu":
        if arr.size and (arr.max() > _INT64.max or arr.min() < _INT64.min):
            raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return arr.astype(np.int64)
        return arr.astype(np.int32)
    if kind == "c":
        return arr.astype(np.complex128)
    if kind == "b":
        return arr
    if kind in "US":
        raise NotImplementedError(_NO_STRINGS)
    leaves = list(_leaves(value))
    if leaves and all(type(x) is int for x in leaves):  # NumPy gives up past uint64
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if any(isinstance(x, (str, bytes)) for x in leaves):
        raise NotImplementedError(_NO_STRINGS)
    raise _unsupported(value)


def _cannot_convert(value, dtype: dtypes.DType) -> TypeError:
    return TypeError(
        f"Cannot convert {value!r} to EagerTensor of dtype {dtypes.tf_type_name(dtype)}"
    )


def _to_device(arr: np.ndarray, value) -> Tensor:
    """Puts ``arr`` on the device in the dtype JAX can hold (``canonical_np_dtype``).

    Narrowing an integer array must not change its values: TF would have kept them.
    """
    narrow = _NARROW.get(arr.dtype)
    if narrow is not None and arr.dtype.kind in "iu" and arr.size and not x64_enabled():
        info = np.iinfo(narrow)
        if arr.min() < info.min or arr.max() > info.max:
            raise ValueError(
                f"tapejax: {value!r} needs {arr.dtype.name}, which JAX holds only in 64-bit "
                f"mode (off): as {narrow.name} its values would wrap around. Run "
                "jax.config.update('jax_enable_x64', True) before creating tensors."
            )
    target = canonical_np_dtype(arr.dtype)
    if target != arr.dtype:
        arr = arr.astype(target)
    return wrap(jnp.asarray(arr))


def _from_python_or_numpy(value, dtype: dtypes.DType | None) -> Tensor:
    """TF's conversion of host data. NumPy data is cast to ``dtype`` as NumPy casts (TF
    does the same); Python data only where no value can change (no float -> int)."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":
        value = value.tolist()
    is_numpy = isinstance(value, (np.ndarray, np.generic))
    # "V" is also the kind of ml_dtypes' numbers (bfloat16, float8...): only raw void
    # and string arrays are refused.
    if is_numpy and (
        value.dtype.kind in "US" or (value.dtype.kind == "V" and not _is_ml_dtype(value.dtype))
    ):
        raise NotImplementedError(_NO_STRINGS)
    if value is None:
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
            "to a Tensor."
        )
    if dtype is None:
        arr = np.asarray(value) if is_numpy else _python_array(value)
        return _to_device(arr, value)
    if dtype is dtypes.string:
        _python_array(value)  # strings: the NotImplementedError; numbers pass to TF's error
        raise _cannot_convert(value, dtype)
    if isinstance(value, (str, bytes)):
        raise _cannot_convert(value, dtype)
    if dtype._np is None or dtype._np.names:
        raise NotImplementedError(_NO_ARRAY_TYPE)
    target = dtype._np
    if is_numpy:
        return _to_device(np.asarray(value).astype(target), value)
    try:
        src = _python_array(value)
    except NotImplementedError:
        raise _cannot_convert(value, dtype) from None
    # ml_dtypes' int4, float8 ... have NumPy kind "V": their DType knows what they are.
    kind = "i" if dtype.is_integer else "f" if dtype.is_floating else target.kind
    # An empty sequence holds no value to lose: it converts to any dtype, as in TF.
    if src.size and src.dtype.kind in "fc" and kind in "iub":
        raise _cannot_convert(value, dtype)
    if src.size and src.dtype.kind == "c" and kind == "f":
        raise _cannot_convert(value, dtype)
    if src.size and src.dtype.kind in "iu" and target.kind == "b":
        raise _cannot_convert(value, dtype)
    # Integers wrap around into narrower integer types, as TF's conversion does.
    return _to_device(src.astype(target), value)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Converts Python, NumPy and JAX values, Tensors and Variables to a ``Tensor``.

    As ``tf.convert_to_tensor``: Python floats become float32, ints int32, NumPy arrays
    keep their dtype; a Tensor of another dtype than ``dtype`` is an error, not a cast.
    Types given to ``register_tensor_conversion_function`` convert with their functions,
    in TF's priority order.

    Example:
        >>> import tapejax as tf
        >>> tf.convert_to_tensor([1, 2]).dtype
        tf.int32
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if conversion_registry._registry and not isinstance(value, Tensor):
        # Functions from tf.register_tensor_conversion_function, in TF's order.
        return conversion_registry.convert(
            value,
            dtype,
            dtype_hint,
            name,
            lambda v: _convert(v, dtype, dtype_hint),
            _contains_tensor,
        )
    return _convert(value, dtype, dtype_hint)


def _convert(value, dtype: dtypes.DType | None, dtype_hint) -> Tensor:
    """tapejax's own conversion (what TF's built-in conversion functions do)."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    if getattr(value, "_is_variable", False):
        return value._dense_read(dtype)
    if isinstance(value, CompositeTensor):
        dense = value._to_dense(dtype)
        if dense is None:
            raise _unsupported(value)
        return dense
    if value is None:
        raise ValueError(
            "Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) "
            "to a Tensor."
        )
    if isinstance(value, (jax.Array, jax.core.Tracer)):
        if dtype is not None and value.dtype != dtype._np:
            # TF converts foreign arrays as it converts NumPy arrays: a cast.
            value = value.astype(canonical_np_dtype(dtype._np))
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
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise TypeError(
                f"Expected tensor {value} with dtype {dtypes.as_dtype(dtype)!r}, but got dtype "
                f"{value.dtype!r}."
            )
        t = value
    elif getattr(value, "_is_variable", False):
        # A Variable goes through TF's general conversion, which casts.
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype != dtypes.as_dtype(dtype):
            from .ops import math_ops

            t = math_ops.cast(t, dtype)
    elif isinstance(value, (jax.Array, jax.core.Tracer)):
        t = convert_to_tensor(value, dtype=dtype)
    else:
        t = _from_python_or_numpy(value, None if dtype is None else dtypes.as_dtype(dtype))
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        if t._v.shape != shape:
            if t._v.size == 1:
                t = wrap(jnp.broadcast_to(t._value.reshape(()), shape))
            elif t._v.size == int(np.prod(shape)):
                t = wrap(t._value.reshape(shape))
            else:
                raise TypeError(
                    f"Eager execution of tf.constant with unsupported shape. Tensor "
                    f"{np.asarray(t._value)} (converted from {value!r}) has {t._v.size} "
                    "elements, but got "
                    f"`shape` {TensorShape(shape)} with {int(np.prod(shape))} elements)."
                )
    return t
