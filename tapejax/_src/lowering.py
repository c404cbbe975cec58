"""Lowering: the part of a trace between sources and targets becomes one pure JAX function.

``lower`` prunes a tape's nodes to those on a differentiable path from a source to a
target, numbers everything canonically and returns a cached ``Op`` whose pure function
computes the requested derivative (gradient, jacobian or batch jacobian), with the
arguments to call it with. Because the result is applied as an ordinary op, a
derivative computed while another tape records is recorded like any other op: that is
all nesting is.

The program back-propagates node by node from the *recorded* inputs of each node (the
tape's saved tensors, passed as arguments), as TF's tape does, instead of re-running
the forward pass: each node's ``jax.vjp`` needs only its own inputs, and XLA drops the
forward work it does not need. The whole backward is still one XLA program.

Invariants:
  * the cache key holds the trace's structure (ops, static arguments, wiring, avals),
    never values: values are *arguments*, so a training loop compiles once;
  * the gradient of a source is the sum of the cotangents reaching each tensor that
    stands for it (the source itself, or each read of a Variable);
  * complex gradients follow TF's convention, the conjugate of JAX's.

This module never records anything itself and never looks at a value.
"""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Literal as _Literal

from . import broadcast_hoist, lazy, registry
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
    from . import plans  # plans imports this module

    _cache.clear()
    lazy.clear_caches()
    plans.clear()


class Lowered:
    """What ``lower`` found: the cached program, its arguments, and who is connected."""

    __slots__ = ("op", "args", "connected", "target_connected", "origins")

    def __init__(self, op, args, connected, target_connected, origins=()):
        self.op = op
        self.args = args
        self.connected = connected  # indices of the sources that get a derivative, in order
        self.target_connected = target_connected  # per flat target: on a differentiable path
        self.origins = origins  # per program argument before the cotangents: (node, arg)


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _aval(x):
    if type(x) is Tensor:
        v = x._v  # a pending value's shape and dtype are known: nothing is computed
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

    # Leaves in a canonical order (source order, then read order): the cache key and the
    # argument order must not depend on set iteration order.
    leaf_src: dict = {}
    for si, s in enumerate(sources):
        leaf_src[s._id] = si
        if _is_var(s):
            for t in trace.var_reads.get(s._id, ()):
                leaf_src[t._id] = si

    stack = [t._id for t in targets if t._v.dtype in DIFF_DTYPES]

    # Backwards from the targets, through differentiable edges only (TF gives None
    # through integer paths and ops registered without a gradient). This loop and the
    # ones below run on every gradient call: keep them lean.
    diff_dtypes = DIFF_DTYPES
    user_registry = registry._registry
    need: set = set()
    needed_nodes: set = set()
    seen_outputs: set = set()
    while stack:
        i = stack.pop()
        if i in need:
            continue
        need.add(i)
        p = live.get(i)
        if p is None:
            continue
        idx = p[0]
        op, static, args, _ = nodes[idx]
        if op.runs_user_code and getattr(op.fn, "derivative_program", False):
            # A derivative computed under this tape: follow only the arguments this output
            # really depends on (TF's gradient graph would not connect the others).
            if p in seen_outputs:
                continue
            seen_outputs.add(p)
            needed_nodes.add(idx)
            deps = _derivative_dependencies(op, static, args)[p[1]]
            for j, a in enumerate(args):
                if j in deps and type(a) is Tensor and a._v.dtype in diff_dtypes:
                    stack.append(a._id)
            continue
        if idx in needed_nodes:
            continue
        if not (registry.is_differentiable(op) if user_registry else op.differentiable):
            continue
        needed_nodes.add(idx)
        for a in args:
            if type(a) is Tensor and a._v.dtype in diff_dtypes:
                stack.append(a._id)

    connected_leaves = [i for i in leaf_src if i in need]
    if not connected_leaves:
        return None

    # Forwards from the connected leaves: only nodes that depend on a source are replayed.
    dep = set(connected_leaves)
    replay = []
    for idx in sorted(needed_nodes):
        node = nodes[idx]
        for a in node[2]:
            if type(a) is Tensor and a._id in dep:
                replay.append((idx, node))
                for o in node[3]:
                    dep.add(o._id)
                break

    slots: dict = {}
    consts: list = []
    const_index: dict = {}
    origins: list = []  # per const: (node index, argument position) of its first use
    prog = []
    for idx, (op, static, args, outs) in replay:
        refs = []
        for j, a in enumerate(args):
            if type(a) is Tensor:
                aid = a._id
                k = const_index.get(aid)
                if k is None:
                    k = const_index[aid] = len(consts)
                    consts.append(a)
                    origins.append((idx, j))
                if aid in dep and aid in need:
                    s = slots.get(aid)
                    if s is None:
                        s = slots[aid] = len(slots)
                else:
                    s = -1
            else:
                k = len(consts)
                consts.append(a)
                origins.append((idx, j))
                s = -1
            refs.append((k, s))
        out_slots = []
        for o in outs:
            oid = o._id
            if oid in need:
                s = slots.get(oid)
                if s is None:
                    s = slots[oid] = len(slots)
                out_slots.append(s)
            else:
                out_slots.append(-1)
        prog.append((op, static, tuple(refs), tuple(out_slots)))

    target_slots = []
    target_avals = []
    target_connected = []
    for t in targets:
        tid = t._id
        on = tid in need and tid in dep
        target_connected.append(on)
        if on:
            s = slots.get(tid)
            if s is None:
                s = slots[tid] = len(slots)
            target_slots.append(s)
            target_avals.append((t._v.shape, t._v.dtype))
    if not target_slots:
        return None

    groups: dict = {}
    for i in connected_leaves:
        s = slots.get(i)
        if s is not None:
            groups.setdefault(leaf_src[i], []).append(s)
    connected = sorted(groups)
    source_groups = tuple(tuple(groups[si]) for si in connected)
    source_avals = tuple((sources[si]._v.shape, sources[si]._v.dtype) for si in connected)

    if spec and spec[0] == "fwd" and not all(_forward_ok(op, static) for op, static, _, _ in prog):
        spec = ("rev",) + tuple(spec[1:])

    args = consts
    cotangent_avals = None
    if cotangents is not None:
        cts = [c for c, on in zip(cotangents, target_connected) if on]
        cotangent_avals = tuple(_aval(c) for c in cts)
        args = consts + cts

    key = (
        kind,
        spec,
        tuple(prog),
        tuple(target_slots),
        tuple(target_avals),
        source_groups,
        source_avals,
        tuple((c._v.shape, c._v.dtype) if type(c) is Tensor else type(c) for c in consts),
        cotangent_avals,
    )
    program = _cache.get(key)
    if program is None:
        program = _build(
            kind,
            spec,
            prog,
            target_slots,
            target_avals,
            source_groups,
            source_avals,
            len(consts),
            cotangent_avals is not None,
        )
        _cache[key] = program
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return Lowered(program, args, connected, target_connected, origins)


def _forward_ok(op, static) -> bool:
    """Whether forward mode gives this op's TF derivative: not when a reverse-only rule
    (a custom or registered gradient, a ``jax.custom_vjp``) stands in for JAX's."""
    return not op.runs_user_code and registry.gradient_override(op, static) is None


_dependency_cache: dict = {}


def _dependencies(op, static, args) -> list:
    """For each output of ``op``, the set of argument positions it structurally depends on."""
    avals = tuple(_aval(a) for a in args)
    key = (op, static, avals)
    deps = _dependency_cache.get(key)
    if deps is None:
        specs = [
            jax.ShapeDtypeStruct(a._v.shape, a._v.dtype) if type(a) is Tensor else a for a in args
        ]
        saved = _trace_counts.copy()
        try:
            # A derivative program's own function, not its jitted replay (``_build``): the
            # walk below does not look inside a nested jit.
            fn = op.fn if getattr(op.fn, "derivative_program", False) else op.pure(static)
            jaxpr = jax.make_jaxpr(fn)(*specs).jaxpr
        finally:
            _trace_counts.clear()
            _trace_counts.update(saved)
        env = {v: frozenset([i]) for i, v in enumerate(jaxpr.invars)}
        for eqn in jaxpr.eqns:
            d = frozenset().union(
                *[env.get(v, frozenset()) for v in eqn.invars if not isinstance(v, _Literal)]
            )
            for o in eqn.outvars:
                env[o] = d
        deps = [
            frozenset() if isinstance(v, _Literal) else env.get(v, frozenset())
            for v in jaxpr.outvars
        ]
        _dependency_cache[key] = deps
    return deps


# TF's gradients of these ops' gradients give zeros for the op's input (ReluGradGrad and
# kin return ``zeros_like(features)``; CRelu is TF's Relu of a concat), though their
# derivatives read the input only through a comparison: a second derivative through
# them is connected (zeros), not None.
_CONNECTED_THROUGH_COMPARISON = frozenset(
    {"Relu", "Relu6", "LeakyRelu", "CRelu", "MaxPoolWithArgmax"}
)
# Primitives whose TF counterparts have no gradient (Floor, Ceil, Round: None).
_NO_GRADIENT_PRIMITIVES = frozenset({"floor", "ceil", "round", "stop_gradient"})


def _derivative_dependencies(op, static, args) -> list:
    """For each output of a derivative program recorded under a tape, the argument
    positions it depends on as TF's gradient graph would: through the primal values each
    node's derivative reads on a differentiable path (float values, not comparisons or
    indices), and through the cotangents. TF then gives None where a gradient of a
    gradient has no such path (the gradient of ``maximum``, ``sort`` or a linear op does
    not depend on its input). Falls back to every argument a program reads."""
    fn = op.fn
    structure = getattr(fn, "structure", None)
    if structure is None:
        return _dependencies(op, static, args)
    key = tuple(_aval(a) for a in args)
    cache = fn.__dict__.setdefault("dependency_cache", {})
    deps = cache.get(key)
    if deps is None:
        saved = _trace_counts.copy()
        try:
            deps = _program_dependencies(structure, args)
        except Exception:  # noqa: BLE001 - an op the analysis cannot trace: be conservative
            deps = _dependencies(op, static, args)
        finally:
            _trace_counts.clear()
            _trace_counts.update(saved)
        cache[key] = deps
    return deps


def _program_dependencies(structure, args) -> list:
    """``_derivative_dependencies`` of one program: the cotangent of each slot depends on
    the cotangents it is made of and on the arguments the derivatives on its way read."""
    prog, target_slots, groups, n_consts, has_cts = structure
    ct: dict = {}
    for k, s in enumerate(target_slots):
        seed = frozenset([n_consts + k]) if has_cts else frozenset()
        ct[s] = ct.get(s, frozenset()) | seed
    for op, static, refs, out_slots in reversed(prog):
        outs = [ct[s] for s in out_slots if s >= 0 and s in ct]
        if not outs:
            continue
        diff = [i for i, (_, s) in enumerate(refs) if s >= 0]
        uses = _vjp_uses(op, static, [args[k] for k, _ in refs], diff)
        base = frozenset().union(*outs)
        none_inputs = getattr(op.fn, "none_inputs", ())
        for i in diff:
            if i in none_inputs:
                continue
            read = frozenset(refs[j][0] for j in uses[i] if type(args[refs[j][0]]) is Tensor)
            s = refs[i][1]
            ct[s] = ct.get(s, frozenset()) | base | read
    return [frozenset().union(*(ct.get(s, frozenset()) for s in group)) for group in groups]


_vjp_uses_cache: dict = {}


def _vjp_uses(op, static, ins, diff) -> dict:
    """For each differentiable input ``i`` of a node, the input positions whose values its
    cotangent depends on along a differentiable path (``_walk``)."""
    key = (op, static, tuple(_aval(a) for a in ins), tuple(diff))
    uses = _vjp_uses_cache.get(key)
    if uses is not None:
        return uses
    tensors = [j for j, a in enumerate(ins) if type(a) is Tensor]
    if op.name in _CONNECTED_THROUGH_COMPARISON or op.runs_user_code:
        # User code (a Keras layer's call, a custom gradient, a nested derivative) is not
        # TF's ops one by one: which of its reads TF would connect is unknown, so all are.
        uses = {i: frozenset(tensors) for i in diff}
    else:
        specs = [jax.ShapeDtypeStruct(ins[j]._v.shape, ins[j]._v.dtype) for j in tensors]

        def node(xs):
            full = list(ins)
            for j, x in zip(tensors, xs):
                full[j] = x
            return _node_fn(op, static, full, diff), [full[i] for i in diff]

        def forward(*xs):
            f, primals = node(xs)
            return f(*primals)

        out = jax.eval_shape(forward, *specs)
        ct_specs, treedef = jax.tree_util.tree_flatten(out)

        def vjp(*flat):
            f, primals = node(flat[: len(tensors)])
            _, pullback = jax.vjp(f, *primals)
            return pullback(jax.tree_util.tree_unflatten(treedef, flat[len(tensors) :]))

        jaxpr = jax.make_jaxpr(vjp)(*specs, *ct_specs).jaxpr
        reads = _walk(jaxpr, [frozenset([j]) for j in tensors] + [frozenset()] * len(ct_specs))
        uses = dict(zip(diff, reads))
    if len(_vjp_uses_cache) >= _CACHE_SIZE:
        _vjp_uses_cache.clear()
    _vjp_uses_cache[key] = uses
    return uses


def _inexact(var) -> bool:
    dtype = getattr(var.aval, "dtype", None)
    return dtype is not None and jnp.issubdtype(dtype, jnp.inexact)


def _sub_jaxpr(eqn):
    for name in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        sub = eqn.params.get(name)
        if sub is not None:
            sub = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's own
            if len(sub.invars) == len(eqn.invars) and len(sub.outvars) == len(eqn.outvars):
                return sub
    return None


def _walk(jaxpr, in_deps) -> list:
    """Which inputs each output of ``jaxpr`` depends on through float values: an integer
    or bool value (a comparison, an index) and a primitive TF gives no gradient end a
    path, as they end TF's gradient graph. Nested calls and conditionals' branches are
    walked through; loops join all their inputs."""
    env = dict(zip(jaxpr.invars, in_deps))
    none = frozenset()
    for eqn in jaxpr.eqns:
        ins = [none if isinstance(v, _Literal) else env.get(v, none) for v in eqn.invars]
        sub = _sub_jaxpr(eqn)
        if sub is not None:
            outs = _walk(sub, ins)
        elif eqn.primitive.name == "cond":  # the branches' union; the index is an integer
            outs = [none] * len(eqn.outvars)
            for branch in eqn.params["branches"]:
                outs = [a | b for a, b in zip(outs, _walk(branch.jaxpr, ins[1:]))]
        elif eqn.primitive.name in _NO_GRADIENT_PRIMITIVES:
            outs = [none] * len(eqn.outvars)
        else:
            outs = [frozenset().union(*ins)] * len(eqn.outvars)
        for o, d in zip(eqn.outvars, outs):
            env[o] = d if _inexact(o) else none
    return [none if isinstance(v, _Literal) else env.get(v, none) for v in jaxpr.outvars]


def _conj(x):
    return jnp.conj(x) if jnp.issubdtype(x.dtype, jnp.complexfloating) else x


def _node_fn(op, static, ins, diff, reverse=True):
    """``op`` as a function of its differentiable inputs only, the rest closed over.

    In reverse mode a registered (or built-in TF) gradient rule replaces the op's own
    derivative; those rules are VJPs, so forward mode always uses the op itself.
    """
    pure = (reverse and registry.gradient_override(op, static)) or op.pure(static)

    def f(*d):
        full = list(ins)
        for i, v in zip(diff, d):
            full[i] = v
        return pure(*full)

    return f


def _backprop(prog, consts, ct: dict, source_groups, source_avals):
    """Reverse accumulation over the replayed nodes from seed cotangents ``ct`` (slot -> array)."""
    for op, static, refs, out_slots in reversed(prog):
        out_cts = [_take(ct, s) if s >= 0 else None for s in out_slots]
        if all(c is None for c in out_cts):
            continue
        diff = [i for i, (_, s) in enumerate(refs) if s >= 0]
        ins = [consts[k] for k, _ in refs]
        region = diff == [0] and _slice_region(op, static, ins[0].shape)
        if region:
            _add_block(ct, refs[0][1], ins[0], *region, out_cts[0])
            continue
        out, vjp = jax.vjp(_node_fn(op, static, ins, diff), *[ins[i] for i in diff])
        if op.multiple_outputs:
            seed = tuple(
                c if c is not None else jnp.zeros(o.shape, o.dtype) for c, o in zip(out_cts, out)
            )
        else:
            seed = out_cts[0]
        input_grads = vjp(seed)
        # A custom gradient that returned None for an input leaves it unconnected (TF).
        none_inputs = getattr(op.fn, "none_inputs", ())
        for i, g in zip(diff, input_grads):
            if i in none_inputs:
                continue
            _add(ct, refs[i][1], g)
    grads = []
    missing = []
    for k, (group, (shape, dtype)) in enumerate(zip(source_groups, source_avals)):
        parts = [_take(ct, s) for s in group if s in ct]
        if not parts:
            missing.append(k)
        g = parts[0] if parts else jnp.zeros(shape, dtype)
        for p in parts[1:]:
            g = g + p
        grads.append(g)
    return tuple(grads), tuple(missing)


# -- cotangents of slices -----------------------------------------------------------------
#
# The VJP of a basic slice is a zero-padded copy of the cotangent; an LSTM's gates (four
# slices of one matmul) would sum four pads, and XLA's CPU backend fuses such sums into
# loops that recompute their operands per element: 2-3x slower than the concatenation
# a hand-written ``jnp.split`` transposes to. So a slice's cotangent is kept as a block
# (its region and values) and a slot's blocks are materialised when the slot is read:
# disjoint blocks along one axis become one concatenation (zeros filling the gaps).


class _Blocks:
    """A slot's pending cotangent: a dense part (or None) plus ``(starts, block)`` pieces."""

    __slots__ = ("shape", "dtype", "dense", "blocks")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.dense, self.blocks = tuple(shape), dtype, None, []

    def materialize(self):
        out = self._concatenated()
        if out is None:
            out = jnp.zeros(self.shape, self.dtype)
            for starts, block in self.blocks:
                index = tuple(slice(a, a + n) for a, n in zip(starts, block.shape))
                out = out.at[index].add(block)
        return out if self.dense is None else self.dense + out

    def _concatenated(self):
        """The blocks as one concatenation along the one axis they split, else None."""
        axes = {
            d
            for starts, block in self.blocks
            for d, (a, n) in enumerate(zip(starts, block.shape))
            if a != 0 or n != self.shape[d]
        }
        if len(axes) > 1:
            return None
        axis = axes.pop() if axes else 0
        pieces, at = [], 0
        for starts, block in sorted(self.blocks, key=lambda sb: sb[0][axis]):
            if starts[axis] < at:  # overlapping blocks
                return None
            if starts[axis] > at:
                gap = list(self.shape)
                gap[axis] = starts[axis] - at
                pieces.append(jnp.zeros(gap, self.dtype))
            pieces.append(block.astype(self.dtype))
            at = starts[axis] + block.shape[axis]
        if at < self.shape[axis]:
            gap = list(self.shape)
            gap[axis] = self.shape[axis] - at
            pieces.append(jnp.zeros(gap, self.dtype))
        return pieces[0] if len(pieces) == 1 else jnp.concatenate(pieces, axis=axis)


def _add(ct: dict, slot: int, g) -> None:
    prev = ct.get(slot)
    if prev is None:
        ct[slot] = g
    elif type(prev) is _Blocks:
        prev.dense = g if prev.dense is None else prev.dense + g
    else:
        ct[slot] = prev + g


def _add_block(ct: dict, slot: int, x, starts, kept_shape, g) -> None:
    prev = ct.get(slot)
    if type(prev) is not _Blocks:
        ct[slot] = pending = _Blocks(x.shape, x.dtype)
        pending.dense = prev
    else:
        pending = prev
    pending.blocks.append((starts, g.reshape(kept_shape)))


def _take(ct: dict, slot: int):
    g = ct.get(slot)
    if type(g) is _Blocks:
        g = ct[slot] = g.materialize()
    return g


def _slice_region(op, static, shape):
    """``(starts, block shape)`` when ``op`` is a static unit-step slice of an array of
    ``shape`` (ints and ``newaxis`` allowed); else None. The cotangent of the slice's
    output, reshaped to the block shape, is the input's cotangent in that region."""
    if op.name != "StridedSlice" or registry.gradient_override(op, static):
        return None
    spec = dict(static).get("spec")
    if not isinstance(spec, tuple) or any(
        not isinstance(e, tuple) or not e or e[0] not in "isne" for e in spec
    ):
        return None
    consumed = sum(e[0] in "is" for e in spec)
    if consumed > len(shape) or sum(e[0] == "e" for e in spec) > 1:
        return None
    starts, sizes, dim = [], [], 0
    for e in spec:
        tag = e[0]
        if tag == "e":
            for _ in range(len(shape) - consumed):
                starts.append(0)
                sizes.append(shape[dim])
                dim += 1
        elif tag == "i":
            i = e[1] + shape[dim] if e[1] < 0 else e[1]
            if not 0 <= i < shape[dim]:
                return None
            starts.append(i)
            sizes.append(1)
            dim += 1
        elif tag == "s":
            if len(e) != 4 or e[3] not in (None, 1):
                return None
            a, b, _ = slice(e[1], e[2], 1).indices(shape[dim])
            starts.append(a)
            sizes.append(max(b - a, 0))
            dim += 1
    while dim < len(shape):
        starts.append(0)
        sizes.append(shape[dim])
        dim += 1
    if 0 in sizes:
        return None
    return tuple(starts), tuple(sizes)


def _forward_tangents(prog, consts, tan: dict, target_slot, target_aval):
    """Forward accumulation over the replayed nodes from seed tangents ``tan`` (slot -> array)."""
    for op, static, refs, out_slots in prog:
        diff = [i for i, (_, s) in enumerate(refs) if s >= 0 and s in tan]
        if not diff:
            continue
        ins = [consts[k] for k, _ in refs]
        _, tout = jax.jvp(
            _node_fn(op, static, ins, diff, reverse=False),
            tuple(ins[i] for i in diff),
            tuple(tan[refs[i][1]] for i in diff),
        )
        touts = tout if op.multiple_outputs else (tout,)
        for s, t in zip(out_slots, touts):
            if s >= 0:
                prev = tan.get(s)
                tan[s] = t if prev is None else prev + t
    t = tan.get(target_slot)
    return t if t is not None else jnp.zeros(*target_aval)


# On CPU, a jacobian's rows (or columns) are computed in blocks of about this many bytes
# of target and sources per row. One vmap over all of them materialises each
# intermediate for every row at once: 16 MB for a (64, 16) target through a (64, 64)
# hidden layer, far past the caches; blocks that stay in cache are faster (the
# `jacobian` case of `python -m benchmarks`, see README "Speed"). Accelerators take the
# whole vmap.
_CPU_BLOCK_BYTES = 1 << 21


def _rows_at_once(chunk, n_rows, row_bytes):
    """How many rows one vmap computes: the user's ``parallel_iterations``, else the CPU
    block above; None for all of them."""
    if chunk is None and jax.default_backend() == "cpu":
        rows = max(8, _CPU_BLOCK_BYTES // max(row_bytes, 1))
        chunk = 1 << (rows.bit_length() - 1)  # a power of two: no ragged last block
    return None if chunk is None or chunk >= n_rows else chunk


def _map_rows(fn, basis, chunk, row_bytes):
    chunk = _rows_at_once(chunk, basis.shape[0], row_bytes)
    if chunk is None:
        return jax.vmap(fn)(basis)
    return jax.lax.map(fn, basis, batch_size=chunk)


def _nbytes(aval):
    shape, dtype = aval
    return int(np.prod(shape)) * np.dtype(dtype).itemsize


def _basis(shape, dtype):
    size = int(np.prod(shape))
    return jnp.eye(size, dtype=dtype).reshape((size,) + tuple(shape))


def _build(kind, spec, prog, target_slots, target_avals, groups, source_avals, n_consts, has_cts):
    def backprop(consts, ct):
        grads, missing = _backprop(prog, consts, ct, groups, source_avals)
        # Which sources got no cotangent at all is static: known once the program is traced.
        program.missing = missing
        return grads

    if kind == "gradient":

        def program(*args):
            _trace_counts[kind] += 1
            consts = args[:n_consts]
            ct: dict = {}
            for k, (s, (shape, dtype)) in enumerate(zip(target_slots, target_avals)):
                if has_cts:
                    c = jnp.broadcast_to(args[n_consts + k], shape).astype(dtype)
                else:
                    c = jnp.ones(shape, dtype)
                c = _conj(c)
                ct[s] = c if s not in ct else ct[s] + c
            return tuple(_conj(g) for g in backprop(consts, ct))

    elif kind == "jacobian":
        mode, chunk = spec
        (tslot,) = target_slots
        (taval,) = target_avals
        tshape, tdtype = taval
        row_bytes = _nbytes(taval) + sum(_nbytes(a) for a in source_avals)

        def program(*consts):
            _trace_counts[kind] += 1
            if int(np.prod(tshape)) == 0 or any(int(np.prod(s)) == 0 for s, _ in source_avals):
                return tuple(jnp.zeros(tuple(tshape) + tuple(s), d) for s, d in source_avals)
            if mode == "fwd":
                out = []
                for group, (sshape, sdtype) in zip(groups, source_avals):

                    def column(e, group=group):
                        return _forward_tangents(prog, consts, {s: e for s in group}, tslot, taval)

                    cols = _map_rows(column, _basis(sshape, sdtype), chunk, row_bytes)
                    # (n_src, *tshape)
                    cols = jnp.moveaxis(cols, 0, -1).reshape(tuple(tshape) + tuple(sshape))
                    out.append(cols)
                return tuple(out)

            def row(e):
                return backprop(consts, {tslot: _conj(e)})

            rows = _map_rows(row, _basis(tshape, tdtype), chunk, row_bytes)
            return tuple(
                _conj(r).reshape(tuple(tshape) + tuple(s)) for r, (s, _) in zip(rows, source_avals)
            )

    elif kind == "batch_jacobian":
        _, chunk = spec
        (tslot,) = target_slots
        ((tshape, tdtype),) = target_avals
        ((sshape, sdtype),) = source_avals
        row_shape = tuple(tshape[1:])
        col_shape = tuple(sshape[1:])
        row_bytes = _nbytes((tshape, tdtype)) + _nbytes((sshape, sdtype))

        def program(*consts):
            # Reverse mode only (see ``tape_derivatives._batch_jacobian``).
            _trace_counts[kind] += 1
            out_shape = (tshape[0],) + row_shape + col_shape
            if int(np.prod(tshape)) == 0 or int(np.prod(sshape)) == 0:
                return (jnp.zeros(out_shape, sdtype),)

            def row(e):
                # d(sum over the batch of target[:, row]) / d source
                seed = jnp.broadcast_to(e, tuple(tshape))
                return backprop(consts, {tslot: _conj(seed)})[0]

            rows = _map_rows(row, _basis(row_shape, tdtype), chunk, row_bytes)
            rows = _conj(rows).reshape(row_shape + tuple(sshape))
            return (jnp.moveaxis(rows, len(row_shape), 0),)

        # The seed's broadcast over the batch, hoisted out of the target's matmul.
        program = broadcast_hoist.hoisted(program)

    else:  # pragma: no cover - callers pass one of the three
        raise ValueError(kind)

    program.missing = ()
    program.derivative_program = True
    # What ``_derivative_dependencies`` reads when a tape records this program.
    program.structure = (prog, tuple(target_slots), groups, n_consts, has_cts)
    op = Op(kind.title().replace("_", ""), program, multiple_outputs=True, runs_user_code=True)
    if not registry._registry and not any(node[0].runs_user_code for node in prog):
        # Deferred under a tape (``lazy``), the program is a node that the recording's
        # programs replay: jitted, they all reuse its one trace. Not when it runs user
        # code (a custom gradient's function, a registered gradient, a derivative taken
        # inside one): that code sees the tapes recording when it is traced, so one trace
        # cannot serve all uses.
        op._pure[()] = jax.jit(program)
    return op
