"""The value checks behind ``assert_non_singular`` and friends, with TF's texts.

TF's operators call ``check_ops.assert_positive`` and ``assert_non_negative`` (which
tapejax's public ``debugging`` does not have) and ``assert_less``/``assert_equal``. Eagerly
a failure raises ``InvalidArgumentError`` with TF's eager text; inside ``tapejax.function``
it is a run-time check of the program, as for tapejax's own assertions. Every check
returns None, as TF's do eagerly.
"""

from __future__ import annotations

import numpy as np

from .. import execution
from ..asserts import _concrete, _graph_assert, assert_equal, assert_less
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..ops import math_ops, reduction_ops
from ..tensor import Tensor


def _pretty(item, summarize: int) -> str:
    """TF's ``check_ops._pretty_print``: a tensor as a list of its first values."""
    if not isinstance(item, Tensor):
        return str(item)
    value = item.numpy()
    if np.isscalar(value):
        return str(value)
    flat = value.reshape(-1)
    items = [str(x) for x in flat[:summarize]]
    if len(items) < flat.size:
        items.append("...")
    return str(items)


def _compare_with_zero(sym: str, test, x, message) -> None:
    """TF's ``assert_positive``/``assert_non_negative``: ``test(0, x)`` everywhere."""
    x = convert_to_tensor(x)
    prefix = f"{message}.  " if message else ""
    condition = test(math_ops.cast(0, x.dtype), x)
    if execution.executing_eagerly() and _concrete(condition):
        if bool(np.all(condition.numpy())):
            return
        data = [
            prefix,
            f"Condition x {sym} 0 did not hold element-wise:",
            f"x (shape={x.shape} dtype={x.dtype.name}) = ",
            x,
        ]
        raise InvalidArgumentError(None, None, "\n".join(_pretty(d, 3) for d in data))
    items = [prefix, f"Condition x {sym} 0 did not hold element-wise:", "x (x:0) = ", x]
    _graph_assert(reduction_ops.reduce_all(condition), items, None)


def assert_positive(x, message=None) -> None:
    _compare_with_zero(">", math_ops.less, x, message)


def assert_non_negative(x, message=None) -> None:
    _compare_with_zero(">=", math_ops.less_equal, x, message)


def assert_no_entries_with_modulus_zero(x, message=None) -> None:
    x = convert_to_tensor(x)
    zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
    assert_less(zero, math_ops.abs(x), message=message)


def assert_zero_imag_part(x, message=None) -> None:
    x = convert_to_tensor(x)
    if x.dtype.is_floating:
        return
    zero = convert_to_tensor(0, dtype=x.dtype.real_dtype)
    assert_equal(zero, math_ops.imag(x), message=message)


def assert_compatible_matrix_dimensions(operator, x) -> None:
    """TF's check behind ``assert_proper_shapes``: ``x.shape[-2]`` is the domain dimension."""
    assert_equal(
        x.shape[-2],
        operator.domain_dimension_tensor(),
        message=(
            "Dimensions are not compatible.  shape[-2] of argument to be the same as this operator"
        ),
    )
