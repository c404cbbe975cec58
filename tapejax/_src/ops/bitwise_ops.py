"""``tf.bitwise``: elementwise AND, OR, XOR, NOT and shifts of integer tensors, with TF's
dtype rules, broadcasting and errors.

TF registers no gradient for any of them: a tape gives None through them. The shifts
follow TF's CPU kernel where C leaves a shift undefined: the shift amount is clamped to
``[0, bits - 1]`` (XLA would give 0 for an amount past the width).
"""

from __future__ import annotations

import jax.numpy as jnp

from .math_ops import _binary, _unary

_INTEGER = "iu"
_AND = _binary("BitwiseAnd", jnp.bitwise_and, _INTEGER, differentiable=False)
_OR = _binary("BitwiseOr", jnp.bitwise_or, _INTEGER, differentiable=False)
_XOR = _binary("BitwiseXor", jnp.bitwise_xor, _INTEGER, differentiable=False)
_INVERT = _unary("Invert", jnp.invert, _INTEGER, differentiable=False)


def _clamped_shift(shift):
    def fn(x, y):
        bits = jnp.iinfo(x.dtype).bits
        # TF's kernel clamps the amount (avoiding C's undefined shifts); so must we.
        return shift(x, jnp.clip(y, 0, bits - 1).astype(x.dtype))

    return fn


_LEFT = _binary("LeftShift", _clamped_shift(jnp.left_shift), _INTEGER, differentiable=False)
_RIGHT = _binary("RightShift", _clamped_shift(jnp.right_shift), _INTEGER, differentiable=False)


def bitwise_and(x, y, name=None):
    """Elementwise ``x & y`` of integer tensors of one dtype, with broadcasting (``tf.bitwise.bitwise_and``).

    Args:
        x: an integer tensor (int8 ... uint64).
        y: a tensor of ``x``'s dtype, or a value convertible to it.
        name: ignored (TF's op name).

    Returns:
        A tensor of the broadcast shape and ``x``'s dtype. Not differentiable: a tape
        gives None through it, as in TF.
    """
    return _AND(x, y)


def bitwise_or(x, y, name=None):
    """Elementwise ``x | y`` of integer tensors of one dtype, with broadcasting (``tf.bitwise.bitwise_or``).

    Args:
        x: an integer tensor (int8 ... uint64).
        y: a tensor of ``x``'s dtype, or a value convertible to it.
        name: ignored (TF's op name).

    Returns:
        A tensor of the broadcast shape and ``x``'s dtype (not differentiable, as in TF).
    """
    return _OR(x, y)


def bitwise_xor(x, y, name=None):
    """Elementwise ``x ^ y`` of integer tensors of one dtype, with broadcasting (``tf.bitwise.bitwise_xor``).

    Args:
        x: an integer tensor (int8 ... uint64).
        y: a tensor of ``x``'s dtype, or a value convertible to it.
        name: ignored (TF's op name).

    Returns:
        A tensor of the broadcast shape and ``x``'s dtype (not differentiable, as in TF).
    """
    return _XOR(x, y)


def invert(x, name=None):
    """Elementwise ``~x``, every bit flipped, of an integer tensor (``tf.bitwise.invert``).

    Args:
        x: an integer tensor (int8 ... uint64).
        name: ignored (TF's op name).

    Returns:
        A tensor of ``x``'s shape and dtype (not differentiable, as in TF).
    """
    return _INVERT(x)


def left_shift(x, y, name=None):
    """Elementwise ``x << y``, with broadcasting (``tf.bitwise.left_shift``).

    Bits shifted past the width are dropped (signed values wrap). An amount ``y`` below
    0 or past the width is clamped to ``[0, bits - 1]``, as TF's CPU kernel does.

    Args:
        x: an integer tensor (int8 ... uint64).
        y: shift amounts, a tensor of ``x``'s dtype or a value convertible to it.
        name: ignored (TF's op name).

    Returns:
        A tensor of the broadcast shape and ``x``'s dtype (not differentiable, as in TF).
    """
    return _LEFT(x, y)


def right_shift(x, y, name=None):
    """Elementwise ``x >> y``, arithmetic for signed types, with broadcasting (``tf.bitwise.right_shift``).

    An amount ``y`` below 0 or past the width is clamped to ``[0, bits - 1]``, as TF's CPU
    kernel does (so ``-1 >> 100`` is ``-1``).

    Args:
        x: an integer tensor (int8 ... uint64).
        y: shift amounts, a tensor of ``x``'s dtype or a value convertible to it.
        name: ignored (TF's op name).

    Returns:
        A tensor of the broadcast shape and ``x``'s dtype (not differentiable, as in TF).
    """
    return _RIGHT(x, y)


for _public, _impl in (
    (bitwise_and, _AND),
    (bitwise_or, _OR),
    (bitwise_xor, _XOR),
    (invert, _INVERT),
    (left_shift, _LEFT),
    (right_shift, _RIGHT),
):
    _public.op = _impl.op
del _public, _impl
