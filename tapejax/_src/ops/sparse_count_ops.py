"""``tf.sparse.bincount``: counts of each non-negative integer, as a SparseTensor, with the
rules of TF's ``DenseCountSparseOutput`` and ``SparseCountSparseOutput`` kernels (which
values are counted, the output's size, index order, dtypes and error texts).

Which bins are present depends on the input's values, so, as TF's CPU-only kernels do,
the counting runs on the host from concrete inputs: inside a traced program
(``tapejax.function``, a JAX transform) it raises ``NotImplementedError`` unless the inputs
were built from constants there. The result is a new SparseTensor unconnected to the inputs
(TF registers no gradient for these kernels). Nothing here may run on traced values.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..conversion import canonical_np_dtype
from ..indexed_slices import IndexedSlices
from ..sparse_tensor import SparseTensor
from ..tensor import Tensor, wrap
from ._helpers import tf_type_name, to_tensor
from ._sparse_common import host_array, host_indices, iae, new_sparse, shape_text
from .segment_ops import bincount_axis, check_weights_not_binary

__all__ = ["bincount"]

_WHAT = "tapejax.sparse.bincount"
_DENSE_OP = "DenseCountSparseOutput"
_SPARSE_OP = "SparseCountSparseOutput"
_VALUE_TYPES = ("int32", "int64")
_OUTPUT_TYPES = ("int32", "int64", "float", "double")


def _type_error(attr: str, dtype, allowed: tuple, op_name: str):
    return iae(
        f"Value for attr '{attr}' of {tf_type_name(dtype)} is not in the list of allowed values: "
        + ", ".join(allowed),
        op_name,
    )


def _length_attr(value, attr: str, op_name: str) -> int:
    """``minlength``/``maxlength`` as the kernel's int attribute (-1: not given)."""
    if value is None:
        return -1
    n = int(np.asarray(host_array(value, _WHAT)))
    if n < -1:
        raise iae(f"Value for attr '{attr}' of {n} must be at least minimum -1", op_name)
    return n


def _received(weights) -> str:
    kind = "EagerTensor" if isinstance(weights, Tensor) else type(weights).__name__
    return f"Received weights={weights} of type: {kind}"


def _sparse_weights(values: SparseTensor, weights) -> Tensor:
    """TF's ``validate_sparse_weights``: the values of a SparseTensor with ``values``'
    dense shape and indices (checked as TF does, with ``assert_equal``)."""
    from ..asserts import assert_equal

    if weights is None:
        return wrap(jnp.zeros((0,), values.values._v.dtype))
    if not isinstance(weights, SparseTensor):
        raise ValueError(
            "Argument `weights` must be a SparseTensor if `values` is a SparseTensor. "
            + _received(weights)
        )
    if weights.dense_shape is not values.dense_shape:
        assert_equal(
            weights.dense_shape,
            values.dense_shape,
            message="'weights' and 'values' must have the same dense shape.",
        )
    if weights.indices is not values.indices:
        assert_equal(
            weights.indices,
            values.indices,
            message="'weights' and 'values' must have the same indices.",
        )
    return weights.values


def _check_types(values: Tensor, weights: Tensor, op_name: str) -> None:
    # TF's op-def check names whichever refused attr its hash map visits first; tapejax
    # names T when both are refused (docs/compat.md).
    if tf_type_name(values._v.dtype) not in _VALUE_TYPES:
        raise _type_error("T", values._v.dtype, _VALUE_TYPES, op_name)
    if tf_type_name(weights._v.dtype) not in _OUTPUT_TYPES:
        raise _type_error("output_type", weights._v.dtype, _OUTPUT_TYPES, op_name)


def _tensor_text(dims: np.ndarray) -> str:
    """TF's ``Tensor::DebugString`` of an int64 shape vector (three values, then ...)."""
    shown = " ".join(str(int(d)) for d in dims[:3]) + ("..." if dims.size > 3 else "")
    return f"Tensor<type: int64 shape: [{dims.size}] values: {shown}>"


def _count(batches, data, weights, size_attrs, binary: bool, out_dtype, op_name: str):
    """The counts of the kernels: ``(sorted [batch, value] pairs, their sums, size)``."""
    minlength, maxlength = size_attrs
    if data.size and data.min() < 0:
        raise iae("Input values must all be non-negative", op_name)
    keep = data < maxlength if maxlength >= 0 else np.ones(data.shape, bool)
    if maxlength >= 0:
        size = maxlength
    else:
        size = max(int(data.max()) + 1 if data.size else 1, minlength)
    pairs = np.stack([batches[keep], data[keep]], axis=1).astype(np.int64).reshape(-1, 2)
    keys, inverse = np.unique(pairs, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = np.zeros(keys.shape[0], out_dtype)
    if binary:
        sums[:] = 1
    elif weights is not None:
        # In input order, as the kernel adds them (float sums round as TF's do).
        np.add.at(sums, inverse, weights[keep].astype(out_dtype))
    else:
        np.add.at(sums, inverse, 1)
    return keys, sums, size


def _result(keys, sums, size: int, num_batches, out_dtype) -> SparseTensor:
    values = wrap(jnp.asarray(sums.astype(canonical_np_dtype(out_dtype))))
    if num_batches is None:
        return new_sparse(keys[:, 1:], values, (size,))
    return new_sparse(keys, values, (num_batches, size))


def _host(raw, t: Tensor) -> np.ndarray:
    """The value of ``t``, converted from ``raw``: Python and NumPy data stay concrete
    inside a traced program, where their Tensors do not."""
    python = isinstance(raw, (list, tuple, int, float, np.ndarray, np.generic))
    return np.asarray(host_array(raw if python else t, _WHAT)).astype(np.dtype(t._v.dtype))


def _dense_count(
    values: Tensor, raw_values, weights: Tensor, raw_weights, flatten: bool, size_attrs, binary
) -> SparseTensor:
    """``DenseCountSparseOutput`` (after TF's reshape of both inputs to 1-D with
    ``flatten``, done here on the host so that constants inside a trace stay concrete)."""
    data = _host(raw_values, values)
    use_weights = weights._v.size > 0
    w = _host(raw_weights, weights) if use_weights else None
    if flatten:
        data = data.reshape(-1)
        w = None if w is None else w.reshape(-1)
    _check_types(values, weights, _DENSE_OP)
    shape = data.shape
    if len(shape) not in (1, 2):
        raise iae(f"Input must be a 1 or 2-dimensional tensor. Got: {shape_text(shape)}", _DENSE_OP)
    if use_weights and w.shape != shape:
        raise iae(
            f"Weights and data must have the same shape. Weight shape: "
            f"{shape_text(w.shape)}; data shape: {shape_text(shape)}",
            _DENSE_OP,
        )
    if len(shape) == 2 and shape[0] == 0:
        raise iae("Invalid input: Shapes dimension cannot be 0.", _DENSE_OP)
    out_dtype = np.dtype(weights._v.dtype)
    if len(shape) == 2:
        batches = np.repeat(np.arange(shape[0], dtype=np.int64), shape[1])
    else:
        batches = np.zeros(data.size, np.int64)
    keys, sums, size = _count(
        batches,
        data.reshape(-1).astype(np.int64),
        None if w is None else w.reshape(-1),
        size_attrs,
        binary,
        out_dtype,
        _DENSE_OP,
    )
    return _result(keys, sums, size, None if len(shape) == 1 else shape[0], out_dtype)


def _sparse_count(values: SparseTensor, weights: Tensor, size_attrs, binary: bool) -> SparseTensor:
    _check_types(values.values, weights, _SPARSE_OP)
    indices = host_indices(values, _WHAT)
    dims = np.asarray(host_array(values.dense_shape, _WHAT), np.int64).reshape(-1)
    indices = indices.reshape(-1, dims.size)
    bad = (indices < 0) | (indices >= dims)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise iae(
            f"Invalid index value at {i}: dimension {j} has value {int(indices[i, j])} which is "
            f"not in [0, {int(dims[j])}) (as given by dense shape {_tensor_text(dims)}",
            _SPARSE_OP,
        )
    use_weights = weights._v.size > 0
    if use_weights and weights._v.shape != values.values._v.shape:
        raise iae(
            f"Weights and values must have the same shape. Weight shape: "
            f"{shape_text(weights._v.shape)}; values shape: {shape_text(values.values._v.shape)}",
            _SPARSE_OP,
        )
    is_1d = dims.size == 1
    num_batches = 1 if is_1d else int(dims[0])
    if num_batches <= 0:
        raise iae(
            f"Cannot allocate {num_batches} batches, is the dense shape too wide?", _SPARSE_OP
        )
    data = host_array(values.values, _WHAT).astype(np.int64).reshape(-1)
    w = host_array(weights, _WHAT).reshape(-1) if use_weights else None
    batches = np.zeros(data.size, np.int64) if is_1d else indices[:, 0]
    out_dtype = np.dtype(weights._v.dtype)
    keys, sums, size = _count(batches, data, w, size_attrs, binary, out_dtype, _SPARSE_OP)
    return _result(keys, sums, size, None if is_1d else num_batches, out_dtype)


def bincount(
    values,
    weights=None,
    axis=0,
    minlength=None,
    maxlength=None,
    binary_output=False,
    name=None,
) -> SparseTensor:
    """Counts each non-negative integer of ``values``, as a SparseTensor (``tf.sparse.bincount``).

    With ``axis=0`` every value is counted together: the result is 1-D, entry ``j`` the
    number of times ``j`` occurs. With ``axis=-1`` each row of a 2-D input (or each
    ``indices[:, 0]`` slice of a SparseTensor) is counted apart: entry ``[i, j]`` is the
    number of times ``j`` occurs in row ``i``. Only bins that occur are present, sorted by
    row, then value. A SparseTensor's missing entries are not counted.

    The dense length is ``maxlength`` when given (larger values are dropped), else the
    largest value plus one (1 for no values), at least ``minlength``.

    Args:
        values: an int32 or int64 Tensor (or what converts to one) of rank 1, or 2 with
            ``axis=-1``; or a SparseTensor of such values.
        weights: summed instead of ones, in their own dtype (int32, int64, float32 or
            float64): a Tensor of ``values``' shape (reshaped with it for ``axis=0``), or,
            for a SparseTensor, a SparseTensor with its indices and dense shape. An empty
            one counts as no weights.
        axis: 0 (or None) or -1.
        minlength: the least dense length.
        maxlength: the dense length; values at least this large are dropped.
        binary_output: 1 for each bin present instead of the count.
        name: unused (TF's op name).

    Returns:
        A SparseTensor with int64 indices and dense shape, and values in ``weights``'
        dtype (``values``' dtype without weights).

    Raises:
        ValueError: ``weights`` with ``binary_output``, an ``axis`` but 0 and -1, or
            ``weights`` of the wrong kind (TF's texts).
        InvalidArgumentError: a negative value, a dtype or shape the kernels refuse, a
            SparseTensor index out of bounds or weights with other indices (TF's texts).
        NotImplementedError: inside a traced program, on traced inputs.

    Example:
        >>> import tapejax as tf
        >>> counts = tf.sparse.bincount([[1, 2, 2], [3, 3, 0]], axis=-1)
        >>> counts.indices.numpy().tolist(), counts.values.numpy().tolist()
        ([[0, 1], [0, 2], [1, 0], [1, 3]], [1, 2, 1, 2])
        >>> counts.dense_shape.numpy().tolist()
        [2, 4]

    .. warning:: The tape gives ``None`` through it, where TF raises ``LookupError`` (no
       gradient is registered for its kernels).
    """
    del name
    raw_values, raw_weights = values, weights
    sparse = isinstance(values, SparseTensor)
    if not sparse:
        values = to_tensor(values)
    if weights is not None and not isinstance(weights, (SparseTensor, IndexedSlices)):
        weights = to_tensor(weights)
    check_weights_not_binary(weights, binary_output)
    axis = bincount_axis(axis)
    op_name = _SPARSE_OP if sparse and axis == -1 else _DENSE_OP
    size_attrs = (
        _length_attr(minlength, "minlength", op_name),
        _length_attr(maxlength, "maxlength", op_name),
    )
    binary = bool(binary_output)
    if sparse and axis == 0:
        if weights is not None:
            raw_weights = weights = _sparse_weights(values, weights)
        raw_values = values = values.values
        sparse = False
    elif not sparse and axis == 0 and weights is not None:
        weights = to_tensor(weights)  # TF reshapes it: a SparseTensor is refused here
    if sparse:
        return _sparse_count(values, _sparse_weights(values, weights), size_attrs, binary)
    if weights is None:
        raw_weights = weights = wrap(jnp.zeros((0,), values._v.dtype))
    elif not isinstance(weights, Tensor):
        raise ValueError(
            "Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. "
            + _received(weights)
        )
    return _dense_count(values, raw_values, weights, raw_weights, axis == 0, size_attrs, binary)
