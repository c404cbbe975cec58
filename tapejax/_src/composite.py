"""Composite values: Python objects built from Tensors (a ``LinearOperator``) that
``tapejax.function`` takes and returns as their parts, as ``tf.function`` does with TF's
``CompositeTensor``s.

A registered class gives its object's parts: a dict of tensor-like values (Tensors,
Variables, other composites, lists of them) and a hashable static rest. ``expand`` swaps
each composite in a structure for a ``Parts`` (a dict, so ``nest`` flattens its tensors,
with the static rest as one more, hashable leaf: a new static rest is a new trace), and
``rebuild`` swaps them back. This module must never hold a composite's values.
"""

from __future__ import annotations

__all__ = ["register", "is_composite", "expand", "rebuild", "has_parts", "Parts"]

# class -> (to_parts(obj) -> (static, tensors dict), from_parts(static, tensors) -> obj)
_registry: dict = {}

_STATIC = ""  # the key of the static rest in a Parts: sorts first


def register(cls, to_parts, from_parts) -> None:
    """Makes objects of exactly ``cls`` composite."""
    _registry[cls] = (to_parts, from_parts)


def is_composite(x) -> bool:
    return type(x) in _registry


class Parts(dict):
    """A composite taken apart: its tensor parts by name, and its class and static rest
    under the key ``""``."""


def _any(structure, test) -> bool:
    if test(structure):
        return True
    if isinstance(structure, (list, tuple)):
        return any(_any(x, test) for x in structure)
    if isinstance(structure, dict):
        return any(_any(v, test) for v in structure.values())
    return False


def has_parts(structure) -> bool:
    """Whether ``expand`` took a composite apart somewhere in ``structure``."""
    return _any(structure, lambda x: type(x) is Parts)


def expand(structure):
    """``structure`` with every composite (in lists, tuples and dicts) taken apart; the
    structure itself when it holds none."""
    if not _any(structure, is_composite):
        return structure
    if type(structure) in _registry:
        to_parts, _ = _registry[type(structure)]
        static, tensors = to_parts(structure)
        parts = Parts({name: expand(value) for name, value in tensors.items()})
        parts[_STATIC] = (type(structure), static)
        return parts
    if isinstance(structure, list):
        return [expand(x) for x in structure]
    if isinstance(structure, tuple):
        items = [expand(x) for x in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if isinstance(structure, dict) and type(structure) is not Parts:
        return type(structure)((k, expand(v)) for k, v in structure.items())
    return structure


def rebuild(structure):
    """The inverse of ``expand``: composites made anew from their parts."""
    if not has_parts(structure):
        return structure
    if type(structure) is Parts:
        cls, static = structure[_STATIC]
        tensors = {k: rebuild(v) for k, v in structure.items() if k != _STATIC}
        return _registry[cls][1](static, tensors)
    if isinstance(structure, list):
        return [rebuild(x) for x in structure]
    if isinstance(structure, tuple):
        items = [rebuild(x) for x in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if isinstance(structure, dict):
        return type(structure)((k, rebuild(v)) for k, v in structure.items())
    return structure
