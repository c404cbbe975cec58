"""``Module`` (``tf.Module``): named containers that collect Variables through attributes.

Collection follows TF's ``_flatten_module``: a module's own attributes in sorted-key
order (descending into lists, tuples and dicts), then its submodules depth-first,
each object reported once.
"""

from __future__ import annotations

import functools
import re

from . import nest
from .variables import name_scope

__all__ = ["Module"]


# TF's own patterns (tensorflow/python/module/module.py), so names come out identical.
_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def _camel_to_snake(name: str) -> str:
    return _CAMEL_TO_SNAKE.sub(r"_\1", name).lower()


def _is_variable(x) -> bool:
    return getattr(x, "_is_variable", False)


class Module:
    """Base class for models and layers: tracks Variables and submodules (``tf.Module``).

    Example:
        >>> import tapejax as tf
        >>> class Dense(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(tf.ones([2, 2]), name="w")
        ...         self.b = tf.Variable(tf.zeros([2]), trainable=False, name="b")
        >>> d = Dense()
        >>> [v.name for v in d.trainable_variables], d.name
        (['w:0'], 'dense')
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name: str | None = None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        # The full scope at construction ("outer/name/"): re-entering it later, from any
        # scope, names variables as if still inside the construction scope (as TF).
        with name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> name_scope:
        return name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and x.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and not x.trainable))

    @property
    def submodules(self) -> tuple:
        return tuple(self._flatten(predicate=lambda x: isinstance(x, Module)))

    def _flatten(
        self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False
    ):
        predicate = predicate or (lambda _: True)
        return _flatten_module(
            self,
            recursive=recursive,
            predicate=predicate,
            key=attribute_traversal_key,
            with_path=with_path,
            path=(),
            seen={id(self)},
            stack=[],
        )

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: runs ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"


def _flatten_module(module, *, recursive, predicate, key, with_path, path, seen, stack):
    ignored = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    if id(module) in stack:
        recursive = False
    attrs = vars(module)
    submodules = []
    for name in sorted(attrs, key=key):
        if name in ignored:
            continue
        prop = attrs[name]
        for leaf_path, leaf in _leaves_with_paths(prop, (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((path + leaf_path, leaf))
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _flatten_module(
            sub,
            recursive=recursive,
            predicate=predicate,
            key=key,
            with_path=with_path,
            path=sub_path,
            seen=seen,
            stack=stack,
        )
    stack.pop()


def _leaves_with_paths(value, path):
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves_with_paths(v, path + (i,))
    elif isinstance(value, dict):
        for k in nest._sorted_keys(value):
            yield from _leaves_with_paths(value[k], path + (k,))
    else:
        yield path, value
