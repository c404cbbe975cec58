"""TF 2's assertions (``tf.Assert``, ``tf.debugging.assert_equal``, ``assert_less`` ...,
``assert_rank`` ...) with TF's error types and texts.

Eagerly an assertion checks at once and raises TF's eager text. Inside a
``tapejax.function`` it takes TF's graph path, on every call alike: ranks are checked
while tracing (a ``ValueError``), and a condition on values becomes a run-time check of
the program (``execution.runtime_check``) whose failure is TF's
``InvalidArgumentError: assertion failed: [...]``, raised when the call returns.

This module must never change a value: every assertion returns None.
"""

from __future__ import annotations

import jax
import numpy as np

from . import dtypes, execution
from .conversion import convert_to_tensor
from .errors import InvalidArgumentError
from .ops._helpers import to_tensor
from .tensor import Tensor

__all__ = [
    "Assert",
    "assert_equal",
    "assert_none_equal",
    "assert_less",
    "assert_less_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
]


def is_concrete(t: Tensor) -> bool:
    return not isinstance(t._value, jax.core.Tracer)


def _data_items(data) -> list:
    """``data``'s items as TF's ``convert_n_to_tensor`` sees them: strings stay text."""
    return [d if isinstance(d, (str, bytes)) else to_tensor(d) for d in data]


# -- TF's texts -----------------------------------------------------------------------------


def _element(v) -> str:
    """One element as TF's kernels print it: bools as 0/1, floats with the fewest of
    6 (15 for float64) or 9 (17) significant digits that give the value back."""
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, np.floating):
        digits = 15 if v.dtype == np.float64 else 6
        text = f"{v:.{digits}g}"
        if type(v)(float(text)) != v:
            text = f"{v:.{17 if digits == 15 else 9}g}"
        return text
    return str(v)


def _summarize_value(value: np.ndarray, summarize: int) -> str:
    """TF's ``Tensor::SummarizeValue``: the first ``summarize`` elements (all when
    negative) in nested brackets, "..." where some are left out."""
    flat = value.reshape(-1)
    limit = flat.size if summarize < 0 else min(summarize, flat.size)
    shape = value.shape
    out: list = []
    index = 0

    def one_dim(dim):
        nonlocal index
        if index >= limit:
            return
        if dim == len(shape) - 1:
            for i in range(shape[dim]):
                if index >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(_element(flat[index]))
                index += 1
            return
        for _ in range(shape[dim]):
            opened = index < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index < limit or opened:
                out.append("]")

    if not shape:
        out += [_element(v) for v in flat[:limit]]
    else:
        one_dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


def _graph_text(items: list, values: tuple, summarize: int) -> str:
    """TF's Assert kernel text: each data item summarized, in brackets."""
    it = iter(values)
    parts = []
    for item in items:
        if isinstance(item, Tensor):
            parts.append(_summarize_value(np.asarray(next(it)), summarize))
        else:
            parts.append(item.decode() if isinstance(item, bytes) else item)
    return "assertion failed: " + " ".join(f"[{p}]" for p in parts)


def _summarize_eager(item, summarize) -> str:
    """TF's eager ``Assert`` text of one data item."""
    if not isinstance(item, Tensor):  # a string tensor in TF: its bytes' repr
        return str(item if isinstance(item, bytes) else item.encode())
    value = item.numpy()
    if np.ndim(value):
        flat = value.reshape(-1)
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return ", ".join(items)
    return str(value) if summarize != 0 else ""


def _pretty_print(item, summarize) -> str:
    """TF's ``check_ops._pretty_print``: a data item of an eager assertion's own text."""
    if not isinstance(item, Tensor):
        return str(item)
    value = item.numpy()
    if np.isscalar(value):
        return str(value)
    flat = value.reshape(-1)
    items = [str(x) for x in flat[: int(summarize)]]
    if len(items) < flat.size:
        items.append("...")
    return str(items)


def message_prefix(message) -> str:
    """TF's ``_message_prefix``: ``"msg.  "``, or nothing."""
    return f"{message}.  " if message else ""


# -- the assertions ---------------------------------------------------------------------------


def _graph_assert(condition, items: list, summarize) -> None:
    """TF's graph ``Assert``: fails now if everything is known, else at run time."""
    c = to_tensor(condition)
    if isinstance(condition, Tensor) and c.dtype != dtypes.bool_:
        # TF's graph op checks its input types when it is built.
        raise TypeError(
            f"Input 'condition' of 'Assert' Op has type {c.dtype.name} that does not match "
            "expected type of bool."
        )
    if c._v.shape != ():
        raise InvalidArgumentError(
            None,
            None,
            f"The second input must be a scalar, but it has shape [{','.join(map(str, c._v.shape))}]",
        )
    summarize = 3 if summarize is None else summarize
    tensors = [t for t in items if isinstance(t, Tensor)]
    if is_concrete(c) and all(is_concrete(t) for t in tensors):
        if not bool(c._value):
            raise InvalidArgumentError(
                None, None, _graph_text(items, tuple(t._value for t in tensors), summarize)
            )
        return
    execution.runtime_check(
        c._value,
        tuple(t._value for t in tensors),
        lambda *values: _graph_text(items, values, summarize),
    )


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raises ``InvalidArgumentError`` listing ``data`` when ``condition`` is false
    (``tf.Assert``).

    Args:
        condition: a scalar boolean (tensor or Python value).
        data: tensors and strings to print when the condition fails.
        summarize: how many entries of each tensor to print (all if None eagerly; 3 in a
            ``tapejax.function``, as TF's graph op).
        name: ignored (TF's op name).

    Returns:
        None.

    Example:
        >>> import tapejax as tf
        >>> tf.Assert(tf.constant(False), ["x is", tf.constant([1, 2])])
        Traceback (most recent call last):
        ...
        tapejax._src.errors.InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'x is'
        1, 2
    """
    items = _data_items(data)
    eager = execution.executing_eagerly()
    if eager and (not isinstance(condition, Tensor) or is_concrete(condition)):
        if not condition:
            text = "\n".join(_summarize_eager(d, summarize) for d in items)
            raise InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: {text}"
            )
        return None
    _graph_assert(condition, items, summarize)
    return None


def _eager_failure_data(sym, x, y, test, summarize) -> list:
    """TF's ``_make_assert_msg_data``: the first differing values, then the first values."""
    data = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        xv, yv = x.numpy(), y.numpy()
        if x._v.shape == y._v.shape and x._v.shape:
            mask = ~test.numpy()
            indices = np.argwhere(mask)
            n = min(summarize, indices.shape[0])
            data += [
                f"Indices of first {n} different values:",
                indices[:n],
                "Corresponding x values:",
                xv[mask].reshape(-1)[:n],
                "Corresponding y values:",
                yv[mask].reshape(-1)[:n],
            ]
        x_flat, y_flat = xv.reshape(-1), yv.reshape(-1)
        x_n, y_n = min(x_flat.size, summarize), min(y_flat.size, summarize)
        data += [
            f"First {x_n} elements of x:",
            x_flat[:x_n],
            f"First {y_n} elements of y:",
            y_flat[:y_n],
        ]
    return data


def binary_assert(sym, op, x, y, message, summarize, data=None) -> None:
    """TF's ``_binary_assert``: ``op(x, y)`` must hold everywhere. ``data`` replaces the
    default text (the one-tensor assertions pass their own)."""
    from .ops.reduction_ops import reduce_all

    x, y = to_tensor(x), to_tensor(y)
    test = op(x, y)  # TF's dtype and shape errors come from the comparison op
    if execution.executing_eagerly() and is_concrete(test):
        if bool(np.all(test.numpy())):
            return
        summarize = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
        if data is None:
            data = _eager_failure_data(sym, x, y, test, summarize)
        if message is not None:
            data = [message, *data]
        raise InvalidArgumentError(None, None, "\n".join(_pretty_print(d, summarize) for d in data))
    if data is None:
        data = [f"Condition x {sym} y did not hold element-wise:", "x (x:0) = ", x]
        data += ["y (y:0) = ", y]
    if message is not None:
        data = [message, *data]
    _graph_assert(reduce_all(test), _data_items(data), summarize)


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Asserts ``x == y`` elementwise, with broadcasting (``tf.debugging.assert_equal``).

    Args:
        x: a tensor.
        y: a tensor of ``x``'s dtype, broadcastable with it.
        message: a prefix of the error text.
        summarize: how many entries of each tensor the error text prints (3 if None,
            all if negative).
        name: ignored (TF's op name).

    Returns:
        None.

    Raises:
        InvalidArgumentError: the condition fails (TF's text), or the comparison itself
            does (different dtypes, shapes that do not broadcast).

    Example:
        >>> import tapejax as tf
        >>> tf.assert_equal(tf.constant([1, 2]), 2)
        Traceback (most recent call last):
        ...
        tapejax._src.errors.InvalidArgumentError: Condition x == y did not hold.
        First 2 elements of x:
        [1 2]
        First 1 elements of y:
        [2]
    """
    from .ops.math_ops import equal

    if x is y:  # TF's shortcut: the same tensor is equal to itself, NaN or not
        return None
    binary_assert("==", equal, x, y, message, summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    """Asserts ``x < y`` elementwise, with broadcasting (``tf.debugging.assert_less``);
    as ``assert_equal`` otherwise."""
    from .ops.math_ops import less

    binary_assert("<", less, x, y, message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """Asserts ``x > y`` elementwise, with broadcasting (``tf.debugging.assert_greater``);
    as ``assert_equal`` otherwise."""
    from .ops.math_ops import greater

    binary_assert(">", greater, x, y, message, summarize)


def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """Asserts ``x != y`` elementwise, with broadcasting
    (``tf.debugging.assert_none_equal``; note TF's argument order); as ``assert_equal``
    otherwise."""
    from .ops.math_ops import not_equal

    binary_assert("!=", not_equal, x, y, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """Asserts ``x <= y`` elementwise, with broadcasting
    (``tf.debugging.assert_less_equal``); as ``assert_equal`` otherwise."""
    from .ops.math_ops import less_equal

    binary_assert("<=", less_equal, x, y, message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """Asserts ``x >= y`` elementwise, with broadcasting
    (``tf.debugging.assert_greater_equal``); as ``assert_equal`` otherwise."""
    from .ops.math_ops import greater_equal

    binary_assert(">=", greater_equal, x, y, message, summarize)


def checked_input(x):
    """An assertion's input: a SparseTensor as itself (TF checks its shape), else a Tensor."""
    from .sparse_tensor import SparseTensor

    return x if isinstance(x, SparseTensor) else to_tensor(x)


def _rank_assert(x, ranks, message, what: str, holds) -> None:
    """TF's ``_assert_ranks_condition``: static ranks checked at once (ValueError with TF's
    text), a traced one at run time. ``holds(actual, wanted_ranks)`` is the condition on
    Python ints or on Tensors alike."""
    from .ops.array_ops import rank as rank_of
    from .ops.array_ops import shape

    x = checked_input(x)
    ranks = [to_tensor(r) if isinstance(r, Tensor) else convert_to_tensor(r) for r in ranks]
    for r in ranks:
        if r.dtype.name != "int32":
            raise TypeError(f"tensor must be of type tf.int32; got {r.dtype!r}")
    prefix = message_prefix(message)
    if all(is_concrete(r) for r in ranks):
        if any(r._v.shape != () for r in ranks):
            raise ValueError("Rank must be a scalar.")
        wanted = [int(r._value) for r in ranks]
        if not holds(x.shape.rank, wanted):
            shown = wanted[0] if len(wanted) == 1 and what != "in" else tuple(wanted)
            raise ValueError(
                f"{prefix}Tensor  must have rank{' ' + what if what else ''} {shown}.  "
                f"Received rank {x.shape.rank}, shape {x.shape}"
            )
        return None
    if any(r._v.shape != () for r in ranks):
        raise ValueError("Rank must be a scalar.")
    items = [prefix, f"Tensor  must have rank{' ' + what if what else ''}", *ranks]
    items += ["Received shape: ", shape(x)]
    _graph_assert(holds(rank_of(x), ranks), items, None)
    return None


def assert_rank(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank ``rank`` (``tf.debugging.assert_rank``).

    Ranks are always known in tapejax, so a Python or concrete ``rank`` is checked at
    once, inside ``tapejax.function`` too (TF's static check); a traced ``rank`` is a
    run-time check.

    Args:
        x: a tensor or SparseTensor.
        rank: a scalar int32 (Python int or tensor).
        message: a prefix of the error text.
        name: ignored (TF's op name).

    Raises:
        ValueError: the rank differs (TF's text), or ``rank`` is not a scalar.
        TypeError: ``rank`` is not int32.
    """
    from .ops.math_ops import equal

    return _rank_assert(
        x, [rank], message, "", lambda a, w: a == w[0] if isinstance(a, int) else equal(a, w[0])
    )


def assert_rank_at_least(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank ``rank`` or more (``tf.debugging.assert_rank_at_least``);
    as ``assert_rank`` otherwise."""
    from .ops.math_ops import greater_equal

    return _rank_assert(
        x,
        [rank],
        message,
        "at least",
        lambda a, w: a >= w[0] if isinstance(a, int) else greater_equal(a, w[0]),
    )


def assert_rank_in(x, ranks, message=None, name=None):
    """Asserts that the rank of ``x`` is one of ``ranks`` (``tf.debugging.assert_rank_in``);
    as ``assert_rank`` otherwise.

    Args:
        x: a tensor or SparseTensor.
        ranks: an iterable of scalar int32 ranks.
        message: a prefix of the error text.
        name: ignored (TF's op name).
    """
    from .ops.math_ops import equal, logical_or

    def holds(actual, wanted):
        if isinstance(actual, int):
            return actual in wanted
        result = convert_to_tensor(False)
        for w in wanted:
            result = logical_or(result, equal(w, actual))
        return result

    return _rank_assert(x, list(ranks), message, "in", holds)


# The names other modules of tapejax import (``linear_operator``, ``tridiagonal_eigen_ops``).
_concrete = is_concrete
_binary_assert = binary_assert
