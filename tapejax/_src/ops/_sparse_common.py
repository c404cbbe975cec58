"""What the ``tf.sparse`` op modules share: reading a SparseTensor's indices and static
shape, building results, TF's index checks, and the ops that move values.

Sparse ops split their work in two. The *structure* (which indices the result has, and
which input value each result value comes from) is integer bookkeeping: when the result's
number of values depends on the indices, as in TF's kernels, it is computed on the host
from concrete indices, and inside a traced program (``tapejax.function``, a JAX
transform) such an op raises ``NotImplementedError``. The *values* always go through
recorded ops (``take_values``, ``segment_values``, or an op of their own), so tapes
differentiate them with TF's gradients.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor, host_value, static_value
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape

__all__ = [
    "iae",
    "sparse_arg",
    "host_indices",
    "known_indices",
    "static_dims",
    "int64_tensor_of",
    "new_sparse",
    "row_major_order",
    "validate_indices",
    "take_values",
    "segment_values",
]


def iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def sparse_arg(sp_input) -> SparseTensor:
    return convert_to_sparse_tensor(sp_input)


def needs_concrete(what: str, of: str = "indices") -> NotImplementedError:
    return NotImplementedError(
        f"{what} needs concrete {of}: the shape of its result depends on them, which a "
        "traced program (tapejax.function, a JAX transform) cannot have. Call it eagerly, "
        "or build them from constants inside the function."
    )


def host_indices(sp: SparseTensor, what: str) -> np.ndarray:
    """The indices as an int64 NumPy array; NotImplementedError when they are traced."""
    value = known_indices(sp)
    if value is None:
        raise needs_concrete(what)
    return value


def known_indices(sp: SparseTensor) -> np.ndarray | None:
    """The indices as NumPy when known without a trace's values, else None."""
    if sp._host_indices is not None:
        return sp._host_indices
    value = static_value(sp.indices)
    return None if value is None else value.astype(np.int64)


def host_array(x, what: str) -> np.ndarray:
    """``x`` (Python or NumPy data, a Tensor or a Variable) as NumPy; NotImplementedError
    when it is traced."""
    value = host_value(x)
    if value is None:
        raise needs_concrete(what, "values")
    return value


def static_dims(sp: SparseTensor, what: str) -> tuple:
    """The dense shape as Python ints (known eagerly, and while tracing when it was)."""
    shape = sp.shape
    if shape.rank is None or not shape.is_fully_defined():
        value = static_value(sp.dense_shape)
        if value is None:
            raise NotImplementedError(
                f"{what} needs the SparseTensor's dense shape while tracing; it is unknown here."
            )
        return tuple(int(d) for d in value)
    return tuple(shape.as_list())


def int64_tensor_of(array) -> Tensor:
    """Host or traced integers as an int64 Tensor (int32 without JAX's x64 mode)."""
    dtype = canonical_np_dtype(np.int64)
    if isinstance(array, np.ndarray) or isinstance(array, (list, tuple)):
        return wrap(jnp.asarray(np.asarray(array, np.int64).astype(dtype)))
    return wrap(jnp.asarray(array).astype(dtype))


def new_sparse(indices, values: Tensor, dims) -> SparseTensor:
    """A SparseTensor result: ``indices`` (host or traced ints, ``[N, rank]``), ``values``
    and the static dense shape ``dims``."""
    dims = tuple(int(d) for d in dims)
    host = None
    if isinstance(indices, np.ndarray):
        host = indices = indices.reshape(-1, len(dims)).astype(np.int64)
    idx = indices if isinstance(indices, Tensor) else int64_tensor_of(indices)
    shape = int64_tensor_of(np.asarray(dims))
    return SparseTensor._from_parts(idx, values, shape, TensorShape(dims), host)


def row_major_order(indices: np.ndarray) -> np.ndarray:
    """The stable permutation that sorts ``[N, rank]`` indices in row-major order."""
    if indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def traced_row_major_order(indices):
    """``row_major_order`` of traced indices (``jnp.lexsort`` is stable too)."""
    if indices.shape[1] == 0:
        return jnp.arange(indices.shape[0])
    return jnp.lexsort(tuple(indices[:, d] for d in range(indices.shape[1] - 1, -1, -1)))


def index_text(row) -> str:
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def values_text(dims) -> str:
    """A shape as TF's kernels print a shape tensor's values: ``3 4``."""
    return " ".join(str(int(d)) for d in dims)


def shape_text(dims) -> str:
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def validate_indices(indices: np.ndarray, dims: tuple, op_name: str, order: bool = True) -> None:
    """TF's ``SparseTensor::IndicesValid``: every index in bounds and, with ``order``,
    strictly increasing in row-major order; TF's text for the first failing index."""
    n = indices.shape[0]
    if n == 0:
        return
    bounds = np.asarray(dims, np.int64)
    bad = np.any((indices < 0) | (indices >= bounds), axis=1)
    if order and n > 1:
        diff = np.sign(indices[1:] - indices[:-1])
        first = np.where(diff != 0, diff, 0)
        # the sign of the first nonzero difference: the row-major comparison with the previous
        nz = np.argmax(first != 0, axis=1)
        cmp = first[np.arange(n - 1), nz]
        unordered = np.concatenate([[False], cmp <= 0])
    else:
        unordered = np.zeros(n, bool)
    failing = np.flatnonzero(bad | unordered)
    if not failing.size:
        return
    i = int(failing[0])
    where = f"indices[{i}] = {index_text(indices[i])}"
    if bad[i]:
        raise iae(f"{where} is out of bounds: need 0 <= index < {shape_text(dims)}", op_name)
    if cmp[i - 1] < 0:
        raise iae(
            f"{where} is out of order. Many sparse ops require sorted indices.\n"
            "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
            op_name,
        )
    raise iae(f"{where} is repeated", op_name)


# -- ops that move values -----------------------------------------------------------------------
#
# One op per TF op name, so that ``RegisterGradient`` and the tape see TF's names; the
# pure functions are shared.


def _take_fn(values, positions):
    return jnp.take(values, positions, axis=0, mode="clip")


def _segment_fn(values, positions, *, size):
    out = jnp.zeros((size,) + values.shape[1:], values.dtype)
    return out.at[positions].add(values, mode="drop")


_TAKE_OPS: dict = {}
_SEGMENT_OPS: dict = {}


def _op_named(table: dict, name: str, fn, differentiable: bool) -> Op:
    op = table.get((name, differentiable))
    if op is None:
        op = table[(name, differentiable)] = Op(name, fn, differentiable=differentiable)
    return op


def positions_tensor(positions) -> Tensor:
    if isinstance(positions, Tensor):
        return positions
    return wrap(jnp.asarray(np.asarray(positions, np.int64).astype(np.int32)))


def take_values(op_name: str, values: Tensor, positions, differentiable: bool = True) -> Tensor:
    """``values[positions]`` recorded as ``op_name`` (its gradient scatters back, as TF's
    gradients of SparseReorder, SparseSlice, ... do)."""
    op = _op_named(_TAKE_OPS, op_name, _take_fn, differentiable)
    return apply(op, (values, positions_tensor(positions)))


def segment_values(
    op_name: str, values: Tensor, positions, size: int, differentiable: bool = True
) -> Tensor:
    """``values`` summed into ``size`` slots at ``positions`` (``size`` or more: dropped)."""
    op = _op_named(_SEGMENT_OPS, op_name, _segment_fn, differentiable)
    return apply(op, (values, positions_tensor(positions)), (("size", int(size)),))


def is_traced(t: Tensor) -> bool:
    return isinstance(t._v, jax.core.Tracer)
