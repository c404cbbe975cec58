"""``tf.sets``: set operations along the last dimension of dense tensors and SparseTensors
(``union``, ``intersection``, ``difference``, ``size``), with TF's kernels' results,
dtype rules, index checks and errors.

The first ``n - 1`` dimensions pick a group; the values of a group's row are a set. A
result is a SparseTensor holding each group's result set in ascending order, its last
dimension as wide as the largest result set. How many values a result has depends on the
input values, so, as TF's CPU-only kernels do, this module computes results on the host
from concrete inputs; inside a traced program (``tapejax.function``, a JAX transform) an
op raises ``NotImplementedError``. Integer sets have no gradient: the results are new
Tensors, unconnected to the inputs, as in TF. Nothing here may run on traced values.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..errors import InternalError
from ..sparse_tensor import SparseTensor, SparseTensorValue
from ..tensor import Tensor, wrap
from ._sparse_common import (
    host_array,
    iae,
    known_indices,
    needs_concrete,
    new_sparse,
    shape_text,
    validate_indices,
)

_VALID = frozenset(np.dtype(d) for d in ("int8", "int16", "int32", "int64", "uint8", "uint16"))
# TF's ``_VALID_DTYPES`` as its error texts print it (a frozenset: TF's own order).
_VALID_TEXT = "frozenset({tf.int32, tf.uint8, tf.int16, tf.int8, tf.string, tf.int64, tf.uint16})"


def _dtype_text(np_dtype) -> str:
    return str(dtypes.as_dtype(np_dtype))  # "<dtype: 'float64'>"


def _tensor_or_sparse(x):
    """TF's ``convert_to_tensor_or_sparse_tensor``: each side converted on its own."""
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if isinstance(x, SparseTensor):
        return x
    if getattr(x, "_is_variable", False):
        return x._dense_read()
    return x if type(x) is Tensor else convert_to_tensor(x)


def _np_dtype(x) -> np.dtype:
    return (x.values if isinstance(x, SparseTensor) else x)._v.dtype


# -- reading a set's groups on the host --------------------------------------------------------


class _Sparse:
    """A SparseTensor's host data, validated as TF's ``SparseTensorFromContext``."""

    def __init__(self, sp: SparseTensor, validate: bool, what: str, op_name: str):
        indices = known_indices(sp)
        if indices is None:
            raise needs_concrete(what)
        dims = np.asarray(host_array(sp.dense_shape, what)).astype(np.int64)
        if dims.ndim != 1:
            raise iae("Shape must be a 1D tensor.", op_name)
        if dims.shape[0] < 2:
            raise iae(f"Invalid rank {dims.shape[0]}.", op_name)
        self.dims = tuple(int(d) for d in dims)
        self.values = np.asarray(host_array(sp.values, what))
        self.indices = np.asarray(indices, np.int64).reshape(-1, len(self.dims))
        if validate:
            validate_indices(self.indices, self.dims, op_name)

    def groups(self, op_name: str):
        """``(group index, set)`` for each run of equal group indices, in the stored order
        (TF's ``SparseTensor::group``), with TF's checks of each run."""
        n = self.indices.shape[0]
        start = 0
        while start < n:
            key = tuple(self.indices[start, :-1].tolist())
            stop = start + 1
            while stop < n and tuple(self.indices[stop, :-1].tolist()) == key:
                stop += 1
            rows = self.indices[start:stop]
            for j, dim in enumerate(self.dims):
                if dim <= 0:
                    raise InternalError(
                        None, None, f"Invalid dim_size[{j}] = {dim}. [Op:{op_name}]"
                    )
                over = np.flatnonzero(rows[:, j] >= dim)
                if over.size:
                    i = int(over[0])
                    raise InternalError(
                        None,
                        None,
                        f"indices[{i}, {j}] expected < {dim}, got {int(rows[i, j])}. "
                        f"[Op:{op_name}]",
                    )
            yield key, set(self.values[start:stop].tolist())
            start = stop


def _group_shape(dims, op_name: str) -> tuple:
    if len(dims) < 2:
        raise iae(f"Shape {shape_text(dims)} has rank {len(dims)} < 2", op_name)
    return tuple(dims[:-1])


def _common_group_shape(dims1, dims2, op_name: str) -> tuple:
    g1, g2 = _group_shape(dims1, op_name), _group_shape(dims2, op_name)
    if g1 != g2:
        raise iae(f"Mismatched shapes {shape_text(g1)} vs {shape_text(g2)}", op_name)
    return g1


def _dense_sets(x: np.ndarray, group_shape: tuple):
    """The set of each group of a dense array, in row-major group order."""
    return [set(r.tolist()) for r in x.reshape(int(np.prod(group_shape)), x.shape[-1])]


def _apply(operation: str, s1: set, s2: set) -> set:
    if operation == "a-b":
        return s1 - s2
    if operation == "b-a":
        return s2 - s1
    if operation == "intersection":
        return s1 & s2
    return s1 | s2


def _result(groups: list, group_shape: tuple, dtype: np.dtype) -> SparseTensor:
    """The SparseTensor of ``(group index, result set)`` pairs (empty sets left out)."""
    groups = [(g, sorted(s)) for g, s in groups if s]
    width = max((len(s) for _, s in groups), default=0)
    rank = len(group_shape) + 1
    indices = np.array([[*g, k] for g, s in groups for k in range(len(s))], np.int64).reshape(
        -1, rank
    )
    values = np.array([v for _, s in groups for v in s], dtype)
    return new_sparse(indices, wrap(jnp.asarray(values)), (*group_shape, width))


def _group_index(flat: int, group_shape: tuple) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat, group_shape)) if group_shape else ()


# -- the three kernels ---------------------------------------------------------------------------


def _dense_dense(a: Tensor, b: Tensor, operation: str, what: str) -> SparseTensor:
    op_name = "DenseToDenseSetOperation"
    x1, x2 = np.asarray(host_array(a, what)), np.asarray(host_array(b, what))
    group_shape = _common_group_shape(x1.shape, x2.shape, op_name)
    sets1, sets2 = _dense_sets(x1, group_shape), _dense_sets(x2, group_shape)
    groups = [
        (_group_index(i, group_shape), _apply(operation, s1, s2))
        for i, (s1, s2) in enumerate(zip(sets1, sets2))
    ]
    return _result(groups, group_shape, x1.dtype)


def _dense_sparse(a: Tensor, b: SparseTensor, operation, validate, what) -> SparseTensor:
    op_name = "DenseToSparseSetOperation"
    x1 = np.asarray(host_array(a, what))
    sp2 = _Sparse(b, validate, what, op_name)
    group_shape = _common_group_shape(x1.shape, sp2.dims, op_name)
    sets1 = _dense_sets(x1, group_shape)
    runs = sp2.groups(op_name)
    run = next(runs, None)
    groups = []
    for i, s1 in enumerate(sets1):
        index = _group_index(i, group_shape)
        s2: set = set()
        if run is not None and run[0] == index:
            s2 = run[1]
            run = next(runs, None)
        groups.append((index, _apply(operation, s1, s2)))
    return _result(groups, group_shape, x1.dtype)


def _sparse_sparse(a: SparseTensor, b: SparseTensor, operation, validate, what) -> SparseTensor:
    op_name = "SparseToSparseSetOperation"
    sp1 = _Sparse(a, validate, what, op_name)
    sp2 = _Sparse(b, validate, what, op_name)
    group_shape = _common_group_shape(sp1.dims, sp2.dims, op_name)
    runs1, runs2 = sp1.groups(op_name), sp2.groups(op_name)
    run1, run2 = next(runs1, None), next(runs2, None)
    groups = []
    while run1 is not None or run2 is not None:
        # TF's CompareGroups: the lower group index first (an exhausted side is last).
        if run1 is None:
            order = 1
        elif run2 is None:
            order = -1
        else:
            order = (run1[0] > run2[0]) - (run1[0] < run2[0])
        s1 = s2 = set()
        if order <= 0:
            index, s1 = run1
            run1 = next(runs1, None)
        if order >= 0:
            index, s2 = run2
            run2 = next(runs2, None)
        groups.append((index, _apply(operation, s1, s2)))
    return _result(groups, group_shape, sp1.values.dtype)


# -- public ops ----------------------------------------------------------------------------------


def _operands(a, b):
    """TF's ``_convert_to_tensors_or_sparse_tensors``: dtype checks, and a sparse ``a``
    against a dense ``b`` swapped (TF has only the dense-sparse kernel)."""
    a = _tensor_or_sparse(a)
    if _np_dtype(a) not in _VALID:
        raise TypeError(
            f"'a' has invalid dtype `{_dtype_text(_np_dtype(a))}` not in supported dtypes: "
            f"`{_VALID_TEXT}`."
        )
    b = _tensor_or_sparse(b)
    if _np_dtype(b) != _np_dtype(a):
        raise TypeError(
            f"Types don't match, {_dtype_text(_np_dtype(a))} vs {_dtype_text(_np_dtype(b))}."
        )
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, operation: str, validate: bool, what: str) -> SparseTensor:
    if isinstance(a, SparseTensor):
        return _sparse_sparse(a, b, operation, validate, what)
    if isinstance(b, SparseTensor):
        return _dense_sparse(a, b, operation, validate, what)
    return _dense_dense(a, b, operation, what)


def size(a, validate_indices=True):
    """The number of distinct values in each set of a SparseTensor (``tf.sets.size``).

    Args:
        a: a SparseTensor of an integer dtype (int8, int16, int32, int64, uint8, uint16)
            and rank at least 2; its last dimension holds the sets.
        validate_indices: whether to check that the indices are in bounds, sorted and
            unique (TF's InvalidArgumentError texts).

    Returns:
        An int32 Tensor of ``a``'s dense shape without its last dimension.

    Raises:
        TypeError: ``a`` is dense, or of another dtype.
        NotImplementedError: inside a traced program (the values are needed on the host).

    .. warning:: TF also takes string sets; tapejax has no string tensors.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 3, 5], [2, 2])
        >>> tf.sets.size(st).numpy().tolist()
        [1, 1]
    """
    a = _tensor_or_sparse(a)
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a!s}.")
    if _np_dtype(a) not in _VALID:
        raise TypeError(
            f"Invalid dtype `{_dtype_text(_np_dtype(a))}` not in supported dtypes: `{_VALID_TEXT}`."
        )
    sp = _Sparse(a, bool(validate_indices), "tapejax.sets.size", "SetSize")
    group_shape = _group_shape(sp.dims, "SetSize")
    out = np.zeros(group_shape, np.int32)
    for index, values in sp.groups("SetSize"):
        out[index] = len(values)
    return wrap(jnp.asarray(out))


def intersection(a, b, validate_indices=True):
    """The values in both ``a`` and ``b``, set by set along the last dimension
    (``tf.sets.intersection``).

    Args:
        a: a dense Tensor or a SparseTensor of an integer dtype (int8, int16, int32,
            int64, uint8, uint16), rank at least 2.
        b: the same for the other sets, of ``a``'s dtype (converted on its own, as TF
            does: a Python list against an int64 ``a`` is a TypeError) and with ``a``'s
            dimensions but the last.
        validate_indices: whether a SparseTensor's indices are checked (in bounds, sorted,
            unique).

    Returns:
        A SparseTensor: each group's result set in ascending order along the last
        dimension, as wide as the largest result set.

    Raises:
        TypeError: a dtype TF refuses, or ``a`` and ``b`` of different dtypes.
        InvalidArgumentError: ranks below 2, mismatched group shapes, invalid indices.
        NotImplementedError: inside a traced program (the result's size depends on the
            values).

    .. warning:: TF also takes string sets; tapejax has no string tensors.

    Example:
        >>> import tapejax as tf
        >>> st = tf.sets.intersection([[1, 2, 3], [4, 5, 6]], [[3, 1, 9], [7, 8, 9]])
        >>> st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()
        ([[0, 0], [0, 1]], [1, 3], [2, 2])
    """
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "intersection", bool(validate_indices), "tapejax.sets.intersection")


def union(a, b, validate_indices=True):
    """The values in ``a`` or ``b``, set by set along the last dimension (``tf.sets.union``).

    Args, Returns and Raises as ``intersection``.

    .. warning:: TF also takes string sets; tapejax has no string tensors.

    Example:
        >>> import tapejax as tf
        >>> tf.sets.union([[1, 2]], [[2, 0]]).values.numpy().tolist()
        [0, 1, 2]
    """
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "union", bool(validate_indices), "tapejax.sets.union")


def difference(a, b, aminusb=True, validate_indices=True):
    """The values in ``a`` and not in ``b`` (``aminusb=False``: in ``b`` and not in ``a``),
    set by set along the last dimension (``tf.sets.difference``).

    Args, Returns and Raises as ``intersection``; ``aminusb`` picks the direction.

    .. warning:: TF also takes string sets; tapejax has no string tensors.

    Example:
        >>> import tapejax as tf
        >>> tf.sets.difference([[1, 2, 3]], [[2, 5]]).values.numpy().tolist()
        [1, 3]
    """
    a, b, flipped = _operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(
        a, b, "a-b" if aminusb else "b-a", bool(validate_indices), "tapejax.sets.difference"
    )
