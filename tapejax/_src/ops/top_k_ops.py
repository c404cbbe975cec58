"""``top_k``, ``in_top_k`` and ``approx_max_k``/``approx_min_k``/``approx_top_k``: the ``k``
largest (or smallest) entries of a tensor and their indices, with TF's tie-breaking, dtypes
and errors.

None has a gradient rule of its own: ``top_k``'s and ``approx_*_k``'s values are JAX's
selections, whose derivative flows to the selected entries as TF's does; ``in_top_k`` is
not differentiable.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ._helpers import TF_ALLOWED, axis_ints, require, tf_type_name, to_tensor
from .reduction_ops import _narrowed

TF_ALLOWED.update(
    {
        "ApproxTopK": "half, bfloat16, float",
        "TopKV2": (
            "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
        ),
    }
)

# -- top_k and in_top_k ---------------------------------------------------------------------

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k_fn(x, *, k, dtype):
    # lax.top_k breaks ties by the lower index first, as TF's kernel does.
    values, indices = jax.lax.top_k(x, k)
    return values, indices.astype(dtype)


_top_k_op = Op("TopKV2", _top_k_fn, multiple_outputs=True)


def _scalar_int(v) -> int:
    (i,) = axis_ints(v)
    return i


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The ``k`` largest entries of the last axis and their indices (``tf.math.top_k``).

    Returns ``TopKV2(values, indices)``. Ties go to the lower index first, as TF; the
    gradient flows to the selected entries. ``index_type`` int64 is int32 unless JAX's
    x64 mode is on.

    .. warning:: ``sorted=False`` returns the entries sorted too (TF's CPU kernel returns
       them in an unspecified order).
    """
    x = to_tensor(input)
    require(x, "fiu", "TopKV2")
    out_dt = dtypes.as_dtype(index_type)
    if tf_type_name(out_dt) not in ("int16", "int32", "int64"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'index_type' of {tf_type_name(out_dt)} is not in the list of allowed "
            "values: int16, int32, int64 [Op:TopKV2]",
        )
    k = _scalar_int(k)
    shape = x._v.shape
    if not shape:
        raise InvalidArgumentError(None, None, "input must be >= 1-D, got shape [] [Op:TopKV2]")
    if k < 0:
        raise InvalidArgumentError(None, None, f"Need k >= 0, got {k} [Op:TopKV2]")
    if shape[-1] < k:
        raise InvalidArgumentError(
            None,
            None,
            f"input must have at least k columns. Had {shape[-1]}, needed {k} [Op:TopKV2]",
        )
    values, indices = apply(_top_k_op, (x,), (("k", k), ("dtype", _narrowed(out_dt))))
    return TopKV2(values, indices)


def _in_top_k_fn(targets, predictions, *, k):
    n = predictions.shape[1]
    in_range = (targets >= 0) & (targets < n)
    safe = jnp.where(in_range, targets, 0).astype(jnp.int32)
    target_pred = jnp.take_along_axis(predictions, safe[:, None], axis=1)
    more = jnp.sum(predictions > target_pred, axis=1)
    finite = jnp.all(jnp.isfinite(predictions), axis=1)
    # TF's kernel: out of range, or any non-finite prediction in the row, is False.
    return in_range & finite & (more < k)


_in_top_k_op = Op("InTopKV2", _in_top_k_fn, differentiable=False)


def in_top_k(targets, predictions, k, name=None):
    """Whether each target's prediction is among the ``k`` largest of its row (``tf.math.in_top_k``).

    Ties at the boundary count as in, as TF; a row with a non-finite prediction gives False.
    """
    t = to_tensor(targets)
    if tf_type_name(t._v.dtype) not in ("int32", "int64"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(t._v.dtype)} is not in the list of allowed "
            "values: int32, int64 [Op:InTopKV2]",
        )
    p = convert_to_tensor(predictions, dtype=dtypes.float32)
    if p._v.ndim != 2:
        raise InvalidArgumentError(
            None, None, f"predictions must be 2-dimensional, got {p._v.ndim} [Op:InTopKV2]"
        )
    if t._v.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"targets must be 1-dimensional, got {t._v.ndim} [Op:InTopKV2]"
        )
    if p._v.shape[0] != t._v.shape[0]:
        raise InvalidArgumentError(
            None,
            None,
            f"First dimension of predictions {p._v.shape[0]} must match length of targets "
            f"{t._v.shape[0]} [Op:InTopKV2]",
        )
    return apply(_in_top_k_op, (t, p), (("k", _scalar_int(k)),))


# -- approximate top-k (exact on CPU, as TF's CPU kernel) -----------------------------------

ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _approx_top_k_fn(x, *, k, axis, recall_target, size_override, aggregate, largest):
    if k == 0:  # XLA's search takes k >= 1
        shape = x.shape[:axis] + (0,) + x.shape[axis + 1 :]
        return jnp.zeros(shape, x.dtype), jnp.zeros(shape, jnp.int32)
    search = jax.lax.approx_max_k if largest else jax.lax.approx_min_k
    return tuple(
        search(
            x,
            k,
            reduction_dimension=axis,
            recall_target=recall_target,
            reduction_input_size_override=size_override,
            aggregate_to_topk=aggregate,
        )
    )


_approx_top_k_op = Op("ApproxTopK", _approx_top_k_fn, multiple_outputs=True)


def _approx_search(x, k: int, axis: int, recall_target, size_override, aggregate, largest):
    n = x._v.ndim
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None,
            None,
            f"reduction_dimension {axis} is out of range for an operand of rank {n} "
            "[Op:ApproxTopK]",
        )
    static = (
        ("k", k),
        ("axis", axis % n),
        ("recall_target", float(recall_target)),
        ("size_override", int(size_override)),
        ("aggregate", bool(aggregate)),
        ("largest", largest),
    )
    values, indices = apply(_approx_top_k_op, (x,), static)
    return ApproxTopK(values, indices)


def _approx_top_k(largest: bool):
    def public(
        operand,
        k,
        reduction_dimension=-1,
        recall_target=0.95,
        reduction_input_size_override=-1,
        aggregate_to_topk=True,
        name=None,
    ):
        x = to_tensor(operand)
        require(x, "f", "ApproxTopK")
        (axis,) = axis_ints(reduction_dimension)
        k = _scalar_int(k)
        n = x._v.ndim
        if -n <= axis < n and not 0 < k <= x._v.shape[axis]:
            raise InvalidArgumentError(
                None,
                None,
                f"k must be in (0, {x._v.shape[axis]}], got {k} [Op:ApproxTopK]",
            )
        return _approx_search(
            x,
            k,
            axis,
            recall_target,
            reduction_input_size_override,
            aggregate_to_topk,
            largest,
        )

    public.__name__ = "approx_max_k" if largest else "approx_min_k"
    public.__doc__ = (
        f"The ``k`` {'largest' if largest else 'smallest'} entries along ``reduction_dimension`` "
        f"and their indices (``tf.math.{public.__name__}``).\n\n"
        "    Approximate on TPU; exact elsewhere, as TF's CPU kernel (ties: lower index first)."
    )
    return public


approx_max_k = _approx_top_k(True)
approx_min_k = _approx_top_k(False)


def approx_top_k(
    input,  # noqa: A002
    k,
    reduction_dimension=-1,
    recall_target=0.95,
    is_max_k=True,
    reduction_input_size_override=-1,
    aggregate_to_topk=True,
    name=None,
):
    """The ``k`` largest (``is_max_k``) or smallest entries along ``reduction_dimension``
    and their int32 indices (``tf.approx_top_k``, TF's ApproxTopK op).

    Approximate on TPU; exact elsewhere, as TF's CPU kernel, which is its exact top-k
    (ties: lower index first). The gradient flows to the selected entries.

    .. warning:: TF's CPU build has a kernel only for ``is_max_k=True`` along the last
       dimension given as ``-1`` (elsewhere TF's NotFoundError); the other cases are
       computed here, exactly, as TF's XLA kernel computes them on CPU.

    Example:
        >>> import tapejax as tf
        >>> values, indices = tf.approx_top_k(tf.constant([[1.0, 3.0, 2.0]]), 2)
        >>> values.numpy(), indices.numpy()
        (array([[3., 2.]], dtype=float32), array([[1, 2]], dtype=int32))
    """
    x = to_tensor(input)
    require(x, "f", "ApproxTopK")
    k = _scalar_int(k)
    if k < 0:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'k' of {k} must be at least minimum 0"
        )
    (axis,) = axis_ints(reduction_dimension)
    if x._v.ndim == 0:
        raise InvalidArgumentError(None, None, "input must be >= 1-D, got shape [] [Op:ApproxTopK]")
    if -x._v.ndim <= axis < x._v.ndim and k > x._v.shape[axis]:
        raise InvalidArgumentError(
            None,
            None,
            f"input must have at least k columns. Had {x._v.shape[axis]}, needed {k} "
            "[Op:ApproxTopK]",
        )
    return _approx_search(
        x,
        k,
        axis,
        recall_target,
        reduction_input_size_override,
        aggregate_to_topk,
        bool(is_max_k),
    )
