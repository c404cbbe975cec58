"""Lowering: the part of a trace between sources and targets becomes one pure JAX function.

``lower`` prunes a tape's nodes to those on a differentiable path from a source to a
target, numbers everything canonically and returns a cached ``Op`` whose pure
function computes the requested derivative (gradient, jacobian or batch jacobian),
together with the arguments to call it with. Because the result is an ``Op`` applied
through the ordinary dispatch, a derivative computed while another tape records is
recorded like any other op: that is all nesting is.

Invariants:
  * the cache key holds the trace's structure (ops, static arguments, wiring, avals),
    never values: values of captured tensors are *arguments*, so a training loop
    compiles once;
  * sources are differentiated through zero-valued "deltas" added to every leaf that
    stands for them (each read of a Variable, an intermediate tensor's producer output),
    so the gradient of a source is the sum over its leaves by construction;
  * complex gradients follow TF's convention, the conjugate of JAX's.

This module never records anything itself and never looks at a value.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np

from .dispatch import Op
from .tensor import Tensor

__all__ = ["lower", "trace_counts"]

# How many times each kind of derivative program was traced (tests assert on it).
_trace_counts: collections.Counter = collections.Counter()
_CACHE_SIZE = 1024
_cache: collections.OrderedDict = collections.OrderedDict()

DIFF_DTYPES = frozenset(
    np.dtype(d) for d in ("float16", "float32", "float64", "complex64", "complex128")
) | frozenset([jnp.dtype(jnp.bfloat16)])


def trace_counts() -> dict:
    """A copy of the per-kind trace counters of derivative programs."""
    return dict(_trace_counts)


def clear_cache() -> None:
    _cache.clear()


class Lowered:
    """What ``lower`` found: the cached program, its arguments, and who is connected."""

    __slots__ = ("op", "args", "connected", "target_connected", "n_targets")

    def __init__(self, op, args, connected, target_connected):
        self.op = op
        self.args = args
        self.connected = connected  # source indices that get a derivative, in delta order
        self.target_connected = target_connected  # per flat target: on a differentiable path


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _aval(x):
    if type(x) is Tensor:
        v = x._value
        return (v.shape, v.dtype)
    return type(x)


def lower(trace, targets, sources, kind: str, spec: tuple = (), cotangents=None):
    """Finds the differentiable sub-trace and returns a ``Lowered`` (or None if unconnected).

    Args:
      trace: the tape's recording (``nodes``, ``live``, ``var_reads``).
      targets: flat list of Tensors/Variables.
      sources: flat list of unique Tensors/Variables.
      kind: "gradient", "jacobian" or "batch_jacobian".
      spec: static options of the kind (jacobian mode, chunk size).
      cotangents: for "gradient": the output gradients, one per flat target, or None
        (ones are then made inside the program). Those of connected targets are
        appended to the program's arguments.
    """
    live = trace.live
    nodes = trace.nodes

    leaf_src: dict = {}
    leaf_tensor: dict = {}
    for si, s in enumerate(sources):
        leaf_src[s._id] = si
        if _is_var(s):
            for t in trace.var_reads.get(s._id, ()):
                leaf_src[t._id] = si
                leaf_tensor[t._id] = t
        else:
            leaf_tensor[s._id] = s

    target_ids = []
    stack = []
    for t in targets:
        tid = t._id
        if _is_var(t):
            if tid in leaf_src:
                leaf_tensor[tid] = Tensor(t._value)
            if t._value.dtype in DIFF_DTYPES:
                stack.append(tid)
        elif t._value.dtype in DIFF_DTYPES:
            stack.append(tid)
        target_ids.append(tid)
    for s in sources:  # a Variable source's handle stands for its value when it is a target
        if _is_var(s) and s._id not in leaf_tensor:
            leaf_tensor[s._id] = None

    # Backwards from the targets, through differentiable edges only (TF gives None
    # through integer paths and ops registered without a gradient).
    need: set = set()
    needed_nodes: set = set()
    while stack:
        i = stack.pop()
        if i in need:
            continue
        need.add(i)
        p = live.get(i)
        if p is None:
            continue
        idx, pos = p
        op, static, args, outs = nodes[idx]
        if not op.differentiable:
            continue
        needed_nodes.add(idx)
        for a in args:
            if type(a) is Tensor and a._value.dtype in DIFF_DTYPES:
                stack.append(a._id)

    connected_leaves = [i for i in need if i in leaf_src]
    if not connected_leaves:
        return None
    connected_sources = sorted({leaf_src[i] for i in connected_leaves})
    delta_of = {si: d for d, si in enumerate(connected_sources)}

    # Forwards from the connected leaves: only nodes that depend on a source are replayed;
    # everything else they read is a captured constant (an argument, never baked in).
    dep = set(connected_leaves)
    replay = []
    for idx in sorted(needed_nodes):
        args = nodes[idx][2]
        for a in args:
            if type(a) is Tensor and a._id in dep:
                replay.append(idx)
                for o in nodes[idx][3]:
                    dep.add(o._id)
                break
    replayed = set(replay)

    consts: list = []
    env: dict = {}
    for i in connected_leaves:
        p = live.get(i)
        if p is not None and p[0] in replayed:
            continue  # an intermediate source: its delta is added where it is produced
        t = leaf_tensor.get(i)
        if t is None:  # a Variable handle used as a target
            continue
        env[i] = ("c", len(consts), delta_of[leaf_src[i]])
        consts.append(t)

    prog = []
    for n, idx in enumerate(replay):
        op, static, args, outs = nodes[idx]
        refs = []
        for a in args:
            r = env.get(a._id) if type(a) is Tensor else None
            if r is None:
                r = ("c", len(consts), -1)
                consts.append(a)
                if type(a) is Tensor:
                    env[a._id] = r
            refs.append(r)
        out_deltas = []
        for pos, o in enumerate(outs):
            out_deltas.append(delta_of[leaf_src[o._id]] if o._id in leaf_src else -1)
            env[o._id] = ("n", n, pos)
        prog.append((op, static, tuple(refs), tuple(out_deltas)))

    target_refs = []
    for tid in target_ids:
        r = env.get(tid) if tid in need else None
        if r is not None and r[0] == "c" and r[2] < 0:
            r = None  # a captured constant: no path to any source
        target_refs.append(r)
    target_connected = [r is not None for r in target_refs]
    if not any(target_connected):
        return None
    cotangent_avals = None
    if cotangents is not None:
        cts = [c for c, on in zip(cotangents, target_connected) if on]
        cotangent_avals = tuple(_aval(c) for c in cts)
        consts_and_cts = consts + cts
    else:
        consts_and_cts = consts

    delta_avals = []
    for si in connected_sources:
        s = sources[si]
        delta_avals.append((tuple(s._value.shape), s._value.dtype))

    key = (
        kind,
        spec,
        tuple(prog),
        tuple(target_refs),
        tuple(_aval(c) for c in consts),
        tuple(delta_avals),
        cotangent_avals,
    )
    program = _cache.get(key)
    if program is None:
        program = _build(kind, spec, prog, target_refs, len(consts), delta_avals, cotangent_avals)
        _cache[key] = program
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(key)
    return Lowered(program, consts_and_cts, connected_sources, target_connected)


def _make_forward(prog, target_refs):
    live_refs = [r for r in target_refs if r is not None]

    def forward(deltas, consts):
        vals = {}

        def get(r):
            if r[0] == "c":
                v = consts[r[1]]
                return v if r[2] < 0 else v + deltas[r[2]]
            return vals[(r[1], r[2])]

        for n, (op, static, refs, out_deltas) in enumerate(prog):
            out = op.pure(static)(*[get(r) for r in refs])
            outs = out if op.multiple_outputs else (out,)
            for pos, o in enumerate(outs):
                d = out_deltas[pos]
                vals[(n, pos)] = o if d < 0 else o + deltas[d]
        return [get(r) for r in live_refs]

    return forward


def _is_complex(dtype) -> bool:
    return jnp.issubdtype(dtype, jnp.complexfloating)


def _conj(x):
    return jnp.conj(x) if _is_complex(x.dtype) else x


def _build(kind, spec, prog, target_refs, n_consts, delta_avals, cotangent_avals) -> Op:
    forward = _make_forward(prog, target_refs)

    def zeros():
        return tuple(jnp.zeros(shape, dtype) for shape, dtype in delta_avals)

    if kind == "gradient":

        def program(*args):
            _trace_counts[kind] += 1
            consts, cts = args[:n_consts], args[n_consts:]
            outs, vjp = jax.vjp(lambda d: forward(d, consts), zeros())
            if cotangent_avals is None:
                cts = [jnp.ones(o.shape, o.dtype) for o in outs]
            else:
                cts = [jnp.broadcast_to(c, o.shape).astype(o.dtype) for c, o in zip(cts, outs)]
            (grads,) = vjp([_conj(c) for c in cts])
            return tuple(_conj(g) for g in grads)

    elif kind == "jacobian":
        mode, chunk = spec

        def program(*consts):
            _trace_counts[kind] += 1

            def f(d):
                return forward(d, consts)[0]

            d0 = zeros()
            out_aval = jax.eval_shape(f, d0)
            out_shape, out_dtype = out_aval.shape, out_aval.dtype
            if mode == "fwd":
                jac = jax.jacfwd(f)(d0)
                return tuple(jac)
            size = int(np.prod(out_shape))
            if size == 0:
                return tuple(jnp.zeros(out_shape + s, dt) for s, dt in delta_avals)
            _, vjp = jax.vjp(f, d0)
            basis = jnp.eye(size, dtype=out_dtype).reshape((size,) + out_shape)
            if chunk is None or chunk >= size:
                rows = jax.vmap(vjp)(basis)[0]
            else:
                rows = jax.lax.map(lambda b: vjp(b)[0], basis, batch_size=chunk)
            return tuple(
                _conj(r).reshape(out_shape + s) for r, (s, _) in zip(rows, delta_avals)
            )

    elif kind == "batch_jacobian":
        (chunk,) = spec

        def program(*consts):
            _trace_counts[kind] += 1

            def f(d):
                return jnp.sum(forward(d, consts)[0], axis=0)

            d0 = zeros()
            out_aval = jax.eval_shape(f, d0)
            out_shape, out_dtype = out_aval.shape, out_aval.dtype
            (src_shape, src_dtype) = delta_avals[0]
            size = int(np.prod(out_shape))
            if size == 0 or int(np.prod(src_shape)) == 0:
                return (jnp.zeros(src_shape[:1] + out_shape + src_shape[1:], src_dtype),)
            _, vjp = jax.vjp(f, d0)
            basis = jnp.eye(size, dtype=out_dtype).reshape((size,) + out_shape)
            if chunk is None or chunk >= size:
                (rows,) = jax.vmap(vjp)(basis)
            else:
                (rows,) = jax.lax.map(vjp, basis, batch_size=chunk)
            # rows: (size, batch, x...) -> (batch, y..., x...)
            rows = _conj(rows[0] if isinstance(rows, tuple) else rows)
            jac = rows.reshape(out_shape + src_shape)
            return (jnp.moveaxis(jac, len(out_shape), 0),)

    else:  # pragma: no cover - callers pass one of the three
        raise ValueError(kind)

    return Op(kind.title().replace("_", ""), program, multiple_outputs=True)
