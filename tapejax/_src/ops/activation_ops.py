"""Activation functions of ``tf.nn``: ``relu`` and its variants (``relu6``,
``leaky_relu``, ``crelu``), ``elu``, ``selu``, ``gelu``, ``silu``/``swish``, ``softplus``,
``softsign``, ``softmax`` and ``log_softmax``; ``sigmoid`` and ``tanh`` are ``tf.math``'s,
re-exported here for ``tf.nn``.

Derivatives are JAX's, except where TF's differ at a kink (``leaky_relu`` at 0 has
TF's ``alpha``) or at a non-finite or rounded input: ``elu``, ``selu`` and ``softsign``
are ``jax.custom_jvp``s carrying TF's kernels' formulas (``EluGrad``, ``SeluGrad``,
``SoftsignGrad``). Integer inputs keep TF's dtypes (``relu6``) or TF's conversions
(``leaky_relu``), never JAX's silent float promotion.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, require, to_tensor
from .math_ops import (  # noqa: F401 - tf.nn's sigmoid and tanh are tf.math's
    _unary,
    cast,
    sigmoid,
    tanh,
)

TF_ALLOWED.update({"LeakyRelu": "half, bfloat16, float, double"})


def _activation(tf_name: str, fn, kinds: str):
    """A unary op whose argument is TF's ``features`` (``tf.nn.relu(features=x)`` works)."""
    unary = _unary(tf_name, fn, kinds)

    def public(features, name=None):
        return unary(features)

    public.__name__ = unary.__name__
    public.__doc__ = f"``tf.nn.{tf_name.lower()}``: elementwise ``{tf_name}``, differentiable."
    public.op = unary.op
    return public


relu = _activation("Relu", jax.nn.relu, "fiu")
# jax.nn.relu6 returns floats for ints; TF keeps the dtype. bfloat16's NumPy kind is "V",
# not "f": it must take jax.nn.relu6 too, whose derivative is TF's Relu6Grad (0 at 0 and 6;
# jnp.clip's is 0.5 there).
relu6 = _activation(
    "Relu6",
    lambda x: jax.nn.relu6(x) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.clip(x, 0, 6),
    "fiu",
)


def _exponential_unit(scale: float, scale_alpha: float):
    """TF's ``Elu`` (scale 1, alpha 1) or ``Selu`` kernel, with its gradient kernel.

    TF's forward is ``exp(x) - 1`` below 0 (not ``expm1``: ``selu(-1e-30)`` is 0), and its
    gradient tests the *activation* ``y < 0``, so it is ``scale`` where ``y`` rounds to 0
    and at NaN; JAX's derivative tests ``x`` and is NaN at NaN.
    """

    def forward(x):
        negative = jnp.exp(jnp.where(x < 0, x, 0)) - 1
        return jnp.where(x < 0, scale_alpha * negative, scale * x)

    fn = jax.custom_jvp(forward)

    @fn.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = forward(x)
        # EluGrad / SeluGrad; differentiated again, the select is TF's EluGradGrad. The
        # factor is selected before the product, so an inf or NaN y in the branch not
        # taken never meets a zero cotangent (0 * inf is NaN).
        return y, t * jnp.where(y < 0, y + scale_alpha, scale)

    return fn


# TF's Selu kernel's constants, as it writes them (scale and scale * alpha).
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123

elu = _activation("Elu", _exponential_unit(1.0, 1.0), "f")
selu = _activation("Selu", _exponential_unit(_SELU_SCALE, _SELU_SCALE_ALPHA), "f")
softplus = _activation("Softplus", jax.nn.softplus, "f")


@jax.custom_jvp
def _softsign(x):
    return x / (jnp.abs(x) + 1)


@_softsign.defjvp
def _softsign_jvp(primals, tangents):
    # TF's SoftsignGrad, g / (1 + |x|)**2: 0 at +-inf (JAX's quotient rule: NaN) and no
    # cancellation at large |x|.
    (x,), (t,) = primals, tangents
    return _softsign(x), t / jnp.square(jnp.abs(x) + 1)


softsign = _activation("Softsign", _softsign, "f")
# ``tf.nn.sigmoid`` and ``tf.nn.tanh`` are ``tf.math``'s (complex included), imported above.

_softmax_op = Op("Softmax", lambda x, *, axis: jax.nn.softmax(x, axis=axis))
_log_softmax_op = Op("LogSoftmax", lambda x, *, axis: jax.nn.log_softmax(x, axis=axis))


def _axis(x: Tensor, axis, op_name: str) -> int:
    n = x._v.ndim
    if n == 0:
        raise InvalidArgumentError(
            None, None, f"logits must have >= 1 dimension, got [] [Op:{op_name}]"
        )
    axis = -1 if axis is None else int(axis)
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in "
            f"the input. Received: dim={axis}",
        )
    return axis % n


def softmax(logits, axis=None, name=None):
    """Softmax along ``axis`` (last by default), as ``tf.nn.softmax``."""
    x = to_tensor(logits)
    require(x, "f", "Softmax")
    return apply(_softmax_op, (x,), (("axis", _axis(x, axis, "Softmax")),))


def log_softmax(logits, axis=None, name=None):
    """Log-softmax along ``axis`` (last by default), as ``tf.nn.log_softmax``."""
    x = to_tensor(logits)
    require(x, "f", "LogSoftmax")
    return apply(_log_softmax_op, (x,), (("axis", _axis(x, axis, "LogSoftmax")),))


def _gelu_fn(x, *, approximate):
    if approximate:
        return jax.nn.gelu(x, approximate=True)
    # TF's exact form, through erfc: no cancellation for large negative x. TF's
    # cast(0.7071067811865476, dtype) makes a float32 constant first, so a float64 gelu
    # scales by float32(1 / sqrt(2)) (off by 4e-9 relative), as here.
    return 0.5 * x * jax.lax.erfc(-x * jnp.asarray(_GELU_SCALE, x.dtype))


_GELU_SCALE = np.float32(0.7071067811865476)


_gelu_op = Op("Gelu", _gelu_fn)


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit (``tf.nn.gelu``): ``x * P(X <= x)``, X ~ N(0, 1).

    ``approximate=False`` (TF's default) is the exact erf form; ``True`` the tanh
    approximation.

    Example:
        >>> import tapejax as tf
        >>> tf.nn.gelu([0.0, 1.0]).numpy().round(4)
        array([0.    , 0.8413], dtype=float32)
    """
    x = to_tensor(features)
    if x._v.dtype.kind != "f" and x._v.dtype != dtypes.bfloat16._np:
        raise ValueError(
            f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype!r}"
        )
    return apply(_gelu_op, (x,), (("approximate", bool(approximate)),))


@jax.custom_jvp
def _complex_swish(x, beta):
    return x * jax.nn.sigmoid(beta * x)


@_complex_swish.defjvp
def _complex_swish_jvp(primals, tangents):
    # TF's custom gradient multiplies by its derivatives without conjugating them, unlike
    # TF's usual complex convention that lowering applies; conjugating here cancels that.
    x, beta = primals
    tx, tb = tangents
    s = jax.nn.sigmoid(beta * x)
    dx = s * (1 + beta * x * (1 - s))
    db = jnp.square(x) * s * (1 - s)
    return x * s, tx * jnp.conj(dx) + tb * jnp.conj(db)


def _swish_fn(x, beta):
    if jnp.iscomplexobj(x):
        return _complex_swish(x, beta)
    return x * jax.nn.sigmoid(beta * x)


_swish_op = Op("Swish", _swish_fn)


def silu(features, beta=1.0):
    """``features * sigmoid(beta * features)`` (``tf.nn.silu``, alias ``swish``).

    ``beta`` is cast to ``features``' dtype and is differentiable, as in TF.

    .. warning::
        For a ``beta`` that is not a scalar, TF's gradient for ``beta`` is the scalar sum
        of its entries' gradients; tapejax's has ``beta``'s shape. For complex
        ``features`` the gradients are TF's, which do not conjugate the derivatives.
    """
    x = to_tensor(features)
    require(x, "fc", "Sigmoid")
    b = cast(to_tensor(beta), x.dtype)
    return apply(_swish_op, (x, b))


swish = silu


# TF's LeakyReluGrad takes alpha at 0 (features > 0 is the test); jax.nn.leaky_relu gives 1.
_leaky_relu_op = Op("LeakyRelu", lambda x, *, alpha: jnp.where(x > 0, x, x * alpha))


def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0`` else ``alpha * x`` (``tf.nn.leaky_relu``); integers become float32.

    Its gradient at 0 is ``alpha``, as TF's.
    """
    x = to_tensor(features)
    if x._v.dtype.kind in "iu":
        x = cast(x, dtypes.float32)
    if isinstance(alpha, Tensor) or getattr(alpha, "_is_variable", False):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    require(x, "f", "LeakyRelu")
    # TF's alpha is a float attr (32 bits): a float64 leaky_relu scales by float32(0.2).
    alpha = float(np.float32(np.asarray(alpha)))
    return apply(_leaky_relu_op, (x,), (("alpha", alpha),))


_crelu_op = Op("CRelu", lambda x, *, axis: jax.nn.relu(jnp.concatenate([x, -x], axis=axis)))


def crelu(features, axis=-1, name=None):
    """Concatenated ReLU (``tf.nn.crelu``): ``relu(concat([x, -x], axis))``."""
    x = to_tensor(features)
    require(x, "fci", "Neg")  # TF negates first: no unsigned kernel
    require(x, "fiu", "Relu")
    n = x._v.ndim
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None,
            None,
            f"ConcatOp : Expected concatenating dimensions in the range [{-n}, {n}), but got "
            f"{axis} [Op:ConcatV2]",
        )
    return apply(_crelu_op, (x,), (("axis", axis % n),))
