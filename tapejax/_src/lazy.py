"""Lazy recording: under one tape, a recorded op runs later, fused with the gradient.

While exactly one ``GradientTape`` records (the common training step), an op with a
recorded input does not run: its output shapes and dtypes come from abstract evaluation
(cached per op, static arguments and input avals, so shape and dtype errors still appear
at the line that caused them: when abstract evaluation fails, the op runs eagerly and
raises its usual error), and its output Tensors hold ``Pending`` values. The
derivative program then computes the pending forward and the backward in one XLA
program (``run_fused``): one dispatch instead of one per op, and XLA fuses the forward
with the backward as it does for a hand-written ``jax.value_and_grad``.

Any other use of a pending value (``numpy()``, ``print``, ``bool``, a JAX function, an op
that is not recorded lazily) runs what it depends on first (``compute``): one jitted
program, cached by structure like every lowering. Nothing observable changes but when
the work happens.

Invariants:
  * a Pending's node is computed at most once; ``results`` then holds its outputs and
    ``args`` is dropped, so a computed value keeps no graph alive;
  * programs are cached by structure (ops, static arguments, wiring, avals), never
    values: a training loop compiles once;
  * ops that run user code (custom gradients, derivative programs) and ops seeing
    tracers are never deferred.
"""

from __future__ import annotations

import collections

import jax
import numpy as np
from jax.core import ShapedArray

from .tensor import LazyNode, Pending, Tensor, _next_id

try:
    from jax._src.array import ArrayImpl
except ImportError:  # pragma: no cover - a JAX without the private name: nothing is deferred
    ArrayImpl = None

__all__ = ["TRACE", "record", "compute", "pending_nodes", "run_fused"]

# The recorder type that records lazily (GradientTape's trace); set by ``tape``.
TRACE = None

_SCALARS = frozenset([float, int, bool, complex])
_CACHE_SIZE = 1024
_abstract: dict = {}  # (op, static, input avals) -> output avals
_programs: collections.OrderedDict = collections.OrderedDict()


def record(op, static, args, trace):
    """Records ``op`` on ``trace`` without running it; None when it must run now.

    It runs now when no input is recorded by ``trace``, when an input is not a concrete
    array, a pending value or a Python scalar (tracers, NumPy arrays), or when abstract
    evaluation fails (the eager call then raises the op's own error).
    """
    live = trace.live
    recorded = False
    avals = []
    for a in args:
        if type(a) is Tensor:
            v = a._v
            tv = type(v)
            if tv is Pending:
                if v.node.results is not None:
                    v = a._v = v.node.results[v.pos]
                avals.append(v.aval)
            elif tv is ArrayImpl:
                avals.append(v.aval)
            else:
                return None
            if not recorded and a._id in live:
                recorded = True
        elif type(a) in _SCALARS:
            avals.append(type(a))
        else:
            return None
    if not recorded:
        return None
    key = (op, static, tuple(avals))
    out_avals = _abstract.get(key)
    if out_avals is None:
        out_avals = _abstract_eval(op, static, args, avals)
        if out_avals is None:
            return None
        _abstract[key] = out_avals
    lazy_nodes = trace.lazy_nodes
    trace.sig.append((op, static, _codes(trace, args, avals)))
    node = LazyNode(op, static, args, len(lazy_nodes))
    lazy_nodes.append(node)
    outs = []
    for pos, aval in enumerate(out_avals):
        t = object.__new__(Tensor)
        t._v = Pending(node, pos, aval)
        t._id = _next_id()
        outs.append(t)
    outs = tuple(outs)
    nodes = trace.nodes
    idx = len(nodes)
    nodes.append((op, static, args, outs))
    for pos, o in enumerate(outs):
        live[o._id] = (idx, pos)
    return outs if op.multiple_outputs else outs[0]


def _codes(trace, args, avals) -> tuple:
    """Per input of a node deferred on ``trace``: a leaf number or a (node, output) pair."""
    codes = []
    lazy_nodes = trace.lazy_nodes
    for a, aval in zip(args, avals):
        if type(a) is Tensor:
            v = a._v
            if type(v) is Pending:  # record() resolved the computed ones
                n = v.node
                i = n.index
                if i < len(lazy_nodes) and lazy_nodes[i] is n:
                    codes.append((i, v.pos))
                    continue
                trace.fast = False  # pending in another recording: no leaf value to pass
                codes.append(None)
                continue
            k = trace.leaf_of.get(a._id)
            if k is None:
                k = trace.leaf_of[a._id] = len(trace.leaves)
                trace.leaves.append(v)
                trace.leaf_avals.append(aval)
            codes.append(k)
        else:
            codes.append(len(trace.leaves))
            trace.leaves.append(a)
            trace.leaf_avals.append(aval)
    return tuple(codes)


def _abstract_eval(op, static, args, avals):
    specs = [
        a if type(av) is type else jax.ShapeDtypeStruct(av.shape, av.dtype, weak_type=av.weak_type)
        for a, av in zip(args, avals)
    ]
    try:
        out = jax.eval_shape(op.pure(static), *specs)
    except Exception:  # the eager call raises the op's error, converted as usual
        return None
    outs = out if op.multiple_outputs else (out,)
    if not isinstance(outs, tuple) or not all(isinstance(o, jax.ShapeDtypeStruct) for o in outs):
        return None
    return tuple(ShapedArray(tuple(o.shape), np.dtype(o.dtype), bool(o.weak_type)) for o in outs)


# -- running what is pending ---------------------------------------------------------------


def _closure(roots) -> list:
    """The uncomputed nodes ``roots`` depend on (themselves included), inputs first."""
    order = []
    seen = set()
    for root in roots:
        if root.results is not None or id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for a in node.args:
                if type(a) is Tensor:
                    v = a._v
                    if type(v) is Pending:
                        n = v.node
                        if n.results is None and id(n) not in seen:
                            stack.append((n, False))
    return order


class _Wiring:
    """``nodes`` numbered: each input is a leaf (an argument of the program) or an output
    of an earlier node. ``ref(x)`` numbers one more value the program needs; ``foreign``
    is set when a value depends on an uncomputed node missing from ``nodes``."""

    __slots__ = ("index", "leaves", "leaf_of", "prog", "foreign")

    def __init__(self, nodes):
        self.index = {id(n): i for i, n in enumerate(nodes)}
        self.leaves: list = []
        self.leaf_of: dict = {}
        self.foreign = False
        self.prog = tuple((n.op, n.static, tuple(map(self.ref, n.args))) for n in nodes)

    def ref(self, a):
        if type(a) is not Tensor:
            self.leaves.append(a)
            return len(self.leaves) - 1
        v = a._v
        if type(v) is Pending:
            i = self.index.get(id(v.node))
            if i is not None:
                return (i, v.pos)
            results = v.node.results
            if results is None:
                self.foreign = True
                return None
            v = a._v = results[v.pos]  # computed earlier
        k = self.leaf_of.get(a._id)
        if k is None:
            k = self.leaf_of[a._id] = len(self.leaves)
            self.leaves.append(v)
        return k

    def leaf_avals(self) -> tuple:
        return tuple(v.aval if type(v) is ArrayImpl else type(v) for v in self.leaves)


def _pick(leaves, outs, code):
    return leaves[code] if type(code) is int else outs[code[0]][code[1]]


def _replay(prog, leaves) -> list:
    """Runs ``prog`` (op, static, codes) on ``leaves``: per node, its outputs' tuple. A code
    is a leaf number or a (node, output) pair, as ``_Wiring`` and ``_codes`` number them."""
    outs = []
    for op, static, codes in prog:
        ins = [_pick(leaves, outs, c) for c in codes]
        o = op.pure(static)(*ins)
        outs.append(tuple(o) if op.multiple_outputs else (o,))
    return outs


def _cached(key, build):
    fn = _programs.get(key)
    if fn is None:
        fn = _programs[key] = jax.jit(build())
        if len(_programs) > _CACHE_SIZE:
            _programs.popitem(last=False)
    return fn


def _store(nodes, results) -> None:
    for n, r in zip(nodes, results):
        n.results = r
    # Inputs that were pending now hold their values (an op reading a computed Pending
    # would otherwise take the slow path in ``dispatch.apply``); then the graph goes.
    for n in nodes:
        for a in n.args or ():
            if type(a) is Tensor:
                v = a._v
                if type(v) is Pending and v.node.results is not None:
                    a._v = v.node.results[v.pos]
        n.args = None


def compute(pendings) -> None:
    """Runs every uncomputed node the ``Pending`` values depend on, as one program."""
    nodes = _closure([p.node for p in pendings])
    if not nodes:
        return
    w = _Wiring(nodes)
    prog = w.prog

    def build():
        def forward(*leaves):
            return tuple(_replay(prog, leaves))

        return forward

    _store(nodes, _cached(("forward", prog, w.leaf_avals()), build)(*w.leaves))


def pending_nodes(trace) -> list:
    """The nodes of ``trace`` whose outputs are not computed yet, in recording order."""
    out = []
    for _, _, _, outs in trace.nodes:
        v = outs[0]._v
        if type(v) is Pending and v.node.results is None:
            out.append(v.node)
    return out


def run_fused(op, args, trace) -> tuple:
    """Runs the derivative program ``op`` on ``args`` with everything pending in ``trace``
    (and what ``args`` need) computed in the same program; returns ``op``'s outputs."""
    # The trace's pending nodes, in recording order, are usually all there is to run.
    nodes = pending_nodes(trace)
    w = _Wiring(nodes)
    arg_refs = tuple(map(w.ref, args))
    if w.foreign:  # a value pending in another tape's recording: take everything needed
        roots = [a._v.node for a in args if type(a) is Tensor and type(a._v) is Pending]
        nodes = _closure(roots + nodes)
        w = _Wiring(nodes)
        arg_refs = tuple(map(w.ref, args))
    prog = w.prog
    fn = op.fn

    def build():
        def fused(*leaves):
            outs = _replay(prog, leaves)
            inner = [_pick(leaves, outs, c) for c in arg_refs]
            return tuple(fn(*inner)), tuple(outs)

        return fused

    result, forward = _cached(("fused", op, prog, arg_refs, w.leaf_avals()), build)(*w.leaves)
    _store(nodes, forward)
    _resolve(trace)
    return result


Pending.compute = compute


# -- planned derivatives: a repeated step skips lowering ---------------------------------------
#
# A trace whose every node was deferred is described by its ``sig`` (wiring) and leaf avals.
# With the targets' and sources' places in it, that determines what ``lowering.lower``
# returns, so a training loop's later steps look the fused program up by that key and
# pass the leaves: no pruning, numbering or Wiring on the hot path.

_plans: collections.OrderedDict = collections.OrderedDict()


class Plan:
    """A derivative of one trace structure: ``fn(leaves, cotangents)`` and what lowering
    found (``lowered`` holds no arguments; None when nothing is connected)."""

    __slots__ = ("fn", "lowered")

    def __init__(self, fn, lowered):
        self.fn, self.lowered = fn, lowered

    def run(self, trace, cotangents) -> tuple:
        cts = []
        if cotangents is not None:
            cts = [c._value for c, on in zip(cotangents, self.lowered.target_connected) if on]
        result, forward = self.fn(trace.leaves, cts)
        _store(trace.lazy_nodes, forward)
        _resolve(trace)
        return result


def _resolve(trace) -> None:
    """The trace's outputs hold their values in place: later reads skip the indirection."""
    for _, _, _, outs in trace.nodes:
        for o in outs:
            v = o._v
            if type(v) is Pending:
                o._v = v.node.results[v.pos]


def _where(trace, x):
    """``x``'s place in ``trace`` for a plan key; False when it has none that is structural."""
    if type(x) is Tensor:
        v = x._v
        if type(v) is Pending:
            n = v.node
            lazy_nodes = trace.lazy_nodes
            if n.index < len(lazy_nodes) and lazy_nodes[n.index] is n:
                return (n.index, v.pos)
            return False
        k = trace.leaf_of.get(x._id)
        if k is not None:
            return k
        return ("w" if x._id in trace.live else "x", v.shape, v.dtype)
    if getattr(x, "_is_variable", False):
        reads = trace.var_reads.get(x._id, ())
        return ("v", tuple(trace.leaf_of.get(r._id, -1) for r in reads), x._v.shape, x._v.dtype)
    return False


def plan_key(trace, kind, spec, targets, sources, cotangents):
    """The structural key of a derivative of ``trace``; None when it has no plan."""
    lazy_nodes = trace.lazy_nodes
    if (
        not trace.fast
        or not lazy_nodes
        or len(lazy_nodes) != len(trace.nodes)
        or lazy_nodes[-1].results is not None
    ):
        return None
    places = [_where(trace, t) for t in targets]
    places += [_where(trace, s) for s in sources]
    if False in places:
        return None
    cts = None if cotangents is None else tuple((c._v.shape, c._v.dtype) for c in cotangents)
    return (kind, spec, tuple(trace.sig), tuple(trace.leaf_avals), len(targets), tuple(places), cts)


def make_plan(key, trace, lowered):
    """The plan of ``lowered`` (found on ``trace``) stored under ``key``; None if the
    program needs a value that is not a leaf or deferred node of ``trace``."""
    from .lowering import Lowered  # lowering imports dispatch, which imports this module

    if lowered is None:
        plan = Plan(None, None)
    else:
        sig = tuple(trace.sig)
        const_codes = tuple(sig[i][2][j] for i, j in lowered.origins)
        if None in const_codes:
            return None
        fn = lowered.op.fn

        def fused(leaves, cts):
            outs = _replay(sig, leaves)
            consts = [_pick(leaves, outs, c) for c in const_codes]
            return tuple(fn(*consts, *cts)), tuple(outs)

        stub = Lowered(lowered.op, None, lowered.connected, lowered.target_connected)
        plan = Plan(jax.jit(fused), stub)
    _plans[key] = plan
    if len(_plans) > _CACHE_SIZE:
        _plans.popitem(last=False)
    return plan


def clear_caches() -> None:
    _plans.clear()
    _programs.clear()
