"""The building block of control flow: a user function **traced** once into a jaxpr whose
inputs are explicit (``_Traced``): its arguments, the Tensors it uses from outside
(``captured``) and the Variables it reads. A construct built on it (``control_flow_ops``,
``functional_ops``) is **one** recorded op around one JAX control-flow primitive
(``lax.switch``, ``lax.scan``, ``lax.while_loop``, ``jax.vmap``) whose inputs include
the captures, so a tape differentiates through it with respect to any of them, nested
tapes included. ``_apply`` runs such an op, reusing the Op across eager calls whose
traced function is the same (``_reuse_key``), so that it and its gradient compile once.

Variables a traced function assigns (``assign*``, random ops advancing their stream)
are carried through the branches or loop iterations and assigned after the op, as TF
orders them (not inside ``vectorized_map``).

Tracing runs a user function twice (once to find its captures, once with them as
inputs), with captured Tensors temporarily holding tracers (as Variables do inside
``tapejax.function``). This module must never bake a value that a tape may
differentiate into a traced function: everything a user function takes from outside
becomes an op input.

Also here: what the constructs share about structures (their checks are
``nest.assert_same_structure``, called as TF calls it at each place), dtype texts, and
``back_prop=False``.
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from .. import binding, dispatch, dtypes, nest, recorder
from .. import tensor as _tensor
from ..conversion import convert_to_tensor
from ..dispatch import Op
from ..tensor import Tensor, wrap
from ..tensor_spec import TensorSpec
from ..type_spec import type_spec_from_value
from ..variables import _creation_hooks
from ._array_common import stop_gradient


def _is_traced(x) -> bool:
    value = getattr(x, "_value", x)
    return isinstance(value, jax.core.Tracer)


def _as_tensor(x) -> Tensor:
    return x if type(x) is Tensor else convert_to_tensor(x)


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", repr(fn))


# -- structures (tf.nest's checks) ----------------------------------------------------------


def _is_sequence(x) -> bool:
    return isinstance(x, (list, tuple, Mapping))


def _type_spec(x):
    """TF's ``type_spec_from_value`` for a loop variable, as eager ``tf.while_loop`` records
    the structure it checks each iteration's result against (its texts show these specs:
    a ``TensorArraySpec`` for a TensorArray, a ``NoneTensorSpec`` for None). What no spec
    describes stays itself."""
    if x is None or type(x).__name__ in ("SparseTensor", "TensorArray"):
        return type_spec_from_value(x)
    try:
        t = _as_tensor(x)
    except (TypeError, ValueError):
        return x
    return TensorSpec(t.shape, t.dtype)


class _Leaf:
    """Marks where a traced function returned a tensor (its ``structure`` holds no values)."""

    def __repr__(self) -> str:
        return "<tensor>"


_LEAF = _Leaf()


def _skeleton(structure):
    """``structure`` with its leaves replaced by ``_LEAF`` (kept without holding tracers);
    None leaves stay None, as TF lets functions return None."""
    return nest.map_structure(lambda x: None if x is None else _LEAF, structure)


def _tensor_leaves(structure) -> list:
    return [x for x in nest.flatten(structure) if x is not None]


def _fill(skeleton, values):
    """``skeleton`` with its ``_LEAF`` leaves replaced by ``values``, in order."""
    it = iter(values)
    return nest.map_structure(lambda x: None if x is None else next(it), skeleton)


# -- tracing a user function into explicit inputs ---------------------------------------------


class _CaptureWatcher:
    """A recorder noting what a user function takes from outside itself.

    Tensors created before the function started (ids below ``first``) that an op uses
    are captured; Variables it reads are captured; Variables it assigns are restored.
    """

    def __init__(self, first: int):
        self.first = first
        self.tensors: dict = {}
        self.variables: dict = {}
        self.assigned: dict = {}

    def record(self, op, static, args, outs):
        for a in args:
            if type(a) is Tensor and a._id < self.first:
                self.tensors.setdefault(a._id, a)

    def variable_read(self, var, tensor):
        self.variables.setdefault(var._id, var)

    def variable_accessed(self, var):
        self.assigned.setdefault(var._id, (var, var._value))

    def restore(self):
        for var, value in self.assigned.values():
            var._value = value


@contextlib.contextmanager
def _substituted(tensors, values):
    """Runs a block with each captured Tensor holding the matching (traced) value."""
    saved = [t._value for t in tensors]
    for t, v in zip(tensors, values):
        t._value = v
    try:
        yield
    finally:
        for t, v in zip(tensors, saved):
            t._value = v


def _leaf_array(x):
    return _as_tensor(x)._value


class _Traced:
    """A user function of Tensors traced once into a jaxpr with explicit inputs.

    ``fn(list of Tensors) -> structure`` runs twice while tracing: once to find what it
    captures, once to build the jaxpr of ``(captured, variable values, arguments) ->
    flat outputs``. Later uses evaluate the jaxpr, so the Python never runs again.

    Args:
      fn: the function of a list of Tensors.
      in_avals: ``jax.ShapeDtypeStruct`` of each argument.
      what: the construct's name, for error texts.
    """

    def __init__(self, fn, in_avals, what: str):
        first = _tensor._next_id()
        watcher = _CaptureWatcher(first)
        shapes: list = []

        def probe(*arrays):
            with recorder.only((watcher,)):
                result = fn([wrap(a) for a in arrays])
                leaves = _tensor_leaves(result)
                for leaf in leaves:
                    if type(leaf) is Tensor and leaf._id < first:
                        watcher.tensors.setdefault(leaf._id, leaf)
                out = [_leaf_array(x) for x in leaves]
            shapes.append(_skeleton(result))
            return out

        def refuse(var):
            raise NotImplementedError(
                f"tapejax cannot trace the creation of a Variable inside the function of {what} "
                f"({var.name}): create it before (for a layer: call it once outside)."
            )

        _creation_hooks.append(refuse)
        try:
            probed = jax.make_jaxpr(probe)(*in_avals)
        finally:
            _creation_hooks.remove(refuse)
            watcher.restore()
        self.structure = shapes[0]
        self.captured = list(watcher.tensors.values())
        variables = dict(watcher.variables)
        for vid, (var, _) in watcher.assigned.items():
            variables.setdefault(vid, var)
        self.variables = list(variables.values())
        self.assigned = [var for var, _ in watcher.assigned.values()]
        nc, nv = len(self.captured), len(self.variables)
        order = [v._id for v in self.variables]
        self.assigned_slots = [nc + order.index(v._id) for v in self.assigned]
        captured, variables, assigned = self.captured, self.variables, self.assigned

        def pure(*args):
            with (
                _substituted(captured, args[:nc]),
                binding.bound(variables, args[nc : nc + nv]),
                recorder.paused(),
            ):
                result = fn([wrap(a) for a in args[nc + nv :]])
                outs = [_leaf_array(x) for x in _tensor_leaves(result)]
                return outs + [jnp.asarray(v._value) for v in assigned]

        extra_avals = [_aval(t._value) for t in captured] + [_aval(v._value) for v in variables]
        # With nothing captured the probe's jaxpr already is the pure function.
        self.closed = jax.make_jaxpr(pure)(*extra_avals, *in_avals) if nc + nv else probed
        self.n_out = len(self.closed.out_avals) - len(assigned)
        self.out_avals = [_aval(a) for a in self.closed.out_avals[: self.n_out]]
        self.n_extra = nc + nv
        for slot, new in zip(self.assigned_slots, self.closed.out_avals[self.n_out :]):
            old = extra_avals[slot]
            if (old.shape, old.dtype) != (new.shape, new.dtype):
                raise NotImplementedError(
                    f"tapejax cannot trace an assignment that changes a Variable's shape or dtype "
                    f"inside the function of {what} ({old} -> {new})."
                )

    def require_outputs(self, n: int, what: str) -> None:
        """Raises unless the function returned ``n`` tensors (no None in their place)."""
        if self.n_out != n:
            raise ValueError(
                f"The function of {what} must return {n} tensor(s) in the loop's structure, "
                f"got {self.structure}"
            )

    def refuse_assignments(self, what: str) -> None:
        """Raises for a construct that cannot carry Variable assignments out of ``fn``."""
        if self.assigned:
            names = ", ".join(v.name for v in self.assigned)
            raise NotImplementedError(
                f"tapejax cannot trace a Variable assignment inside the function of {what} "
                f"(assigned: {names}). Assign after it from its outputs, or run eagerly "
                "(tapejax.config.run_functions_eagerly(True))."
            )

    def state(self, extra) -> list:
        """The current values of the assigned Variables among the op's ``extra`` inputs."""
        return [extra[slot] for slot in self.assigned_slots]

    def key(self):
        """A hashable key equal for traces that compute the same function, or None.

        The jaxpr's text, plus the identity of every parameter the text does not show
        faithfully (functions of custom derivatives, callbacks), plus the values of small
        constants. Used to reuse one Op (and its compiled programs) across eager calls.
        """
        opaque: list = []
        consts: list = []
        if not _collect(self.closed, opaque, consts):
            return None
        self._keepalive = (opaque, consts)  # ids in the key must not be reused
        return (str(self.closed.jaxpr), tuple(id(o) for o in opaque), tuple(consts))

    def extra_inputs(self) -> list:
        """The op inputs for the captures: read here, so that active tapes see the reads."""
        return list(self.captured) + [v._dense_read() for v in self.variables]

    def slots_of(self, variables) -> list:
        """``(slot among extra inputs, position in variables)`` of those this function reads."""
        nc = len(self.captured)
        order = [v._id for v in self.variables]
        return [(nc + order.index(v._id), i) for i, v in enumerate(variables) if v._id in order]

    def __call__(self, extra, args, types=None, state=None, slots=None):
        """``(outputs, new values of the assigned Variables)``.

        ``state`` holds values of Variables carried by a loop: they replace those
        Variables' values among ``extra`` (by default the function's own assigned ones;
        ``slots`` from ``slots_of`` for another function's).
        """
        if state is not None:
            extra = list(extra)
            if slots is None:
                slots = [(slot, i) for i, slot in enumerate(self.assigned_slots)]
            for slot, i in slots:
                extra[slot] = state[i]
        out = jax.core.eval_jaxpr(self.closed.jaxpr, self.closed.consts, *extra, *args)
        outs, news = out[: self.n_out], out[self.n_out :]
        if types is not None:
            # Strips weak types, which lax.scan and lax.switch would reject.
            outs = [jax.lax.convert_element_type(o, d) for o, d in zip(outs, types)]
        return outs, news


def _assign_all(variables, values) -> None:
    for v, value in zip(variables, values):
        v.assign(wrap(value))


_PLAIN_PARAMS = (int, float, complex, bool, str, type(None), np.dtype, jax.core.ShapedArray)


def _collect(closed, opaque: list, consts: list) -> bool:
    """Gathers a ClosedJaxpr's opaque parameters and constant keys; False if a constant is
    a tracer (the trace belongs to an enclosing transformation: nothing to reuse)."""
    for c in closed.consts:
        if isinstance(c, jax.core.Tracer):
            return False
        a = np.asarray(c) if np.size(c) <= 4096 else None
        if a is None:
            opaque.append(c)
            consts.append(("id", id(c)))
        else:
            consts.append((a.shape, a.dtype.str, a.tobytes()))
    return _collect_params(closed.jaxpr, opaque, consts)


def _collect_params(jaxpr, opaque: list, consts: list) -> bool:
    for eqn in jaxpr.eqns:
        stack = list(eqn.params.values())
        while stack:
            v = stack.pop()
            if isinstance(v, _PLAIN_PARAMS):
                continue
            if isinstance(v, (tuple, list)):
                stack.extend(v)
            elif isinstance(v, jax.extend.core.ClosedJaxpr):
                if not _collect(v, opaque, consts):
                    return False
            elif isinstance(v, jax.extend.core.Jaxpr):
                if not _collect_params(v, opaque, consts):
                    return False
            else:
                opaque.append(v)
    return True


def _aval(x) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(jnp.shape(x), x.dtype)


def _split(args, sizes):
    out, i = [], 0
    for n in sizes:
        out.append(args[i : i + n])
        i += n
    out.append(args[i:])
    return out


_ops: collections.OrderedDict = collections.OrderedDict()
_OPS_CACHED = 256


def _apply(name: str, fn, inputs, key=None) -> tuple:
    """Runs ``fn`` as one recorded op on ``inputs``.

    ``fn`` closes over traced user functions, so each call makes a new Op, unless
    ``key`` (which must determine ``fn`` completely) finds the Op of an earlier call:
    then its compiled program and the tapes' derivative programs are reused.
    """
    op = None
    if key is not None:
        key = (name, key, tuple((t._v.shape, t._v.dtype) for t in inputs))
        op = _ops.get(key)
        if op is not None:
            _ops.move_to_end(key)
    if op is None:
        op = Op(name, fn, multiple_outputs=True, runs_user_code=True)
        if key is not None:
            _ops[key] = op
            if len(_ops) > _OPS_CACHED:
                _ops.popitem(last=False)
    return dispatch.apply(op, tuple(inputs))


def _reuse_key(reuse: bool, body, *static):
    """The key under which an eager call reuses an Op: the traced function and every static
    fact its ``run`` closes over (None: make a new Op)."""
    if not reuse:
        return None
    body_key = body.key()
    return None if body_key is None else (body_key, body.n_extra, body.n_out, *static)


def _recorded_by_a_tape(inputs) -> bool:
    for r in recorder.active():
        live = getattr(r, "live", None)
        if live is not None and any(t._id in live for t in inputs):
            return True
    return False


# -- shared by the constructs -----------------------------------------------------------------


def _dtype_name(np_dtype) -> str:
    return dtypes.from_array_dtype(np_dtype).name


def _tf_dtype(np_dtype) -> str:
    return f"<dtype: '{_dtype_name(np_dtype)}'>"


def _finish(result, back_prop):
    """``back_prop=False`` as TF applies it: a stop_gradient on the outputs of a traced loop
    (TF eager ignores it)."""
    if back_prop or not any(_is_traced(t) for t in nest.flatten(result)):
        return result
    return nest.map_structure(stop_gradient, result)
