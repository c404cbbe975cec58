"""The complex FFTs over the last 1, 2 or 3 axes that the circulant operators need
(TF's ``FFT``/``IFFT``, ``FFT2D``/``IFFT2D``, ``FFT3D``/``IFFT3D`` ops).

Private to the operators: tapejax has no public ``signal`` namespace of its own yet.
Their derivative is JAX's, which under tapejax's complex convention is TF's
(``ifft(g) * n`` for ``fft``).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ..dispatch import Op, apply
from ..ops._helpers import require, to_tensor


def _transform(x, *, depth, inverse):
    axes = tuple(range(-depth, 0))
    return (jnp.fft.ifftn if inverse else jnp.fft.fftn)(x, axes=axes)


_OPS = {
    (depth, inverse): Op(
        ("IFFT" if inverse else "FFT") + ("" if depth == 1 else f"{depth}D"),
        functools.partial(_transform, depth=depth, inverse=inverse),
    )
    for depth in (1, 2, 3)
    for inverse in (False, True)
}


def fft(x, depth: int, inverse: bool = False):
    """The (inverse) FFT of a complex tensor over its last ``depth`` axes."""
    op = _OPS[depth, inverse]
    x = to_tensor(x)
    require(x, "c", op.name)
    return apply(op, (x,))
