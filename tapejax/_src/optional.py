"""``tf.experimental.Optional`` (a value that may be missing) and its spec
``tf.OptionalSpec``.

An Optional holds a tf.data-style structure (tuples, namedtuples and dicts nest; a list
is one tensor) of dense Tensors, or nothing. Whether it holds a value is a static fact
here, not a tensor computed at run time as in TF: an Optional passed into a
``tapejax.function`` is traced once per (has a value, element structure). This module
never computes with the values it holds.
"""

from __future__ import annotations

import collections.abc

from .composite import CompositeTensor
from .conversion import constant
from .data import structure
from .errors import InvalidArgumentError
from .tensor_spec import TypeSpec
from .type_spec import _SerializedSpec

__all__ = ["Optional", "OptionalSpec"]


def _structure_key(spec):
    """A hashable key naming ``spec``'s nesting and leaf specs."""
    if isinstance(spec, tuple):
        return (type(spec).__name__, tuple(_structure_key(s) for s in spec))
    if isinstance(spec, collections.abc.Mapping):
        return ("dict", tuple((k, _structure_key(spec[k])) for k in sorted(spec)))
    return spec


class Optional(CompositeTensor):
    """A value that may be missing (``tf.experimental.Optional``).

    Made by ``Optional.from_value`` or ``Optional.empty``; the class itself is abstract,
    as TF's.

    Example:
        >>> import tapejax as tf
        >>> o = tf.experimental.Optional.from_value({"a": tf.constant(1.0)})
        >>> bool(o.has_value()), o.get_value()["a"].numpy()
        (True, np.float32(1.0))

    .. warning::
        Differences from TF: components must be dense Tensors (no SparseTensor, string or
        nested Optional components); whether an Optional holds a value is known while
        tracing, so ``get_value`` of an empty Optional inside a ``tapejax.function``
        raises while tracing rather than when the program runs.
    """

    __slots__ = ()

    def __init__(self):
        if type(self) is Optional:
            raise TypeError(
                "Can't instantiate abstract class Optional with abstract methods "
                "_type_spec, element_spec, get_value, has_value"
            )

    @staticmethod
    def from_value(value) -> Optional:
        """An Optional holding ``value``, a structure of tensors and tensor-likes.

        Raises:
            InvalidArgumentError: ``value`` has no components (TF's text).
        """
        if all(leaf is None for leaf in structure.flatten(value)):
            raise InvalidArgumentError(
                None,
                None,
                "Length for attr 'Toutput_types' of 0 must be at least minimum 1\n\t; "
                "NodeDef: {{node OptionalFromValue}}; Op<name=OptionalFromValue; "
                "signature=components: -> optional:variant; "
                "attr=Toutput_types:list(type),min=1> [Op:OptionalFromValue] name: ",
            )
        value = structure.normalize(value)
        return _OptionalImpl(True, tuple(structure.flatten(value)), structure.spec_of(value))

    @staticmethod
    def empty(element_spec) -> Optional:
        """An Optional holding no value, whose value would have ``element_spec``."""
        return _OptionalImpl(False, (), element_spec)


class _OptionalImpl(Optional):
    __slots__ = ("_has_value", "_flat", "_element_spec")

    def __init__(self, has_value: bool, flat: tuple, element_spec):
        self._has_value = has_value
        self._flat = flat
        self._element_spec = element_spec

    @property
    def element_spec(self):
        """The structure of ``TensorSpec``s the value has (or would have)."""
        return self._element_spec

    def has_value(self, name=None):
        """Whether this Optional holds a value: a scalar bool Tensor."""
        return constant(self._has_value)

    def get_value(self, name=None):
        """The value held.

        Raises:
            InvalidArgumentError: the Optional is empty (TF's text).
        """
        if not self._has_value:
            raise InvalidArgumentError(
                None,
                None,
                "The given optional does not have a value. [Op:OptionalGetValue] name: ",
            )
        return structure.pack(self._element_spec, self._flat)

    @property
    def _type_spec(self) -> OptionalSpec:
        return OptionalSpec(self._element_spec)

    def _components(self) -> tuple:
        return self._flat

    def _with_components(self, components: tuple) -> _OptionalImpl:
        return _OptionalImpl(self._has_value, tuple(components), self._element_spec)

    def _static_key(self):
        return (self._has_value, _structure_key(self._element_spec))


class OptionalSpec(_SerializedSpec):
    """The type of an Optional (``tf.OptionalSpec``).

    Args:
        element_spec: the structure of ``TensorSpec``s of the value.

    Example:
        >>> import tapejax as tf
        >>> tf.OptionalSpec(tf.TensorSpec([2], tf.int32))
        OptionalSpec(TensorSpec(shape=(2,), dtype=tf.int32, name=None),)
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return _OptionalImpl

    @staticmethod
    def from_value(value) -> OptionalSpec:
        """The spec of an Optional (TF reads ``value.element_spec``)."""
        return OptionalSpec(value.element_spec)

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    def __hash__(self) -> int:
        return hash(("OptionalSpec", _structure_key(self._element_spec)))

    def is_compatible_with(self, spec_or_value) -> bool:
        """TF's rule: an OptionalSpec whose element specs are compatible leaf by leaf."""
        other = spec_or_value
        if isinstance(other, Optional):
            other = other._type_spec
        if not isinstance(other, OptionalSpec):
            return False
        mine, theirs = self._element_spec, other._element_spec
        if not structure.same_structure(mine, theirs):
            return False
        return all(
            a.is_compatible_with(b) if isinstance(a, TypeSpec) else a == b
            for a, b in zip(structure.flatten(mine), structure.flatten(theirs), strict=True)
        )
