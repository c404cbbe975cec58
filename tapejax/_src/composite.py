"""``CompositeTensor``: the base of values made of several Tensors (``SparseTensor``,
``IndexedSlices``), and what the rest of tapejax needs to know about them.

A composite is a fixed tuple of component Tensors plus static facts (a dense shape known
while tracing). ``nest`` expands composites into their components where TF's
``expand_composites=True`` does (``tapejax.function``'s arguments and results), and JAX
sees them as pytrees of the same components. This module must not import any op.
"""

from __future__ import annotations

__all__ = ["CompositeTensor", "is_composite"]


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
