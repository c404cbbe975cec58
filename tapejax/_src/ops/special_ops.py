"""The trigonometric, hyperbolic and special functions of ``tf.math`` (``asin``, ``erf``,
``lgamma``, ``digamma``, ``bessel_i0``, ``igamma``, ``zeta``, ``betainc``, ...) and of
``tf.math.special`` (Bessel J, Y and K, ``dawsn``, ``expint``, the Fresnel integrals,
``spence``), with TF's dtypes and gradients.

Made with ``math_ops``' elementwise factories, as every elementwise op. Derivatives are
JAX's, except where TF's registered gradient, or its own derivative (the second
derivative), is not (``acosh`` for a complex input, ``bessel_i1`` at 0, ``atanh`` at +-1,
``asinh`` where ``cosh`` overflows): there a ``jax.custom_jvp`` carries TF's formula. An input TF
registers no gradient for gets ``None``: ``polygamma``'s order is cut from tapes; ``zeta``'s
``x`` and ``betainc``'s ``a`` and ``b`` are the op's ``none_inputs``, and stay on tapes,
since the other inputs' gradients read them (TF's second derivatives through them are not
None). The ``tf.math.special``
functions JAX lacks are TF's own kernels, ported in ``special_kernels``; each carries
TF's registered gradient through a ``jax.custom_jvp``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import special_kernels
from ._helpers import (
    NO_CPU_KERNEL,
    TF_ALLOWED,
    binary_operands,
    dtype_mismatch,
    require,
    tf_type_name,
    to_tensor,
)
from .division_ops import _xlog1py, _xlogy
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


def _with_tf_tangent(kernel, tangent):
    """``kernel`` as a ``jax.custom_jvp`` whose tangent is ``tangent(t, x, y)``
    (``y = kernel(x)``): TF's registered gradient with the upstream gradient ``t`` in TF's
    own place (``grad / d`` differs from ``grad * (1 / d)`` where ``d`` overflows). The
    tangents call the other wrapped functions, so higher orders follow TF's gradients of
    gradients too."""
    fn = jax.custom_jvp(kernel)

    @fn.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = fn(x)
        return y, tangent(t, x, y)

    return fn


def _with_tf_gradient(kernel, derivative):
    """``_with_tf_tangent`` for TF's gradients of the form ``grad * derivative(x, y)``."""
    return _with_tf_tangent(kernel, lambda t, x, y: t * derivative(x, y))


# TF's _AtanhGrad: grad * reciprocal(1 - square(x)). JAX's derivative is another
# expression of the same function, whose own derivative is NaN at +-1 (TF: +-inf) and 0
# where square(x) overflows (TF: NaN, from Square's gradient 2 * x).
_atanh = _with_tf_tangent(jnp.arctanh, lambda t, x, y: t * jnp.reciprocal(1 - jnp.square(x)))
# TF's _AsinhGrad: grad / cosh(y), from the output (JAX's derivative of its own
# derivative is NaN at 3e38, TF's -0).
_asinh = _with_tf_tangent(jnp.arcsinh, lambda t, x, y: t / jnp.cosh(y))
asin = _unary("Asin", jnp.arcsin, FLOAT)
acos = _unary("Acos", jnp.arccos, FLOAT)
atan = _unary("Atan", jnp.arctan, FLOAT)
sinh = _unary("Sinh", jnp.sinh, FLOAT)
cosh = _unary("Cosh", jnp.cosh, FLOAT)
asinh = _unary("Asinh", _asinh, FLOAT)


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
atanh = _unary("Atanh", _atanh, FLOAT)
erf = _unary("Erf", jax.scipy.special.erf, "f")
erfc = _unary("Erfc", jax.scipy.special.erfc, "f")
erfinv = _unary("Erfinv", jax.scipy.special.erfinv, "f")
# TF's _NdtriGrad computes sqrt(2 pi) exp(y**2 / 2) from the output: inf at 0 and 1, where
# JAX's derivative guards to 0.
_ndtri = _with_tf_gradient(
    jax.scipy.special.ndtri, lambda x, y: np.sqrt(2 * np.pi).astype(x.dtype) * jnp.exp(y * y / 2)
)
ndtri = _unary("Ndtri", _ndtri, "f")
# TF's _LgammaGrad: grad * digamma(x), with TF's digamma, whose own gradient is 0 at inf.
_lgamma = _with_tf_gradient(jax.lax.lgamma, lambda x, y: _digamma(x))
lgamma = _unary("Lgamma", _lgamma, "f")
# TF's _DigammaGrad: polygamma(1, x) with TF's polygamma (0 at inf, where JAX's is NaN).
_digamma = _with_tf_gradient(jax.lax.digamma, lambda x, y: _tf_polygamma(jnp.ones_like(x), x))
digamma = _unary("Digamma", _digamma, "f")
# TF's Rint gradient is None (not zero): rounding half to even, like Round.
rint = _unary("Rint", jnp.round, "f", differentiable=False)

# TF's composite, so its gradient is TF's through Ndtri's.
_erfcinv_op = Op("Erfcinv", lambda x: -_ndtri(0.5 * x) * np.sqrt(0.5).astype(x.dtype))


def erfcinv(x, name=None):
    """The inverse of ``erfc`` (``tf.math.erfcinv``): ``-ndtri(x / 2) / sqrt(2)``, as TF."""
    x = to_tensor(x)
    if x._v.dtype.kind in "iub":  # TF converts the 0.5 of x * 0.5 to x's dtype first
        raise TypeError(f"Cannot convert 0.5 to EagerTensor of dtype {tf_type_name(x._v.dtype)}")
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

# half and bfloat16 in float32, as Eigen: exp(|x|) overflows half from x = 11.1 on, where
# I0 and I1 themselves are still finite.
_i0 = special_kernels.by_precision(jax.scipy.special.i0)
_i1 = special_kernels.by_precision(jax.scipy.special.i1)
# TF's _BesselI0Grad: bessel_i1(x) (0 at 0, inf where I1 overflows), where JAX
# differentiates i0e(x) exp(|x|): 1 at 0 and NaN (inf * 0) from x = 89 on.
_bessel_i0 = _with_tf_gradient(_i0, lambda x, y: _bessel_i1(x))
bessel_i0 = _unary("BesselI0", _bessel_i0, "f")
# TF's _BesselI0eGrad: i1e(x) - sign(x) i0e(x), exactly 0 at large |x| as TF.
_bessel_i0e = _with_tf_gradient(
    jax.scipy.special.i0e, lambda x, y: _bessel_i1e(x) - jnp.sign(x) * y
)
bessel_i0e = _unary("BesselI0e", _bessel_i0e, "f")


@jax.custom_jvp
def _bessel_i1(x):
    return _i1(x)


@_bessel_i1.defjvp
def _bessel_i1_jvp(primals, tangents):
    # TF's _BesselI1Grad: i0(x) - i1(x) / x, and 1 (sic: the derivative is 0.5) at x == 0.
    # The division is unguarded, as TF's: the branch not taken at 0 still has 0 / 0 in its
    # derivative, so the second derivative at 0 is TF's NaN.
    (x,), (t,) = primals, tangents
    y = _bessel_i1(x)
    d = jnp.where(x == 0, jnp.ones_like(x), _bessel_i0(x) - y / x)
    return y, t * d


bessel_i1 = _unary("BesselI1", _bessel_i1, "f")
# TF's _BesselI1eGrad: 0.5 at 0, else i0e(x) - i1e(x) (sign(x) + 1 / x): NaN at NaN,
# where JAX's derivative selects its value at 0; and, as TF, a NaN second derivative at 0.
_bessel_i1e = _with_tf_gradient(
    jax.scipy.special.i1e,
    lambda x, y: jnp.where(x == 0, 0.5, _bessel_i0e(x) - y * (jnp.sign(x) + 1 / x)),
)
bessel_i1e = _unary("BesselI1e", _bessel_i1e, "f")
bessel_i0.__name__, bessel_i0e.__name__ = "bessel_i0", "bessel_i0e"
bessel_i1.__name__, bessel_i1e.__name__ = "bessel_i1", "bessel_i1e"


def _igamma_value(a, x, upper: bool):
    """TF's kernel (Eigen's) where JAX's differs: P(a, 0) = 0 for every a, NaN for a <= 0 or
    x < 0 (JAX's is 1 and 0 at a == 0), and the limit a -> inf, P = 0, Q = 1 (JAX: NaN)."""
    value = (jax.lax.igammac if upper else jax.lax.igamma)(a, x)
    limit = (a == jnp.inf) & (x < a) if upper else a == jnp.inf
    value = jnp.where(limit, jnp.ones_like(x) if upper else jnp.zeros_like(x), value)
    value = jnp.where(jnp.isnan(a) | jnp.isnan(x), jnp.nan, value)
    value = jnp.where((x < 0) | (a <= 0), jnp.nan, value)
    return value if upper else jnp.where(x == 0, jnp.zeros_like(x), value)


def _igamma_partials(a, x):
    """TF's _IgammaGrad: Eigen's IgammaGradA for ``a`` (0 at x == 0 and as a -> inf, -0 at
    x == inf, NaN for a <= 0, where JAX's is NaN at every edge), and the density
    ``exp(-x + (a - 1) log(x) - lgamma(a))`` for ``x``, in TF's float order."""
    # TF registers no gradient for IgammaGradA (nor has JAX a rule): a constant here, so
    # the second derivative w.r.t. x, which TF gives, does not differentiate it.
    a0, x0 = jax.lax.stop_gradient(a), jax.lax.stop_gradient(x)
    da = jnp.where(x0 == jnp.inf, -jnp.zeros_like(x0), jax.lax.igamma_grad_a(a0, x0))
    da = jnp.where(a0 == jnp.inf, jnp.zeros_like(x0), da)
    da = jnp.where(jnp.isnan(a0) | jnp.isnan(x0), jnp.nan, da)
    da = jnp.where((x0 < 0) | (a0 <= 0), jnp.nan, da)
    da = jnp.where(x0 == 0, jnp.zeros_like(x0), da)
    dx = jnp.exp(-x + (a - 1) * jnp.log(x) - jax.lax.lgamma(a))
    return da, dx


@jax.custom_jvp
def _tf_igamma(a, x):
    return _igamma_value(*jnp.broadcast_arrays(a, x), upper=False)


@jax.custom_jvp
def _tf_igammac(a, x):
    return _igamma_value(*jnp.broadcast_arrays(a, x), upper=True)


@_tf_igamma.defjvp
def _tf_igamma_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    da, dx = _igamma_partials(*jnp.broadcast_arrays(a, x))
    return _tf_igamma(a, x), ta * da + tx * dx


@_tf_igammac.defjvp
def _tf_igammac_jvp(primals, tangents):
    # TF's _IgammacGrad: minus igamma's partials.
    (a, x), (ta, tx) = primals, tangents
    da, dx = _igamma_partials(*jnp.broadcast_arrays(a, x))
    return _tf_igammac(a, x), -(ta * da) - tx * dx


_igamma = _binary("Igamma", _tf_igamma, "f")
_igammac = _binary("Igammac", _tf_igammac, "f")


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (``tf.math.igamma``)."""
    return _igamma(a, x)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (``tf.math.igammac``)."""
    return _igammac(a, x)


igamma.op, igammac.op = _igamma.op, _igammac.op


@jax.custom_jvp
def _tf_zeta(x, q):
    """The Hurwitz zeta function as TF's kernel (Eigen's) gives it: inf at x == 1, NaN for
    x < 1; at the poles q = 0, -1, -2, ... inf for an even x, else NaN; NaN for q < 0 and a
    fractional x; where JAX's series is NaN for x > 1, q > 0 (x or q infinite, x huge)
    Eigen's loop stops at its first term, q**-x."""
    x, q = jnp.broadcast_arrays(x, q)
    value = jax.scipy.special.zeta(x, q)
    value = jnp.where(jnp.isnan(value) & (x > 1) & (q > 0), jnp.power(q, -x), value)
    value = jnp.where((q <= 0) & (x != jnp.floor(x)), jnp.nan, value)
    even = jnp.floor(x / 2) * 2 == x  # inf too: Eigen's long(x) % 2 of it is 0
    pole = (q <= 0) & (q == jnp.floor(q))
    value = jnp.where(pole, jnp.where(even, jnp.inf, jnp.nan), value)
    value = jnp.where(jnp.isnan(x) | jnp.isnan(q), jnp.nan, value)
    value = jnp.where(x < 1, jnp.nan, value)
    return jnp.where(x == 1, jnp.inf, value)


@_tf_zeta.defjvp
def _tf_zeta_jvp(primals, tangents):
    # TF's _ZetaGrad: -x zeta(x + 1, q) for q; none for x (``_zeta_fn.none_inputs``). x
    # stays on tapes: q's gradient reads it, so TF's second derivative w.r.t. x is
    # -zeta(x + 1, q) times the upstream.
    (x, q), (_, tq) = primals, tangents
    return _tf_zeta(x, q), tq * (-x * _tf_zeta(x + 1, q))


def _zeta_fn(x, q):
    return _tf_zeta(x, q)


# The gradient w.r.t. x is None (TF registers none), not the zeros of the JVP above.
_zeta_fn.none_inputs = (0,)


@jax.custom_jvp
def _tf_polygamma(n, x):
    """Eigen's polygamma (TF's kernel): NaN for a fractional n, digamma for n == 0, else
    (-1)**(n + 1) n! zeta(n + 1, x) with TF's zeta (so 0 at x == inf, where JAX's is NaN)."""
    n, x = jnp.broadcast_arrays(n, x)
    value = jnp.power(-1, n + 1) * jnp.exp(jax.lax.lgamma(n + 1)) * _tf_zeta(n + 1, x)
    value = jnp.where(n == 0, jax.lax.digamma(x), value)
    return jnp.where(n != jnp.floor(n), jnp.nan, value)


@_tf_polygamma.defjvp
def _tf_polygamma_jvp(primals, tangents):
    # TF's _PolygammaGrad: polygamma(n + 1, x) for x; none for n (cut from tapes).
    (n, x), (_, tx) = primals, tangents
    return _tf_polygamma(n, x), tx * _tf_polygamma(n + 1, x)


_polygamma = _binary("Polygamma", _tf_polygamma, "f")
_zeta = _binary("Zeta", _zeta_fn, "f")
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
    return _zeta(x, q)


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` towards ``x2`` (``tf.math.nextafter``).

    TF's gradient: 1 w.r.t. ``x1``, 0 w.r.t. ``x2``.
    """
    return _nextafter(x1, x2)


polygamma.op, zeta.op, nextafter.op = _polygamma.op, _zeta.op, _nextafter.op


@jax.custom_jvp
def _tf_betainc(a, b, x):
    """I_x(a, b) with TF's kernel's (Eigen's) edges: NaN for a <= 0 or b <= 0 (JAX's is
    the limit), then 0 at x == 0 and 1 at x == 1 even for a NaN a or b."""
    a, b, x = jnp.broadcast_arrays(a, b, x)
    value = jax.scipy.special.betainc(a, b, x)
    value = jnp.where(x == 1, jnp.ones_like(x), value)
    value = jnp.where(x == 0, jnp.zeros_like(x), value)
    return jnp.where((a <= 0) | (b <= 0), jnp.nan, value)


@_tf_betainc.defjvp
def _tf_betainc_jvp(primals, tangents):
    # TF's _BetaincGrad for x, in log space with TF's xlog1py and xlogy (0 for a 0 factor,
    # even times log(0) or NaN: finite at x = 0 and 1 when a or b is 1, where JAX's
    # derivative is NaN); none for a and b (``_betainc_fn.none_inputs``). a and b stay on
    # tapes: x's gradient reads them (through TF's Lgamma, whose gradient is TF's
    # digamma), so TF's second derivative w.r.t. them is not None.
    (a, b, x), (_, _, tx) = primals, tangents
    log_beta = _lgamma(a) + _lgamma(b) - _lgamma(a + b)
    partial = jnp.exp(_xlog1py(b - 1, -x) + _xlogy(a - 1, x) - log_beta)
    return _tf_betainc(a, b, x), tx * partial


def _betainc_fn(a, b, x):
    return _tf_betainc(a, b, x)


# The gradients w.r.t. a and b are None (TF registers none), not the zeros of the JVP.
_betainc_fn.none_inputs = (0, 1)
_betainc_op = Op("Betainc", _betainc_fn)


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
    return apply(_betainc_op, (a, b, x))


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (``tf.math.lbeta``)."""
    from .reduction_ops import reduce_sum

    x = to_tensor(x)
    return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))


# -- ``tf.math.special``: Bessel J, Y and K, Dawson's integral, Ei, Fresnel, Spence ----------
# (its bessel_i0, bessel_i0e, bessel_i1, bessel_i1e are tf.math's, above.)

_SPECIAL_NAMES = {
    "BesselJ0": "bessel_j0",
    "BesselJ1": "bessel_j1",
    "BesselY0": "bessel_y0",
    "BesselY1": "bessel_y1",
    "BesselK0": "bessel_k0",
    "BesselK0e": "bessel_k0e",
    "BesselK1": "bessel_k1",
    "BesselK1e": "bessel_k1e",
    "Dawsn": "dawsn",
    "Expint": "expint",
    "FresnelCos": "fresnel_cos",
    "FresnelSin": "fresnel_sin",
    "Spence": "spence",
}
TF_ALLOWED.update(dict.fromkeys(_SPECIAL_NAMES, _F_NAMES))


# TF's _Bessel*Grad, _DawsnGrad, _ExpintGrad, _FresnelCosGrad, _FresnelSinGrad, _SpenceGrad
# (math_grad.py), with their NaN at the singular points (Y1 and K1 at 0; a second
# derivative where TF's gradient selects a constant: J1 at 0, Spence at 1).
_bessel_j0 = _with_tf_gradient(special_kernels.bessel_j0, lambda x, y: -_bessel_j1(x))
_bessel_j1 = _with_tf_gradient(
    special_kernels.bessel_j1, lambda x, y: jnp.where(x == 0, 0.5, _bessel_j0(x) - y / x)
)
_bessel_y0 = _with_tf_gradient(special_kernels.bessel_y0, lambda x, y: -_bessel_y1(x))
_bessel_y1 = _with_tf_gradient(special_kernels.bessel_y1, lambda x, y: _bessel_y0(x) - y / x)
_bessel_k0 = _with_tf_gradient(special_kernels.bessel_k0, lambda x, y: -_bessel_k1(x))
_bessel_k0e = _with_tf_gradient(special_kernels.bessel_k0e, lambda x, y: y - _bessel_k1e(x))
_bessel_k1 = _with_tf_gradient(special_kernels.bessel_k1, lambda x, y: -_bessel_k0(x) - y / x)
_bessel_k1e = _with_tf_gradient(
    special_kernels.bessel_k1e, lambda x, y: y * (1 - 1 / x) - _bessel_k0e(x)
)
_expint = _with_tf_gradient(special_kernels.expint, lambda x, y: jnp.exp(x) / x)
_fresnel_cos = _with_tf_gradient(
    special_kernels.fresnel_cos, lambda x, y: jnp.cos((np.pi / 2) * jnp.square(x))
)
_fresnel_sin = _with_tf_gradient(
    special_kernels.fresnel_sin, lambda x, y: jnp.sin((np.pi / 2) * jnp.square(x))
)
_spence = _with_tf_gradient(
    special_kernels.spence, lambda x, y: jnp.where(x == 1, -1.0, jnp.log(x) / (1 - x))
)
# JAX's Dawson integral is TF's algorithm, and its derivative TF's 1 - 2 x y.
_FUNCTIONS = {
    "BesselJ0": _bessel_j0,
    "BesselJ1": _bessel_j1,
    "BesselY0": _bessel_y0,
    "BesselY1": _bessel_y1,
    "BesselK0": _bessel_k0,
    "BesselK0e": _bessel_k0e,
    "BesselK1": _bessel_k1,
    "BesselK1e": _bessel_k1e,
    "Dawsn": jax.scipy.special.dawsn,
    "Expint": _expint,
    "FresnelCos": _fresnel_cos,
    "FresnelSin": _fresnel_sin,
    "Spence": _spence,
}

# Per op: its summary line, and a docstring example's input and float32 output.
_DOCS = {
    "BesselJ0": ("The Bessel function of the first kind of order 0.", "1.0", "0.7651977"),
    "BesselJ1": ("The Bessel function of the first kind of order 1.", "1.0", "0.4400506"),
    "BesselY0": (
        "The Bessel function of the second kind of order 0 (-inf at x <= 0).",
        "1.0",
        "0.08825697",
    ),
    "BesselY1": (
        "The Bessel function of the second kind of order 1 (-inf at x < 0; at 0, NaN in "
        "float32 and -inf in float64, as TF).",
        "1.0",
        "-0.7812128",
    ),
    "BesselK0": (
        "The modified Bessel function of the second kind of order 0 (inf at x <= 0).",
        "1.0",
        "0.42102444",
    ),
    "BesselK0e": (
        "``bessel_k0(x) * exp(x)``, without its overflow (inf at x <= 0).",
        "1.0",
        "1.1444631",
    ),
    "BesselK1": (
        "The modified Bessel function of the second kind of order 1 (inf at x <= 0).",
        "1.0",
        "0.6019073",
    ),
    "BesselK1e": (
        "``bessel_k1(x) * exp(x)``, without its overflow (inf at x <= 0).",
        "1.0",
        "1.6361537",
    ),
    "Dawsn": (
        "Dawson's integral ``exp(-x**2) * integral(exp(t**2), 0, x)``.",
        "1.0",
        "0.5380795",
    ),
    "Expint": (
        "The exponential integral Ei(x) (NaN for x < 0 and at inf, -inf at 0, as TF).",
        "1.0",
        "1.8951179",
    ),
    "FresnelCos": (
        "The Fresnel cosine integral ``integral(cos(pi t**2 / 2), 0, x)``.",
        "1.0",
        "0.7798934",
    ),
    "FresnelSin": (
        "The Fresnel sine integral ``integral(sin(pi t**2 / 2), 0, x)``.",
        "1.0",
        "0.43825912",
    ),
    "Spence": (
        "Spence's function ``integral(log(t) / (1 - t), 1, x)`` (NaN for x < 0, as TF).",
        "2.0",
        "-0.82246685",
    ),
}


def _special_unary(tf_name: str):
    op = Op(tf_name, _FUNCTIONS[tf_name])
    name = _SPECIAL_NAMES[tf_name]

    def public(x, name=None):
        x = to_tensor(x)
        require(x, "f", tf_name)  # NotFoundError for the dtypes TF has no kernel for
        return apply(op, (x,))

    public.__name__ = public.__qualname__ = name
    summary, example, value = _DOCS[tf_name]
    refused = " or ".join(sorted(NO_CPU_KERNEL[tf_name].split(", ")))
    public.__doc__ = f"""{summary}

    ``tf.math.special.{name}``, elementwise, with TF's values (its kernel's algorithm:
    NaN and inf at the same points), dtypes and registered gradient.

    Args:
        x: a floating-point tensor.
        name: unused, as in eager TF.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: ``x`` is not floating point.
        NotFoundError: ``x`` is {refused}: TF has no kernel for it.

    Example:
        >>> import tapejax as tf
        >>> tf.math.special.{name}([{example}]).numpy()
        array([{value}], dtype=float32)
    """
    public.op = op
    return public


bessel_j0 = _special_unary("BesselJ0")
bessel_j1 = _special_unary("BesselJ1")
bessel_y0 = _special_unary("BesselY0")
bessel_y1 = _special_unary("BesselY1")
bessel_k0 = _special_unary("BesselK0")
bessel_k0e = _special_unary("BesselK0e")
bessel_k1 = _special_unary("BesselK1")
bessel_k1e = _special_unary("BesselK1e")
dawsn = _special_unary("Dawsn")
expint = _special_unary("Expint")
fresnel_cos = _special_unary("FresnelCos")
fresnel_sin = _special_unary("FresnelSin")
spence = _special_unary("Spence")
