"""``tf.register_tensor_conversion_function``: user conversions of their own types to Tensor.

TF keeps one registry of ``(base_type, function)`` by priority, its own conversions
included: Python and NumPy numbers and arrays at priority 0, lists and tuples holding
Tensors at 99 and any list or tuple at 100, Variables and IndexedSlices at 100, and every
other object at 200, each registered before any user function (so a user function at the
same priority comes after TF's). ``convert`` walks that order for the value's type, with
tapejax's own conversion standing in for TF's entries. This module must not import
conversion (conversion calls it, handing over its own conversion) and costs nothing while
no function is registered.
"""

from __future__ import annotations

import collections
import threading

import numpy as np

from . import dtypes

__all__ = ["register_tensor_conversion_function", "convert", "has_functions"]

_CONSTANT_OP_CONVERTIBLES = (int, float, np.generic, np.ndarray)
_registry: dict = collections.defaultdict(list)  # priority -> [(base_type, function)]
_cache: dict = {}
_lock = threading.Lock()
# Markers for TF's own entries in the walk (see the module docstring).
_BUILTIN, _BUILTIN_IF_NESTED_TENSORS = object(), object()


def has_functions() -> bool:
    return bool(_registry)


def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Registers ``conversion_func`` to convert instances of ``base_type`` to Tensors
    (``tf.register_tensor_conversion_function``).

    ``convert_to_tensor`` (and so every op taking the value) calls
    ``conversion_func(value, dtype=None, name=None, as_ref=False)``, which returns a
    Tensor of ``dtype`` when one is given, or ``NotImplemented`` to let the next function
    try. Functions run by ascending ``priority``, then in registration order, after
    tapejax's own conversions of the same priority (numbers and NumPy: 0; lists and
    tuples: 99 and 100; Variables, IndexedSlices: 100; any other object: 200), as in TF.

    Args:
        base_type: a type or a tuple of types.
        conversion_func: the function.
        priority: smaller runs earlier (default 100).

    Raises:
        TypeError: ``base_type`` is not a type or tuple of types, is a Python number or
            NumPy type, or ``conversion_func`` is not callable (TF's texts).

    Example:
        >>> import tapejax as tf
        >>> class Meters:
        ...     def __init__(self, v):
        ...         self.v = v
        >>> tf.register_tensor_conversion_function(
        ...     Meters, lambda value, dtype=None, name=None, as_ref=False: tf.constant(
        ...         value.v, dtype=dtype))
        >>> float(tf.add(Meters(2.0), 1.0))
        3.0
    """
    base_types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(not isinstance(x, type) for x in base_types):
        raise TypeError(
            f"Argument `base_type` must be a type or a tuple of types. Obtained: {base_type}"
        )
    if any(issubclass(x, _CONSTANT_OP_CONVERTIBLES) for x in base_types):
        raise TypeError(
            "Cannot register conversions for Python numeric types and NumPy scalars and arrays."
        )
    if not callable(conversion_func):
        raise TypeError(f"Argument `conversion_func` must be callable. Received {conversion_func}.")
    with _lock:
        _registry[priority].append((base_type, conversion_func))
        _cache.clear()


def _builtin_entries(cls) -> list:
    """TF's own entries for ``cls``: ``(priority, marker)``."""
    if issubclass(cls, _CONSTANT_OP_CONVERTIBLES):
        return [(0, _BUILTIN)]
    if issubclass(cls, (list, tuple)):
        return [(99, _BUILTIN_IF_NESTED_TENSORS), (100, _BUILTIN)]
    from .indexed_slices import IndexedSlices  # imports conversion, which imports this

    if getattr(cls, "_is_variable", False) or issubclass(cls, IndexedSlices):
        return [(100, _BUILTIN)]
    return [(200, _BUILTIN)]


def _functions(cls) -> list:
    """``(base_type, function or marker)`` for ``cls``, in the order TF tries them."""
    found = _cache.get(cls)
    if found is None:
        with _lock:
            entries = [(p, 0, i, None, m) for i, (p, m) in enumerate(_builtin_entries(cls))]
            for priority, funcs in _registry.items():
                entries += [
                    (priority, 1, i, base, f)
                    for i, (base, f) in enumerate(funcs)
                    if issubclass(cls, base)
                ]
            found = _cache[cls] = [(base, f) for *_, base, f in sorted(entries, key=_order)]
    return found


def _order(entry):
    return entry[:3]


def _prefix(msg: str, name) -> str:
    return msg if name is None else f"{name}: {msg}"


def convert(value, dtype, dtype_hint, name, builtin, contains_tensor):
    """``value`` converted as TF's registry does (see the module docstring).

    ``builtin(value)`` is tapejax's own conversion; ``contains_tensor(value)`` says
    whether a list or tuple holds Tensors.
    """
    preferred = None if dtype_hint is None else dtypes.as_dtype(dtype_hint)
    from .tensor import Tensor

    for base, func in _functions(type(value)):
        if func is _BUILTIN:
            return builtin(value)
        if func is _BUILTIN_IF_NESTED_TENSORS:
            if contains_tensor(value):
                return builtin(value)
            continue
        ret = None
        if dtype is None and preferred is not None:
            try:
                ret = func(value, dtype=preferred, name=name, as_ref=False)
            except (TypeError, ValueError):
                ret = None
            else:
                if ret is not NotImplemented and ret.dtype.base_dtype != preferred.base_dtype:
                    raise RuntimeError(
                        _prefix(
                            f"Conversion function {func!r} for type {base} returned "
                            f"incompatible dtype: requested = {preferred.base_dtype.name}, "
                            f"actual = {ret.dtype.base_dtype.name}",
                            name,
                        )
                    )
        if ret is None:
            ret = func(value, dtype=dtype, name=name, as_ref=False)
        if ret is NotImplemented:
            continue
        if not isinstance(ret, Tensor):
            raise RuntimeError(
                _prefix(
                    f"Conversion function {func!r} for type {base} returned non-Tensor: {ret!r}",
                    name,
                )
            )
        if dtype and not dtype.is_compatible_with(ret.dtype):
            raise RuntimeError(
                _prefix(
                    f"Conversion function {func} for type {base} returned incompatible "
                    f"dtype: requested = {dtype.name}, actual = {ret.dtype.name}",
                    name,
                )
            )
        return ret
    # Not reached while every type has tapejax's own conversion as its last entry.
    raise TypeError(
        _prefix(
            f"Cannot convert {value!r} with type {type(value)} to Tensor: no conversion "
            "function registered.",
            name,
        )
    )
