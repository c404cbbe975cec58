"""The trigonometric, hyperbolic and special functions of ``tf.math`` (``asin``, ``erf``,
``lgamma``, ``digamma``, ``bessel_i0``, ``igamma``, ``zeta``, ``betainc``, ...), with TF's
dtypes and gradients.

Made with ``math_ops``' elementwise factories, as every elementwise op. Derivatives are
JAX's, except where TF's registered gradient is not (``acosh`` for a complex input,
``bessel_i1`` at 0): there a ``jax.custom_jvp`` carries TF's formula. An input TF
registers no gradient for (``polygamma``'s order, ``zeta``'s ``x``, ``betainc``'s ``a``
and ``b``) is cut from tapes, so they return ``None`` for it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import TF_ALLOWED, binary_operands, dtype_mismatch, require, to_tensor
from .division_ops import _safe
from .math_ops import _F_NAMES, _FC_NAMES, FLOAT, _binary, _unary, subtract

# -- trigonometric, hyperbolic and special functions ----------------------------------------

TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"], _FC_NAMES
        ),
        **dict.fromkeys(["Erf", "Erfc", "Erfinv", "Ndtri", "Lgamma", "Digamma", "Rint"], _F_NAMES),
    }
)

asin = _unary("Asin", jnp.arcsin, FLOAT)
acos = _unary("Acos", jnp.arccos, FLOAT)
atan = _unary("Atan", jnp.arctan, FLOAT)
sinh = _unary("Sinh", jnp.sinh, FLOAT)
cosh = _unary("Cosh", jnp.cosh, FLOAT)
asinh = _unary("Asinh", jnp.arcsinh, FLOAT)


@jax.custom_jvp
def _acosh(x):
    return jnp.arccosh(x)


@_acosh.defjvp
def _acosh_jvp(primals, tangents):
    # TF's _AcoshGrad: 1 / sinh(acosh(x)); for a complex x left of the imaginary axis its
    # sign differs from JAX's 1 / (sqrt(x - 1) sqrt(x + 1)).
    (x,), (t,) = primals, tangents
    y = _acosh(x)
    return y, t / jnp.sinh(y)


acosh = _unary("Acosh", _acosh, FLOAT)
atanh = _unary("Atanh", jnp.arctanh, FLOAT)
erf = _unary("Erf", jax.scipy.special.erf, "f")
erfc = _unary("Erfc", jax.scipy.special.erfc, "f")
erfinv = _unary("Erfinv", jax.scipy.special.erfinv, "f")
ndtri = _unary("Ndtri", jax.scipy.special.ndtri, "f")
lgamma = _unary("Lgamma", jax.lax.lgamma, "f")
digamma = _unary("Digamma", jax.lax.digamma, "f")
# TF's Rint gradient is None (not zero): rounding half to even, like Round.
rint = _unary("Rint", jnp.round, "f", differentiable=False)

_erfcinv_op = Op(
    "Erfcinv", lambda x: -jax.scipy.special.ndtri(0.5 * x) * np.sqrt(0.5).astype(x.dtype)
)


def erfcinv(x, name=None):
    """The inverse of ``erfc`` (``tf.math.erfcinv``): ``-ndtri(x / 2) / sqrt(2)``, as TF."""
    x = to_tensor(x)
    require(x, "f", "Ndtri")
    return apply(_erfcinv_op, (x,))


_log_sigmoid_op = Op("LogSigmoid", lambda x: -jax.nn.softplus(-x))


def log_sigmoid(x, name=None):
    """``log(sigmoid(x))`` computed stably as ``-softplus(-x)`` (``tf.math.log_sigmoid``)."""
    x = to_tensor(x)
    require(x, "f", "Softplus")  # TF's composite fails in its Softplus
    return apply(_log_sigmoid_op, (x,))


# -- more special functions (``tf.math.bessel_*``, ``igamma``, ``zeta``, ...) ---------------

TF_ALLOWED.update(
    {
        **dict.fromkeys(
            ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "Igamma", "Igammac"], _F_NAMES
        ),
        **dict.fromkeys(["Polygamma", "Zeta", "Betainc"], "float, double"),
        "NextAfter": "double, float",
    }
)

bessel_i0 = _unary("BesselI0", jax.scipy.special.i0, "f")
bessel_i0e = _unary("BesselI0e", jax.scipy.special.i0e, "f")


@jax.custom_jvp
def _bessel_i1(x):
    return jax.scipy.special.i1(x)


@_bessel_i1.defjvp
def _bessel_i1_jvp(primals, tangents):
    # TF's _BesselI1Grad: i0(x) - i1(x) / x, and 1 (sic: the derivative is 0.5) at x == 0.
    (x,), (t,) = primals, tangents
    y = _bessel_i1(x)
    d = jnp.where(x == 0, jnp.ones_like(x), jax.scipy.special.i0(x) - y / _safe(x))
    return y, t * d


bessel_i1 = _unary("BesselI1", _bessel_i1, "f")
bessel_i1e = _unary("BesselI1e", jax.scipy.special.i1e, "f")
bessel_i0.__name__, bessel_i0e.__name__ = "bessel_i0", "bessel_i0e"
bessel_i1.__name__, bessel_i1e.__name__ = "bessel_i1", "bessel_i1e"


def _broadcasting(lax_fn):
    """A ``jax.lax`` binary function (which needs equal shapes) with TF's broadcasting."""

    def fn(a, b):
        return lax_fn(*jnp.broadcast_arrays(a, b))

    return fn


_igamma = _binary("Igamma", _broadcasting(jax.lax.igamma), "f")
_igammac = _binary("Igammac", _broadcasting(jax.lax.igammac), "f")


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (``tf.math.igamma``)."""
    return _igamma(a, x)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (``tf.math.igammac``)."""
    return _igammac(a, x)


igamma.op, igammac.op = _igamma.op, _igammac.op
_polygamma = _binary("Polygamma", _broadcasting(jax.lax.polygamma), "f")
_zeta = _binary("Zeta", _broadcasting(jax.scipy.special.zeta), "f")
# TF's NextAfter gradient: 1 for x1, 0 for x2.
_nextafter = _binary(
    "NextAfter",
    lambda x1, x2: (
        x1
        + (
            jnp.nextafter(*map(jax.lax.stop_gradient, jnp.broadcast_arrays(x1, x2)))
            - jax.lax.stop_gradient(x1)
        )
    ),
    "f",
)


def _unconnected(t):
    """``t`` cut from every tape: TF registers no gradient for this input (None)."""
    from .array_ops import stop_gradient

    return stop_gradient(t) if type(t) is Tensor else t


def polygamma(a, x, name=None):
    """The ``a``-th derivative of ``digamma`` at ``x`` (``tf.math.polygamma``).

    As TF: ``a`` is a float tensor holding integers; the gradient w.r.t. ``a`` is None.
    """
    a, x = binary_operands(a, x, "Polygamma")
    return _polygamma(_unconnected(a), x)


def zeta(x, q, name=None):
    """The Hurwitz zeta function (``tf.math.zeta``); the gradient w.r.t. ``x`` is None, as TF."""
    x, q = binary_operands(x, q, "Zeta")
    return _zeta(_unconnected(x), q)


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` towards ``x2`` (``tf.math.nextafter``).

    TF's gradient: 1 w.r.t. ``x1``, 0 w.r.t. ``x2``.
    """
    return _nextafter(x1, x2)


polygamma.op, zeta.op, nextafter.op = _polygamma.op, _zeta.op, _nextafter.op

_betainc_op = Op("Betainc", jax.scipy.special.betainc)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (``tf.math.betainc``).

    As TF: the gradient w.r.t. ``a`` and ``b`` is None; all three have one dtype.
    """
    # TF's rule for ops with one type attribute: the first Tensor's dtype converts the rest.
    first = next((v for v in (a, b, x) if isinstance(v, Tensor)), None)
    like = None if first is None else first.dtype
    a, b, x = (
        to_tensor(v) if isinstance(v, Tensor) else convert_to_tensor(v, like) for v in (a, b, x)
    )
    for i, t in enumerate((b, x), start=1):
        if t._v.dtype != a._v.dtype:
            raise dtype_mismatch("Betainc", i, a._v.dtype, t._v.dtype)
    require(a, "f", "Betainc")
    named = (("a", a), ("b", b), ("x", x))
    for i, (n1, t1) in enumerate(named):
        for n2, t2 in named[i + 1 :]:
            s1, s2 = t1._v.shape, t2._v.shape
            if s1 and s2 and s1 != s2:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Shapes of {n1} and {n2} are inconsistent: [{','.join(map(str, s1))}] vs. "
                    f"[{','.join(map(str, s2))}] [Op:Betainc]",
                )
    return apply(_betainc_op, (_unconnected(a), _unconnected(b), x))


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (``tf.math.lbeta``)."""
    from .reduction_ops import reduce_sum

    x = to_tensor(x)
    return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))
