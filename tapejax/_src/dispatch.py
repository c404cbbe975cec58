"""The one op mechanism: a pure JAX function becomes a recorded, TF-semantics op.

``Op`` holds the pure function; ``apply`` unwraps inputs, runs the function (jitted,
cached per static arguments), wraps outputs in fresh Tensors and offers the call to
every active recorder. Nothing else touches tapes. This is the per-op hot path: keep
it free of anything that is not needed for every op.
"""

from __future__ import annotations

import functools

import jax

from . import lazy, recorder
from .errors import InvalidArgumentError
from .tensor import Pending, Tensor, wrap

__all__ = ["Op", "apply", "apply_unrecorded"]

_state = recorder._state


class Op:
    """A named pure JAX function with the facts a tape needs about it.

    Args:
        name: TF's op type name ("MatMul", "AddV2"): used in error texts and as the key of
            the gradient registry.
        fn: ``fn(*arrays, **static) -> array | tuple of arrays``; must be pure and
            traceable, with every non-array argument passed by keyword as ``static``.
        differentiable: ``False`` for ops TF registers without a gradient (``Round``,
            ``ArgMax``): their outputs are unconnected from their inputs, so a tape
            returns ``None`` through them, as TF does.
        multiple_outputs: ``fn`` returns a tuple of arrays.
        runs_user_code: ``fn`` calls user Python (derivative programs, custom gradients):
            its exceptions propagate unchanged instead of becoming InvalidArgumentError.
    """

    __slots__ = (
        "name",
        "fn",
        "differentiable",
        "multiple_outputs",
        "runs_user_code",
        "_compiled",
        "_pure",
        "__weakref__",
    )

    def __init__(
        self, name, fn, *, differentiable=True, multiple_outputs=False, runs_user_code=False
    ):
        self.name = name
        self.fn = fn
        self.differentiable = differentiable
        self.multiple_outputs = multiple_outputs
        self.runs_user_code = runs_user_code
        self._compiled = {}
        self._pure = {}
        from .registry import register_op  # the registry knows every op name

        register_op(self)

    def compiled(self, static: tuple):
        """``fn`` with ``static`` bound, jitted: the eager path (cached per static)."""
        try:
            return self._compiled[static]
        except KeyError:
            f = self._compiled[static] = jax.jit(self.pure(static))
            return f

    def pure(self, static: tuple):
        """``fn`` with ``static`` bound, not jitted: what lowering replays inside a trace."""
        try:
            return self._pure[static]
        except KeyError:
            f = self.fn if not static else functools.partial(self.fn, **dict(static))
            self._pure[static] = f
            return f

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


def apply(op: Op, args: tuple, static: tuple = ()):
    """Runs ``op`` on ``args`` (Tensors or Python scalars) and offers it to the recorders.

    Under recording tapes, an op they record is deferred (``lazy.record``, or
    ``lazy.record_nested`` under several): derivative programs too, but no other op
    that runs user code.
    """
    recs = _state.recorders
    if recs and (not op.runs_user_code or getattr(op.fn, "derivative_program", False)):
        if len(recs) == 1:
            if type(recs[0]) is lazy.TRACE:
                out = lazy.record(op, static, args, recs[0])
                if out is not None:
                    return out
        else:
            out = lazy.record_nested(op, static, args, recs)
            if out is not None:
                return out
    values = [a._v if type(a) is Tensor else a for a in args]
    for v in values:
        if type(v) is Pending:  # deferred under a tape (lazy.py)
            if not recs:  # an update after a deferred gradient: deferred with it
                out = lazy.record_after(op, static, args)
                if out is not None:
                    return out
            # Every pending input at once: one program, not one per input.
            Pending.compute([v for v in values if type(v) is Pending])
            values = [a._value if type(a) is Tensor else a for a in args]
            break
    compiled = op._compiled.get(static) or op.compiled(static)
    try:
        out = compiled(*lazy.device_scalars(values))
    except (TypeError, ValueError) as e:
        if op.runs_user_code or isinstance(e, jax.errors.JAXTypeError):
            raise
        raise InvalidArgumentError(None, None, f"{e} [Op:{op.name}]") from None
    if op.multiple_outputs:
        outs = tuple(wrap(o) for o in out)
        if recs:
            for r in recs:
                r.record(op, static, args, outs)
        return outs
    t = wrap(out)
    if recs:
        outs = (t,)
        for r in recs:
            r.record(op, static, args, outs)
    return t


def apply_unrecorded(op: Op, args: tuple, static: tuple = ()):
    """Runs ``op`` with no recorder seeing it (``stop_gradient`` and friends)."""
    with recorder.paused():
        return apply(op, args, static)
