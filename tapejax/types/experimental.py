"""``tf.types.experimental``: TF's function protocol classes, tracing protocol and
``TensorLike``.

``tapejax.function``'s results are ``PolymorphicFunction``s and their
``get_concrete_function`` results ``ConcreteFunction``s, as TF's are. ``TensorLike``
lists tapejax's classes where TF's lists its own. ``distributed`` (TF's ``PerReplica``
and ``Mirrored`` value types) is not provided: ``tapejax.distribute`` works in global
view and never hands out per-replica values. See ``docs/compat.md``, "``tapejax.compat``
and ``tapejax.types``".
"""

from tapejax._src.api_types import (
    AtomicFunction,
    Callable,
    ConcreteFunction,
    FunctionType,
    GenericFunction,
    PolymorphicFunction,
    SupportsTracingProtocol,
    TensorLike,
    TraceType,
)
from tapejax._src.compat import NamespaceNotProvidedError as _NamespaceNotProvidedError


def __getattr__(name):
    if name == "distributed":
        raise _NamespaceNotProvidedError(
            "tf.types.experimental.distributed (the PerReplica and Mirrored value types) is "
            "not provided by tapejax: tapejax.distribute runs a step in global view, and "
            "strategy.run returns what the step returns, never per-replica values."
        )
    raise AttributeError(f"module 'tapejax.types.experimental' has no attribute {name!r}")


__all__ = [
    "AtomicFunction",
    "Callable",
    "ConcreteFunction",
    "FunctionType",
    "GenericFunction",
    "PolymorphicFunction",
    "SupportsTracingProtocol",
    "TensorLike",
    "TraceType",
]
