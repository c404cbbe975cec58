"""Control flow: ``cond``, ``case``, ``switch_case`` and ``while_loop``, with TF's
signatures and semantics, built on the traced functions of ``_traced_body``.

* **Traced** (inside ``tapejax.function`` or a JAX transform, where inputs are tracers)
  each is one recorded op around ``lax.switch``, ``lax.scan`` or ``lax.while_loop``
  whose inputs include what the branches or the loop capture, so tapes differentiate
  through it.
* **Eagerly** ``cond``/``case``/``switch_case`` run the taken branch as Python and
  ``while_loop`` is a Python loop (as TF eager: tapes record the ops that ran).

A traced ``while_loop`` with a static ``maximum_iterations`` is a ``lax.scan`` of that
length whose body runs only while the condition holds, so reverse mode works; without
it the loop is a ``lax.while_loop``, which JAX cannot reverse-differentiate: a tape
recording it raises a ``NotImplementedError`` naming the fix.

``scan``, ``foldl``, ``foldr``, ``map_fn`` and ``vectorized_map`` are in
``functional_ops.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import nest
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..function import building
from ..tensor import Tensor
from ._traced_body import (
    _apply,
    _as_tensor,
    _assign_all,
    _aval,
    _fill,
    _finish,
    _is_traced,
    _recorded_by_a_tape,
    _skeleton,
    _split,
    _tf_dtype,
    _Traced,
    _type_spec,
)
from .array_ops import stop_gradient
from .tensor_array_ops import (
    TensorArray,
    as_if_traced,
    flatten_arrays,
    has_arrays,
    needs_shapes,
    probe_arrays,
    same_layout,
    stop_array_gradients,
    unflatten_arrays,
    with_found_shapes,
)

__all__ = [
    "case",
    "cond",
    "switch_case",
    "while_loop",
]


# -- branches: cond, case, switch_case --------------------------------------------------------


def _traced_switch(index_fn, index_inputs, branches, what: str, checks):
    """One op: ``lax.switch(index_fn(*index_inputs), branches)`` over traced branch functions.

    ``checks`` says how TF compares the branches' results: a list of groups, in TF's order,
    each a list of ``(branch, label)`` whose first member every other is checked against
    (``tf.cond`` checks ``true_fn`` against ``false_fn``; ``tf.case`` is TF's chain of
    ``tf.cond``). A branch returning TensorArrays returns their buffers
    (``flatten_arrays``), rebuilt into arrays after the op.
    """
    arrays: dict = {}  # branch -> (skeleton, layout) where it returns TensorArrays

    def flattening(k, f):
        def run(_):
            result = f()
            arrays.pop(k, None)
            if not has_arrays(result):
                return result
            leaves, layout = flatten_arrays(result, what)
            arrays[k] = (_skeleton(result), layout)
            return leaves

        return run

    bodies = [_Traced(flattening(k, f), [], what) for k, f in enumerate(branches)]

    def returned(k):  # what branch k returned, TensorArrays included
        return arrays[k][0] if k in arrays else bodies[k].structure

    for group in checks:
        # TF counts each branch's leaves first (cond_v2's
        # _make_indexed_slices_indices_types_match): a bare assert, its text the counts.
        counts = [len(nest.flatten(returned(k))) for k, _ in group]
        if len(set(counts)) != 1:
            raise AssertionError(counts)
        (k0, label0), rest = group[0], group[1:]
        first = bodies[k0]
        for k, label in rest:
            b = bodies[k]
            mismatch = functools.partial(
                _branch_mismatch, what, label0, label, returned(k0), first, returned(k), b
            )

            try:
                nest.assert_same_structure(returned(k0), returned(k), expand_composites=True)
            except (TypeError, ValueError) as e:
                raise TypeError(mismatch(str(e))) from None
            if (k0 in arrays) != (k in arrays) or (
                k in arrays
                and not (
                    _same_structure(arrays[k0][0], arrays[k][0])
                    and same_layout(arrays[k0][1], arrays[k][1])
                )
            ):
                raise ValueError(mismatch("TensorArrays (of one dtype) at different places"))
            if [x is None for x in nest.flatten(first.structure)] != [
                x is None for x in nest.flatten(b.structure)
            ]:
                raise ValueError(mismatch("None where a tensor is"))
            for x, y in zip(first.out_avals, b.out_avals):
                if x.dtype != y.dtype:
                    raise TypeError(mismatch("dtypes differ"))
                if x.shape != y.shape:
                    raise ValueError(
                        mismatch("shapes differ")
                        + "\n(tapejax: traced branches must return equal shapes, as JAX "
                        "requires; TF would return a tensor of partially unknown shape.)"
                    )
    first = bodies[0]
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
    result = _fill(first.structure, outs[:n_out])
    if 0 in arrays:
        skeleton, layout = arrays[0]
        return nest.pack_sequence_as(skeleton, unflatten_arrays(result, layout))
    return result


def _same_structure(a, b) -> bool:
    try:
        nest.assert_same_structure(a, b, expand_composites=True)
    except (TypeError, ValueError):
        return False
    return True


def _branch_mismatch(what, label0, label, returned0, first, returned, other, detail) -> str:
    # TF's text (cond_v2._check_same_outputs), where it shows each branch's output graph
    # tensors (their graph names): tapejax shows where each returned a tensor, then the
    # shapes and dtypes. The "Error details" of a structure are nest's, TF's texts.
    op = "tf.switch_case" if what == "tf.switch_case" else "tf.cond"
    return (
        f"{label0} and {label} arguments to {op} must have the same number, type, and "
        f"overall structure of return values.\n\n{label0} output: {returned0} "
        f"{[str(a) for a in first.out_avals]}\n{label} output: {returned} "
        f"{[str(a) for a in other.out_avals]}\n\nError details:\n{detail}"
    )


_COND_CHECKS = [[(1, "true_fn"), (0, "false_fn")]]  # the branches are [false_fn, true_fn]


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
    if p._v.shape != ():
        raise ValueError(f"Shape must be rank 0 but is rank {p._v.ndim} for 'cond' predicate")
    return _traced_switch(
        lambda q: q.astype(jnp.int32), [p], [false_fn, true_fn], "tf.cond", _COND_CHECKS
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
        if p._v.shape != ():
            raise ValueError(f"Shape must be rank 0 but is rank {p._v.ndim} for 'case' predicate")
    branches = list(fns) + ([default] if default is not None else [])
    n = len(preds)
    fallback = n if default is not None else n - 1

    def index(*ps):
        stacked = jnp.stack(ps)
        return jnp.where(jnp.any(stacked), jnp.argmax(stacked), fallback).astype(jnp.int32)

    if not strict:
        branches = [lambda f=f: _unpack_if_singleton(f()) for f in branches]
    # TF's case is a chain of tf.cond, the innermost (last function against the default, or
    # without one the one before it against the last) built and checked first; each cond
    # returns its true_fn's structure.
    checks, inner = [], len(branches) - 1
    for k in range(inner - 1, -1, -1):
        checks.append([(k, "true_fn"), (inner, "false_fn")])
        inner = k
    return _traced_switch(index, preds, branches, "tf.case", checks or [[(0, "true_fn")]])


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
    if index._v.shape != ():
        raise InvalidArgumentError(
            None,
            None,
            f"The second input must be a scalar, but it has shape {list(index._v.shape)}",
        )

    def select(i):
        return jnp.where((i < 0) | (i >= n), n - 1, i).astype(jnp.int32)

    checks = [[(i, f"branches[{i}]") for i in range(len(actions))]]
    return _traced_switch(select, [index], actions, "tf.switch_case", checks)


# -- while_loop ------------------------------------------------------------------------------


def _static_int(value, what: str):
    """``value`` as a Python int, or None when it is only known at run time (traced)."""
    if value is None:
        return None
    t = value if isinstance(value, Tensor) else None
    if t is None and not isinstance(value, (int, np.integer)):
        t = convert_to_tensor(value)
    if t is not None:
        if t._v.ndim != 0:
            raise ValueError(f"'{what}' must be a scalar. Received shape: {tuple(t._v.shape)}")
        if _is_traced(t):
            return None
        return int(np.asarray(t._value))
    return int(value)


def _read_variable(x):
    return convert_to_tensor(x) if getattr(x, "_is_variable", False) else x


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
    # As TF: Variables among the loop vars are read once, here; the body gets Tensors.
    loop_vars = nest.map_structure(_read_variable, loop_vars)
    single = not isinstance(loop_vars, (list, tuple))
    if not single and not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    bound = _static_int(maximum_iterations, "maximum_iterations")
    state = [loop_vars] if single else list(loop_vars)
    traced = any(_is_traced(x) for x in nest.flatten(state)) or (
        maximum_iterations is not None and bound is None
    )

    def as_list(out):
        if single and not isinstance(out, (list, tuple)):
            out = [out]
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def finish(result):
        out = result[0] if single else type(loop_vars)(result)
        if not back_prop and has_arrays(out):
            if any(_is_traced(x) for x in nest.flatten(result)) or traced:
                return stop_array_gradients(out, stop_gradient)
            return out
        return _finish(out, back_prop)

    # What TF checks each iteration's result against: inside tf.function (while_v2) the
    # loop vars as given, node types unchecked; eagerly (while_loop.py) their TypeSpecs,
    # node types checked, with the iteration counter in front when there is a bound.
    orig = [loop_vars] if single else loop_vars
    if not traced and not building():
        specs = nest.map_structure(_type_spec, list(state))
        if maximum_iterations is not None:
            specs = [_type_spec(0), nest.map_structure(_type_spec, orig)]

    if not traced:
        # As TF eager: a Python loop; tapes record the ops of each iteration.
        entering = state
        i = 0
        while bound is None or i < bound:
            c = cond(*state)
            if _is_traced(c):  # a condition on captured traced values: trace the loop
                traced = True
                break
            if not bool(c if not isinstance(c, Tensor) else c._value):
                break
            out = body(*state)
            new = as_list(out)
            if building():
                _check_body_result(out, orig)
                # A traced TF loop hands its vars to the next iteration in their own structure.
                new = nest.pack_sequence_as(state, nest.flatten(new))
            elif maximum_iterations is not None:
                # A bare result for one loop var is tapejax's leniency (TF eager wants a list).
                raw = out if isinstance(out, (list, tuple)) and not single else new
                nest.assert_same_structure(specs, [i + 1, raw])
            else:
                nest.assert_same_structure(specs, new)
            state = new
            i += 1
        if not traced:
            result = nest.map_structure(_as_loop_var, state)
            if bound is not None and building() and has_arrays(result):
                # The traced calls of this tapejax.function will size its arrays so.
                result = as_if_traced(entering, result, bound)
            return finish(result)
    return finish(
        _traced_while(cond, body, state, orig, single, bound, maximum_iterations, back_prop)
    )


def _check_body_result(out, orig) -> None:
    """TF's check of a traced loop body's result (``while_v2``): the loop vars' structure,
    list and tuple alike."""
    outputs = out if nest.is_nested(out) else [out]
    nest.assert_same_structure(outputs, orig, check_types=False, expand_composites=True)


def _as_loop_var(x):
    return x if type(x) is TensorArray else _as_tensor(x)


def _find_array_shapes(body, state, bound):
    """``state`` with each TensorArray that has no element shape yet given the shape the
    body writes into it, found by tracing the body once with probe arrays."""
    probed = probe_arrays(state)
    leaves, layout = flatten_arrays(probed, "tf.while_loop", grow=bound)
    template = _skeleton(probed)
    flat = [_as_tensor(x) for x in leaves]

    def probe(ts):
        body(*nest.pack_sequence_as(template, unflatten_arrays(ts, layout)))
        return []

    _Traced(probe, [_aval(t._value) for t in flat], "tf.while_loop")
    return with_found_shapes(state, probed, "tf.while_loop")


def _traced_while(cond, body, state, orig, single, bound, maximum_iterations, back_prop):
    # TensorArrays are carried as the Tensors they are made of (``flatten_arrays``).
    layout = None
    leaves = nest.flatten(state)
    if has_arrays(state):
        if needs_shapes(state):
            state = _find_array_shapes(body, state, bound)
        leaves, layout = flatten_arrays(state, "tf.while_loop", grow=bound)
    template = _skeleton(state)
    flat = [_as_tensor(x) for x in leaves]
    avals = [_aval(t._value) for t in flat]
    types = [a.dtype for a in avals]

    def unpack(ts):
        return nest.pack_sequence_as(
            template, ts if layout is None else unflatten_arrays(ts, layout)
        )

    def body_fn(ts):
        out = body(*unpack(ts))
        _check_body_result(out, orig)
        if single and not isinstance(out, (list, tuple)):
            out = [out]
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if layout is not None:
            out = flatten_arrays(out, "tf.while_loop", like=layout)[0]
        return out

    cond_t = _Traced(lambda ts: cond(*unpack(ts)), avals, "tf.while_loop")
    if len(cond_t.out_avals) != 1 or cond_t.out_avals[0].shape != ():
        raise ValueError(
            f"tf.while_loop: cond must return a boolean scalar, got {cond_t.structure} "
            f"{[str(a) for a in cond_t.out_avals]}"
        )
    cond_t.refuse_assignments("tf.while_loop's cond")
    body_t = _Traced(body_fn, avals, "tf.while_loop")
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
                "eagerly."
                + (
                    " A TensorArray's buffer is a loop var here: inside the loop it cannot grow "
                    "past its size (plus, for dynamic_size=True, this loop's "
                    "maximum_iterations), nor change its element shape.)"
                    if layout is not None
                    else ")"
                )
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
