"""``tf.lookup`` for numeric keys: ``KeyValueTensorInitializer``, ``StaticHashTable``,
``StaticVocabularyTable``, and the mutable ``MutableHashTable`` and ``DenseHashTable``.

A static table is two JAX arrays, its keys sorted and the values in the same order;
``lookup`` is a ``searchsorted`` over them, so it runs eagerly and inside a traced
program (``tapejax.function``, a JAX transform), where the arrays are constants of the
program and never a reason to retrace. Out-of-vocabulary ids are TF's: FarmHash
``Fingerprint64`` of the key's decimal string (TF's ``as_string`` then
``string_to_hash_bucket_fast``), computed on the host. The mutable tables keep their
contents on the host as NumPy arrays, and give ``tapejax.train.Checkpoint`` TF's two saved
arrays (``table-keys``, ``table-values``: what ``export()`` returns) through
``_saved_tensors``/``_check_saved_tensors``/``_restore_saved_tensors``. This module must
never hold strings or change a static table after it is built.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes
from .conversion import convert_to_tensor
from .errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from .ops.fingerprint_ops import fingerprint64_rows
from .sparse_tensor import SparseTensor, static_value
from .tensor import Tensor, wrap

__all__ = [
    "DenseHashTable",
    "KeyValueTensorInitializer",
    "MutableHashTable",
    "StaticHashTable",
    "StaticVocabularyTable",
]

_IMPORT_OP = "LookupTableImportV2"
_FUNCTION_NODE = (
    "{{function_node __wrapped__LookupTableImportV2_device_/job:localhost/replica:0/task:0/"
    "device:CPU:0}} "
)


class KeyValueTensorInitializer:
    """The keys and values of a table, as two tensors (``tf.lookup.KeyValueTensorInitializer``).

    Args:
        keys: the keys, a tensor or anything ``convert_to_tensor`` takes.
        values: the values, one per key.
        key_dtype: the keys' dtype; by default, the dtype ``keys`` converts to.
        value_dtype: the values' dtype; by default, the dtype ``values`` converts to.
        name: unused (TF's op name).

    Example:
        >>> import tapejax as tf
        >>> init = tf.lookup.KeyValueTensorInitializer([1, 2], [10, 20])
        >>> init.key_dtype, init.value_dtype
        (tf.int32, tf.int32)
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name

    @property
    def key_dtype(self):
        """The dtype of the keys."""
        return self._keys.dtype

    @property
    def value_dtype(self):
        """The dtype of the values."""
        return self._values.dtype

    def _host_pairs(self, what: str):
        """The keys and values as NumPy arrays, checked as TF's ``LookupTableImportV2``."""
        keys, values = static_value(self._keys), static_value(self._values)
        if keys is None or values is None:
            raise NotImplementedError(
                f"{what} needs concrete keys and values: build the table outside "
                "tapejax.function, or from constants."
            )
        if keys.shape != values.shape:
            k = ",".join(str(d) for d in keys.shape)
            v = ",".join(str(d) for d in values.shape)
            raise InvalidArgumentError(
                None,
                None,
                f"{_FUNCTION_NODE}Expected shape [{k}] for value, got [{v}] "
                f"[Op:{_IMPORT_OP}] name: ",
            )
        if keys.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"{_FUNCTION_NODE}Expected keys to be a vector, got shape "
                f"[{','.join(str(d) for d in keys.shape)}] [Op:{_IMPORT_OP}] name: ",
            )
        return keys, values


def _shape_text(shape) -> str:
    return ",".join(str(d) for d in shape)


def _keys_arg(keys, key_dtype):
    """``keys`` as a Tensor (or SparseTensor), with TF's dtype check."""
    if not isinstance(keys, SparseTensor):
        keys = convert_to_tensor(keys, dtype_hint=key_dtype)
    if keys.dtype != key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype}, received: {keys.dtype}")
    return keys


# The key and value dtypes TF's CPU kernel ``HashTableV2`` is registered for (strings aside).
_TABLE_DTYPES = {
    "int64": ("int64", "int32", "float32", "float64", "bool"),
    "int32": ("int32", "float32", "float64"),
}
_KERNEL_LIST = (
    "All kernels registered for op HashTableV2:\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_STRING]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_BOOL]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_STRING]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_STRING]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_DOUBLE]\n"
)


def _check_table_dtypes(key_dtype, value_dtype) -> None:
    """TF's ``NotFoundError`` for a key/value dtype pair its kernel is not built for."""
    if value_dtype.name in _TABLE_DTYPES.get(key_dtype.name, ()):
        return
    enum = {"float32": "FLOAT", "float64": "DOUBLE"}
    k = "DT_" + enum.get(key_dtype.name, key_dtype.name.upper())
    v = "DT_" + enum.get(value_dtype.name, value_dtype.name.upper())
    raise NotFoundError(
        None,
        None,
        "Could not find device for node: {{node HashTableV2}} = HashTableV2["
        f'container="", key_dtype={k}, shared_name="0", use_node_name_sharing=false, '
        f"value_dtype={v}]\n{_KERNEL_LIST} [Op:HashTableV2] name: hash_table",
    )


class _TableDtypes:
    """``key_dtype`` and ``value_dtype`` of a table that stores them as TF's attributes."""

    @property
    def key_dtype(self):
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The dtype of the values."""
        return self._value_dtype


class _SavedTable(_TableDtypes):
    """A mutable table's checkpointing (see ``tapejax/_src/checkpoint.py``): TF's two saved
    arrays, what ``export()`` returns (``_host_export``), in the table's declared dtypes.
    Subclasses check (``_check_saved_tensors``) and take (``_restore_saved_tensors``) them."""

    _SAVED_TENSORS = ("table-keys", "table-values")

    def _saved_tensor_dtypes(self) -> dict:
        return {
            "table-keys": np.dtype(self._key_dtype.as_numpy_dtype),
            "table-values": np.dtype(self._value_dtype.as_numpy_dtype),
        }

    def _saved_tensors(self) -> dict:
        arrays = dict(zip(self._SAVED_TENSORS, self._host_export()))
        return {k: arrays[k].astype(dt) for k, dt in self._saved_tensor_dtypes().items()}


class StaticHashTable(_TableDtypes):
    """An immutable key-value table (``tf.lookup.StaticHashTable``).

    Args:
        initializer: a ``KeyValueTensorInitializer``.
        default_value: the value of keys not in the table; converted to the values' dtype.
        name: the table's name (``table.name``).
        experimental_is_anonymous: accepted for TF's signature; tables here are always
            Python objects, with no resource to share.

    Raises:
        NotFoundError: TF has no table for this key and value dtype pair (TF's text,
            but for the shared name it gives the table).
        FailedPreconditionError: a key appears twice with different values (TF's text).
        InvalidArgumentError: the keys and values differ in shape (TF's text).

    .. warning::
        ``export()`` returns the pairs sorted by key; TF returns its hash map's order,
        which depends on its hash function and is not reproducible. There is no
        ``resource_handle``: no TF resource exists behind a table.

    Example:
        >>> import tapejax as tf
        >>> table = tf.lookup.StaticHashTable(
        ...     tf.lookup.KeyValueTensorInitializer([1, 2], [10.0, 20.0]), -1.0)
        >>> table.lookup(tf.constant([2, 5])).numpy()
        array([20., -1.], dtype=float32)
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        del experimental_is_anonymous
        self._initializer = initializer
        self._key_dtype = initializer.key_dtype
        self._value_dtype = initializer.value_dtype
        _check_table_dtypes(self._key_dtype, self._value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._name = name
        keys, values = initializer._host_pairs("StaticHashTable")
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        same = keys[1:] == keys[:-1]
        clash = np.nonzero(same & (values[1:] != values[:-1]))[0]
        if clash.size:
            i = clash[0]
            raise FailedPreconditionError(
                None,
                None,
                f"{_FUNCTION_NODE}HashTable has different value for same key. Key "
                f"{keys[i]} has {values[i]} and trying to add value {values[i + 1]} "
                f"[Op:{_IMPORT_OP}] name: ",
            )
        keep = np.concatenate([[True], ~same])
        self._keys = jnp.asarray(keys[keep])
        self._values = jnp.asarray(values[keep])

    @property
    def default_value(self):
        """The value of keys not in the table, a scalar Tensor."""
        return self._default_value

    @property
    def name(self):
        """The name given to the constructor (TF's is None when none was given)."""
        return self._name

    def size(self, name=None):
        """The number of keys, an int64 scalar Tensor."""
        del name
        return convert_to_tensor(self._keys.shape[0], dtype=dtypes.int64)

    def export(self, name=None):
        """The keys and their values, as two Tensors, sorted by key (see the class)."""
        del name
        return wrap(self._keys), wrap(self._values)

    def _lookup_array(self, keys):
        """The values of a JAX array of keys (eager or traced), default where absent."""
        n = self._keys.shape[0]
        default = self._default_value._value
        if n == 0:
            return jnp.broadcast_to(default, keys.shape).astype(self._values.dtype)
        index = jnp.clip(jnp.searchsorted(self._keys, keys), 0, n - 1)
        found = self._keys[index] == keys
        return jnp.where(found, self._values[index], default)

    def lookup(self, keys, name=None):
        """The values of ``keys`` (a Tensor of any shape, or a SparseTensor).

        Args:
            keys: keys of the table's key dtype.
            name: unused (TF's op name).

        Returns:
            A Tensor of ``keys``'s shape, or a SparseTensor with ``keys``'s indices.

        Raises:
            TypeError: ``keys`` has another dtype than the table's keys (TF's text).
        """
        del name
        keys = _keys_arg(keys, self._key_dtype)
        if isinstance(keys, SparseTensor):
            values = wrap(self._lookup_array(keys.values._value))
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return wrap(self._lookup_array(keys._value))

    def __getitem__(self, keys):
        """``table[keys]``, the same as ``table.lookup(keys)``."""
        return self.lookup(keys)


def _hash_buckets_host(keys: np.ndarray, num_buckets: int) -> np.ndarray:
    """TF's ``string_to_hash_bucket_fast(as_string(keys), num_buckets)``, on the host."""
    flat = np.asarray(keys).reshape(-1)
    text = [str(int(k)).encode() for k in flat]
    out = np.zeros(flat.shape, np.int64)
    lengths = np.fromiter((len(t) for t in text), np.int64, len(text))
    for length in np.unique(lengths):
        rows = np.nonzero(lengths == length)[0]
        data = np.frombuffer(b"".join(text[i] for i in rows), np.uint8).reshape(len(rows), -1)
        out[rows] = (fingerprint64_rows(data) % np.uint64(num_buckets)).astype(np.int64)
    return out.reshape(np.shape(keys))


class StaticVocabularyTable:
    """Integer keys to int64 ids, with hash buckets for the rest
    (``tf.lookup.StaticVocabularyTable``).

    A key in the vocabulary gets its value; any other key (and any key whose value is
    -1) gets ``vocab_size + Fingerprint64(str(key)) % num_oov_buckets``, TF's ids.

    Args:
        initializer: a ``KeyValueTensorInitializer`` with int64 keys and values.
        num_oov_buckets: the number of buckets, > 0.
        lookup_key_dtype: the dtype of the keys ``lookup`` takes, any integer dtype;
            by default the initializer's.
        name: the table's name.
        experimental_is_anonymous: accepted for TF's signature.

    Raises:
        ValueError: ``num_oov_buckets`` is not positive (TF's text).
        TypeError: the initializer's keys or values are not int64, or
            ``lookup_key_dtype`` is not an integer dtype (TF's texts).
        NotImplementedError: ``initializer`` is None: TF's table then takes string keys.

    Example:
        >>> import tapejax as tf
        >>> import jax
        >>> jax.config.update("jax_enable_x64", True)
        >>> init = tf.lookup.KeyValueTensorInitializer(
        ...     tf.constant([7, 42], tf.int64), tf.constant([0, 1], tf.int64))
        >>> table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
        >>> table.lookup(tf.constant([42, 5], tf.int64)).numpy()
        array([1, 3])
        >>> jax.config.update("jax_enable_x64", False)
    """

    def __init__(
        self,
        initializer,
        num_oov_buckets,
        lookup_key_dtype=None,
        name=None,
        experimental_is_anonymous=False,
    ):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if lookup_key_dtype is not None:
            lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype)
        if initializer is not None:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            if initializer.key_dtype != dtypes.int64:
                raise TypeError(
                    "Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got "
                    f"{initializer.key_dtype}."
                )
            if not lookup_key_dtype.is_integer:
                raise TypeError(
                    f"Invalid `key_dtype`, expected non-integer but got {initializer.key_dtype}."
                )
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(
                    f"Invalid `value_dtype`, expected {dtypes.int64} but got "
                    f"{initializer.value_dtype}."
                )
            self._table = StaticHashTable(
                initializer, -1, experimental_is_anonymous=experimental_is_anonymous
            )
        else:
            raise NotImplementedError(
                "StaticVocabularyTable without an initializer hashes string keys (TF sets "
                "its key dtype to tf.string), and tapejax has no string tensors. Pass a "
                "KeyValueTensorInitializer with int64 keys."
            )
        if not lookup_key_dtype.is_integer:
            raise TypeError(
                f"Invalid `key_dtype`, expected integer or string, got {lookup_key_dtype}"
            )
        self._key_dtype = lookup_key_dtype
        self._num_oov_buckets = int(num_oov_buckets)
        self._name = name.split("/")[-1] if name is not None else None

    @property
    def key_dtype(self):
        """The dtype of the keys ``lookup`` takes."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """int64, the dtype of the ids."""
        return dtypes.int64

    @property
    def name(self):
        """The table's name."""
        return self._name

    def size(self, name=None):
        """The vocabulary size plus the number of buckets, an int64 scalar Tensor."""
        del name
        vocab = self._table._keys.shape[0]
        return convert_to_tensor(vocab + self._num_oov_buckets, dtype=dtypes.int64)

    def _ids(self, keys):
        """The ids of a JAX array of keys (eager, or traced through a host callback)."""
        id_dtype = jnp.asarray(0, dtypes.int64.as_numpy_dtype).dtype
        buckets_of = lambda k: _hash_buckets_host(np.asarray(k), self._num_oov_buckets).astype(  # noqa: E731
            id_dtype
        )
        if isinstance(keys, jax.core.Tracer):
            result = jax.ShapeDtypeStruct(keys.shape, id_dtype)
            buckets = jax.pure_callback(buckets_of, result, keys, vmap_method="sequential")
        else:
            buckets = jnp.asarray(buckets_of(keys))
        table_keys = keys.astype(self._table._keys.dtype)
        ids = self._table._lookup_array(table_keys).astype(id_dtype)
        return jnp.where(ids != -1, ids, buckets + self._table._keys.shape[0])

    def lookup(self, keys, name=None):
        """The ids of ``keys`` (a Tensor of any shape, or a SparseTensor).

        Raises:
            TypeError: ``keys`` has another dtype than ``lookup_key_dtype`` (TF's text).
        """
        del name
        keys = _keys_arg(keys, self._key_dtype)
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, wrap(self._ids(keys.values._value)), keys.dense_shape)
        return wrap(self._ids(keys._value))

    def __getitem__(self, keys):
        """``table[keys]``, the same as ``table.lookup(keys)``."""
        return self.lookup(keys)


# What TF's CPU kernel ``MutableHashTableV2`` is registered for (strings and variants aside).
_MUTABLE_DTYPES = {
    "int64": ("int64", "int32", "float32", "float64"),
    "int32": ("int32", "float32", "float64"),
}
_MUTABLE_KERNEL_LIST = (
    "All kernels registered for op MutableHashTableV2:\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_BOOL]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_VARIANT]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_STRING]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_DOUBLE]\n"
)


def _op_error(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        None,
        f"{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/"
        f"device:CPU:0}}}} {message} [Op:{op}] name: ",
    )


def _convert(value, dtype, name: str):
    """``convert_to_tensor`` with TF's ``name: `` prefix on a dtype mismatch."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


class MutableHashTable(_SavedTable):
    """A table that ``insert`` and ``remove`` change (``tf.lookup.experimental.MutableHashTable``).

    The table lives on the host, as NumPy arrays; values may be scalars or tensors of the
    default value's shape.

    Args:
        key_dtype: the keys' dtype, int32 or int64.
        value_dtype: the values' dtype.
        default_value: the value of keys not in the table; its shape is the values' shape.
        name: the table's name.
        checkpoint: accepted for TF's signature. As TF 2's eager tables, a table reachable
            from a ``tapejax.train.Checkpoint`` is saved (TF's ``table-keys`` and
            ``table-values``) and restored, its contents replaced, whatever this says.
        experimental_is_anonymous: accepted for TF's signature.

    Raises:
        NotFoundError: TF has no table for this key and value dtype pair (TF's text, but
            for the shared name).

    .. warning::
        ``export()`` returns the pairs sorted by key (TF: its hash map's order). A
        mutable table cannot be used inside ``tapejax.function`` or a JAX transform: its
        contents change between calls, which a compiled program cannot see; its methods
        raise ``NotImplementedError`` there.

    Example:
        >>> import tapejax as tf
        >>> table = tf.lookup.experimental.MutableHashTable(tf.int32, tf.float32, -1.0)
        >>> table.insert([1, 2], [10.0, 20.0])
        >>> table.lookup([2, 3]).numpy()
        array([20., -1.], dtype=float32)
    """

    _CREATE_OP = "MutableHashTableV2"

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        name=None,
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        del checkpoint, experimental_is_anonymous
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = tuple(self._default_value.shape.as_list())
        self._name = name
        self._check_dtypes()
        self._np_values = np.zeros((0, *self._value_shape), self._default_value._value.dtype)
        self._np_keys = np.zeros((0,), jnp.asarray(0, self._key_dtype.as_numpy_dtype).dtype)

    def _check_dtypes(self) -> None:
        if self._value_dtype.name in _MUTABLE_DTYPES.get(self._key_dtype.name, ()):
            return
        enum = {"float32": "FLOAT", "float64": "DOUBLE"}
        k = "DT_" + enum.get(self._key_dtype.name, self._key_dtype.name.upper())
        v = "DT_" + enum.get(self._value_dtype.name, self._value_dtype.name.upper())
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node MutableHashTableV2}} = "
            f'MutableHashTableV2[container="", key_dtype={k}, shared_name="table_0", '
            f"use_node_name_sharing=false, value_dtype={v}]\n{_MUTABLE_KERNEL_LIST} "
            "[Op:MutableHashTableV2] name: MutableHashTable",
        )

    @property
    def name(self):
        """The name given to the constructor."""
        return self._name

    def _host(self, t: Tensor, method: str) -> np.ndarray:
        value = static_value(t)
        if value is None:
            raise NotImplementedError(
                f"{type(self).__name__}.{method} cannot run inside tapejax.function or a "
                "JAX transform: the table's contents live on the host and change between "
                "calls. Call it eagerly, or use a StaticHashTable."
            )
        return value

    def _check_key(self, keys: np.ndarray, op: str) -> None:
        """Hook for the keys a table refuses (DenseHashTable's empty and deleted keys)."""
        del keys, op

    def size(self, name=None):
        """The number of keys, an int64 scalar Tensor."""
        del name
        return convert_to_tensor(self._np_keys.shape[0], dtype=dtypes.int64)

    def _find(self, keys: np.ndarray):
        """Indices of ``keys`` in the table, and where they were found."""
        n = self._np_keys.shape[0]
        index = np.clip(np.searchsorted(self._np_keys, keys), 0, max(n - 1, 0))
        found = self._np_keys[index] == keys if n else np.zeros(keys.shape, bool)
        return index, found

    def insert(self, keys, values, name=None):
        """Sets the values of ``keys``; of keys given twice, the last value wins.

        Args:
            keys: keys of any shape, of the table's key dtype.
            values: values of shape ``keys.shape + value_shape``.
            name: unused (TF's op name).

        Raises:
            ValueError: ``keys`` or ``values`` has another dtype (TF's text).
            InvalidArgumentError: ``values`` has the wrong shape (TF's text).
        """
        del name
        keys_t = _convert(keys, self._key_dtype, "keys")
        values_t = _convert(values, self._value_dtype, "values")
        k, v = self._host(keys_t, "insert"), self._host(values_t, "insert")
        expected = k.shape + self._value_shape
        if v.shape != expected:
            raise _op_error(
                "LookupTableInsertV2",
                f"Expected shape [{_shape_text(expected)}] for value, got [{_shape_text(v.shape)}]",
            )
        self._check_key(k, "LookupTableInsertV2")
        self._insert_host(k, v)

    def _insert_host(self, k: np.ndarray, v: np.ndarray) -> None:
        """Inserts checked host keys and values (values of shape ``k.shape + value_shape``)."""
        k = k.reshape(-1).astype(self._np_keys.dtype)
        v = v.reshape((k.shape[0], *self._value_shape))
        # The last of equal keys wins: keep each key's last occurrence.
        last = k.shape[0] - 1 - np.unique(k[::-1], return_index=True)[1]
        k, v = k[last], v[last]
        keep = ~np.isin(self._np_keys, k)
        all_keys = np.concatenate([self._np_keys[keep], k])
        all_values = np.concatenate([self._np_values[keep], v.astype(self._np_values.dtype)])
        order = np.argsort(all_keys, kind="stable")
        self._np_keys, self._np_values = all_keys[order], all_values[order]

    def remove(self, keys, name=None):
        """Removes ``keys`` from the table; keys not in it are ignored.

        Raises:
            TypeError: ``keys`` has another dtype than the table's keys (TF's text).
        """
        del name
        keys_t = convert_to_tensor(keys)
        if keys_t.dtype != self._key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys_t.dtype}"
            )
        k = self._host(keys_t, "remove")
        self._check_key(k, "LookupTableRemoveV2")
        keep = ~np.isin(self._np_keys, k.reshape(-1))
        self._np_keys, self._np_values = self._np_keys[keep], self._np_values[keep]

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of ``keys``, of shape ``keys.shape + value_shape``.

        Args:
            keys: keys of any shape, of the table's key dtype.
            dynamic_default_values: the values of absent keys, of the default value's
                shape or the result's; by default the table's default value.
            name: unused (TF's op name).

        Raises:
            ValueError: ``keys`` has another dtype (TF's text).
        """
        del name
        keys_t = _convert(keys, self._key_dtype, "keys")
        k = self._host(keys_t, "lookup")
        self._check_key(k, "LookupTableFindV2")
        default = self._default_value
        if dynamic_default_values is not None:
            default = convert_to_tensor(dynamic_default_values, dtype=self._value_dtype)
        default = self._host(default, "lookup")
        index, found = self._find(k)
        present = self._np_values[index] if self._np_keys.shape[0] else None
        out_shape = k.shape + self._value_shape
        result = np.broadcast_to(default, out_shape).copy()
        if present is not None:
            mask = found.reshape(found.shape + (1,) * len(self._value_shape))
            result = np.where(np.broadcast_to(mask, out_shape), present, result)
        return wrap(jnp.asarray(result, self._np_values.dtype))

    def export(self, name=None):
        """The keys and their values, as two Tensors, sorted by key."""
        del name
        return wrap(jnp.asarray(self._np_keys)), wrap(jnp.asarray(self._np_values))

    # -- checkpointing (``_SavedTable``)

    def _host_export(self):
        return self._np_keys, self._np_values

    def _check_saved_tensors(self, arrays: dict) -> None:
        """TF's ``LookupTableImportV2`` check of saved arrays (their dtypes are checked)."""
        k, v = arrays["table-keys"], arrays["table-values"]
        expected = k.shape + self._value_shape
        if v.shape != expected:
            raise _op_error(
                "LookupTableImportV2",
                f"Expected shape [{_shape_text(expected)}] for value, got [{_shape_text(v.shape)}]",
            )

    def _restore_saved_tensors(self, arrays: dict) -> None:
        """Replaces the contents by the saved pairs (TF's import: later duplicates win)."""
        self._np_keys = self._np_keys[:0]
        self._np_values = self._np_values[:0]
        self._insert_host(arrays["table-keys"], arrays["table-values"])

    def __getitem__(self, keys):
        """``table[keys]``, the same as ``table.lookup(keys)``."""
        return self.lookup(keys)


# What TF's CPU kernel ``MutableDenseHashTableV2`` is registered for (strings aside).
_DENSE_DTYPES = {
    "int64": ("int64", "int32", "float32", "float64", "bool"),
    "int32": ("int32", "float32", "float64"),
}
_DENSE_KERNEL_LIST = (
    "All kernels registered for op MutableDenseHashTableV2:\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_RESOURCE]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_STRING]; value_dtype in [DT_BOOL]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_VARIANT]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT64]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_DOUBLE]\n"
    "  device='CPU'; key_dtype in [DT_INT64]; value_dtype in [DT_BOOL]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_INT32]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_FLOAT]\n"
    "  device='CPU'; key_dtype in [DT_INT32]; value_dtype in [DT_DOUBLE]\n"
)
_MASK64 = (1 << 64) - 1
_DEFAULT_BUCKETS = 1 << 17
_MAX_LOAD_FACTOR = 0.8


def _hash_key(key: np.ndarray) -> int:
    """TF's ``MutableDenseHashTable::HashKey``: an integer key is its own hash
    (``static_cast<uint64>``), a vector key folds its elements with ``Hash64Combine``."""
    if key.shape[0] == 1:
        return int(key[0]) & _MASK64
    result = 0
    for element in key:
        b = int(element) & _MASK64
        result = (result ^ (b + 0x9E3779B97F4A7800 + (result << 10) + (result >> 4))) & _MASK64
    return result


class DenseHashTable(_SavedTable):
    """A mutable table with open addressing (``tf.lookup.experimental.DenseHashTable``).

    The table is TF's bucket array, kept on the host as NumPy arrays and changed as
    TF's ``MutableDenseHashTable`` kernel changes it: a key's first bucket is its hash
    (an integer key is its own hash) masked to the power-of-two bucket count, collisions
    probe quadratically, removed keys leave ``deleted_key`` behind, and the bucket count
    doubles before an insert would pass a load of 0.8. ``export()`` therefore returns
    TF's arrays, empty buckets included, in TF's order. Keys are scalars or vectors (the
    shape of ``empty_key``); values are scalars or vectors (the shape of
    ``default_value``).

    Args:
        key_dtype: the keys' dtype, int32 or int64.
        value_dtype: the values' dtype.
        default_value: the value of keys not in the table; its shape is the values' shape.
        empty_key: the key that marks an empty bucket; never a table key.
        deleted_key: the key that marks a removed key's bucket; never a table key.
        initial_num_buckets: the starting bucket count, a power of two of at least 4
            (default 2**17).
        name: accepted for TF's signature (TF's eager ``name`` property is None).
        checkpoint: accepted for TF's signature. As TF 2's eager tables, a table reachable
            from a ``tapejax.train.Checkpoint`` is saved (``export()``'s bucket arrays) and
            restored, buckets and bucket count as saved, whatever this says.
        experimental_is_anonymous: accepted for TF's signature.

    Raises:
        InvalidArgumentError: ``empty_key`` equals ``deleted_key``, they differ in shape,
            a key or value is not a scalar or vector, or ``initial_num_buckets`` is not a
            power of two of at least 4 (TF's texts).
        NotFoundError: TF has no table for this key and value dtype pair (TF's text, but
            for the shared name).

    .. warning::
        As ``MutableHashTable``, the table cannot be used inside ``tapejax.function`` or
        a JAX transform: its methods raise ``NotImplementedError`` there.

    Example:
        >>> import tapejax as tf
        >>> table = tf.lookup.experimental.DenseHashTable(
        ...     tf.int32, tf.float32, -1.0, empty_key=-1, deleted_key=-2,
        ...     initial_num_buckets=4)
        >>> table.insert([1, 6], [10.0, 60.0])
        >>> table.lookup([6, 3]).numpy()
        array([60., -1.], dtype=float32)
        >>> table.export()[0].numpy().ravel()
        array([-1,  1,  6, -1], dtype=int32)
    """

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        empty_key,
        deleted_key,
        initial_num_buckets=None,
        name="MutableDenseHashTable",
        checkpoint=True,
        experimental_is_anonymous=False,
    ):
        del name, checkpoint, experimental_is_anonymous
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        empty = convert_to_tensor(empty_key, dtype=self._key_dtype)
        deleted = convert_to_tensor(deleted_key, dtype=self._key_dtype)
        self._check_dtypes(initial_num_buckets)
        empty_np, deleted_np = np.asarray(empty._value), np.asarray(deleted._value)
        default_np = np.asarray(self._default_value._value)
        if default_np.ndim > 1:
            raise self._create_error(
                f"Empty value must be a scalar or a vector, got shape [{_shape_text(default_np.shape)}]"
            )
        if empty_np.ndim > 1:
            raise self._create_error(
                f"Empty key must be a scalar or a vector, got shape [{_shape_text(empty_np.shape)}]"
            )
        if empty_np.shape != deleted_np.shape:
            raise self._create_error(
                "Empty and deleted keys must have same shape, got shapes: "
                f"[{_shape_text(empty_np.shape)}] and [{_shape_text(deleted_np.shape)}]"
            )
        if np.array_equal(empty_np, deleted_np):
            raise self._create_error("Empty and deleted keys cannot be equal")
        buckets = _DEFAULT_BUCKETS if initial_num_buckets is None else int(initial_num_buckets)
        if buckets < 4 or buckets & (buckets - 1):
            raise self._create_error(
                f"Number of buckets must be at least 4 and a power of 2, got: {buckets}"
            )
        self._key_shape = empty_np.shape
        self._value_shape = default_np.shape
        self._empty = empty_np.reshape(-1)
        self._deleted = deleted_np.reshape(-1)
        self._empty_hash = _hash_key(self._empty)
        self._deleted_hash = _hash_key(self._deleted)
        self._default_row = default_np.reshape(-1)
        self._num_entries = 0
        self._key_buckets, self._value_buckets = self._empty_buckets(buckets)

    def _create_error(self, message: str) -> InvalidArgumentError:
        return InvalidArgumentError(
            None,
            None,
            "{{function_node __wrapped__MutableDenseHashTableV2_device_/job:localhost/"
            f"replica:0/task:0/device:CPU:0}}}} {message} [Op:MutableDenseHashTableV2] "
            "name: MutableDenseHashTable",
        )

    def _check_dtypes(self, initial_num_buckets) -> None:
        if self._value_dtype.name in _DENSE_DTYPES.get(self._key_dtype.name, ()):
            return
        enum = {"float32": "FLOAT", "float64": "DOUBLE"}
        k = "DT_" + enum.get(self._key_dtype.name, self._key_dtype.name.upper())
        v = "DT_" + enum.get(self._value_dtype.name, self._value_dtype.name.upper())
        buckets = _DEFAULT_BUCKETS if initial_num_buckets is None else initial_num_buckets
        shape = _shape_text(self._default_value.shape.as_list())
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node MutableDenseHashTableV2}} = "
            f'MutableDenseHashTableV2[container="", initial_num_buckets={buckets}, '
            f'key_dtype={k}, max_load_factor=0.8, shared_name="table_0", '
            f"use_node_name_sharing=false, value_dtype={v}, value_shape=[{shape}]]\n"
            f"{_DENSE_KERNEL_LIST} [Op:MutableDenseHashTableV2] name: MutableDenseHashTable",
        )

    def _empty_buckets(self, n: int):
        key_dtype = jnp.asarray(0, self._key_dtype.as_numpy_dtype).dtype
        keys = np.tile(self._empty.astype(key_dtype), (n, 1))
        values = np.zeros((n, self._default_row.size), self._default_value._value.dtype)
        return keys, values

    @property
    def name(self):
        """None, as TF's eager tables."""
        return None

    _host = MutableHashTable._host

    def size(self, name=None):
        """The number of keys, an int64 scalar Tensor (TF's count, duplicates included)."""
        del name
        return convert_to_tensor(self._num_entries, dtype=dtypes.int64)

    def _key_rows(self, keys: np.ndarray, op: str) -> np.ndarray:
        """``keys`` as one row per key, with TF's shape check."""
        expected = keys.shape[:1] + self._key_shape
        if keys.shape != expected:
            raise _op_error(
                op, f"Expected key shape [{_shape_text(expected)}] got [{_shape_text(keys.shape)}]"
            )
        return keys.reshape(-1, max(1, int(np.prod(self._key_shape, dtype=int))))

    def _reserved(self, row: np.ndarray, key_hash: int, op: str) -> bool:
        """Raises TF's error for an empty or deleted key, or says whether ``row`` is one."""
        for which, marker, marker_hash in (
            ("empty_key", self._empty, self._empty_hash),
            ("deleted_key", self._deleted, self._deleted_hash),
        ):
            if key_hash == marker_hash and np.array_equal(row, marker):
                if op is None:
                    return True
                raise _op_error(op, f"Using the {which} as a table key is not allowed")
        return False

    def _probe(self, key_hash: int):
        """TF's quadratic probe sequence over the buckets."""
        mask = self._key_buckets.shape[0] - 1
        index = key_hash & mask
        for probes in range(1, self._key_buckets.shape[0] + 1):
            yield index
            index = (index + probes) & mask

    def _do_insert(self, key_rows, value_rows, op) -> None:
        """TF's ``DoInsert``; ``op`` None skips empty and deleted keys (rebucketing)."""
        buckets = self._key_buckets
        for row, value in zip(key_rows, value_rows):
            key_hash = _hash_key(row)
            if self._reserved(row, key_hash, op):
                continue
            for index in self._probe(key_hash):
                if np.array_equal(buckets[index], row):
                    self._value_buckets[index] = value
                    break
                if np.array_equal(buckets[index], self._empty) or np.array_equal(
                    buckets[index], self._deleted
                ):
                    self._num_entries += 1
                    buckets[index] = row
                    self._value_buckets[index] = value
                    break

    def insert_or_assign(self, keys, values, name=None):
        """Sets the values of ``keys``, in TF's bucket order (see the class).

        Args:
            keys: a scalar key or a batch of keys, of the table's key dtype.
            values: one value per key.
            name: unused (TF's op name).

        Raises:
            ValueError: ``keys`` or ``values`` has another dtype (TF's text).
            InvalidArgumentError: a shape is wrong, or a key is the empty or deleted key
                (TF's texts; as in TF, the keys before that one are inserted).
        """
        del name
        keys_t = _convert(keys, self._key_dtype, "keys")
        values_t = _convert(values, self._value_dtype, "values")
        k = self._host(keys_t, "insert")
        v = self._host(values_t, "insert")
        op = "LookupTableInsertV2"
        rows = self._key_rows(k, op)
        expected = k.shape[: k.ndim - len(self._key_shape)] + self._value_shape
        if v.shape != expected:
            raise _op_error(
                op,
                f"Expected shape [{_shape_text(expected)}] for value, got [{_shape_text(v.shape)}]",
            )
        # TF grows as though every key were new, before inserting any of them.
        batch = 1 if k.ndim == 0 else k.shape[0]
        pending = self._num_entries + batch
        n = self._key_buckets.shape[0]
        if pending > n * _MAX_LOAD_FACTOR:
            while pending > n * _MAX_LOAD_FACTOR:
                n <<= 1
            old_keys, old_values = self._key_buckets, self._value_buckets
            self._key_buckets, self._value_buckets = self._empty_buckets(n)
            self._num_entries = 0
            self._do_insert(old_keys, old_values, None)
        self._do_insert(rows, v.reshape(rows.shape[0], -1), op)

    def insert(self, keys, values, name=None):
        """The same as ``insert_or_assign``."""
        return self.insert_or_assign(keys, values, name)

    def erase(self, keys, name=None):
        """Removes ``keys``, leaving ``deleted_key`` in their buckets; absent keys are ignored.

        Raises:
            TypeError: ``keys`` has another dtype than the table's keys (TF's text).
            InvalidArgumentError: a shape is wrong, or a key is the empty or deleted key
                (TF's texts).
        """
        del name
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        k = self._host(keys, "remove")
        op = "LookupTableRemoveV2"
        if k.ndim == 0:
            # TF reads the batch size from a dimension a scalar does not have and prints
            # whatever number it finds; the error is the same.
            raise _op_error(op, f"Expected key shape [1] got [{_shape_text(k.shape)}]")
        for row in self._key_rows(k, op):
            key_hash = _hash_key(row)
            self._reserved(row, key_hash, op)
            for index in self._probe(key_hash):
                if np.array_equal(self._key_buckets[index], row):
                    self._num_entries -= 1
                    self._key_buckets[index] = self._deleted
                    break
                if np.array_equal(self._key_buckets[index], self._empty):
                    break

    def remove(self, keys, name=None):
        """The same as ``erase``."""
        return self.erase(keys, name)

    def lookup(self, keys, name=None):
        """The values of ``keys``, of shape ``keys``'s batch shape plus the value shape.

        Raises:
            ValueError: ``keys`` has another dtype (TF's text).
            InvalidArgumentError: a shape is wrong, or a key is the empty or deleted key
                (TF's texts).
        """
        del name
        keys_t = _convert(keys, self._key_dtype, "keys")
        k = self._host(keys_t, "lookup")
        op = "LookupTableFindV2"
        rows = self._key_rows(k, op)
        out = np.empty((rows.shape[0], self._default_row.size), self._value_buckets.dtype)
        for i, row in enumerate(rows):
            key_hash = _hash_key(row)
            self._reserved(row, key_hash, op)
            out[i] = self._default_row
            for index in self._probe(key_hash):
                if np.array_equal(self._key_buckets[index], row):
                    out[i] = self._value_buckets[index]
                    break
                if np.array_equal(self._key_buckets[index], self._empty):
                    break
        shape = k.shape[: k.ndim - len(self._key_shape)] + self._value_shape
        return wrap(jnp.asarray(out.reshape(shape)))

    def export(self, name=None):
        """TF's bucket arrays: keys ``[num_buckets, key_size]`` (``empty_key`` in empty
        buckets, ``deleted_key`` in removed ones) and values ``[num_buckets, value_size]``."""
        del name
        return wrap(jnp.asarray(self._key_buckets)), wrap(jnp.asarray(self._value_buckets))

    # -- checkpointing (``_SavedTable``): TF saves ``export()``'s bucket arrays and restores
    # them as they are.

    def _host_export(self):
        return self._key_buckets, self._value_buckets

    def _check_saved_tensors(self, arrays: dict) -> None:
        """TF's ``LookupTableImportV2`` checks of saved bucket arrays.

        TF accepts any key width into a scalar-key table (and then cannot find a key);
        tapejax asks for width 1.
        """
        k, v = arrays["table-keys"], arrays["table-values"]
        width = self._empty.shape[0]
        if k.ndim != 2 or k.shape[1] != width:
            raise _op_error(
                "LookupTableImportV2",
                f"Input key shape [{_shape_text(k.shape)}] must end with the table's key "
                f"shape [{_shape_text(self._key_shape)}]",
            )
        expected = (k.shape[0], self._default_row.size)
        if v.shape != expected:
            raise _op_error(
                "LookupTableImportV2",
                f"Expected shape [{_shape_text(expected)}] for value, got [{_shape_text(v.shape)}]",
            )

    def _restore_saved_tensors(self, arrays: dict) -> None:
        """Takes the saved buckets as they are; the size counts the buckets holding neither
        this table's ``empty_key`` nor its ``deleted_key`` (TF's ``ImportValues``)."""
        keys = arrays["table-keys"].astype(self._key_buckets.dtype)
        values = arrays["table-values"].astype(self._value_buckets.dtype)
        free = np.all(keys == self._empty, axis=1) | np.all(keys == self._deleted, axis=1)
        self._key_buckets, self._value_buckets = keys.copy(), values.copy()
        self._num_entries = int(np.count_nonzero(~free))

    def __getitem__(self, keys):
        """``table[keys]``, the same as ``table.lookup(keys)``."""
        return self.lookup(keys)
