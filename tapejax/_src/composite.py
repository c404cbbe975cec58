"""Composite values: values made of several Tensors, which ``tapejax.function`` takes and
returns as their Tensors, as ``tf.function`` does with TF's ``CompositeTensor``s. Two
kinds:

- ``CompositeTensor`` (``SparseTensor``, ``IndexedSlices``): a fixed tuple of component
  Tensors plus static facts (a dense shape known while tracing). ``nest`` expands
  composites into their components where TF's ``expand_composites=True`` does
  (``tapejax.function``'s arguments and results), and JAX sees them as pytrees of the
  same components.
- Registered classes (``LinearOperator``), Python objects whose parts are a dict of
  tensor-like values (Tensors, Variables, other composites, lists of them) and a
  hashable static rest. ``expand`` swaps each such object in a structure for a ``Parts``
  (a dict, so ``nest`` flattens its tensors, with the static rest as one more, hashable
  leaf: a new static rest is a new trace), and ``rebuild`` swaps them back.

This module must not import any op, and never holds a composite's values.
"""

from __future__ import annotations

__all__ = [
    "CompositeTensor",
    "Parts",
    "expand",
    "has_parts",
    "is_composite",
    "is_registered",
    "rebuild",
    "register",
]


class CompositeTensor:
    """A value made of component Tensors and static facts about them.

    Subclasses define ``_components`` (the component Tensors, in TF's order),
    ``_with_components`` (the same static facts around other components, without
    validation: the components may be tracers or placeholders while a structure is
    rebuilt) and ``_static_key`` (what a compiled program depends on besides the
    components' shapes and dtypes).
    """

    __slots__ = ()

    # -- TF's graph-mode attributes, which eager composites have no use for ------------------

    def consumers(self) -> list:
        return []

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def _components(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__}._components")

    def _with_components(self, components: tuple) -> CompositeTensor:
        raise NotImplementedError(f"{type(self).__name__}._with_components")

    def _static_key(self):
        return ()

    def _with_values(self, values) -> CompositeTensor:
        """The same composite around other ``values`` (``tf.cast`` of a composite)."""
        raise NotImplementedError(f"{type(self).__name__}._with_values")

    def _gradient_components(self):
        """The Tensors TF differentiates for this composite (its ``__composite_gradient__``),
        or None where TF has none (a SparseTensor)."""
        return None

    def _to_dense(self, dtype):
        """The Tensor ``convert_to_tensor`` gives (None: not convertible, TF's ValueError)."""
        return None


def is_composite(x) -> bool:
    return isinstance(x, CompositeTensor)


# -- Registered composites ------------------------------------------------------------

# class -> (to_parts(obj) -> (static, tensors dict), from_parts(static, tensors) -> obj)
_registry: dict = {}

_STATIC = ""  # the key of the static rest in a Parts: sorts first


def register(cls, to_parts, from_parts) -> None:
    """Makes objects of exactly ``cls`` composite: ``expand`` takes them apart."""
    _registry[cls] = (to_parts, from_parts)


def is_registered(x) -> bool:
    """Whether ``x`` is of a class ``register``ed (a ``LinearOperator``)."""
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
    """``structure`` with every registered composite (in lists, tuples and dicts) taken apart; the
    structure itself when it holds none."""
    if not _any(structure, is_registered):
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
