"""``custom_gradient``, ``grad_pass_through`` and ``recompute_grad``, lowered onto JAX.

A decorated function runs eagerly once (its outputs are the call's results, its inner
ops are recorded as TF records them), and the call is recorded on active tapes as one
node whose pure function is a ``jax.custom_vjp``: the forward re-runs the user's
function on the node's inputs (Variables read inside are rebound to traced inputs, so
their values are arguments, never constants) and the backward runs the user's
``grad_fn``. The user's Python therefore runs when a derivative program is *traced*,
not on every call of the compiled program (``docs/compat.md``).
"""

from __future__ import annotations

import functools
import inspect
import threading

import jax
import jax.numpy as jnp
import numpy as np

from . import dispatch, nest, recorder
from .binding import VariableWatcher, bound
from .conversion import convert_to_tensor
from .dispatch import Op
from .lowering import DIFF_DTYPES
from .tensor import Pending, Tensor, wrap

__all__ = ["custom_gradient", "grad_pass_through", "recompute_grad"]


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _accepts_variables(fn) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return True
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _leaf_tensor(x):
    if type(x) is Tensor:
        return x
    if _is_var(x):
        return x._dense_read()
    return None


class _GradFnState(threading.local):
    depth = 0


_grad_fn_state = _GradFnState()


def _call_user_grad(grad_fn, variables, n_args, cts):
    """Runs ``grad_fn`` on cotangents (arrays); returns one array or None per input + variable."""
    upstream = [wrap(c) for c in cts]
    _grad_fn_state.depth += 1
    try:
        return _call_user_grad_inner(grad_fn, variables, n_args, upstream)
    finally:
        _grad_fn_state.depth -= 1


def _call_user_grad_inner(grad_fn, variables, n_args, upstream):
    if variables:
        result = grad_fn(*upstream, variables=list(variables))
        input_grads, variable_grads = result
        if len(variable_grads) != len(variables):
            raise ValueError(
                "Must return gradient for each variable from @custom_gradient grad_fn."
            )
        variable_grads = list(variable_grads)
    else:
        input_grads = grad_fn(*upstream)
        variable_grads = []
    flat = nest.flatten(input_grads)
    if len(flat) != n_args:
        raise ValueError(
            f"custom_gradient function expected to return {n_args} gradients, but returned "
            f"{len(flat)} instead."
        )
    return [None if g is None else convert_to_tensor(g)._value for g in flat + variable_grads]


class _CustomCall:
    """Everything static about one call pattern of a decorated function (the Op's key)."""

    def __init__(self, f, arg_tree, n_args, variables):
        self.f = f
        self.arg_tree = arg_tree  # args with tensor leaves replaced by None
        self.n_args = n_args
        self.variables = variables


def _rebuild(arg_tree, flat):
    it = iter(flat)

    def fill(x):
        return wrap(next(it)) if x is _SLOT else x

    return nest.map_structure(fill, arg_tree)


_SLOT = object()


def _zero_cotangent(x):
    if x.dtype in DIFF_DTYPES:
        return jnp.zeros(jnp.shape(x), x.dtype)
    return np.zeros(jnp.shape(x), dtype=jax.dtypes.float0)


def _shaped_like(g, x, i):
    try:
        return jnp.broadcast_to(jnp.asarray(g, x.dtype), jnp.shape(x))
    except ValueError:
        raise ValueError(
            f"@custom_gradient grad_fn returned a gradient of shape {tuple(jnp.shape(g))} for "
            f"input {i} of shape {tuple(jnp.shape(x))}. tapejax needs each gradient shaped like "
            "its input (or broadcastable to it); TensorFlow passes a wrong shape through "
            "unchecked, which later breaks whatever consumes it."
        ) from None


def _make_pure(f, arg_tree, n_args, variables):
    """The node's pure function ``(*arg_arrays, *variable_arrays) -> output arrays``."""

    def run(flat):
        args = _rebuild(arg_tree, flat[:n_args])
        with recorder.paused(), bound(variables, flat[n_args:]):
            result, grad_fn = f(*args)
            flat_out = [convert_to_tensor(y)._value for y in nest.flatten(result)]
        return flat_out, grad_fn

    none_inputs: set = set()

    @jax.custom_vjp
    def pure(*flat):
        return tuple(run(flat)[0])

    def fwd(*flat):
        # The residuals are the inputs: the backward re-runs ``f`` to rebuild ``grad_fn``
        # (XLA drops whatever of it the gradient does not use).
        return tuple(run(flat)[0]), flat

    def bwd(flat, cts):
        _, grad_fn = run(flat)
        with recorder.paused(), bound(variables, flat[n_args:]):
            grads = _call_user_grad(grad_fn, variables, n_args, cts)
        # TF returns None for an input whose gradient grad_fn gave as None; the derivative
        # program reads this (static) fact right after tracing this backward.
        none_inputs.update(i for i, g in enumerate(grads) if g is None)
        return tuple(
            _zero_cotangent(x) if g is None or x.dtype not in DIFF_DTYPES else _shaped_like(g, x, i)
            for i, (g, x) in enumerate(zip(grads, flat))
        )

    pure.defvjp(fwd, bwd)
    pure.none_inputs = none_inputs
    return pure


def custom_gradient(f=None):
    """Decorator giving a function a user-defined gradient (``tf.custom_gradient``).

    ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*upstream)`` returns one gradient per
    positional input; if ``f`` reads trainable Variables that are not inputs,
    ``grad_fn(*upstream, variables=...)`` returns ``(input_grads, variable_grads)``.

    Example:
        >>> import tapejax as tf
        >>> @tf.custom_gradient
        ... def log1pexp(x):
        ...     e = tf.exp(x)
        ...     def grad(upstream):
        ...         return upstream * (1 - 1 / (1 + e))
        ...     return tf.math.log(1 + e), grad
        >>> x = tf.constant(100.0)
        >>> with tf.GradientTape() as g:
        ...     g.watch(x)
        ...     y = log1pexp(x)
        >>> float(g.gradient(y, x))
        1.0

    .. warning::
       ``grad_fn`` runs when the derivative program is traced (once per structure), not
       on every ``gradient`` call: Python side effects inside it happen once.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            # TF (eager): tensors passed by keyword are not differentiable inputs.
            try:
                key = (f, tuple(sorted(kwargs.items())))
                hash(key)
            except TypeError:
                key = None  # unhashable keyword values: a new program per call
            return _custom_call(lambda *a: f(*a, **kwargs), f, key, args)
        return _custom_call(f, f, f, args)

    return decorated


# (function key, argument structure, variable ids) -> Op: a stable Op per call pattern, so
# that the derivative programs that contain it are traced once.
_ops: dict = {}


try:
    from jax._src.interpreters.ad import JVPTracer as _JVPTracer
    from jax._src.interpreters.ad import LinearizeTracer as _LinearizeTracer

    _AD_TRACERS: tuple = (_JVPTracer, _LinearizeTracer)
except ImportError:  # pragma: no cover - private JAX API moved: be conservative
    _AD_TRACERS = (jax.core.Tracer,)


def _being_differentiated(value) -> bool:
    return isinstance(value, _AD_TRACERS)


def _as_input(x):
    """TF converts every positional leaf to a tensor input; leaves that cannot be stay static."""
    t = _leaf_tensor(x)
    if t is not None:
        return t
    try:
        return convert_to_tensor(x)
    except (TypeError, ValueError, NotImplementedError):
        return None


_identity_op = Op("Identity", lambda x: x)


def _split_args(args):
    """The positional arguments as TF's custom-gradient machinery sees them.

    Returns ``(call_args, tensors, arg_tree, variable_ids)``: the arguments to call the
    user's function with (Python numbers converted to tensors, as TF converts them),
    the node's tensor inputs in order (a Variable argument read once), the structure
    with ``_SLOT`` where those inputs go, and the ids of Variables passed directly.
    """
    flat = nest.flatten(args)
    converted = [_as_input(x) for x in flat]
    tensors = [t for t in converted if t is not None]
    call_flat = [
        c if c is not None and not (type(x) is Tensor or _is_var(x)) else x
        for x, c in zip(flat, converted)
    ]
    slots = [_SLOT if c is not None else x for x, c in zip(flat, converted)]
    variable_ids = {id(x) for x in flat if _is_var(x)}
    return (
        nest.pack_sequence_as(args, call_flat),
        tensors,
        nest.pack_sequence_as(args, slots),
        variable_ids,
    )


def _custom_call(f, named, key, args):
    args, tensors, arg_tree, arg_ids = _split_args(args)
    recs = recorder.active()
    pending = [t._v for t in tensors if type(t._v) is Pending]
    if pending:  # inputs deferred under a tape (lazy.py): one program computes them all
        Pending.compute(pending)
    traced = any(isinstance(t._value, jax.core.Tracer) for t in tensors)
    if _grad_fn_state.depth and not recs:
        # Inside another custom gradient's grad_fn, which a derivative program is tracing.
        # Inputs that an enclosing derivative differentiates (TF's "first_order_custom"
        # pattern): the call is this op's custom_vjp applied to the traced values, so
        # JAX uses its rule for the next order, as TF's enclosing tape does. Otherwise
        # its inputs are not differentiated further (TF would not record it): its forward
        # ops are simply part of grad_fn.
        traced = any(_being_differentiated(t._value) for t in tensors)
    if not recs and not traced:
        result, _ = f(*args)
        return result

    watcher = VariableWatcher(trainable_only=True)
    recorder.push(watcher)
    try:
        result, grad_fn = f(*args)
    finally:
        recorder.remove(watcher)
    variables = tuple(v for v in watcher.touched.values() if id(v) not in arg_ids)
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
            f"function uses variables: {list(variables)}"
        )
    op = _op_for(f, named, key, arg_tree, len(tensors), variables, _make_pure)
    return _record_call(op, result, tensors, variables, traced)


def _op_for(f, named, key, arg_tree, n_args, variables, make):
    """One Op per call pattern, so that derivative programs containing it trace once."""
    full_key = None
    if key is not None:
        try:
            full_key = (key, make, _tree_key(arg_tree), tuple(v._id for v in variables))
            hash(full_key)
        except TypeError:
            full_key = None  # unhashable static arguments: a new program per call
    op = _ops.get(full_key) if full_key is not None else None
    if op is None:
        op = Op(
            getattr(named, "__name__", "CustomGradient"),
            make(f, arg_tree, n_args, variables),
            multiple_outputs=True,
            runs_user_code=True,
        )
        if full_key is not None:
            _ops[full_key] = op
    return op


def _record_call(op, result, tensors, variables, traced):
    """Records ``op`` as the producer of ``result``'s leaves on every tape that watches an input."""
    inner_outs = [convert_to_tensor(y) for y in nest.flatten(result)]
    inputs = tuple(tensors + [v._dense_read() for v in variables])
    if traced:
        outs = [wrap(o) for o in op.fn(*[t._value for t in inputs])]
    else:
        # As TF: the outputs are identities of the inner outputs (so a tape that does not
        # watch any input still differentiates the inner ops), whose producer the custom
        # op then replaces on the tapes that watch an input.
        outs = [dispatch.apply(_identity_op, (y,)) for y in inner_outs]
    for r in recorder.active():
        if hasattr(r, "alias"):
            r.alias(inner_outs, outs)
        else:
            r.record(op, (), inputs, tuple(outs))
    return nest.pack_sequence_as(result, outs)


def grad_pass_through(f):
    """Runs ``f`` forward but passes gradients straight through (``tf.grad_pass_through``).

    Example:
        >>> import tapejax as tf
        >>> x, z = tf.Variable(1.0), tf.Variable(3.0)
        >>> with tf.GradientTape() as tape:
        ...     y = tf.grad_pass_through(x.assign)(z ** 2)
        >>> float(tape.gradient(y, z))
        6.0
    """

    @custom_gradient
    def passthrough(*args, **kwargs):
        def grad(*upstream, variables=None):
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        out = f(*args, **kwargs)
        if _is_var(out):
            out = out.value()
        return out, grad

    return functools.wraps(f)(passthrough)


def _make_checkpointed(f, arg_tree, n_args, variables):
    """The node's pure function for ``recompute_grad``: ``f`` under ``jax.checkpoint``."""

    def run(*flat):
        args = _rebuild(arg_tree, flat[:n_args])
        with recorder.paused(), bound(variables, flat[n_args:]):
            result = f(*args)
            return tuple(convert_to_tensor(y)._value for y in nest.flatten(result))

    return jax.checkpoint(run)


def recompute_grad(f):
    """Recomputes ``f``'s activations in the backward pass to save memory (``tf.recompute_grad``).

    The eager forward runs without recording anything inside ``f``; the derivative
    program differentiates ``f`` under ``jax.checkpoint``, so only ``f``'s inputs are
    kept and its activations are recomputed. Results equal those without it.

    Example:
        >>> import tapejax as tf
        >>> y = tf.Variable(2.0)
        >>> g = tf.recompute_grad(lambda x: tf.sin(x) * y)
        >>> x = tf.constant(0.5)
        >>> with tf.GradientTape() as t:
        ...     t.watch(x)
        ...     r = g(x)
        >>> [round(float(v), 5) for v in t.gradient(r, [x, y])]
        [1.75517, 0.47943]
    """

    @functools.wraps(f)
    def wrapped(*args):
        args, tensors, arg_tree, arg_ids = _split_args(args)
        traced = any(isinstance(t._value, jax.core.Tracer) for t in tensors)
        if not recorder.active() and not traced:
            return f(*args)
        watcher = VariableWatcher(trainable_only=True)
        with recorder.only((watcher,)):  # as TF: the forward is not recorded
            result = f(*args)
        variables = tuple(v for v in watcher.touched.values() if id(v) not in arg_ids)
        op = _op_for(
            f, f, ("recompute_grad", f), arg_tree, len(tensors), variables, _make_checkpointed
        )
        return _record_call(op, result, tensors, variables, traced)

    wrapped.__wrapped__ = f
    return wrapped


def _tree_key(tree):
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(_tree_key(x) for x in tree))
    if isinstance(tree, dict):
        return ("dict", tuple((k, _tree_key(v)) for k, v in sorted(tree.items())))
    if tree is _SLOT:
        return "tensor"
    return ("value", type(tree).__name__, tree)
