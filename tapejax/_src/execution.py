"""Where code runs, eagerly or inside a ``tapejax.function`` (``tf.executing_eagerly``,
``tf.inside_function``, ``tf.init_scope``, ``tf.get_current_name_scope``,
``tf.get_static_value``), and TF's graph-ordering API, which has nothing to order here
(``tf.control_dependencies``, ``tf.group``, ``tf.no_op``, ``tf.tuple``).

A thread-local stack of contexts, innermost last: ``tapejax.function`` pushes one for each
run of its Python function (the eager first call too, so that code branching on
``executing_eagerly()`` takes the same path on every call, as in TF, where every call is
traced), and ``init_scope`` pushes an eager one inside it.

Ordering needs no graph: eager ops run in program order, and a traced function is one
pure JAX program in which state (Variables, random streams) is threaded through in the
order the Python code touched it, and effects (assertions, prints) keep their order.

This module holds state only: it must never decide what an op computes.
"""

from __future__ import annotations

import builtins
import contextlib
import threading

import jax

from . import recorder
from .errors import InvalidArgumentError
from .tensor import Tensor, is_tensor
from .variables import _scopes

__all__ = [
    "executing_eagerly",
    "inside_function",
    "is_symbolic_tensor",
    "init_scope",
    "get_current_name_scope",
    "get_static_value",
    "control_dependencies",
    "group",
    "no_op",
    "tuple",
    "function_body",
    "failure_reporter",
    "runtime_check",
    "runtime_checks",
    "clear_failed_checks",
    "raise_failed_check",
]

_FUNCTION, _EAGER = "function", "eager"


class _Contexts(threading.local):
    def __init__(self):
        self.stack: list = []
        self.runtime_checks = 0  # checks traced into programs on this thread, ever


_contexts = _Contexts()
# Failed run-time checks of the ``tapejax.function`` programs that ran: XLA calls a check
# on a thread of its own, so this is process-wide.
_failures: list = []
_failures_lock = threading.Lock()


def executing_eagerly() -> bool:
    """Whether ops run eagerly here (``tf.executing_eagerly``): False inside a
    ``tapejax.function`` (unless in ``init_scope``), True elsewhere and when functions
    run eagerly (``tf.config.run_functions_eagerly(True)``)."""
    stack = _contexts.stack
    return not stack or stack[-1] == _EAGER


def is_symbolic_tensor(tensor) -> bool:
    """Whether ``tensor`` is a Tensor of a program being built (``tf.is_symbolic_tensor``):
    True for Tensors inside a ``tapejax.function`` (its arguments and what it computes,
    on the first, eager call as in the traces), and for Tensors holding a JAX tracer (in
    a JAX transform); False for eager Tensors, Variables and other values.

    .. warning:: An eager Tensor created outside a ``tapejax.function`` and used inside
       it gives True there; TF gives False for such a captured Tensor.

    Example:
        >>> import tapejax as tf
        >>> tf.is_symbolic_tensor(tf.constant(1.0))
        False
        >>> tf.function(lambda x: tf.is_symbolic_tensor(x * 2))(tf.constant(1.0))
        True
    """
    if not isinstance(tensor, Tensor):
        return False
    return not executing_eagerly() or isinstance(tensor._value, jax.core.Tracer)


def inside_function() -> bool:
    """Whether this code runs inside a ``tapejax.function`` (``tf.inside_function``)."""
    return _FUNCTION in _contexts.stack


def get_current_name_scope() -> str:
    """The current name scope, without a trailing "/" (``tf.get_current_name_scope``)."""
    scope = _scopes.current
    return scope[:-1] if scope.endswith("/") else scope


def failure_reporter():
    """A function ``report(error_class, text)`` for host code that a program being traced
    will run (a check, a NumPy callback): in a ``tapejax.function`` the failure is raised
    when the call returns (``raise_failed_check``); elsewhere (a plain ``jax.jit``) at once,
    inside XLA, which wraps it in its runtime error."""
    deferred = inside_function()
    _contexts.runtime_checks += 1

    def report(error_class, text: str) -> None:
        if not deferred:
            raise error_class(None, None, text)
        with _failures_lock:
            _failures.append((error_class, text))

    return report


def runtime_check(condition, args: tuple, message) -> None:
    """Traces a check into the program being traced: when the program runs with
    ``condition`` false, ``message(*args)`` (values as NumPy) is TF's InvalidArgumentError,
    reported as ``failure_reporter`` says."""
    report = failure_reporter()

    def check(ok, *values):
        if not ok:
            report(InvalidArgumentError, message(*values))

    jax.debug.callback(check, condition, *args)


def runtime_checks() -> int:
    """How many run-time checks have been traced on this thread (a function's trace
    compares the count before and after)."""
    return _contexts.runtime_checks


def clear_failed_checks() -> None:
    with _failures_lock:
        _failures.clear()


def raise_failed_check() -> None:
    """Waits for the run-time checks of the programs that ran; raises the first failure."""
    jax.effects_barrier()
    with _failures_lock:
        failed = _failures[:1]
        _failures.clear()
    if failed:
        error_class, text = failed[0]
        raise error_class(None, None, text)


@contextlib.contextmanager
def function_body():
    """Runs the body of a ``tapejax.function``: not eager, at TF's fresh top name scope."""
    saved_scope = _scopes.current
    _scopes.current = ""
    _contexts.stack.append(_FUNCTION)
    try:
        yield
    finally:
        _contexts.stack.pop()
        _scopes.current = saved_scope


@contextlib.contextmanager
def init_scope():
    """Lifts the code inside out of ``tapejax.function`` bodies and gradient tapes
    (``tf.init_scope``).

    As TF: no tape records inside it, and inside a function ``executing_eagerly()`` is
    True. Ops on values known when the function is traced (constants, shapes) run at once
    and give concrete tensors, as TF's lifted ops do; values the traced function computes,
    arguments and Variables included, stay traced.

    Example:
        >>> import tapejax as tf
        >>> @tf.function
        ... def f(x):
        ...     with tf.init_scope():
        ...         assert tf.executing_eagerly()
        ...     return x + 1
        >>> float(f(tf.constant(1.0)))
        2.0
    """
    with recorder.paused():
        if not _contexts.stack:
            yield
            return
        _contexts.stack.append(_EAGER)
        try:
            with jax.ensure_compile_time_eval():
                yield
        finally:
            _contexts.stack.pop()


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` if it is known now, as NumPy (``tf.get_static_value``).

    Args:
        tensor: a Tensor, or any other value (returned as it is, as TF does).
        partial: accepted for TF's signature; a value is known entirely or not at all.

    Returns:
        A NumPy value for a Tensor outside ``tapejax.function`` (or in its ``init_scope``);
        None inside it, where every Tensor is traced, constants included, and for a
        Variable, whose value can change.

    Example:
        >>> import tapejax as tf
        >>> tf.get_static_value(tf.constant([1, 2]))
        array([1, 2], dtype=int32)
    """
    if type(tensor) is Tensor:
        # A function's eager first call answers as its traced calls will.
        if not executing_eagerly() or isinstance(tensor._value, jax.core.Tracer):
            return None
        return tensor.numpy()
    if is_tensor(tensor):
        return None
    return tensor


def control_dependencies(control_inputs):
    """A context in which ops run after ``control_inputs`` (``tf.control_dependencies``).

    As TF eager, a context that does nothing, after calling the callables among
    ``control_inputs``. Inside ``tapejax.function`` it does nothing either: the program
    keeps the order of state updates and effects.
    """
    if control_inputs:
        for control in control_inputs:
            if callable(control):
                control()
    return contextlib.nullcontext()


def no_op(name=None):
    """Does nothing (``tf.no_op``); returns None, as TF eager."""
    return None


def group(*inputs, **kwargs):
    """Groups operations (``tf.group``); returns None, as TF eager.

    Inside ``tapejax.function`` too, where TF returns a graph Operation: there is nothing to
    group (see the module's docstring).
    """
    if not executing_eagerly():
        kwargs.pop("name", None)
        if kwargs:
            raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    return None


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 - TF's name
    """``tensors`` once all of them are computed (``tf.tuple``): eagerly, ``tensors``
    itself; inside ``tapejax.function``, a list of their identities, as TF's."""
    if executing_eagerly():
        return tensors
    from .ops.array_ops import identity

    if control_inputs:
        for c in control_inputs:
            if not is_tensor(c):
                raise TypeError(
                    f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}"
                )
    out = [None if t is None else identity(t) for t in tensors]
    if builtins.all(t is None for t in out) and not control_inputs:
        raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
    return out
