"""``tf.quantization``'s quantize/dequantize ops: ``quantize_and_dequantize(_v2)``,
``quantize``, ``dequantize`` and ``quantized_concat``, with TF's reference kernels'
numerics (ranges, rounding modes, the float32 arithmetic), errors and gradients.

Quantized dtypes (``qint8`` ...) have no JAX array type: a quantized tensor is held in
the integer type TF's ``.numpy()`` shows (``quint8`` as ``uint8`` ...). TF registers no
gradient for ``quantize``, ``dequantize`` and ``quantized_concat``: a tape gives None.
Must never read a traced value.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, NotFoundError, UnimplementedError
from ._array_common import _host, stop_gradient
from ._helpers import tf_type_name, to_tensor
from ._quant_float import F32 as _F32
from ._quant_float import c_float as _fmt
from ._quant_float import exact as _exact
from ._quant_float import op_error as _error
from ._quant_float import opaque as _opaque
from ._quant_float import round_away as _round_away

QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat", ["output", "output_min", "output_max"])


# -- quantize and dequantize (simulated) ------------------------------------------------------


def _round(v, half_to_even):
    v = _exact(v)
    return jnp.round(v) if half_to_even else jnp.floor(_exact(v + jnp.asarray(0.5, v.dtype)))


def _qdq(x, mn, mx, *, signed, num_bits, range_given, half_to_even, narrow_range, axis):
    """TF's QuantizeAndDequantizeOneScaleFunctor / PerChannel (quantize_and_dequantize_op.h)."""
    dt = x.dtype
    if axis >= 0:
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        reduce_axes = tuple(a for a in range(x.ndim) if a != axis)
    else:
        shape, reduce_axes = (), None
    if range_given:
        lo, hi = jnp.reshape(mn, shape), jnp.reshape(mx, shape)
    else:
        lo = jnp.min(x, axis=reduce_axes).reshape(shape)
        hi = jnp.max(x, axis=reduce_axes).reshape(shape)
    if signed:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    qmin_f, qmax_f = _opaque(qmin, lo), _opaque(qmax, lo)
    big = jnp.asarray(jnp.finfo(dt).max, dt)
    from_min = jnp.where(_exact(qmin_f * lo) > 0, _exact(qmin_f / lo), big)
    from_max = jnp.where(_exact(qmax_f * hi) > 0, _exact(qmax_f / hi), big)
    use_min = from_min < from_max
    scale = jnp.where(use_min, from_min, from_max)
    inverse = _exact(jnp.where(use_min, _exact(lo / qmin_f), _exact(hi / qmax_f)))
    hi = jnp.where(use_min, _exact(qmax_f * inverse), hi)
    lo = jnp.where(use_min, lo, _exact(qmin_f * inverse))
    if range_given:
        x = jnp.maximum(jnp.minimum(x, hi), lo)
    return _round(x * scale, half_to_even) * inverse


def _make_qdq_v4():
    @jax.custom_jvp
    def qdq(x, mn, mx, static):
        return _qdq(x, mn, mx, **dict(static))

    qdq = jax.custom_jvp(qdq.fun, nondiff_argnums=(3,))

    @qdq.defjvp
    def _jvp(static, primals, tangents):
        # TF's QuantizeAndDequantizeV4Grad: the input's gradient passes where the input is
        # inside [input_min, input_max] as given (even when range_given is False); the
        # range's gradients are zeros.
        x, mn, mx = primals
        axis = dict(static)["axis"]
        shape = [1] * x.ndim
        if axis >= 0:
            shape[axis] = x.shape[axis]
        lo, hi = jnp.reshape(mn, shape), jnp.reshape(mx, shape)
        out = _qdq(x, mn, mx, **dict(static))
        inside = (x >= lo) & (x <= hi)
        return out, jnp.where(inside, tangents[0], jnp.zeros_like(out))

    return qdq


_qdq_v4 = _make_qdq_v4()


def _qdq_v4_fn(x, mn, mx, **static):
    return _qdq_v4(x, mn, mx, tuple(sorted(static.items())))


def _make_qdq_v2():
    @jax.custom_jvp
    def qdq(x, mn, mx, static):
        return _qdq(x, mn, mx, **dict(static))

    qdq = jax.custom_jvp(qdq.fun, nondiff_argnums=(3,))

    @qdq.defjvp
    def _jvp(static, primals, tangents):
        # TF's _QuantizeAndDequantizeV2Grad: the whole upstream gradient passes to the
        # input (the range is not recorded: see quantize_and_dequantize).
        return qdq(*primals, static), tangents[0]

    return qdq


_qdq_v2 = _make_qdq_v2()


def _qdq_v2_fn(x, mn, mx, **static):
    return _qdq_v2(x, mn, mx, tuple(sorted(static.items())))


_QDQ_V4 = Op("QuantizeAndDequantizeV4", _qdq_v4_fn)
_QDQ_V2 = Op("QuantizeAndDequantizeV2", _qdq_v2_fn)

_QDQ_FLOATS = ("bfloat16", "float16", "float32", "float64")


def _qdq_args(
    op,
    input,
    input_min,
    input_max,
    signed_input,
    num_bits,
    range_given,
    round_mode,
    narrow_range,
    axis,
):  # noqa: A002
    x = to_tensor(input)
    name = dtypes.as_dtype(x._v.dtype).name
    if name not in _QDQ_FLOATS:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(x._v.dtype)} is not in the list of allowed "
            "values: bfloat16, half, float, double",
        )
    mn = convert_to_tensor(input_min, dtype=x.dtype)
    mx = convert_to_tensor(input_max, dtype=x.dtype)
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'round_mode' of \"{round_mode}\" is not in the list of allowed "
            'values: "HALF_TO_EVEN", "HALF_UP"',
        )
    rank = x.shape.rank
    if axis is None:
        axis = -1
    elif axis < 0:
        axis %= rank
    if axis >= 0 and axis >= rank:
        raise _error(op, f"Axis is out of bounds, got {axis} but the input has rank {rank}")
    if not 0 < num_bits < (62 if signed_input else 63):
        raise _error(
            op, f"num_bits is out of range: {num_bits} with signed_input_ {int(signed_input)}"
        )
    want = [] if axis < 0 else [x.shape[axis]]
    for what, t in (("input_min", mn), ("input_max", mx)):
        if t.shape.as_list() != want:
            shape = "[]" if axis < 0 else f"[{x.shape[axis]}]"
            raise _error(op, f"{what} must have shape {shape}, got {t.shape}")
    if range_given:
        lo, hi = _host(mn), _host(mx)
        if lo is not None and hi is not None and np.any(lo > hi):
            i = int(np.argmax(np.reshape(lo > hi, -1)))
            raise _error(
                op,
                f"Invalid range: input_min {_fmt(np.reshape(lo, -1)[i])} > input_max "
                f"{_fmt(np.reshape(hi, -1)[i])}",
            )
    static = (
        ("signed", bool(signed_input)),
        ("num_bits", int(num_bits)),
        ("range_given", bool(range_given)),
        ("half_to_even", round_mode == "HALF_TO_EVEN"),
        ("narrow_range", bool(narrow_range)),
        ("axis", int(axis)),
    )
    return x, mn, mx, static


def quantize_and_dequantize_v2(
    input,  # noqa: A002
    input_min,
    input_max,
    signed_input=True,
    num_bits=8,
    range_given=False,
    round_mode="HALF_TO_EVEN",
    name=None,
    narrow_range=False,
    axis=None,
):
    """Quantizes then dequantizes a tensor, simulating ``num_bits`` integer storage
    (``tf.quantization.quantize_and_dequantize_v2``).

    Args:
        input: a floating tensor.
        input_min: the range's lower end (used when ``range_given``); a vector of
            ``input.shape[axis]`` values when ``axis`` is given.
        input_max: the range's upper end, likewise.
        signed_input: quantize to a signed range.
        num_bits: the bit width (``1 ..61`` signed, ``..62`` unsigned).
        range_given: use ``[input_min, input_max]``; otherwise the input's own min and max.
        round_mode: ``"HALF_TO_EVEN"`` or ``"HALF_UP"``.
        name: ignored (TF's op name).
        narrow_range: signed range ``[-2**(b-1) + 1, 2**(b-1) - 1]``.
        axis: quantize per slice along this axis.

    Returns:
        A tensor of ``input``'s shape and dtype. The gradient is TF's: the input's passes
        where ``input_min <= input <= input_max`` (the given range, even when
        ``range_given`` is False) and is 0 elsewhere; ``input_min``'s and ``input_max``'s
        are zeros.

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.quantize_and_dequantize_v2([0.3, 1.0], -1.0, 1.0).numpy()
        array([0.2992126, 1.       ], dtype=float32)
    """
    op = "QuantizeAndDequantizeV4"
    x, mn, mx, static = _qdq_args(
        op,
        input,
        input_min,
        input_max,
        signed_input,
        num_bits,
        range_given,
        round_mode,
        narrow_range,
        axis,
    )
    return apply(_QDQ_V4, (x, mn, mx), static)


def quantize_and_dequantize(
    input,  # noqa: A002
    input_min,
    input_max,
    signed_input=True,
    num_bits=8,
    range_given=False,
    round_mode="HALF_TO_EVEN",
    name=None,
    narrow_range=False,
    axis=None,
):
    """Quantizes then dequantizes a tensor, with a pass-through gradient
    (``tf.quantization.quantize_and_dequantize``, deprecated in TF for ``_v2``).

    Args and values as ``quantize_and_dequantize_v2``'s.

    Returns:
        A tensor of ``input``'s shape and dtype. The gradient is TF's (its op
        QuantizeAndDequantizeV2): the whole upstream gradient passes to ``input``, in or
        out of range; ``input_min`` and ``input_max`` get None.

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.quantize_and_dequantize([0.3, 1.0], -1.0, 1.0).numpy()
        array([0.2992126, 1.       ], dtype=float32)
    """
    op = "QuantizeAndDequantizeV2"
    x, mn, mx, static = _qdq_args(
        op,
        input,
        input_min,
        input_max,
        signed_input,
        num_bits,
        range_given,
        round_mode,
        narrow_range,
        axis,
    )
    # TF gives None for the range: the op does not record them.
    return apply(_QDQ_V2, (x, stop_gradient(mn), stop_gradient(mx)), static)


# -- quantize / dequantize to integer types -------------------------------------------------

# TF's quantized dtypes and the NumPy integer type that holds their values (as .numpy()).
_HOLDERS = {
    "qint8": np.int8,
    "quint8": np.uint8,
    "qint16": np.int16,
    "quint16": np.uint16,
    "qint32": np.int32,
}
_QUANTIZED_LIST = "qint8, quint8, qint32, qint16, quint16"
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")


def _attr_name(dtype) -> str:
    return tf_type_name(dtype._np) if dtype._np is not None else dtype.name


def _check_mode(mode):
    if mode not in _MODES:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'mode' of \"{mode}\" is not in the list of allowed values: "
            '"MIN_COMBINED", "MIN_FIRST", "SCALED"',
        )


def _to_axis_shape(v, ndim, axis):
    if axis < 0:
        return v
    shape = [1] * ndim
    shape[axis] = -1
    return jnp.reshape(v, shape)


def _min_first_quantize(x, lo, hi, info):
    # FloatTensorToQuantizedInPlaceUsingEigen (quantization_utils.h), float32 arithmetic.
    steps = float(1 << info.bits)
    scale = jnp.where(hi == lo, _F32(0), _exact(_exact(_F32(steps - 1.0)) / _exact(hi - lo)))
    lo_scaled = _round_away(_exact(lo * scale))
    q = _exact(_exact(_round_away(_exact(x * scale)) - lo_scaled) + _F32(info.min))
    lower = max(_F32(info.min), _F32(-2.147483648e9))
    upper = min(_F32(info.max), _F32(2.147483520e9))
    return jnp.clip(q, lower, upper)


def _quantize_fn(x, mn, mx, *, holder, mode, half_to_even, narrow_range, axis, ensure_min):
    info = np.iinfo(holder)
    mn = _to_axis_shape(mn, x.ndim, axis)
    mx = _to_axis_shape(mx, x.ndim, axis)
    lo = jnp.minimum(_F32(0), mn)
    eps = _exact(jnp.maximum(_F32(1), jnp.maximum(jnp.abs(mn), jnp.abs(mx))) * _F32(ensure_min))
    hi = jnp.maximum(_F32(0), jnp.maximum(mx, _exact(lo + eps)))
    if mode == "MIN_COMBINED":
        half = 0.0 if info.min == 0 else (float(info.max) - float(info.min) + 1) / 2.0
        factor = _exact(_exact(_F32(float(info.max) - float(info.min))) / _exact(hi - lo))
        clamped = jnp.maximum(jnp.minimum(x, hi), lo)
        q = _round_away(_exact(_exact(_exact(clamped - lo) * factor) - _F32(half)))
    elif mode == "MIN_FIRST":
        q = _min_first_quantize(x, lo, hi, info)
    else:
        qmin = _exact(_F32(info.min + (1 if narrow_range else 0)))
        qmax = _exact(_F32(info.max))
        big = _F32(np.finfo(np.float32).max)
        from_min = jnp.where(_exact(qmin * lo) > 0, _exact(qmin / lo), big)
        from_max = jnp.where(_exact(qmax * hi) > 0, _exact(qmax / hi), big)
        factor = _exact(jnp.minimum(from_min, from_max))
        lo, hi = _exact(qmin / factor), _exact(qmax / factor)
        clamped = _exact(jnp.maximum(jnp.minimum(x, hi), lo) * factor)
        q = jnp.round(clamped) if half_to_even else _round_away(clamped)
    if info.bits == 32:  # C's float -> int32 cast of 2**31: x86 gives INT_MIN, as TF shows
        q = jnp.where(q >= _F32(2.0**31), _F32(info.min), q)
    q = q.astype(holder)
    out_shape = () if axis < 0 else (x.shape[axis],)
    return q, jnp.reshape(lo, out_shape), jnp.reshape(hi, out_shape)


_QUANTIZE = Op("QuantizeV2", _quantize_fn, differentiable=False, multiple_outputs=True)


def _reshape_scalar(t):
    from .array_ops import reshape

    return t if t.shape.rank == 0 else reshape(t, [])


def _normalize_axis(axis, rank):
    if axis is None:
        return -1
    if axis < 0:
        return axis % rank
    return axis


def quantize(
    input,  # noqa: A002
    min_range,
    max_range,
    T,
    mode="MIN_COMBINED",
    round_mode="HALF_AWAY_FROM_ZERO",
    name=None,
    narrow_range=False,
    axis=None,
    ensure_minimum_range=0.01,
):
    """Quantizes float32 ``input`` over ``[min_range, max_range]`` to a quantized type
    (``tf.quantization.quantize``).

    Args:
        input: a float32 tensor.
        min_range: float32 scalar (a vector along ``axis`` when given).
        max_range: float32 scalar, likewise.
        T: ``qint8``, ``quint8``, ``qint16``, ``quint16`` or ``qint32``.
        mode: ``"MIN_COMBINED"``, ``"MIN_FIRST"`` or ``"SCALED"``.
        round_mode: ``"HALF_AWAY_FROM_ZERO"``, or ``"HALF_TO_EVEN"`` (SCALED only).
        name: ignored (TF's op name).
        narrow_range: SCALED only: leave out the type's lowest value.
        axis: quantize per slice along this axis.
        ensure_minimum_range: the range is widened to at least this fraction of
            ``max(1, |min_range|, |max_range|)``.

    Returns:
        ``(output, output_min, output_max)``, a namedtuple as TF's; ``output_min``/``_max``
        are the range actually used.

    .. warning:: tapejax tensors cannot have a quantized dtype (JAX has none): ``output`` holds
       the values in the integer type TF's ``.numpy()`` shows (``quint8`` -> ``uint8``,
       ``qint8`` -> ``int8``, ...), and ``dequantize``/``quantized_concat`` take them so.
       Not differentiable: a tape gives None (TF raises LookupError).

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.quantize([0.0, 1.0, -1.0], -1.0, 3.0, tf.quint8).output.numpy()
        array([ 64, 128,   0], dtype=uint8)
    """
    op = "QuantizeV2"
    _check_mode(mode)
    if round_mode not in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'round_mode' of \"{round_mode}\" is not in the list of allowed "
            'values: "HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"',
        )
    qtype = dtypes.as_dtype(T)
    if qtype.name not in _HOLDERS:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {_attr_name(qtype)} is "
            f"not in the list of allowed values: {_QUANTIZED_LIST}",
        )
    x = to_tensor(input) if not isinstance(input, (int, float, list)) else None
    if x is not None and x._v.dtype != np.float32:
        raise _error(
            op,
            "cannot compute QuantizeV2 as input #0(zero-based) was expected to be a float "
            f"tensor but is a {tf_type_name(x._v.dtype)} tensor",
        )
    x = convert_to_tensor(input, dtype=dtypes.float32)
    mn = convert_to_tensor(min_range, dtype=dtypes.float32)
    mx = convert_to_tensor(max_range, dtype=dtypes.float32)
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise _error(
            op,
            f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '{mode}'.",
        )
    axis = _normalize_axis(axis, x.shape.rank)
    if mode == "MIN_FIRST" and axis >= 0 and x.shape[axis] != 1:  # TF: one slice is no axis
        raise UnimplementedError(
            None, None, f"MIN_FIRST mode is not implemented for Quantize with axis != -1. [Op:{op}]"
        )
    for what, t in (("min_range", mn), ("max_range", mx)):
        n = t.shape.num_elements()
        if axis < 0 and n != 1:
            raise _error(
                op,
                f"If axis is not specified, {what} must contain a single float element, but it "
                f"contains {n} elements",
            )
        if axis >= 0 and (t.shape.rank != 1 or n != x.shape[axis]):
            raise _error(
                op,
                f"If axis is specified, {what} must be a 1-D tensor whose size matches the axis "
                "dimension of the input and output tensors, but "
                f"{what} is a {t.shape.rank}-D tensor of size {n} and input's axis dimension is "
                f"of size {x.shape[axis]}",
            )
    if axis >= 0 and x.shape[axis] == 1:  # TF: one slice is quantized as a whole
        axis = -1
    mn, mx = (t if axis >= 0 else _reshape_scalar(t) for t in (mn, mx))
    lo, hi = _host(mn), _host(mx)
    if lo is not None and hi is not None and np.any(lo > hi):
        raise _error(op, "input_max_range must be larger than input_min_range.")
    static = (
        ("holder", _HOLDERS[qtype.name]),
        ("mode", mode),
        ("half_to_even", round_mode == "HALF_TO_EVEN"),
        ("narrow_range", bool(narrow_range)),
        ("axis", axis),
        ("ensure_min", float(ensure_minimum_range)),
    )
    return QuantizeV2(*apply(_QUANTIZE, (x, mn, mx), static))


def _dequantize_fn(q, mn, mx, *, mode, narrow_range, axis, out):
    info = np.iinfo(q.dtype)
    mn = _to_axis_shape(mn, q.ndim, axis)
    mx = _to_axis_shape(mx, q.ndim, axis)
    qf = q.astype(np.float32)
    if mode == "MIN_COMBINED":
        half = 0.0 if info.min == 0 else (float(info.max) - float(info.min) + 1) / 2.0
        factor = _exact(_exact(mx - mn) / _opaque(float(info.max) - float(info.min), mn))
        r = _exact(_exact(_exact(qf + _F32(half)) * factor) + mn)
    elif mode == "MIN_FIRST":
        r = _dequantize_min_first(q, mn, mx, info)
    else:
        qmin = _opaque(info.min + (1 if narrow_range else 0), mn)
        qmax = _opaque(info.max, mn)
        if info.min == 0:
            factor = _exact(mx / qmax)
        else:
            factor = jnp.maximum(_exact(mn / qmin), _exact(mx / qmax))
        r = _exact(qf * factor)
    return r.astype(out)


_DEQUANTIZE = Op("Dequantize", _dequantize_fn, differentiable=False)


def dequantize(
    input,  # noqa: A002
    min_range,
    max_range,
    mode="MIN_COMBINED",
    name=None,
    axis=None,
    narrow_range=False,
    dtype=dtypes.float32,
):
    """Maps quantized values back to floats over ``[min_range, max_range]``
    (``tf.quantization.dequantize``).

    Args:
        input: quantized values, held as tapejax holds them: ``int8`` for ``qint8``,
            ``uint8`` for ``quint8``, ``int16``/``uint16`` for ``qint16``/``quint16``,
            ``int32`` for ``qint32`` (what ``quantize`` returns).
        min_range: float32 scalar (a vector along ``axis`` when given).
        max_range: float32 scalar, likewise.
        mode: ``"MIN_COMBINED"``, ``"MIN_FIRST"`` or ``"SCALED"``.
        name: ignored (TF's op name).
        axis: dequantize per slice along this axis.
        narrow_range: SCALED only, as in ``quantize``.
        dtype: ``float32`` or ``bfloat16``.

    Returns:
        A tensor of ``dtype`` and ``input``'s shape.

    .. warning:: TF takes only quantized dtypes; tapejax, which has no quantized tensors,
       takes their holder integer types in their place. Not differentiable: a tape gives
       None (TF raises LookupError).

    Example:
        >>> import tapejax as tf
        >>> q = tf.quantization.quantize([0.0, 1.0, -1.0], -1.0, 3.0, tf.quint8)
        >>> tf.quantization.dequantize(q.output, q.output_min, q.output_max).numpy()
        array([ 0.00392163,  1.0078433 , -1.        ], dtype=float32)
    """
    _check_mode(mode)
    q = to_tensor(input)
    if q._v.dtype not in [np.dtype(h) for h in _HOLDERS.values()]:
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {tf_type_name(q._v.dtype)} is not in the list of allowed "
            f"values: {_QUANTIZED_LIST} (tapejax holds them as int8, uint8, int32, int16, "
            "uint16)",
        )
    out = dtypes.as_dtype(dtype)
    if out.name not in ("float32", "bfloat16"):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'dtype' of {tf_type_name(out._np)} is not in the list of allowed "
            "values: bfloat16, float",
        )
    mn = convert_to_tensor(min_range, dtype=dtypes.float32)
    mx = convert_to_tensor(max_range, dtype=dtypes.float32)
    axis = _normalize_axis(axis, q.shape.rank)
    for what, t in (("input_min_tensor", mn), ("input_max_tensor", mx)):
        n = t.shape.num_elements()
        if axis >= 0 and n != q.shape[axis]:
            raise _error(
                "Dequantize",
                f"{what} must have as many elements as input on the dequantization axis "
                f"({axis}), got {n}, expected {q.shape[axis]}",
            )
        if axis < 0 and n != 1:
            raise _error("Dequantize", f"{what} must be a scalar, got shape {t.shape}")
    mn, mx = (t if axis >= 0 else _reshape_scalar(t) for t in (mn, mx))
    static = (
        ("mode", mode),
        ("narrow_range", bool(narrow_range)),
        ("axis", axis),
        ("out", out._np),
    )
    return apply(_DEQUANTIZE, (q, mn, mx), static)


def _dequantize_min_first(q, lo, hi, info):
    """TF's QuantizedToFloatStruct / DEQUANTIZE_WITH_EIGEN (quantization_utils.h), float32."""
    levels = _opaque(float(1 << info.bits) - 1.0, lo)
    scale = _exact(_exact(hi - lo) / levels)
    lo_rounded = jnp.where(hi == lo, lo, _exact(_round_away(_exact(lo / scale)) * scale))
    offset = _exact(q.astype(np.float32) - _F32(info.min))
    return _exact(_exact(offset * scale) + lo_rounded)


def _requantize(q, in_lo, in_hi, out_lo, out_hi):
    """TF's RequantizeCopier (quantized_concat_op.cc): DEQUANTIZE_WITH_EIGEN then
    QUANTIZE_WITH_EIGEN, in float32."""
    info = np.iinfo(q.dtype)
    values = _dequantize_min_first(q, in_lo, in_hi, info)
    return _min_first_quantize(values, out_lo, out_hi, info).astype(q.dtype)


def _concat_fn(mins, maxes, *values, axis):
    info = np.iinfo(values[0].dtype)
    lo = jnp.minimum(_F32(0), jnp.min(mins))
    hi = jnp.max(maxes)
    if info.min < 0:
        largest = jnp.maximum(jnp.abs(lo), jnp.abs(hi))
        lo, hi = -largest, largest
    parts = []
    for i, v in enumerate(values):
        same = (mins[i] == lo) & (maxes[i] == hi)
        parts.append(jnp.where(same, v, _requantize(v, mins[i], maxes[i], lo, hi)))
    return jnp.concatenate(parts, axis=axis), lo, hi


_CONCAT = Op("QuantizedConcat", _concat_fn, differentiable=False, multiple_outputs=True)


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """Concatenates quantized tensors, requantizing each into one common range
    (``tf.quantization.quantized_concat``).

    Args:
        concat_dim: the axis, a Python int or scalar int32 known now.
        values: ``quint8`` (held as ``uint8``) or ``qint32`` (held as ``int32``) tensors, as
            ``quantize`` returns them.
        input_mins: one float32 scalar per value, its range's lower end.
        input_maxes: one float32 scalar per value, its range's upper end.
        name: ignored (TF's op name).

    Returns:
        ``(output, output_min, output_max)``, a namedtuple as TF's: the range is the union
        of the inputs' with 0 included (symmetric about 0 for ``qint32``).

    .. warning:: The values' holder types stand for TF's quantized types (see ``quantize``).
       Not differentiable: a tape gives None.

    Example:
        >>> import tapejax as tf
        >>> a = tf.constant([0, 255], tf.uint8)
        >>> tf.quantization.quantized_concat(0, [a, a], [0.0, 0.0], [1.0, 2.0]).output.numpy()
        array([  0, 128,   0, 255], dtype=uint8)
    """
    op = "QuantizedConcat"
    vs = [to_tensor(v) for v in values]
    if len(vs) < 2:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'N' of {len(vs)} must be at least minimum 2"
        )
    dt = vs[0]._v.dtype
    if dt not in (np.dtype(np.uint8), np.dtype(np.int32)):
        held = {np.dtype(h): q for q, h in _HOLDERS.items()}.get(dt)
        attr = f"DT_{(held or dtypes.as_dtype(dt).name).upper()}"
        attr = {"DT_FLOAT32": "DT_FLOAT", "DT_FLOAT64": "DT_DOUBLE"}.get(attr, attr)
        raise NotFoundError(
            None,
            None,
            "Could not find device for node: {{node QuantizedConcat}} = "
            f"QuantizedConcat[N={len(vs)}, T={attr}]\nAll kernels registered for op "
            "QuantizedConcat:\n  device='CPU'; T in [DT_QINT32]\n  device='CPU'; T in "
            "[DT_QUINT8]\n [Op:QuantizedConcat]",
        )
    mins = [convert_to_tensor(m, dtype=dtypes.float32) for m in input_mins]
    maxes = [convert_to_tensor(m, dtype=dtypes.float32) for m in input_maxes]
    if len(mins) != len(vs) or len(maxes) != len(vs):
        raise ValueError(
            f"List argument 'input_mins' to 'quantized_concat' Op with length {len(mins)} "
            f"must match length {len(vs)} of argument 'values'."
        )
    axis = int(np.asarray(_host(concat_dim)))
    rank = vs[0].shape.rank
    if not -rank <= axis < rank:
        raise _error(
            op, f"Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}"
        )
    from .join_split_ops import stack

    return QuantizedConcat(
        *apply(_CONCAT, (stack(mins), stack(maxes), *vs), (("axis", axis % rank),))
    )


for _public, _impl in (
    (quantize_and_dequantize, _QDQ_V2),
    (quantize_and_dequantize_v2, _QDQ_V4),
    (quantize, _QUANTIZE),
    (dequantize, _DEQUANTIZE),
    (quantized_concat, _CONCAT),
):
    _public.op = _impl
del _public, _impl
