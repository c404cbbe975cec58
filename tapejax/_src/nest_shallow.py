"""``tf.nest``'s shallow structures and paths: flattening a structure only as deep as another
(``flatten_up_to``, ``map_structure_up_to``, ``assert_shallow_structure``), the path of each
leaf (``flatten_with_tuple_paths``, ``map_structure_with_paths``, ...) and TF's other
helpers (``get_traverse_shallow_structure``, ``list_to_tuple``, ``flatten_dict_items``),
with TF's rules and error texts. Built on ``nest``; this module must not import any op.
"""

from __future__ import annotations

from collections.abc import Mapping

from .composite import CompositeTensor
from .nest import (
    _COMPOSITE,
    _LEAF,
    _kind,
    _sorted_items,
    flatten,
    is_namedtuple,
    pack_sequence_as,
    same_namedtuples,
    sequence_like,
)

__all__ = [
    "assert_shallow_structure",
    "flatten_dict_items",
    "flatten_up_to",
    "flatten_with_joined_string_paths",
    "flatten_with_tuple_paths",
    "flatten_with_tuple_paths_up_to",
    "get_traverse_shallow_structure",
    "list_to_tuple",
    "map_structure_up_to",
    "map_structure_with_paths",
    "map_structure_with_tuple_paths",
    "map_structure_with_tuple_paths_up_to",
    "yield_flat_paths",
]

_MISMATCHING_TYPES = (
    "The two structures don't have the same sequence type. Input structure has type "
    "{input_type}, while shallow structure has type {shallow_type}."
)


def _nested(x, expand: bool) -> bool:
    return _kind(x, expand) != _LEAF


def _values(x, expand: bool) -> list:
    return [v for _, v in _sorted_items(x, _kind(x, expand))]


def assert_shallow_structure(shallow_tree, input_tree, check_types=True, expand_composites=False):
    """Raises unless ``input_tree`` is ``shallow_tree`` with some leaves replaced by deeper
    structures.

    Args:
        shallow_tree: a structure.
        input_tree: a structure at least as deep.
        check_types: whether node types must match (any two mappings, any two lists and
            two namedtuples of the same name and fields do).
        expand_composites: whether SparseTensors and IndexedSlices are structures.

    Raises:
        TypeError: ``input_tree`` is a leaf where ``shallow_tree`` is not, or the node types
            differ.
        ValueError: lengths differ, or ``shallow_tree`` has a key ``input_tree`` lacks.
    """
    expand = bool(expand_composites)
    if not _nested(shallow_tree, expand):
        return
    if not _nested(input_tree, expand):
        raise TypeError(
            "If shallow structure is a sequence, input must also be a sequence. Input has "
            f"type: {type(input_tree)}."
        )
    mismatch = TypeError(
        _MISMATCHING_TYPES.format(input_type=type(input_tree), shallow_type=type(shallow_tree))
    )
    shallow_is_composite = _kind(shallow_tree, expand) == _COMPOSITE
    input_is_composite = _kind(input_tree, expand) == _COMPOSITE
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        if is_namedtuple(shallow_tree) and is_namedtuple(input_tree):
            if not same_namedtuples(shallow_tree, input_tree):
                raise mismatch
        elif isinstance(shallow_tree, list) and isinstance(input_tree, list):
            pass
        elif shallow_is_composite and input_is_composite:
            pass
        elif not (isinstance(shallow_tree, Mapping) and isinstance(input_tree, Mapping)):
            raise mismatch
    if shallow_is_composite or input_is_composite:
        if not (shallow_is_composite and input_is_composite):
            raise mismatch
        dtypes = [
            tuple(c.dtype for c in t._components() if c is not None)
            for t in (shallow_tree, input_tree)
        ]
        if type(shallow_tree) is not type(input_tree) or dtypes[0] != dtypes[1]:
            raise ValueError(
                "Incompatible CompositeTensor TypeSpecs: "
                f"{_spec(shallow_tree)} vs. {_spec(input_tree)}"
            )
    elif len(input_tree) != len(shallow_tree):
        raise ValueError(
            "The two structures don't have the same sequence length. Input structure has "
            f"length {len(input_tree)}, while shallow structure has length {len(shallow_tree)}."
        )
    if isinstance(shallow_tree, Mapping):
        absent = set(shallow_tree) - set(input_tree)
        if absent:
            raise ValueError(
                "The shallow_tree's keys are not a subset of the input_tree's keys. The "
                "shallow_tree has the following keys that are not in the input_tree: "
                f"{sorted(absent)}."
            )
    for shallow_branch, input_branch in zip(
        _values(shallow_tree, expand), _values(input_tree, expand)
    ):
        assert_shallow_structure(shallow_branch, input_branch, check_types, expand)


def _spec(x: CompositeTensor) -> str:
    spec = getattr(x, "_type_spec", None)
    return repr(spec) if spec is not None else type(x).__name__


def _yield_flat_up_to(shallow_tree, input_tree, expand: bool, path=()):
    """``(path, value)`` of ``input_tree`` at each leaf of ``shallow_tree``."""
    if not _nested(shallow_tree, expand):
        yield path, input_tree
        return
    inputs = dict(_sorted_items(input_tree, _kind(input_tree, expand)))
    for key, shallow_subtree in _sorted_items(shallow_tree, _kind(shallow_tree, expand)):
        yield from _yield_flat_up_to(shallow_subtree, inputs[key], expand, path + (key,))


def flatten_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False) -> list:
    """``input_tree`` flattened only as deep as ``shallow_tree``: deeper parts stay whole.

    Args:
        shallow_tree: a structure; its leaves mark where to stop.
        input_tree: a structure with ``shallow_tree``'s upper nesting.
        check_types: whether node types must match.
        expand_composites: whether SparseTensors and IndexedSlices are structures.

    Returns:
        A list, one item per leaf of ``shallow_tree``.

    Raises:
        TypeError, ValueError: as ``assert_shallow_structure``.

    Example:
        >>> from tapejax import nest
        >>> nest.flatten_up_to([0, [0, 0]], [[1, 2], [3, [4]]])
        [[1, 2], 3, [4]]
    """
    expand = bool(expand_composites)
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand)
    return [v for _, v in _yield_flat_up_to(shallow_tree, input_tree, expand)]


def flatten_with_tuple_paths_up_to(
    shallow_tree, input_tree, check_types=True, expand_composites=False
) -> list:
    """``flatten_up_to`` as ``(path, value)`` pairs, each path a tuple of keys."""
    expand = bool(expand_composites)
    assert_shallow_structure(shallow_tree, input_tree, check_types, expand)
    return list(_yield_flat_up_to(shallow_tree, input_tree, expand))


def map_structure_with_tuple_paths_up_to(shallow_tree, func, *inputs, **kwargs):
    """``func(path, *values)`` at each leaf of ``shallow_tree``, the values taken from
    ``inputs`` flattened up to it; ``check_types`` and ``expand_composites`` are taken from
    ``kwargs``, the rest is passed to ``func``."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    check_types = kwargs.pop("check_types", True)
    expand = bool(kwargs.pop("expand_composites", False))
    for input_tree in inputs:
        assert_shallow_structure(shallow_tree, input_tree, check_types, expand)
    values = [flatten_up_to(shallow_tree, t, check_types, expand) for t in inputs]
    paths = [p for p, _ in _yield_flat_up_to(shallow_tree, inputs[0], expand)]
    results = [func(*args, **kwargs) for args in zip(paths, *values)]
    return pack_sequence_as(shallow_tree, results, expand)


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """``func`` applied to ``inputs`` flattened up to ``shallow_tree``; the result has
    ``shallow_tree``'s nesting.

    Args:
        shallow_tree: a structure common to the tops of all ``inputs``.
        func: takes one argument per input.
        *inputs: structures with ``shallow_tree``'s upper nesting.
        **kwargs: ``check_types`` and ``expand_composites``, as in ``map_structure``
            (TF passes any other keyword on and its wrapper refuses it; so does tapejax).

    Returns:
        ``shallow_tree``'s nesting holding ``func``'s results.

    Example:
        >>> from tapejax import nest
        >>> nest.map_structure_up_to([None, None], len, [[1, 2], (3,)])
        [2, 1]
    """
    return map_structure_with_tuple_paths_up_to(
        shallow_tree, lambda _, *values: func(*values), *inputs, **kwargs
    )


def map_structure_with_tuple_paths(func, *structure, **kwargs):
    """``func(path, *leaves)`` over structures of the same nesting, each path a tuple of
    keys (indices, dict keys, field names)."""
    return map_structure_with_tuple_paths_up_to(structure[0], func, *structure, **kwargs)


def map_structure_with_paths(func, *structure, **kwargs):
    """``func(path, *leaves)`` over structures of the same nesting, each path its keys
    joined by ``"/"``."""

    def with_string_path(tuple_path, *inputs, **kw):
        return func("/".join(str(s) for s in tuple_path), *inputs, **kw)

    return map_structure_with_tuple_paths_up_to(
        structure[0], with_string_path, *structure, **kwargs
    )


def yield_flat_paths(nest, expand_composites=False):
    """The tuple path of each leaf of ``nest``, in ``flatten``'s order."""
    for path, _ in _yield_flat_up_to(nest, nest, bool(expand_composites)):
        yield path


def flatten_with_tuple_paths(structure, expand_composites=False) -> list:
    """``flatten`` as ``(path, leaf)`` pairs, each path a tuple of keys.

    Example:
        >>> from tapejax import nest
        >>> nest.flatten_with_tuple_paths({"b": [7], "a": 8})
        [(('a',), 8), (('b', 0), 7)]
    """
    return list(
        zip(
            yield_flat_paths(structure, expand_composites),
            flatten(structure, expand_composites),
        )
    )


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False) -> list:
    """``flatten`` as ``(path, leaf)`` pairs, each path its keys joined by ``separator``."""
    paths = (
        separator.join(str(p) for p in path)
        for path in yield_flat_paths(structure, expand_composites)
    )
    return list(zip(paths, flatten(structure, expand_composites)))


def get_traverse_shallow_structure(traverse_fn, structure, expand_composites=False):
    """A shallow structure of bools: how far ``traverse_fn`` says to descend into
    ``structure`` (True: go on, False: stop here), for ``flatten_up_to`` and friends.

    Args:
        traverse_fn: called on each visited substructure; returns a bool, or (for a
            nested one) a one-level structure of bools, one per child.
        structure: the structure to traverse.
        expand_composites: whether SparseTensors and IndexedSlices are structures.

    Raises:
        TypeError: ``traverse_fn`` returned something else, with TF's text.
    """
    expand = bool(expand_composites)
    to_traverse = traverse_fn(structure)
    if not _nested(structure, expand):
        if not isinstance(to_traverse, bool):
            raise TypeError(
                f"traverse_fn returned structure: {to_traverse} for non-structure: {structure}"
            )
        return to_traverse
    level = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        for branch in _values(structure, expand):
            level.append(get_traverse_shallow_structure(traverse_fn, branch, expand))
    elif not _nested(to_traverse, expand):
        raise TypeError(
            f"traverse_fn returned a non-bool scalar: {to_traverse} for input: {structure}"
        )
    else:
        assert_shallow_structure(to_traverse, structure, expand_composites=expand)
        for t, branch in zip(_values(to_traverse, expand), _values(structure, expand)):
            if not isinstance(t, bool):
                raise TypeError(
                    "traverse_fn didn't return a depth=1 structure of bools.  saw: "
                    f"{to_traverse}  for structure: {structure}"
                )
            # As TF: the recursion below a per-child answer does not expand composites.
            level.append(get_traverse_shallow_structure(traverse_fn, branch) if t else False)
    return sequence_like(structure, level)


def list_to_tuple(structure):
    """``structure`` with every list (at any depth) made a tuple."""

    def tuple_for_list(instance, args):
        return tuple(args) if isinstance(instance, list) else sequence_like(instance, args)

    if not _nested(structure, False):
        return structure
    flat = flatten(structure)
    _, packed = _pack_with(structure, flat, 0, tuple_for_list)
    return tuple_for_list(structure, packed)


def _pack_with(structure, flat: list, index: int, make):
    packed = []
    for _, s in _sorted_items(structure, _kind(structure)):
        if _nested(s, False):
            index, child = _pack_with(s, flat, index, make)
            packed.append(make(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def flatten_dict_items(dictionary) -> dict:
    """A dict whose nested keys map to the matching nested values, flattened in parallel:
    ``{(1, 2): (3, 4)}`` gives ``{1: 3, 2: 4}``.

    Raises:
        TypeError: ``dictionary`` is not a mapping.
        ValueError: a key's and its value's structures differ, or a key repeats.
    """
    if not isinstance(dictionary, Mapping):
        raise TypeError(
            "FlattenDictItems: 'dict' must be a dictionary or collection.Mapping type "
            f"object, instead of '{type(dictionary).__name__}'."
        )
    out: dict = {}
    for key, value in dictionary.items():
        if not _nested(key, False):
            if key in out:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {key}")
            out[key] = value
            continue
        keys, values = flatten(key), flatten(value)
        if len(keys) != len(values):
            raise ValueError(
                f"Could not flatten dictionary. Key had {len(keys)} elements, but value had "
                f"{len(values)} elements. Key: {keys}, value: {values}."
            )
        for k, v in zip(keys, values):
            if k in out:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            out[k] = v
    return out
