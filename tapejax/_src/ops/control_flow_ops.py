"""Control flow: ``cond``, ``case``, ``switch_case``, ``while_loop``, ``scan``, ``foldl``,
``foldr``, ``map_fn`` and ``vectorized_map``, with TF's signatures and semantics.

The building block is a user function **traced** once into a jaxpr whose inputs are
explicit (``_Traced``): its arguments, the Tensors it uses from outside (``captured``)
and the Variables it reads. A construct built on it is **one** recorded op around one
JAX control-flow primitive (``lax.switch``, ``lax.scan``, ``lax.while_loop``,
``jax.vmap``) whose inputs include the captures, so a tape differentiates through it
with respect to any of them, nested tapes included.

* **Traced** (inside ``tapejax.function`` or a JAX transform, where inputs are tracers)
  every construct is such an op.
* **Eagerly** ``cond``/``case``/``switch_case`` run the taken branch as Python and
  ``while_loop`` is a Python loop (as TF eager: tapes record the ops that ran).
  ``scan``/``foldl``/``foldr``/``map_fn`` first try the one-op form, with the Op
  reused across calls whose traced function is the same (so the loop and its
  gradient compile once, not once per unrolled step); a function that cannot be
  traced (Python control flow on values, ``.numpy()``, Variable assignments, an
  accumulator changing dtype) runs as a Python loop over recorded ops instead, as in
  TF eager. ``vectorized_map`` is always ``jax.vmap`` of the function.

Variables a traced function assigns (``assign*``, random ops advancing their stream)
are carried through the branches or loop iterations and assigned after the op, as TF
orders them (not inside ``vectorized_map``).

A traced ``while_loop`` with a static ``maximum_iterations`` is a ``lax.scan`` of that
length whose body runs only while the condition holds, so reverse mode works; without
it the loop is a ``lax.while_loop``, which JAX cannot reverse-differentiate: a tape
recording it raises a ``NotImplementedError`` naming the fix.

Tracing runs a user function twice (once to find its captures, once with them as
inputs), with captured Tensors temporarily holding tracers (as Variables do inside
``tapejax.function``). This module must never bake a value that a tape may
differentiate into a traced function: everything a user function takes from outside
becomes an op input.
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
from ..errors import InvalidArgumentError, OutOfRangeError
from ..tensor import Tensor, wrap
from ..variables import _creation_hooks
from .array_ops import stack, stop_gradient, unstack

__all__ = [
    "case",
    "cond",
    "foldl",
    "foldr",
    "map_fn",
    "scan",
    "switch_case",
    "vectorized_map",
    "while_loop",
]


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


def assert_same_structure(first, second, check_types=True) -> None:
    """TF's ``nest.assert_same_structure`` (its exception types and the start of its text)."""

    def fail(detail):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {first}\n\nSecond structure: {second}\n\n"
            f"More specifically: {detail}"
        )

    def walk(a, b):
        if _is_sequence(a) != _is_sequence(b):
            fail(f"Substructure {a!r} is a sequence, while substructure {b!r} is not")
        if not _is_sequence(a):
            return
        if check_types and type(a) is not type(b):
            raise TypeError(
                "The two structures don't have the same sequence type. Input structure has "
                f"type {type(a)}, while shallow structure has type {type(b)}."
            )
        if isinstance(a, Mapping):
            if set(a) != set(b):
                fail(
                    f"The two dictionaries don't have the same set of keys: {list(a)} vs {list(b)}"
                )
            for k in a:
                walk(a[k], b[k])
            return
        if len(a) != len(b):
            fail(f"The two structures don't have the same number of elements: {len(a)} vs {len(b)}")
        for x, y in zip(a, b):
            walk(x, y)

    walk(first, second)


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
        key = (name, key, tuple((t._value.shape, t._value.dtype) for t in inputs))
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


# -- branches: cond, case, switch_case --------------------------------------------------------


def _traced_switch(index_fn, index_inputs, branches, what: str, label):
    """One op: ``lax.switch(index_fn(*index_inputs), branches)`` over traced branch functions.

    ``label(i)`` names branch ``i`` in TF's mismatch error.
    """
    bodies = [_Traced(lambda _, f=f: f(), [], what) for f in branches]
    first = bodies[0]
    for i, b in enumerate(bodies[1:], 1):
        try:
            assert_same_structure(first.structure, b.structure)
        except (TypeError, ValueError) as e:
            raise ValueError(_branch_mismatch(what, label, i, first, b, e)) from None
        if [x is None for x in nest.flatten(first.structure)] != [
            x is None for x in nest.flatten(b.structure)
        ]:
            raise ValueError(_branch_mismatch(what, label, i, first, b, "None where a tensor is"))
        for x, y in zip(first.out_avals, b.out_avals):
            if x.dtype != y.dtype:
                raise TypeError(_branch_mismatch(what, label, i, first, b, "dtypes differ"))
            if x.shape != y.shape:
                raise ValueError(
                    _branch_mismatch(what, label, i, first, b, "shapes differ")
                    + "\n(tapejax: traced branches must return equal shapes, as JAX requires; "
                    "TF would return a tensor of partially unknown shape.)"
                )
    types = [a.dtype for a in first.out_avals]
    # Variables any branch assigns: every branch returns their values (unchanged where it
    # does not assign them), and they are assigned after the op.
    union: dict = {}
    for b in bodies:
        for v in b.assigned:
            union.setdefault(v._id, v)
    assigned = list(union.values())
    extras = []
    for b in bodies:
        extras += b.extra_inputs()
    state_inputs = [v._dense_read() for v in assigned]
    n_index, n_state = len(index_inputs), len(state_inputs)
    sizes = [b.n_extra for b in bodies]
    offsets = [sum(sizes[:k]) for k in range(len(bodies))]

    def branch(k, b):
        where = [[u._id for u in assigned].index(v._id) for v in b.assigned]

        def run_branch(state, *extra):
            outs, news = b(extra[offsets[k] : offsets[k] + sizes[k]], [], types)
            state = list(state)
            for i, new in zip(where, news):
                state[i] = new
            return tuple(outs), tuple(state)

        return run_branch

    fns = [branch(k, b) for k, b in enumerate(bodies)]

    def run(*args):
        index = index_fn(*args[:n_index])
        state = args[n_index : n_index + n_state]
        outs, news = jax.lax.switch(index, fns, tuple(state), *args[n_index + n_state :])
        return outs + news

    outs = _apply("StatelessCase", run, list(index_inputs) + state_inputs + extras)
    n_out = len(outs) - n_state
    _assign_all(assigned, [o._value for o in outs[n_out:]])
    return _fill(first.structure, outs[:n_out])


def _branch_mismatch(what, label, i, first, other, detail) -> str:
    return (
        f"{label(0)} and {label(i)} arguments to {what} must have the same number, type, and "
        f"overall structure of return values.\n\n{label(0)} output: {first.structure} "
        f"{[str(a) for a in first.out_avals]}\n{label(i)} output: {other.structure} "
        f"{[str(a) for a in other.out_avals]}\n\nError details:\n{detail}"
    )


def _cond_labels(i):
    return ("false_fn", "true_fn")[i]


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns ``true_fn()`` if ``pred`` else ``false_fn()`` (``tf.cond``).

    Eagerly only the taken branch runs (tapes record its ops). Traced, it is one
    ``lax.cond``-style op: both branches are traced, one runs, and tapes differentiate
    through it (including with respect to tensors the branches capture).

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant(3.0)
        >>> float(tf.cond(x > 0, lambda: x * 3, lambda: x * 5))
        9.0

    .. warning::
       When traced, both branches must return the same structure, dtypes and shapes
       (TF allows shapes to differ, giving an unknown shape).
    """
    if true_fn is None or false_fn is None:
        raise TypeError("cond(): 'true_fn' and 'false_fn' arguments are required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, (bool, np.bool_)):  # known while tracing too: no op needed
        return true_fn() if pred else false_fn()
    p = pred if type(pred) is Tensor else convert_to_tensor(pred)
    if not _is_traced(p):
        return true_fn() if bool(p._value) else false_fn()
    if p._value.shape != ():
        raise ValueError(f"Shape must be rank 0 but is rank {p._value.ndim} for 'cond' predicate")
    return _traced_switch(
        lambda q: q.astype(jnp.int32), [p], [false_fn, true_fn], "tf.cond", _cond_labels
    )


def _unpack_if_singleton(result):
    if isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def _check_pred_fn_pairs(pred_fn_pairs, exclusive):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(
            f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}"
        )
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:
            raise ValueError(
                "Unordered dictionaries are not supported for the 'pred_fn_pairs' argument "
                "when `exclusive=False` and eager mode is enabled."
            )
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if getattr(pred, "_is_variable", False) or isinstance(pred, Tensor):
            if pred.dtype.name != "bool":
                raise TypeError(f"pred must be Tensor of type bool: {pred!r}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred!r} must be callable.")
    if not pred_fn_pairs:
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    return [convert_to_tensor(p) for p, _ in pred_fn_pairs], [f for _, f in pred_fn_pairs]


def _assertion_failed(data: str, values) -> InvalidArgumentError:
    shown = ", ".join(str(bool(v)) for v in values)
    return InvalidArgumentError(
        None,
        None,
        f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
        f"b'{data}'\n{shown}",
    )


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the function of the first true predicate, else ``default`` (``tf.case``).

    Args:
      pred_fn_pairs: a list of ``(boolean scalar Tensor, callable)`` pairs.
      default: callable for when no predicate is true; without it the last pair's
        function is the default, and no true predicate is an InvalidArgumentError.
      exclusive: more than one true predicate is an InvalidArgumentError.
      strict: do not unpack singleton lists/tuples returned by the functions.

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant(2)
        >>> int(tf.case([(x < 0, lambda: tf.constant(-1)), (x > 1, lambda: tf.constant(1))],
        ...             default=lambda: tf.constant(0)))
        1

    .. warning::
       Traced (inside ``tapejax.function``), the checks TF runs as graph assertions
       (``exclusive``, no true predicate without ``default``) are not made: the first
       true predicate wins, and without one the last function runs.
    """
    preds, fns = _check_pred_fn_pairs(pred_fn_pairs, exclusive)
    if default is not None and not callable(default):
        raise TypeError("'false_fn' must be callable.")
    if not any(_is_traced(p) for p in preds):
        values = [bool(np.asarray(p._value)) for p in preds]
        if exclusive and sum(values) > 1:
            raise _assertion_failed(
                "Input error: exclusive=True: more than 1 conditions "
                f"({', '.join('?' for _ in preds)}) evaluated as True:",
                values,
            )
        for v, fn in zip(values, fns):
            if v:
                result = fn()
                break
        else:
            if default is None:
                raise _assertion_failed(
                    "Input error: None of conditions evaluated as True:", values
                )
            result = default()
        return result if strict else _unpack_if_singleton(result)
    for p in preds:
        if p._value.shape != ():
            raise ValueError(
                f"Shape must be rank 0 but is rank {p._value.ndim} for 'case' predicate"
            )
    branches = list(fns) + ([default] if default is not None else [])
    n = len(preds)
    fallback = n if default is not None else n - 1

    def index(*ps):
        stacked = jnp.stack(ps)
        return jnp.where(jnp.any(stacked), jnp.argmax(stacked), fallback).astype(jnp.int32)

    if not strict:
        branches = [lambda f=f: _unpack_if_singleton(f()) for f in branches]
    return _traced_switch(index, preds, branches, "tf.case", lambda i: f"branch_fns[{i}]")


def _check_branch_fns(branch_index, branch_fns, default):
    if not isinstance(branch_index, Tensor) and not getattr(branch_index, "_is_variable", False):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype!r}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
            "{" + ",".join(map(str, sorted(keys))) + "}"
        )
    actions = [fn for _, fn in sorted(branch_fns, key=lambda kv: kv[0])]
    if default is not None:
        actions.append(default)
    return actions


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]()`` (``tf.switch_case``).

    An index outside ``[0, len(branch_fns))`` runs ``default``, or the last branch
    when there is none, as in TF.

    Example:
        >>> import tapejax as tf
        >>> int(tf.switch_case(tf.constant(1), [lambda: tf.constant(10), lambda: tf.constant(20)]))
        20
    """
    actions = _check_branch_fns(branch_index, branch_fns, default)
    index = convert_to_tensor(branch_index)
    n = len(actions)
    if not _is_traced(index):
        value = np.asarray(index._value)
        if value.shape != ():
            raise InvalidArgumentError(
                None,
                None,
                f"The second input must be a scalar, but it has shape {list(value.shape)}",
            )
        i = int(value)
        return actions[i if 0 <= i < n else n - 1]()
    if index._value.shape != ():
        raise InvalidArgumentError(
            None,
            None,
            f"The second input must be a scalar, but it has shape {list(index._value.shape)}",
        )

    def select(i):
        return jnp.where((i < 0) | (i >= n), n - 1, i).astype(jnp.int32)

    return _traced_switch(select, [index], actions, "tf.switch_case", lambda i: f"branches[{i}]")


# -- while_loop ------------------------------------------------------------------------------


def _static_int(value, what: str):
    """``value`` as a Python int, or None when it is only known at run time (traced)."""
    if value is None:
        return None
    t = value if isinstance(value, Tensor) else None
    if t is None and not isinstance(value, (int, np.integer)):
        t = convert_to_tensor(value)
    if t is not None:
        if t._value.ndim != 0:
            raise ValueError(f"'{what}' must be a scalar. Received shape: {tuple(t._value.shape)}")
        if _is_traced(t):
            return None
        return int(np.asarray(t._value))
    return int(value)


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    maximum_iterations=None,
    name=None,
):
    """Repeats ``body`` while ``cond`` is true (``tf.while_loop``).

    Eagerly it is a Python loop and tapes record every iteration's ops. Traced, it is
    one op: with a static ``maximum_iterations`` (a Python int or an eager Tensor) a
    ``lax.scan`` of that many steps whose body runs only while ``cond`` holds, which
    tapes differentiate; without one a ``lax.while_loop``, which they cannot.

    Example:
        >>> import tapejax as tf
        >>> i, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
        ...                      [tf.constant(0), tf.constant(1.0)])
        >>> int(i), float(x)
        (3, 8.0)

    .. warning::
       Traced, the loop variables must keep their shapes (``shape_invariants`` cannot
       relax them), and a bounded loop always costs ``maximum_iterations`` steps of
       ``cond`` (the body is skipped once ``cond`` fails). Eagerly under a tape, a long
       loop records every iteration, and its gradient compiles as one unrolled program:
       for thousands of iterations put the loop in ``tapejax.function`` with
       ``maximum_iterations``.

    Raises:
      NotImplementedError: a traced loop without a static ``maximum_iterations`` whose
        inputs a GradientTape records (reverse mode needs a bound).
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    single = not isinstance(loop_vars, (list, tuple))
    if not single and not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    bound = _static_int(maximum_iterations, "maximum_iterations")
    state = [loop_vars] if single else list(loop_vars)
    traced = any(_is_traced(x) for x in nest.flatten(state)) or (
        maximum_iterations is not None and bound is None
    )

    def call(fn, values):
        out = fn(*values)
        if single and not isinstance(out, (list, tuple)):
            out = [out]
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def finish(result):
        return _finish(result[0] if single else type(loop_vars)(result), back_prop)

    if not traced:
        # As TF eager: a Python loop; tapes record the ops of each iteration.
        i = 0
        while bound is None or i < bound:
            c = cond(*state)
            if _is_traced(c):  # a condition on captured traced values: trace the loop
                traced = True
                break
            if not bool(c if not isinstance(c, Tensor) else c._value):
                break
            new = call(body, state)
            assert_same_structure(state, new, check_types=False)
            state = new
            i += 1
        if not traced:
            return finish(nest.map_structure(_as_tensor, state))
    return finish(_traced_while(cond, body, state, single, bound, maximum_iterations, back_prop))


def _traced_while(cond, body, state, single, bound, maximum_iterations, back_prop):
    template = _skeleton(state)
    flat = [_as_tensor(x) for x in nest.flatten(state)]
    avals = [_aval(t._value) for t in flat]
    types = [a.dtype for a in avals]

    def unpack(ts):
        return nest.pack_sequence_as(template, ts)

    def body_fn(ts):
        out = body(*unpack(ts))
        if single and not isinstance(out, (list, tuple)):
            out = [out]
        return list(out) if isinstance(out, (list, tuple)) else [out]

    cond_t = _Traced(lambda ts: cond(*unpack(ts)), avals, "tf.while_loop")
    if len(cond_t.out_avals) != 1 or cond_t.out_avals[0].shape != ():
        raise ValueError(
            f"tf.while_loop: cond must return a boolean scalar, got {cond_t.structure} "
            f"{[str(a) for a in cond_t.out_avals]}"
        )
    cond_t.refuse_assignments("tf.while_loop's cond")
    body_t = _Traced(body_fn, avals, "tf.while_loop")
    assert_same_structure(body_t.structure, template, check_types=False)
    body_t.require_outputs(len(flat), "tf.while_loop")
    for k, (a, b) in enumerate(zip(avals, body_t.out_avals)):
        if a.dtype != b.dtype:
            raise TypeError(
                f"Loop var {k} enters the loop with type {_tf_dtype(a.dtype)} but has type "
                f"{_tf_dtype(b.dtype)} after 1 iteration. Loop var {k} type should remain constant."
            )
        if a.shape != b.shape:
            raise ValueError(
                f"Input tensor `loop var {k}` enters the loop with shape {a.shape}, but has shape "
                f"{b.shape} after one iteration. To allow the shape to vary across iterations, "
                "use the `shape_invariants` argument of tf.while_loop to specify a less-specific "
                "shape. (tapejax: a traced while_loop cannot change shapes at all; run it "
                "eagerly.)"
            )
    extras = cond_t.extra_inputs() + body_t.extra_inputs()
    inputs = extras + flat
    if bound is None and back_prop and _recorded_by_a_tape(inputs):
        raise NotImplementedError(
            "tapejax cannot differentiate a while_loop inside tapejax.function without a bound: "
            "JAX's while_loop has no reverse-mode derivative. Pass "
            "maximum_iterations=<Python int> to tf.while_loop (the loop then becomes a "
            "differentiable lax.scan of that many steps)"
            + (
                " -- the maximum_iterations given is only known at run time here"
                if maximum_iterations is not None
                else ""
            )
            + ", or run the function eagerly (tapejax.config.run_functions_eagerly(True))."
        )
    nc, nb = cond_t.n_extra, body_t.n_extra
    cond_slots = cond_t.slots_of(body_t.assigned)  # cond sees the values the body assigned
    limit = None if maximum_iterations is None or bound is not None else maximum_iterations
    limit_inputs = [_as_tensor(limit)] if limit is not None else []

    def run(*args):
        ce, be, rest = _split(args, [nc, nb])
        if limit_inputs:
            vals, (stop,) = rest[:-1], rest[-1:]
        else:
            vals, stop = rest, None

        def go(v):
            return cond_t(ce, list(v[0]), state=v[1], slots=cond_slots)[0][0].astype(bool)

        def step(v):
            outs, news = body_t(be, list(v[0]), types, state=v[1])
            return tuple(outs), tuple(news)

        start = (tuple(vals), tuple(body_t.state(be)))
        if bound is None:
            if stop is None:
                final = jax.lax.while_loop(go, step, start)
            else:

                def counted(c):
                    return (c[0] < stop) & go(c[1])

                final = jax.lax.while_loop(counted, lambda c: (c[0] + 1, step(c[1])), (0, start))[1]
            return final[0] + final[1]

        def masked(carry, _):
            active, v = carry
            active = active & go(v)
            v = jax.lax.cond(active, step, lambda v: v, v)
            return (active, v), None

        (_, final), _ = jax.lax.scan(masked, (jnp.bool_(True), start), None, length=bound)
        return final[0] + final[1]

    outs = _apply("StatelessWhile", run, inputs + limit_inputs)
    _assign_all(body_t.assigned, [o._value for o in outs[len(flat) :]])
    return list(unpack(list(outs[: len(flat)])))


def _dtype_name(np_dtype) -> str:
    return dtypes.from_array_dtype(np_dtype).name


def _tf_dtype(np_dtype) -> str:
    return f"<dtype: '{_dtype_name(np_dtype)}'>"


def _tensor_array_dtype_error(want, got) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        None,
        f"TensorArray dtype is {_dtype_name(want)} but Op is trying to write dtype "
        f"{_dtype_name(got)}",
    )


# -- scan, foldl, foldr, map_fn ---------------------------------------------------------------


def _check_callable(fn):
    if not callable(fn):
        raise TypeError(f"{_fn_name(fn)} is not callable. Please provide a callable function.")


def _flat_elems(elems) -> list:
    """The leaves of ``elems`` as Tensors, checked as TF checks them (rank >= 1, equal length)."""
    flat = [_as_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(
            "elems must be a Tensor or (possibly nested) sequence of Tensors. Got "
            f"{elems}, which does not contain any Tensors."
        )
    if any(t._value.ndim < 1 for t in flat):
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n = flat[0]._value.shape[0]
    for t in flat[1:]:
        if t._value.shape[0] != n:
            raise ValueError(f"Dimensions {n} and {t._value.shape[0]} are not compatible")
    return flat


def _pack(structure, leaves, nested: bool):
    return nest.pack_sequence_as(structure, leaves) if nested else leaves[0]


def _check_written(value: Tensor, dtype, shape, infer_shape=True) -> None:
    """TF's TensorArray checks on each value written by scan and map_fn."""
    if value._value.dtype != dtype:
        raise _tensor_array_dtype_error(dtype, value._value.dtype)
    if infer_shape and shape is not None and tuple(value._value.shape) != tuple(shape):
        raise ValueError(
            f"Incompatible shape for value ({tuple(value._value.shape)}), expected ({tuple(shape)})"
        )


def _convert_like(x, dtype) -> Tensor:
    """A leaf returned by a user function as a Tensor (Python numbers take ``dtype``, as TF's
    TensorArray write converts them)."""
    if type(x) is Tensor or getattr(x, "_is_variable", False):
        return convert_to_tensor(x)
    try:
        return convert_to_tensor(x, dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(x)


def _empty_read() -> OutOfRangeError:
    return OutOfRangeError(None, None, "Tried to read from index 0 but array size is: 0 ")


def _scan_like(fn, elems, initializer, reverse, keep_all, what):
    """scan (``keep_all``: every accumulator, stacked) and foldl/foldr (the last one)."""
    nested_in = _is_sequence(elems)
    flat_elems = _flat_elems(elems)
    n = flat_elems[0]._value.shape[0]
    if initializer is None:
        if n == 0:
            raise _empty_read()
        acc_structure, nested_acc = elems, nested_in
    else:
        acc_structure, nested_acc = initializer, _is_sequence(initializer)
    init_flat = None if initializer is None else [_as_tensor(x) for x in nest.flatten(initializer)]
    inputs = flat_elems + (init_flat or [])
    args = (fn, flat_elems, elems, nested_in, init_flat, acc_structure, nested_acc, reverse)
    if any(_is_traced(t) for t in inputs) or (keep_all and n == 0):
        return _traced_scan(*args, keep_all, what)
    try:
        return _traced_scan(*args, keep_all, what, reuse=True)
    except Exception:  # noqa: BLE001 - fn cannot be traced: the Python loop says why, if wrong
        pass
    # As TF eager: a Python loop over recorded ops.
    columns = [unstack(t) for t in flat_elems]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    if init_flat is None:
        acc = [col[order[0]] for col in columns]
        order = order[1:]
    else:
        acc = init_flat
    types = [t._value.dtype for t in acc]
    shapes = [t._value.shape for t in acc]
    history = [acc]
    for i in order:
        x = _pack(elems, [col[i] for col in columns], nested_in)
        out = fn(_pack(acc_structure, acc, nested_acc), x)
        assert_same_structure(acc_structure, out)
        acc = [_convert_like(o, d) for o, d in zip(nest.flatten(out), types)]
        if keep_all:
            for a, d, s in zip(acc, types, shapes):
                _check_written(a, d, s)
            history.append(acc)
    if not keep_all:
        return _pack(acc_structure, acc, nested_acc)
    if init_flat is not None:
        history = history[1:]
    if reverse:
        history = history[::-1]
    stacked = [stack([h[k] for h in history]) for k in range(len(types))]
    return _pack(acc_structure, stacked, nested_acc)


def _traced_scan(
    fn,
    flat_elems,
    elems,
    nested_in,
    init_flat,
    acc_structure,
    nested_acc,
    reverse,
    keep_all,
    what,
    reuse=False,
):
    """One ``lax.scan`` op; ``reuse``: look its Op up by the traced function (eager calls)."""
    has_init = init_flat is not None
    elem_avals = [jax.ShapeDtypeStruct(t._value.shape[1:], t._value.dtype) for t in flat_elems]
    acc_avals = [_aval(t._value) for t in init_flat] if has_init else elem_avals
    types = [a.dtype for a in acc_avals]
    k = len(acc_avals)

    def step_fn(ts):
        return fn(_pack(acc_structure, ts[:k], nested_acc), _pack(elems, ts[k:], nested_in))

    body = _Traced(step_fn, acc_avals + elem_avals, what)
    assert_same_structure(acc_structure, body.structure)
    body.require_outputs(k, what)
    for a, b in zip(acc_avals, body.out_avals):
        if a.dtype != b.dtype:
            raise TypeError(
                f"Loop var {what} accumulator enters the loop with type {_tf_dtype(a.dtype)} but "
                f"has type {_tf_dtype(b.dtype)} after 1 iteration. The accumulator type should "
                "remain constant."
            )
        if a.shape != b.shape:
            if keep_all:
                raise ValueError(f"Inconsistent shapes: saw {b.shape} but expected {a.shape} ")
            raise ValueError(
                f"Input tensor `{what} accumulator` enters the loop with shape {a.shape}, but has "
                f"shape {b.shape} after one iteration. (tapejax: a traced {what} cannot change "
                "the accumulator's shape; run it eagerly.)"
            )
    extras = body.extra_inputs()
    ne = body.n_extra

    def run(*args):
        ex, rest = args[:ne], args[ne:]
        if has_init:
            xs, init = rest[: len(flat_elems)], rest[len(flat_elems) :]
        else:
            xs = rest
            init = [x[-1] if reverse else x[0] for x in xs]
            xs = [x[:-1] if reverse else x[1:] for x in xs]

        def step(carry, x):
            acc, state = carry
            out, news = body(ex, list(acc) + list(x), types, state=state)
            out = tuple(out)
            return (out, tuple(news)), (out if keep_all else None)

        start = (tuple(init), tuple(body.state(ex)))
        (final, state), ys = jax.lax.scan(step, start, tuple(xs), reverse=reverse)
        if not keep_all:
            return final + state
        if not has_init:
            first = [a[None] for a in init]
            parts = [(y, f) if reverse else (f, y) for y, f in zip(ys, first)]
            ys = tuple(jnp.concatenate(p) for p in parts)
        return tuple(ys) + state

    if reuse:
        body.refuse_assignments(what)  # eagerly they run as Python, in order, as in TF
    key = _reuse_key(reuse, body, has_init, reverse, keep_all, len(flat_elems), tuple(types))
    outs = _apply("StatelessWhile", run, extras + flat_elems + (init_flat or []), key)
    _assign_all(body.assigned, [o._value for o in outs[k:]])
    return _pack(acc_structure, list(outs[:k]), nested_acc)


def _finish(result, back_prop):
    """``back_prop=False`` as TF applies it: a stop_gradient on the outputs of a traced loop
    (TF eager ignores it)."""
    if back_prop or not any(_is_traced(t) for t in nest.flatten(result)):
        return result
    return nest.map_structure(stop_gradient, result)


def scan(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    reverse=False,
    name=None,
):
    """The accumulators of ``a = fn(a, x)`` over ``elems`` along axis 0, stacked (``tf.scan``).

    ``elems`` and ``initializer`` may be nested structures; without ``initializer`` the
    first element (the last with ``reverse``) starts the accumulator and is the first
    output.

    It is one ``lax.scan`` op (``fn`` traced once), eagerly too; eagerly a ``fn`` that
    cannot be traced runs once per element as Python over recorded ops, as in TF eager.

    Example:
        >>> import tapejax as tf
        >>> tf.scan(lambda a, x: a + x, tf.constant([1.0, 2.0, 3.0])).numpy()
        array([1., 3., 6.], dtype=float32)
    """
    _check_callable(fn)
    del parallel_iterations, swap_memory, name
    del infer_shape  # TF relaxes the TensorArray's element shape; stacking needs equal shapes
    return _finish(_scan_like(fn, elems, initializer, bool(reverse), True, "scan"), back_prop)


def foldl(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """The last accumulator of ``a = fn(a, x)`` over ``elems`` along axis 0 (``tf.foldl``).

    One ``lax.scan`` op, or eagerly a Python loop when ``fn`` cannot be traced (as ``scan``).

    Example:
        >>> import tapejax as tf
        >>> float(tf.foldl(lambda a, x: a - x, tf.constant([1.0, 2.0, 3.0])))
        -4.0
    """
    _check_callable(fn)
    del parallel_iterations, swap_memory, name
    return _finish(_scan_like(fn, elems, initializer, False, False, "foldl"), back_prop)


def foldr(
    fn,
    elems,
    initializer=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    name=None,
):
    """``foldl`` from the last element to the first (``tf.foldr``).

    Example:
        >>> import tapejax as tf
        >>> float(tf.foldr(lambda a, x: a - x, tf.constant([1.0, 2.0, 3.0])))
        0.0
    """
    _check_callable(fn)
    del parallel_iterations, swap_memory, name
    return _finish(_scan_like(fn, elems, initializer, True, False, "foldr"), back_prop)


def _signature_dtypes(fn_output_signature) -> list:
    """The flat output dtypes of a ``fn_output_signature`` (DTypes or TensorSpecs)."""
    out = []
    for spec in nest.flatten(fn_output_signature):
        if not isinstance(spec, dtypes.DType) and hasattr(spec, "dtype"):
            spec = spec.dtype
        try:
            dt = dtypes.as_dtype(spec)
        except (TypeError, ValueError):
            raise NotImplementedError(
                "tapejax.map_fn supports DTypes and TensorSpecs in fn_output_signature, got "
                f"{spec!r}"
            ) from None
        out.append(np.dtype(dt._np))
    return out


def map_fn(
    fn,
    elems,
    dtype=None,
    parallel_iterations=None,
    back_prop=True,
    swap_memory=False,
    infer_shape=True,
    name=None,
    fn_output_signature=None,
):
    """``fn`` applied to each element of ``elems`` along axis 0, results stacked (``tf.map_fn``).

    ``elems`` may be a nested structure (``fn`` gets one slice of each leaf in that
    structure); when ``fn`` returns another structure or dtype, say so with
    ``fn_output_signature`` (``dtype`` is its old name).

    It is one ``lax.scan`` op (``fn`` traced once), eagerly too; eagerly a ``fn`` that
    cannot be traced runs once per element as Python over recorded ops, as in TF eager.

    Example:
        >>> import tapejax as tf
        >>> tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0])).numpy()
        array([1., 4., 9.], dtype=float32)
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(
            f"The provided function {_fn_name(fn)} is not callable.fn must be callable."
        )
    del parallel_iterations, swap_memory, name
    nested_in = _is_sequence(elems)
    flat_elems = _flat_elems(elems)
    n = flat_elems[0]._value.shape[0]
    if fn_output_signature is None:
        out_structure, nested_out = elems, nested_in
        out_dtypes = [t._value.dtype for t in flat_elems]
    else:
        out_structure = fn_output_signature
        nested_out = _is_sequence(fn_output_signature)
        out_dtypes = _signature_dtypes(fn_output_signature)
    args = (fn, flat_elems, elems, nested_in, out_structure, out_dtypes)
    if n == 0 or any(_is_traced(t) for t in flat_elems):
        return _finish(_pack(out_structure, list(_traced_map(*args)), nested_out), back_prop)
    try:
        return _pack(out_structure, list(_traced_map(*args, reuse=True)), nested_out)
    except Exception:  # noqa: BLE001 - fn cannot be traced: the Python loop says why, if wrong
        pass
    # As TF eager: a Python loop over recorded ops.
    columns = [unstack(t) for t in flat_elems]
    rows = []
    shapes = None
    for i in range(n):
        out = fn(_pack(elems, [col[i] for col in columns], nested_in))
        assert_same_structure(out_structure, out)
        leaves = nest.flatten(out)
        row = [_convert_like(o, d) for o, d in zip(leaves, out_dtypes)]
        if shapes is None:
            shapes = [t._value.shape for t in row]
        for t, d, s in zip(row, out_dtypes, shapes):
            _check_written(t, d, s, infer_shape)
        rows.append(row)
    stacked = [stack([r[k] for r in rows]) for k in range(len(out_dtypes))]
    return _finish(_pack(out_structure, stacked, nested_out), back_prop)


def _traced_map(fn, flat_elems, elems, nested_in, out_structure, out_dtypes, reuse=False):
    """One ``lax.scan`` op over the elements; ``reuse`` as for ``_traced_scan``."""
    elem_avals = [jax.ShapeDtypeStruct(t._value.shape[1:], t._value.dtype) for t in flat_elems]
    body = _Traced(lambda ts: fn(_pack(elems, ts, nested_in)), elem_avals, "map_fn")
    assert_same_structure(out_structure, body.structure)
    body.require_outputs(len(out_dtypes), "map_fn")
    for want, got in zip(out_dtypes, body.out_avals):
        if want != got.dtype:
            raise _tensor_array_dtype_error(want, got.dtype)
    extras = body.extra_inputs()
    ne = body.n_extra

    def run(*args):
        ex, xs = args[:ne], args[ne:]

        def step(state, x):
            outs, news = body(ex, list(x), out_dtypes, state=state)
            return tuple(news), tuple(outs)

        state, ys = jax.lax.scan(step, tuple(body.state(ex)), tuple(xs))
        return tuple(ys) + state

    if reuse:
        body.refuse_assignments("map_fn")  # eagerly they run as Python, in order, as in TF
    key = _reuse_key(reuse, body, tuple(out_dtypes))
    outs = _apply("StatelessWhile", run, extras + flat_elems, key)
    _assign_all(body.assigned, [o._value for o in outs[body.n_out :]])
    return outs[: body.n_out]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to each element of ``elems`` along axis 0, vectorized (``tf.vectorized_map``).

    It is ``jax.vmap`` of ``fn`` (traced once), eagerly and traced alike, recorded as
    one op: tapes differentiate through it. Outputs that do not depend on ``elems`` are
    broadcast along the batch, as in TF. ``fallback_to_while_loop`` and ``warn`` are
    accepted (every JAX operation can be batched).

    Example:
        >>> import tapejax as tf
        >>> tf.vectorized_map(lambda x: x * 2.0, tf.constant([[1.0], [2.0]])).numpy()
        array([[2.],
               [4.]], dtype=float32)

    .. warning::
       Every leaf of ``elems`` must have the same size in dimension 0 (TF broadcasts
       leaves of size 1).
    """
    del fallback_to_while_loop, warn
    nested_in = _is_sequence(elems)
    flat = [_as_tensor(e) for e in nest.flatten(elems)]
    if not flat or any(t._value.ndim < 1 for t in flat):
        raise ValueError(
            "vectorized_map: elems must be Tensors of rank 1 or more (it maps over dimension 0)"
        )
    sizes = {t._value.shape[0] for t in flat}
    if len(sizes) != 1:
        raise ValueError(
            "vectorized_map: every Tensor in elems must have the same size in dimension 0, got "
            f"{[t._value.shape[0] for t in flat]}"
        )
    elem_avals = [jax.ShapeDtypeStruct(t._value.shape[1:], t._value.dtype) for t in flat]
    body = _Traced(lambda ts: fn(_pack(elems, ts, nested_in)), elem_avals, "vectorized_map")
    body.refuse_assignments("vectorized_map")
    extras = body.extra_inputs()
    ne = body.n_extra
    (size,) = sizes

    def run(*args):
        ex, xs = args[:ne], args[ne:]
        mapped = jax.vmap(lambda *x: tuple(body(ex, list(x))[0]), axis_size=size)(*xs)
        return tuple(mapped)

    key = _reuse_key(not any(_is_traced(t) for t in flat), body, size)
    outs = _apply("VectorizedMap", run, extras + flat, key)
    return _fill(body.structure, outs)
