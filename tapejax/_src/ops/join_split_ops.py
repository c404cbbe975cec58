"""Joining and splitting tensors: ``concat``, ``stack``, ``unstack`` and ``split``, with
TF's checks (and ``pack_nested``, which converts nested lists holding Tensors).
"""

from __future__ import annotations

import builtins

import jax.numpy as jnp
import numpy as np

from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._array_common import _concrete, _dims, _ints, identity
from ._helpers import axis_ints, dtype_mismatch, tf_type_name, to_tensor

# -- joining --------------------------------------------------------------------------------

_concat_op = Op("ConcatV2", lambda *xs, axis: jnp.concatenate(xs, axis=axis))
_stack_op = Op("Pack", lambda *xs, axis: jnp.stack(xs, axis=axis))


def _same_dtype(values, op_name):
    if type(values) in (list, tuple) and values and type(values[0]) is Tensor:
        # The common case first: Tensors of one dtype, nothing to convert or check.
        dtype = values[0]._v.dtype
        for v in values:
            if type(v) is not Tensor or v._v.dtype != dtype:
                break
        else:
            return values
    ts = [
        to_tensor(v) if (type(v) is Tensor or getattr(v, "_is_variable", False)) else v
        for v in values
    ]
    if not ts:
        raise ValueError(f"{op_name} needs at least one input tensor; got an empty list.")
    first = next((t for t in ts if type(t) is Tensor), None)
    if first is None:  # TF: the first value's dtype converts the others
        first = ts[0] = convert_to_tensor(ts[0])
    out = []
    for i, t in enumerate(ts):
        if type(t) is not Tensor:
            t = convert_to_tensor(t, dtype=first.dtype)
        elif t._v.dtype != first._v.dtype:
            raise dtype_mismatch(op_name, i, first._v.dtype, t._v.dtype)
        out.append(t)
    return out


def concat(values, axis, name="concat"):
    """Joins tensors along ``axis`` (``tf.concat``)."""
    ts = _same_dtype(values, "ConcatV2")
    if len(ts) == 1:
        return identity(ts[0])
    nd = ts[0]._v.ndim
    if nd == 0:
        raise InvalidArgumentError(
            None, None, "ConcatOp : Can't concatenate scalars (use tf.stack instead) [Op:ConcatV2]"
        )
    for i, t in enumerate(ts):
        if t._v.ndim != nd:
            raise InvalidArgumentError(
                None,
                None,
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = [{_dims(ts[0]._v.shape)}] vs. shape[{i}] = [{_dims(t._v.shape)}] [Op:ConcatV2]",
            )
    if type(axis) is not int:
        (axis,) = axis_ints(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None,
            None,
            f"ConcatOp : Expected concatenating dimensions in the range [{-nd}, {nd}), but got {axis} [Op:ConcatV2]",
        )
    axis %= nd
    a = ts[0]._v.shape
    for i, t in enumerate(ts):
        b = t._v.shape
        if a[:axis] != b[:axis] or a[axis + 1 :] != b[axis + 1 :]:
            raise InvalidArgumentError(
                None,
                None,
                f"ConcatOp : Dimension {next(k for k, (x, y) in enumerate(zip(a, b)) if k != axis and x != y)} in both shapes must be equal: shape[0] = [{_dims(a)}] vs. shape[{i}] = [{_dims(b)}] [Op:ConcatV2]",
            )
    return apply(_concat_op, tuple(ts), (("axis", axis),))


def stack(values, axis=0, name="stack"):
    """Stacks tensors of equal shape along a new ``axis`` (``tf.stack``)."""
    listed = isinstance(values, (list, tuple))
    if axis == 0 and not (
        listed
        and values
        and all(type(v) is Tensor or getattr(v, "_is_variable", False) for v in values)
    ):
        # TF first tries to convert the whole list as one value ([1, 2.5] -> float32); a
        # Tensor or array converts as it is.
        try:
            return identity(convert_to_tensor(values))
        except (TypeError, ValueError, NotImplementedError):
            pass
    if isinstance(values, (Tensor, np.ndarray)) or getattr(values, "_is_variable", False):
        # As TF: ``values[0]`` gives the rank (a scalar or an empty first dimension raises
        # the indexing error), then Pack takes a Tensor's rows; an array is not a sequence.
        nd = np.ndim(to_tensor(values[0])._v) + 1
        if not -nd <= int(axis) < nd:
            raise ValueError(f"Argument `axis` = {int(axis)} not in range [{-nd}, {nd})")
        if isinstance(values, np.ndarray):
            raise ValueError(
                f"expected a sequence for attr N, got an ndarray with rank {values.ndim} instead"
            )
        values = list(values)
    ts = _same_dtype(values, "Pack")
    shp = ts[0]._v.shape
    for i, t in enumerate(ts):
        if t._v.shape != shp:
            raise InvalidArgumentError(
                None,
                None,
                f"Shapes of all inputs must match: values[0].shape = {list(shp)} != values[{i}].shape = {list(t._v.shape)} [Op:Pack]",
            )
    nd = len(shp) + 1
    axis = int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    return apply(_stack_op, tuple(ts), (("axis", axis % nd),))


def pack_nested(value, dtype=None) -> Tensor:
    """``convert_to_tensor`` of a (nested) list holding Tensors: a differentiable stack."""
    if isinstance(value, (list, tuple)):
        items = [pack_nested(v, dtype) for v in value]
        return stack(items) if items else convert_to_tensor(np.zeros((0,), np.float32))
    if type(value) is Tensor or getattr(value, "_is_variable", False):
        return to_tensor(value)
    return convert_to_tensor(value, dtype=dtype)


def _unstack_fn(x, *, axis, num):
    return tuple(jnp.moveaxis(x, axis, 0)[i] for i in builtins.range(num))


_unstack_op = Op("Unpack", _unstack_fn, multiple_outputs=True)


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits along ``axis`` into a list of tensors (``tf.unstack``)."""
    x = to_tensor(value)
    nd = x._v.ndim
    axis = int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    axis %= nd
    n = x._v.shape[axis]
    if num is not None and num != n:
        raise InvalidArgumentError(
            None,
            None,
            f"Input shape axis {axis} must equal {num}, got shape [{_dims(x._v.shape)}] "
            "[Op:Unpack]",
        )
    return list(apply(_unstack_op, (x,), (("axis", axis), ("num", n))))


# -- split ----------------------------------------------------------------------------------


def _split_fn(x, *, axis, sizes):
    cuts = np.cumsum(sizes)[:-1].tolist()
    return tuple(jnp.split(x, cuts, axis=axis))


_split_ops = {
    "Split": Op("Split", _split_fn, multiple_outputs=True),
    "SplitV": Op("SplitV", _split_fn, multiple_outputs=True),
}


def _split_axis(axis, nd: int, op_name: str) -> int:
    (axis,) = axis_ints(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None,
            None,
            f"-input rank(-{nd}) <= split_dim < input rank ({nd}), but got {axis} [Op:{op_name}]",
        )
    return axis % nd


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into a count of equal parts or parts of the given
    sizes, one of which may be -1 (``tf.split``).

    >>> import tapejax as tf
    >>> [t.numpy().tolist() for t in tf.split(tf.constant([1, 2, 3, 4, 5]), [2, -1])]
    [[1, 2], [3, 4, 5]]
    """
    x = to_tensor(value)
    nd = x._v.ndim
    spec = num_or_size_splits
    is_tensor = isinstance(spec, Tensor) or getattr(spec, "_is_variable", False)
    if is_tensor and np.ndim(spec) == 0:
        raise ValueError(
            "Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
            f"Argument provided: {spec}"
        )
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        count = int(spec)
        if count < 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'num_split' of {count} must be at least minimum 1 [Op:Split]",
            )
        axis = _split_axis(axis, nd, "Split")
        dim = x._v.shape[axis]
        if dim % count:
            raise InvalidArgumentError(
                None,
                None,
                "Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {dim}) and num_split {count} [Op:Split]",
            )
        sizes = (dim // count,) * count
        op = _split_ops["Split"]
    else:
        if is_tensor and not _concrete(to_tensor(spec)):
            raise NotImplementedError(
                "tapejax.split: the sizes in `num_or_size_splits` set the results' shapes, so "
                "they cannot be a traced tensor (inside tapejax.function or a JAX transform); "
                "XLA programs have static shapes, so pass them as Python ints there."
            )
        arr = np.asarray(spec)
        if arr.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                "size of the split_tensor must be 1-D and have the same elements as outputs "
                f"got {arr.ndim} -D and {arr.size} elements [Op:SplitV]",
            )
        if arr.dtype.kind not in "iu" and arr.size:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'Tlen' of {tf_type_name(canonical_np_dtype(arr.dtype))} is not "
                "in the list of allowed values: int8, int32, int64 [Op:SplitV]",
            )
        sizes = list(_ints(arr))
        axis = _split_axis(axis, nd, "SplitV")
        dim = x._v.shape[axis]
        if sizes.count(-1) > 1:
            raise InvalidArgumentError(
                None, None, "There can only be one -1 in the input. [Op:SplitV]"
            )
        for i, s in enumerate(sizes):
            if s < -1:
                raise InvalidArgumentError(
                    None, None, f"Split size at index {i} must be >= 0. Got: {s} [Op:SplitV]"
                )
        known = sum(s for s in sizes if s != -1)
        if (-1 in sizes and known > dim) or (-1 not in sizes and known != dim):
            raise InvalidArgumentError(
                None,
                None,
                "Determined shape must either match input shape along split_dim exactly if "
                "fully specified, or be less than the size of the input along split_dim if "
                f"not fully specified.  Got: {known} [Op:SplitV]",
            )
        sizes = tuple(dim - known if s == -1 else s for s in sizes)
        op = _split_ops["SplitV"]
    return list(apply(op, (x,), (("axis", axis), ("sizes", sizes))))
