"""Planned derivatives: a repeated training step skips lowering.

A trace whose every node was deferred (``lazy.py``) is described by its ``sig`` (wiring)
and leaf avals. With the targets' and sources' places in it, that determines what
``lowering.lower`` returns, so a training loop's later steps look the fused program up
by that key (``plan_key``) and pass the leaves: no pruning, numbering or wiring on the
hot path. A non-persistent tape's planned derivative is deferred as one more node of
its recording (``Plan.defer``), so the updates that read it join the same program.
"""

from __future__ import annotations

import collections

import jax

from .lazy import (
    _CACHE_SIZE,
    ArrayImpl,
    FnOp,
    _codes,
    _pick,
    _replay,
    _resolve,
    _store,
    append_node,
    device_scalars,
)
from .lowering import Lowered, lower
from .tensor import Pending, Tensor

__all__ = ["Plan", "plan_key", "make_plan", "lower_cached", "clear"]

_plans: collections.OrderedDict = collections.OrderedDict()


class Plan:
    """A derivative of one trace structure: ``fn(leaves, cotangents)`` and what lowering
    found (``lowered`` holds no arguments; None when nothing is connected).

    ``derivative`` is the derivative program as a deferrable op (jitted, so the fused
    programs that inline it reuse its one trace); ``const_codes`` say where its inputs
    are in the trace; ``out_avals`` are its outputs' avals, known once it has run."""

    __slots__ = ("fn", "lowered", "derivative", "const_codes", "out_avals")

    def __init__(self, fn, lowered, derivative=None, const_codes=()):
        self.fn, self.lowered = fn, lowered
        self.derivative, self.const_codes, self.out_avals = derivative, const_codes, None

    def run(self, trace, cotangents) -> tuple:
        cts = []
        if cotangents is not None:
            cts = [c._value for c, on in zip(cotangents, self.lowered.target_connected) if on]
        result, forward = self.fn(device_scalars(trace.leaves), cts)
        _store(trace.lazy_nodes, forward)
        _resolve(trace)
        if self.out_avals is None:
            self.out_avals = tuple(r.aval for r in result)
        return result

    def defer(self, trace, cotangents):
        """The derivative appended to ``trace`` as a deferred node: its output Tensors,
        pending; None when it must run now (the program has not run yet, or an output
        gradient is itself pending)."""
        if self.out_avals is None:
            return None
        codes = self.const_codes
        if cotangents is not None:
            cts = [c for c, on in zip(cotangents, self.lowered.target_connected) if on]
            if any(type(c._v) is not ArrayImpl for c in cts):
                return None
            codes += _codes(trace, cts, [c._v.aval for c in cts])
        outs = append_node(trace, self.derivative, (), (), codes, self.out_avals)
        trace.after_outs.extend(outs)
        trace.open_after = True
        return outs


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
        leaf_of = trace.leaf_of
        return ("v", tuple([leaf_of.get(r._id, -1) for r in reads]), x._v.shape, x._v.dtype)
    return False


def plan_key(trace, kind, spec, targets, sources, cotangents):
    """The structural key of a derivative of ``trace``; None when it has no plan."""
    lazy_nodes = trace.lazy_nodes
    if not lazy_nodes or len(lazy_nodes) != len(trace.nodes) or lazy_nodes[-1].results is not None:
        return None
    places = []
    for x in (*targets, *sources):
        p = _where(trace, x)
        if p is False:  # not ``False in places``: leaf 0 == False
            return None
        places.append(p)
    cts = None if cotangents is None else tuple((c._v.shape, c._v.dtype) for c in cotangents)
    return (kind, spec, tuple(trace.sig), tuple(trace.leaf_avals), len(targets), tuple(places), cts)


def make_plan(key, trace, lowered):
    """The plan of ``lowered`` (found on ``trace``) stored under ``key``; None if the
    program needs a value that is not a leaf or deferred node of ``trace``."""
    if lowered is None:
        plan = Plan(None, None)
    else:
        sig = tuple(trace.sig)
        const_codes = tuple(sig[i][2][j] for i, j in lowered.origins)
        if None in const_codes:
            return None
        fn = jax.jit(lowered.op.fn)

        def fused(leaves, cts):
            outs = _replay(sig, leaves)
            consts = [_pick(leaves, outs, c) for c in const_codes]
            return tuple(fn(*consts, *cts)), tuple(outs)

        stub = Lowered(lowered.op, None, lowered.connected, lowered.target_connected)
        plan = Plan(jax.jit(fused), stub, FnOp(fn, runs_user_code=True), const_codes)
    _plans[key] = plan
    if len(_plans) > _CACHE_SIZE:
        _plans.popitem(last=False)
    return plan


# -- lowerings found by structure ------------------------------------------------------------
#
# A trace without a plan (its ops ran at the call, or are deferred on another tape's
# recording: an inner tape under nested tapes, a persistent tape) is lowered on every
# derivative call. ``lower_cached`` finds the lowering by a key of the trace's structure
# instead: per recorded node its op, static arguments and inputs (an earlier node's output,
# a numbered leaf with its source, watch and aval, or a Python value's type), then the
# targets', sources' and cotangents' places. That determines everything ``lower`` finds;
# the program's arguments are then read from the trace by the lowering's ``origins``.

_lowerings: collections.OrderedDict = collections.OrderedDict()


def _structure(trace, kind, spec, targets, sources, cotangents) -> tuple:
    live = trace.live
    src: dict = {}
    for si, x in enumerate(sources):
        src.setdefault(x._id, si)
        if getattr(x, "_is_variable", False):
            for r in trace.var_reads.get(x._id, ()):
                src.setdefault(r._id, si)
    leaf: dict = {}

    def code(a):
        p = live.get(a._id)
        if p is not None:  # an output of a recorded node: (node, position)
            return p
        k = leaf.get(a._id)
        if k is None:
            v = a._v
            k = leaf[a._id] = (len(leaf), src.get(a._id, -1), a._id in live, v.shape, v.dtype)
        return k

    parts = []
    for op, static, args, _ in trace.nodes:
        parts.append((op, static, tuple([code(a) if type(a) is Tensor else type(a) for a in args])))
    # Targets and sources are Tensors or Variables (``_id`` and ``_v`` both).
    places = [code(x) for x in targets]
    for x in sources:
        if type(x) is Tensor:
            places.append(code(x))
        else:
            reads = tuple([code(r) for r in trace.var_reads.get(x._id, ())])
            places.append(("v", code(x), reads))
    cts = None
    if cotangents is not None:
        cts = tuple((c._v.shape, c._v.dtype) if type(c) is Tensor else type(c) for c in cotangents)
    return (kind, spec, tuple(parts), tuple(places), len(targets), cts)


def lower_cached(trace, targets, sources, kind, spec, cotangents):
    """``lowering.lower(trace, ...)``, found by the trace's structure when it was seen."""
    key = _structure(trace, kind, spec, targets, sources, cotangents)
    entry = _lowerings.get(key)
    if entry is None:
        lowered = lower(trace, targets, sources, kind, spec, cotangents)
        _lowerings[key] = entry = (
            None
            if lowered is None
            else Lowered(
                lowered.op, None, lowered.connected, lowered.target_connected, lowered.origins
            )
        )
        if len(_lowerings) > _CACHE_SIZE:
            _lowerings.popitem(last=False)
        return lowered
    if entry is None:
        return None
    nodes = trace.nodes
    args = [nodes[i][2][j] for i, j in entry.origins]
    if cotangents is not None:
        args += [c for c, on in zip(cotangents, entry.target_connected) if on]
    return Lowered(entry.op, args, entry.connected, entry.target_connected, entry.origins)


def clear() -> None:
    _plans.clear()
    _lowerings.clear()
