"""``tapejax.print`` (``tf.print``) and ``tapejax.timestamp``: print tensors and read the
clock eagerly, and on every call of a compiled program (never once at trace time)."""

from __future__ import annotations

import sys
import time

import jax
import numpy as np
from jax.experimental import io_callback

from ..conversion import canonical_np_dtype
from ..tensor import Tensor, wrap

__all__ = ["print_v2", "timestamp"]


def _text(x) -> str:
    if type(x) is Tensor or getattr(x, "_is_variable", False):
        return _text_of(x._value)
    return str(x)


def print_v2(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\n", name=None):
    """Prints ``inputs`` like ``tf.print``; inside ``tapejax.function`` it prints on every call.

    Example:
        >>> import sys, tapejax as tf
        >>> tf.print("x:", tf.constant([1, 2]), output_stream=sys.stdout)
        x: [1 2]
    """
    traced = [x for x in inputs if type(x) is Tensor and isinstance(x._value, jax.core.Tracer)]
    if not traced:
        print(sep.join(_text(x) for x in inputs), end=end, file=output_stream)
        return None
    # Traced: the values exist only when the program runs; jax.debug.callback runs then.
    literals = [None if type(x) is Tensor else str(x) for x in inputs]
    values = [x._value for x in inputs if type(x) is Tensor]

    def emit(*arrays):
        it = iter(arrays)
        parts = [lit if lit is not None else _text_of(next(it)) for lit in literals]
        print(sep.join(parts), end=end, file=output_stream)

    jax.debug.callback(emit, *values, ordered=True)
    return None


def _text_of(array) -> str:
    return np.array2string(np.asarray(array), separator=" ")


def timestamp(name=None) -> Tensor:
    """The time in seconds since the Unix epoch, as a float64 scalar (``tf.timestamp``).

    Read when the op runs: inside ``tapejax.function`` (or a JAX transform) on every
    call of the compiled program, as TF's stateful op.

    .. warning:: float64 needs JAX's 64-bit mode (``jax_enable_x64``); without it the
       value is float32 (with tapejax's narrowing warning), which resolves only 128
       seconds at today's times.

    Example:
        >>> import time
        >>> import tapejax as tf
        >>> abs(float(tf.timestamp()) - time.time()) < 600
        True
    """
    del name
    dtype = canonical_np_dtype(np.float64)
    value = io_callback(
        lambda: np.asarray(time.time(), dtype), jax.ShapeDtypeStruct((), dtype), ordered=True
    )
    return wrap(value)
