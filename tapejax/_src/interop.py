"""JAX interop both ways: ``lift`` (JAX code into tapes) and ``functionalize`` (tapejax code out).

``lift(fn)`` makes any JAX-traceable callable a recorded op: its array arguments (any
pytree of Tensors, Variables, JAX or NumPy arrays) are the op's inputs, so a
``GradientTape`` differentiates through it, nested tapes and ``tapejax.function``
included. ``functionalize(fn, variables)`` goes the other way: code written with
tapejax Variables and ops becomes a pure ``(params, *args) -> outputs`` function that
``jax.jit``, ``jax.grad``, ``jax.vmap`` and optax compose with.
"""

from __future__ import annotations

import functools

import jax
import numpy as np

from . import dispatch, recorder
from .binding import bound
from .dispatch import Op
from .tensor import Tensor, wrap

__all__ = ["lift", "functionalize"]


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _is_leaf(x) -> bool:
    return type(x) is Tensor or _is_var(x)


def _is_array(x) -> bool:
    return type(x) is Tensor or _is_var(x) or isinstance(x, (jax.Array, np.ndarray))


class _Lifted:
    """One call pattern of a lifted function: an Op and its output structure."""

    def __init__(self, fn, treedef, template, positions):
        self.out_tree = None

        def pure(*arrays):
            leaves = list(template)
            for p, a in zip(positions, arrays):
                leaves[p] = a
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
            out = fn(*args, **kwargs)
            flat, self.out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_leaf)
            return tuple(x._value if _is_leaf(x) else x for x in flat)

        self.op = Op(getattr(fn, "__name__", "Lifted"), pure, multiple_outputs=True)


def lift(fn):
    """Makes a JAX-traceable callable a recorded tapejax op (also a decorator).

    The callable receives JAX arrays where the caller passed Tensors, Variables or
    arrays (anywhere in nested arguments) and may return any pytree of arrays; the
    result has Tensors in their place. Non-array arguments are static (hashable).

    Example:
        >>> import jax.numpy as jnp, tapejax as tf
        >>> @tf.lift
        ... def softplus(x):
        ...     return jnp.logaddexp(x, 0.0)
        >>> x = tf.constant([0.0, 1.0])
        >>> with tf.GradientTape() as g:
        ...     g.watch(x)
        ...     y = tf.reduce_sum(softplus(x))
        >>> [round(float(v), 4) for v in g.gradient(y, x)]
        [0.5, 0.7311]
    """
    calls: dict = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
        positions = [i for i, x in enumerate(leaves) if _is_array(x)]
        template = tuple(None if _is_array(x) else x for x in leaves)
        inputs = []
        for i in positions:
            x = leaves[i]
            if type(x) is Tensor:
                inputs.append(x)
            elif _is_var(x):
                inputs.append(x._dense_read())
            else:
                inputs.append(wrap(jax.numpy.asarray(x)))
        try:
            key = (treedef, template)
            hash(key)
        except TypeError:
            key = None  # unhashable static arguments: a new op (and program) per call
        lifted = calls.get(key) if key is not None else None
        if lifted is None:
            lifted = _Lifted(fn, treedef, template, positions)
            if key is not None:
                calls[key] = lifted
        outs = dispatch.apply(lifted.op, tuple(inputs))
        return jax.tree_util.tree_unflatten(lifted.out_tree, list(outs))

    wrapper.lifted = True
    return wrapper


def functionalize(fn, variables):
    """Turns tapejax code that uses ``variables`` into a pure JAX function.

    Returns ``(pure_fn, params)``: ``pure_fn(params, *args, **kwargs)`` runs ``fn`` with
    each Variable bound to the matching entry of ``params`` (a list of arrays, in the
    order of ``variables``) and returns ``(outputs, new_params)``, where ``new_params``
    holds the values after any ``assign`` inside; ``params`` are the Variables' current
    values. Outputs are JAX arrays (Tensors are unwrapped). Write trained values back
    with ``for v, p in zip(variables, params): v.assign(p)``.

    Example:
        >>> import jax, tapejax as tf
        >>> w = tf.Variable([1.0, 2.0])
        >>> f, params = tf.functionalize(lambda x: tf.reduce_sum(w * x), [w])
        >>> loss = lambda p, x: f(p, x)[0]
        >>> [float(g) for g in jax.grad(loss)(params, jax.numpy.array([3.0, 4.0]))[0]]
        [3.0, 4.0]
    """
    variables = list(variables)

    def pure(params, *args, **kwargs):
        if len(params) != len(variables):
            raise ValueError(f"functionalize: expected {len(variables)} params, got {len(params)}")
        values = [jax.numpy.asarray(p) for p in params]
        with bound(variables, values), recorder.only(()):
            args, kwargs = jax.tree_util.tree_map(
                lambda a: wrap(a) if isinstance(a, jax.Array) else a, (args, kwargs)
            )
            out = fn(*args, **kwargs)
            new = [v._value for v in variables]
        out = jax.tree_util.tree_map(
            lambda x: x._value if _is_leaf(x) else x, out, is_leaf=_is_leaf
        )
        return out, new

    return pure, [v._value for v in variables]
