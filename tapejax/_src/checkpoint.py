"""Training checkpoints (``tf.train.Checkpoint``, ``CheckpointManager``) as ``.npz`` files.

The format is plain NumPy: a checkpoint ``PREFIX`` is the file ``PREFIX.npz``, with one
array per Variable, keyed by the Variable's *object path* from the checkpoint, e.g.
``model/layers/0/w`` (attribute names, list indices and dict keys joined by ``/``;
``.`` and ``/`` inside a name are escaped as TF does, to ``..`` and ``.S``; an object
with a ``_checkpoint_children()`` method names its own children: ``{name: object}``), plus
``save_counter`` and one metadata entry ``__tapejax_checkpoint__`` (a JSON string:
format version, each key's dtype name and Variable name, and the object graph TF
would save: per node, its ``[name, child node id]`` pairs, for ``CheckpointView``).
A mutable lookup table (``MutableHashTable``, ``DenseHashTable``) is saved as TF saves
it: two arrays under its object path plus ``.ATTRIBUTES/table-keys`` and
``.ATTRIBUTES/table-values`` (TF's own keys; an attribute named ``.ATTRIBUTES`` is
escaped to ``..ATTRIBUTES``, so they cannot clash), in the table's key and value dtypes.
Types NumPy cannot store natively (``bfloat16``) are stored as unsigned integers of the
same width and viewed back on load. ``numpy.load(PREFIX + ".npz")`` reads it with no tapejax at all.

Restoring puts each value on the target Variable's current sharding (one device, or a
strategy's replicated or split layout), whatever layout it was saved from; a table's
contents are replaced by the saved ones, once every table's saved dtypes and shapes were
checked. A Variable shared by two paths is saved once, under the first path in
traversal order. This module must never restore a value of another shape or dtype into a
Variable.
"""

from __future__ import annotations

import collections
import io
import json
import os
import re
import time

import jax
import jax.numpy as jnp
import numpy as np

from . import nest
from .checkpoint_options import check_options, run_write_callbacks
from .conversion import canonical_np_dtype, x64_enabled
from .dtypes import tf_type_name
from .errors import InvalidArgumentError, NotFoundError
from .module import Module
from .python_state import PYTHON_STATE, PythonState, PythonStateSlot

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "CheckpointLoadStatus",
    "latest_checkpoint",
    "list_variables",
    "load_variable",
]

_META_KEY = "__tapejax_checkpoint__"
_FORMAT = "tapejax-npz"
_VERSION = 1
_STATE_FILE = "checkpoint"
_SUFFIX = ".npz"


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _escape(name) -> str:
    return str(name).replace(".", "..").replace("/", ".S")


# The attribute part of the key of an object's own saved tensors (TF's).
_ATTRIBUTES = ".ATTRIBUTES"


def _saves_tensors(obj) -> bool:
    """Whether ``obj`` saves arrays of its own (a mutable lookup table)."""
    return callable(getattr(obj, "_saved_tensors", None)) and not isinstance(obj, type)


def _is_trackable(obj, tables=False) -> bool:
    """Whether ``obj`` holds state a checkpoint saves; ``tables``: lookup tables count."""
    if (
        _is_var(obj)
        or isinstance(obj, (Module, Checkpoint, PythonState))
        or hasattr(obj, "_checkpoint_children")
        or (tables and _saves_tensors(obj))
    ):
        return True
    if isinstance(obj, (list, tuple, dict)):
        items = obj.values() if isinstance(obj, dict) else obj
        return all(_is_trackable(x, tables) for x in items)
    return hasattr(obj, "variables")


class SavedTensorSlot:
    """One array an object saves of its own (a table's keys or values), as a checkpoint entry.

    The object (``owner``) defines ``_saved_tensors() -> {suffix: host array}``,
    ``_check_saved_tensors({suffix: array})`` (raises TF's error, changes
    nothing) and ``_restore_saved_tensors({suffix: array})``.
    """

    __slots__ = ("owner", "suffix")

    def __init__(self, owner, suffix: str):
        self.owner = owner
        self.suffix = suffix

    def to_host(self) -> np.ndarray:
        return self.owner._saved_tensors()[self.suffix]

    @property
    def name(self) -> str:
        return f"{type(self.owner).__name__}/{self.suffix}"

    def __repr__(self):
        return repr(self.owner)


def _collect(obj, path, out, seen_vars, seen_objs, tables=False) -> None:
    """Adds ``{key: Variable}`` for every Variable reachable from ``obj`` (first path wins),
    and with ``tables`` a ``SavedTensorSlot`` per array of each mutable lookup table."""
    if _is_var(obj):
        if obj._id not in seen_vars:
            seen_vars.add(obj._id)
            out["/".join(path)] = obj
        return
    if id(obj) in seen_objs:
        return
    children = getattr(obj, "_checkpoint_children", None)
    if isinstance(obj, PythonState):
        # Its serialized bytes, under TF's attribute name.
        seen_objs.add(id(obj))
        out["/".join(path + (PYTHON_STATE,))] = PythonStateSlot(obj)
    elif tables and _saves_tensors(obj):
        seen_objs.add(id(obj))
        for suffix in obj._SAVED_TENSORS:
            out["/".join(path + (_ATTRIBUTES, suffix))] = SavedTensorSlot(obj, suffix)
    elif isinstance(obj, Checkpoint):
        seen_objs.add(id(obj))
        for name in sorted(obj._objects):
            _collect(obj._objects[name], path + (_escape(name),), out, seen_vars, seen_objs, tables)
    elif callable(children) and not isinstance(obj, type):
        # An object that names its own state (a wrapper whose attributes are internals).
        seen_objs.add(id(obj))
        named = children()
        for name in sorted(named):
            _collect(named[name], path + (_escape(name),), out, seen_vars, seen_objs, tables)
    elif isinstance(obj, Module):
        seen_objs.add(id(obj))
        ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
        for name in sorted(vars(obj)):
            if name not in ignored:
                _collect(
                    vars(obj)[name], path + (_escape(name),), out, seen_vars, seen_objs, tables
                )
    elif isinstance(obj, dict):
        seen_objs.add(id(obj))
        for k in nest._sorted_keys(obj):
            _collect(obj[k], path + (_escape(k),), out, seen_vars, seen_objs, tables)
    elif isinstance(obj, (list, tuple)):
        seen_objs.add(id(obj))
        for i, x in enumerate(obj):
            _collect(x, path + (str(i),), out, seen_vars, seen_objs, tables)
    elif hasattr(obj, "variables") and not isinstance(obj, type):
        # An optimizer-like object: its variables, in its own order.
        seen_objs.add(id(obj))
        variables = obj.variables
        if callable(variables):
            variables = variables()
        for i, v in enumerate(variables):
            _collect(v, path + ("variables", str(i)), out, seen_vars, seen_objs, tables)
    # Anything else holds no tapejax state: TF does not track it either.


def _to_host(value) -> np.ndarray:
    if isinstance(value, jax.core.Tracer):
        raise ValueError(
            "Cannot save a checkpoint while a program is being traced (inside tapejax.function "
            "or a JAX transform): call save/write eagerly, between steps."
        )
    if isinstance(value, jax.Array) and not value.is_fully_addressable:
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(value, tiled=True))
    return np.asarray(value)


def _checkpoint_file(path) -> str:
    path = os.fspath(path)
    return path if path.endswith(_SUFFIX) else path + _SUFFIX


def _not_found(path) -> NotFoundError:
    return NotFoundError(
        None,
        None,
        f"Error when restoring from checkpoint or SavedModel at {path}: Unsuccessful "
        f"TensorSliceReader constructor: Failed to find any matching files for {path}\n"
        "Please double-check that the path is correct. You may be missing the checkpoint "
        "suffix (e.g. the '-1' in 'path/to/ckpt-1').",
    )


def _write_file(path, arrays: dict, names: dict, graph: list | None = None) -> None:
    """Writes ``arrays`` (key -> host array) and the metadata atomically to ``path``.npz."""
    stored, dtypes = {}, {}
    for key, a in arrays.items():
        dtypes[key] = a.dtype.name
        if a.dtype.isbuiltin != 1 and a.dtype.kind not in "biufcSU":
            a = a.view(f"u{a.dtype.itemsize}")  # bfloat16 & co: the bits, viewed back on load
        stored[key] = a
    meta = {"format": _FORMAT, "version": _VERSION, "dtypes": dtypes, "names": names}
    if graph is not None:
        meta["object_graph"] = graph
    stored[_META_KEY] = np.array(json.dumps(meta))
    target = _checkpoint_file(path)
    directory = os.path.dirname(target)
    if directory:
        os.makedirs(directory, exist_ok=True)
    buffer = io.BytesIO()
    np.savez(buffer, **stored)
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(buffer.getvalue())
    os.replace(tmp, target)


def _read_file(path) -> dict:
    """``{key: host array}`` of a checkpoint, dtypes restored."""
    target = _checkpoint_file(path)
    if not os.path.exists(target):
        raise _not_found(os.fspath(path))
    with np.load(target, allow_pickle=False) as data:
        if _META_KEY not in data.files:
            raise ValueError(
                f"{target} is not a tapejax checkpoint (it has no {_META_KEY!r} entry)."
            )
        meta = json.loads(str(data[_META_KEY]))
        if meta.get("format") != _FORMAT or meta.get("version", 0) > _VERSION:
            raise ValueError(
                f"{target} has checkpoint format {meta.get('format')!r} version "
                f"{meta.get('version')!r}; this tapejax reads {_FORMAT!r} up to version {_VERSION}."
            )
        out = {}
        for key in data.files:
            if key == _META_KEY:
                continue
            a = data[key]
            name = meta["dtypes"].get(key, a.dtype.name)
            if a.dtype.name != name:
                a = a.view(jnp.dtype(name))
            out[key] = a
    return out


class CheckpointLoadStatus:
    """What a ``restore`` matched, with TF's assertions (``tf.train.Checkpoint.restore``'s result)."""

    def __init__(self, path, unmatched_variables, unused_keys, matched):
        self._path = path
        self._unmatched = unmatched_variables
        self._unused = unused_keys
        self._matched = matched

    def assert_consumed(self):
        """Every Variable got a value and every value in the checkpoint was used."""
        self.assert_existing_objects_matched()
        if self._unused:
            raise AssertionError(
                f"Unresolved object in checkpoint {self._path}: {sorted(self._unused)} (values "
                "with no matching Variable, likely due to changes in the Python program)."
            )
        return self

    def assert_existing_objects_matched(self):
        """Every Variable reachable from the checkpoint object got a value."""
        if self._unmatched:
            shown = self._unmatched[:10]
            raise AssertionError(
                f"Found {len(self._unmatched)} Python objects that were not bound to "
                "checkpointed values, likely due to changes in the Python program. Showing "
                f"{len(shown)} of {len(self._unmatched)} unmatched objects: {shown}"
            )
        return self

    def assert_nontrivial_match(self):
        """At least one Variable other than the save counter got a value."""
        if not any(key != "save_counter" for key in self._matched):
            raise AssertionError(
                f"Nothing except the root object matched a checkpointed value in {self._path}."
            )
        return self

    def expect_partial(self):
        """Accepts a partial restore (there are no warnings to silence here)."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: restoring is eager."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: restoring is eager."""


class _NothingRestored(CheckpointLoadStatus):
    def __init__(self):
        super().__init__(None, [], [], [])

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed


class Checkpoint:
    """Saves and restores Variables of Modules and other objects (``tf.train.Checkpoint``).

    Keyword arguments (and attributes set later) name the objects to save: Variables,
    Modules, lists/tuples/dicts of them, objects with a ``variables`` attribute
    (optimizers: keyed ``variables/<index>``), objects with a
    ``_checkpoint_children()`` method returning ``{name: object}`` (keyed by those
    names), and mutable lookup tables (``MutableHashTable``, ``DenseHashTable``: keyed
    ``<path>/.ATTRIBUTES/table-keys`` and ``table-values``, as TF). Files are ``.npz``
    keyed by object path (see ``tapejax.train``).

    Example:
        >>> import os, tempfile, tapejax as tf
        >>> import tapejax.train
        >>> class Net(tf.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = tf.Variable([1.0, 2.0])
        >>> net = Net()
        >>> ckpt = tf.train.Checkpoint(model=net)
        >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
        >>> _ = net.w.assign([0.0, 0.0])
        >>> _ = ckpt.restore(path).assert_consumed()
        >>> os.path.basename(path), net.w.numpy().tolist()
        ('ckpt-1', [1.0, 2.0])

    .. warning::
       Restoring fills the Variables and tables that exist now; TF also defers values
       for Variables and tables attached later (restore-on-create). Build the model
       (create its Variables and tables) before ``restore``. The file format is
       NumPy's, not TF's.
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_objects", {})
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_save_counter", None)
        if root is not None and not _is_trackable(root, tables=True):
            raise ValueError(_not_trackable(root))
        for name, value in sorted(kwargs.items()):
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if not _is_trackable(value, tables=True):
            raise ValueError(_not_trackable(value))
        self._objects[name] = value

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    @property
    def save_counter(self):
        """How many times ``save`` ran (a Variable, saved and restored with the rest)."""
        if self._save_counter is None:
            from .variables import Variable

            dtype = np.int64 if x64_enabled() else np.int32  # TF's is int64
            object.__setattr__(
                self,
                "_save_counter",
                Variable(np.zeros((), dtype), trainable=False, name="save_counter"),
            )
        return self._save_counter

    def _variables(self, with_counter=True, tables=False) -> dict:
        """``{key: Variable or slot}`` to save; ``tables``: with the lookup tables' arrays."""
        out: dict = {}
        seen_vars: set = set()
        seen_objs: set = set()
        if with_counter and self._save_counter is not None:
            _collect(self._save_counter, ("save_counter",), out, seen_vars, seen_objs, tables)
        if self._root is not None:
            _collect(self._root, (), out, seen_vars, seen_objs, tables)
        _collect(self, (), out, seen_vars, seen_objs, tables)
        return out

    def write(self, file_prefix, options=None) -> str:
        """Writes ``file_prefix``.npz (no numbering, no state file). Returns ``file_prefix``.

        ``options`` (a ``CheckpointOptions``): its ``experimental_write_callbacks`` run
        once the file is written.
        """
        options = check_options(options)
        variables = self._variables(tables=True)
        arrays = {
            k: v.to_host()
            if isinstance(v, (PythonStateSlot, SavedTensorSlot))
            else _to_host(v._value)
            for k, v in variables.items()
        }
        if jax.process_index() == 0:
            from .checkpoint_view import object_graph

            names = {k: v.name for k, v in variables.items()}
            _write_file(file_prefix, arrays, names, object_graph(self))
        path = os.fspath(file_prefix)
        run_write_callbacks(options, path)
        return path

    def save(self, file_prefix, options=None) -> str:
        """Saves ``file_prefix-N``.npz, N the incremented ``save_counter``; records it as latest.

        Returns:
          The checkpoint's path (``file_prefix-N``), for ``restore``.
        """
        options = check_options(options)
        counter = self.save_counter
        counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path, options)
        if jax.process_index() == 0:
            directory = os.path.dirname(os.path.abspath(path))
            _write_state(directory, path, [path], [time.time()], None)
        return path

    def restore(self, save_path, options=None) -> CheckpointLoadStatus:
        """Assigns the saved values to the Variables reachable now; each keeps its sharding.

        A lookup table's contents are replaced by the saved ones (keys inserted since the
        save are gone). Every table array's dtype and shape is checked before anything is
        restored.

        Args:
          save_path: a path ``save``/``write`` returned (with or without ``.npz``), or
            None (nothing is restored; the status's assertions fail).

        Returns:
          A ``CheckpointLoadStatus`` (``assert_consumed()`` & co).

        Raises:
          NotFoundError: no such checkpoint (TF's text).
          ValueError: a saved value's shape or dtype differs from its Variable's.
          InvalidArgumentError: a table's saved keys or values have another dtype or
            shape than the table's (TF's texts).
        """
        check_options(options)
        if save_path is None:
            return _NothingRestored()
        saved = _read_file(save_path)
        if "save_counter" in saved:
            self.save_counter  # noqa: B018 - created now so that it is restored too
        variables = self._variables(tables=True)
        unmatched, matched = [], []
        # A table is restored from all its arrays at once, after they were all checked.
        tables: dict = {}  # id(table) -> (table, {suffix: key})
        for key, var in variables.items():
            if isinstance(var, SavedTensorSlot):
                tables.setdefault(id(var.owner), (var.owner, {}))[1][var.suffix] = key
        complete = []
        for owner, keys in tables.values():
            if all(k in saved for k in keys.values()):
                complete.append((owner, {s: saved[k] for s, k in keys.items()}, keys))
                matched.extend(keys.values())
            else:
                unmatched.append(owner)
        # TF names its restore op after how many tensors it reads (not the save counter).
        read = len(matched) + sum(
            _is_var(v) and k in saved and k != "save_counter" for k, v in variables.items()
        )
        _check_table_dtypes(complete, read)
        for owner, arrays, _ in complete:
            owner._check_saved_tensors(arrays)
        for key, var in variables.items():
            if isinstance(var, SavedTensorSlot):
                continue
            if key not in saved:
                unmatched.append(var)
                continue
            if isinstance(var, PythonStateSlot):
                var.restore(saved[key])
            else:
                _assign_saved(var, saved[key])
            matched.append(key)
        for owner, arrays, _ in complete:
            owner._restore_saved_tensors(arrays)
        unused = [k for k in saved if k not in variables]
        return CheckpointLoadStatus(os.fspath(save_path), unmatched, unused, matched)

    def read(self, save_path, options=None) -> CheckpointLoadStatus:
        """Restores a checkpoint written by ``write`` (as ``restore``)."""
        return self.restore(save_path, options)


def _not_trackable(value) -> str:
    return (
        "`Checkpoint` was expecting a trackable object (an object derived from `Trackable`), "
        f"got {value}. If you believe this object should be trackable (i.e. it is part of the "
        "TensorFlow Python API and manages state), please open an issue."
    )


def _check_table_dtypes(tables, restored: int) -> None:
    """TF's ``RestoreV2`` error for every table array saved in another dtype than the
    table's (``restored``: how many tensors TF's op would restore, in its name)."""
    lines = []
    for owner, arrays, keys in tables:
        for suffix, expected in owner._saved_tensor_dtypes().items():
            got = arrays[suffix].dtype
            if got != expected:
                lines.append(
                    f"tensor_name = {keys[suffix]}; expected dtype {tf_type_name(expected)} "
                    f"does not equal original dtype {tf_type_name(got)}"
                )
    if lines:
        raise InvalidArgumentError(
            None,
            None,
            f"{{{{function_node __wrapped__RestoreV2_dtypes_{restored}_device_/job:localhost/"
            "replica:0/task:0/device:CPU:0}} " + "\n".join(lines) + " [Op:RestoreV2]",
        )


def _assign_saved(var, value: np.ndarray) -> None:
    target = var._value
    if isinstance(target, jax.core.Tracer):
        raise ValueError(
            "Cannot restore a checkpoint while a program is being traced: call restore eagerly."
        )
    if tuple(value.shape) != tuple(target.shape) and not var.shape.is_compatible_with(value.shape):
        raise ValueError(
            f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to "
            f"restore variable with shape {tuple(target.shape)} and name {var.name}."
        )
    if value.dtype != target.dtype:
        if canonical_np_dtype(value.dtype) != target.dtype:
            raise ValueError(
                f"Received a {value.dtype.name} value when attempting to restore variable "
                f"{var.name} of dtype {np.dtype(target.dtype).name}."
            )
        value = value.astype(target.dtype)  # 64-bit saved, 32-bit here (x64 off)
    sharding = target.sharding
    # Each device receives only its own slice of the host value.
    array = jax.make_array_from_callback(value.shape, sharding, lambda index: value[index])
    var.assign(array)


# -- the "checkpoint" state file (TF's text format), latest_checkpoint --------------------

_STATE_LINE = re.compile(r'^(\w+):\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))\s*$')


def _read_state(directory, filename=None) -> dict | None:
    path = os.path.join(os.fspath(directory), filename or _STATE_FILE)
    if not os.path.exists(path):
        return None
    state = {"paths": [], "timestamps": [], "latest": None, "last_preserved": None}
    with open(path) as f:
        for line in f:
            m = _STATE_LINE.match(line.strip())
            if not m:
                continue
            field, text, number = m.group(1), m.group(2), m.group(3)
            if field == "model_checkpoint_path":
                state["latest"] = text
            elif field == "all_model_checkpoint_paths":
                state["paths"].append(text)
            elif field == "all_model_checkpoint_timestamps":
                state["timestamps"].append(float(number))
            elif field == "last_preserved_timestamp":
                state["last_preserved"] = float(number)
    return state


def _relative(directory, path) -> str:
    path = os.fspath(path)
    if os.path.isabs(path) and os.path.dirname(path) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def _write_state(directory, latest, paths, timestamps, last_preserved) -> None:
    """TF's ``checkpoint`` state file, with paths relative to ``directory`` where possible."""
    directory = os.path.abspath(os.fspath(directory))
    lines = [f'model_checkpoint_path: "{_relative(directory, os.path.abspath(latest))}"']
    lines += [
        f'all_model_checkpoint_paths: "{_relative(directory, os.path.abspath(p))}"' for p in paths
    ]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f"{_STATE_FILE}.tmp{os.getpid()}")
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(directory, _STATE_FILE))


def _absolute(directory, path) -> str:
    return path if os.path.isabs(path) else os.path.join(os.fspath(directory), path)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The latest checkpoint saved in ``checkpoint_dir``, or None (``tf.train.latest_checkpoint``)."""
    state = _read_state(checkpoint_dir, latest_filename)
    if not state or not state["latest"]:
        return None
    path = _absolute(checkpoint_dir, state["latest"])
    return path if os.path.exists(_checkpoint_file(path)) else None


def list_variables(ckpt_dir_or_file) -> list:
    """``[(key, shape)]`` of a checkpoint, sorted by key (``tf.train.list_variables``)."""
    saved = _read_file(_resolve(ckpt_dir_or_file))
    return sorted((k, list(v.shape)) for k, v in saved.items())


def load_variable(ckpt_dir_or_file, name) -> np.ndarray:
    """One saved value, by key, as a NumPy array (``tf.train.load_variable``)."""
    saved = _read_file(_resolve(ckpt_dir_or_file))
    if name not in saved:
        raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
    return saved[name]


def _resolve(ckpt_dir_or_file):
    if os.path.isdir(os.fspath(ckpt_dir_or_file)):
        latest = latest_checkpoint(ckpt_dir_or_file)
        if latest is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}"
            )
        return latest
    return ckpt_dir_or_file


class CheckpointManager:
    """Numbered checkpoints in a directory, keeping the last few (``tf.train.CheckpointManager``).

    Example:
        >>> import tempfile, tapejax as tf
        >>> import tapejax.train
        >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        >>> manager = tf.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
        >>> paths = [manager.save() for _ in range(3)]
        >>> [p.rsplit("/", 1)[1] for p in manager.checkpoints]
        ['ckpt-2', 'ckpt-3']
    """

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(
                f"CheckpointManager expects a tapejax.train.Checkpoint, got {type(checkpoint).__name__}."
            )
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError(
                "`step_counter` should be passed if `checkpoint_interval` is not None."
            )
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step = None
        self._maybe_delete: collections.OrderedDict = collections.OrderedDict()
        self._latest_checkpoint = None
        self._last_preserved_timestamp = time.time()
        state = _read_state(self._directory)
        if state is not None and state["latest"]:
            self._latest_checkpoint = _absolute(self._directory, state["latest"])
            timestamps = state["timestamps"] or [time.time()] * len(state["paths"])
            for p, t in zip(state["paths"], timestamps):
                self._maybe_delete[_absolute(self._directory, p)] = t
            if state["last_preserved"] is not None:
                self._last_preserved_timestamp = state["last_preserved"]

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list:
        """The paths of the checkpoints kept, oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves ``directory/ckpt-N``.npz and deletes the oldest beyond ``max_to_keep``.

        Args:
          checkpoint_number: the N in the name (an int or integer Variable/Tensor);
            default the checkpoint's ``save_counter`` (incremented either way).
          check_interval: with ``checkpoint_interval``, skip saving until the step
            counter has advanced by it.

        Returns:
          The new checkpoint's path, or None when the interval says not yet.
        """
        options = check_options(options)
        if self._checkpoint_interval is not None:
            step = int(np.asarray(self._step_counter))
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = counter if checkpoint_number is None else checkpoint_number
        path = f"{self._prefix}-{int(np.asarray(number))}"
        self._checkpoint.write(path, options)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        if jax.process_index() == 0:
            self._sweep()
            paths = list(self._maybe_delete)
            _write_state(
                self._directory,
                path,
                paths,
                [self._maybe_delete[p] for p in paths],
                self._last_preserved_timestamp,
            )
        return path

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, timestamp = self._maybe_delete.popitem(last=False)
            if (
                self._keep_every_n_hours
                and timestamp - self._keep_every_n_hours * 3600.0 >= self._last_preserved_timestamp
            ):
                self._last_preserved_timestamp = timestamp
                continue  # kept on disk, no longer managed (as TF)
            try:
                os.remove(_checkpoint_file(path))
            except FileNotFoundError:
                pass

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path; else runs ``init_fn``, None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(np.asarray(self._step_counter))
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Nothing to wait for: saving is synchronous."""
