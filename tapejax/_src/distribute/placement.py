"""Variables that keep a ``jax.sharding.Sharding`` through every assignment.

A strategy places a Variable (replicated over its mesh, or split by a
``PartitionSpec``) by switching the object to a subclass whose ``_value`` slot goes
through a property: every concrete value written to it (``assign``, the write-back of
``tapejax.function``, a checkpoint restore) is put back on the Variable's sharding if
it arrived with another one. Traced values pass through untouched: inside a compiled
step the strategy constrains them itself. It must never copy a value that already has
the right sharding, and never change a value's contents.
"""

from __future__ import annotations

import weakref

import jax

from ..variables import Variable

__all__ = ["place", "sharding_of"]

_SLOT = Variable.__dict__["_val"]  # the slot descriptor that really holds the value
_shardings: dict = {}  # Variable id -> its Sharding; entries leave with their Variable
_classes: dict = {}  # Variable subclass -> its placed subclass


def _put(value, sharding):
    """``value`` on ``sharding``: unchanged when it is already there (or is a tracer)."""
    if not isinstance(value, jax.Array) or isinstance(value, jax.core.Tracer):
        return value
    current = value.sharding
    if current == sharding or current.is_equivalent_to(sharding, value.ndim):
        return value
    return jax.device_put(value, sharding)


class _Placed:
    """Mixed in before a Variable class: its ``_value`` stays on the recorded sharding."""

    __slots__ = ()

    @property
    def _value(self):
        return _SLOT.__get__(self)

    @_value.setter
    def _value(self, value):
        _SLOT.__set__(self, _put(value, _shardings[self._id]))

    def __deepcopy__(self, memo):
        copy = super().__deepcopy__(memo)
        return place(copy, _shardings[self._id])


def _placed_class(cls):
    placed = _classes.get(cls)
    if placed is None:
        placed = _classes[cls] = type(cls.__name__, (_Placed, cls), {"__slots__": ()})
        placed.__module__ = cls.__module__
    return placed


def place(variable, sharding):
    """Puts ``variable``'s value on ``sharding`` and keeps it there. Returns the Variable."""
    if not getattr(variable, "_is_variable", False):
        raise TypeError(f"Expected a tapejax.Variable, got {type(variable).__name__}: {variable!r}")
    value = _SLOT.__get__(variable)
    if isinstance(value, jax.core.Tracer):
        raise ValueError(
            f"Cannot place {variable!r} while a program is being traced: place (or shard) "
            "Variables eagerly, outside tapejax.function and JAX transforms."
        )
    placed = _put(value, sharding)  # first: a sharding that does not fit changes nothing
    if not isinstance(variable, _Placed):
        variable.__class__ = _placed_class(type(variable))
        weakref.finalize(variable, _shardings.pop, variable._id, None)
    _shardings[variable._id] = sharding
    _SLOT.__set__(variable, placed)
    return variable


def sharding_of(variable):
    """The sharding a placed Variable keeps, or None for an ordinary Variable."""
    return _shardings.get(variable._id) if isinstance(variable, _Placed) else None
