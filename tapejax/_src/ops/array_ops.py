"""Shape ops (``reshape``, ``shape``, ``transpose``, ``expand_dims``, ``squeeze``, ``tile``,
``broadcast_to``, ``ensure_shape``, ``bitcast``, ...) with TF's checks.

The other array ops live beside this module, one concern each: joining and splitting in
``join_split_ops.py``, ``where`` and ``gather`` in ``selection_ops.py``, padding,
reversing, rolling and repeating in ``pad_ops.py``, sorting, searching and ``unique``
in ``sort_ops.py``, norm clipping in ``clip_ops.py``, slicing in ``indexing.py`` and
``gather_nd``/scatter ops in ``scatter_ops.py``. They are all re-exported from here,
as are the helpers of ``_array_common.py`` that other modules import from here.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, execution
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ..tensor_shape import TensorShape
from ._array_common import _check_dims as _check_dims
from ._array_common import _concrete as _concrete
from ._array_common import _dims as _dims
from ._array_common import _host as _host
from ._array_common import _identity_op
from ._array_common import _ints as _ints
from ._array_common import identity as identity
from ._array_common import stop_gradient as stop_gradient
from ._helpers import axis_ints, dtype_mismatch, tf_type_name, to_tensor
from .clip_ops import clip_by_global_norm as clip_by_global_norm
from .clip_ops import clip_by_norm as clip_by_norm
from .join_split_ops import concat as concat
from .join_split_ops import pack_nested as pack_nested
from .join_split_ops import split as split
from .join_split_ops import stack as stack
from .join_split_ops import unstack as unstack
from .selection_ops import gather as gather
from .selection_ops import where as where
from .sort_ops import argsort as argsort
from .sort_ops import searchsorted as searchsorted
from .sort_ops import sort as sort
from .sort_ops import unique as unique
from .sort_ops import unique_with_counts as unique_with_counts

# -- shapes ---------------------------------------------------------------------------------


def _reshape_fn(x, *, shape):
    return jnp.reshape(x, shape)


_reshape_op = Op("Reshape", _reshape_fn)


def reshape(tensor, shape, name=None):
    """Reshapes (``tf.reshape``); one dimension may be -1."""
    x = to_tensor(tensor)
    shape = _ints(shape, "Tshape", "Reshape", "sizes input must be 1-D, not [{}]")
    size = x._v.size
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
            have = int(np.prod([d for d in x._v.shape if d != 0]))
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
    if shape == x._v.shape:
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
    return wrap(jnp.asarray(np.asarray(x._v.shape, dtype=canonical_np_dtype(dt._np))))


def size(input, out_type=None, name=None):  # noqa: A002
    x = to_tensor(input)
    dt = _out_type(out_type, "Size")
    return wrap(jnp.asarray(x._v.size, dtype=canonical_np_dtype(dt._np)))


def rank(input, name=None):  # noqa: A002
    return wrap(jnp.asarray(to_tensor(input)._v.ndim, dtype=jnp.int32))


_transpose_op = Op(
    "Transpose",
    lambda x, *, perm, conj: jnp.conj(jnp.transpose(x, perm)) if conj else jnp.transpose(x, perm),
)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes dimensions (``tf.transpose``); reverses them when ``perm`` is None."""
    x = to_tensor(a)
    n = x._v.ndim
    if perm is None:
        perm = tuple(reversed(builtins.range(n)))
    else:
        rank = "perm must be rank 1, got shape [{}]"
        perm = _ints(perm, "Tperm", "Transpose", rank, scalar_ok=False)
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
    n = x._v.ndim
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
    shp = x._v.shape
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
    if len(m) != x._v.ndim:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected multiples argument to be a vector of length {x._v.ndim} but got length {len(m)} [Op:Tile]",
        )
    return apply(_tile_op, (x,), (("multiples", m),))


# -- broadcasting ---------------------------------------------------------------------------

_broadcast_to_op = Op("BroadcastTo", lambda x, *, shape: jnp.broadcast_to(x, shape))


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts ``input`` to ``shape`` (``tf.broadcast_to``); the gradient sums over the
    broadcast dimensions."""
    x = to_tensor(input)
    rank = "shape must be a vector of {{int32,int64}}, got shape [{}]"
    dims = _ints(shape, "Tidx", "BroadcastTo", rank, scalar_ok=False)
    _check_dims(dims, "BroadcastTo")
    xs = x._v.shape
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
        dt = t._v.dtype
        if dt not in (np.int32, np.int64):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'T' of {tf_type_name(dt)} is not in the list of allowed "
                "values: int32, int64 [Op:BroadcastArgs]",
            )
    if sx._v.dtype != sy._v.dtype:
        raise dtype_mismatch("BroadcastArgs", 1, sx._v.dtype, sy._v.dtype)
    for i, t in enumerate((sx, sy)):
        if t._v.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"In[{i}] must be a vector.[{_dims(t._v.shape)}] [Op:BroadcastArgs]",
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
    else:
        # TF's kernel checks traced shapes too; the lengths are static, the sizes not.
        n = max(sx._v.shape[0], sy._v.shape[0])
        a, b = (
            jnp.concatenate([jnp.ones(n - t._v.shape[0], t._v.dtype), t._value]) for t in (sx, sy)
        )
        execution.runtime_check(
            jnp.all((a == b) | (a == 1) | (b == 1)),
            (sx._value, sy._value),
            lambda a, b: (
                f"Incompatible shapes: [{_dims(np.asarray(a).tolist())}] vs. "
                f"[{_dims(np.asarray(b).tolist())}] [Op:BroadcastArgs]"
            ),
        )
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
    for attr, dt in (("T", x._v.dtype), ("type", out_dt._np)):
        if tf_type_name(dt) not in allowed:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr '{attr}' of {tf_type_name(dt)} is not in the list of allowed "
                f"values: {_BITCAST_TYPES} [Op:Bitcast]",
            )
    npd = canonical_np_dtype(out_dt._np)
    src = x._v.dtype
    if npd.itemsize > src.itemsize:
        shp = x._v.shape
        if not shp or shp[-1] != npd.itemsize // src.itemsize:
            raise InvalidArgumentError(
                None,
                None,
                f"Cannot bitcast from {_TF_ENUM[tf_type_name(src)]} to "
                f"{_TF_ENUM[tf_type_name(npd)]} [Op:Bitcast]",
            )
    return apply(_bitcast_op, (x,), (("dtype", npd.name),))


# -- ensure_shape ---------------------------------------------------------------------------


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
        have = t._v.shape
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


# Defined in their own modules, exported from here with the other array ops (a
# redundant alias marks a re-export). Some import from this module, so they come last.
from .indexing import strided_slice as strided_slice  # noqa: E402
from .indexing import tf_slice  # noqa: E402
from .pad_ops import pad as pad  # noqa: E402
from .pad_ops import repeat as repeat  # noqa: E402
from .pad_ops import reverse as reverse  # noqa: E402
from .pad_ops import roll as roll  # noqa: E402
from .scatter_ops import boolean_mask as boolean_mask  # noqa: E402
from .scatter_ops import gather_nd as gather_nd  # noqa: E402
from .scatter_ops import scatter_nd as scatter_nd  # noqa: E402
from .scatter_ops import tensor_scatter_nd_add as tensor_scatter_nd_add  # noqa: E402
from .scatter_ops import tensor_scatter_nd_max as tensor_scatter_nd_max  # noqa: E402
from .scatter_ops import tensor_scatter_nd_min as tensor_scatter_nd_min  # noqa: E402
from .scatter_ops import tensor_scatter_nd_sub as tensor_scatter_nd_sub  # noqa: E402
from .scatter_ops import tensor_scatter_nd_update as tensor_scatter_nd_update  # noqa: E402

slice = tf_slice  # noqa: A001 - TF's name


# TF registers GuaranteeConst as having no gradient (its tape raises LookupError): None here.
_guarantee_const_op = Op("GuaranteeConst", lambda x: x, differentiable=False)
_guarantee_const_warned = False


def guarantee_const(input, name=None):  # noqa: A002
    """The input, promised constant (``tf.guarantee_const``, deprecated in TF: "Not for
    public use").

    TF uses the promise to fold the value into a graph; XLA folds constants itself, so
    here it is ``identity`` with no gradient. The first call logs TF's deprecation
    warning through ``tf.get_logger()``.

    .. warning:: A tape gives ``None`` through it, where TF raises ``LookupError`` (TF
       registers no gradient for ``GuaranteeConst``).

    Example:
        >>> import tapejax as tf
        >>> tf.guarantee_const(tf.constant([1.0, 2.0])).numpy()
        array([1., 2.], dtype=float32)
    """
    global _guarantee_const_warned
    if not _guarantee_const_warned:
        _guarantee_const_warned = True
        from .. import tf_logging

        file, line = tf_logging._caller_site() or ("<unknown>", 0)
        tf_logging.logger.warning(
            f"From {file}:{line}: guarantee_const (from tapejax) is deprecated and will be "
            "removed in a future version.\nInstructions for updating:\nNot for public use."
        )
    return apply(_guarantee_const_op, (to_tensor(input),))
