"""The global gradient registry: ``RegisterGradient`` and ``no_gradient`` by TF op name.

A registered function replaces JAX's derivative of every op of that name in derivative
programs traced afterwards (it becomes a ``jax.custom_vjp`` around the op's pure
function); ``no_gradient`` makes the op's outputs unconnected from its inputs, so tapes
return ``None`` through it, as TF does. Registering clears the derivative-program cache.
"""

from __future__ import annotations

import inspect
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from . import recorder
from .conversion import convert_to_tensor
from .errors import InternalError
from .tensor import wrap

__all__ = ["RegisterGradient", "no_gradient", "gradient_override", "is_differentiable"]

_MISSING = object()
_registry: dict = {}  # op name -> (grad fn or None, "file:line" of the registration)
_known_ops: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_overrides: dict = {}


def register_op(op) -> None:
    _known_ops.setdefault(op.name, op)


def _check_name(op_type) -> None:
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type not in _known_ops:
        known = ", ".join(sorted(_known_ops)[:12])
        raise LookupError(
            f"tapejax has no op named {op_type!r}, so a gradient registered for it would never be "
            f"used. Op names are TF's op type names, for example {known}."
        )


def _register(op_type: str, fn) -> None:
    _check_name(op_type)
    if op_type in _registry:
        prev_fn, where = _registry[op_type]
        name = getattr(prev_fn, "__name__", "no_gradient")
        raise KeyError(
            f"Registering two gradient with name '{op_type}'! (Previous registration was in "
            f"{name} {where})"
        )
    frame = inspect.stack()[2]
    _registry[op_type] = (fn, f"{frame.filename}:{frame.lineno}")
    _overrides.clear()
    from . import lowering

    lowering.clear_cache()


class RegisterGradient:
    """Decorator registering a gradient function for an op type (``tf.RegisterGradient``).

    The function receives an op-like object (``.inputs``, ``.outputs``, ``.type``,
    ``.get_attr``) and one upstream gradient per output, and returns one gradient (or
    ``None``) per input. The registry is global, as in TF.
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        _register(self._op_type, fn)
        return fn


def no_gradient(op_type) -> None:
    """Declares that ``op_type`` has no gradient: tapes return ``None`` through it."""
    _register(op_type, None)


def unregister(op_type: str) -> None:
    """Removes a registration (for tests and interactive use; TF has no such call)."""
    _registry.pop(op_type, None)
    _overrides.clear()
    from . import lowering

    lowering.clear_cache()


def is_differentiable(op) -> bool:
    entry = _registry.get(op.name, _MISSING)
    if entry is _MISSING:
        return op.differentiable
    return entry[0] is not None


_builtin_rules: dict = {}


def register_reverse_rule(op_name: str, make) -> None:
    """Built-in TF gradient rule for reverse mode only (``ops/tf_rules.py``)."""
    _builtin_rules[op_name] = make


def _builtin_reverse_rule(name):
    return _builtin_rules.get(name)


class _MockOp:
    """What a registered gradient function sees of the op (TF's eager ``_MockOp``)."""

    def __init__(self, op, static, inputs, outputs):
        self.type = op.name
        self.name = op.name
        self.inputs = inputs
        self.outputs = outputs
        self._attrs = dict(static)
        self.skip_input_indices = None

    def get_attr(self, name):
        if name == "T" and self.inputs:
            return self.inputs[0].dtype
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation {self.type!r} has no attr named {name!r}.") from None


def _zero_like(x):
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.zeros(jnp.shape(x), x.dtype)
    return np.zeros(jnp.shape(x), dtype=jax.dtypes.float0)


def gradient_override(op, static):
    """The op's pure function with the registered gradient, or None if none is registered."""
    entry = _registry.get(op.name) if _registry else None
    if entry is None or entry[0] is None:
        builtin = _builtin_reverse_rule(op.name)
        return builtin(static) if builtin is not None else None
    key = (op, static)
    f = _overrides.get(key)
    if f is not None:
        return f
    grad_fn = entry[0]
    pure = op.pure(static)

    @jax.custom_vjp
    def f(*ins):
        return pure(*ins)

    def fwd(*ins):
        out = pure(*ins)
        return out, (ins, out)

    def bwd(res, ct):
        ins, out = res
        outs = out if op.multiple_outputs else (out,)
        cts = ct if op.multiple_outputs else (ct,)
        mock = _MockOp(op, static, [wrap(i) for i in ins], [wrap(o) for o in outs])
        with recorder.paused():
            grads = grad_fn(mock, *[wrap(c) for c in cts])
        if not isinstance(grads, (list, tuple)):
            grads = [grads]
        if len(grads) < len(ins):
            raise InternalError(
                None,
                None,
                f"Recorded operation '{op.name}' returned too few gradients. Expected "
                f"{len(ins)} but received {len(grads)}",
            )
        return tuple(
            _zero_like(x)
            if g is None or not jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)
            else jnp.broadcast_to(convert_to_tensor(g)._value.astype(x.dtype), jnp.shape(x))
            for g, x in zip(grads, ins)
        )

    f.defvjp(fwd, bwd)
    _overrides[key] = f
    return f
