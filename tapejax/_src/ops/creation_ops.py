"""Tensor creation (``zeros``, ``ones``, ``fill``, ``range``, ``linspace``, ``eye``, ``one_hot``).

dtypes follow TF: ``range`` infers int32/float32 from its bounds, ``linspace`` gives
float64 (x64) for int bounds; negative dimensions are TF's errors.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor, wrap
from ._helpers import axis_ints, tf_type_name, to_tensor
from .array_ops import _check_dims, _dims, _ints


def _dtype_np(dtype, default=dtypes.float32):
    return canonical_np_dtype(dtypes.as_dtype(dtype if dtype is not None else default)._np)


def zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of zeros (``tf.zeros``)."""
    dims = _ints(shape, "index_type", "Fill")
    _check_dims(dims, "Fill")
    return wrap(jnp.zeros(dims, _dtype_np(dtype)))


def ones(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of ones (``tf.ones``)."""
    dims = _ints(shape, "index_type", "Fill")
    _check_dims(dims, "Fill")
    return wrap(jnp.ones(dims, _dtype_np(dtype)))


def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(jnp.zeros(x._value.shape, x._value.dtype if dtype is None else _dtype_np(dtype)))


def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(jnp.ones(x._value.shape, x._value.dtype if dtype is None else _dtype_np(dtype)))


_fill_op = Op("Fill", lambda v, *, shape: jnp.broadcast_to(v.reshape(()), shape))


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value`` (``tf.fill``; differentiable in value)."""
    v = to_tensor(value)
    if v._value.size != 1:
        raise InvalidArgumentError(
            None,
            None,
            f"value must represent a scalar, got shape [{_dims(v._value.shape)}] [Op:Fill]",
        )
    dims = _ints(dims, "index_type", "Fill")
    _check_dims(dims, "Fill")
    return apply(_fill_op, (v,), (("shape", dims),))


_RANGE_HIERARCHY = ("int32", "int64", "float16", "bfloat16", "float32", "float64")


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: int32 for Python ints, float32 when any bound is a float.

    Without ``dtype``, the widest of the bounds' dtypes wins (int32 < int64 < float16 <
    bfloat16 < float32 < float64), as in TF.
    """
    if limit is None:
        start, limit = 0, start
    args = [
        to_tensor(v)
        if isinstance(v, Tensor) or getattr(v, "_is_variable", False)
        else convert_to_tensor(v, dtype=dtype)
        for v in (start, limit, delta)
    ]
    if dtype is None:
        dtype = max((a.dtype for a in args), key=lambda d: _RANGE_HIERARCHY.index(d.name))
    npd = _dtype_np(dtype)
    s, l, d = (np.asarray(a._value).item() for a in args)
    if d == 0:
        raise InvalidArgumentError(None, None, f"Requires delta != 0: {d} [Op:Range]")
    if d > 0 and s > l:
        raise InvalidArgumentError(
            None, None, f"Requires start <= limit when delta > 0: {s}/{l} [Op:Range]"
        )
    if d < 0 and s < l:
        raise InvalidArgumentError(
            None, None, f"Requires start >= limit when delta < 0: {s}/{l} [Op:Range]"
        )
    return wrap(jnp.arange(s, l, d, dtype=npd))


_linspace_op = Op(
    "LinSpace", lambda s, e, *, num, axis: jnp.linspace(s, e, num, axis=axis, dtype=s.dtype)
)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).

    Integer bounds give float64, as in TF; ``start`` and ``stop`` may be tensors that
    broadcast, and the result is differentiable in them.
    """
    s = to_tensor(start)
    e = to_tensor(stop) if isinstance(stop, Tensor) else convert_to_tensor(stop, dtype=s.dtype)
    if s._value.dtype.kind not in "fc":
        from .math_ops import cast

        s, e = cast(s, dtypes.float64), cast(e, dtypes.float64)
    (n,) = axis_ints(num)
    return apply(_linspace_op, (s, e), (("axis", int(axis)), ("num", n)))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    m = jnp.eye(
        int(num_rows), None if num_columns is None else int(num_columns), dtype=_dtype_np(dtype)
    )
    if batch_shape is not None:
        m = jnp.broadcast_to(m, _ints(batch_shape) + m.shape)
    return wrap(m)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot encoding (``tf.one_hot``); ``on_value``/``off_value`` set the dtype when
    ``dtype`` is not given, and must agree with it and each other, as in TF."""
    ind = to_tensor(indices)
    if ind._value.dtype.kind not in "iu" or ind._value.dtype.itemsize == 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'TI' of {tf_type_name(ind._value.dtype)} is not in the list of "
            "allowed values: uint8, int8, int32, int64 [Op:OneHot]",
        )
    hint = None if dtype is None else dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=hint)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=hint)
    for v, which in ((on, "on_value"), (off, "off_value")):
        if v is not None and hint is not None and v.dtype != hint:
            raise TypeError(f"dtype {v.dtype} of {which} does not match dtype parameter {hint}")
    if on is not None and off is not None and on.dtype != off.dtype:
        raise TypeError(
            f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of off_value"
        )
    if hint is None:
        hint = on.dtype if on is not None else (off.dtype if off is not None else dtypes.float32)
    npd = _dtype_np(hint)
    on_v = 1 if on is None else on._value
    off_v = 0 if off is None else off._value
    hot = jax.nn.one_hot(ind._value, int(depth), axis=-1 if axis is None else axis, dtype=bool)
    return wrap(jnp.where(hot, on_v, off_v).astype(npd))
