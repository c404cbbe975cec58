"""N-d gathers and scatters (``gather_nd``, ``scatter_nd``, ``tensor_scatter_nd_*``) and
``boolean_mask``, with TF's checks and gradients.

JAX drops or clamps out-of-range scatter indices silently; TF's CPU kernels raise. Where
indices are concrete (eager), they are checked here first. Duplicate indices accumulate
in ``scatter_nd`` and ``tensor_scatter_nd_add/sub``, as in TF; in
``tensor_scatter_nd_update`` the last update wins (TF leaves it unspecified; its CPU
kernel does the same) and every duplicate receives the gradient, as TF's registered
gradient gives it. This module must never let an unchecked eager index reach JAX.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import dtype_kind, dtype_mismatch, no_kernel, tf_type_name, to_tensor
from .array_ops import _dims, _host, _ints, gather, reshape

__all__ = [
    "boolean_mask",
    "gather_nd",
    "scatter_nd",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update",
]


def _index_tensor(indices, op_name: str) -> Tensor:
    ind = to_tensor(indices)
    dt = ind._v.dtype
    if dt.kind not in "iu" or dt.itemsize == 1 or dt.kind == "u":
        name = "float" if dt == np.float32 else tf_type_name(dt)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tindices' of {name} is not in the list of allowed values: "
            f"int16, int32, int64 [Op:{op_name}]",
        )
    return ind


def _check_nd_indices(arr, shape: tuple, op_name: str, what: str) -> None:
    """TF's CPU check: every index vector must point inside ``shape`` (``arr`` from
    ``_host``: None when traced)."""
    if arr is None:
        return
    k = arr.shape[-1]
    if not k or not arr.size:
        return
    flat = arr.reshape(-1, k)
    bad = np.nonzero(((flat < 0) | (flat >= np.asarray(shape[:k]))).any(axis=1))[0]
    if bad.size:
        pos = np.unravel_index(int(bad[0]), arr.shape[:-1])
        shown = ", ".join(map(str, flat[bad[0]]))
        where = ",".join(map(str, pos))
        suffix = ", node name: GatherNd" if op_name == "GatherNd" else ""
        raise InvalidArgumentError(
            None,
            None,
            f"indices[{where}] = [{shown}] does not index into {what} [{_dims(shape)}]"
            f"{suffix} [Op:{op_name}]",
        )


def _index_tuple(indices):
    return tuple(jnp.moveaxis(indices, -1, 0))


# -- gather_nd ------------------------------------------------------------------------------


def _gather_nd_fn(params, indices, *, batch_dims):
    def take(p, i):
        k = i.shape[-1]
        if k == 0:
            return jnp.broadcast_to(p, i.shape[:-1] + p.shape)
        return p.at[_index_tuple(i)].get(mode="fill", fill_value=0)

    f = take
    for _ in range(batch_dims):
        f = jax.vmap(f)
    return f(params, indices)


_gather_nd_op = Op("GatherNd", _gather_nd_fn)


def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Gathers slices of ``params`` at N-d ``indices`` (``tf.gather_nd``).

    ``indices[..., :]`` index the first ``indices.shape[-1]`` dimensions of ``params``
    after ``batch_dims`` leading batch dimensions. The gradient is dense (TF returns
    ``IndexedSlices`` with the same value), duplicates summed.

    >>> import tapejax as tf
    >>> tf.gather_nd(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]]).numpy()
    array([3, 2], dtype=int32)
    """
    p = to_tensor(params)
    ind = _index_tensor(indices, "GatherNd")
    if ind._v.ndim == 0:
        raise InvalidArgumentError(None, None, "indices must be at least a vector [Op:GatherNd]")
    batch_dims = int(batch_dims)
    if batch_dims < 0:
        batch_dims += ind._v.ndim
    if batch_dims and batch_dims >= ind._v.ndim:
        raise ValueError(
            f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = "
            f"{ind._v.ndim}"
        )
    if batch_dims and p._v.shape[:batch_dims] != ind._v.shape[:batch_dims]:
        raise InvalidArgumentError(
            None,
            None,
            f"The first {batch_dims} (batch_dims) dimensions of params "
            f"[{_dims(p._v.shape)}] and indices [{_dims(ind._v.shape)}] must be "
            "equal [Op:GatherNd]",
        )
    inner = p._v.shape[batch_dims:]
    k = ind._v.shape[-1]
    if k > len(inner):
        raise InvalidArgumentError(
            None,
            None,
            f"index innermost dimension length must be <= params rank; saw: {k} vs. "
            f"{len(inner)} [Op:GatherNd]",
        )
    _check_nd_indices(_host(indices), inner, "GatherNd", "param shape")
    return apply(_gather_nd_op, (p, ind), (("batch_dims", batch_dims),))


# -- scatter_nd and tensor_scatter_nd_* -------------------------------------------------------


def _scatter(kind, tensor, indices, updates):
    ref = tensor.at[_index_tuple(indices)]
    if kind == "add":
        return ref.add(updates, mode="drop")
    if kind == "sub":
        return ref.add(-updates, mode="drop")
    if kind == "max":
        return ref.max(updates, mode="drop")
    if kind == "min":
        return ref.min(updates, mode="drop")
    return ref.set(updates, mode="drop")


@jax.custom_jvp
def _scatter_update(tensor, indices, updates):
    return _scatter("set", tensor, indices, updates)


@_scatter_update.defjvp
def _scatter_update_jvp(primals, tangents):
    # TF's registered gradient: the tensor's gradient is zeroed where written, and every
    # update (duplicates included) gets the gradient at its index. JAX's own rule gives
    # only the winning duplicate a gradient; this linear tangent transposes to TF's.
    tensor, indices, updates = primals
    dt, _, du = tangents
    out = _scatter_update(tensor, indices, updates)
    kept = _scatter("set", jnp.ones_like(tensor), indices, jnp.zeros_like(updates))
    tangent = dt * kept + _scatter("add", jnp.zeros_like(dt), indices, du)
    return out, tangent


def _scatter_nd_fn(indices, updates, *, shape):
    return _scatter("add", jnp.zeros(shape, updates.dtype), indices, updates)


_scatter_nd_op = Op("ScatterNd", _scatter_nd_fn)
_tensor_scatter_ops = {
    "update": Op("TensorScatterUpdate", _scatter_update),
    **{
        kind: Op(name, lambda t, i, u, *, kind=kind: _scatter(kind, t, i, u))
        for kind, name in (
            ("add", "TensorScatterAdd"),
            ("sub", "TensorScatterSub"),
            ("max", "TensorScatterMax"),
            ("min", "TensorScatterMin"),
        )
    },
}


def _check_scatter_shapes(ind, upd, shape, op_name):
    ishape, ushape = ind._v.shape, upd._v.shape
    b = len(ishape) - 1
    k = ishape[-1]
    if k == 0:
        text = (
            "Indices and updates specified for empty output shape"
            if int(np.prod(ishape[:-1]))
            else "Only indices.shape[-1] values between 1 and 5 are currently supported.  "
            "Requested rank: 0"
        )
        raise InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")
    if op_name == "ScatterNd" and ind._v.size and not int(np.prod(shape)):
        raise InvalidArgumentError(
            None,
            None,
            "Indices and updates specified for empty output.  indices shape: "
            f"[{_dims(ishape)}] [Op:{op_name}]",
        )
    if op_name == "ScatterNd":
        if ushape[:b] != ishape[:b]:
            raise InvalidArgumentError(
                None,
                None,
                f"Dimensions [0,{b}) of indices[shape=[{_dims(ishape)}]] must match dimensions "
                f"[0,{b}) of updates[shape=[{_dims(ushape)}]] [Op:{op_name}]",
            )
        if k > len(shape) or ushape[b:] != tuple(shape[k:]):
            raise InvalidArgumentError(
                None,
                None,
                f"Dimensions [{k},{len(shape)}) of input[shape=[{_dims(shape)}]] must match "
                f"dimensions [{b},{len(ushape)}) of updates[shape=[{_dims(ushape)}]] "
                f"[Op:{op_name}]",
            )
        return
    if ushape[:b] != ishape[:b]:
        raise InvalidArgumentError(
            None,
            None,
            "Outer dimensions of indices and update must match. Indices shape: "
            f"[{_dims(ishape)}], updates shape:[{_dims(ushape)}] [Op:{op_name}]",
        )
    if ushape[b:] != tuple(shape[k:]):
        raise InvalidArgumentError(
            None,
            None,
            "Inner dimensions of output shape must match inner dimensions of updates shape. "
            f"Output: [{_dims(shape)}] updates: [{_dims(ushape)}] [Op:{op_name}]",
        )


def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """Scatters ``updates`` into zeros of ``shape`` at ``indices`` (``tf.scatter_nd``);
    duplicate indices add up, as in TF.

    >>> import tapejax as tf
    >>> tf.scatter_nd([[1], [1]], [1.0, 2.0], [3]).numpy()
    array([0., 3., 0.], dtype=float32)
    """
    ind = _index_tensor(indices, "ScatterNd")
    if isinstance(shape, Tensor) or getattr(shape, "_is_variable", False):
        st = to_tensor(shape)
        if st._v.dtype != ind._v.dtype:
            raise dtype_mismatch("ScatterNd", 2, ind._v.dtype, st._v.dtype)
    # Read as NumPy: ScatterNd's index attribute also allows int16, which _ints would reject.
    dims = _ints(_host(shape), "Tindices", "ScatterNd")
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, None, f"Dimension {d} must be >= 0 [Op:ScatterNd]")
    upd = to_tensor(updates)
    _check_scatter_shapes(ind, upd, dims, "ScatterNd")
    _check_nd_indices(_host(indices), dims, "ScatterNd", "shape")
    return apply(_scatter_nd_op, (ind, upd), (("shape", dims),))


def _tensor_scatter(kind: str, op_name: str):
    def public(tensor, indices, updates, name=None):
        t = to_tensor(tensor)
        ind = _index_tensor(indices, op_name)
        if isinstance(updates, Tensor) or getattr(updates, "_is_variable", False):
            upd = to_tensor(updates)
            if upd._v.dtype != t._v.dtype:
                raise dtype_mismatch(op_name, 2, t._v.dtype, upd._v.dtype)
        else:
            upd = convert_to_tensor(updates, dtype=t.dtype)
        kinds = {"update": "fcibu", "add": "fciu", "sub": "fciu"}.get(kind, "fiu")
        if dtype_kind(t._v.dtype) not in kinds:
            raise no_kernel(op_name, t._v.dtype)
        shape = t._v.shape
        if ind._v.shape[-1:] and ind._v.shape[-1] > len(shape):
            raise InvalidArgumentError(
                None,
                None,
                f"Inner dimensions of output shape must match inner dimensions of updates "
                f"shape. Output: [{_dims(shape)}] updates: [{_dims(upd._v.shape)}] "
                f"[Op:{op_name}]",
            )
        if ind._v.ndim == 0:
            raise InvalidArgumentError(
                None, None, f"Indices shape must have rank at least one. [Op:{op_name}]"
            )
        _check_scatter_shapes(ind, upd, shape, op_name)
        _check_nd_indices(_host(indices), shape, op_name, "shape")
        return apply(_tensor_scatter_ops[kind], (t, ind, upd))

    return public


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at ``indices``
    (``tf.tensor_scatter_nd_update``).

    With duplicate indices the last update wins (TF leaves the winner unspecified; its
    CPU kernel also keeps the last), and every duplicate gets the gradient, as in TF.

    >>> import tapejax as tf
    >>> tf.tensor_scatter_nd_update(tf.zeros([3]), [[1]], [5.0]).numpy()
    array([0., 5., 0.], dtype=float32)
    """
    return _update(tensor, indices, updates)


_update = _tensor_scatter("update", "TensorScatterUpdate")
_add = _tensor_scatter("add", "TensorScatterAdd")
_sub = _tensor_scatter("sub", "TensorScatterSub")
_max = _tensor_scatter("max", "TensorScatterMax")
_min = _tensor_scatter("min", "TensorScatterMin")


def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` added at ``indices``; duplicates accumulate
    (``tf.tensor_scatter_nd_add``)."""
    return _add(tensor, indices, updates)


def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` subtracted at ``indices`` (``tf.tensor_scatter_nd_sub``)."""
    return _sub(tensor, indices, updates)


def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """Elementwise max of ``tensor`` and ``updates`` at ``indices``
    (``tf.tensor_scatter_nd_max``); tied maxima share the gradient, as in TF."""
    return _max(tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """Elementwise min of ``tensor`` and ``updates`` at ``indices``
    (``tf.tensor_scatter_nd_min``); tied minima share the gradient, as in TF."""
    return _min(tensor, indices, updates)


# -- boolean_mask ----------------------------------------------------------------------------


def _shape_text(shape) -> str:
    return str(tuple(shape))


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of ``tensor`` where ``mask`` is true (``tf.boolean_mask``).

    ``mask`` covers dimensions ``axis .. axis + mask.ndim`` of ``tensor``, which are
    flattened into one. The result's size depends on the mask's values, so the mask must
    be concrete: inside ``tapejax.function`` or a JAX transform this raises
    ``NotImplementedError``. The gradient is TF's (a gather's: dense, zeros where masked).

    >>> import tapejax as tf
    >>> tf.boolean_mask(tf.constant([1, 2, 3]), [True, False, True]).numpy()
    array([1, 3], dtype=int32)
    """
    t = to_tensor(tensor)
    m = to_tensor(mask)
    md = m._v.ndim
    if md == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(axis)
    covered = t._v.shape[axis : axis + md]
    if covered != m._v.shape:
        raise ValueError(
            f"Shapes {_shape_text(covered)} and {_shape_text(m._v.shape)} are incompatible"
        )
    host = _host(mask)
    if host is None:
        raise NotImplementedError(
            "tapejax.boolean_mask: the result's shape depends on the mask's values, so it "
            "cannot be traced (inside tapejax.function or a JAX transform). Use it in eager "
            "code, or use tapejax.where(mask, x, 0) to keep a static shape."
        )
    shp = t._v.shape
    # Python slicing with the axis as given, as TF's shape arithmetic does (a negative
    # axis is not normalized first: TF checks ``shape[axis:axis + mask.ndim]``).
    flat = reshape(t, shp[:axis] + (int(np.prod(covered)),) + shp[axis + md :])
    keep = np.flatnonzero(host).astype(np.int32)
    return gather(flat, convert_to_tensor(keep), axis=len(shp[:axis]))
