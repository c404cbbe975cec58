"""``tf.sparse.cross_hashed``: hashed feature crosses of integer columns, TF's
``SparseCross`` kernel with ``hashed_output=True``.

Each input is a column of features per batch row: a dense ``[batch, n]`` tensor has ``n``
in every row, a ``[batch, ?]`` SparseTensor the values of the row's indices (in the
order they are stored, as TF's kernel reads them). Row ``b`` of the result holds one
value per element of the cartesian product of the columns' features in that row,
``FingerprintCat64`` chained from ``hash_key`` over the features' int64 values, modulo
``num_buckets`` (or the largest int64). As in TF's kernel, SparseTensors come before
dense tensors in that chain, whatever their order in ``inputs``.

The result's structure depends on the SparseTensors' indices, so it is computed on the
host from concrete indices (traced indices raise ``NotImplementedError``); the hashes are
computed on the host too (``fingerprint_ops``), through ``jax.pure_callback`` when
values are traced. String features need string tensors, which tapejax does not have;
``tf.sparse.cross`` (string output) is not provided for the same reason. Nothing here is
differentiable (the values are hashes), and nothing here may change TF's hash values.
"""

from __future__ import annotations

import jax
import numpy as np

from ..conversion import convert_to_tensor, x64_enabled
from ..sparse_tensor import SparseTensor, static_value
from ..tensor import Tensor, wrap
from ._sparse_common import iae, known_indices, needs_concrete, new_sparse, shape_text
from .fingerprint_ops import fingerprint_cat64

__all__ = ["cross_hashed"]

_OP = "SparseCross"
_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's sparse_ops._DEFAULT_HASH_KEY
_INT64_MAX = 2**63 - 1
_NO_STRING_FEATURES = (
    "tapejax.sparse.cross_hashed takes integer features only: tapejax has no string "
    "tensors (JAX arrays hold numbers only). Map strings to integer ids (or hash them) "
    "before they enter tapejax."
)
# TF's op-def text, in the error its attribute check gives.
_OP_DEF = (
    "Op<name=SparseCross; signature=indices:N*int64, values:, shapes:N*int64, "
    "dense_inputs: -> output_indices:int64, output_values:out_type, output_shape:int64; "
    "attr=N:int,min=0; attr=hashed_output:bool; attr=num_buckets:int,min=0; "
    "attr=hash_key:int; attr=sparse_types:list(type),min=0,allowed=[DT_INT64, DT_STRING]; "
    "attr=dense_types:list(type),min=0,allowed=[DT_INT64, DT_STRING]; "
    "attr=out_type:type,allowed=[DT_INT64, DT_STRING]; "
    "attr=internal_type:type,allowed=[DT_INT64, DT_STRING]>"
)


def _is_string_like(x) -> bool:
    if isinstance(x, str | bytes):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "USO"
    if isinstance(x, list | tuple):
        return any(_is_string_like(v) for v in x)
    return False


def _as_int64(array: np.ndarray) -> np.ndarray:
    """TF's ``cast(values, int64)`` on the host: complex numbers keep their real part,
    floats are truncated toward zero."""
    array = np.asarray(array)
    if array.dtype.kind == "c":
        array = array.real
    return array.astype(np.int64)


def _feature_rows(indices: np.ndarray, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """TF's ``ExtractFeatureData``: each batch row's number of features and first value
    position, reading the indices in order and stopping at the first one of another row."""
    counts, starts = np.zeros(batch, np.int64), np.zeros(batch, np.int64)
    rows, current = indices[:, 0], 0
    for b in range(batch):
        starts[b] = current
        while current < rows.shape[0] and rows[current] == b:
            current += 1
        counts[b] = current - starts[b]
    return counts, starts


def _check_inputs(sparse: list, dense: list) -> int:
    """TF's ``ValidateInput`` (the checks a SparseTensor and a Tensor can fail); returns
    the batch size."""
    for i, sp in enumerate(sparse):
        if sp.indices.shape[1] != 2:
            raise iae(
                f"Expected D2 of index to be 2 got {sp.indices.shape[1]} at position {i}", _OP
            )
    for i, t in enumerate(dense):
        if t.shape.rank != 2:
            raise iae(
                f"Dense inputs should be a matrix but received shape "
                f"{shape_text(t.shape.as_list())} at position {i}",
                _OP,
            )
    sparse_batches = [_dense_rows(sp) for sp in sparse]
    if sparse_batches:
        batch = sparse_batches[0]
    elif dense:
        batch = dense[0].shape[0]
    else:
        batch = 0
    for i, rows in enumerate(sparse_batches):
        if rows != batch:
            raise iae(f"Expected batch size {batch} got {rows} at position {i}", _OP)
    for i, t in enumerate(dense):
        if t.shape[0] != batch:
            raise iae(f"Expected batch size {batch} got {t.shape[0]} at dense tensor {i}", _OP)
    return int(batch)


def _dense_rows(sp: SparseTensor) -> int:
    dims = sp.shape
    if dims.rank is not None and dims[0] is not None:
        return int(dims[0])
    value = static_value(sp.dense_shape)
    if value is None:
        raise needs_concrete("tapejax.sparse.cross_hashed", "dense shapes")
    return int(value[0])


def _plan(sparse: list, dense: list, batch: int):
    """The result's structure: its ``[N, 2]`` indices, its dense shape, and for each
    column the position (in that column's flattened features) each result value takes."""
    columns = []  # (features per row, first position per row)
    for sp in sparse:
        indices = known_indices(sp)
        if indices is None:
            raise needs_concrete("tapejax.sparse.cross_hashed")
        counts, starts = _feature_rows(np.asarray(indices, np.int64).reshape(-1, 2), batch)
        columns.append((counts, starts))
    for t in dense:
        width = int(t.shape[1])
        columns.append((np.full(batch, width, np.int64), np.arange(batch, dtype=np.int64) * width))
    rows, crosses, takes = [], [], [[] for _ in columns]
    for b in range(batch):
        sizes = [int(counts[b]) for counts, _ in columns]
        total = int(np.prod(sizes)) if sizes and min(sizes) > 0 else 0
        if not total:
            continue
        cross = np.arange(total, dtype=np.int64)
        rows.append(np.full(total, b, np.int64))
        crosses.append(cross)
        # The last column's feature changes fastest (TF's ProductIterator).
        stride = total
        for j, (_, starts) in enumerate(columns):
            stride //= sizes[j]
            takes[j].append(starts[b] + (cross // stride) % sizes[j])
    width = max((c.shape[0] for c in crosses), default=0)
    if rows:
        indices = np.stack([np.concatenate(rows), np.concatenate(crosses)], axis=1)
    else:
        indices = np.zeros((0, 2), np.int64)
    takes = [np.concatenate(t) if t else np.zeros(0, np.int64) for t in takes]
    return indices, (batch, width), takes


def _hash_features(features: list, takes: list, hash_key: int, num_buckets: int) -> np.ndarray:
    """TF's ``HashCrosser``: ``FingerprintCat64`` from ``hash_key`` over each cross's
    features (their int64 values as uint64), then the modulo."""
    size = takes[0].shape[0] if takes else 0
    hashed = np.full(size, hash_key % 2**64, np.uint64)
    for values, take in zip(features, takes, strict=True):
        feature = _as_int64(values).reshape(-1)[take]
        hashed = fingerprint_cat64(hashed, feature.view(np.uint64))
    modulus = num_buckets if num_buckets > 0 else _INT64_MAX
    return (hashed % np.uint64(modulus)).astype(np.int64)


def _values_tensor(features: list, takes: list, hash_key: int, num_buckets: int) -> Tensor:
    known = [static_value(f) for f in features]
    if all(v is not None for v in known):
        return convert_to_tensor(_hash_features(known, takes, hash_key, num_buckets))
    fits_int32 = 0 < num_buckets <= 2**31
    if not x64_enabled() and not fits_int32:
        raise ValueError(
            "tapejax.sparse.cross_hashed inside a traced program gives int64 hashes, which "
            "JAX holds only in 64-bit mode (off). Run jax.config.update('jax_enable_x64', "
            "True), or pass num_buckets <= 2**31 so that the hashes fit in int32."
        )
    dtype = np.int64 if x64_enabled() else np.int32
    size = takes[0].shape[0] if takes else 0

    def host(*arrays):
        hashed = _hash_features([np.asarray(a) for a in arrays], takes, hash_key, num_buckets)
        return hashed.astype(dtype)

    result = jax.ShapeDtypeStruct((size,), dtype)
    values = [jax.lax.stop_gradient(f._value) for f in features]
    return wrap(jax.pure_callback(host, result, *values, vmap_method="sequential"))


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Hashed crosses of integer feature columns (``tf.sparse.cross_hashed``).

    For each batch row, every combination of one feature from each input is hashed:
    ``FingerprintCat64`` chained from ``hash_key`` over the features' int64 values,
    SparseTensors first and then dense tensors (TF's kernel's order), reduced modulo
    ``num_buckets`` when it is positive, else modulo ``2**63 - 1``. The values are TF's.

    Args:
        inputs: a list (or tuple) of ``[batch, ?]`` SparseTensors and ``[batch, n]``
            Tensors of numbers (cast to int64 as TF does). Strings are not possible:
            tapejax has no string tensors.
        num_buckets: an int >= 0.
        hash_key: the int64 key the chain starts from; ``None`` or 0 give TF's default.
        name: unused (TF's op name).

    Returns:
        An int64 SparseTensor of dense shape ``[batch, most crosses in a row]``; row
        ``b``'s crosses are at ``[b, 0]``, ``[b, 1]``, ..., in cartesian-product order
        (the last column's feature changing fastest).

    Raises:
        TypeError: ``inputs`` is not a list, or holds something other than Tensors and
            SparseTensors (TF's texts).
        InvalidArgumentError: a rank other than 2, different batch sizes, a negative
            ``num_buckets`` (TF's texts).
        NotImplementedError: string features, or SparseTensor indices traced inside a
            ``tapejax.function`` (the result's size depends on them).

    Example:
        >>> import tapejax as tf
        >>> sp = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2])
        >>> out = tf.sparse.cross_hashed([sp, tf.constant([[4], [5]])], num_buckets=100)
        >>> out.values.numpy().tolist(), out.dense_shape.numpy().tolist()
        ([25, 38, 12], [2, 2])
    """
    del name
    if not isinstance(inputs, tuple | list):
        if _is_string_like(inputs):
            raise NotImplementedError(_NO_STRING_FEATURES)
        raise TypeError("Inputs must be a list")
    if any(_is_string_like(i) for i in inputs):
        raise NotImplementedError(_NO_STRING_FEATURES)
    if not all(isinstance(i, SparseTensor | Tensor) for i in inputs):
        raise TypeError("All inputs must be SparseTensors")
    num_buckets = int(num_buckets)
    if num_buckets < 0:
        raise iae(
            f"Value for attr 'num_buckets' of {num_buckets} must be at least minimum 0\n\t; "
            f"NodeDef: {{{{node {_OP}}}}}; {_OP_DEF}",
            _OP,
        )
    hash_key = int(hash_key or _DEFAULT_HASH_KEY)
    if not -(2**63) <= hash_key < 2**63:
        raise OverflowError("int too big to convert")
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, SparseTensor)]
    batch = _check_inputs(sparse, dense)
    indices, dims, takes = _plan(sparse, dense, batch)
    features = [sp.values for sp in sparse] + dense
    values = _values_tensor(features, takes, hash_key, num_buckets)
    return new_sparse(indices, values, dims)
