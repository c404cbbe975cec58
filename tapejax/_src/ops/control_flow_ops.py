"""``cond`` and ``while_loop``: Python control flow eagerly, JAX control flow when traced.

Eagerly (TF 2's default) only the taken branch / the executed iterations run, and tapes
record exactly those ops, as TF eager does. Inside ``tapejax.function`` (a traced
predicate) ``cond`` computes both branches and selects with ``where``, so tapes inside
the function differentiate it; ``while_loop`` becomes ``jax.lax.while_loop`` (or a
``fori_loop`` bounded by ``maximum_iterations``), which tapes cannot differentiate: a
tape watching the loop variables there raises a clear NotImplementedError.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import nest, recorder
from ..conversion import convert_to_tensor
from ..tensor import Tensor, wrap
from .array_ops import where

__all__ = ["cond", "while_loop"]


def _is_traced(x) -> bool:
    value = getattr(x, "_value", x)
    return isinstance(value, jax.core.Tracer)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns ``true_fn()`` if ``pred`` else ``false_fn()`` (``tf.cond``).

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant(3.0)
        >>> float(tf.cond(x > 0, lambda: x * 3, lambda: x * 5))
        9.0

    .. warning::
       When traced (inside ``tapejax.function``) both branches run and the result is
       selected elementwise, so both must return the same structure, shapes and dtypes
       (as TF requires); a NaN produced by the branch not taken does not reach the
       result, but a NaN in its gradient can, as with ``tf.where``.
    """
    if true_fn is None or false_fn is None:
        raise TypeError("cond(): 'true_fn' and 'false_fn' arguments are required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    p = pred if type(pred) is Tensor else convert_to_tensor(pred)
    if not _is_traced(p):
        return true_fn() if bool(p._value) else false_fn()
    if p._value.shape != ():
        raise ValueError(f"Shape must be rank 0 but is rank {p._value.ndim} for 'cond' predicate")
    taken, other = true_fn(), false_fn()
    flat_t, flat_f = nest.flatten(taken), nest.flatten(other)
    if len(flat_t) != len(flat_f):
        raise ValueError(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and "
            f"overall structure of return values. true_fn output: {taken}, false_fn output: "
            f"{other}"
        )
    selected = [where(p, a, b) for a, b in zip(flat_t, flat_f)]
    return nest.pack_sequence_as(taken, selected)


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    maximum_iterations=None,
    name=None,
):
    """Repeats ``body`` while ``cond`` is true (``tf.while_loop``).

    Example:
        >>> import tapejax as tf
        >>> i, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
        ...                      [tf.constant(0), tf.constant(1.0)])
        >>> int(i), float(x)
        (3, 8.0)
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    single = not isinstance(loop_vars, (list, tuple))
    state = [loop_vars] if single else list(loop_vars)
    flat = nest.flatten(state)
    traced = any(_is_traced(x) for x in flat)

    def call(fn, values):
        out = fn(*values)
        if single and not isinstance(out, (list, tuple)):
            out = [out]
        return list(out) if isinstance(out, (list, tuple)) else [out]

    if not traced:
        # As TF eager: a Python loop; tapes record the ops of each iteration.
        i = 0
        while maximum_iterations is None or i < int(maximum_iterations):
            c = cond(*state)
            if not bool(c if not isinstance(c, Tensor) else c._value):
                break
            state = call(body, state)
            i += 1
        return state[0] if single else type(loop_vars)(state)

    for r in recorder.active():
        live = getattr(r, "live", None)
        if live is not None and any(getattr(x, "_id", None) in live for x in flat):
            raise NotImplementedError(
                "tapejax cannot differentiate a while_loop inside tapejax.function yet (JAX's "
                "while_loop has no reverse-mode derivative). Unroll it in Python with a fixed "
                "trip count, or run the function eagerly "
                "(tapejax.config.run_functions_eagerly(True))."
            )
    template = state
    arrays = [convert_to_tensor(x)._value for x in nest.flatten(template)]

    def unpack(values):
        return nest.pack_sequence_as(template, [wrap(v) for v in values])

    def step_cond(carry):
        i, values = carry
        with recorder.paused():
            c = cond(*unpack(values))
        c = c._value if isinstance(c, Tensor) else jnp.asarray(c)
        if maximum_iterations is not None:
            c = jnp.logical_and(c, i < maximum_iterations)
        return c

    def step_body(carry):
        i, values = carry
        with recorder.paused():
            out = call(body, unpack(values))
        return i + 1, [convert_to_tensor(x)._value for x in nest.flatten(out)]

    _, final = jax.lax.while_loop(step_cond, step_body, (jnp.asarray(0), arrays))
    result = unpack(final)
    return result[0] if single else type(loop_vars)(result)
