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

from . import dtypes, lazy, recorder
from .conversion import convert_to_tensor
from .dispatch import Op
from .tensor import Pending, Tensor, _next_id, numpy_text, wrap
from .tensor_shape import TensorShape

__all__ = [
    "Variable",
    "name_scope",
    "VariableSynchronization",
    "VariableAggregation",
    "variable_creator_scope",
]

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
        # TF eager's ``scope_name``: "" at the top, else the full scope ending in "/".
        self.current: str = ""


_scopes = _Scopes()

# Called with each new Variable: how ``tapejax.function`` refuses creation after its
# first call, as TF does.
_creation_hooks: list = []


class _Creation(threading.local):
    def __init__(self):
        # True while ``library_variable`` makes its Variable: no creation hook runs.
        self.by_library = False


_creation = _Creation()


class _Creators(threading.local):
    def __init__(self):
        # The creators of the enclosing ``variable_creator_scope``s, outermost first.
        self.stack: list = []


_creators = _Creators()


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Routes ``Variable(...)`` calls in the block through ``variable_creator``
    (``tf.variable_creator_scope``).

    ``variable_creator(next_creator, **kwargs)`` gets TF's keyword arguments
    (``initial_value``, ``trainable``, ``validate_shape``, ``caching_device``, ``name``,
    ``variable_def``, ``dtype``, ``import_scope``, ``constraint``, ``synchronization``,
    ``aggregation``, ``shape``, ``experimental_enable_variable_lifting``) and returns what
    ``Variable(...)`` returns: usually ``next_creator(**kwargs)``, possibly with changed
    arguments. The innermost scope's creator runs first; the last ``next_creator`` makes
    the Variable.

    .. warning:: Variables tapejax makes for its own state (a random generator's key)
       do not pass through creators; in TF they do.

    Raises:
        RuntimeError: scopes exited out of order (TF's text).

    Example:
        >>> import tapejax as tf
        >>> def frozen(next_creator, **kwargs):
        ...     return next_creator(**{**kwargs, "trainable": False})
        >>> with tf.variable_creator_scope(frozen):
        ...     v = tf.Variable(1.0)
        >>> v.trainable
        False
    """
    old = _creators.stack
    new = [*old, variable_creator]
    _creators.stack = new
    try:
        yield
    finally:
        if _creators.stack is not new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        _creators.stack = old


def _make_getter(creator, previous):
    def getter(**kwargs):
        return creator(previous, **kwargs)

    return getter


class _VariableMeta(type):
    """``Variable(...)`` goes through the active creators first, as TF's metaclass does."""

    def __call__(cls, *args, **kwargs):
        if cls is not Variable or not _creators.stack or _creation.by_library:
            return super().__call__(*args, **kwargs)
        return _call_creators(*args, **kwargs)


_CREATOR_ARGS = (
    "initial_value",
    "trainable",
    "validate_shape",
    "caching_device",
    "name",
    "variable_def",
    "dtype",
    "import_scope",
    "constraint",
    "synchronization",
    "aggregation",
    "shape",
    "experimental_enable_variable_lifting",
)


def _call_creators(
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
    experimental_enable_variable_lifting=None,
    **kwargs,
):
    def create(**kws):
        # As TF's default creator: the arguments it knows, others ignored.
        return type.__call__(Variable, **{k: kws[k] for k in _CREATOR_ARGS if k in kws})

    getter = create
    for creator in _creators.stack:
        getter = _make_getter(creator, getter)
    return getter(
        initial_value=initial_value,
        trainable=trainable,
        validate_shape=validate_shape,
        caching_device=caching_device,
        name=name,
        variable_def=variable_def,
        dtype=dtype,
        import_scope=import_scope,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=VariableAggregation.NONE if aggregation is None else aggregation,
        shape=shape,
        experimental_enable_variable_lifting=experimental_enable_variable_lifting,
        **kwargs,
    )


class name_scope:  # noqa: N801 - TF's name
    """A context manager that prefixes the names of Variables created inside (``tf.name_scope``).

    As TF 2: a name ending in "/" is an absolute scope (re-entering a scope returned by
    ``__enter__``), and "" returns to the top level.
    """

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._saved: list = []

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        old = _scopes.current
        name = self._name
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = old + name + "/"
        self._saved.append(old)
        _scopes.current = scope
        return scope

    def __exit__(self, *exc):
        _scopes.current = self._saved.pop()


def _scoped(name: str) -> str:
    """A Variable's full name, as TF's ``name_scope(name, "Variable")`` builds it in eager."""
    if not name:
        return ""
    if name.endswith("/"):  # absolute, as a name scope ending in "/"
        return name[:-1]
    return _scopes.current + name


@jax.jit
def _add(a, b):
    return a + b


@jax.jit
def _sub(a, b):
    return a - b


# The updates as ops, for ``Variable._deferred``.
_update_ops = {
    _add: Op("AssignAddVariableOp", jnp.add),
    _sub: Op("AssignSubVariableOp", jnp.subtract),
}


class Variable(metaclass=_VariableMeta):
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
    __slots__ = (
        "_val",
        "_id",
        "_trainable",
        "_name",
        "_shape",
        "_constraint",
        "_synchronization",
        "_aggregation",
        "__weakref__",
    )

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
            raise ValueError(
                "The `initial_value` arg to `tf.Variable` must be specified except when you "
                "are not providing a `variable_def`. You provided neither."
            )
        if constraint is not None and not callable(constraint):
            raise ValueError(
                f"Argument `constraint` must be None or a callable. a callable. Got a "
                f"{type(constraint)}:  {constraint}"
            )
        if callable(initial_value):
            initial_value = initial_value()
        with recorder.paused():  # creating a variable is not a read of anything
            try:
                value = convert_to_tensor(initial_value, dtype=dtype)._value
            except ValueError as e:
                if str(e).startswith("Tensor conversion requested"):
                    raise ValueError(f"initial_value: {e}") from None
                raise
        declared = None
        if shape is not None:
            declared = TensorShape(shape)
            if not declared.is_compatible_with(value.shape):
                raise ValueError(
                    f"In this `tf.Variable` creation, the initial value's shape "
                    f"({TensorShape(value.shape)}) is not compatible with the explicitly "
                    f"supplied `shape` argument ({shape})."
                )
            if declared.is_fully_defined():
                declared = None  # the value's own shape says it all
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        self._value = value
        self._id = _next_id()
        self._trainable = bool(trainable)
        # A partially known ``shape`` is kept: it is the variable's shape, and assignments
        # may change the value's shape within it (as in TF).
        self._shape = declared
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._name = _scoped("Variable" if name is None else name) + ":0"
        if not _creation.by_library:
            for hook in tuple(_creation_hooks):
                hook(self)

    # -- reads -------------------------------------------------------------------------

    def _dense_read(self, dtype=None) -> Tensor:
        if dtype is not None and dtypes.as_dtype(dtype) != self.dtype:
            raise ValueError(
                f"Incompatible type conversion requested to type {dtypes.as_dtype(dtype).name} "
                f"for `tf.Variable of type {self.dtype.name}. (Variable: {self!r})"
            )
        t = wrap(self._value)
        recs = _state.recorders
        if recs:
            for r in recs:
                r.variable_read(self, t)
        return t

    # ``_val`` holds the array (or tracer), or a ``Pending`` when an update was deferred
    # with the gradient it applies (``lazy.record_after``); ``_value`` computes it on read,
    # and ``_v`` (shape and dtype only) takes Tensors and Variables alike.
    @property
    def _value(self):
        v = self._val
        if type(v) is Pending:
            v = self._val = v.value()
        return v

    @_value.setter
    def _value(self, value):
        self._val = value

    @property
    def _v(self):
        return self._val

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
        return dtypes.from_array_dtype(self._val.dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape if self._shape is not None else TensorShape(self._val.shape)

    @property
    def ndim(self) -> int:
        return len(self._val.shape)

    @property
    def device(self) -> str:
        return wrap(self._value).device

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def constraint(self):
        return self._constraint

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
        kind = self._val.dtype.kind
        # Python scalars stay raw (weakly typed) when TF would convert them exactly.
        if type(value) is bool or (
            type(value) is int and kind != "b" and -(2**31) <= value < 2**31
        ):
            return value
        if type(value) is float and kind in "fc":
            return value
        with recorder.paused():
            return convert_to_tensor(value, dtype=self.dtype)._value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replaces the value. Returns the variable (``None`` if ``read_value=False``).

        The value must have the variable's shape (TF's ValueError otherwise); a Python
        scalar is not broadcast.
        """
        new = self._coerce(value)
        if isinstance(new, (int, float, bool)):
            new = jnp.asarray(new, self._val.dtype)
        new_shape = tuple(jnp.shape(new))
        if not self.shape.is_compatible_with(new_shape):
            raise ValueError(
                f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable "
                f"shape {self.shape}, and the assigned value shape {TensorShape(new_shape)} "
                "are incompatible."
            )
        self._accessed()
        self._value = new
        return self if read_value else None

    def _update(self, delta, fn, op_name: str):
        if type(delta) is Tensor and delta._v.dtype == self._val.dtype:
            if type(delta._v) is Pending and type(self) is Variable and self._deferred(delta, fn):
                return
            d = delta._value  # the optimizer-step fast path: no conversion needed
            d_shape = d.shape
        else:
            d = self._coerce(delta)
            d_shape = tuple(jnp.shape(d))
        if d_shape != self._val.shape:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError(
                None,
                None,
                f"Cannot update variable with shape [{','.join(map(str, self._val.shape))}] "
                f"using a Tensor with shape [{','.join(map(str, d_shape))}], shapes must be "
                f"equal. [Op:{op_name}]",
            )
        self._accessed()
        self._value = fn(self._value, d)

    def _deferred(self, delta, fn) -> bool:
        """Defers the update with the gradient ``delta`` is pending on; False if it can't."""
        if delta._v.shape != self._val.shape:
            return False  # the eager path raises TF's error
        out = lazy.record_after(_update_ops[fn], (), (wrap(self._val), delta))
        if out is None:
            return False
        self._accessed()
        self._val = out._v
        return True

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` (of the variable's exact shape) in place. Returns the variable."""
        self._update(delta, _add, "AssignAddVariableOp")
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` (of the variable's exact shape) in place. Returns the variable."""
        self._update(delta, _sub, "AssignSubVariableOp")
        return self if read_value else None

    # -- Python protocol -----------------------------------------------------------------

    def __hash__(self):
        raise TypeError(
            f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self})"
        )

    # Through the read value, as TF's: same conversions and errors as a Tensor's. A TF
    # Variable has no ``len()`` and no ``__index__`` (TypeError), so none are defined here.
    def __bool__(self) -> bool:
        return wrap(self._value).__bool__()

    def __float__(self) -> float:
        return wrap(self._value).__float__()

    def __int__(self) -> int:
        return wrap(self._value).__int__()

    def __iter__(self):
        return self.value().__iter__()

    def __repr__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return (
                f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name} (traced)>"
            )
        return (
            f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={numpy_text(self._value, is_repr=True)}>"
        )

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        v = Variable(np.array(self._value), trainable=self._trainable, name=self._name[:-2])
        v._shape = self._shape
        return v


def library_variable(value, name: str) -> Variable:
    """A non-trainable Variable holding tapejax's own state (a random stream's key).

    It is ``Variable(value, trainable=False, name=name)``, made wherever the library
    needs it:

    - no creation hook runs. ``tapejax.function`` does not refuse it in a trace after
      the first call (its first read there makes the trace start over with it bound, as
      for any Variable met late, so later calls carry it as state, never as a constant);
      a control-flow body does not refuse it; and no ``MirroredStrategy`` scope adopts
      it: library state is shared by every strategy and by code outside them, so pinning
      it to the mesh of whichever scope happened to be open would make its placement
      depend on call order.
    - its value is concrete even when it is made during a JAX trace.

    Args:
      value: the initial value: concrete (a NumPy array, a Python number, a
        ``jax.Array``, an eager Tensor), or a callable returning one.
      name: the name, inside the current name scope as a Variable's.

    Returns:
      The new Variable.

    Raises:
      ValueError: ``value`` is traced (library state must not capture a tracer).

    Example:
        >>> import numpy as np
        >>> from tapejax._src.variables import library_variable
        >>> v = library_variable(np.zeros(2, np.uint32), "rng_state")
        >>> v.trainable, v.name
        (False, 'rng_state:0')
    """
    if callable(value):  # outside the flag: Variables it makes are ordinary ones
        value = value()
    raw = value if isinstance(value, jax.core.Tracer) else getattr(value, "_value", value)
    if isinstance(raw, jax.core.Tracer):
        raise ValueError(
            f"library_variable {name!r} needs a concrete initial value, got a traced one: "
            "make it from a NumPy array or Python number, not from a value computed in the "
            "trace."
        )
    _creation.by_library = True
    try:
        with jax.ensure_compile_time_eval():
            return Variable(value, trainable=False, name=name)
    finally:
        _creation.by_library = False


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

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._var!r}>"
