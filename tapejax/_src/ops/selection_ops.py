"""Selecting elements: ``where`` (elementwise select, or the indices of true elements)
and ``gather`` (slices along an axis), with TF's checks.

JAX clamps or fills out-of-range indices silently; TF raises. Where indices are
concrete (eager), ``gather`` checks them first so that a TF user gets TF's error rather
than a silently wrong value. One-argument ``where`` has a result shape that depends on
values: it runs only on concrete values and raises ``NotImplementedError`` when traced.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ._array_common import _host
from ._helpers import axis_ints, binary_operands, dtype_mismatch, tf_type_name, to_tensor

# -- selection ------------------------------------------------------------------------------

_select_op = Op("SelectV2", lambda c, x, y: jnp.where(c, x, y))


def where(condition, x=None, y=None, name=None):
    """``tf.where``: elementwise select with broadcasting, or (one argument) true indices."""
    c = to_tensor(condition)
    if x is None and y is None:
        host = _host(condition)
        if host is None:
            raise NotImplementedError(
                "tapejax.where with one argument has a data-dependent shape and cannot be traced; "
                "use it in eager code, or use the three-argument form."
            )
        idx = np.argwhere(host)
        return wrap(jnp.asarray(idx.astype(canonical_np_dtype(np.int64))))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if c._v.dtype != np.bool_:
        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute SelectV2 as input #0(zero-based) was expected to be a bool tensor but is a {c.dtype.name} tensor [Op:SelectV2]",
        )
    try:
        x, y = binary_operands(x, y, "SelectV2")
    except InvalidArgumentError:
        # TF reports the mismatch against input #2 (``y``): condition is input #0.
        raise dtype_mismatch("SelectV2", 2, to_tensor(x)._v.dtype, to_tensor(y)._v.dtype) from None
    if type(x) is not Tensor:
        x = convert_to_tensor(x, dtype=y.dtype) if type(y) is Tensor else convert_to_tensor(x)
    if type(y) is not Tensor:
        y = convert_to_tensor(y, dtype=x.dtype)
    try:
        np.broadcast_shapes(c._v.shape, x._v.shape, y._v.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"condition [{','.join(map(str, c._v.shape))}], then [{','.join(map(str, x._v.shape))}], and else "
            f"[{','.join(map(str, y._v.shape))}] must be broadcastable [Op:SelectV2]",
        ) from None
    return apply(_select_op, (c, x, y))


def _gather_fn(params, indices, *, axis, batch_dims):
    def take(p, i):
        return jnp.take(
            p, i, axis=axis - batch_dims, mode="fill" if p.dtype.kind in "fc" else "clip"
        )

    f = take
    for _ in builtins.range(batch_dims):
        f = jax.vmap(f)
    return f(params, indices)


_gather_op = Op("GatherV2", _gather_fn)


def _bad_index_text(arr, limit: int, what: str):
    bad = np.argwhere((arr < 0) | (arr >= limit))
    if not bad.size:
        return None
    pos = tuple(bad[0])
    return f"{what}[{','.join(map(str, pos))}] = {arr[pos]} is not in [0, {limit}) [Op:GatherV2]"


def _check_indices(arr, limit: int, what: str = "indices"):
    """TF's CPU check on concrete indices (``arr`` from ``_host``; None when traced).

    Traced indices are not checked: a check would be a host round trip in every call of
    the program (embedding lookups are in most training steps), so out-of-range indices
    give XLA's gather results there (docs/compat.md, "Array ops").
    """
    text = None if arr is None else _bad_index_text(arr, limit, what)
    if text is not None:
        raise InvalidArgumentError(None, None, text)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices along ``axis`` (``tf.gather``).

    The gradient with respect to ``params`` is a dense tensor (TF returns
    ``IndexedSlices``; their dense value, duplicates summed, is the same).
    """
    p = to_tensor(params)
    ind = to_tensor(indices)
    dt = ind._v.dtype
    if dt.kind != "i" or dt.itemsize == 1:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tindices' of {tf_type_name(dt)} is not in the list of allowed "
            "values: int16, int32, int64 [Op:GatherV2]",
        )
    batch_dims = int(batch_dims)
    (axis,) = axis_ints(batch_dims if axis is None else axis)
    if axis == 0:  # TF's Python wrapper drops batch_dims when the axis is literally 0
        batch_dims = 0
    nd, nind = p._v.ndim, ind._v.ndim
    if nd == 0:
        raise InvalidArgumentError(
            None, None, "params must be at least 1 dimensional [Op:GatherV2]"
        )
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None,
            None,
            f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {nd} "
            "[Op:GatherV2]",
        )
    axis %= nd
    if not -nind <= batch_dims <= nind:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected batch_dims in the range [{-nind}, {nind}], but got {batch_dims} "
            "[Op:GatherV2]",
        )
    if batch_dims < 0:  # TF counts a negative batch_dims from the indices' rank
        batch_dims += nind
    if batch_dims > axis:
        raise InvalidArgumentError(
            None,
            None,
            f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}). [Op:GatherV2]",
        )
    for i in builtins.range(batch_dims):
        if p._v.shape[i] != ind._v.shape[i]:
            raise InvalidArgumentError(
                None,
                None,
                f"params.shape[{i}]: {p._v.shape[i]} should be equal to indices.shape[{i}]: "
                f"{ind._v.shape[i]} [Op:GatherV2]",
            )
    _check_indices(_host(indices), p._v.shape[axis])
    return apply(_gather_op, (p, ind), (("axis", axis), ("batch_dims", batch_dims)))
