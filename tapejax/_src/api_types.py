"""The abstract types of ``tf.types.experimental``, for annotations and ``isinstance``.

Ported from TF 2.21's ``python/types/core.py`` and ``python/types/trace.py``: the function
protocol classes (``Callable``, ``PolymorphicFunction``, ``ConcreteFunction``,
``AtomicFunction``, ``FunctionType``), the tracing protocol (``TraceType``,
``SupportsTracingProtocol``) and ``TensorLike``. tapejax's ``Function`` and
``ConcreteFunction`` (``function.py``) are registered as virtual subclasses of TF's
counterparts here, so ``isinstance`` answers as TF's does without either class taking on
the abstract methods. Nothing here may change how tapejax computes: these are types only.
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, Union, runtime_checkable

import jax
import numpy as np

from . import function
from .tensor import Tensor
from .variables import Variable

__all__ = [
    "AtomicFunction",
    "Callable",
    "ConcreteFunction",
    "FunctionType",
    "GenericFunction",
    "PolymorphicFunction",
    "SupportsJaxArray",
    "SupportsTracingProtocol",
    "TensorLike",
    "TraceType",
]


class FunctionType(inspect.Signature, metaclass=abc.ABCMeta):
    """The type of a callable: an ``inspect.Signature`` (``tf.types.experimental.FunctionType``).

    Example:
        >>> import tapejax as tf
        >>> str(tf.types.experimental.FunctionType.from_callable(lambda x, y=1: x))
        '(x, y=1)'
    """

    # The signature of this method changed in Python 3.10; TF pins it.
    @classmethod
    def from_callable(cls, obj, *, follow_wrapped=True):
        return super().from_callable(obj, follow_wrapped=follow_wrapped)


class Callable(metaclass=abc.ABCMeta):
    """Base class of TF callables such as ``tf.function``'s results
    (``tf.types.experimental.Callable``)."""

    @property
    @abc.abstractmethod
    def function_type(self) -> FunctionType:
        """A ``FunctionType`` describing this callable."""

    def __call__(self, *args, **kwargs):  # noqa: B027 - TF's: not abstract
        """Executes this callable."""


class AtomicFunction(Callable):
    """Base class of single graph functions (``tf.types.experimental.AtomicFunction``).

    tapejax has no object of this type: its traced programs are JAX's.
    """

    def call_with_captures(self, args, kwargs, captures):
        """Calls this function with the captures its ``FunctionType`` defines."""


class ConcreteFunction(Callable, metaclass=abc.ABCMeta):
    """Base class of one traced signature of a function
    (``tf.types.experimental.ConcreteFunction``); ``get_concrete_function`` returns one.

    Example:
        >>> import tapejax as tf
        >>> f = tf.function(lambda x: x + 1)
        >>> c = f.get_concrete_function(tf.constant(1.0))
        >>> isinstance(c, tf.types.experimental.ConcreteFunction)
        True
    """

    @property
    @abc.abstractmethod
    def inference_fn(self) -> AtomicFunction:
        """The ``AtomicFunction`` this function owns."""


class PolymorphicFunction(Callable, metaclass=abc.ABCMeta):
    """Base class of functions traced once per input signature, such as
    ``tapejax.function``'s results (``tf.types.experimental.PolymorphicFunction``, also
    named ``GenericFunction``).

    Example:
        >>> import tapejax as tf
        >>> isinstance(tf.function(lambda x: x), tf.types.experimental.PolymorphicFunction)
        True
    """

    @abc.abstractmethod
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """A ``ConcreteFunction`` specialized to the types of these arguments."""

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """The compiler IR of the function compiled for these arguments."""


GenericFunction = PolymorphicFunction  # TF's deprecated name of the same class

PolymorphicFunction.register(function.Function)
ConcreteFunction.register(function.ConcreteFunction)


class PlaceholderContext:
    """Context for making placeholders within a scope (TF's ``trace.PlaceholderContext``)."""


class TracingContext:
    """Information shared by the ``__tf_tracing_type__`` calls of one signature."""


class TraceType(metaclass=abc.ABCMeta):
    """The type of an object for tracing purposes (``tf.types.experimental.TraceType``).

    .. warning:: ``tapejax.function`` does not consult ``__tf_tracing_type__``: a
       non-tensor argument retraces on a new value (its ``==``/``hash``), as it does for
       Python numbers; this class serves annotations and ``isinstance``.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other: TraceType) -> bool:
        """Whether ``self`` is a subtype of ``other``."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: Sequence[TraceType]) -> TraceType | None:
        """The most specific supertype of ``self`` and ``others``, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context) -> Any:
        """The value to trace with in place of the actual argument."""

    def to_tensors(self, value: Any) -> list:
        """The Tensors a value of this type breaks down into (none, by default)."""
        del value
        return []

    def from_tensors(self, tensors: Iterator) -> Any:
        """A value of this type made from ``tensors`` (the placeholder, by default)."""
        del tensors
        return self.placeholder_value(PlaceholderContext())

    def flatten(self) -> list[TraceType]:
        """The types of the ``to_tensors`` values (none, by default)."""
        return []

    def cast(self, value, cast_context) -> Any:
        """``value`` as this type; by default it must equal the placeholder value.

        Raises:
            AssertionError: it does not (TF's text).
        """
        del cast_context
        if not value == self.placeholder_value(PlaceholderContext()):
            raise AssertionError(f"Can not cast {value!r} to type {self!r}")
        return value

    @abc.abstractmethod
    def __hash__(self) -> int:
        pass

    @abc.abstractmethod
    def __eq__(self, other) -> bool:
        pass


@runtime_checkable
class SupportsTracingProtocol(Protocol):
    """An object that gives its own ``TraceType`` (``tf.types.experimental.SupportsTracingProtocol``).

    .. warning:: ``tapejax.function`` does not call ``__tf_tracing_type__`` (see
       ``TraceType``), and its ``Function`` objects have none, so they are not instances
       (TF's are).
    """

    def __tf_tracing_type__(self, context: TracingContext) -> TraceType:
        """The tracing type of this object."""


@runtime_checkable
class SupportsJaxArray(Protocol):
    """An object ``tapejax.convert_to_tensor`` converts through its ``__jax_array__``; in
    ``TensorLike`` it takes the place of TF's ``TensorProtocol`` (``__tf_tensor__``), which
    tapejax does not call."""

    def __jax_array__(self):
        """The object's value as a JAX array."""


# TF's union, with tapejax's Tensor and Variable for TF's tensor base class (which TF's
# variables subclass), tapejax's conversion protocol for TF's, and jax.Array added.
TensorLike = Union[  # noqa: UP007 - an alias of typing.Union, as TF's is
    Tensor,
    Variable,
    SupportsJaxArray,
    int,
    float,
    bool,
    str,
    bytes,
    complex,
    tuple,
    list,
    np.ndarray,
    np.generic,
    jax.Array,
]
