"""``tf.nest``'s core: what counts as a nested structure, its leaves in TF's order
(``flatten``), rebuilding it (``pack_sequence_as``, ``map_structure``) and comparing two of
them (``assert_same_structure``), with TF's rules and error texts. Shallow structures and
paths live in ``nest_shallow``.

TF's rules, unlike ``jax.tree_util``'s: ``None`` is a leaf (``gradient([y, None], x)`` must
see the ``None`` to raise TF's error), and so are Tensors, Variables, NumPy arrays, strings
and sets; dicts and other mappings give their values in sorted-key order (an
``OrderedDict``'s order is ignored); namedtuples, ``attrs`` classes, mapping views, any
other ``collections.abc.Sequence`` (``range``) and classes with TF's ``__tf_flatten__``
protocol are structures. With ``expand_composites`` a SparseTensor or IndexedSlices is a
structure of its component Tensors.

Tapes, ``tapejax.function`` and the control-flow ops flatten every call's arguments
through this module: a flat list of known leaf types takes a fast path, and what kind of
node a type is gets cached per type, as TF's C++ does. This module must not import any op.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, MappingView, MutableMapping, Sequence

import jax

from . import composite
from .composite import CompositeTensor

__all__ = [
    "assert_same_structure",
    "flatten",
    "is_attrs",
    "is_mapping",
    "is_namedtuple",
    "is_nested",
    "is_nested_or_composite",
    "map_structure",
    "pack_sequence_as",
    "same_namedtuples",
    "sequence_like",
]

# -- what a value is -------------------------------------------------------------------------

# Node kinds. A composite is a leaf unless composites are expanded.
_LEAF, _DICT, _MAPPING, _VIEW, _ATTRS, _CUSTOM, _SEQUENCE, _COMPOSITE = range(8)
_kinds: dict = {}  # type -> kind (without expanding composites)


def _classify(x) -> int:
    cls = type(x)
    if isinstance(x, dict):
        return _DICT
    if isinstance(x, Mapping):
        return _MAPPING
    if isinstance(x, MappingView):
        return _VIEW
    if hasattr(cls, "__attrs_attrs__"):
        return _ATTRS
    if hasattr(cls, "__tf_flatten__") and hasattr(cls, "__tf_unflatten__"):
        return _CUSTOM
    if isinstance(x, Sequence) and not isinstance(x, (str, bytes)):
        return _SEQUENCE
    return _LEAF


_expanded: dict = {}  # type of a leaf -> its kind with composites expanded (-1: refused)


def _classify_expanded(x) -> int:
    if isinstance(x, CompositeTensor):
        return _COMPOSITE
    # A LinearOperator (registered with ``composite`` or not) and a TypeSpec: TF expands
    # them, by rules tapejax does not reproduce.
    names = {c.__name__ for c in type(x).__mro__}
    if composite.is_registered(x) or {"LinearOperator", "SparseTensorSpec"} & names:
        return -1
    return _LEAF


def _expanded_kind(x) -> int:
    k = _expanded.get(type(x))
    if k is None:
        k = _expanded[type(x)] = _classify_expanded(x)
    return k


def _kind(x, expand: bool = False) -> int:
    cls = type(x)
    k = _kinds.get(cls)
    if k is None:
        k = _kinds[cls] = _classify(x)
    if expand and k == _LEAF:
        k = _expanded_kind(x)
        if k < 0:
            raise NotImplementedError(
                f"tapejax.nest: expand_composites=True on a {cls.__name__}: TF expands a "
                "LinearOperator into its parameters and a TypeSpec into its component "
                "specs; tapejax takes them only as leaves (expand_composites=False)"
            )
    return k


def is_nested(seq) -> bool:
    """Whether ``seq`` is a nested structure (``tf.nest.is_nested``).

    Lists, tuples (namedtuples included), dicts and other ``collections.abc.Mapping``\\ s,
    mapping views, ``attrs`` classes, other non-string ``collections.abc.Sequence``\\ s and
    classes with ``__tf_flatten__``/``__tf_unflatten__`` are nested; Tensors, NumPy arrays,
    strings, sets, ``None`` and composites such as SparseTensor are not.

    Example:
        >>> import tapejax as tf
        >>> tf.nest.is_nested([1, 2]), tf.nest.is_nested(None), tf.nest.is_nested("ab")
        (True, False, False)
    """
    return _kind(seq) != _LEAF


def is_nested_or_composite(seq) -> bool:
    """Whether ``seq`` is nested or a composite tensor (SparseTensor, IndexedSlices)."""
    return _kind(seq) != _LEAF or isinstance(seq, CompositeTensor)


def is_mapping(obj) -> bool:
    """Whether ``obj`` is a ``collections.abc.Mapping`` (dicts included)."""
    return _kind(obj) in (_DICT, _MAPPING)


def is_attrs(obj) -> bool:
    """Whether ``obj`` is an instance of an ``attrs``-decorated class."""
    return _kind(obj) == _ATTRS


def is_namedtuple(instance, strict: bool = False) -> bool:
    """Whether ``instance`` is a namedtuple: a tuple with a ``_fields`` sequence of strings
    (``strict``: a direct subclass of tuple, not a subclass of a namedtuple)."""
    if not isinstance(instance, tuple):
        return False
    if strict and type(instance).__base__ is not tuple:
        return False
    fields = getattr(instance, "_fields", None)
    if not isinstance(fields, Sequence):
        return False
    return all(isinstance(f, (str, bytes)) for f in fields)


def same_namedtuples(nest1, nest2) -> bool:
    """Whether two namedtuples have the same class name and fields (TF's notion of the
    same namedtuple type, which two calls of ``collections.namedtuple`` satisfy)."""
    return nest1._fields == nest2._fields and type(nest1).__name__ == type(nest2).__name__


# -- children of a node ----------------------------------------------------------------------


def _children(x, kind: int, tf_sort_error: bool = False) -> list:
    """The children of a node in ``flatten``'s order. An unsortable dict raises Python's
    own TypeError, as TF's ``flatten`` does, or (``tf_sort_error``) the text TF's
    ``pack_sequence_as`` gives."""
    if kind == _SEQUENCE:  # a namedtuple's fields are in its tuple order
        return list(x)
    if kind == _DICT or kind == _MAPPING:
        keys = _sorted_keys_or_raise(x) if tf_sort_error else sorted(x.keys())
        return [x[k] for k in keys]
    if kind == _ATTRS:
        return [getattr(x, a.name) for a in type(x).__attrs_attrs__]
    if kind == _CUSTOM:
        return list(x.__tf_flatten__()[1])
    if kind == _COMPOSITE:
        return [list(x._components())]
    return list(x)  # a mapping view


def _sorted_keys_or_raise(d) -> list:
    try:
        return sorted(d.keys())
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _sorted_items(x, kind: int) -> list:
    """``(key, child)`` pairs in TF's order: indices, sorted dict keys, attribute or field
    names, a composite's type name (TF's ``_yield_sorted_items``, the keys of paths)."""
    if kind == _DICT or kind == _MAPPING:
        return [(k, x[k]) for k in _sorted_keys_or_raise(x)]
    if kind == _ATTRS:
        return [(a.name, getattr(x, a.name)) for a in type(x).__attrs_attrs__]
    if kind == _SEQUENCE and type(x) is not list and is_namedtuple(x):
        return [(f, getattr(x, f)) for f in x._fields]
    if kind == _COMPOSITE:
        return [(type(x).__name__, list(x._components()))]
    if kind == _CUSTOM:
        return list(enumerate(x.__tf_flatten__()[1]))
    return list(enumerate(x))


def sequence_like(instance, args):
    """A node like ``instance`` holding the children ``args`` (in ``flatten``'s order)."""
    cls = type(instance)
    if cls is list or cls is tuple:
        return cls(args)
    kind = _kind(instance, isinstance(instance, CompositeTensor))
    if kind == _DICT or kind == _MAPPING:
        result = dict(zip(_sorted_keys_or_raise(instance), args))
        if isinstance(instance, MutableMapping):
            d = defaultdict(instance.default_factory) if cls is defaultdict else cls()
            for key in instance:
                d[key] = result[key]
            return d
        try:
            return cls((key, result[key]) for key in instance)
        except TypeError as err:
            raise TypeError(
                f"Error creating an object of type {cls} like {instance}. Note that it must "
                "accept a single positional argument representing an iterable of key-value "
                f"pairs, in addition to self. Cause: {err}"
            ) from None
    if kind == _VIEW:
        return list(args)
    if kind == _ATTRS or is_namedtuple(instance):
        return type(instance)(*args)
    if kind == _COMPOSITE:
        (components,) = args
        return instance._with_components(tuple(components))
    if isinstance(instance, range):
        return list(args)
    if kind == _CUSTOM:
        return instance.__tf_unflatten__(instance.__tf_flatten__()[0], tuple(args))
    return type(instance)(args)


# -- flatten ---------------------------------------------------------------------------------

# Types seen as leaves (and not composites): a flat list or tuple of them, the usual
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
    """The leaves of a nested structure, in TF's order (``tf.nest.flatten``).

    Dict (and other mapping) values come in sorted-key order, namedtuple and ``attrs``
    values in field order. A leaf (``None`` included) gives ``[structure]``.

    Args:
        structure: a leaf or a nested structure.
        expand_composites: whether a SparseTensor or IndexedSlices gives its component
            Tensors (``indices, values, dense_shape``; ``values, indices[, dense_shape]``)
            instead of itself.

    Returns:
        A list of the leaves.

    Raises:
        TypeError: a dict's keys cannot be sorted.
        NotImplementedError: ``expand_composites`` meets a LinearOperator or a TypeSpec,
            which TF expands and tapejax does not.

    Example:
        >>> import tapejax as tf
        >>> tf.nest.flatten({"b": [1, None], "a": (2,)})
        [2, 1, None]
    """
    if _flat(structure):  # composites are never fast-path leaves: nothing to expand
        return list(structure)
    out: list = []
    _flatten_into(structure, out, bool(expand_composites))
    return out


def _flatten_into(s, out: list, expand: bool) -> None:
    kind = _kind(s, expand)
    if kind == _LEAF:
        # Only what stays a leaf when composites are expanded may take the fast path.
        if type(s) not in _leaf_types and _expanded_kind(s) == _LEAF:
            _leaf_types.add(type(s))
        out.append(s)
        return
    for x in _children(s, kind):
        _flatten_into(x, out, expand)


# -- pack_sequence_as ------------------------------------------------------------------------


def _truncate(value, length: int) -> str:
    text = str(value)
    return text[:length] + (text[length:] and "...")


def pack_sequence_as(structure, flat_sequence, expand_composites: bool = False):
    """``flat_sequence`` packed into the shape of ``structure`` (``tf.nest.pack_sequence_as``),
    the inverse of ``flatten``.

    Args:
        structure: a nested structure (or a leaf, for a one-item ``flat_sequence``).
        flat_sequence: a flat list of the new leaves, in ``flatten``'s order.
        expand_composites: whether ``structure``'s composites take their components from
            ``flat_sequence`` (as ``flatten(..., expand_composites=True)`` gave them).

    Returns:
        ``structure``'s nesting with the leaves of ``flat_sequence``; a dict keeps its own
        key order, an ``OrderedDict`` or ``defaultdict`` its type.

    Raises:
        TypeError: ``flat_sequence`` is not a sequence, or a dict's keys cannot be sorted.
        ValueError: the number of leaves differs.

    Example:
        >>> import tapejax as tf
        >>> tf.nest.pack_sequence_as({"b": 0, "a": [0]}, [1, 2])
        {'b': 2, 'a': [1]}
    """
    if _flat(structure):
        kind = type(flat_sequence)
        if (kind is list or kind is tuple) and len(flat_sequence) == len(structure):
            return list(flat_sequence) if type(structure) is list else tuple(flat_sequence)
    expand = bool(expand_composites)
    if _kind(flat_sequence, expand) == _LEAF:
        raise TypeError(
            f"Attempted to pack value:\n  {_truncate(flat_sequence, 100)}\ninto a structure, "
            f"but found incompatible type `{type(flat_sequence)}` instead."
        )
    if _kind(structure, expand) == _LEAF:
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  "
                f"{_truncate(structure, 100)}\nHowever the input is a sequence "
                f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                f"{_truncate(flat_sequence, 100)}\nnest cannot guarantee that it is safe to map "
                "one to the other."
            )
        return flat_sequence[0]
    flat = list(flat_sequence)
    try:
        index, packed = _packed(structure, flat, 0, expand)
        if index < len(flat):
            raise IndexError
    except IndexError:
        n = len(flatten(structure, expand))
        if n != len(flat):
            raise ValueError(
                f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had "
                f"{len(flat)} items.  Structure: {structure}, flat_sequence: {flat_sequence}."
            ) from None
        raise
    return sequence_like(structure, packed)


def _packed(structure, flat: list, index: int, expand: bool):
    packed = []
    for s in _children(structure, _kind(structure, expand), True):
        if _kind(s, expand) != _LEAF:
            index, child = _packed(s, flat, index, expand)
            packed.append(sequence_like(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


# -- map_structure ---------------------------------------------------------------------------


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the leaves of one or more structures of the same nesting
    (``tf.nest.map_structure``).

    Args:
        func: a callable taking as many arguments as there are structures.
        *structure: structures of the same nesting (checked by ``assert_same_structure``).
        **kwargs: ``check_types`` (default True: the node types must match too) and
            ``expand_composites`` (default False), as in TF; nothing else.

    Returns:
        The first structure's nesting holding ``func``'s results.

    Raises:
        TypeError: ``func`` is not callable, or the node types differ.
        ValueError: no structure, an unknown keyword, or the nestings differ.

    Example:
        >>> import tapejax as tf
        >>> tf.nest.map_structure(lambda a, b: a + b, {"x": 1, "y": (2,)}, {"x": 10, "y": (20,)})
        {'x': 11, 'y': (22,)}
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: "
            "`{}`".format("`, `".join(kwargs.keys()))
        )
    first = structure[0]
    for other in structure[1:]:
        assert_same_structure(first, other, check_types, expand_composites)
    if len(structure) == 1:
        return pack_sequence_as(
            first, [func(x) for x in flatten(first, expand_composites)], expand_composites
        )
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(first, [func(*xs) for xs in zip(*flats)], expand_composites)


# -- assert_same_structure -------------------------------------------------------------------


class _Dot:
    """The "." TF's error texts draw every leaf as."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "."

    __str__ = __repr__


_DOT = _Dot()


def _describe(x) -> str:
    name = type(x).__name__
    if name == "Tensor" and type(x).__module__ == "tapejax._src.tensor":
        # TF names its tensors' classes by where they live: EagerTensor or SymbolicTensor
        # (the traced ones, whose text TF writes with a graph name tapejax has not got).
        traced = isinstance(getattr(x, "_value", None), jax.core.Tracer)
        name = "SymbolicTensor" if traced else "EagerTensor"
    return f"type={name} str={x!s}"  # str(), as TF's C++: a Tensor formats its NumPy value


def _type_name(cls) -> str:
    """CPython's ``tp_name``: a class defined in Python gives its name, a built-in one its
    dotted path (``collections.OrderedDict``)."""
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # a heap type
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _spec_text(x) -> str:
    """``x``'s TypeSpec as TF's ``_describe`` shows it (a non-composite: itself)."""
    if type(x).__name__ == "SparseTensor":
        return _describe(x._type_spec)
    if type(x).__name__ == "IndexedSlices":
        from .tensor_shape import TensorShape

        shape = x.dense_shape
        dense = "None" if shape is None else repr(shape.dtype)
        try:  # the dense shape's values, where they are known (not traced)
            dims = [int(d) for d in shape]
        except (TypeError, jax.errors.ConcretizationTypeError):
            dims = [None, *x.values.shape[1:]]
        return (
            f"type=IndexedSlicesSpec str=IndexedSlicesSpec({TensorShape(dims)!r}, "
            f"{x.values.dtype!r}, {x.indices.dtype!r}, {dense}, {x.indices.shape!r})"
        )
    return _describe(x)


def _spec_key(x):
    """What must agree between two composites for TF's ``most_specific_compatible_type`` to
    exist: their class and dtypes (their shapes always have a common supertype)."""
    if not isinstance(x, CompositeTensor):
        return None
    return (type(x), tuple(c.dtype for c in x._components() if c is not None))


class _Mismatch(Exception):
    def __init__(self, message: str, type_error: bool):
        super().__init__(message)
        self.type_error = type_error


def _keys_error(d1, d2):
    return _Mismatch(
        "The two dictionaries don't have the same set of keys. First structure has keys "
        f"{_describe(list(d1.keys()))}, while second structure has keys "
        f"{_describe(list(d2.keys()))}",
        False,
    )


def _compare(o1, o2, check_types: bool, expand: bool) -> None:
    k1, k2 = _kind(o1, expand), _kind(o2, expand)
    if (k1 == _LEAF) != (k2 == _LEAF):
        seq, other = (o1, o2) if k1 != _LEAF else (o2, o1)
        raise _Mismatch(
            f'Substructure "{_describe(seq)}" is a sequence, while substructure '
            f'"{_describe(other)}" is not',
            False,
        )
    if k1 == _LEAF:
        return
    if check_types:
        t1, t2 = type(o1), type(o2)
        if is_namedtuple(o1) and is_namedtuple(o2):
            mismatch = not same_namedtuples(o1, o2)
        else:
            mismatch = (
                t1 is not t2
                and not (isinstance(o1, list) and isinstance(o2, list))
                and not (k1 in (_DICT, _MAPPING) and k2 in (_DICT, _MAPPING))
                and not (k1 == _COMPOSITE and k2 == _COMPOSITE)
            )
        if mismatch:
            raise _Mismatch(
                "The two namedtuples don't have the same sequence type. First structure "
                f"{_describe(o1)} has type {_type_name(t1)}, while second structure "
                f"{_describe(o2)} has type {_type_name(t2)}",
                True,
            )
        if k1 in (_DICT, _MAPPING):
            if len(o1) != len(o2) or any(k not in o2 for k in o1):
                raise _keys_error(o1, o2)
    if expand and (k1 == _COMPOSITE or k2 == _COMPOSITE):
        if _spec_key(o1) != _spec_key(o2):
            raise _Mismatch(
                f"Incompatible CompositeTensor TypeSpecs: {_spec_text(o1)} vs. {_spec_text(o2)}",
                False,
            )
    c1, c2 = _children(o1, k1), _children(o2, k2)
    for v1, v2 in zip(c1, c2):
        _compare(v1, v2, check_types, expand)
    if len(c1) != len(c2):
        raise _Mismatch(
            "The two structures don't have the same number of elements. First structure: "
            f"{_describe(o1)}. Second structure: {_describe(o2)}",
            False,
        )


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """Raises unless two structures are nested the same way (``tf.nest.assert_same_structure``).

    Leaves are not compared. Two namedtuple classes with the same name and fields count as
    the same type, and so do any two mappings or any two list types.

    Args:
        nest1: a leaf or nested structure.
        nest2: another.
        check_types: whether the node types must match too (a list is not a tuple), and
            the key sets of dicts.
        expand_composites: whether SparseTensors and IndexedSlices are compared as
            structures of their components (their class and dtypes must match).

    Raises:
        ValueError: the nestings differ ("The two structures don't have the same nested
            structure."), with TF's text.
        TypeError: the node types differ (``check_types``), with TF's text.

    Example:
        >>> import tapejax as tf
        >>> tf.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    """
    check_types, expand = bool(check_types), bool(expand_composites)
    try:
        _compare(nest1, nest2, check_types, expand)
    except _Mismatch as e:
        text = (
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\n"
            f"More specifically: {e}"
        )
        str1 = str(map_structure(lambda _: _DOT, nest1))
        str2 = str(map_structure(lambda _: _DOT, nest2))
        text += f"\nEntire first structure:\n{str1}\nEntire second structure:\n{str2}"
        raise (TypeError if e.type_error else ValueError)(text) from None


# -- for tapejax's own modules ---------------------------------------------------------------


def _sorted_keys(d: Mapping):
    """A mapping's keys sorted, or in their own order where they cannot be sorted (for
    checkpoint and Module traversal, which must not fail on such dicts)."""
    try:
        return sorted(d)
    except TypeError:
        return list(d)
