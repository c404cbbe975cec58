"""A dataset function (``map``'s, ``filter``'s, ``take_while``'s, ``scan``'s,
``reduce``'s) traced once into a JAX program and run compiled, as TF traces it once
into a graph.

The one trace, on abstract elements of the input's element spec, also gives the output
spec. The program runs on each element, or, where pulling elements ahead of need cannot
be observed (the input runs no Python code of the user's), vmapped over blocks of
elements stacked on the host. A spec with unknown dims is traced twice for the output
spec (as ``structure.trace_output``), then once per element shape. A ``scan``'s or
``reduce``'s function, traced on ``(state, element)``, runs as a fold (``Traced.fold``):
the state carried on the device from one element's program to the next, or through one
``lax.scan`` per block of elements where pulling ahead cannot be observed.

It must never compile a function whose results could differ from running it eagerly on
each element (beyond a float's rounding, where XLA fuses ops): a function that reads or
assigns a Variable (a random stream is one), traces a run-time check or a host callback
(asserts, ``numpy_function``, ``tf.print``), or cannot be traced, runs eagerly per
element as before.
"""

from __future__ import annotations

import collections

import jax
import numpy as np
from jax import lax
from jax.extend.core import ClosedJaxpr, jaxpr_as_fun, subjaxprs

from .. import execution
from ..binding import VariableWatcher
from ..tensor import Tensor
from ..tensor_spec import TensorSpec
from . import structure

# Elements per vmapped block, at most, and the host bytes (inputs and outputs) a block
# may hold: big elements go in smaller blocks.
_BLOCK_ELEMENTS = 256
_BLOCK_BYTES = 32 * 2**20
# Element shapes a function whose input spec leaves a dim unknown is compiled for, at most.
_MAX_SHAPES = 8


class Traced:
    """``fn`` traced once on the elements of ``spec``: its output spec (``out_spec``)
    and, when it is safe to run compiled, its program (``compiled``)."""

    def __init__(self, fn, spec):
        leaves = structure.flatten(spec)
        self._in_avals = [
            (tuple(s.shape.as_list()), np.dtype(structure.held_dtype(s.dtype).as_numpy_dtype))
            for s in leaves
        ]
        found = []
        watcher = VariableWatcher()
        checks = execution.runtime_checks()
        run = structure.abstract_run(fn, (spec,), watcher, found)
        closed = jax.make_jaxpr(run)(
            *(jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in self._in_avals)
        )
        out = found[0]
        self.out_spec = structure.as_specs(out)
        # Whether running it on elements runs no Python code of the user's (its input's
        # elements always fit the trace: the eager fallback is for those that would not).
        self.pure = True
        out_leaves = structure.flatten(out)
        self.compiled = (
            not watcher.touched
            and execution.runtime_checks() == checks
            and not closed.effects
            and all(isinstance(t, Tensor) for t in out_leaves)
        )
        if not self.compiled:
            return
        self._out_tree = structure.map_structure(lambda _: None, out)
        self._consts = closed.consts
        self._programs = _programs_of(closed.jaxpr)
        per_element = sum(int(np.prod(s, dtype=np.int64)) * d.itemsize for s, d in self._in_avals)
        per_element += sum(
            int(np.prod(t.shape, dtype=np.int64)) * t.dtype.itemsize for t in closed.out_avals
        )
        self._block_size = int(max(1, min(_BLOCK_ELEMENTS, _BLOCK_BYTES // max(1, per_element))))

    def _fits(self, leaves, start=0) -> bool:
        """Whether an element's components have the traced shapes and dtypes (those of
        the arguments from the ``start``-th on)."""
        avals = self._in_avals[start:]
        return len(leaves) == len(avals) and all(
            a.shape == shape and a.dtype == dtype for a, (shape, dtype) in zip(leaves, avals)
        )

    def _unpack(self, outs):
        return structure.pack(self._out_tree, [np.asarray(o) for o in outs])

    def results(self, elements, eager, prefetchable):
        """``(element, result)`` pairs for the host ``elements``, in order: the program's
        result, or ``eager(element)``'s for an element the program was not traced for.
        With ``prefetchable``, elements are pulled and run in blocks; an error raised by
        the input comes after the results of the elements before it, as without blocks.
        """
        if not prefetchable or self._block_size == 1:
            for element in elements:
                yield element, self._run_one(element, eager)
            return
        while True:
            block, failure, done = _pull_block(elements, self._block_size)
            yield from self._run_block(block, eager)
            if failure is not None:
                raise failure
            if done:
                return

    def _run_one(self, element, eager):
        leaves = structure.flatten(element)
        if not self._fits(leaves):
            return eager(element)
        return self._unpack(self._programs.one(self._consts, *leaves))

    def _run_block(self, block, eager):
        flat = [structure.flatten(e) for e in block]
        if len(block) < 2 or not all(self._fits(leaves) for leaves in flat):
            for element in block:
                yield element, self._run_one(element, eager)
            return
        n = len(block)
        stacked = []
        for k in range(len(self._in_avals)):
            parts = [leaves[k] for leaves in flat]
            # The last block is padded to the full size: one compiled block shape.
            parts.extend(parts[-1:] * (self._block_size - n))
            stacked.append(np.stack(parts))
        try:
            outs = [np.asarray(o) for o in self._programs.block(self._consts, *stacked)]
        except Exception:  # noqa: BLE001 - a program JAX cannot vmap runs per element
            self._block_size = 1
            for element in block:
                yield element, self._run_one(element, eager)
            return
        for i, element in enumerate(block):
            yield element, structure.pack(self._out_tree, [o[i, ...] for o in outs])

    def fold(self, state, elements, eager, prefetchable, pack_output=None):
        """Runs the program as ``fn(state, element)`` (traced on ``(state_spec,
        element_spec)``) over the host ``elements``, from the state's leaves ``state``,
        the new state (the program's first results) carried on the device. Yields, per
        element, the rest of its results as host values given to ``pack_output`` (None
        where it is None) and returns the last state's leaves. An element (or a state)
        the program was not traced for runs as ``eager(state, element) -> (state,
        output)``. With ``prefetchable``, each full block of elements runs through one
        ``lax.scan``; an error raised by the input comes after the outputs of the
        elements before it, as without blocks.
        """
        n = len(state)
        state = list(state)

        def one(state, element):
            leaves = structure.flatten(element)
            if not self._fits(list(state) + leaves):
                return eager(state, element)
            outs = self._programs.one(self._consts, *state, *leaves)
            rest = [np.asarray(o) for o in outs[n:]]
            return list(outs[:n]), None if pack_output is None else pack_output(rest)

        if not prefetchable or self._block_size == 1:
            for element in elements:
                state, out = one(state, element)
                yield out
            return state
        while True:
            block, failure, done = _pull_block(elements, self._block_size)
            scanned = None
            if len(block) == self._block_size:
                scanned = self._scan_block(state, block, n)
            if scanned is None:
                for element in block:
                    state, out = one(state, element)
                    yield out
            else:
                state, outs = scanned
                for i in range(len(block)):
                    yield None if pack_output is None else pack_output([o[i, ...] for o in outs])
            if failure is not None:
                raise failure
            if done:
                return state

    def _scan_block(self, state, block, n):
        """``(state, stacked outputs)`` after the full ``block`` of elements, run by one
        ``lax.scan`` from ``state``; None where the program cannot run the block so."""
        flat = [structure.flatten(e) for e in block]
        if not self._fits(list(state) + flat[0]) or not all(self._fits(f, n) for f in flat):
            return None
        xs = [np.stack([leaves[k] for leaves in flat]) for k in range(len(flat[0]))]
        try:
            carry, ys = self._programs.scan(n)(self._consts, list(state), xs)
        except Exception:  # noqa: BLE001 - a program JAX cannot scan runs per element
            self._block_size = 1
            return None
        return list(carry), [np.asarray(y) for y in ys]


class _Programs:
    """The programs of one traced function (its jaxpr), shared by every later trace that
    prints the same: a ``map`` made again, or a ``reduce`` called again (TF traces again
    each time, and so does tapejax, for the side effects; XLA need not compile again).
    The function's captured arrays are arguments, not constants XLA would fold in."""

    def __init__(self, jaxpr):
        self._jaxpr = jaxpr

        def body(consts, *arrays):
            return jaxpr_as_fun(ClosedJaxpr(jaxpr, consts))(*arrays)

        self.one = jax.jit(body)
        self.block = jax.jit(jax.vmap(body, in_axes=(None,) + (0,) * len(jaxpr.invars)))
        self._scans: dict = {}

    def scan(self, n):
        """The program that runs the function as ``fn(state, element)``, the state its
        first ``n`` arguments and results, over a block of stacked elements (``lax.scan``)."""
        program = self._scans.get(n)
        if program is None:
            jaxpr = self._jaxpr

            def body(consts, carry, xs):
                fn = jaxpr_as_fun(ClosedJaxpr(jaxpr, consts))

                def step(carry, x):
                    outs = fn(*carry, *x)
                    # The carry keeps its dtypes exactly (a weakly typed result would not).
                    new = [lax.convert_element_type(o, c.dtype) for o, c in zip(outs[:n], carry)]
                    return new, list(outs[n:])

                carry = [lax.convert_element_type(c, c.dtype) for c in carry]
                return lax.scan(step, carry, xs)

            program = self._scans[n] = jax.jit(body)
        return program


# Programs by printed jaxpr, the most recently used last.
_shared_programs: collections.OrderedDict = collections.OrderedDict()
_SHARED_PROGRAMS = 64
# Primitives that run Python given as a parameter, which the printed jaxpr names but
# does not tell apart: a jaxpr holding one gets programs of its own.
_OPAQUE = ("callback",)


def _programs_of(jaxpr) -> _Programs:
    """``jaxpr``'s programs: those of an earlier trace that printed the same, or new ones.
    The printed jaxpr holds the inputs' and captured arrays' types, every primitive with
    its parameters and every literal, so an equal one compiles to the same program."""
    if _opaque(jaxpr):
        return _Programs(jaxpr)
    key = str(jaxpr)
    programs = _shared_programs.get(key)
    if programs is None:
        programs = _shared_programs[key] = _Programs(jaxpr)
        if len(_shared_programs) > _SHARED_PROGRAMS:
            _shared_programs.popitem(last=False)
    else:
        _shared_programs.move_to_end(key)
    return programs


def _opaque(jaxpr) -> bool:
    for eqn in jaxpr.eqns:
        if any(word in eqn.primitive.name for word in _OPAQUE):
            return True
    return any(_opaque(sub) for sub in subjaxprs(jaxpr))


def _pull_block(elements, size):
    """Up to ``size`` elements pulled from the iterator ``elements``: ``(block, failure,
    done)``, ``failure`` the error the input raised after the elements of ``block`` (for
    the caller to raise once their results are out), ``done`` whether it is exhausted."""
    block = []
    try:
        while len(block) < size:
            block.append(next(elements))
    except StopIteration:
        return block, None, True
    except Exception as error:  # noqa: BLE001 - raised after the elements before it
        return block, error, False
    return block, None, False


class TracedPerShape:
    """``fn`` on the elements of ``spec``, which leaves a dim unknown: its output spec
    from two traces with the unknown dims at sizes 2 and 3 (dims of the result that
    change with them are unknown), and, when both are safe to run compiled, one program
    per element shape met, traced when first met, for at most ``_MAX_SHAPES`` shapes
    (the others run eagerly, as a function of many shapes would compile too often)."""

    def __init__(self, fn, spec):
        self._fn = fn
        self._spec = spec
        small, large = (Traced(fn, _sized(spec, size)) for size in (2, 3))
        self.out_spec = structure.relax_found(small.out_spec, large.out_spec)
        self.compiled = small.compiled and large.compiled
        # A new element shape runs the Python function again (to trace it, or eagerly).
        self.pure = False
        self._programs: dict = {}  # element shapes -> Traced, or None (runs eagerly)

    def _program(self, leaves):
        key = tuple(a.shape for a in leaves)
        if key in self._programs:
            return self._programs[key]
        program = None
        if len(self._programs) < _MAX_SHAPES:
            specs = [
                TensorSpec(a.shape, s.dtype) for a, s in zip(leaves, structure.flatten(self._spec))
            ]
            try:
                program = Traced(self._fn, structure.pack(self._spec, specs))
            except Exception:  # noqa: BLE001 - a shape the function cannot trace runs eagerly
                program = None
            if program is not None and not program.compiled:
                program = None
        self._programs[key] = program
        return program

    def results(self, elements, eager, prefetchable):
        """``(element, result)`` pairs for the host ``elements``, in order, each from the
        program of its shape, or from ``eager(element)``."""
        for element in elements:
            program = self._program(structure.flatten(element))
            if program is None:
                yield element, eager(element)
            else:
                yield element, program._run_one(element, eager)


def _sized(spec, size):
    return structure.map_structure(
        lambda s: TensorSpec([size if d is None else d for d in s.shape.as_list()], s.dtype), spec
    )


def trace(fn, spec):
    """``fn`` traced on the elements of ``spec``: a ``Traced``, a ``TracedPerShape`` where
    ``spec`` leaves a dim unknown, or None where it leaves a rank unknown or has Dataset
    components (a function of Datasets runs eagerly). Raises what the trace raises."""
    leaves = structure.flatten(spec)
    if structure.holds_datasets(spec) or any(s.shape.rank is None for s in leaves):
        return None
    if all(s.shape.is_fully_defined() for s in leaves):
        return Traced(fn, spec)
    return TracedPerShape(fn, spec)
