"""``Variable``, the only mutable state, and TF's name scopes.

A Variable holds a JAX array. Every *read* (``value()``, use in an op) makes a fresh
Tensor and tells the active recorders, which is how tapes watch trainable variables
and why the gradient w.r.t. a Variable is the sum over its reads. Assignments replace
the array and are never differentiable. This module must not import ops.
"""

from __future__ import annotations

import contextlib
import enum
import threading

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes, recorder
from .tensor import Tensor, _next_id, convert_to_tensor, wrap
from .tensor_shape import TensorShape

__all__ = ["Variable", "name_scope", "VariableSynchronization", "VariableAggregation"]

_state = recorder._state


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class _Scopes(threading.local):
    def __init__(self):
        self.stack: list = []


_scopes = _Scopes()


class name_scope:  # noqa: N801 - TF's name
    """A context manager that prefixes the names of Variables created inside (``tf.name_scope``)."""

    def __init__(self, name: str):
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        _scopes.stack.append(self._name.rstrip("/"))
        return "/".join(_scopes.stack) + "/"

    def __exit__(self, *exc):
        _scopes.stack.pop()


def _scoped(name: str) -> str:
    return "/".join(_scopes.stack + [name]) if _scopes.stack else name


@jax.jit
def _add(a, b):
    return a + b


@jax.jit
def _sub(a, b):
    return a - b


class Variable:
    """A mutable tensor-valued variable (``tf.Variable``), usable wherever a Tensor is.

    Example:
        >>> import tapejax as tf
        >>> v = tf.Variable(1.0)
        >>> with tf.GradientTape() as tape:
        ...     y = v * v
        >>> float(tape.gradient(y, v)), v.assign_sub(0.5).numpy()
        (2.0, np.float32(0.5))
    """

    _is_variable = True
    __array_priority__ = 100
    __slots__ = ("_value", "_id", "_trainable", "_name", "__weakref__")

    def __init__(
        self,
        initial_value=None,
        trainable=None,
        validate_shape=True,
        caching_device=None,
        name=None,
        variable_def=None,
        dtype=None,
        import_scope=None,
        constraint=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
        shape=None,
        experimental_enable_variable_lifting=True,
    ):
        if initial_value is None:
            raise ValueError("The `initial_value` arg (`None`) must be specified.")
        if callable(initial_value):
            initial_value = initial_value()
        with recorder.paused():  # creating a variable is not a read of anything
            value = convert_to_tensor(initial_value, dtype=dtype)._value
        if shape is not None and validate_shape:
            if not TensorShape(shape).is_compatible_with(value.shape):
                raise ValueError(
                    f"In this `tf.Variable` creation, the initial value's shape "
                    f"({TensorShape(value.shape)}) is not compatible with the explicitly "
                    f"supplied `shape` argument ({TensorShape(shape)})."
                )
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        self._value = value
        self._id = _next_id()
        self._trainable = bool(trainable)
        self._name = _scoped(name or "Variable") + ":0"

    # -- reads -------------------------------------------------------------------------

    def _dense_read(self, dtype=None) -> Tensor:
        if dtype is not None and dtypes.as_dtype(dtype) != self.dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for "
                f"variable with dtype {self.dtype.name}: {self!r}"
            )
        t = wrap(self._value)
        recs = _state.recorders
        if recs:
            for r in recs:
                r.variable_read(self, t)
        return t

    def value(self) -> Tensor:
        return self._dense_read()

    def read_value(self) -> Tensor:
        return self._dense_read()

    def numpy(self):
        value = np.array(self._value)
        return value[()] if value.ndim == 0 else value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __jax_array__(self):
        return self._value

    # -- properties --------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_array_dtype(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def device(self) -> str:
        return wrap(self._value).device

    @property
    def synchronization(self):
        return VariableSynchronization.AUTO

    @property
    def aggregation(self):
        return VariableAggregation.NONE

    def get_shape(self) -> TensorShape:
        return self.shape

    def ref(self):
        return _VariableRef(self)

    def experimental_ref(self):
        return self.ref()

    # -- assignment (never differentiable) -------------------------------------------------

    def _accessed(self):
        recs = _state.recorders
        if recs:
            for r in recs:
                r.variable_accessed(self)

    def _coerce(self, value):
        if isinstance(value, (int, float, bool)) and not isinstance(value, np.generic):
            if isinstance(value, float) and not self.dtype.is_differentiable:
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {self.dtype.name}")
            return value
        with recorder.paused():
            return convert_to_tensor(value, dtype=self.dtype)._value

    def _check_shape(self, new):
        if tuple(jnp.shape(new)) != self._value.shape:
            raise ValueError(
                f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable "
                f"shape {self.shape}, and the assigned value shape {TensorShape(jnp.shape(new))} "
                "are incompatible."
            )

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replaces the value. Returns the variable (``None`` if ``read_value=False``)."""
        new = self._coerce(value)
        if isinstance(new, (int, float, bool)):
            new = jnp.full(self._value.shape, new, self._value.dtype)
        self._check_shape(new)
        self._accessed()
        self._value = new
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` in place. Returns the variable."""
        d = self._coerce(delta)
        new = _add(self._value, d)
        self._check_shape(new)
        self._accessed()
        self._value = new
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` in place. Returns the variable."""
        d = self._coerce(delta)
        new = _sub(self._value, d)
        self._check_shape(new)
        self._accessed()
        self._value = new
        return self if read_value else None

    # -- Python protocol -----------------------------------------------------------------

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

    def __bool__(self) -> bool:
        return bool(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __index__(self) -> int:
        return self.value().__index__()

    def __len__(self) -> int:
        return self.value().__len__()

    def __iter__(self):
        return self.value().__iter__()

    def __repr__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name} (traced)>"
        value = np.asarray(self._value)
        shown = np.array_repr(value) if value.ndim else str(value)
        return (
            f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={shown}>"
        )

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        v = Variable(np.array(self._value), trainable=self._trainable, name=self._name[:-2])
        return v


class _VariableRef:
    __slots__ = ("_var",)

    def __init__(self, var):
        self._var = var

    def deref(self):
        return self._var

    def __hash__(self):
        return self._var._id

    def __eq__(self, other):
        return isinstance(other, _VariableRef) and other._var is self._var
