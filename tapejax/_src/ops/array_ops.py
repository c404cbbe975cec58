"""Shape and array ops (``reshape``, ``concat``, ``gather``, ``split``, ``pad``, ``sort``,
``unique``, ``roll``, norm clipping, ...) with TF's checks; the slicing and scatter ops
live in ``indexing.py`` and ``scatter_ops.py`` and are re-exported from here.

JAX clamps or fills out-of-range indices silently; TF raises. Where indices are
concrete (eager), they are checked here first so that a TF user gets TF's error rather
than a silently wrong value. Ops whose result shape depends on values (one-argument
``where``, ``unique``) run only on concrete values and raise ``NotImplementedError``
when traced.
"""

from __future__ import annotations

import builtins
import collections
import collections.abc

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply, apply_unrecorded
from ..errors import InvalidArgumentError, UnimplementedError
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ._helpers import axis_ints, binary_operands, dtype_mismatch, tf_type_name, to_tensor


def _concrete(x) -> bool:
    return not isinstance(getattr(x, "_value", x), jax.core.Tracer)


def _host(value):
    """``value`` as a NumPy array when it is known now, or None when it is traced.

    Inside ``tapejax.function`` even a converted constant is a tracer, so values that set
    a result's shape (masks, lengths) or that are checked eagerly (indices) are read
    before conversion.
    """
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = to_tensor(value)
        return np.asarray(t._value) if _concrete(t) else None
    return np.asarray(value)


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
        # TF's rule for empty tensors: when the requested shape has a zero, the -1 takes
        # the product of the input's non-zero dimensions over the requested non-zero ones;
        # otherwise it is 0.
        if 0 in shape:
            have = int(np.prod([d for d in x._value.shape if d != 0]))
            want = int(np.prod([d for d in shape if d not in (-1, 0)]))
            shape = tuple(have // want if d == -1 else d for d in shape)
        else:
            shape = tuple(0 if d == -1 else d for d in shape)
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


def _check_indices(arr, limit: int, what: str = "indices"):
    """TF's CPU check on concrete indices (``arr`` from ``_host``; None when traced)."""
    if arr is None:
        return
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
    dt = ind._value.dtype
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
    nd, nind = p._value.ndim, ind._value.ndim
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
        if p._value.shape[i] != ind._value.shape[i]:
            raise InvalidArgumentError(
                None,
                None,
                f"params.shape[{i}]: {p._value.shape[i]} should be equal to indices.shape[{i}]: "
                f"{ind._value.shape[i]} [Op:GatherV2]",
            )
    _check_indices(_host(indices), p._value.shape[axis])
    return apply(_gather_op, (p, ind), (("axis", axis), ("batch_dims", batch_dims)))


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
    nd = x._value.ndim
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
        dim = x._value.shape[axis]
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
        dim = x._value.shape[axis]
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


# -- pad ------------------------------------------------------------------------------------


def _pad_fn(x, *, paddings, mode, constant):
    if mode == "CONSTANT":
        return jnp.pad(x, paddings, constant_values=jnp.asarray(constant, x.dtype))
    return jnp.pad(x, paddings, mode=mode.lower())


_pad_ops = {n: Op(n, _pad_fn) for n in ("Pad", "PadV2", "MirrorPad")}
_NAN = float("nan")


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads ``tensor`` (``tf.pad``): ``paddings[d] = [before, after]`` per dimension;
    ``mode`` is CONSTANT (with ``constant_values``), REFLECT or SYMMETRIC, in any case.

    As in TF, the gradient with respect to ``constant_values`` is ``None``.

    >>> import tapejax as tf
    >>> tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 1]]).numpy()
    array([[0, 0, 0],
           [1, 2, 0]], dtype=int32)
    """
    x = to_tensor(tensor)
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
            f'"SYMMETRIC". Received `mode` = {mode}'
        )
    is_tensor = isinstance(constant_values, Tensor) or getattr(
        constant_values, "_is_variable", False
    )
    if mode != "CONSTANT":
        op_name = "MirrorPad"
    elif not is_tensor and np.ndim(constant_values) == 0 and constant_values == 0:
        op_name = "Pad"
    else:
        op_name = "PadV2"
    arr = np.asarray(paddings._value if isinstance(paddings, Tensor) else paddings)
    flat = _ints(arr, "Tpaddings", op_name)
    shp = x._value.shape
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidArgumentError(
            None,
            None,
            f"paddings must be a matrix with 2 columns: [{_dims(arr.shape)}] [Op:{op_name}]",
        )
    if arr.shape[0] != len(shp):
        raise InvalidArgumentError(
            None,
            None,
            f"The first dimension of paddings must be the rank of inputs[{_dims(arr.shape)}] "
            f"[{_dims(shp)}] [Op:{op_name}]",
        )
    pads = tuple((flat[2 * i], flat[2 * i + 1]) for i in builtins.range(len(shp)))
    for i, (lo, hi) in enumerate(pads):
        if lo < 0 or hi < 0:
            which = "paddings" if op_name == "MirrorPad" else "Paddings"
            raise InvalidArgumentError(
                None, None, f"{which} must be non-negative: {lo} {hi} [Op:{op_name}]"
            )
        if mode == "REFLECT" and (lo >= shp[i] or hi >= shp[i]):
            raise InvalidArgumentError(
                None,
                None,
                f"paddings must be less than the dimension size: {lo}, {hi} not less than "
                f"{shp[i]} [Op:{op_name}]",
            )
        if mode == "SYMMETRIC" and (lo > shp[i] or hi > shp[i]):
            raise InvalidArgumentError(
                None,
                None,
                f"paddings must be no greater than the dimension size: {lo}, {hi} greater "
                f"than {shp[i]} [Op:{op_name}]",
            )
    constant = 0
    if mode == "CONSTANT":
        if is_tensor:
            c = to_tensor(constant_values)
            if c._value.dtype != x._value.dtype:
                raise dtype_mismatch("PadV2", 2, x._value.dtype, c._value.dtype)
        else:
            c = convert_to_tensor(constant_values, dtype=x.dtype)
        if c._value.ndim != 0:
            raise InvalidArgumentError(
                None,
                None,
                f"constant_values must be a scalar. Found: [{_dims(c._value.shape)}] [Op:PadV2]",
            )
        host = _host(constant_values)
        if host is None:
            raise NotImplementedError(
                "tapejax.pad: a traced constant_values is not supported; pass a Python scalar."
            )
        # A static attribute, so that tapes see no input: TF's gradient for it is None.
        constant = host.astype(c._value.dtype).item()
        if constant != constant:  # NaN: one object, so the compiled-op cache still hits
            constant = _NAN
    if not pads:
        return apply(_identity_op, (x,))
    return apply(
        _pad_ops[op_name], (x,), (("constant", constant), ("mode", mode), ("paddings", pads))
    )


# -- broadcasting ---------------------------------------------------------------------------

_broadcast_to_op = Op("BroadcastTo", lambda x, *, shape: jnp.broadcast_to(x, shape))


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts ``input`` to ``shape`` (``tf.broadcast_to``); the gradient sums over the
    broadcast dimensions."""
    x = to_tensor(input)
    dims = _ints(shape, "Tidx", "BroadcastTo")
    _check_dims(dims, "BroadcastTo")
    xs = x._value.shape
    if len(xs) > len(dims):
        raise InvalidArgumentError(
            None,
            None,
            f"Rank of input ({len(xs)}) must be no greater than rank of output shape "
            f"({len(dims)}). [Op:BroadcastTo]",
        )
    for a, b in zip(reversed(xs), reversed(dims)):
        if a != b and a != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes: [{_dims(xs)}] vs. [{_dims(dims)}] [Op:BroadcastTo]",
            )
    if dims == xs:
        return apply(_identity_op, (x,))
    return apply(_broadcast_to_op, (x,), (("shape", dims),))


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two ``TensorShape``s, unknown dimensions allowed
    (``tf.broadcast_static_shape``)."""
    if shape_x.rank is None or shape_y.rank is None:
        return TensorShape(None)
    xs, ys = shape_x.as_list(), shape_y.as_list()
    n = max(len(xs), len(ys))
    xs = [1] * (n - len(xs)) + xs
    ys = [1] * (n - len(ys)) + ys
    out = []
    for a, b in zip(xs, ys):
        if a is None or b is None:
            out.append(a if a is not None and a > 1 else (b if b is not None and b > 1 else None))
        elif a == 1:
            out.append(b)
        elif b == 1 or a == b:
            out.append(a)
        else:
            raise ValueError(
                "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
                "dimension pair they are either equal or one of them is 1. Received: "
                f"{shape_x} and {shape_y}."
            )
    return TensorShape(out)


def _broadcast_args_fn(x, y):
    n = max(x.shape[0], y.shape[0])
    x = jnp.concatenate([jnp.ones(n - x.shape[0], x.dtype), x])
    y = jnp.concatenate([jnp.ones(n - y.shape[0], y.dtype), y])
    return jnp.where(x == 1, y, x)


_broadcast_args_op = Op("BroadcastArgs", _broadcast_args_fn, differentiable=False)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shape vectors, as a tensor (``tf.broadcast_dynamic_shape``)."""
    sx = to_tensor(shape_x)
    sy = (
        to_tensor(shape_y)
        if isinstance(shape_y, Tensor) or getattr(shape_y, "_is_variable", False)
        else convert_to_tensor(shape_y, dtype=sx.dtype)
    )
    for t in (sx, sy):
        dt = t._value.dtype
        if dt not in (np.int32, np.int64):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed "
                "values: int32, int64 [Op:BroadcastArgs]",
            )
    if sx._value.dtype != sy._value.dtype:
        raise dtype_mismatch("BroadcastArgs", 1, sx._value.dtype, sy._value.dtype)
    for i, t in enumerate((sx, sy)):
        if t._value.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"In[{i}] must be a vector.[{_dims(t._value.shape)}] [Op:BroadcastArgs]",
            )
    if _concrete(sx) and _concrete(sy):
        a, b = np.asarray(sx._value).tolist(), np.asarray(sy._value).tolist()
        try:
            np.broadcast_shapes(tuple(a), tuple(b))
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes: [{_dims(a)}] vs. [{_dims(b)}] [Op:BroadcastArgs]",
            ) from None
    return apply(_broadcast_args_op, (sx, sy))


# -- bitcast --------------------------------------------------------------------------------

_BITCAST_TYPES = (
    "bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, "
    "complex64, complex128, qint8, quint8, qint16, quint16, qint32"
)
# TF's DataType enum values: TF's bitcast error names types by them.
_TF_ENUM = {
    "float": 1, "double": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "complex64": 8,
    "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17, "complex128": 18, "half": 19,
    "uint32": 22, "uint64": 23,
}  # fmt: skip


def _real_part_dtype(dt):
    return np.dtype(np.float32) if dt == np.complex64 else np.dtype(np.float64)


def _bitcast_fn(x, *, dtype):
    dtype = np.dtype(dtype)
    if x.dtype.kind == "c":  # complex -> (real, imag) pairs, then bitcast those
        x = jnp.stack([x.real, x.imag], axis=-1)
        if dtype.kind == "c":
            return jax.lax.complex(x[..., 0], x[..., 1]).astype(dtype)
        out = jax.lax.bitcast_convert_type(x, dtype)
        if dtype.itemsize < x.dtype.itemsize:
            out = out.reshape(out.shape[:-2] + (-1,))
        return out
    if dtype.kind == "c":
        part = _real_part_dtype(dtype)
        if x.dtype.itemsize < part.itemsize:
            x = x.reshape(x.shape[:-1] + (2, -1))
        y = jax.lax.bitcast_convert_type(x, part)
        return jax.lax.complex(y[..., 0], y[..., 1])
    return jax.lax.bitcast_convert_type(x, dtype)


_bitcast_op = Op("Bitcast", _bitcast_fn, differentiable=False)


def bitcast(input, type, name=None):  # noqa: A002
    """Reinterprets the bytes of ``input`` as ``type`` (``tf.bitcast``): a wider type
    consumes the last dimension, a narrower one adds a dimension; not differentiable."""
    x = to_tensor(input)
    out_dt = dtypes.as_dtype(type)
    allowed = _BITCAST_TYPES.split(", ")
    for attr, dt in (("T", x._value.dtype), ("type", out_dt._np)):
        if tf_type_name(dt) not in allowed:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr '{attr}' of {tf_type_name(dt)} is not in the list of allowed "
                f"values: {_BITCAST_TYPES} [Op:Bitcast]",
            )
    npd = canonical_np_dtype(out_dt._np)
    src = x._value.dtype
    if npd.itemsize > src.itemsize:
        shp = x._value.shape
        if not shp or shp[-1] != npd.itemsize // src.itemsize:
            raise InvalidArgumentError(
                None,
                None,
                f"Cannot bitcast from {_TF_ENUM[tf_type_name(src)]} to "
                f"{_TF_ENUM[tf_type_name(npd)]} [Op:Bitcast]",
            )
    return apply(_bitcast_op, (x,), (("dtype", npd.name),))


# -- sort, argsort, unique ------------------------------------------------------------------


def _sort_key(x, descending: bool):
    """A key whose stable ascending sort is TF's order: ties keep the lower index first in
    both directions (TF sorts with ``top_k``), and -0.0 ties with 0.0."""
    if x.dtype.kind == "f" or x.dtype == jnp.bfloat16:
        x = x + jnp.zeros((), x.dtype)  # -0.0 -> 0.0
        return -x if descending else x
    if not descending:
        return x
    return jnp.iinfo(x.dtype).max - x if x.dtype.kind == "u" else ~x


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
    n = x._value.ndim
    if not -n <= ax < n:
        shown = ax + n if ax < 0 else ax
        raise InvalidArgumentError(
            None,
            None,
            f"slice index {shown} of dimension 0 out of bounds. [Op:StridedSlice]",
        )
    dt = x._value.dtype
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
    if t._value.ndim != 1:
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
    a = a.astype(t._value.dtype)
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


# -- reverse, roll, repeat ------------------------------------------------------------------

_reverse_op = Op("ReverseV2", lambda x, *, axis: jnp.flip(x, axis))


def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along each dimension in the 1-D ``axis`` (``tf.reverse``)."""
    x = to_tensor(tensor)
    if np.ndim(axis) != 1:
        raise InvalidArgumentError(
            None, None, f"'dims' must be 1-dimension, not {np.ndim(axis)} [Op:ReverseV2]"
        )
    axes = _ints(axis, "Tidx", "ReverseV2")
    n = x._value.ndim
    seen = []
    for i, a in enumerate(axes):
        if not -n <= a < n:
            raise InvalidArgumentError(
                None,
                None,
                f"'axis'[{i}] = {a} is out of valid range [0, {n - 1} [Op:ReverseV2]",
            )
        if a % n in seen:
            raise InvalidArgumentError(
                None, None, f"axis {a % n} specified more than once. [Op:ReverseV2]"
            )
        seen.append(a % n)
    if n > 8:
        raise UnimplementedError(
            None, None, "reverse is not implemented for tensors of rank > 8. [Op:ReverseV2]"
        )
    return apply(_reverse_op, (x,), (("axis", tuple(seen)),))


_roll_op = Op("Roll", lambda x, *, shift, axis: jnp.roll(x, shift, axis))


def roll(input, shift, axis, name=None):  # noqa: A002
    """Rolls elements along ``axis`` by ``shift`` (``tf.roll``); shifts on the same axis
    add up. ``shift`` and ``axis`` must be concrete."""
    x = to_tensor(input)
    for what, v in (("shift", shift), ("axis", axis)):
        if np.ndim(v) > 1:
            raise InvalidArgumentError(
                None,
                None,
                f"{what} must be a scalar or a 1-D vector. Found: [{_dims(np.shape(v))}] [Op:Roll]",
            )
    if x._value.ndim == 0:
        raise InvalidArgumentError(None, None, "input must be 1-D or higher [Op:Roll]")
    if (isinstance(shift, Tensor) and not _concrete(shift)) or (
        isinstance(axis, Tensor) and not _concrete(axis)
    ):
        raise NotImplementedError("tapejax.roll: shift and axis must be concrete, not traced.")
    shifts = _ints(shift, "Tshift", "Roll")
    axes = _ints(axis, "Taxis", "Roll")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(None, None, "shift and axis must have the same size [Op:Roll]")
    n = x._value.ndim
    for a in axes:
        if not -n <= a < n:
            raise InvalidArgumentError(None, None, f"axis {a} is out of range [Op:Roll]")
    return apply(_roll_op, (x,), (("axis", tuple(a % n for a in axes)), ("shift", shifts)))


_repeat_op = Op(
    "Repeat",
    lambda x, *, repeats, axis, total: jnp.repeat(
        x, np.asarray(repeats), axis=axis, total_repeat_length=total
    ),
)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeats elements of ``input`` (flattened when ``axis`` is None) ``repeats`` times
    (``tf.repeat``); ``repeats`` is an int or one int per element along ``axis`` and must
    be concrete: it sets the result's shape."""
    x = to_tensor(input)
    r = repeats
    if isinstance(r, Tensor) or getattr(r, "_is_variable", False):
        r = to_tensor(r)
        if not _concrete(r):
            raise NotImplementedError(
                "tapejax.repeat: traced repeats give a data-dependent shape; pass them concretely."
            )
        r = r._value
    arr = np.asarray(r)
    if arr.dtype.kind not in "iu":
        dt = dtypes.as_dtype(canonical_np_dtype(arr.dtype) if arr.dtype.kind == "f" else arr.dtype)
        if isinstance(repeats, float):
            dt = dtypes.float32
        raise TypeError(
            "Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = "
            f"{repeats} of dtype: {dt!r}"
        )
    if arr.ndim > 1:
        raise ValueError(f"Shape {arr.shape} must have rank at most 1")
    if axis is None or x._value.ndim == 0:
        x = reshape(x, [-1])
        axis = 0
    n = x._value.ndim
    (axis,) = axis_ints(axis)
    if not -n <= axis < n:
        raise ValueError(f"axis={axis} out of bounds: expected {-n}<=axis<{n}")
    axis %= n
    dim = x._value.shape[axis]
    if arr.ndim == 0 or arr.size == 1:
        k = int(arr.reshape(-1)[0]) if arr.size else 0
        if k < 0:
            raise InvalidArgumentError(
                None, None, f"Expected multiples[{axis + 1}] >= 0, but got {k} [Op:Tile]"
            )
        reps = (k,) * dim
    else:
        if arr.size != dim:
            raise ValueError(f"Dimensions {dim} and {arr.size} are not compatible")
        reps = tuple(int(v) for v in arr)
        if any(v < 0 for v in reps):
            raise InvalidArgumentError(
                None, None, f"repeats must be non-negative, got {list(reps)} [Op:Repeat]"
            )
    return apply(_repeat_op, (x,), (("axis", axis), ("repeats", reps), ("total", sum(reps))))


# -- searchsorted, ensure_shape -------------------------------------------------------------


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
        if t._value.ndim == 0:
            raise InvalidArgumentError(
                None, None, "slice index -1 of dimension 0 out of bounds. [Op:StridedSlice]"
            )
    if vals._value.dtype != seq._value.dtype:
        raise dtype_mismatch(op_name, 1, seq._value.dtype, vals._value.dtype)
    out_dt = dtypes.as_dtype(out_type)
    if out_dt not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_type' of {tf_type_name(out_dt._np)} is not in the list of "
            f"allowed values: int32, int64 [Op:{op_name}]",
        )
    ss, vs = seq._value.shape, vals._value.shape
    if int(np.prod(ss[:-1])) != int(np.prod(vs[:-1])):
        raise InvalidArgumentError(
            None, None, f"Leading dim_size of both tensors must match. [Op:{op_name}]"
        )
    static = (("dtype", canonical_np_dtype(out_dt._np).name), ("side", side))
    return apply(_searchsorted_ops[side], (seq, vals), static)


def _shape_dims(dims) -> str:
    return ",".join("?" if d is None else str(d) for d in dims)


def ensure_shape(x, shape, name=None):
    """``x`` unchanged if its shape is compatible with ``shape`` (None dimensions match
    anything), else TF's InvalidArgumentError (``tf.ensure_shape``)."""
    t = to_tensor(x)
    if shape is None:
        return apply(_identity_op, (t,))
    dims = shape.as_list() if isinstance(shape, TensorShape) else None
    if dims is None and shape is not None and not isinstance(shape, TensorShape):
        dims = [None if d is None else int(d) for d in shape]
    if dims is not None:
        for d in dims:
            if d is not None and d < 0:
                raise ValueError(f"Dimension {d} must be >= 0")
        have = t._value.shape
        if len(dims) != len(have) or any(
            d is not None and d != h for d, h in zip(dims, have, strict=True)
        ):
            raise InvalidArgumentError(
                None,
                None,
                f"Shape of tensor input [{_dims(have)}] is not compatible with expected shape "
                f"[{_shape_dims(dims)}]. [Op:EnsureShape]",
            )
    return apply(_identity_op, (t,))


# -- norm clipping (TF's formulas, op for op, so that values and gradients are TF's) --------


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``
    (``tf.clip_by_norm``), computed with TF's own formula: gradients, including those at a
    zero norm and where the norm equals ``clip_norm``, are TF's.

    >>> import tapejax as tf
    >>> tf.clip_by_norm(tf.constant([3.0, 4.0]), 1.0).numpy()
    array([0.6, 0.8], dtype=float32)
    """
    from .math_ops import cast, maximum, sqrt
    from .reduction_ops import reduce_sum

    values = to_tensor(t)
    if np.isscalar(clip_norm):
        clip_norm = max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    from .creation_ops import ones_like

    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    return identity(intermediate / maximum(l2norm, clip_norm))


def _global_norm(values):
    from .math_ops import sqrt
    from .nn_ops import l2_loss
    from .reduction_ops import reduce_sum

    half = reduce_sum(stack([l2_loss(v) for v in values if v is not None]))
    return sqrt(half * convert_to_tensor(2.0, dtype=half.dtype))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Rescales a list of tensors so that their joint L2 norm is at most ``clip_norm``
    (``tf.clip_by_global_norm``); returns ``(clipped list, global norm)``. ``None``
    entries stay ``None``; an infinite norm gives NaNs, as in TF.

    >>> import tapejax as tf
    >>> clipped, norm = tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None], 1.0)
    >>> norm.numpy(), clipped[1]
    (np.float32(5.0), None)
    """
    from .math_ops import cast, minimum

    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    values = [None if v is None else to_tensor(v) for v in t_list]
    if use_norm is None:
        use_norm = _global_norm(values)
    use_norm = to_tensor(use_norm)
    one = convert_to_tensor(1.0, dtype=use_norm.dtype)
    scale = clip_norm * minimum(1.0 / use_norm, one / clip_norm)
    scale = scale + (use_norm - use_norm)
    clipped = [None if v is None else identity(v * cast(scale, v.dtype)) for v in values]
    return clipped, use_norm


# Defined in their own modules, exported from here with the other array ops (a
# redundant alias marks a re-export).
from .indexing import strided_slice as strided_slice  # noqa: E402
from .indexing import tf_slice  # noqa: E402
from .scatter_ops import boolean_mask as boolean_mask  # noqa: E402
from .scatter_ops import gather_nd as gather_nd  # noqa: E402
from .scatter_ops import scatter_nd as scatter_nd  # noqa: E402
from .scatter_ops import tensor_scatter_nd_add as tensor_scatter_nd_add  # noqa: E402
from .scatter_ops import tensor_scatter_nd_max as tensor_scatter_nd_max  # noqa: E402
from .scatter_ops import tensor_scatter_nd_min as tensor_scatter_nd_min  # noqa: E402
from .scatter_ops import tensor_scatter_nd_sub as tensor_scatter_nd_sub  # noqa: E402
from .scatter_ops import tensor_scatter_nd_update as tensor_scatter_nd_update  # noqa: E402

slice = tf_slice  # noqa: A001 - TF's name
