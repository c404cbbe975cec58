"""Segment reductions (``tf.math.segment_*``, ``unsorted_segment_*``) and ``bincount``.

TF's kernels check segment ids on the host (sorted, in range, shapes) and raise; JAX's
scatter would silently drop or clamp a bad id, so the checks run here, on eager inputs,
before the op. The output size of the sorted ops and of ``bincount`` depends on the
*values* of their inputs, so those need concrete (eager) ids. Empty segments hold TF's
values: 0 for the sorted ops (1 for prod), the dtype's lowest/highest for
``unsorted_segment_max``/``min``. The max/min and prod gradients are TF's (ties split
evenly; the product rule with zeros), written as ``jax.custom_jvp``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ._helpers import TF_ALLOWED, require, tf_type_name, to_tensor
from .math_ops import NUMERIC, cast, sqrt, truediv

_ALL = TF_ALLOWED["Sum"]
_ORDERED = "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
TF_ALLOWED.update(
    {
        **dict.fromkeys(
            [
                "SegmentSum",
                "SegmentMean",
                "SegmentProd",
                "UnsortedSegmentSum",
                "UnsortedSegmentProd",
            ],
            _ALL,
        ),
        **dict.fromkeys(
            ["SegmentMax", "SegmentMin", "UnsortedSegmentMax", "UnsortedSegmentMin"], _ORDERED
        ),
    }
)

# -- the pure reductions --------------------------------------------------------------------


def _count(ids, num_segments, dtype):
    return jax.ops.segment_sum(jnp.ones(ids.shape, dtype), ids, num_segments)


def _per_segment(values, data):
    """Per-segment values (shape [num_segments]) broadcast against data's trailing axes."""
    return values.reshape(values.shape + (1,) * (data.ndim - 1))


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3))
def _segment_extreme(data, ids, num_segments, largest):
    reduce = jax.ops.segment_max if largest else jax.ops.segment_min
    return reduce(data, ids, num_segments)


@_segment_extreme.defjvp
def _segment_extreme_jvp(num_segments, largest, primals, tangents):
    # TF's _SegmentMinOrMaxGrad: the gradient of a segment is split evenly among the
    # entries equal to its extreme (JAX's scatter rule differs on ties).
    data, ids = primals
    t = tangents[0]
    out = _segment_extreme(data, ids, num_segments, largest)
    selected = data == jnp.take(out, ids, axis=0, mode="fill", fill_value=0)
    selected &= _per_segment((ids >= 0) & (ids < num_segments), data)
    n = jax.ops.segment_sum(selected.astype(data.dtype), ids, num_segments)
    summed = jax.ops.segment_sum(jnp.where(selected, t, 0), ids, num_segments)
    return out, summed / jnp.maximum(n, 1)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _segment_prod(data, ids, num_segments):
    # As a product of per-segment ones with scatter-multiply: JAX has no gradient for a
    # scatter-multiply with repeated indices, the custom rule below supplies TF's.
    return jax.ops.segment_prod(data, ids, num_segments)


@_segment_prod.defjvp
def _segment_prod_jvp(num_segments, primals, tangents):
    # TF's _SegmentProdGrad: with no zero in the segment, prod / x; with exactly one, the
    # product of the others at the zero and 0 elsewhere; with more, 0 everywhere.
    data, ids = primals
    t = tangents[0]
    out = _segment_prod(data, ids, num_segments)
    is_zero = data == 0
    zeros = jax.ops.segment_sum(is_zero.astype(jnp.int32), ids, num_segments)
    non_zero = jnp.where(is_zero, jnp.ones_like(data), data)
    non_zero_prod = _segment_prod(jax.lax.stop_gradient(non_zero), ids, num_segments)

    def gather(v):
        return jnp.take(v, ids, axis=0, mode="fill", fill_value=0)

    partial = jnp.where(is_zero, gather(non_zero_prod), gather(out) / non_zero)
    partial = jnp.where(gather(zeros) > 1, jnp.zeros_like(partial), partial)
    # TF's rule does not conjugate for a complex input: conj cancels lowering's conjugation.
    return out, jax.ops.segment_sum(jnp.conj(partial) * t, ids, num_segments)


def _lowest(dtype, largest: bool):
    """The identity TF's unsorted max/min kernels give an empty segment (not +-inf)."""
    info = jnp.finfo(dtype) if jnp.issubdtype(dtype, jnp.inexact) else jnp.iinfo(dtype)
    return info.min if largest else info.max


def _segment_fn(data, ids, *, kind, num_segments, sorted_ids):
    """``kind`` over segments; the data's leading axes are those of ``ids`` (flattened)."""
    data = data.reshape((ids.size,) + data.shape[ids.ndim :])
    ids = ids.reshape(-1)
    inexact = jnp.issubdtype(data.dtype, jnp.inexact)
    if kind == "sum":
        return jax.ops.segment_sum(data, ids, num_segments)
    if kind == "mean":  # only the sorted op: TF's unsorted mean is a composite
        total = jax.ops.segment_sum(data, ids, num_segments)
        n = _per_segment(jnp.maximum(_count(ids, num_segments, data.dtype), 1), data)
        return total / n if inexact else jax.lax.div(total, n)
    if kind == "prod":
        if inexact:
            return _segment_prod(data, ids, num_segments)
        return jax.ops.segment_prod(data, ids, num_segments)
    largest = kind == "max"
    if inexact:
        out = _segment_extreme(data, ids, num_segments, largest)
    else:
        reduce = jax.ops.segment_max if largest else jax.ops.segment_min
        out = reduce(data, ids, num_segments)
    empty = _per_segment(_count(ids, num_segments, jnp.int32) == 0, data)
    fill = 0 if sorted_ids else _lowest(data.dtype, largest)
    return jnp.where(empty, jnp.asarray(fill, data.dtype), out)


_OPS = {}


def _op(tf_name: str) -> Op:
    if tf_name not in _OPS:
        _OPS[tf_name] = Op(tf_name, _segment_fn)
    return _OPS[tf_name]


# -- checks ---------------------------------------------------------------------------------


def _error(text: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")


def _ids(segment_ids, op_name: str, allowed: tuple) -> Tensor:
    ids = to_tensor(segment_ids)
    name = tf_type_name(ids._v.dtype)
    if name not in allowed:
        raise _error(
            f"Value for attr 'Tindices' of {name} is not in the list of allowed values: "
            + ", ".join(allowed),
            op_name,
        )
    return ids


def _concrete(t: Tensor, what: str) -> np.ndarray:
    if isinstance(t._value, jax.core.Tracer):
        raise NotImplementedError(
            f"{what} needs concrete values: its output shape depends on them, which JAX cannot "
            "trace. Call it eagerly, or use unsorted_segment_* with a static num_segments."
        )
    return np.asarray(t._value)


def _shape_text(shape) -> str:
    return "[" + ",".join(map(str, shape)) + "]"


# -- sorted segments ------------------------------------------------------------------------


def _sorted_segment(kind: str, tf_name: str, kinds: str):
    op = _op(tf_name)

    def public(data, segment_ids, name=None):
        x = to_tensor(data)
        require(x, kinds, tf_name)
        ids = _ids(segment_ids, tf_name, ("int32", "int64"))
        if x._v.ndim < 1:
            raise _error("input must be at least rank 1", tf_name)
        if ids._v.ndim != 1:
            raise _error("segment_ids should be a vector.", tf_name)
        if ids._v.shape[0] != x._v.shape[0]:
            raise _error("segment_ids should be the same size as dimension 0 of input.", tf_name)
        values = _concrete(ids, f"tf.math.{public.__name__}")
        num = int(values[-1]) + 1 if values.size else 0
        if values.size and values.min() < 0:
            raise _error(
                f"Segment id {int(values.min())} out of range [0, {num}), possibly because "
                "'segment_ids' input is not sorted.",
                tf_name,
            )
        if np.any(np.diff(values) < 0):
            raise _error("segment ids are not increasing", tf_name)
        static = (("kind", kind), ("num_segments", num), ("sorted_ids", True))
        return apply(op, (x, ids), static)

    public.__name__ = f"segment_{kind}"
    public.__doc__ = (
        f"The {kind} of each segment of ``data``'s rows (``tf.math.segment_{kind}``).\n\n"
        "    ``segment_ids`` is a sorted int vector, one id per row; segments without rows "
        f"hold {1 if kind == 'prod' else 0}, as TF."
    )
    public.op = op
    return public


segment_sum = _sorted_segment("sum", "SegmentSum", NUMERIC)
segment_mean = _sorted_segment("mean", "SegmentMean", NUMERIC)
segment_prod = _sorted_segment("prod", "SegmentProd", NUMERIC)
segment_max = _sorted_segment("max", "SegmentMax", "fiu")
segment_min = _sorted_segment("min", "SegmentMin", "fiu")

# -- unsorted segments ----------------------------------------------------------------------


def _unsorted_args(data, segment_ids, num_segments, tf_name, kinds, id_types):
    x = to_tensor(data)
    require(x, kinds, tf_name)
    ids = _ids(segment_ids, tf_name, id_types)
    # A Python int is taken as it is: inside a JAX transform its tensor would be traced.
    is_int = isinstance(num_segments, (int, np.integer)) and not isinstance(num_segments, bool)
    n = to_tensor(np.int32(0) if is_int else num_segments)
    if tf_type_name(n._v.dtype) not in ("int32", "int64"):
        raise _error(
            f"Value for attr 'Tnumsegments' of {tf_type_name(n._v.dtype)} is not in the list "
            "of allowed values: int32, int64",
            tf_name,
        )
    if n._v.ndim != 0:
        raise _error(f"num_segments should be a scalar, not shape {_shape_text(n.shape)}", tf_name)
    num = int(num_segments) if is_int else int(_concrete(n, "num_segments"))
    if num < 0:
        raise _error(f"Input num_segments == {num} must not be negative.", tf_name)
    xs, ids_shape = x._v.shape, ids._v.shape
    if xs[: len(ids_shape)] != ids_shape:
        raise _error(
            f"data.shape = {_shape_text(xs)} does not start with segment_ids.shape = "
            f"{_shape_text(ids_shape)}",
            tf_name,
        )
    if not isinstance(ids._value, jax.core.Tracer):
        values = np.asarray(ids._value)
        bad = np.argwhere(values >= num)
        if bad.size:
            where = ",".join(map(str, bad[0]))
            raise _error(
                f"segment_ids[{where}] = {int(values[tuple(bad[0])])} is out of range [0, {num})",
                tf_name,
            )
    return x, ids, num


def _unsorted_segment(kind: str, tf_name: str, kinds: str, id_types=("int32", "int64")):
    op = _op(tf_name)

    def public(data, segment_ids, num_segments, name=None):
        x, ids, num = _unsorted_args(data, segment_ids, num_segments, tf_name, kinds, id_types)
        static = (("kind", kind), ("num_segments", num), ("sorted_ids", False))
        return apply(op, (x, ids), static)

    public.__name__ = f"unsorted_segment_{kind}"
    public.__doc__ = (
        f"The {kind} of each segment, ids in any order (``tf.math.unsorted_segment_{kind}``).\n\n"
        "    ``segment_ids``' shape is a prefix of ``data``'s; negative ids are dropped, as TF."
    )
    public.op = op
    return public


unsorted_segment_sum = _unsorted_segment(
    "sum", "UnsortedSegmentSum", NUMERIC, ("int16", "int32", "int64")
)
unsorted_segment_prod = _unsorted_segment("prod", "UnsortedSegmentProd", NUMERIC)
unsorted_segment_max = _unsorted_segment("max", "UnsortedSegmentMax", "fiu")
unsorted_segment_min = _unsorted_segment("min", "UnsortedSegmentMin", "fiu")


def _segment_sizes(x: Tensor, ids: Tensor, num: int) -> Tensor:
    """TF's ``_unsorted_segment_N``: rows per segment (at least 1), in ``x``'s dtype,
    broadcastable against the sums. A constant: no gradient flows through it."""
    flat = ids._value.reshape(-1)
    n = jnp.maximum(_count(flat, num, x._v.dtype), 1)
    return wrap(n.reshape((num,) + (1,) * (x._v.ndim - ids._v.ndim)))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment (``tf.math.unsorted_segment_mean``); empty segments hold 0.

    As TF: the sum divided with ``truediv``, so integer data gives float64 (float32
    without JAX's x64 mode).
    """
    x, ids, num = _unsorted_args(
        data, segment_ids, num_segments, "UnsortedSegmentSum", NUMERIC, ("int16", "int32", "int64")
    )
    total = unsorted_segment_sum(x, ids, num)
    require(x, "fiu", "Maximum")  # TF's composite takes max(count, 1) in x's dtype
    return truediv(total, _segment_sizes(x, ids, num))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its size (``tf.math.unsorted_segment_sqrt_n``)."""
    x, ids, num = _unsorted_args(
        data, segment_ids, num_segments, "UnsortedSegmentSum", NUMERIC, ("int16", "int32", "int64")
    )
    total = unsorted_segment_sum(x, ids, num)
    require(x, "fiu", "Maximum")
    return truediv(total, sqrt(_segment_sizes(x, ids, num)))


# -- bincount -------------------------------------------------------------------------------


def check_weights_not_binary(weights, binary_output) -> None:
    """TF's bincount ops refuse ``weights`` together with ``binary_output`` (ValueError)."""
    if weights is not None and binary_output:
        raise ValueError(
            "Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one."
        )


def bincount_axis(axis) -> int:
    """The ``axis`` of TF's bincount ops: ``None`` is 0; anything but 0 and -1 a ValueError."""
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(
            f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported."
        )
    return axis


def _bincount_fn(arr, *weights, size, binary, dtype):
    def count(row, w):
        add = jnp.ones(row.shape, dtype) if w is None else w.astype(dtype)
        return jnp.zeros((size,), dtype).at[row].add(add, mode="drop")

    w = weights[0] if weights else None
    if arr.ndim == 2:
        out = jax.vmap(count)(arr, w) if w is not None else jax.vmap(lambda r: count(r, None))(arr)
    else:
        out = count(arr, w)
    return (out > 0).astype(dtype) if binary else out


_bincount_op = Op("DenseBincount", _bincount_fn, differentiable=False)


def bincount(
    arr,
    weights=None,
    minlength=None,
    maxlength=None,
    dtype=dtypes.int32,
    name=None,
    axis=None,
    binary_output=False,
):
    """Counts each non-negative integer in ``arr`` (``tf.math.bincount``), not differentiable.

    The output has ``max(arr) + 1`` bins, at least ``minlength`` and at most ``maxlength``
    (larger values are dropped); with ``weights``, the weights are summed instead, in their
    dtype. ``axis=-1`` counts each row of a 2-D ``arr``.
    """
    a = to_tensor(arr)
    w = None if weights is None else to_tensor(weights)
    check_weights_not_binary(w, binary_output)
    if a._v.dtype.kind not in "iu":
        a = cast(a, dtypes.int32)
    axis = bincount_axis(axis)
    values = _concrete(a, "tf.math.bincount")
    size = int(values.max()) + 1 if values.size else 0
    if minlength is not None:
        size = max(int(minlength), size)
    if maxlength is not None:
        size = min(int(maxlength), size)
    if axis == 0:
        values = values.reshape(-1)
        a = wrap(a._value.reshape(-1))
        if w is not None:
            w = wrap(w._value.reshape(-1))
    out_dt = dtypes.as_dtype(dtype) if w is None else w.dtype
    if a._v.dtype not in (np.int32, np.int64):
        raise _error(
            f"Value for attr 'Tidx' of {tf_type_name(a._v.dtype)} is not in the list of allowed "
            "values: int32, int64",
            "DenseBincount",
        )
    if tf_type_name(out_dt) not in ("int32", "int64", "float", "double"):
        raise _error(
            f"Value for attr 'T' of {tf_type_name(out_dt)} is not in the list of allowed values: "
            "int32, int64, float, double",
            "DenseBincount",
        )
    if w is not None and w._v.shape != a._v.shape:
        raise _error(
            "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it "
            f"acts as all weights equal to 1. Received {_shape_text(w._v.shape)}",
            "DenseBincount",
        )
    if values.size and values.min() < 0:
        raise _error("Input arr must be non-negative!", "DenseBincount")
    out = canonical_np_dtype(out_dt._np)
    if out.itemsize == 8 and out.kind == "i" and not jax.config.jax_enable_x64:
        out = np.dtype(np.int32)  # int64 counts are int32 without JAX's x64 mode
    args = (a,) if w is None else (a, w)
    static = (("size", size), ("binary", bool(binary_output)), ("dtype", out))
    return apply(_bincount_op, args, static)


# -- confusion_matrix -----------------------------------------------------------------------


def _confusion_fn(labels, predictions, *weights, n, dtype):
    values = weights[0].astype(dtype) if weights else jnp.ones(labels.shape, dtype)
    return jnp.zeros((n, n), dtype).at[labels, predictions].add(values)


_confusion_op = Op("ScatterNd", _confusion_fn)


def _squeezed(labels, predictions):
    """TF's ``remove_squeezable_dimensions``: a trailing size-1 dimension on the side of
    higher rank (by one) is dropped."""
    ls, ps = labels._v.shape, predictions._v.shape
    if len(ps) == len(ls) + 1 and ps[-1] == 1:
        predictions = wrap(predictions._value.reshape(ps[:-1]))
    elif len(ls) == len(ps) + 1 and ls[-1] == 1:
        labels = wrap(labels._value.reshape(ls[:-1]))
    return labels, predictions


def confusion_matrix(
    labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None
):
    """Counts of (label, prediction) pairs, shape ``[n, n]`` (``tf.math.confusion_matrix``).

    Rows are labels and columns predictions; ``n`` is ``num_classes`` or the largest
    value seen plus one; ``weights`` are summed instead of ones (and get gradients, as
    in TF). Labels and predictions are cast to integers and checked eagerly: a negative
    or out-of-range value is TF's InvalidArgumentError. Inside a trace ``num_classes``
    is needed and the values are not checked (XLA drops out-of-range pairs).
    """
    labels, predictions = _squeezed(to_tensor(labels), to_tensor(predictions))
    if labels._v.shape != predictions._v.shape or len(labels._v.shape) != 1:
        raise InvalidArgumentError(
            None,
            None,
            f"Shapes of all inputs must match: values[0].shape = {_shape_text(labels._v.shape)}"
            f" != values[1].shape = {_shape_text(predictions._v.shape)} [Op:Pack]",
        )
    pairs = [
        cast(t, dtypes.int32) if t._v.dtype.kind not in "iu" else t for t in (labels, predictions)
    ]
    if num_classes is None:
        values = [_concrete(t, "tapejax.math.confusion_matrix without num_classes") for t in pairs]
        n = max((int(v.max()) for v in values if v.size), default=-1) + 1
    else:
        n = int(num_classes)
        values = [t._value for t in pairs]
        # Traced values are not checked (XLA drops out-of-range pairs).
        values = [] if any(isinstance(v, jax.core.Tracer) for v in values) else values
        values = [np.asarray(v) for v in values]
    named = list(zip(("labels", "predictions"), values))
    for what, v in named:  # TF checks both for negatives first, then both for bounds
        if v.size and v.min() < 0:
            raise InvalidArgumentError(
                None,
                None,
                f"`{what}` contains negative values.\nCondition x >= 0 did not hold element-wise:",
            )
    for what, v in named:
        if v.size and v.max() >= n:
            raise InvalidArgumentError(
                None, None, f"`{what}` out of bound\nCondition x < y did not hold."
            )
    args = tuple(pairs)
    if weights is not None:
        w = to_tensor(weights)
        if w._v.shape != predictions._v.shape:
            raise ValueError(
                f"Shapes {TensorShape(predictions._v.shape)} and {TensorShape(w._v.shape)} are "
                "incompatible"
            )
        args += (w,)
    out = canonical_np_dtype(dtypes.as_dtype(dtype)._np)
    return apply(_confusion_op, args, (("n", n), ("dtype", out)))


__all__ = [
    "bincount",
    "confusion_matrix",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sqrt_n",
    "unsorted_segment_sum",
]
