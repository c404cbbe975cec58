"""``tf.math.special``: Bessel functions, Dawson's and the exponential integral, the
Fresnel integrals and Spence's function.

Reached as ``tapejax.math.special`` (``tapejax.math`` registers it under that name too,
so ``import tapejax.math.special`` works as for TF's submodule).
"""

from tapejax._src.ops.special_ops import (
    bessel_i0,  # tf.math's own: TF exports the same functions in both namespaces
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    bessel_j0,
    bessel_j1,
    bessel_k0,
    bessel_k0e,
    bessel_k1,
    bessel_k1e,
    bessel_y0,
    bessel_y1,
    dawsn,
    expint,
    fresnel_cos,
    fresnel_sin,
    spence,
)

__all__ = [
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "bessel_j0",
    "bessel_j1",
    "bessel_k0",
    "bessel_k0e",
    "bessel_k1",
    "bessel_k1e",
    "bessel_y0",
    "bessel_y1",
    "dawsn",
    "expint",
    "fresnel_cos",
    "fresnel_sin",
    "spence",
]
