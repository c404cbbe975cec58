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

from .. import dtypes, recorder
from ..dispatch import Op, apply, apply_unrecorded
from ..errors import InvalidArgumentError
from ..tensor import Tensor, canonical_np_dtype, convert_to_tensor, wrap
from ..tensor_shape import TensorShape
from ._helpers import dtype_mismatch, to_tensor


def _concrete(x) -> bool:
    return not isinstance(getattr(x, "_value", x), jax.core.Tracer)


def _ints(value) -> tuple:
    """A shape-like argument (list, tuple, Tensor, TensorShape) as a tuple of Python ints."""
    if isinstance(value, TensorShape):
        return tuple(value.as_list())
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        return tuple(int(v) for v in np.asarray(value).reshape(-1))
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    return tuple(int(v) for v in value)


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
    shape = _ints(shape)
    size = x._value.size
    known = int(np.prod([d for d in shape if d != -1]))
    if shape.count(-1) > 1:
        raise InvalidArgumentError(None, None, "Only one input size may be -1, not both 0 and 1 [Op:Reshape]")
    if -1 in shape:
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


def shape(input, out_type=None, name=None):  # noqa: A002
    """The shape as an int32 tensor (``tf.shape``)."""
    x = to_tensor(input)
    dt = dtypes.int32 if out_type is None else dtypes.as_dtype(out_type)
    return wrap(jnp.asarray(np.asarray(x._value.shape, dtype=canonical_np_dtype(dt._np))))


def size(input, out_type=None, name=None):  # noqa: A002
    x = to_tensor(input)
    dt = dtypes.int32 if out_type is None else dtypes.as_dtype(out_type)
    return wrap(jnp.asarray(x._value.size, dtype=canonical_np_dtype(dt._np)))


def rank(input, name=None):  # noqa: A002
    return wrap(jnp.asarray(to_tensor(input)._value.ndim, dtype=jnp.int32))


_transpose_op = Op("Transpose", lambda x, *, perm, conj: jnp.conj(jnp.transpose(x, perm)) if conj else jnp.transpose(x, perm))


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (``tf.transpose``); reverses them when ``perm`` is None."""
    x = to_tensor(a)
    n = x._value.ndim
    perm = tuple(reversed(range(n))) if perm is None else _ints(perm)
    if sorted(p % n if n else p for p in perm) != list(range(n)) or len(perm) != n:
        raise InvalidArgumentError(
            None, None, f"transpose expects a vector of size {n}. But input(1) is a vector of size {len(perm)} [Op:Transpose]"
        )
    return apply(_transpose_op, (x,), (("conj", bool(conjugate)), ("perm", perm)))


_expand_dims_op = Op("ExpandDims", lambda x, *, axis: jnp.expand_dims(x, axis))


def expand_dims(input, axis, name=None):  # noqa: A002
    x = to_tensor(input)
    n = x._value.ndim
    axis = int(axis)
    if not -n - 1 <= axis <= n:
        raise InvalidArgumentError(
            None, None, f"Tried to expand dim index {axis} for tensor with {n} dimensions. [Op:ExpandDims]"
        )
    return apply(_expand_dims_op, (x,), (("axis", axis % (n + 1)),))


_squeeze_op = Op("Squeeze", lambda x, *, axis: jnp.squeeze(x, axis))


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = to_tensor(input)
    shp = x._value.shape
    if axis is None:
        ax = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        ax = tuple(a % len(shp) for a in _ints(axis))
        for a in ax:
            if shp[a] != 1:
                raise InvalidArgumentError(
                    None, None, f"Can not squeeze dim[{a}], expected a dimension of 1, got {shp[a]} [Op:Squeeze]"
                )
    return apply(_squeeze_op, (x,), (("axis", ax),))


_tile_op = Op("Tile", lambda x, *, multiples: jnp.tile(x, multiples))


def tile(input, multiples, name=None):  # noqa: A002
    x = to_tensor(input)
    m = _ints(multiples)
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
    ts = [to_tensor(v) if (type(v) is Tensor or getattr(v, "_is_variable", False)) else v for v in values]
    first = next((t for t in ts if type(t) is Tensor), None)
    if first is None:
        ts = [convert_to_tensor(v) for v in ts]
        first = ts[0]
    out = []
    for i, t in enumerate(ts):
        if type(t) is not Tensor:
            t = convert_to_tensor(t, dtype=first.dtype)
        elif t._value.dtype != first._value.dtype:
            raise dtype_mismatch(op_name, i, first._value.dtype, t._value.dtype)
        out.append(t)
    return out


def concat(values, axis, name="concat"):
    """Joins tensors along ``axis`` (``tf.concat``)."""
    ts = _same_dtype(values, "ConcatV2")
    if len(ts) == 1:
        return identity(ts[0])
    nd = ts[0]._value.ndim
    for t in ts:
        if t._value.ndim != nd:
            raise InvalidArgumentError(
                None, None, f"ConcatOp : Ranks of all input tensors should match: shape[0] = {list(ts[0]._value.shape)} vs. shape[{ts.index(t)}] = {list(t._value.shape)} [Op:ConcatV2]"
            )
    axis = int(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(None, None, f"ConcatOp : Expected concatenating dimensions in the range [{-nd}, {nd}), but got {axis} [Op:ConcatV2]")
    axis %= nd
    for i, t in enumerate(ts):
        a, b = ts[0]._value.shape, t._value.shape
        if any(x != y for k, (x, y) in enumerate(zip(a, b)) if k != axis):
            raise InvalidArgumentError(
                None, None, f"ConcatOp : Dimension {next(k for k, (x, y) in enumerate(zip(a, b)) if k != axis and x != y)} in both shapes must be equal: shape[0] = {list(a)} vs. shape[{i}] = {list(b)} [Op:ConcatV2]"
            )
    return apply(_concat_op, tuple(ts), (("axis", axis),))


def stack(values, axis=0, name="stack"):
    """Stacks tensors of equal shape along a new ``axis`` (``tf.stack``)."""
    ts = _same_dtype(values, "Pack")
    shp = ts[0]._value.shape
    for i, t in enumerate(ts):
        if t._value.shape != shp:
            raise InvalidArgumentError(
                None, None, f"Shapes of all inputs must match: values[0].shape = {list(shp)} != values[{i}].shape = {list(t._value.shape)} [Op:Pack]"
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
    return tuple(jnp.moveaxis(x, axis, 0)[i] for i in range(num))


_unstack_op = Op("Unpack", _unstack_fn, multiple_outputs=True)


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits along ``axis`` into a list of tensors (``tf.unstack``)."""
    x = to_tensor(value)
    nd = x._value.ndim
    axis = int(axis) % nd
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise ValueError(f"Dimension {axis} in both shapes must be equal")
    return list(apply(_unstack_op, (x,), (("axis", axis), ("num", n))))


# -- creation -------------------------------------------------------------------------------


def _dtype_np(dtype, default=dtypes.float32):
    return canonical_np_dtype(dtypes.as_dtype(dtype if dtype is not None else default)._np)


def zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of zeros (``tf.zeros``)."""
    return wrap(jnp.zeros(_ints(shape), _dtype_np(dtype)))


def ones(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of ones (``tf.ones``)."""
    return wrap(jnp.ones(_ints(shape), _dtype_np(dtype)))


def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(jnp.zeros(x._value.shape, x._value.dtype if dtype is None else _dtype_np(dtype)))


def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(jnp.ones(x._value.shape, x._value.dtype if dtype is None else _dtype_np(dtype)))


_fill_op = Op("Fill", lambda v, *, shape: jnp.broadcast_to(v, shape))


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value`` (``tf.fill``; differentiable in value)."""
    v = to_tensor(value)
    return apply(_fill_op, (v,), (("shape", _ints(dims)),))


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: int32 for Python ints, float32 when any bound is a float."""
    if limit is None:
        start, limit = 0, start
    vals = [np.asarray(v) for v in (start, limit, delta)]
    if dtype is None:
        is_float = any(v.dtype.kind == "f" for v in vals)
        dtype = dtypes.float32 if is_float else dtypes.int32
        for v, orig in zip(vals, (start, limit, delta)):
            if isinstance(orig, Tensor):
                dtype = orig.dtype
    npd = _dtype_np(dtype)
    s, l, d = (v.item() for v in vals)
    if d == 0:
        raise InvalidArgumentError(None, None, "Requires delta != 0: 0 [Op:Range]")
    return wrap(jnp.arange(s, l, d, dtype=npd))


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``)."""
    s, e = to_tensor(start), to_tensor(stop)
    if s._value.dtype.kind not in "fc":
        s = wrap(s._value.astype(jnp.float32))
        e = wrap(e._value.astype(jnp.float32))
    return wrap(jnp.linspace(s._value, e._value, int(num), axis=axis, dtype=s._value.dtype))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    m = jnp.eye(int(num_rows), None if num_columns is None else int(num_columns), dtype=_dtype_np(dtype))
    if batch_shape is not None:
        m = jnp.broadcast_to(m, _ints(batch_shape) + m.shape)
    return wrap(m)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    ind = to_tensor(indices)
    npd = _dtype_np(dtype)
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    out = jnp.where(jax.nn.one_hot(ind._value, int(depth), axis=-1 if axis is None else axis, dtype=bool), on, off)
    return wrap(out.astype(npd))


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
        raise InvalidArgumentError(None, None, f"cannot compute SelectV2 as input #0(zero-based) was expected to be a bool tensor but is a {c.dtype.name} tensor [Op:SelectV2]")
    from ._helpers import binary_operands

    x, y = binary_operands(x, y, "SelectV2")
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
        return jnp.take(p, i, axis=axis - batch_dims, mode="fill" if p.dtype.kind in "fc" else "clip")

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
        raise InvalidArgumentError(None, None, f"Value for attr 'Tindices' of {ind.dtype.name} is not in the list of allowed values: int16, int32, int64 [Op:GatherV2]")
    axis = 0 if axis is None else int(axis)
    axis %= max(p._value.ndim, 1)
    batch_dims = int(batch_dims) % (ind._value.ndim + 1) if batch_dims < 0 else int(batch_dims)
    _check_indices(ind, p._value.shape[axis])
    return apply(_gather_op, (p, ind), (("axis", axis), ("batch_dims", batch_dims)))


# -- indexing: Tensor.__getitem__ -----------------------------------------------------------


def _slice_fn(x, *dynamic, spec):
    idx = []
    for e in spec:
        tag = e[0]
        if tag == "i":
            idx.append(e[1])
        elif tag == "s":
            idx.append(slice(e[1], e[2], e[3]))
        elif tag == "n":
            idx.append(None)
        elif tag == "e":
            idx.append(Ellipsis)
        else:  # "t": a traced scalar index
            idx.append(dynamic[e[1]])
    return x[tuple(idx)]


_slice_op = Op("StridedSlice", _slice_fn)

_BAD_INDEX = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices, got {!r}"
)


def _slice_part(v):
    if v is None:
        return None
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        return int(v)
    return int(v)


def getitem(tensor, key):
    """``tensor[key]`` with TF's rules: out-of-range integer indices raise."""
    x = to_tensor(tensor)
    if not isinstance(key, tuple):
        key = tuple(key) if isinstance(key, list) else (key,)
    spec = []
    dynamic = []
    for k in key:
        if k is None:
            spec.append(("n",))
        elif k is Ellipsis:
            spec.append(("e",))
        elif isinstance(k, slice):
            spec.append(("s", _slice_part(k.start), _slice_part(k.stop), _slice_part(k.step)))
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError(_BAD_INDEX.format(k))
        elif isinstance(k, (int, np.integer)):
            spec.append(("i", int(k)))
        elif isinstance(k, Tensor) or getattr(k, "_is_variable", False):
            k = to_tensor(k)
            if k._value.ndim != 0 or k._value.dtype.kind not in "iu":
                raise TypeError(_BAD_INDEX.format(k))
            if _concrete(k):
                spec.append(("i", int(k._value)))
            else:
                spec.append(("t", len(dynamic)))
                dynamic.append(k)
        else:
            raise TypeError(_BAD_INDEX.format(k))
    _check_spec(spec, x._value.shape)
    return apply(_slice_op, (x, *dynamic), (("spec", tuple(spec)),))


def _check_spec(spec, shp):
    if not shp and any(e[0] in "ist" for e in spec):
        raise InvalidArgumentError(None, None, "Attempting to slice scalar input. [Op:StridedSlice]")
    consumed = sum(1 for e in spec if e[0] in "ist")
    if consumed > len(shp):
        raise InvalidArgumentError(
            None, None, f"Index out of range using input dim {len(shp)}; input has only {len(shp)} dims [Op:StridedSlice]"
        )
    dim = 0
    for e in spec:
        tag = e[0]
        if tag == "e":
            dim += len(shp) - consumed
        elif tag == "i":
            n = shp[dim]
            if not -n <= e[1] < n:
                raise InvalidArgumentError(
                    None, None, f"slice index {e[1]} of dimension {dim} out of bounds. [Op:StridedSlice]"
                )
            dim += 1
        elif tag in "st":
            dim += 1
