"""``tf.nest``-style flattening of the structures tapes accept (lists, tuples, dicts, namedtuples).

Unlike ``jax.tree_util`` (where ``None`` is an empty subtree and Tensors are pytrees),
``None`` and Tensors/Variables are leaves here, as in TF: ``gradient([y, None], x)``
must see the ``None`` to raise TF's error.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["flatten", "pack_sequence_as", "map_structure"]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _sorted_keys(d: Mapping):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


# Types seen as leaves (not lists, tuples or mappings): a flat list of them, the usual
# ``gradient(loss, variables)``, skips the recursion.
_leaf_types: set = set()


def _flat(s) -> bool:
    """Whether ``s`` is a plain list or tuple of leaves of known leaf types."""
    if type(s) is not list and type(s) is not tuple:
        return False
    for x in s:
        if type(x) not in _leaf_types:
            return False
    return True


def flatten(structure) -> list:
    """The leaves of ``structure``, dict values in sorted-key order."""
    if _flat(structure):
        return list(structure)
    out: list = []
    _flatten_into(structure, out)
    return out


def _flatten_into(s, out: list) -> None:
    if isinstance(s, (list, tuple)):
        for x in s:
            _flatten_into(x, out)
    elif isinstance(s, Mapping):
        for k in _sorted_keys(s):
            _flatten_into(s[k], out)
    else:
        _leaf_types.add(type(s))
        out.append(s)


def pack_sequence_as(structure, flat: list):
    """Rebuilds ``structure`` with the leaves ``flat`` (the inverse of ``flatten``)."""
    if _flat(structure) and len(flat) == len(structure):
        return list(flat) if type(structure) is list else tuple(flat)
    it = iter(flat)
    result = _pack(structure, it)
    return result


def _pack(s, it):
    if isinstance(s, (list, tuple)):
        items = [_pack(x, it) for x in s]
        if _is_namedtuple(s):
            return type(s)(*items)
        return type(s)(items) if isinstance(s, tuple) else items
    if isinstance(s, Mapping):
        keys = _sorted_keys(s)
        values = {k: _pack(s[k], it) for k in keys}
        try:
            return type(s)((k, values[k]) for k in s)
        except TypeError:
            return {k: values[k] for k in s}
    return next(it)


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])
