"""Tensor creation (``zeros``, ``ones``, ``fill``, ``range``, ``linspace``, ``eye``, ``one_hot``).

dtypes follow TF: ``range`` infers int32/float32 from its bounds, ``linspace`` gives
float64 (x64) for int bounds; negative dimensions are TF's errors.
"""

from __future__ import annotations

import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..lazy import trace_state_clean
from ..tensor import Tensor, wrap
from ._helpers import axis_ints, lacks_cpu_kernel, no_kernel, require, tf_type_name, to_tensor
from .array_ops import _check_dims, _dims, _host, _ints

# TF's Fill takes a vector of dimensions, or (legacy) a scalar one.
_FILL_RANK = "dims must represent a vector, got shape [{}]"


def _dtype_np(dtype, default=dtypes.float32):
    return canonical_np_dtype(dtypes.as_dtype(dtype if dtype is not None else default)._np)


@functools.lru_cache(maxsize=512)
def _filled_program(dims: tuple, dtype, value: int):
    """A compiled program making a ``dims`` array of ``value``: the value is part of the
    program, where eager ``jnp.zeros`` copies its fill value to the device at each call
    (on a GPU, a host-to-device transfer per ``tf.zeros``)."""
    return jax.jit(lambda: jnp.full(dims, value, dtype))


def _filled(dims, dtype, value: int):
    if trace_state_clean():
        return _filled_program(tuple(dims), np.dtype(dtype), value)()
    return jnp.full(tuple(dims), value, dtype)  # under a JAX trace: part of the program


def zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of zeros (``tf.zeros``)."""
    npd = _dtype_np(dtype)  # TF converts the dtype first
    dims = _ints(shape, "index_type", "Fill", _FILL_RANK)
    _check_dims(dims, "Fill")
    return wrap(_filled(dims, npd, 0))


def ones(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of ones (``tf.ones``)."""
    npd = _dtype_np(dtype)  # TF converts the dtype first
    dims = _ints(shape, "index_type", "Fill", _FILL_RANK)
    _check_dims(dims, "Fill")
    return wrap(_filled(dims, npd, 1))


def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(_filled(x._v.shape, x._v.dtype if dtype is None else _dtype_np(dtype), 0))


def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    x = to_tensor(input)
    return wrap(_filled(x._v.shape, x._v.dtype if dtype is None else _dtype_np(dtype), 1))


_fill_op = Op("Fill", lambda v, *, shape: jnp.broadcast_to(v.reshape(()), shape))


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value`` (``tf.fill``; differentiable in value)."""
    v = to_tensor(value)
    if v._v.size != 1:
        raise InvalidArgumentError(
            None,
            None,
            f"value must represent a scalar, got shape [{_dims(v._v.shape)}] [Op:Fill]",
        )
    dims = _ints(dims, "index_type", "Fill", _FILL_RANK)
    _check_dims(dims, "Fill")
    return apply(_fill_op, (v,), (("shape", dims),))


def _check_range_dtype(npd) -> None:
    if np.dtype(npd) == np.uint8:  # the one integer type TF's Range op def leaves out
        raise InvalidArgumentError(
            None,
            None,
            "Value for attr 'Tidx' of uint8 is not in the list of allowed values: bfloat16, "
            "half, float, double, int8, int16, int32, int64, uint16, uint32, uint64 [Op:Range]",
        )
    if lacks_cpu_kernel("Range", npd):
        raise no_kernel("Range", npd)


_RANGE_HIERARCHY = ("int32", "int64", "float16", "bfloat16", "float32", "float64")


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: int32 for Python ints, float32 when any bound is a float.

    Without ``dtype``, the widest of the bounds' dtypes wins (int32 < int64 < float16 <
    bfloat16 < float32 < float64), as in TF.
    """
    if limit is None:
        start, limit = 0, start
    dtypes_, values, ranks = [], [], []
    for v in (start, limit, delta):
        if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
            t = to_tensor(v)
            if isinstance(t._value, jax.core.Tracer):
                raise NotImplementedError(
                    "tapejax.range inside tapejax.function needs bounds known while tracing "
                    "(Python numbers, or `x.shape[0]`): its length sets the result's shape, "
                    "and XLA shapes are static. For a length known only at run time, take "
                    "a static maximum and mask (`tapejax.sequence_mask`)."
                )
            dtypes_.append(t.dtype)
            arr = np.asarray(t._value)
        else:
            # Read on the host: inside a trace a converted constant is a tracer.
            arr = np.asarray(v)
            dtypes_.append(convert_to_tensor(arr if arr.ndim else v, dtype=dtype).dtype)
        ranks.append(arr.shape)
        values.append(arr.item() if arr.size == 1 else None)
    if dtype is None:
        dtype = max(dtypes_, key=lambda d: _RANGE_HIERARCHY.index(d.name))
    npd = _dtype_np(dtype)
    _check_range_dtype(npd)
    for what, shape in zip(("start", "limit", "delta"), ranks):
        if shape not in ((), (1,)):  # TF's kernel takes a one-element vector as a scalar
            raise InvalidArgumentError(
                None, None, f"{what} must be a scalar, not shape [{_dims(shape)}] [Op:Range]"
            )
    s, l, d = values

    def show(v):  # in the range's dtype, as TF prints it: float32 -0.4, not -0.4000000059604645
        return str(np.asarray(v).astype(npd)[()])

    if d == 0:
        raise InvalidArgumentError(None, None, f"Requires delta != 0: {show(d)} [Op:Range]")
    if d > 0 and s > l:
        raise InvalidArgumentError(
            None, None, f"Requires start <= limit when delta > 0: {show(s)}/{show(l)} [Op:Range]"
        )
    if d < 0 and s < l:
        raise InvalidArgumentError(
            None, None, f"Requires start >= limit when delta < 0: {show(s)}/{show(l)} [Op:Range]"
        )
    return wrap(jnp.arange(s, l, d, dtype=npd))


_linspace_op = Op(
    "LinSpace", lambda s, e, *, num, axis: jnp.linspace(s, e, num, axis=axis, dtype=s.dtype)
)


def _int_linspace_fn(s, e, *, num, axis, dtype):
    # TF's linspace_nd: the step is ``(stop - start) / (num - 1)``, the difference taken in
    # the integer dtype (it wraps), the division in ``dtype``; the ends are the bounds.
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")  # as jnp's
    s, e = jnp.broadcast_arrays(s, e)
    ax = axis % (s.ndim + 1)
    start = jnp.expand_dims(s.astype(dtype), ax)
    stop = jnp.expand_dims(e.astype(dtype), ax)
    delta = jnp.expand_dims((e - s).astype(dtype), ax) / jnp.asarray(max(num - 1, 1), dtype)
    shape = [1] * (s.ndim + 1)
    shape[ax] = num
    i = jnp.arange(num, dtype=dtype).reshape(shape)
    last = (i == num - 1) if num > 1 else False
    return jnp.where(last, stop, start + delta * i)


_int_linspace_op = Op("LinSpace", _int_linspace_fn, differentiable=False)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).

    Integer bounds give TF's true-division dtype (float32 for 8- and 16-bit integers,
    float64 for wider ones; float32 without x64); ``start`` and ``stop`` may be tensors
    that broadcast, and the result is differentiable in float ones.
    """
    s = to_tensor(start)
    e = to_tensor(stop) if isinstance(stop, Tensor) else convert_to_tensor(stop, dtype=s.dtype)
    (n,) = axis_ints(num)
    if not (s.dtype.is_floating or s.dtype.is_complex):  # bfloat16 stays bfloat16
        wide = dtypes.float32 if s._v.dtype.itemsize <= 2 else dtypes.float64
        static = (("axis", int(axis)), ("num", n), ("dtype", canonical_np_dtype(wide._np).name))
        return apply(_int_linspace_op, (s, e), static)
    return apply(_linspace_op, (s, e), (("axis", int(axis)), ("num", n)))


def _check_eye_sizes(num_rows, num_columns, batch_shape) -> None:
    """TF's errors for sizes that are not scalar integers: a Tensor goes through TF's
    ``concat((batch_shape, [minimum(rows, columns)]), 0)``, anything else must be a
    Python or NumPy integer."""
    columns = num_rows if num_columns is None else num_columns
    if any(isinstance(v, Tensor) or getattr(v, "_is_variable", False) for v in (num_rows, columns)):
        shape = np.broadcast_shapes(
            np.shape(to_tensor(num_rows)._v), np.shape(to_tensor(columns)._v)
        )
        if shape:
            batch = 0 if batch_shape is None else np.size(_host(batch_shape))
            raise InvalidArgumentError(
                None,
                None,
                "ConcatOp : Ranks of all input tensors should match: shape[0] = "
                f"[{batch}] vs. shape[1] = [1,{_dims(shape)}] [Op:ConcatV2]",
            )
    elif not all(isinstance(v, numbers.Integral) for v in (num_rows, columns)):
        raise TypeError(
            "Arguments `num_rows` and `num_columns` must be positive integer values. "
            f"Received: num_rows={num_rows}, num_columns={columns}"
        )


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    _check_eye_sizes(num_rows, num_columns, batch_shape)
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
    if ind._v.dtype.kind not in "iu" or ind._v.dtype.itemsize == 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'TI' of {tf_type_name(ind._v.dtype)} is not in the list of "
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


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate vectors (``tf.meshgrid``); ``indexing="xy"``
    (the default: the first two output dimensions swapped) or ``"ij"``.

    Built from TF's own ops (reshape, then multiply by ones), so dtypes, errors and
    gradients are TF's.

    >>> import tapejax as tf
    >>> x, y = tf.meshgrid([1, 2], [3, 4, 5])
    >>> x.shape, y.numpy()[:, 0].tolist()
    (TensorShape([3, 2]), [3, 4, 5])
    """
    from .array_ops import reshape, stack

    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'"
        )
    ndim = len(args)
    if not ndim:
        return []
    s0 = (1,) * ndim
    tensors = [stack(x) if isinstance(x, (list, tuple)) else to_tensor(x) for x in args]
    output = [reshape(x, s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(tensors)]
    # Static sizes: a traced input's size is known from its shape (TF's ``size`` op would
    # hold a tracer here).
    shapes = [int(np.prod(x._value.shape)) for x in tensors]
    if indexing == "xy" and ndim > 1:
        output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
        output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
        shapes[0], shapes[1] = shapes[1], shapes[0]
    mult_fact = ones(shapes, tensors[0].dtype)
    return [x * mult_fact for x in output]


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j < maxlen`` (``tf.sequence_mask``);
    ``maxlen`` defaults to the largest length. Not differentiable.

    >>> import tapejax as tf
    >>> tf.sequence_mask([1, 3], 4).numpy().astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    from .array_ops import _host
    from .math_ops import cast

    lens = to_tensor(lengths)
    if maxlen is None:
        require(lens, "fiu", "Max")  # TF's default maxlen is the lengths' Max
        arr = _host(lengths)
        if arr is None:
            raise NotImplementedError(
                "tapejax.sequence_mask: without maxlen the result's shape depends on the "
                "lengths' values, so it cannot be traced; pass maxlen."
            )
        n = max(int(np.ceil(arr.max())) if arr.size else 0, 0)
        m_dtype = lens._v.dtype
    else:
        m = to_tensor(maxlen) if isinstance(maxlen, Tensor) else convert_to_tensor(maxlen)
        if m._v.ndim != 0:
            raise ValueError(
                "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                f"{maxlen} with shape '{tuple(m._v.shape)}' instead"
            )
        host = _host(maxlen)
        if host is None:
            raise NotImplementedError(
                "tapejax.sequence_mask: a traced maxlen sets the result's shape; pass it "
                "concretely."
            )
        n = int(host)
        m_dtype = m._v.dtype
        if n < 0:
            raise InvalidArgumentError(
                None, None, f"Requires start <= limit when delta > 0: 0/{n} [Op:Range]"
            )
    _check_range_dtype(m_dtype)  # TF's mask compares the lengths with range(maxlen)
    row = wrap(jnp.arange(n, dtype=m_dtype))
    matrix = cast(lens, dtypes.as_dtype(m_dtype))
    from .array_ops import expand_dims
    from .math_ops import less

    result = less(row, expand_dims(matrix, -1))
    if dtype is None or dtypes.as_dtype(dtype) == dtypes.bool_:
        return result
    return cast(result, dtype)
