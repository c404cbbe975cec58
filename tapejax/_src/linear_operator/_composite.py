"""Operators as composite values: the parts that rebuild one (TF's ``_LinearOperatorSpec``),
registered with ``tapejax``'s ``composite`` for ``tapejax.function``, and TF's order of an
operator's Variables.

An operator is rebuilt by calling its class with its rebuilding fields
(``_composite_tensor_fields`` and the hints): those holding tensors are its parts, the
others a static, hashable rest.
"""

from __future__ import annotations

import numpy as np

from .. import composite
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._util import static_value

_COMPOSITE_CLASSES: set = set()

_HINT_FIELDS = ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square")


def make_composite_tensor(cls):
    """Marks ``cls`` as rebuildable from its fields (TF's decorator of the same name), so
    that ``tapejax.function`` takes and returns its operators as their tensors."""
    _COMPOSITE_CLASSES.add(cls)
    composite.register(cls, _to_parts, _from_parts(cls))
    return cls


_NOT_FOUND = object()


def extract_attrs(op, keys) -> dict:
    """The constructor arguments ``keys`` of ``op``: an attribute ``k``, ``_k`` or a
    ``parameters`` entry, in that order (TF's ``_extract_attrs``)."""
    kwargs = {}
    for k in keys:
        for source in (
            getattr(op, k, _NOT_FOUND),
            getattr(op, "_" + k, _NOT_FOUND),
            getattr(op, "parameters", {}).get(k, _NOT_FOUND),
        ):
            if source is not _NOT_FOUND:
                kwargs[k] = source
                break
        else:
            raise ValueError(
                f"Could not determine an appropriate value for field `{k}` in object "
                f" `{op}`. Looked for \n 1. an attr called `{k}`,\n 2. an attr called "
                f"`_{k}`,\n 3. an entry in `op.parameters` with key '{k}'."
            )
    return kwargs


def _is_operator(x) -> bool:
    return hasattr(x, "_composite_tensor_fields") and hasattr(x, "_linop_matmul")


def _leaves(value):
    """The leaves of ``value``, operators expanded into their rebuilding fields (sorted by
    name), as TF's ``nest.flatten(..., expand_composites=True)`` walks them."""
    if _is_operator(value) and type(value) in _COMPOSITE_CLASSES:
        fields = extract_attrs(value, value._composite_tensor_fields + _HINT_FIELDS)
        for key in sorted(fields):
            yield from _leaves(fields[key])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            yield from _leaves(value[key])
    else:
        yield value


def operator_variables(operator, predicate) -> tuple:
    """The Variables of ``operator`` satisfying ``predicate`` in TF's order: its attributes
    sorted by name, an operator held in one expanded in place (TF's ``tf.Module`` flattens
    a ``LinearOperator``'s attributes with ``expand_composites=True``)."""
    found, seen = [], set()
    attrs = vars(operator)
    for key in sorted(attrs):
        for leaf in _leaves(attrs[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if getattr(leaf, "_is_variable", False) and predicate(leaf):
                found.append(leaf)
            elif _is_operator(leaf) and type(leaf) not in _COMPOSITE_CLASSES:
                found += [v for v in leaf.variables if predicate(v) and id(v) not in seen]
                seen.update(id(v) for v in leaf.variables)
    return tuple(found)


def _has_tensor(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_tensor(v) for v in value)
    return isinstance(value, Tensor) or getattr(value, "_is_variable", False) or _is_operator(value)


def _hashable(value):
    if isinstance(value, TensorShape):
        return tuple(value.as_list())
    if isinstance(value, (np.ndarray, np.generic)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _to_parts(op):
    """TF's ``_LinearOperatorSpec``: the tensor fields, and the rest as a static tuple."""
    fields = extract_attrs(op, op._composite_tensor_fields + _HINT_FIELDS)
    static, tensors = [], {}
    for key in sorted(fields):
        value = fields[key]
        if key in op._composite_tensor_prefer_static_fields and isinstance(value, Tensor):
            known = static_value(value)
            value = value if known is None else known
        if _has_tensor(value):
            tensors[key] = value
        else:
            static.append((key, _hashable(value)))
    return tuple(static), tensors


def _from_parts(cls):
    def build(static, tensors):
        return cls(**dict(static), **tensors)

    return build
