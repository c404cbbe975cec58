"""``Tensor``: an immutable value wrapping a ``jax.Array`` (or a JAX tracer).

A Tensor carries a process-unique integer id (never Python's ``id()``, which is reused
after garbage collection): tapes match sources and targets by it. Operators are
attached by ``operators.py``; conversion lives in ``conversion.py``. This module must not
import any op module.
"""

from __future__ import annotations

import itertools
import warnings

import jax
import numpy as np

from . import dtypes
from .composite import CompositeTensor
from .errors import OperatorNotAllowedInGraphError
from .recorder import _state as _recorder_state
from .tensor_shape import TensorShape

__all__ = ["Tensor", "wrap", "is_tensor"]

_next_id = itertools.count(1).__next__


class LazyNode:
    """An op recorded on a tape but not run yet: run by ``lazy.compute``, which stores its
    outputs in ``results`` and drops ``args`` and ``trace``."""

    __slots__ = ("op", "static", "args", "results", "index", "trace", "n_out")

    def __init__(self, op, static, args, index, trace):
        self.op, self.static, self.args, self.results = op, static, args, None
        self.index = index  # position among its trace's deferred nodes
        self.trace = trace  # the recording it belongs to, until it is computed
        self.n_out = 0  # how many outputs it has (set with its output Tensors)


class _Dropped:
    """In ``LazyNode.results``: an output that nothing held when its program ran, so the
    program did not return it (``lazy.compute_trace``). It can never be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dropped>"


DROPPED = _Dropped()


class Pending:
    """Output ``pos`` of a ``LazyNode``, with its shape and dtype known from abstract
    evaluation. ``value()`` runs the pending ops it depends on (one jitted program)."""

    __slots__ = ("node", "pos", "aval", "shape", "dtype", "weak_type")

    # Set by ``lazy`` (which imports this module): computes a Pending's node.
    compute = None

    def __init__(self, node, pos, aval):
        self.node, self.pos, self.aval = node, pos, aval  # aval: a jax ShapedArray
        self.shape, self.dtype, self.weak_type = aval.shape, aval.dtype, aval.weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def value(self):
        results = self.node.results
        if results is None:
            Pending.compute([self])
            results = self.node.results
        v = results[self.pos]
        if v is DROPPED:  # pragma: no cover - lazy._held returns every value still held
            raise RuntimeError("tapejax internal error: a deferred value was dropped while held")
        return v


class Tensor:
    """An immutable multi-dimensional array, as ``tf.Tensor`` in eager mode.

    It wraps a ``jax.Array`` (or, inside ``tapejax.function`` and JAX transforms, a
    tracer), so ``jnp`` functions accept it and ``jnp.asarray(t)`` is free.

    Example:
        >>> import tapejax as tf
        >>> t = tf.constant([[1.0, 2.0]])
        >>> t.shape.as_list(), t.dtype.name, float(t[0, 1])
        ([1, 2], 'float32', 2.0)
    """

    # ``_v`` is the jax.Array or tracer, or a ``Pending`` while an op recorded lazily on a
    # tape has not run yet (``lazy.py``); ``_v.shape``/``_v.dtype``/``_v.ndim`` are known
    # either way. ``_value`` is the computed value: reading it runs what is pending.
    __slots__ = ("_v", "_id", "__weakref__")
    # Makes NumPy defer to our reflected operators (np.float32(2) * t is a Tensor).
    __array_priority__ = 100

    def __init__(self, value):
        self._v = value
        self._id = _next_id()

    @property
    def _value(self):
        v = self._v
        if type(v) is Pending:
            v = self._v = v.value()
        return v

    @_value.setter
    def _value(self, value):
        self._v = value

    # -- value access -------------------------------------------------------------------

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._v.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_array_dtype(self._v.dtype)

    @property
    def ndim(self) -> int:
        return self._v.ndim

    @property
    def device(self) -> str:
        try:
            (dev,) = self._value.devices()
        except (AttributeError, ValueError, jax.errors.ConcretizationTypeError):
            return ""
        return f"/job:localhost/replica:0/task:0/device:{dev.platform.upper()}:{dev.id}"

    def get_shape(self) -> TensorShape:
        return self.shape

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for rank 0), as TF's ``numpy()``."""
        v = self._value
        if isinstance(v, jax.core.Tracer):
            raise OperatorNotAllowedInGraphError(
                "Tensor.numpy() is not available while tapejax traces a program (inside "
                "tapejax.function, a custom_gradient's grad_fn, a registered gradient or a JAX "
                "transform): the value is not computed yet. Return the tensor instead, or "
                "print it with tapejax.print."
            )
        if not v.ndim:  # a NumPy scalar: read through a view, no array copy first
            return np.asarray(v)[()]
        return np.array(v)

    def ref(self):
        return _TensorRef(self)

    def experimental_ref(self):
        return self.ref()

    def __array__(self, dtype=None, copy=None):
        if _recorders():
            _warn_if_watched(self)
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __jax_array__(self):
        if _recorders():
            _warn_if_watched(self)
        return self._value

    # DLPack (``np.from_dlpack(t)``, ``torch.from_dlpack(t)``): the JAX array's own, zero-copy.
    def __dlpack__(self, *args, **kwargs):
        if _recorders():
            _warn_if_watched(self)
        return self._value.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    # -- Python protocol, as TF eager has it ----------------------------------------------

    def __bool__(self) -> bool:
        v = self._value
        if isinstance(v, jax.core.Tracer):
            raise OperatorNotAllowedInGraphError(
                "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: inside "
                "tapejax.function (or a JAX transform) its value is not known while tracing, "
                "and tapejax does not rewrite Python `if`/`while` (TF's AutoGraph). Use "
                "tapejax.cond / tapejax.while_loop (or tapejax.where), or call "
                "tapejax.config.run_functions_eagerly(True) to run it as plain Python."
            )
        value = _host(self._value)
        if isinstance(value, np.ndarray) and value.size == 0:
            return False  # TF: an empty tensor is falsy (NumPy would raise)
        return bool(value)

    # Through NumPy, as TF's EagerTensor does, so errors carry NumPy's (and TF's) texts.
    def __float__(self) -> float:
        return float(_host(self._value))

    def __int__(self) -> int:
        return int(_host(self._value))

    def __index__(self) -> int:
        value = _host(self._value)
        if isinstance(value, np.ndarray) and value.dtype.kind not in "iu":
            # TF raises AttributeError here (np.float32 has no __index__); Python's
            # protocol, and every caller, expects TypeError.
            raise TypeError(f"Only integer tensors can be used as an index, got {self.dtype!r}")
        return value.__index__()

    def __complex__(self) -> complex:
        return complex(_host(self._value))

    def __len__(self) -> int:
        if not self._v.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._v.shape[0]

    def __iter__(self):
        if not self._v.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._v.shape[0]))

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return f"<tf.Tensor shape={self.shape} dtype={self.dtype.name} (traced)>"
        return (
            f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
            f"numpy={numpy_text(self._value, is_repr=True)}>"
        )

    def __str__(self) -> str:
        if isinstance(self._value, jax.core.Tracer):
            return repr(self)
        return f"tf.Tensor({numpy_text(self._value)}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, format_spec: str) -> str:
        # As TF's EagerTensor: f"{t}" formats the NumPy value.
        if isinstance(self._value, jax.core.Tracer):
            return format(repr(self), format_spec)
        return np.asarray(self._value).__format__(format_spec)


def _host(value):
    """A concrete value as a NumPy array; a tracer unchanged (so it raises JAX's error)."""
    return value if isinstance(value, jax.core.Tracer) else np.asarray(value)


def numpy_text(value, is_repr: bool = False) -> str:
    """TF's ``numpy_text``: repr of a scalar is its Python value's; multi-line text starts
    on its own line."""
    value = np.asarray(value)
    if value.ndim == 0:
        text = repr(value.item()) if is_repr else str(value[()])
    else:
        text = repr(value) if is_repr else str(value)
    return "\n" + text if "\n" in text else text


def _recorders():
    return _recorder_state.recorders


class GradientCutWarning(UserWarning):
    """A watched Tensor left tapejax (NumPy/JAX functions): its gradient path is cut."""


def _warn_if_watched(t) -> None:
    # TF users' most common pain is a silent None gradient from a NumPy round trip: the
    # conversion is allowed, as in TF, but said out loud.
    if any(t._id in getattr(r, "live", ()) for r in _recorders()):
        warnings.warn(
            "tapejax: a Tensor that an active GradientTape watches was converted to a raw "
            "NumPy/JAX array (np.asarray, a jnp function, ...). Operations on raw arrays are "
            "not recorded, so gradients through them will be None. Use tapejax ops, or wrap "
            "JAX code with tapejax.lift to record it.",
            GradientCutWarning,
            stacklevel=3,
        )


class _TensorRef:
    """A hashable reference to a Tensor (``tensor.ref()``), keyed on the tensor's id."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def deref(self):
        return self._tensor

    def __hash__(self):
        return self._tensor._id

    def __eq__(self, other):
        return isinstance(other, _TensorRef) and other._tensor is self._tensor

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._tensor!r}>"


def _flatten_tensor(t):
    # jnp functions and JAX transforms see a Tensor through this, not __jax_array__.
    if _recorders():
        _warn_if_watched(t)
    return (t._value,), None


def _unflatten_tensor(_, children):
    return wrap(children[0])


jax.tree_util.register_pytree_node(Tensor, _flatten_tensor, _unflatten_tensor)


def wrap(value) -> Tensor:
    """Wraps a JAX array or tracer without conversion or checks (the op fast path)."""
    t = object.__new__(Tensor)
    t._v = value
    t._id = _next_id()
    return t


def is_tensor(x) -> bool:
    """TF's ``tf.is_tensor``: Tensors, Variables and composites (SparseTensor, ...)."""
    return isinstance(x, (Tensor, CompositeTensor)) or getattr(x, "_is_variable", False)
