"""The rest of ``tf.debugging``: one-tensor assertions (``assert_positive`` ...),
``assert_near``, the static checks of dtypes and shapes (``assert_type``,
``assert_shapes`` ...), ``check_numerics``, and the switches (``enable_check_numerics``,
log device placement, traceback filtering).

Values are checked as ``asserts`` checks them: at once eagerly, at run time inside a
``tapejax.function`` (TF's graph texts). Shapes and dtypes are always known in tapejax,
so their checks raise at the call, as TF's static checks do. This module must never
change a value: ``check_numerics`` and ``assert_all_finite`` return their input.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes, execution
from .asserts import (
    Assert,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    binary_assert,
    checked_input,
    is_concrete,
    message_prefix,
)
from .conversion import convert_to_tensor
from .errors import InvalidArgumentError
from .ops._helpers import TF_ALLOWED, require, to_tensor
from .sparse_tensor import SparseTensor
from .tensor import Tensor

__all__ = [
    "assert_negative",
    "assert_positive",
    "assert_non_negative",
    "assert_non_positive",
    "assert_near",
    "assert_type",
    "assert_integer",
    "assert_scalar",
    "assert_shapes",
    "assert_same_float_dtype",
    "assert_proper_iterable",
    "is_numeric_tensor",
    "check_numerics",
    "assert_all_finite",
    "enable_check_numerics",
    "disable_check_numerics",
    "set_log_device_placement",
    "get_log_device_placement",
    "enable_traceback_filtering",
    "disable_traceback_filtering",
    "is_traceback_filtering_enabled",
]

TF_ALLOWED.update({"CheckNumerics": "bfloat16, half, float, double"})


def _shape_and_dtype(x) -> str:
    """TF's eager name of a tensor in these texts (TF's graph texts use ``x:0`` instead)."""
    return f"shape={x.shape} dtype={x.dtype.name}"


# -- one-tensor assertions ------------------------------------------------------------------


def _sign_assert(x, message, summarize, sym: str, zero_first: bool, strict: bool) -> None:
    """TF's ``assert_negative`` family: ``assert_less(_equal)`` against 0 with its own text."""
    from .ops.math_ops import less, less_equal

    x = to_tensor(x)
    name = _shape_and_dtype(x) if execution.executing_eagerly() else "x:0"
    head = f"Condition x {sym} 0 did not hold element-wise:"
    if sym == "<=":  # TF's text lacks a separator here (a missing comma in check_ops.py)
        data = [message_prefix(message), f"{head}x ({name}) = ", x]
    else:
        data = [message_prefix(message), head, f"x ({name}) = ", x]
    zero = convert_to_tensor(0, dtype=x.dtype)
    a, b = (zero, x) if zero_first else (x, zero)
    binary_assert(sym, less if strict else less_equal, a, b, None, summarize, data)


def assert_negative(x, message=None, summarize=None, name=None):
    """Asserts ``x < 0`` elementwise (``tf.debugging.assert_negative``).

    Args:
        x: a numeric tensor.
        message: a prefix of the error text.
        summarize: how many entries of ``x`` the error text prints (3 if None).
        name: ignored (TF's op name).

    Raises:
        InvalidArgumentError: an entry is not negative (TF's text; inside a
            ``tapejax.function`` when the call returns).
    """
    _sign_assert(x, message, summarize, "<", zero_first=False, strict=True)


def assert_positive(x, message=None, summarize=None, name=None):
    """Asserts ``x > 0`` elementwise (``tf.debugging.assert_positive``); as
    ``assert_negative`` otherwise."""
    _sign_assert(x, message, summarize, ">", zero_first=True, strict=True)


def assert_non_negative(x, message=None, summarize=None, name=None):
    """Asserts ``x >= 0`` elementwise (``tf.debugging.assert_non_negative``); as
    ``assert_negative`` otherwise."""
    _sign_assert(x, message, summarize, ">=", zero_first=True, strict=False)


def assert_non_positive(x, message=None, summarize=None, name=None):
    """Asserts ``x <= 0`` elementwise (``tf.debugging.assert_non_positive``); as
    ``assert_negative`` otherwise."""
    _sign_assert(x, message, summarize, "<=", zero_first=False, strict=False)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Asserts ``|x - y| < atol + rtol * |y|`` elementwise (``tf.debugging.assert_near``).

    Args:
        x: a float or complex tensor.
        y: a tensor converted to ``x``'s dtype, broadcastable with it.
        rtol: relative tolerance, ``10 * eps`` of ``x``'s (real) dtype if None.
        atol: absolute tolerance, ``10 * eps`` if None.
        message: a prefix of the error text.
        summarize: how many entries of each tensor the error text prints.
        name: ignored (TF's op name).

    Raises:
        InvalidArgumentError: some entries are not close (TF's ``Assert`` text).
        ValueError: ``x`` is not inexact (NumPy's ``finfo`` text, as in TF).
    """
    from .ops.math_ops import abs as abs_
    from .ops.math_ops import add, less, multiply, subtract
    from .ops.reduction_ops import reduce_all

    prefix = message_prefix(message)
    x = to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    real = x.dtype.real_dtype
    eps = np.finfo(real.as_numpy_dtype).eps
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=real)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=real)
    eager = execution.executing_eagerly()
    x_name = _shape_and_dtype(x) if eager else "x:0"
    y_name = _shape_and_dtype(y) if eager else "y:0"
    data = [
        prefix,
        f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
        f"x ({x_name}) = ",
        x,
        f"y ({y_name}) = ",
        y,
    ]
    tol = add(atol, multiply(rtol, abs_(y)))
    condition = reduce_all(less(abs_(subtract(x, y)), tol))
    Assert(condition, data, summarize=summarize)


# -- static checks: dtypes and shapes ---------------------------------------------------------


def assert_type(tensor, tf_type, message=None, name=None):
    """Asserts that ``tensor`` (a tensor, Variable or SparseTensor) has dtype ``tf_type``
    (``tf.debugging.assert_type``).

    Raises:
        TypeError: another dtype (TF's eager text).
    """
    tf_type = dtypes.as_dtype(tf_type)
    tensor = checked_input(tensor)
    if tensor.dtype != tf_type:
        raise TypeError(
            f"{message_prefix(message)}tensor must be of type {tf_type!r}; got {tensor.dtype!r}"
        )


def assert_integer(x, message=None, name=None):
    """Asserts that ``x`` has an integer dtype (``tf.debugging.assert_integer``).

    Raises:
        TypeError: not an integer dtype (TF's eager text).
    """
    x = to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(
            f'{message_prefix(message)}Expected "x" to be integer type.  Found: tensor of '
            f"dtype {x.dtype}"
        )


def assert_scalar(tensor, message=None, name=None):
    """Asserts that ``tensor`` is a scalar (``tf.debugging.assert_scalar``).

    Raises:
        ValueError: it is not (TF's eager text).
    """
    tensor = to_tensor(tensor)
    if tensor.shape.rank != 0:
        raise ValueError(
            f"{message_prefix(message)}Expected scalar shape, saw shape: {tensor.shape}."
        )


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one float dtype of ``tensors`` (and ``dtype``), float32 if neither is given
    (``tf.debugging.assert_same_float_dtype``).

    Args:
        tensors: tensors, Variables or SparseTensors (None entries are skipped).
        dtype: the expected dtype.

    Returns:
        The validated DType.

    Raises:
        ValueError: the dtypes differ, or the common one is not a float type (TF's texts).
    """
    if tensors:
        expected = dtypes.as_dtype(dtype) if dtype else None
        first = None
        for item in tensors:
            if item is None:
                continue
            item_type = dtypes.as_dtype(item.dtype)
            if expected is None:
                expected = item_type
                first = item.name if getattr(item, "_is_variable", False) else str(item)
            elif item_type != expected:
                shown = item.name if getattr(item, "_is_variable", False) else str(item)
                raise ValueError(
                    f"{shown}, type={item_type}, must be of the same type ({expected})"
                    f"{f' as {first}' if first else ''}."
                )
        dtype = expected
    if not dtype:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def assert_proper_iterable(values):
    """Asserts that ``values`` is an iterable that is not a tensor, array or string
    (``tf.debugging.assert_proper_iterable``).

    Raises:
        TypeError: ``values`` is a Tensor, SparseTensor, NumPy array, str or bytes, or is
            not iterable (TF's texts).
    """
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is a Tensor of a numeric dtype (``tf.debugging.is_numeric_tensor``):
    False for Variables, arrays and Python values, as in TF."""
    return isinstance(tensor, Tensor) and tensor.dtype.is_numeric


def _static_size(symbol) -> bool:
    """TF's ``_has_known_value``: a size symbol that ``int()`` takes is a size."""
    if symbol is None:
        return False
    try:
        int(symbol)
    except (ValueError, TypeError):
        return False
    return True


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Asserts shapes and the relations of named sizes between tensors
    (``tf.debugging.assert_shapes``).

    Args:
        shapes: ``(tensor, shape)`` pairs (or a dict); a shape is an iterable of sizes
            (ints), names (any hashable: equal names must be equal sizes), ``None`` or
            ``'.'`` (any size), with a leading ``...`` or ``'*'`` for any outer dimensions.
            An empty shape means a scalar or one element.
        data: ignored: shapes are always known in tapejax, so TF's run-time text (which
            ``data`` replaces) never appears.
        summarize: ignored, as ``data``.
        message: a prefix of the error text.
        name: ignored (TF's op name).

    Raises:
        ValueError: a constraint fails (TF's text; tensors are named by shape and dtype,
            as TF names them eagerly).
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = message_prefix(message)
    constraints = [(checked_input(x), s) for x, s in shapes if s is not None]
    specs = []
    for x, symbolic in constraints:
        if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
            raise ValueError(
                f"{prefix}Tensor {_shape_and_dtype(x)}.  Specified shape must be an iterable.  "
                "An iterable has the attribute `__iter__` or `__getitem__`.  Received "
                f"specified shape: {symbolic}"
            )
        symbolic = tuple(symbolic)
        outer_any = False
        for i, symbol in enumerate(symbolic):
            if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                if i != 0:
                    raise ValueError(
                        f"{prefix}Tensor {_shape_and_dtype(x)} specified shape index {i}.  "
                        "Symbol `...` or `*` for a variable number of unspecified dimensions "
                        "is only allowed as the first entry"
                    )
                outer_any = True
        sizes = symbolic[1:] if outer_any else symbolic
        actual = tuple(x.shape.as_list()) or (1,)
        specs.append((x, outer_any, actual, sizes or (1,)))
    for x, outer_any, _, sizes in specs:
        rank = len(sizes)
        if outer_any:
            if rank > 1:
                assert_rank_at_least(x, rank, message=message)
        elif rank in (0, 1):
            assert_rank_in(x, [0, 1], message=message)
        else:
            assert_rank(x, rank, message=message)
    known: dict = {}
    for x, outer_any, actual, sizes in specs:
        for i, symbol in enumerate(sizes):
            if symbol is None or (isinstance(symbol, str) and symbol == "."):
                continue
            dim = i - len(sizes) if outer_any else i
            if symbol in known or _static_size(symbol):
                if _static_size(symbol):
                    wanted, why = int(symbol), "Specified explicitly"
                else:
                    wanted, by, at = known[symbol]
                    why = f"Specified by tensor {_shape_and_dtype(by)} dimension {at}"
                if int(actual[dim]) != int(wanted):
                    raise ValueError(
                        f"{prefix}{why}.  Tensor {_shape_and_dtype(x)} dimension {dim} must "
                        f"have size {wanted}.  Received size {actual[dim]}, shape {x.shape}"
                    )
            else:
                known[symbol] = (actual[dim], x, dim)


# -- numerics -------------------------------------------------------------------------------


def _numerics_text(message: str, nan: bool, inf: bool) -> str:
    what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
    return f"{message} : Tensor had {what} values"


def check_numerics(tensor, message, name=None):
    """Returns ``tensor`` after checking that it has no NaN or Inf
    (``tf.debugging.check_numerics``).

    Eagerly the check is at once; inside a ``tapejax.function`` it runs with the program
    and its failure is raised when the call returns. The gradient passes through
    unchanged: unlike TF's, it is not itself checked for NaN and Inf.

    Args:
        tensor: a bfloat16, half, float or double tensor.
        message: the start of the error text.
        name: ignored (TF's op name).

    Returns:
        ``tensor`` (an identity: gradients pass through).

    Raises:
        InvalidArgumentError: NaN or Inf found (TF's text), or not a float dtype.
    """
    from .ops.array_ops import identity

    x = to_tensor(tensor)
    require(x, "f", "CheckNumerics")
    suffix = " [Op:CheckNumerics]" if execution.executing_eagerly() else ""  # TF's graph text
    if is_concrete(x):
        v = np.asarray(x._value)
        nan, inf = bool(np.isnan(v).any()), bool(np.isinf(v).any())
        if nan or inf:
            raise InvalidArgumentError(None, None, _numerics_text(message, nan, inf) + suffix)
    else:
        v = x._value
        nan, inf = jnp.isnan(v).any(), jnp.isinf(v).any()
        execution.runtime_check(
            ~(nan | inf),
            (nan, inf),
            lambda n, i: _numerics_text(message, bool(n), bool(i)) + suffix,
        )
    return identity(x)


def assert_all_finite(x, message, name=None):
    """Returns ``x`` after checking that it has no NaN or Inf
    (``tf.debugging.assert_all_finite``); as ``check_numerics``."""
    return check_numerics(x, message)


_numerics_saved: list = []


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Makes every op check its float outputs for NaN and Inf
    (``tf.debugging.enable_check_numerics``), through JAX's ``jax_debug_nans`` and
    ``jax_debug_infs``.

    A NaN or Inf is then JAX's ``FloatingPointError`` naming the primitive that produced
    it, not TF's ``InvalidArgumentError`` ("!!! Detected Infinity or NaN ..."). The
    arguments (sizes of TF's report) are accepted and unused.
    """
    if not _numerics_saved:
        _numerics_saved.append((jax.config.jax_debug_nans, jax.config.jax_debug_infs))
    jax.config.update("jax_debug_nans", True)
    jax.config.update("jax_debug_infs", True)


def disable_check_numerics():
    """Undoes ``enable_check_numerics``: JAX's NaN and Inf checks as they were before it."""
    if _numerics_saved:
        nans, infs = _numerics_saved.pop()
        jax.config.update("jax_debug_nans", nans)
        jax.config.update("jax_debug_infs", infs)


# -- switches -------------------------------------------------------------------------------

_log_device_placement = [False]


def set_log_device_placement(enabled):
    """Records whether ops should log their device (``tf.debugging.set_log_device_placement``).

    The switch is kept (``get_log_device_placement`` returns it), but nothing is logged:
    JAX places a computation on its inputs' device (or ``tapejax.device``'s), and
    ``Tensor.device`` says where a value is.
    """
    _log_device_placement[0] = bool(enabled)


def get_log_device_placement() -> bool:
    """What ``set_log_device_placement`` last set (``tf.debugging.get_log_device_placement``)."""
    return _log_device_placement[0]


def enable_traceback_filtering():
    """Hides library frames in tracebacks (``tf.debugging.enable_traceback_filtering``):
    JAX's ``jax_traceback_filtering`` set to its default, ``"auto"``."""
    jax.config.update("jax_traceback_filtering", "auto")


def disable_traceback_filtering():
    """Shows every frame in tracebacks (``tf.debugging.disable_traceback_filtering``):
    JAX's ``jax_traceback_filtering`` set to ``"off"``."""
    jax.config.update("jax_traceback_filtering", "off")


def is_traceback_filtering_enabled() -> bool:
    """Whether JAX filters tracebacks (``tf.debugging.is_traceback_filtering_enabled``)."""
    return jax.config.jax_traceback_filtering != "off"
