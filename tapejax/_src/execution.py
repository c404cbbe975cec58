"""Where code runs: eagerly, or inside a ``tapejax.function`` (``tf.executing_eagerly``,
``tf.inside_function``, ``tf.init_scope``, ``tf.get_current_name_scope``).

A thread-local stack of contexts, innermost last: ``tapejax.function`` pushes one for each
run of its Python function (the eager first call too, so that code branching on
``executing_eagerly()`` takes the same path on every call, as in TF, where every call is
traced), and ``init_scope`` pushes an eager one inside it.

This module holds state only: it must never decide what an op computes.
"""

from __future__ import annotations

import contextlib
import threading

import jax

from . import recorder
from .variables import _scopes

__all__ = [
    "executing_eagerly",
    "inside_function",
    "init_scope",
    "get_current_name_scope",
    "function_body",
]

_FUNCTION, _EAGER = "function", "eager"


class _Contexts(threading.local):
    def __init__(self):
        self.stack: list = []


_contexts = _Contexts()


def executing_eagerly() -> bool:
    """Whether ops run eagerly here (``tf.executing_eagerly``): False inside a
    ``tapejax.function`` (unless in ``init_scope``), True elsewhere and when functions
    run eagerly (``tf.config.run_functions_eagerly(True)``)."""
    stack = _contexts.stack
    return not stack or stack[-1] == _EAGER


def inside_function() -> bool:
    """Whether this code runs inside a ``tapejax.function`` (``tf.inside_function``)."""
    return _FUNCTION in _contexts.stack


def get_current_name_scope() -> str:
    """The current name scope, without a trailing "/" (``tf.get_current_name_scope``)."""
    scope = _scopes.current
    return scope[:-1] if scope.endswith("/") else scope


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
