"""``tf.quantization``'s fake quantization: ``fake_quant_with_min_max_{args,vars,
vars_per_channel}`` and their ``*_gradient`` ops, with TF's nudged ranges, its kernels'
float32 arithmetic (the Args kernel multiplies by the inverse scale, the Vars kernels
divide by the scale), errors and gradients.

TF's gradient is not JAX's: straight-through inside the nudged range and zero outside,
the outside part going to ``min``/``max``; each op is a ``jax.custom_jvp`` holding that
formula (linear in the tangents, so forward and reverse mode both follow it). The
``*_gradient`` ops are not differentiable, as in TF. Must never read a traced value.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ._array_common import _dims
from ._quant_float import F32 as _F32
from ._quant_float import c_float as _fmt
from ._quant_float import exact as _exact
from ._quant_float import op_error as _error
from ._quant_float import opaque as _opaque
from ._quant_float import round_away as _round_away

FakeQuantWithMinMaxVarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)
FakeQuantWithMinMaxVarsPerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"],
)


# -- fake quantization ---------------------------------------------------------------------


def _nudge(mn, mx, num_bits, narrow_range):
    """TF's ``Nudge`` (fake_quant_ops_functor.h) in float32: the range moved so that 0.0 is
    exactly representable. Returns ``(nudged_min, nudged_max, scale, inv_scale)``."""
    qmin = _F32(1.0 if narrow_range else 0.0)
    qmax = _F32((1 << num_bits) - 1)
    steps = _opaque(qmax - qmin, mn)
    scale = _exact((mx - mn) / steps)
    inv_scale = _exact(steps / (mx - mn))
    zero_from_min = _exact(qmin - _exact(mn / scale))
    zero = jnp.where(
        zero_from_min < qmin,
        qmin,
        jnp.where(zero_from_min > qmax, qmax, _round_away(zero_from_min)),
    )
    return _exact((qmin - zero) * scale), _exact((qmax - zero) * scale), scale, inv_scale


def _nudge_host(mn, mx, num_bits, narrow_range):
    """``_nudge`` for Python-number ranges, in NumPy float32 (C's float arithmetic)."""
    qmin = _F32(1.0 if narrow_range else 0.0)
    qmax = _F32((1 << num_bits) - 1)
    mn, mx = _F32(mn), _F32(mx)
    scale = (mx - mn) / (qmax - qmin)
    inv_scale = (qmax - qmin) / (mx - mn)
    zero_from_min = qmin - mn / scale
    if zero_from_min < qmin:
        zero = qmin
    elif zero_from_min > qmax:
        zero = qmax
    else:
        zero = _F32(np.trunc(zero_from_min) + (zero_from_min % 1 >= 0.5))
    return (qmin - zero) * scale, (qmax - zero) * scale, scale, inv_scale


def _fake_quant(x, nudged, divide):
    """TF's FakeQuantWithMinMax*Functor on a nudged range. The Args kernel multiplies by
    the inverse scale, the Vars kernels (``divide``) divide by the scale: they differ at
    rounding ties."""
    nmin, nmax, scale, inv_scale = nudged
    quant_zero = jnp.floor(_exact(_exact(-nmin * inv_scale) + _F32(0.5)))
    clamped = jnp.maximum(jnp.minimum(x, nmax), nmin)
    shifted = _exact(clamped - nmin)
    shifted = _exact(shifted / scale if divide else shifted * inv_scale)
    return jnp.floor(_exact(_exact(shifted - quant_zero) + _F32(0.5))) * scale


def _masks(x, nudged):
    nmin, nmax = nudged[0], nudged[1]
    return (x >= nmin) & (x <= nmax), x < nmin, x > nmax


def _make_fake_quant_vars():
    @jax.custom_jvp
    def fq(x, mn, mx, num_bits, narrow_range, divide):
        return _fake_quant(x, _nudge(mn, mx, num_bits, narrow_range), divide)

    fq = jax.custom_jvp(fq.fun, nondiff_argnums=(3, 4, 5))

    @fq.defjvp
    def _jvp(num_bits, narrow_range, divide, primals, tangents):
        # TF's FakeQuantWithMinMaxVarsGradient: the input's gradient passes inside the
        # nudged range; below it goes to min, above it to max.
        x, mn, mx = primals
        tx, tmn, tmx = tangents
        nudged = _nudge(mn, mx, num_bits, narrow_range)
        inside, below, above = _masks(x, nudged)
        out = _fake_quant(x, nudged, divide)
        zero = jnp.zeros_like(out)
        t = jnp.where(inside, tx, zero) + jnp.where(below, tmn, zero) + jnp.where(above, tmx, zero)
        return out, t

    return fq


def _make_fake_quant_args():
    @jax.custom_jvp
    def fq(x, nudged):
        return _fake_quant(x, nudged, False)

    fq = jax.custom_jvp(fq.fun, nondiff_argnums=(1,))

    @fq.defjvp
    def _jvp(nudged, primals, tangents):
        # TF's FakeQuantWithMinMaxArgsGradient: straight-through inside the nudged range.
        (x,), (tx,) = primals, tangents
        out = _fake_quant(x, nudged, False)
        return out, jnp.where(_masks(x, nudged)[0], tx, jnp.zeros_like(out))

    return fq


_fake_quant_vars = _make_fake_quant_vars()
_fake_quant_args = _make_fake_quant_args()


def _args_fn(x, *, min, max, num_bits, narrow_range):  # noqa: A002
    return _fake_quant_args(x, _nudge_host(min, max, num_bits, narrow_range))


def _vars_fn(x, mn, mx, *, num_bits, narrow_range):
    return _fake_quant_vars(x, mn, mx, num_bits, narrow_range, True)


def _per_channel_fn(x, mn, mx, *, num_bits, narrow_range):
    return _fake_quant_vars(x, mn, mx, num_bits, narrow_range, False)


def _args_grad_fn(g, x, *, min, max, num_bits, narrow_range):  # noqa: A002
    inside, _, _ = _masks(x, _nudge_host(min, max, num_bits, narrow_range))
    return jnp.where(inside, g, jnp.zeros_like(g))


def _vars_grad_fn(g, x, mn, mx, *, num_bits, narrow_range, per_channel):
    inside, below, above = _masks(x, _nudge(mn, mx, num_bits, narrow_range))
    zero = jnp.zeros_like(g)
    axes = tuple(range(x.ndim - 1)) if per_channel else None
    return (
        jnp.where(inside, g, zero),
        jnp.sum(jnp.where(below, g, zero), axis=axes),
        jnp.sum(jnp.where(above, g, zero), axis=axes),
    )


_ARGS = Op("FakeQuantWithMinMaxArgs", _args_fn)
_VARS = Op("FakeQuantWithMinMaxVars", _vars_fn)
_PER_CHANNEL = Op("FakeQuantWithMinMaxVarsPerChannel", _per_channel_fn)
_ARGS_GRAD = Op("FakeQuantWithMinMaxArgsGradient", _args_grad_fn, differentiable=False)
_VARS_GRAD = Op(
    "FakeQuantWithMinMaxVarsGradient", _vars_grad_fn, differentiable=False, multiple_outputs=True
)
_PER_CHANNEL_GRAD = Op(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    _vars_grad_fn,
    differentiable=False,
    multiple_outputs=True,
)


def _float32(value, op_name):
    """``value`` as float32, with TF's conversion (a Tensor of another dtype: ValueError)."""
    return convert_to_tensor(value, dtype=dtypes.float32)


def _check_bits(num_bits, op_name):
    if not 2 <= num_bits <= 16:
        raise _error(op_name, "num_bits must be between 2 and 16, inclusive")


def _check_args(min, max, num_bits, op_name):  # noqa: A002
    if min >= max:
        raise _error(op_name, f"min has to be smaller than max, was: {_fmt(min)} >= {_fmt(max)}")
    _check_bits(num_bits, op_name)


def _scalar_range(mn, mx, op_name):
    for name, t in (("min", mn), ("max", mx)):
        if t.shape.rank != 0:
            raise _error(op_name, f"`{name}` must be rank 0 but is rank {t.shape.rank}")


def _channel_range(x, mn, mx, op_name):
    depth = x.shape[-1] if x.shape.rank else None
    for name, t in (("min", mn), ("max", mx)):
        if t.shape.rank != 1:
            raise _error(op_name, f"`{name}` must be rank 1 but is rank {t.shape.rank}")
        if t.shape[0] != depth:
            raise _error(op_name, f"{name} has incorrect size, expected {depth} was {t.shape[0]}")


def fake_quant_with_min_max_args(
    inputs,
    min=-6,
    max=6,
    num_bits=8,
    narrow_range=False,
    name=None,  # noqa: A002
):
    """Fake-quantizes float32 ``inputs`` to ``num_bits`` over ``[min, max]`` nudged so 0 is
    exact (``tf.quantization.fake_quant_with_min_max_args``).

    Args:
        inputs: a float32 tensor.
        min: the range's lower end, a Python float.
        max: the range's upper end, a Python float (must exceed ``min``).
        num_bits: 2 to 16.
        narrow_range: quantize to ``[1, 2**num_bits - 1]`` instead of ``[0, 2**num_bits - 1]``.
        name: ignored (TF's op name).

    Returns:
        A float32 tensor of ``inputs``' shape: each value clamped to the nudged range and
        rounded to its grid. The gradient is TF's straight-through one: the upstream
        gradient inside the nudged range, 0 outside.

    Raises:
        InvalidArgumentError: ``min >= max`` or ``num_bits`` outside ``[2, 16]``, with TF's texts.

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.fake_quant_with_min_max_args([-7.0, 0.3, 1.0], -1.0, 3.0).numpy()
        array([-1.0039216 ,  0.29803923,  1.0039216 ], dtype=float32)
    """
    op = "FakeQuantWithMinMaxArgs"
    x = _float32(inputs, op)
    _check_args(min, max, num_bits, op)
    static = (("min", float(min)), ("max", float(max)), ("num_bits", int(num_bits)))
    return apply(_ARGS, (x,), (*static, ("narrow_range", bool(narrow_range))))


def fake_quant_with_min_max_args_gradient(
    gradients,
    inputs,
    min=-6,  # noqa: A002
    max=6,  # noqa: A002
    num_bits=8,
    narrow_range=False,
    name=None,
):
    """The gradient of ``fake_quant_with_min_max_args`` (``tf.quantization.fake_quant_with_min_max_args_gradient``).

    Args:
        gradients: float32 upstream gradients, of ``inputs``' shape.
        inputs: the float32 values ``fake_quant_with_min_max_args`` was given.
        min: the range's lower end, a Python float.
        max: the range's upper end, a Python float (must exceed ``min``).
        num_bits: 2 to 16.
        narrow_range: as in ``fake_quant_with_min_max_args``.
        name: ignored (TF's op name).

    Returns:
        ``gradients`` where ``inputs`` is inside the nudged range, 0 elsewhere. Not
        differentiable: a tape gives None through it, as in TF.
    """
    op = "FakeQuantWithMinMaxArgsGradient"
    g, x = _float32(gradients, op), _float32(inputs, op)
    _check_args(min, max, num_bits, op)
    _same_shape(g, x, op)
    static = (("min", float(min)), ("max", float(max)), ("num_bits", int(num_bits)))
    return apply(_ARGS_GRAD, (g, x), (*static, ("narrow_range", bool(narrow_range))))


def _same_shape(g, x, op):
    if g.shape.as_list() == x.shape.as_list():
        return
    if op == "FakeQuantWithMinMaxArgsGradient":
        raise _error(
            op,
            f"Inputs to operation {op} of type {op} must have the same size and shape.  "
            f"Input 0: [{_dims(g.shape)}] != input 1: [{_dims(x.shape)}]",
        )
    raise _error(op, "gradient and input must be the same size")


def fake_quant_with_min_max_vars(
    inputs,
    min,
    max,
    num_bits=8,
    narrow_range=False,
    name=None,  # noqa: A002
):
    """Fake-quantizes float32 ``inputs`` over a range held in scalar tensors
    (``tf.quantization.fake_quant_with_min_max_vars``).

    Args:
        inputs: a float32 tensor.
        min: a float32 scalar (a Variable in quantization-aware training).
        max: a float32 scalar.
        num_bits: 2 to 16.
        narrow_range: quantize to ``[1, 2**num_bits - 1]``.
        name: ignored (TF's op name).

    Returns:
        A float32 tensor of ``inputs``' shape. Gradients are TF's: the input's is
        straight-through inside the nudged range and 0 outside; ``min``'s is the sum of the
        upstream gradient below the range, ``max``'s the sum above it. As in TF, ``min >
        max`` is not checked (the result is what TF's kernel gives).

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.fake_quant_with_min_max_vars([0.3, 9.0], -1.0, 3.0).numpy()
        array([0.29803923, 2.9960785 ], dtype=float32)
    """
    op = "FakeQuantWithMinMaxVars"
    x, mn, mx = _float32(inputs, op), _float32(min, op), _float32(max, op)
    _check_bits(num_bits, op)
    _scalar_range(mn, mx, op)
    static = (("num_bits", int(num_bits)), ("narrow_range", bool(narrow_range)))
    return apply(_VARS, (x, mn, mx), static)


def fake_quant_with_min_max_vars_gradient(
    gradients,
    inputs,
    min,
    max,
    num_bits=8,
    narrow_range=False,
    name=None,  # noqa: A002
):
    """The gradients of ``fake_quant_with_min_max_vars`` (``tf.quantization.fake_quant_with_min_max_vars_gradient``).

    Args:
        gradients: float32 upstream gradients, of ``inputs``' shape.
        inputs: the float32 values that were fake-quantized.
        min: a float32 scalar.
        max: a float32 scalar.
        num_bits: 2 to 16.
        narrow_range: as in ``fake_quant_with_min_max_vars``.
        name: ignored (TF's op name).

    Returns:
        ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``, a namedtuple as TF's.
        Not differentiable: a tape gives None through it, as in TF.
    """
    op = "FakeQuantWithMinMaxVarsGradient"
    g, x = _float32(gradients, op), _float32(inputs, op)
    mn, mx = _float32(min, op), _float32(max, op)
    _check_bits(num_bits, op)
    _same_shape(g, x, op)
    _scalar_range(mn, mx, op)
    static = (
        ("num_bits", int(num_bits)),
        ("narrow_range", bool(narrow_range)),
        ("per_channel", False),
    )
    return FakeQuantWithMinMaxVarsGradient(*apply(_VARS_GRAD, (g, x, mn, mx), static))


def fake_quant_with_min_max_vars_per_channel(
    inputs,
    min,
    max,
    num_bits=8,
    narrow_range=False,
    name=None,  # noqa: A002
):
    """Fake-quantizes float32 ``inputs`` with one range per last-dimension channel
    (``tf.quantization.fake_quant_with_min_max_vars_per_channel``).

    Args:
        inputs: a float32 tensor of shape ``[..., d]``.
        min: float32, shape ``[d]``.
        max: float32, shape ``[d]``.
        num_bits: 2 to 16.
        narrow_range: quantize to ``[1, 2**num_bits - 1]``.
        name: ignored (TF's op name).

    Returns:
        A float32 tensor of ``inputs``' shape. Gradients as ``fake_quant_with_min_max_vars``'s,
        channel by channel (``min``'s and ``max``'s summed over all but the last axis).

    Example:
        >>> import tapejax as tf
        >>> tf.quantization.fake_quant_with_min_max_vars_per_channel(
        ...     [[0.3, 0.3]], [-1.0, 0.0], [3.0, 1.0]).numpy()
        array([[0.29803923, 0.3019608 ]], dtype=float32)
    """
    op = "FakeQuantWithMinMaxVarsPerChannel"
    x, mn, mx = _float32(inputs, op), _float32(min, op), _float32(max, op)
    _check_bits(num_bits, op)
    _channel_range(x, mn, mx, op)
    static = (("num_bits", int(num_bits)), ("narrow_range", bool(narrow_range)))
    return apply(_PER_CHANNEL, (x, mn, mx), static)


def fake_quant_with_min_max_vars_per_channel_gradient(
    gradients,
    inputs,
    min,
    max,
    num_bits=8,
    narrow_range=False,
    name=None,  # noqa: A002
):
    """The gradients of ``fake_quant_with_min_max_vars_per_channel``
    (``tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient``).

    Args:
        gradients: float32 upstream gradients, of ``inputs``' shape ``[..., d]``.
        inputs: the float32 values that were fake-quantized.
        min: float32, shape ``[d]``.
        max: float32, shape ``[d]``.
        num_bits: 2 to 16.
        narrow_range: as in ``fake_quant_with_min_max_vars_per_channel``.
        name: ignored (TF's op name).

    Returns:
        ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``, a namedtuple as TF's;
        the last two of shape ``[d]``. Not differentiable: a tape gives None through it.
    """
    op = "FakeQuantWithMinMaxVarsPerChannelGradient"
    g, x = _float32(gradients, op), _float32(inputs, op)
    mn, mx = _float32(min, op), _float32(max, op)
    _check_bits(num_bits, op)
    _same_shape(g, x, op)
    _channel_range(x, mn, mx, op)
    static = (
        ("num_bits", int(num_bits)),
        ("narrow_range", bool(narrow_range)),
        ("per_channel", True),
    )
    return FakeQuantWithMinMaxVarsPerChannelGradient(
        *apply(_PER_CHANNEL_GRAD, (g, x, mn, mx), static)
    )


for _public, _impl in (
    (fake_quant_with_min_max_args, _ARGS),
    (fake_quant_with_min_max_args_gradient, _ARGS_GRAD),
    (fake_quant_with_min_max_vars, _VARS),
    (fake_quant_with_min_max_vars_gradient, _VARS_GRAD),
    (fake_quant_with_min_max_vars_per_channel, _PER_CHANNEL),
    (fake_quant_with_min_max_vars_per_channel_gradient, _PER_CHANNEL_GRAD),
):
    _public.op = _impl
del _public, _impl
