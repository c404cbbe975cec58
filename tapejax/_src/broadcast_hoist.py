"""Evaluates a traced program with ``dot(broadcast(a), b)`` computed as
``broadcast(dot(a, b))``, and ``transpose(dot(a, b))`` as ``dot(transpose(a), b)``.

A batch jacobian seeds every row's backward pass with a cotangent broadcast over the
batch (TF's semantics: the jacobian of the batch-summed target). JAX transposes the
target's matmul into a dot of that broadcast, and XLA computes it as written: once per
example, where the values are the same for every example. A hand-written
``jax.vmap(jax.jacrev(f))`` never has the broadcast, so it does one small dot.

``hoisted(fn)`` traces ``fn`` to a jaxpr and evaluates it equation by equation, binding
each primitive as ``jax.core.eval_jaxpr`` does, except a ``dot_general`` with an operand
that only repeats a smaller array along dimensions that neither contract nor batch: that
dot runs on the smaller array and its result is broadcast. Both are exact rewrites (each
output element is the same sum of the same products).

The batch jacobian's rows come out of the vmap row-major (row, example, ...) and the
result wants (example, row, ...). A transpose of a dot's output that only reorders the
free dimensions of one operand is computed instead as the dot of that operand
transposed, when nothing else reads the dot: XLA fuses the operand's transpose into the
loop that makes it, where a transposed output is one more pass (two, when the program
returns a tuple) over the whole jacobian.
"""

from __future__ import annotations

import collections
import contextlib

import jax
from jax import lax
from jax.extend.core import Literal  # as lowering.py imports it

__all__ = ["hoisted"]


def hoisted(fn):
    """``fn`` with broadcast operands of its top-level dots hoisted out of the dot."""

    def run(*args):
        closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
        out = _eval(closed.jaxpr, closed.consts, jax.tree.leaves(args))
        return jax.tree.unflatten(jax.tree.structure(shapes), out)

    return run


def _eval(jaxpr, consts, args):
    env: dict = {}
    spread: dict = {}  # var -> (smaller array, broadcast_dimensions): var repeats it
    dots: dict = {}  # var -> (params, operands) of the dot that made it, read once
    reads = collections.Counter(
        v for e in jaxpr.eqns for v in e.invars if not isinstance(v, Literal)
    )
    reads.update(v for v in jaxpr.outvars if not isinstance(v, Literal))

    def read(v):
        return v.val if isinstance(v, Literal) else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        ins = [read(v) for v in eqn.invars]
        if name == "dot_general":
            out = _dot(eqn, ins, [spread.get(v) for v in eqn.invars])
            if out is not None:
                small, dims, value = out
                (var,) = eqn.outvars
                env[var] = value
                spread[var] = (small, dims)
                continue
        if name == "transpose" and eqn.invars[0] in dots:
            value = _transposed_dot(eqn.params["permutation"], *dots[eqn.invars[0]])
            if value is not None:
                env[eqn.outvars[0]] = value
                continue
        params = eqn.primitive.get_bind_params(eqn.params)
        # Older JAX returns (subfuns, params).
        subfuns, params = params if isinstance(params, tuple) else ((), params)
        ctx = getattr(eqn, "ctx", None)  # JAX's per-equation context, where it has one
        with ctx.manager if ctx is not None else contextlib.nullcontext():
            outs = eqn.primitive.bind(*subfuns, *ins, **params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for var, x in zip(eqn.outvars, outs):
            env[var] = x
        if name == "dot_general" and reads[eqn.outvars[0]] == 1:
            dots[eqn.outvars[0]] = (params, ins)
        if name == "broadcast_in_dim" and not eqn.params.get("sharding"):
            (src,) = ins
            dims = [int(d) for d in eqn.params["broadcast_dimensions"]]
            shape = eqn.params["shape"]
            # A size-1 dimension stretched is repeated too: drop it from the small array.
            stretched = [i for i, d in enumerate(dims) if src.shape[i] == 1 != shape[d]]
            if stretched:
                src = lax.squeeze(src, stretched)
                dims = [d for i, d in enumerate(dims) if i not in stretched]
            spread[eqn.outvars[0]] = (src, tuple(dims))
    return [read(v) for v in jaxpr.outvars]


def _dot(eqn, ins, spreads):
    """``(small result, its broadcast dimensions, the dot's value)`` when an operand of
    the dot is a broadcast along free dimensions; None otherwise."""
    (contract, batch) = eqn.params["dimension_numbers"]
    for side in (0, 1):
        s = spreads[side]
        if s is None:
            continue
        small, dims = s
        big_ndim = ins[side].ndim
        new = set(range(big_ndim)) - set(dims)
        if not new or new & (set(contract[side]) | set(batch[side])):
            continue
        to_small = {d: i for i, d in enumerate(dims)}
        c = [list(contract[0]), list(contract[1])]
        b = [list(batch[0]), list(batch[1])]
        c[side] = [to_small[d] for d in c[side]]
        b[side] = [to_small[d] for d in b[side]]
        operands = list(ins)
        operands[side] = small
        params = dict(
            eqn.params, dimension_numbers=((tuple(c[0]), tuple(c[1])), (tuple(b[0]), tuple(b[1])))
        )
        result = lax.dot_general_p.bind(*operands, **params)
        # Output dimensions: batch, then lhs free, then rhs free; the small operand's
        # free dimensions are the big one's minus the broadcast ones, in the same order.
        n_batch = len(batch[0])
        free = [
            [d for d in range(ins[k].ndim) if d not in contract[k] and d not in batch[k]]
            for k in (0, 1)
        ]
        offset = [n_batch, n_batch + len(free[0])]
        kept = list(range(n_batch))
        for k in (0, 1):
            kept += [offset[k] + j for j, d in enumerate(free[k]) if k != side or d not in new]
        (var,) = eqn.outvars
        value = lax.broadcast_in_dim(result, var.aval.shape, tuple(kept))
        return result, tuple(kept), value
    return None


def _transposed_dot(perm, params, ins):
    """``transpose(dot(lhs, rhs), perm)`` computed as a dot of one operand transposed,
    when ``perm`` keeps the batch dimensions and reorders only that operand's free
    dimensions; None otherwise."""
    (contract, batch) = params["dimension_numbers"]
    perm = [int(p) for p in perm]
    free = [
        [d for d in range(x.ndim) if d not in contract[k] and d not in batch[k]]
        for k, x in enumerate(ins)
    ]
    # Output dimensions: batch, then lhs free, then rhs free.
    start = [len(batch[0]), len(batch[0]) + len(free[0])]
    blocks = [range(start[0]), range(start[0], start[1]), range(start[1], len(perm))]
    for side in (0, 1):
        fixed = [i for k, block in enumerate(blocks) if k != side + 1 for i in block]
        if any(perm[i] != i for i in fixed):
            continue
        axes = list(range(ins[side].ndim))
        for j, d in enumerate(free[side]):
            axes[d] = free[side][perm[start[side] + j] - start[side]]
        operands = list(ins)
        operands[side] = lax.transpose(ins[side], tuple(axes))
        return lax.dot_general_p.bind(*operands, **params)
    return None
