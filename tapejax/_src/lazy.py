"""Lazy recording: under a tape, a recorded op runs later, fused with the gradient.

While ``GradientTape``s record (one in the common training step), an op with a
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

Under nested tapes an op is deferred on the outermost tape that records it, and the
inner tapes record the same pending outputs (``record_nested``); a derivative taken while
a tape records is deferred on that tape's recording too (it is an op the tape records,
``dispatch.apply``). A Hessian-vector product through two tapes is then one program,
run by the outer derivative.

A non-persistent tape whose structure has a plan (``plans.py``) defers its derivative
too (``Plan.defer``): the derivative becomes one more node of the recording, which then
stays open (``open_after``) to ops outside any tape that read its pending values
(``record_after``: ``lr * g``, ``Variable.assign_sub``, a Keras optimizer's update). The
first read of any of its values runs the whole recording as one program
(``compute_trace``): a training step is then one dispatch, as a hand-written jitted
step is.

Invariants:
  * a Pending's node is computed at most once; ``results`` then holds its outputs and
    ``args`` is dropped, so a computed value keeps no graph alive;
  * programs are cached by structure (ops, static arguments, wiring, avals), never
    values: a training loop compiles its first step's program and then the whole
    step's, once each, and traces its derivative once;
  * ops that run user code (custom gradients, ``tapejax.function`` calls) and ops
    seeing tracers are never deferred; derivative programs are (their Python runs at
    trace time anyway), as a whole;
  * a recording's program reads only its own nodes and concrete leaves: a value pending
    in another recording is computed before it is recorded.
"""

from __future__ import annotations

import collections
import sys

import jax
import numpy as np
from jax.core import ShapedArray

from .tensor import DROPPED, LazyNode, Pending, Tensor, _next_id

try:
    from jax._src.array import ArrayImpl
except ImportError:  # pragma: no cover - a JAX without the private name: nothing is deferred
    ArrayImpl = None
try:
    from jax._src.core import trace_state_clean
except ImportError:  # pragma: no cover - without it, scalars are passed as Python values

    def trace_state_clean() -> bool:
        return False


__all__ = [
    "TRACE",
    "record",
    "record_nested",
    "record_after",
    "append_node",
    "FnOp",
    "compute",
    "compute_trace",
    "pending_nodes",
    "run_fused",
]

# The recorder type that records lazily (GradientTape's trace); set by ``tape``.
TRACE = None

_SCALARS = frozenset([float, int, bool, complex])
_CACHE_SIZE = 1024
_MAX_AFTER = 512  # outputs deferred after a derivative before its recording is computed
_abstract: dict = {}  # (op, static, input avals) -> output avals
_programs: collections.OrderedDict = collections.OrderedDict()

# Python scalars among a program's leaves (``* 1.0001``, a learning rate) as device
# arrays, made once per value. Passed as Python values, each is copied to the device at
# every call (JAX's transfer guard shows it): on a GPU, a host-to-device transfer per
# scalar per step. Before this, an H100 ran a recorded chain of 100 elementwise ops
# with scalar operands at 56 µs per op, against 8.7 µs on a CPU. A float zero
# (-0.0 == 0.0) and NaN are made at each call; the key holds the settings that change
# the array (64-bit mode, default device).
_scalar_arrays: dict = {}
_SCALAR_CACHE_SIZE = 4096


def device_scalars(leaves):
    """``leaves`` with each Python scalar a device array of the type JAX gives it (weakly
    typed float, int and complex; bool), so that a program call copies none to the device.
    Under a JAX trace (``tapejax.function``'s) they stay Python values: literals of the
    traced program, where an array would be a captured constant."""
    for v in leaves:
        if type(v) in _SCALARS:
            break
    else:
        return leaves
    if not trace_state_clean():
        return leaves
    config = jax.config
    context = (config.jax_enable_x64, config.jax_default_device)
    out = []
    for v in leaves:
        t = type(v)
        if t in _SCALARS:
            if t is complex or (t is float and (v != v or v == 0.0)):
                v = jax.numpy.asarray(v)
            else:
                key = (t, v, context)
                a = _scalar_arrays.get(key)
                if a is None:
                    if len(_scalar_arrays) >= _SCALAR_CACHE_SIZE:
                        _scalar_arrays.clear()
                    a = _scalar_arrays[key] = jax.numpy.asarray(v)
                v = a
        out.append(v)
    return out


def record(op, static, args, trace):
    """Records ``op`` on ``trace`` without running it; None when it must run now.

    It runs now when no input is recorded by ``trace``, when an input is not a concrete
    array, a pending value or a Python scalar (tracers, NumPy arrays), or when abstract
    evaluation fails (the eager call then raises the op's own error).

    Every op recorded under a tape comes here: ``_input_avals``, ``_defer``, ``_codes``,
    ``append_node`` and ``_outputs`` are written out inline.
    """
    live = trace.live  # the ids of the tape's watched and produced Tensors
    recorded = False
    avals = []
    codes = []  # a (node, output) pair per pending input; None until numbered as a leaf
    for a in args:
        if type(a) is Tensor:
            v = a._v
            tv = type(v)
            if tv is Pending:
                if v.node.trace is trace:
                    avals.append(v.aval)
                    codes.append((v.node.index, v.pos))
                    if not recorded and a._id in live:
                        recorded = True
                    continue
                v = a._v = v.value()  # computed, or pending in another recording
                tv = type(v)
            if tv is not ArrayImpl:
                return None
            avals.append(v.aval)
            codes.append(None)
            if not recorded and a._id in live:
                recorded = True
        elif type(a) in _SCALARS:
            avals.append(type(a))
            codes.append(None)
        else:
            return None
    if not recorded:
        return None
    out_avals = _abstract.get((op, static, *avals))
    if out_avals is None:
        out_avals = _out_avals(op, static, args, avals)
        if out_avals is None:
            return None
    leaves = trace.leaves
    for i, c in enumerate(codes):
        if c is None:
            a = args[i]
            if type(a) is Tensor:
                leaf_of = trace.leaf_of
                k = leaf_of.get(a._id)
                if k is None:
                    k = leaf_of[a._id] = len(leaves)
                    leaves.append(a._v)
                    trace.leaf_avals.append(avals[i])
            else:
                k = len(leaves)
                leaves.append(a)
                trace.leaf_avals.append(avals[i])
            codes[i] = k
    lazy_nodes = trace.lazy_nodes
    node = LazyNode(op, static, args, len(lazy_nodes), trace)
    trace.sig.append((op, static, tuple(codes)))
    lazy_nodes.append(node)
    nodes = trace.nodes
    idx = len(nodes)
    if len(out_avals) == 1:
        node.n_out = 1
        t = object.__new__(Tensor)
        t._v = Pending(node, 0, out_avals[0])
        t._id = _next_id()
        outs = (t,)
        nodes.append((op, static, args, outs))
        live[t._id] = (idx, 0)
        return outs if op.multiple_outputs else t
    outs = _outputs(node, out_avals)
    nodes.append((op, static, args, outs))
    for pos, o in enumerate(outs):
        live[o._id] = (idx, pos)
    return outs


def record_nested(op, static, args, traces):
    """Records ``op`` on every tape of ``traces`` (the recorders, outermost first) that
    watches one of its inputs, deferred on the outermost of them; None when it must run
    now (as ``record``).

    So nested tapes defer too: the forward, an inner tape's derivative taken under the
    outer one and what follows it become nodes of the outer recording, and the outer
    derivative runs them all in one program. An inner tape records the same node in its
    own record (its outputs pending in the outer recording): its derivative reads them
    from there, as it would from any other recording.
    """
    recording = []
    for t in traces:
        if type(t) is not TRACE:  # a ForwardAccumulator: everything runs now
            return None
        live = t.live
        for a in args:
            if type(a) is Tensor and a._id in live:
                recording.append(t)
                break
    if not recording:
        return None
    out = record(op, static, args, recording[0])
    if out is None:
        return None
    outs = out if op.multiple_outputs else (out,)
    for t in recording[1:]:
        t.record(op, static, args, (*outs,))  # a tuple of its own (``_release`` counts them)
    return out


def record_after(op, static, args):
    """Defers an op run outside any tape onto the recording whose deferred derivative an
    input is pending on (the update that follows ``gradient``); None when it must run now.

    So a training step (forward, gradient, the variables' updates) becomes one program,
    computed when a value of it is read: usually by the next step's first op.
    """
    if op.runs_user_code:
        return None
    for a in args:
        if type(a) is Tensor and type(a._v) is Pending:
            trace = a._v.node.trace
            if trace is not None and trace.open_after:
                break
    else:
        return None
    if len(trace.after_outs) >= _MAX_AFTER:
        # A long loop of ops after the gradient (a Python-level iteration on it): run what
        # is deferred now and go on eagerly rather than compile an ever longer program.
        compute_trace(trace)
        return None
    avals = _input_avals(args, trace)
    if avals is None:
        return None
    outs = _defer(trace, op, static, args, avals)
    if outs is None:
        return None
    trace.after_outs.extend(outs)
    return outs if op.multiple_outputs else outs[0]


def _input_avals(args, trace):
    """The avals of ``args`` for a node deferred on ``trace`` (a Python scalar's type for
    a scalar); None when one cannot be deferred (tracers, NumPy arrays). An input pending
    in another recording is computed first: a recording's program reads only its own
    nodes and concrete leaves."""
    avals = []
    for a in args:
        if type(a) is Tensor:
            v = a._v
            tv = type(v)
            if tv is Pending:
                if v.node.trace is trace:
                    avals.append(v.aval)
                    continue
                v = a._v = v.value()  # computed, or pending in another recording
                tv = type(v)
            if tv is not ArrayImpl:
                return None
            avals.append(v.aval)
        elif type(a) in _SCALARS:
            avals.append(type(a))
        else:
            return None
    return avals


def _defer(trace, op, static, args, avals):
    """Appends ``op`` to ``trace``'s deferred nodes: its output Tensors (pending), or None
    when abstract evaluation fails."""
    out_avals = _out_avals(op, static, args, avals)
    if out_avals is None:
        return None
    return append_node(trace, op, static, args, _codes(trace, args, avals), out_avals)


def _out_avals(op, static, args, avals):
    """``op``'s output avals for inputs of ``avals`` (cached), or None when abstract
    evaluation fails."""
    key = (op, static, *avals)
    out_avals = _abstract.get(key)
    if out_avals is None:
        out_avals = _abstract_eval(op, static, args, avals)
        if out_avals is not None:
            _abstract[key] = out_avals
    return out_avals


def append_node(trace, op, static, args, codes, out_avals) -> tuple:
    """Appends a node (``op``, its wiring ``codes``) to ``trace``'s deferred nodes; returns
    its output Tensors, pending."""
    lazy_nodes = trace.lazy_nodes
    trace.sig.append((op, static, codes))
    node = LazyNode(op, static, args, len(lazy_nodes), trace)
    lazy_nodes.append(node)
    return _outputs(node, out_avals)


class FnOp:
    """A function deferred as one node with several outputs (``_replay`` runs
    ``pure(())``): a planned derivative (``plans.py``), a Keras optimizer's update."""

    __slots__ = ("fn", "runs_user_code")
    multiple_outputs = True

    def __init__(self, fn, runs_user_code=False):
        self.fn, self.runs_user_code = fn, runs_user_code

    def pure(self, static):
        return self.fn


def _outputs(node, out_avals) -> tuple:
    node.n_out = len(out_avals)
    if len(out_avals) == 1:
        t = object.__new__(Tensor)
        t._v = Pending(node, 0, out_avals[0])
        t._id = _next_id()
        return (t,)
    outs = []
    for pos, aval in enumerate(out_avals):
        t = object.__new__(Tensor)
        t._v = Pending(node, pos, aval)
        t._id = _next_id()
        outs.append(t)
    return tuple(outs)


def _codes(trace, args, avals) -> tuple:
    """Per input of a node deferred on ``trace``: a leaf number or a (node, output) pair.
    Callers have computed every input pending in another recording."""
    codes = []
    leaves = trace.leaves
    for a, aval in zip(args, avals):
        if type(a) is Tensor:
            v = a._v
            if type(v) is Pending:
                codes.append((v.node.index, v.pos))
                continue
            leaf_of = trace.leaf_of
            k = leaf_of.get(a._id)
            if k is None:
                k = leaf_of[a._id] = len(leaves)
                leaves.append(v)
                trace.leaf_avals.append(aval)
            codes.append(k)
        else:
            codes.append(len(leaves))
            leaves.append(a)
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
            v = a._v = v.value()  # computed earlier
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
        n.trace = None
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
    """Runs every uncomputed node the ``Pending`` values depend on, as one program. A
    recording with a deferred derivative runs whole (``compute_trace``)."""
    for p in pendings:
        trace = p.node.trace
        if trace is not None and trace.open_after:
            compute_trace(trace)
    nodes = _closure([p.node for p in pendings])
    if not nodes:
        return
    w = _Wiring(nodes)
    prog = w.prog

    def build():
        def forward(*leaves):
            return tuple(_replay(prog, leaves))

        return forward

    _store(nodes, _cached(("forward", prog, w.leaf_avals()), build)(*device_scalars(w.leaves)))


def compute_trace(trace) -> None:
    """Runs all of ``trace``'s deferred nodes as one program, cached by its wiring: the
    forward, the deferred derivative and what was deferred after it.

    The program returns only the values something outside the recording still holds: a
    step's gradients and ``lr * g`` products, dropped by then, are never written out.
    Which ones are held is read from reference counts once the recording has let go of
    its own references (its tape's record and the nodes' arguments): a value the caller
    can reach is always returned, and an unknown reference only makes it return more."""
    trace.open_after = False
    count = sys.getrefcount
    outputs, keep = _release(trace)
    held = []
    places = []
    for o in outputs:
        p = o._v
        # ``o``: ``outputs``, ``o`` here and count's argument (plus ``keep``); ``p``:
        # ``o._v``, ``p`` here and count's argument.
        if type(p) is Pending and p.node.trace is trace and (count(o) > 3 or count(p) > 3):
            held.append(o)
            places.append((p.node.index, p.pos))
    sig = tuple(trace.sig)
    places = tuple(places)
    key = ("trace", sig, tuple(trace.leaf_avals), places)
    fn = _programs.get(key)
    if fn is None:

        def build():
            def run(*leaves):
                outs = _replay(sig, leaves)
                return tuple([outs[i][pos] for i, pos in places])

            return run

        fn = _cached(key, build)
    values = fn(*device_scalars(trace.leaves))
    for o, v in zip(held, values):
        p = o._v
        node = p.node
        r = node.results
        if r is None:
            r = node.results = [DROPPED] * node.n_out
        r[p.pos] = v
        o._v = v
    for n in trace.lazy_nodes:
        if n.trace is trace:
            if n.results is None:
                n.results = _all_dropped(n.n_out)
            n.trace = None


def _all_dropped(n: int) -> tuple:
    r = _DROPPED_TUPLES.get(n)
    if r is None:
        r = _DROPPED_TUPLES[n] = (DROPPED,) * n
    return r


_DROPPED_TUPLES: dict = {}


def _release(trace):
    """Takes ``trace``'s output Tensors and drops its own references to them (the tape's
    record, the nodes' arguments): ``(outputs, keep)``, ``keep`` holding the outputs of
    multiple-output ops whose tuple a caller kept. A function of its own, so that no
    loop variable outlives it holding a Tensor."""
    count = sys.getrefcount
    outputs = trace.after_outs
    trace.after_outs = []
    keep = []
    for entry in trace.nodes:
        outs = entry[3]
        # References to the tuple: the tape's record, ``outs`` here and count's argument.
        if len(outs) == 1:
            outputs.append(outs[0])
            continue
        if count(outs) > 3:
            keep.extend(outs)
        outputs.extend(outs)
    trace.nodes.clear()  # a consumed tape's record: nothing reads it any more
    for n in trace.lazy_nodes:
        n.args = None
    return outputs, keep


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

    fused = _cached(("fused", op, prog, arg_refs, w.leaf_avals()), build)
    result, forward = fused(*device_scalars(w.leaves))
    _store(nodes, forward)
    _resolve(trace)
    return result


Pending.compute = compute


def _resolve(trace) -> None:
    """The trace's outputs hold their values in place: later reads skip the indirection."""
    for _, _, _, outs in trace.nodes:
        for o in outs:
            v = o._v
            if type(v) is Pending:
                o._v = v.node.results[v.pos]


def clear_caches() -> None:
    _programs.clear()
