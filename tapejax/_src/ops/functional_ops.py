"""Functions over the elements of tensors along axis 0: ``scan``, ``foldl``, ``foldr``,
``map_fn`` and ``vectorized_map``, with TF's signatures and semantics, built on the
traced functions of ``_traced_body``.

``scan``/``foldl``/``foldr``/``map_fn`` are one ``lax.scan`` op. Eagerly they first try
that one-op form, with the Op reused across calls whose traced function is the same (so
the loop and its gradient compile once, not once per unrolled step); a function that
cannot be traced (Python control flow on values, ``.numpy()``, Variable assignments, an
accumulator changing dtype) runs as a Python loop over recorded ops instead, as in TF
eager. ``vectorized_map`` is always ``jax.vmap`` of the function, recorded as one op.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, nest
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError, OutOfRangeError
from ..function import building
from ..tensor import Tensor
from ._traced_body import (
    _apply,
    _as_tensor,
    _assign_all,
    _aval,
    _dtype_name,
    _fill,
    _finish,
    _fn_name,
    _is_sequence,
    _is_traced,
    _reuse_key,
    _tf_dtype,
    _Traced,
    _type_spec,
)
from .join_split_ops import stack, unstack

__all__ = [
    "foldl",
    "foldr",
    "map_fn",
    "scan",
    "vectorized_map",
]


# -- scan, foldl, foldr, map_fn ---------------------------------------------------------------


def _tensor_array_dtype_error(want, got) -> InvalidArgumentError:
    return InvalidArgumentError(
        None,
        None,
        f"TensorArray dtype is {_dtype_name(want)} but Op is trying to write dtype "
        f"{_dtype_name(got)}",
    )


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
    if any(t._v.ndim < 1 for t in flat):
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    n = flat[0]._v.shape[0]
    for t in flat[1:]:
        if t._v.shape[0] != n:
            raise ValueError(f"Dimensions {n} and {t._v.shape[0]} are not compatible")
    return flat


def _pack(structure, leaves, nested: bool):
    return nest.pack_sequence_as(structure, leaves) if nested else leaves[0]


def _check_written(value: Tensor, dtype, shape, infer_shape=True) -> None:
    """TF's TensorArray checks on each value written by scan and map_fn."""
    if value._v.dtype != dtype:
        raise _tensor_array_dtype_error(dtype, value._v.dtype)
    if infer_shape and shape is not None and tuple(value._v.shape) != tuple(shape):
        raise ValueError(
            f"Incompatible shape for value ({tuple(value._v.shape)}), expected ({tuple(shape)})"
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


def _check_step(what, acc_structure, nested_acc, acc_init, has_init, out, k, n, graph) -> None:
    """TF's check of the accumulator ``fn`` returned at step ``k`` (1-based) of ``n``.

    scan checks it against its initializer (or ``elems``) itself. foldl and foldr leave it
    to their ``while_loop`` over ``[i, accumulator]`` (``graph``: while_v2's check, node
    types unchecked; eagerly the loop vars' TypeSpecs, with while_loop's own counter in
    front), so their texts show those counters as TF has them at that step.
    """
    if what == "scan":
        nest.assert_same_structure(acc_structure, out)
        return
    if what == "foldl":  # i: an int32 Tensor from 0 (1 without initializer), plus one a step
        start = 0 if has_init else 1
        i0, i_out = _int32(start), _int32(start + k)
    else:  # foldr: a Python int from n (n - 1), minus one a step (a Tensor in a graph)
        i0 = n if has_init else n - 1
        i_out = _int32(i0 - k) if graph else i0 - k
    if graph:
        nest.assert_same_structure(
            [i_out, out], [i0, acc_structure], check_types=False, expand_composites=True
        )
        return
    specs = _pack(acc_structure, [_type_spec(a) for a in acc_init], nested_acc)
    nest.assert_same_structure([_type_spec(0), [_type_spec(i0), specs]], [k, [i_out, out]])


def _int32(i: int) -> Tensor:
    return convert_to_tensor(np.int32(i))


def _scan_like(fn, elems, initializer, reverse, keep_all, what):
    """scan (``keep_all``: every accumulator, stacked) and foldl/foldr (the last one)."""
    nested_in = _is_sequence(elems)
    flat_elems = _flat_elems(elems)
    n = flat_elems[0]._v.shape[0]
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
    types = [t._v.dtype for t in acc]
    shapes = [t._v.shape for t in acc]
    history = [acc]
    first, graph = acc, building()
    for step, i in enumerate(order, 1):
        x = _pack(elems, [col[i] for col in columns], nested_in)
        out = fn(_pack(acc_structure, acc, nested_acc), x)
        _check_step(
            what, acc_structure, nested_acc, first, init_flat is not None, out, step, n, graph
        )
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
    elem_avals = [jax.ShapeDtypeStruct(t._v.shape[1:], t._v.dtype) for t in flat_elems]
    acc_avals = [_aval(t._value) for t in init_flat] if has_init else elem_avals
    types = [a.dtype for a in acc_avals]
    k = len(acc_avals)

    n = flat_elems[0]._v.shape[0]
    graph = not reuse or building()

    def step_fn(ts):
        out = fn(_pack(acc_structure, ts[:k], nested_acc), _pack(elems, ts[k:], nested_in))
        # The first step's check stands for every step's (their structures are the same);
        # a foldl/foldr text shows TF's loop counters at that step.
        _check_step(what, acc_structure, nested_acc, ts[:k], has_init, out, 1, n, graph)
        return out

    body = _Traced(step_fn, acc_avals + elem_avals, what)
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
    n = flat_elems[0]._v.shape[0]
    if fn_output_signature is None:
        out_structure, nested_out = elems, nested_in
        out_dtypes = [t._v.dtype for t in flat_elems]
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
        nest.assert_same_structure(out_structure, out)
        leaves = nest.flatten(out)
        row = [_convert_like(o, d) for o, d in zip(leaves, out_dtypes)]
        if shapes is None:
            shapes = [t._v.shape for t in row]
        for t, d, s in zip(row, out_dtypes, shapes):
            _check_written(t, d, s, infer_shape)
        rows.append(row)
    stacked = [stack([r[k] for r in rows]) for k in range(len(out_dtypes))]
    return _finish(_pack(out_structure, stacked, nested_out), back_prop)


def _traced_map(fn, flat_elems, elems, nested_in, out_structure, out_dtypes, reuse=False):
    """One ``lax.scan`` op over the elements; ``reuse`` as for ``_traced_scan``."""
    elem_avals = [jax.ShapeDtypeStruct(t._v.shape[1:], t._v.dtype) for t in flat_elems]

    def map_one(ts):
        out = fn(_pack(elems, ts, nested_in))
        nest.assert_same_structure(out_structure, out)
        return out

    body = _Traced(map_one, elem_avals, "map_fn")
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
    if not flat or any(t._v.ndim < 1 for t in flat):
        raise ValueError(
            "vectorized_map: elems must be Tensors of rank 1 or more (it maps over dimension 0)"
        )
    sizes = {t._v.shape[0] for t in flat}
    if len(sizes) != 1:
        raise ValueError(
            "vectorized_map: every Tensor in elems must have the same size in dimension 0, got "
            f"{[t._v.shape[0] for t in flat]}"
        )
    elem_avals = [jax.ShapeDtypeStruct(t._v.shape[1:], t._v.dtype) for t in flat]
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
