"""``tf.nest``-style flattening of the structures tapes accept (lists, tuples, dicts, namedtuples).

Unlike ``jax.tree_util`` (where ``None`` is an empty subtree and Tensors are pytrees),
``None`` and Tensors/Variables are leaves here, as in TF: ``gradient([y, None], x)``
must see the ``None`` to raise TF's error.
"""

from __future__ import annotations

from collections.abc import Mapping

from .composite import CompositeTensor

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


def flatten(structure, expand_composites: bool = False) -> list:
    """The leaves of ``structure``, dict values in sorted-key order; with
    ``expand_composites``, a SparseTensor's (or IndexedSlices') component Tensors instead
    of the composite, as TF's ``nest.flatten(..., expand_composites=True)``."""
    if _flat(structure):  # composites are never fast-path leaves: nothing to expand
        return list(structure)
    out: list = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(s, out: list, expand: bool) -> None:
    if isinstance(s, (list, tuple)):
        for x in s:
            _flatten_into(x, out, expand)
    elif isinstance(s, Mapping):
        for k in _sorted_keys(s):
            _flatten_into(s[k], out, expand)
    elif expand and isinstance(s, CompositeTensor):
        for x in s._components():
            _flatten_into(x, out, expand)
    else:
        if not isinstance(s, CompositeTensor):  # a composite is never a fast-path leaf
            _leaf_types.add(type(s))
        out.append(s)


def pack_sequence_as(structure, flat: list, expand_composites: bool = False):
    """Rebuilds ``structure`` with the leaves ``flat`` (the inverse of ``flatten``)."""
    if _flat(structure) and len(flat) == len(structure):
        return list(flat) if type(structure) is list else tuple(flat)
    it = iter(flat)
    result = _pack(structure, it, expand_composites)
    return result


def _pack(s, it, expand: bool):
    if isinstance(s, (list, tuple)):
        items = [_pack(x, it, expand) for x in s]
        if _is_namedtuple(s):
            return type(s)(*items)
        return type(s)(items) if isinstance(s, tuple) else items
    if isinstance(s, Mapping):
        keys = _sorted_keys(s)
        values = {k: _pack(s[k], it, expand) for k in keys}
        try:
            return type(s)((k, values[k]) for k in s)
        except TypeError:
            return {k: values[k] for k in s}
    if expand and isinstance(s, CompositeTensor):
        return s._with_components(tuple(_pack(x, it, expand) for x in s._components()))
    return next(it)


def map_structure(fn, structure, expand_composites: bool = False):
    return pack_sequence_as(
        structure,
        [fn(x) for x in flatten(structure, expand_composites)],
        expand_composites,
    )
