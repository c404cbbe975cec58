"""``tapejax.print`` (``tf.print``): prints tensors eagerly, and on every call of a compiled program."""

from __future__ import annotations

import sys

import jax
import numpy as np

from ..tensor import Tensor

__all__ = ["print_v2"]


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
