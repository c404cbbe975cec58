"""Sorting and searching: ``sort``, ``argsort``, ``searchsorted``, ``unique`` and
``unique_with_counts``, in TF's order and with TF's checks.

``unique`` and ``unique_with_counts`` have a result size that depends on values: they
run only on concrete values and raise ``NotImplementedError`` when traced.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import wrap
from ._array_common import _host
from ._helpers import (
    dtype_mismatch,
    lacks_cpu_kernel,
    no_kernel,
    node_attrs,
    tf_type_name,
    to_tensor,
)

# -- sort, argsort, unique ------------------------------------------------------------------


def _sort_key(x, descending: bool):
    """A key whose stable ascending sort is TF's order: ties keep the lower index first in
    both directions (TF sorts with ``top_k``), and -0.0 ties with 0.0."""
    if x.dtype.kind == "f" or x.dtype == jnp.bfloat16:
        x = x + jnp.zeros((), x.dtype)  # -0.0 -> 0.0
        return -x if descending else x
    if not descending:
        return x
    return ~x  # max - x for unsigned integers, -1 - x for signed ones


def _argsort_fn(x, *, axis, descending):
    return jnp.argsort(_sort_key(x, descending), axis=axis, stable=True).astype(jnp.int32)


def _sort_fn(x, *, axis, descending):
    order = jnp.argsort(_sort_key(x, descending), axis=axis, stable=True)
    return jnp.take_along_axis(x, order, axis=axis)


_sort_op = Op("Sort", _sort_fn)
_argsort_op = Op("ArgSort", _argsort_fn, differentiable=False)
_TOPK_TYPES = (
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
)


def _sort_args(values, axis, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            "Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
            f"direction={direction}"
        )
    x = to_tensor(values)
    if np.ndim(axis) != 0:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    ax = int(np.asarray(axis))
    n = x._v.ndim
    if not -n <= ax < n:
        shown = ax + n if ax < 0 else ax
        raise InvalidArgumentError(
            None,
            None,
            f"slice index {shown} of dimension 0 out of bounds. [Op:StridedSlice]",
        )
    dt = x._v.dtype
    if dt == np.bool_:
        raise InvalidArgumentError(
            None,
            None,
            "Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, "
            "float, double, int8, int16, int32, int64, complex64, complex128 [Op:Neg]",
        )
    if tf_type_name(dt) not in _TOPK_TYPES.split(", "):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed values: "
            f"{_TOPK_TYPES} [Op:TopKV2]",
        )
    return x, (("axis", ax % n), ("descending", direction == "DESCENDING"))


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """Sorts along ``axis`` (``tf.sort``); differentiable (the gradient is routed back
    through the permutation, as TF's ``top_k`` gradient does).

    .. warning:: NaNs go last in both directions; TF's descending order puts them
       wherever its ``top_k`` meets them.

    >>> import tapejax as tf
    >>> tf.sort(tf.constant([3, 1, 2]), direction="DESCENDING").numpy()
    array([3, 2, 1], dtype=int32)
    """
    x, static = _sort_args(values, axis, direction)
    return apply(_sort_op, (x,), static)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (``tf.argsort``). Ties keep
    their original order whatever ``stable`` says, as TF's do; not differentiable."""
    x, static = _sort_args(values, axis, direction)
    return apply(_argsort_op, (x,), static)


Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique(x, out_idx, op_name):
    t = to_tensor(x)
    if t._v.ndim != 1:
        raise InvalidArgumentError(None, None, f"unique expects a 1D vector. [Op:{op_name}]")
    out_dt = dtypes.as_dtype(out_idx)
    if out_dt not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_idx' of {tf_type_name(out_dt._np)} is not in the list of "
            f"allowed values: int32, int64 [Op:{op_name}]",
        )
    a = _host(x)
    if a is None:
        raise NotImplementedError(
            f"tapejax.{op_name.lower()}: the result's size depends on the input's values, so "
            "it cannot be traced (inside tapejax.function or a JAX transform); call it eagerly."
        )
    a = a.astype(t._v.dtype)
    _, first, inverse, counts = np.unique(
        a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    order = np.argsort(first, kind="stable")  # TF keeps first-occurrence order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    npd = canonical_np_dtype(out_dt._np)
    y = wrap(jnp.asarray(a[first[order]]))
    idx = wrap(jnp.asarray(rank[inverse.reshape(-1)].astype(npd)))
    return y, idx, wrap(jnp.asarray(counts[order].astype(npd)))


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of a 1-D ``x`` in order of first occurrence, and each element's
    index into them (``tf.unique``). Eager only: the size depends on the values.

    .. warning:: TF has no gradient for ``Unique`` (a tape raises ``LookupError``);
       tapejax's tape returns ``None``.

    >>> import tapejax as tf
    >>> y, idx = tf.unique(tf.constant([3, 1, 3, 2]))
    >>> y.numpy(), idx.numpy()
    (array([3, 1, 2], dtype=int32), array([0, 1, 0, 2], dtype=int32))
    """
    y, idx, _ = _unique(x, out_idx, "Unique")
    return Unique(y, idx)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``tf.unique`` plus how often each distinct value occurs (``tf.unique_with_counts``)."""
    return UniqueWithCounts(*_unique(x, out_idx, "UniqueWithCounts"))


# -- searchsorted ---------------------------------------------------------------------------


def _searchsorted_fn(seq, vals, *, side, dtype):
    rows = int(np.prod(seq.shape[:-1]))
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    out = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(s2, v2)
    return out.reshape(vals.shape).astype(dtype)


_searchsorted_ops = {
    "left": Op("LowerBound", _searchsorted_fn, differentiable=False),
    "right": Op("UpperBound", _searchsorted_fn, differentiable=False),
}


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where ``values`` would go in the innermost dimension of ``sorted_sequence``
    (``tf.searchsorted``); leading dimensions are batch dimensions."""
    if side not in ("left", "right"):
        raise ValueError(
            f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side!r}."
        )
    op_name = "LowerBound" if side == "left" else "UpperBound"
    seq = to_tensor(sorted_sequence)
    vals = to_tensor(values)
    for t in (seq, vals):
        if t._v.ndim == 0:
            raise InvalidArgumentError(
                None, None, "slice index -1 of dimension 0 out of bounds. [Op:StridedSlice]"
            )
    if vals._v.dtype != seq._v.dtype:
        raise dtype_mismatch(op_name, 1, seq._v.dtype, vals._v.dtype)
    out_dt = dtypes.as_dtype(out_type)
    if out_dt not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_type' of {tf_type_name(out_dt._np)} is not in the list of "
            f"allowed values: int32, int64 [Op:{op_name}]",
        )
    if lacks_cpu_kernel(op_name, seq._v.dtype):
        out_name = f"DT_{tf_type_name(out_dt._np).upper()}"
        raise no_kernel(op_name, seq._v.dtype, node_attrs(out_type=out_name))
    ss, vs = seq._v.shape, vals._v.shape
    if int(np.prod(ss[:-1])) != int(np.prod(vs[:-1])):
        raise InvalidArgumentError(
            None, None, f"Leading dim_size of both tensors must match. [Op:{op_name}]"
        )
    static = (("dtype", canonical_np_dtype(out_dt._np).name), ("side", side))
    return apply(_searchsorted_ops[side], (seq, vals), static)
