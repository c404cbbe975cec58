"""``ForwardAccumulator``: forward-mode autodiff as ops execute (``tf.autodiff.ForwardAccumulator``).

An accumulator is a recorder like a tape, but instead of storing nodes it computes the
JVP of each op whose inputs carry tangents, at once, with ``jax.jvp``. That JVP is
itself applied as an op with only the recorders *outside* this accumulator active, so
enclosing tapes and accumulators differentiate it (forward-over-reverse Hessian-vector
products, nested forward mode) while inner ones do not see it, which is TF's rule.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import dispatch, nest, recorder, registry
from .conversion import convert_to_tensor
from .dispatch import Op
from .lowering import DIFF_DTYPES
from .tape import UnconnectedGradients, _unconnected_mode
from .tensor import Tensor, wrap
from .tf_logging import warn_first_n

__all__ = ["ForwardAccumulator"]

_jvp_ops: dict = {}


def _jvp_op(op: Op, static: tuple, diff: tuple, n_in: int) -> Op:
    """The op computing ``op``'s output tangents from its inputs and the inputs' tangents."""
    key = (op, static, diff, n_in)
    jop = _jvp_ops.get(key)
    if jop is None:
        pure = op.pure(static)

        def jvp_fn(*args):
            ins = list(args[:n_in])
            tangents = args[n_in:]

            def f(*d):
                full = list(ins)
                for i, v in zip(diff, d):
                    full[i] = v
                return pure(*full)

            _, t = jax.jvp(f, tuple(ins[i] for i in diff), tuple(tangents))
            return tuple(t) if op.multiple_outputs else (t,)

        jop = _jvp_ops[key] = Op(
            f"{op.name}Jvp", jvp_fn, multiple_outputs=True, runs_user_code=op.runs_user_code
        )
    return jop


class ForwardAccumulator:
    """Computes Jacobian-vector products as ops run, with TF's API.

    Args:
      primals: a Tensor/Variable or nested structure of them to differentiate from.
      tangents: the same structure: the direction of each primal.

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant(2.0)
        >>> with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        ...     y = x * x * x
        >>> float(acc.jvp(y))
        12.0
    """

    def __init__(self, primals, tangents):
        self._tangents: dict = {}  # primal tensor/variable id -> tangent Tensor
        self._recording = False
        flat_p = nest.flatten(primals)
        flat_t = nest.flatten(tangents)
        if _structure(primals) != _structure(tangents) or len(flat_p) != len(flat_t):
            raise ValueError("The two structures don't have the same nested structure.")
        seen = set()
        for p in flat_p:
            if p._id in seen:
                raise ValueError(
                    "Tensor {} was specified as a primal multiple times. This may indicate an "
                    "error. If it was intended, please sum the corresponding tangents."
                )
            seen.add(p._id)
        for p, t in zip(flat_p, flat_t):
            self._watch(p, convert_to_tensor(t, dtype=p.dtype))

    def _watch(self, primal, tangent):
        if primal._v.dtype not in DIFF_DTYPES:
            warn_first_n(
                "The dtype of the watched primal must be floating (e.g. tf.float32), got "
                f"{primal.dtype!r}",
                5,
            )
            return
        prev = self._tangents.get(primal._id)
        if prev is not None:  # watching twice sums the tangents, as TF does
            tangent = wrap(prev._value + tangent._value)
        self._tangents[primal._id] = tangent

    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        recorder.push(self)
        self._recording = True
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            recorder.remove(self)
            self._recording = False

    # -- recorder protocol -------------------------------------------------------------

    def record(self, op, static, args, outs):
        tangents = self._tangents
        diff = []
        tans = []
        for i, a in enumerate(args):
            if type(a) is Tensor:
                t = tangents.get(a._id)
                if t is not None:
                    diff.append(i)
                    tans.append(t)
        if not diff or not registry.is_differentiable(op):
            return
        active = recorder.active()
        outer = active[: next(i for i, r in enumerate(active) if r is self)]
        with recorder.only(outer):
            out_tangents = dispatch.apply(
                _jvp_op(op, static, tuple(diff), len(args)), tuple(args) + tuple(tans)
            )
        for o, t in zip(outs, out_tangents):
            if o._v.dtype in DIFF_DTYPES:
                tangents[o._id] = t

    def variable_read(self, var, tensor):
        t = self._tangents.get(var._id)
        if t is not None:
            self._tangents[tensor._id] = t

    def variable_accessed(self, var):
        pass

    def alias(self, sources, targets):
        """Gives ``targets`` the tangents of ``sources`` (a custom gradient's outputs)."""
        for s, t in zip(sources, targets):
            tangent = self._tangents.get(s._id)
            if tangent is not None:
                self._tangents[t._id] = tangent

    # -- results -----------------------------------------------------------------------

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The JVP of each primal in ``primals`` (structure kept); ``None`` if unconnected."""
        mode = _unconnected_mode(unconnected_gradients)

        def one(p):
            t = self._tangents.get(p._id)
            if t is None and mode is UnconnectedGradients.ZERO:
                return wrap(jnp.zeros(p._v.shape, p._v.dtype))
            return t

        return nest.map_structure(one, primals)


def _structure(s):
    if isinstance(s, (list, tuple)):
        return (type(s) is list, tuple(_structure(x) for x in s))
    if isinstance(s, dict):
        return tuple((k, _structure(v)) for k, v in sorted(s.items()))
    return None
