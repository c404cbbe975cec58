"""Shape and array ops (``reshape``, ``concat``, ``gather``, indexing, ...) with TF's checks.

JAX clamps or fills out-of-range indices silently; TF raises. Where indices are
concrete (eager), they are checked here first so that a TF user gets TF's error rather
than a silently wrong value.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply, apply_unrecorded
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ._helpers import axis_ints, binary_operands, dtype_mismatch, tf_type_name, to_tensor


def _concrete(x) -> bool:
    return not isinstance(getattr(x, "_value", x), jax.core.Tracer)


def _ints(value, attr: str | None = None, op_name: str = "") -> tuple:
    """A shape-like argument (list, tuple, Tensor, TensorShape) as a tuple of Python ints.

    With ``attr`` (TF's index-type attribute, "Tshape" ...), float values are TF's
    InvalidArgumentError instead of being truncated.
    """
    if isinstance(value, TensorShape):
        return tuple(value.as_list())
    arr = np.asarray(value)
    if attr is not None and arr.dtype.kind not in "iu" and arr.size:
        name = "float" if arr.dtype.kind == "f" else tf_type_name(arr.dtype)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {name} is not in the list of allowed values: "
            f"int32, int64 [Op:{op_name}]",
        )
    return tuple(int(v) for v in arr.reshape(-1))


def _check_dims(dims: tuple, op_name: str) -> None:
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, None, f"Dimension {d} must be >= 0 [Op:{op_name}]")


# -- identity and stop_gradient -------------------------------------------------------------

_identity_op = Op("Identity", lambda x: x)
_stop_gradient_op = Op("StopGradient", jax.lax.stop_gradient)


def identity(input, name=None):  # noqa: A002
    """A new tensor with the same value (``tf.identity``): a distinct source for tapes."""
    return apply(_identity_op, (to_tensor(input),))


def stop_gradient(input, name=None):  # noqa: A002
    """Identity that no tape or accumulator records (``tf.stop_gradient``): gradient ``None``."""
    return apply_unrecorded(_stop_gradient_op, (to_tensor(input),))


# -- shapes ---------------------------------------------------------------------------------


def _reshape_fn(x, *, shape):
    return jnp.reshape(x, shape)


_reshape_op = Op("Reshape", _reshape_fn)


def reshape(tensor, shape, name=None):
    """Reshapes (``tf.reshape``); one dimension may be -1."""
    x = to_tensor(tensor)
    shape = _ints(shape, "Tshape", "Reshape")
    size = x._value.size
    for i, d in enumerate(shape):
        if d < -1:
            raise InvalidArgumentError(
                None, None, f"Size {i} must be non-negative, not {d} [Op:Reshape]"
            )
    known = int(np.prod([d for d in shape if d != -1]))
    if shape.count(-1) > 1:
        first = shape.index(-1)
        raise InvalidArgumentError(
            None,
            None,
            f"Only one input size may be -1, not both {first} and "
            f"{shape.index(-1, first + 1)} [Op:Reshape]",
        )
    if -1 in shape and size == 0:
        # TF's rule for empty tensors: the -1 takes the product of the input's non-zero
        # dimensions over the requested non-zero ones.
        have = int(np.prod([d for d in x._value.shape if d != 0]))
        want = int(np.prod([d for d in shape if d not in (-1, 0)]))
        shape = tuple(have // want if d == -1 else d for d in shape)
    elif -1 in shape:
        if known == 0 or size % known:
            raise InvalidArgumentError(
                None,
                None,
                f"Input to reshape is a tensor with {size} values, but the requested shape "
                f"requires a multiple of {known} [Op:Reshape]",
            )
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        raise InvalidArgumentError(
            None,
            None,
            f"Input to reshape is a tensor with {size} values, but the requested shape has "
            f"{known} [Op:Reshape]",
        )
    if shape == x._value.shape:
        return apply(_identity_op, (x,))
    return apply(_reshape_op, (x,), (("shape", shape),))


def _out_type(out_type, op_name: str) -> dtypes.DType:
    dt = dtypes.int32 if out_type is None else dtypes.as_dtype(out_type)
    if dt not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_type' of {tf_type_name(dt)} is not in the list of allowed "
            f"values: int32, int64 [Op:{op_name}]",
        )
    return dt


def shape(input, out_type=None, name=None):  # noqa: A002
    """The shape as an int32 tensor (``tf.shape``)."""
    x = to_tensor(input)
    dt = _out_type(out_type, "Shape")
    return wrap(jnp.asarray(np.asarray(x._value.shape, dtype=canonical_np_dtype(dt._np))))


def size(input, out_type=None, name=None):  # noqa: A002
    x = to_tensor(input)
    dt = _out_type(out_type, "Size")
    return wrap(jnp.asarray(x._value.size, dtype=canonical_np_dtype(dt._np)))


def rank(input, name=None):  # noqa: A002
    return wrap(jnp.asarray(to_tensor(input)._value.ndim, dtype=jnp.int32))


_transpose_op = Op(
    "Transpose",
    lambda x, *, perm, conj: jnp.conj(jnp.transpose(x, perm)) if conj else jnp.transpose(x, perm),
)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (``tf.transpose``); reverses them when ``perm`` is None."""
    x = to_tensor(a)
    n = x._value.ndim
    perm = tuple(reversed(builtins.range(n))) if perm is None else _ints(perm, "Tperm", "Transpose")
    if len(perm) != n:
        raise InvalidArgumentError(
            None,
            None,
            f"transpose expects a vector of size {n}. But input(1) is a vector of size {len(perm)} [Op:Transpose]",
        )
    for p_ in perm:
        if not -n <= p_ < n:
            raise InvalidArgumentError(
                None, None, f"{p_} is out of range [0 .. {n}) [Op:Transpose]"
            )
    perm = tuple(p_ % n for p_ in perm)
    for d in builtins.range(n):
        if d not in perm:
            raise InvalidArgumentError(
                None, None, f"{d} is missing from {{{','.join(map(str, perm))}}}. [Op:Transpose]"
            )
    return apply(_transpose_op, (x,), (("conj", bool(conjugate)), ("perm", perm)))


_expand_dims_op = Op("ExpandDims", lambda x, *, axis: jnp.expand_dims(x, axis))


def expand_dims(input, axis, name=None):  # noqa: A002
    x = to_tensor(input)
    n = x._value.ndim
    axes = axis_ints(axis)
    if len(axes) != 1:
        raise InvalidArgumentError(
            None, None, "'dim' must be a tensor with a single value [Op:ExpandDims]"
        )
    axis = axes[0]
    if not -n - 1 <= axis <= n:
        raise InvalidArgumentError(
            None,
            None,
            f"Tried to expand dim index {axis} for tensor with {n} dimensions. [Op:ExpandDims]",
        )
    return apply(_expand_dims_op, (x,), (("axis", axis % (n + 1)),))


_squeeze_op = Op("Squeeze", lambda x, *, axis: jnp.squeeze(x, axis))


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = to_tensor(input)
    shp = x._value.shape
    if axis is None:
        ax = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        ax = axis_ints(axis)
        for a in ax:
            if not -len(shp) <= a < len(shp):
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Tried to squeeze dim index {a} for tensor with {len(shp)} dimensions. "
                    "[Op:Squeeze]",
                )
        ax = tuple(sorted({a % len(shp) for a in ax}))
        for a in ax:
            if shp[a] != 1:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got {shp[a]} [Op:Squeeze]",
                )
    return apply(_squeeze_op, (x,), (("axis", ax),))


_tile_op = Op("Tile", lambda x, *, multiples: jnp.tile(x, multiples))


def tile(input, multiples, name=None):  # noqa: A002
    x = to_tensor(input)
    m = _ints(multiples, "Tmultiples", "Tile")
    for i, k in enumerate(m):
        if k < 0:
            raise InvalidArgumentError(
                None, None, f"Expected multiples[{i}] >= 0, but got {k} [Op:Tile]"
            )
    if len(m) != x._value.ndim:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected multiples argument to be a vector of length {x._value.ndim} but got length {len(m)} [Op:Tile]",
        )
    return apply(_tile_op, (x,), (("multiples", m),))


# -- joining --------------------------------------------------------------------------------

_concat_op = Op("ConcatV2", lambda *xs, axis: jnp.concatenate(xs, axis=axis))
_stack_op = Op("Pack", lambda *xs, axis: jnp.stack(xs, axis=axis))


def _same_dtype(values, op_name):
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
        elif t._value.dtype != first._value.dtype:
            raise dtype_mismatch(op_name, i, first._value.dtype, t._value.dtype)
        out.append(t)
    return out


def _dims(shape) -> str:
    return ",".join(map(str, shape))


def concat(values, axis, name="concat"):
    """Joins tensors along ``axis`` (``tf.concat``)."""
    ts = _same_dtype(values, "ConcatV2")
    if len(ts) == 1:
        return identity(ts[0])
    nd = ts[0]._value.ndim
    if nd == 0:
        raise InvalidArgumentError(
            None, None, "ConcatOp : Can't concatenate scalars (use tf.stack instead) [Op:ConcatV2]"
        )
    for i, t in enumerate(ts):
        if t._value.ndim != nd:
            raise InvalidArgumentError(
                None,
                None,
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = [{_dims(ts[0]._value.shape)}] vs. shape[{i}] = [{_dims(t._value.shape)}] [Op:ConcatV2]",
            )
    (axis,) = axis_ints(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None,
            None,
            f"ConcatOp : Expected concatenating dimensions in the range [{-nd}, {nd}), but got {axis} [Op:ConcatV2]",
        )
    axis %= nd
    for i, t in enumerate(ts):
        a, b = ts[0]._value.shape, t._value.shape
        if any(x != y for k, (x, y) in enumerate(zip(a, b)) if k != axis):
            raise InvalidArgumentError(
                None,
                None,
                f"ConcatOp : Dimension {next(k for k, (x, y) in enumerate(zip(a, b)) if k != axis and x != y)} in both shapes must be equal: shape[0] = [{_dims(a)}] vs. shape[{i}] = [{_dims(b)}] [Op:ConcatV2]",
            )
    return apply(_concat_op, tuple(ts), (("axis", axis),))


def stack(values, axis=0, name="stack"):
    """Stacks tensors of equal shape along a new ``axis`` (``tf.stack``)."""
    if axis == 0 and not (
        values and all(type(v) is Tensor or getattr(v, "_is_variable", False) for v in values)
    ):
        # TF first tries to convert the whole list as one value ([1, 2.5] -> float32).
        try:
            return identity(convert_to_tensor(values))
        except (TypeError, ValueError, NotImplementedError):
            pass
    ts = _same_dtype(values, "Pack")
    shp = ts[0]._value.shape
    for i, t in enumerate(ts):
        if t._value.shape != shp:
            raise InvalidArgumentError(
                None,
                None,
                f"Shapes of all inputs must match: values[0].shape = {list(shp)} != values[{i}].shape = {list(t._value.shape)} [Op:Pack]",
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
    nd = x._value.ndim
    axis = int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    axis %= nd
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise InvalidArgumentError(
            None,
            None,
            f"Input shape axis {axis} must equal {num}, got shape [{_dims(x._value.shape)}] "
            "[Op:Unpack]",
        )
    return list(apply(_unstack_op, (x,), (("axis", axis), ("num", n))))


# -- selection ------------------------------------------------------------------------------

_select_op = Op("SelectV2", lambda c, x, y: jnp.where(c, x, y))


def where(condition, x=None, y=None, name=None):
    """``tf.where``: elementwise select with broadcasting, or (one argument) true indices."""
    c = to_tensor(condition)
    if x is None and y is None:
        if not _concrete(c):
            raise NotImplementedError(
                "tapejax.where with one argument has a data-dependent shape and cannot be traced; "
                "use it in eager code, or use the three-argument form."
            )
        idx = np.argwhere(np.asarray(c._value))
        return wrap(jnp.asarray(idx.astype(canonical_np_dtype(np.int64))))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if c._value.dtype != np.bool_:
        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute SelectV2 as input #0(zero-based) was expected to be a bool tensor but is a {c.dtype.name} tensor [Op:SelectV2]",
        )
    try:
        x, y = binary_operands(x, y, "SelectV2")
    except InvalidArgumentError:
        # TF reports the mismatch against input #2 (``y``): condition is input #0.
        raise dtype_mismatch(
            "SelectV2", 2, to_tensor(x)._value.dtype, to_tensor(y)._value.dtype
        ) from None
    if type(x) is not Tensor:
        x = convert_to_tensor(x, dtype=y.dtype) if type(y) is Tensor else convert_to_tensor(x)
    if type(y) is not Tensor:
        y = convert_to_tensor(y, dtype=x.dtype)
    try:
        np.broadcast_shapes(c._value.shape, x._value.shape, y._value.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            None,
            f"condition [{','.join(map(str, c._value.shape))}], then [{','.join(map(str, x._value.shape))}], and else "
            f"[{','.join(map(str, y._value.shape))}] must be broadcastable [Op:SelectV2]",
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


def _check_indices(ind: Tensor, limit: int, what: str = "indices"):
    if not _concrete(ind):
        return
    arr = np.asarray(ind._value)
    bad = np.argwhere((arr < 0) | (arr >= limit))
    if bad.size:
        pos = tuple(bad[0])
        raise InvalidArgumentError(
            None,
            None,
            f"{what}[{','.join(map(str, pos))}] = {arr[pos]} is not in [0, {limit}) [Op:GatherV2]",
        )


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices along ``axis`` (``tf.gather``).

    The gradient with respect to ``params`` is a dense tensor (TF returns
    ``IndexedSlices``; their dense value, duplicates summed, is the same).
    """
    p = to_tensor(params)
    ind = to_tensor(indices)
    if ind._value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tindices' of {tf_type_name(ind._value.dtype)} is not in the list of allowed values: int16, int32, int64 [Op:GatherV2]",
        )
    (axis,) = axis_ints(0 if axis is None else axis)
    nd = p._value.ndim
    if not -nd <= axis < nd:
        raise InvalidArgumentError(
            None,
            None,
            f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {nd} "
            "[Op:GatherV2]",
        )
    axis %= nd
    batch_dims = int(batch_dims)
    if batch_dims < 0:  # TF counts a negative batch_dims from the indices' rank
        batch_dims += ind._value.ndim
    _check_indices(ind, p._value.shape[axis])
    return apply(_gather_op, (p, ind), (("axis", axis), ("batch_dims", batch_dims)))
