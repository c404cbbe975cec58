"""What ``GradientTape.gradient``/``jacobian``/``batch_jacobian`` do with a recording.

They hand the trace to ``lowering``, check what TF's kernels would check (output
gradients' dtypes and shapes, ``parallel_iterations``), apply the lowered program as an
op (so an enclosing tape records it) and collect one result per source.
"""

from __future__ import annotations

import jax.numpy as jnp

from . import dispatch, lazy, lowering, plans, recorder
from .dtypes import from_array_dtype, tf_type_name
from .errors import InvalidArgumentError
from .tensor import Pending, Tensor, wrap


def _check_parallel_iterations(n, what: str):
    if n is None:
        return
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        cause = ValueError(
            f"Argument `parallel_iterations` must be None or a positive integer. Received: {n}."
        )
    elif n == 1:
        cause = ValueError("Found `parallel_iterations == 1`. Use `for_loop` instead.")
    else:
        return
    raise ValueError(
        f"Encountered an exception while vectorizing the {what} computation. Vectorization can "
        "be disabled by setting experimental_use_pfor to False."
    ) from cause


def _unique_sources(flat_sources):
    index: dict = {}
    unique = []
    positions = []
    for s in flat_sources:
        p = index.get(s._id)
        if p is None:
            p = index[s._id] = len(unique)
            unique.append(s)
        positions.append(p)
    return unique, positions


def _cotangent(g, t):
    """Checks an output gradient against its target as TF's kernels would."""
    tv, gv = t._value, g._value
    if not from_array_dtype(tv.dtype).is_differentiable:
        return g
    if tv.dtype != gv.dtype:
        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute Mul as input #1(zero-based) was expected to be a "
            f"{tf_type_name(tv.dtype)} tensor but is a {tf_type_name(gv.dtype)} tensor [Op:Mul]",
        )
    if tv.shape != gv.shape:
        try:
            jnp.broadcast_shapes(tv.shape, gv.shape)
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes: [{','.join(map(str, gv.shape))}] vs. "
                f"[{','.join(map(str, tv.shape))}] [Op:Mul]",
            ) from None
    return g


def _gradient(trace, targets, sources, out_grads):
    """Per unique source: a gradient Tensor or None."""
    result = [None] * len(sources)
    # An integer/bool source that is itself a target gets ones (TF's identity rule); any op
    # path through integers is unconnected, which lowering decides.
    src_index = {s._id: i for i, s in enumerate(sources)}
    for k, t in enumerate(targets):
        i = src_index.get(t._id)
        if i is not None and not from_array_dtype(t._v.dtype).is_differentiable:
            one = (
                out_grads[k]._value
                if out_grads is not None and k < len(out_grads)
                else jnp.ones(t._v.shape, t._v.dtype)
            )
            prev = result[i]
            result[i] = wrap(one if prev is None else prev._value + one)

    if out_grads is not None:
        if len(out_grads) < len(targets):
            raise ValueError(
                f"output_gradients has {len(out_grads)} entries for {len(targets)} targets; give "
                "one per flattened target"
            )
        # Extra output gradients are ignored, as TF ignores them.
        out_grads = [_cotangent(g, t) for g, t in zip(out_grads, targets)]
    lowered, grads = _derive(trace, targets, sources, "gradient", (), out_grads)
    if lowered is None:
        return result
    _collect(result, lowered, grads)
    return result


def _derive(trace, targets, sources, kind, spec, cotangents=None):
    """Lowers and runs a derivative: ``(lowered, outputs)``, or ``(None, None)`` when no
    source is connected. A trace of deferred ops (``lazy.py``) has a plan (``plans.py``),
    made by its first lowering and found by structure afterwards."""
    key = None
    if not recorder._state.recorders:
        key = plans.plan_key(trace, kind, spec, targets, sources, cotangents)
    plan = None if key is None else plans._plans.get(key)
    if plan is None:
        if key is None:
            lowered = plans.lower_cached(trace, targets, sources, kind, spec, cotangents)
        else:
            lowered = lowering.lower(trace, targets, sources, kind, spec, cotangents)
            plan = plans.make_plan(key, trace, lowered)
        if plan is None:
            return (None, None) if lowered is None else (lowered, _run(lowered, trace))
    if plan.lowered is None:
        return None, None
    if trace.single_use:  # nothing else will read this recording: defer the derivative too
        outs = plan.defer(trace, cotangents)
        if outs is not None:
            return plan.lowered, outs
    return plan.lowered, tuple(map(wrap, plan.run(trace, cotangents)))


def _run(lowered, trace):
    """Applies the lowered program. With no tape recording it, the forward work still
    pending in ``trace`` (deferred ops, ``lazy.py``) is computed in the same program."""
    args = lowered.args
    if not recorder._state.recorders and (
        lazy.pending_nodes(trace) or any(type(a) is Tensor and type(a._v) is Pending for a in args)
    ):
        return tuple(wrap(o) for o in lazy.run_fused(lowered.op, args, trace))
    return dispatch.apply(lowered.op, tuple(args))


def _collect(result, lowered, outputs):
    """Stores each connected source's output; sources no cotangent reached stay None."""
    missing = lowered.op.fn.missing
    for k, (si, g) in enumerate(zip(lowered.connected, outputs)):
        if k not in missing:
            result[si] = g if result[si] is None else wrap(result[si]._value + g._value)


def _jacobian(trace, target, sources, parallel_iterations):
    if not from_array_dtype(target._v.dtype).is_differentiable:
        return [None] * len(sources)
    target_size = int(target.shape.num_elements())
    source_size = sum(int(s.shape.num_elements()) for s in sources)
    complex_involved = from_array_dtype(target._v.dtype).is_complex or any(
        from_array_dtype(s._v.dtype).is_complex for s in sources
    )
    mode = (
        "fwd"
        if source_size < target_size and parallel_iterations is None and not complex_involved
        else "rev"
    )
    lowered, jacs = _derive(trace, [target], sources, "jacobian", (mode, parallel_iterations))
    result = [None] * len(sources)
    if lowered is None:
        return result
    _collect(result, lowered, jacs)
    return result


def _batch_jacobian(trace, target, source, parallel_iterations):
    if not from_array_dtype(target._v.dtype).is_differentiable:
        return None
    # Always reverse mode: TF's answer is the jacobian of the batch-summed target, row by
    # row. Forward mode with a batch-broadcast tangent gives its transpose's batch sums
    # instead: the same numbers only while examples do not interact.
    lowered, out = _derive(
        trace, [target], [source], "batch_jacobian", ("rev", parallel_iterations)
    )
    if lowered is None:
        return None
    (jac,) = out
    return None if lowered.op.fn.missing else jac
