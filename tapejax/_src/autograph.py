"""``tf.autograph``'s names for code ported from TF, with no source conversion behind them.

tapejax has no AutoGraph: ``tapejax.function`` traces the Python function as written,
and Python ``if``/``while`` on a traced tensor raises ``OperatorNotAllowedInGraphError``
naming ``tapejax.cond``/``tapejax.while_loop``. What TF code calls on ``tf.autograph``
while still running correctly without conversion (``do_not_convert``, ``set_verbosity``,
``trace``, ``set_loop_options``, ``Feature``) behaves as in TF; what needs conversion
(``to_code``, ``to_graph``) raises ``NotImplementedError``. This module must never parse,
rewrite or recompile user source.
"""

from __future__ import annotations

import enum
import functools
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

VERBOSITY_VAR_NAME = "AUTOGRAPH_VERBOSITY"
DEFAULT_VERBOSITY = 0

_verbosity_level: int | None = None  # set_verbosity's level; beats the environment
# TF mirrors its log to stdout by default in an interactive interpreter.
_echo_log_to_stdout = hasattr(sys, "ps1") or hasattr(sys, "ps2")

# TF's sentinel for "argument not given" in ``set_loop_options``.
UNSPECIFIED = object()


class Feature(enum.Enum):
    """AutoGraph's optional conversion features (``tf.autograph.experimental.Feature``).

    Accepted by ``tapejax.function(experimental_autograph_options=...)``, which ignores
    them: tapejax converts no source.

    Attributes:
        ALL: Enable all features.
        AUTO_CONTROL_DEPS: Insert of control dependencies in the generated code.
        ASSERT_STATEMENTS: Convert Tensor-dependent assert statements to tf.Assert.
        BUILTIN_FUNCTIONS: Convert builtin functions applied to Tensors to their TF
            counterparts.
        EQUALITY_OPERATORS: Whether to convert the equality operator ('==') to
            tf.math.equal.
        LISTS: Convert list idioms, like initializers, slices, append, etc.
        NAME_SCOPES: Insert name scopes that name ops according to context, like the
            function they were defined in.

    Example:
        >>> import tapejax as tf
        >>> tf.autograph.experimental.Feature.LISTS.value
        'LISTS'
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls) -> tuple[Feature, ...]:
        """Returns a tuple that enables all options."""
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude) -> tuple[Feature, ...]:
        """Returns a tuple that enables all but the excluded options."""
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


def do_not_convert(func: Callable | None = None) -> Callable:
    """Marks a function as not to be converted by AutoGraph (``tf.autograph.experimental``).

    tapejax never converts functions, so the result just calls ``func``; it carries
    ``func``'s metadata (``functools.wraps``) when ``func`` is a function or method.

    Args:
        func: function to decorate.

    Returns:
        If ``func`` is not None, a callable equivalent to ``func``. If ``func`` is None,
        ``do_not_convert`` itself, so ``@do_not_convert()`` works like ``@do_not_convert``.

    Example:
        >>> import tapejax as tf
        >>> @tf.autograph.experimental.do_not_convert
        ... def double(x):
        ...     return 2 * x
        >>> double(3), double.__name__
        (6, 'double')
    """
    if func is None:
        return do_not_convert

    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    if inspect.isfunction(func) or inspect.ismethod(func):
        wrapper = functools.update_wrapper(wrapper, func)
    return wrapper


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets the AutoGraph verbosity level (``tf.autograph.set_verbosity``).

    The level is stored and read back by :func:`get_verbosity`; it takes precedence over
    the ``AUTOGRAPH_VERBOSITY`` environment variable, as in TF.

    Args:
        level: int, the verbosity level; larger values specify increased verbosity; 0
            means no logging.
        alsologtostdout: bool, whether to also output log messages to ``sys.stdout``.

    Example:
        >>> import tapejax as tf
        >>> from tapejax._src import autograph
        >>> tf.autograph.set_verbosity(3)
        >>> autograph.get_verbosity()
        3
        >>> tf.autograph.set_verbosity(0)

    .. warning::
       tapejax converts no code, so it has no conversion log: the level is kept but
       nothing is logged at any level.
    """
    global _verbosity_level, _echo_log_to_stdout
    _verbosity_level = level
    _echo_log_to_stdout = alsologtostdout


def get_verbosity() -> int:
    """The level :func:`set_verbosity` set, else ``$AUTOGRAPH_VERBOSITY``, else 0 (as TF)."""
    if _verbosity_level is not None:
        return _verbosity_level
    return int(os.getenv(VERBOSITY_VAR_NAME, DEFAULT_VERBOSITY))


def has_verbosity(level: int) -> bool:
    """Whether the verbosity is at least ``level`` (TF's ``ag_logging.has_verbosity``)."""
    return get_verbosity() >= level


def echo_log_to_stdout() -> bool:
    """The ``alsologtostdout`` flag :func:`set_verbosity` stored."""
    return _echo_log_to_stdout


def trace(*args: Any) -> None:
    """Prints its arguments to ``sys.stdout`` when traced (``tf.autograph.trace``).

    As in TF it prints at every verbosity, like ``print``: once per trace inside
    ``tapejax.function`` (where tensors show as traced), at each call eagerly.

    Args:
        *args: Arguments to print to ``sys.stdout``.

    Example:
        >>> import tapejax as tf
        >>> tf.autograph.trace("step", 1)
        step 1
    """
    print(*args)


def set_loop_options(
    parallel_iterations=UNSPECIFIED,
    swap_memory=UNSPECIFIED,
    maximum_iterations=UNSPECIFIED,
    shape_invariants=UNSPECIFIED,
) -> None:
    """Accepts AutoGraph's loop options and does nothing (``tf.autograph.experimental``).

    In TF they apply only to a Python loop that AutoGraph stages as a ``tf.while_loop``;
    everywhere else TF ignores them too, without checking them. tapejax stages no Python
    loop (a Python loop runs, or unrolls while tracing), so it ignores them always; pass
    ``maximum_iterations``, ``parallel_iterations``, ``swap_memory`` and
    ``shape_invariants`` to ``tapejax.while_loop`` instead.

    Args:
        parallel_iterations: ``tf.while_loop``'s argument of that name; ignored.
        swap_memory: ``tf.while_loop``'s argument of that name; ignored.
        maximum_iterations: ``tf.while_loop``'s argument of that name; ignored.
        shape_invariants: a list of ``(tensor, shape)`` pairs; ignored.

    Example:
        >>> import tapejax as tf
        >>> n = 0
        >>> for i in range(3):
        ...     tf.autograph.experimental.set_loop_options(maximum_iterations=2)
        ...     n += 1
        >>> n
        3

    .. warning::
       A Python loop over a tensor inside ``tapejax.function`` is not converted, so
       ``maximum_iterations`` does not bound it as it would in TF.
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants


def _no_conversion(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"tf.autograph.{name} is not provided by tapejax: it returns AutoGraph's converted "
        "version of a Python function, and tapejax has no AutoGraph. tapejax.function "
        "traces the Python function directly (no source conversion); write control flow "
        "on tensors with tapejax.cond / tapejax.while_loop."
    )


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_graph``: not provided; raises ``NotImplementedError``.

    Raises:
        NotImplementedError: always; tapejax converts no source (use ``tapejax.function``
            on ``entity`` itself).
    """
    del entity, recursive, experimental_optional_features
    raise _no_conversion("to_graph")


def to_code(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_code``: not provided; raises ``NotImplementedError``.

    Raises:
        NotImplementedError: always; tapejax generates no code (the source of ``entity``
            is what ``tapejax.function`` traces).
    """
    del entity, recursive, experimental_optional_features
    raise _no_conversion("to_code")
