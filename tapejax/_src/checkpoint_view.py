"""Views of an object graph (``tf.train.TrackableView``) and of a checkpoint's
(``tf.train.CheckpointView``).

A checkpoint's object graph is TF's: its nodes numbered breadth first from the saved
root, each object's children in TF's order (a Module's attributes in the order they were
set, a list's elements by index, a dict's entries in insertion order; tables and
functions are nodes too). ``Checkpoint`` writes it into the file's metadata, so node ids
are the ones TF gives the same objects.
This module reads and numbers objects; it must never change one.
"""

from __future__ import annotations

import collections
import json
import os
import weakref

import numpy as np

from .module import Module
from .python_state import PythonState
from .tf_logging import logger

__all__ = ["CheckpointView", "TrackableView", "object_graph"]


def _is_variable(x) -> bool:
    return getattr(x, "_is_variable", False)


def _leaf_types() -> tuple:
    """Types TF tracks as nodes without children (tables, functions, initializers)."""
    from .function import ConcreteFunction, Function
    from .lookup_ops import DenseHashTable, KeyValueTensorInitializer, MutableHashTable

    return (ConcreteFunction, DenseHashTable, Function, KeyValueTensorInitializer, MutableHashTable)


def _tables() -> tuple:
    from .lookup_ops import StaticHashTable, StaticVocabularyTable

    return StaticHashTable, StaticVocabularyTable


def _tracked(value) -> bool:
    """Whether TF would track ``value`` as an attribute's child (lists and dicts always)."""
    from .checkpoint import Checkpoint

    if _is_variable(value) or isinstance(value, (Module, Checkpoint, PythonState)):
        return True
    if isinstance(value, _leaf_types() + _tables()):
        return True
    if isinstance(value, (list, tuple, dict)):
        return True
    if isinstance(value, type):
        return False
    return callable(getattr(value, "_checkpoint_children", None)) or hasattr(value, "variables")


def _children(obj) -> dict:
    """``{name: child}`` of one object, in TF's order."""
    from .checkpoint import Checkpoint

    if _is_variable(obj) or isinstance(obj, (PythonState, *_leaf_types())):
        return {}
    static_table, vocabulary_table = _tables()
    if isinstance(obj, static_table):
        return {"_initializer": obj._initializer}
    if isinstance(obj, vocabulary_table):
        return {"_initializer": obj._table._initializer}
    if isinstance(obj, Checkpoint):
        out = {}
        if obj._root is not None:
            out["_root"] = obj._root
        out.update(obj._objects)
        if obj._root is not None:
            out["root"] = obj._root
        if obj._save_counter is not None:
            out["save_counter"] = obj._save_counter
        return out
    named = getattr(obj, "_checkpoint_children", None)
    if callable(named) and not isinstance(obj, type):
        return {str(k): v for k, v in named().items() if _tracked(v)}
    if isinstance(obj, Module):
        ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
        return {k: v for k, v in vars(obj).items() if k not in ignored and _tracked(v)}
    if isinstance(obj, dict):
        return {str(k): v for k, v in obj.items() if _tracked(v)}
    if isinstance(obj, (list, tuple)):
        return {str(i): v for i, v in enumerate(obj) if _tracked(v)}
    if hasattr(obj, "variables") and not isinstance(obj, type):
        variables = obj.variables
        return {"variables": list(variables() if callable(variables) else variables)}
    raise AttributeError(
        f"{type(obj).__name__!r} object has no attribute '_maybe_initialize_trackable'"
    )


def _saved_root_children(checkpoint) -> dict:
    """The children of a saved checkpoint's node 0: TF saves ``Checkpoint(root)`` as the
    root itself, with the checkpoint's other children and ``root`` (node 0) added."""
    root = checkpoint._root
    out = dict(_children(root))
    out.update(checkpoint._objects)
    out["root"] = root
    if checkpoint._save_counter is not None:
        out["save_counter"] = checkpoint._save_counter
    return out


def _breadth_first(root, root_children=_children):
    """The objects reachable from ``root``, breadth first, and each one's ``[name, id]``
    pairs; ``root_children`` gives node 0's children."""
    order, ids, edges = [root], {id(root): 0}, []
    for current in order:  # grows while it is walked
        named = root_children(current) if not edges else _children(current)
        node = []
        for name, child in named.items():
            if id(child) not in ids:
                ids[id(child)] = len(order)
                order.append(child)
            node.append([name, ids[id(child)]])
        edges.append(node)
    return order, edges


def object_graph(checkpoint) -> list:
    """The object graph a checkpoint saves: per node id, its ``[name, child id]`` pairs."""
    if checkpoint._root is not None:
        return _breadth_first(checkpoint._root, lambda _: _saved_root_children(checkpoint))[1]
    return _breadth_first(checkpoint)[1]


class TrackableView:
    """The object graph under a Module, Checkpoint or Variable (``tf.train.TrackableView``).

    Args:
        root: the object to view (a Module, Checkpoint, Variable, or a weak reference).

    Raises:
        TypeError: ``root`` cannot be weakly referenced (a number, a plain list: Python's
            text, as TF's).

    Example:
        >>> import tapejax as tf
        >>> class Net(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(1.0)
        ...         self.parts = [tf.Variable(2.0)]
        >>> net = Net()
        >>> list(tf.train.TrackableView(net).children(net))
        ['w', 'parts']
        >>> len(tf.train.TrackableView(net).descendants())
        4
    """

    def __init__(self, root):
        self._root_ref = root if isinstance(root, weakref.ref) else weakref.ref(root)

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """``{name: child}`` of ``obj``: a Module's attributes in the order they were set,
        a list's elements named ``"0"``, ``"1"``..., a dict's entries, a Checkpoint's objects.

        Raises:
            AttributeError: ``obj`` is not an object TF tracks (TF's text).
        """
        del save_type, kwargs
        return _children(obj)

    @property
    def root(self):
        """The viewed object."""
        return self._root_ref()

    def descendants(self) -> list:
        """Every object reachable from the root, breadth first, the root first."""
        order, _ = _breadth_first(self.root)
        return order


def _graph_of(save_path) -> list:
    from .checkpoint import _META_KEY, _checkpoint_file

    path = os.fspath(save_path)
    target = _checkpoint_file(path)
    if not os.path.exists(target):
        from .errors import NotFoundError

        raise NotFoundError(
            None,
            None,
            "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {path}",
        )
    with np.load(target, allow_pickle=False) as data:
        meta = json.loads(str(data[_META_KEY])) if _META_KEY in data.files else {}
    graph = meta.get("object_graph")
    if graph is None:
        raise ValueError(
            f'The specified checkpoint "{path}" does not appear to be object-based since it '
            'is missing its object graph (tapejax writes it in the "object_graph" entry of '
            "its metadata). It was written by an older tapejax, or is not a tapejax "
            "checkpoint: save it again with tapejax.train.Checkpoint."
        )
    return graph


class CheckpointView:
    """The object graph saved in a checkpoint (``tf.train.CheckpointView``).

    Node ids are TF's: breadth first from the saved root (node 0), children in TF's order.

    Args:
        save_path: a path ``Checkpoint.save`` or ``write`` returned.

    Raises:
        NotFoundError: there is no such checkpoint (TF's text).
        ValueError: the file holds no object graph.

    Example:
        >>> import os, tempfile, tapejax as tf
        >>> class Net(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable(1.0)
        >>> path = tf.train.Checkpoint(model=Net()).save(os.path.join(tempfile.mkdtemp(), "c"))
        >>> view = tf.train.CheckpointView(path)
        >>> view.children(0), view.children(1)
        ({'model': 1, 'save_counter': 2}, {'w': 3})
    """

    def __init__(self, save_path):
        self._nodes = _graph_of(save_path)

    def children(self, node_id) -> dict:
        """``{name: node id}`` of the children of node ``node_id``.

        Raises:
            IndexError: there is no such node (Python's text, as TF's).
        """
        return {name: child for name, child in self._nodes[node_id]}

    def descendants(self) -> list:
        """Every node id reachable from node 0, breadth first."""
        return list(self._descendants_with_paths())

    def _descendants_with_paths(self) -> dict:
        paths = {0: "root"}
        to_visit = collections.deque([0])
        while to_visit:
            node_id = to_visit.popleft()
            for name, child in self._nodes[node_id]:
                if child == 0 or child in paths:
                    continue
                to_visit.append(child)
                paths[child] = paths[node_id] + "." + name
        return paths

    def match(self, obj) -> dict:
        """``{node id: object}`` for the nodes reached by the same names from node 0 and
        from ``obj``.

        Raises:
            ValueError: ``obj`` is not an object TF tracks (TF's text).
        """
        if not _tracked(obj) or isinstance(obj, (list, tuple, dict)):
            raise ValueError(f"Expected a Trackable, got {obj} of type {type(obj)}.")
        overlapping = {0: obj}
        to_visit = collections.deque([(0, obj)])
        visited = set()
        while to_visit:
            node_id, current = to_visit.popleft()
            live = _children(current)
            for name, child_id in self.children(node_id).items():
                if child_id in visited or child_id == 0:
                    continue
                if name in live:
                    assigned = overlapping.get(child_id)
                    if assigned is None:
                        overlapping[child_id] = live[name]
                        to_visit.append((child_id, live[name]))
                    elif assigned is not live[name]:
                        logger.warning(
                            "Inconsistent references when matching the checkpoint into this "
                            f"object graph. The referenced objects are: ({assigned} and "
                            f"{live[name]})."
                        )
            visited.add(node_id)
        return overlapping

    def diff(self, obj):
        """``(match(obj), node ids only in the checkpoint, objects only under obj)``."""
        overlapping = self.match(obj)
        matched = {id(o) for o in overlapping.values()}
        only_saved = [n for n in self.descendants() if n not in overlapping]
        only_live = [o for o in TrackableView(obj).descendants() if id(o) not in matched]
        return overlapping, only_saved, only_live
