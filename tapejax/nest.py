"""``tf.nest``: flattening, rebuilding and comparing nested structures, with TF's rules.

Besides TF 2's public five (``assert_same_structure``, ``flatten``, ``is_nested``,
``map_structure``, ``pack_sequence_as``), the helpers of TF's ``tensorflow.python.util.nest``
that TF code often imports (shallow structures and paths).
"""

from tapejax._src.nest import (
    assert_same_structure,
    flatten,
    is_attrs,
    is_mapping,
    is_namedtuple,
    is_nested,
    is_nested_or_composite,
    map_structure,
    pack_sequence_as,
    same_namedtuples,
)
from tapejax._src.nest_shallow import (
    assert_shallow_structure,
    flatten_dict_items,
    flatten_up_to,
    flatten_with_joined_string_paths,
    flatten_with_tuple_paths,
    flatten_with_tuple_paths_up_to,
    get_traverse_shallow_structure,
    list_to_tuple,
    map_structure_up_to,
    map_structure_with_paths,
    map_structure_with_tuple_paths,
    map_structure_with_tuple_paths_up_to,
    yield_flat_paths,
)

__all__ = [
    "assert_same_structure",
    "assert_shallow_structure",
    "flatten",
    "flatten_dict_items",
    "flatten_up_to",
    "flatten_with_joined_string_paths",
    "flatten_with_tuple_paths",
    "flatten_with_tuple_paths_up_to",
    "get_traverse_shallow_structure",
    "is_attrs",
    "is_mapping",
    "is_namedtuple",
    "is_nested",
    "is_nested_or_composite",
    "list_to_tuple",
    "map_structure",
    "map_structure_up_to",
    "map_structure_with_paths",
    "map_structure_with_tuple_paths",
    "map_structure_with_tuple_paths_up_to",
    "pack_sequence_as",
    "same_namedtuples",
    "yield_flat_paths",
]
