"""What every array-op module shares: reading arguments that are known now (``_host``,
``_ints``, ``_concrete``), TF's texts for shapes (``_dims``) and checks on them, and the
``identity`` and ``stop_gradient`` ops the others build on.

This module imports no other op module, so the array-op modules (``array_ops``,
``join_split_ops``, ``selection_ops``, ``pad_ops``, ``sort_ops``, ``clip_ops``) can all
import from it in any order.
"""

from __future__ import annotations

import jax
import numpy as np

from ..dispatch import Op, apply, apply_unrecorded
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._helpers import tf_type_name, to_tensor


def _concrete(x) -> bool:
    return not isinstance(getattr(x, "_value", x), jax.core.Tracer)


def _host(value):
    """``value`` as a NumPy array when it is known now, or None when it is traced.

    Inside ``tapejax.function`` even a converted constant is a tracer, so values that set
    a result's shape (masks, lengths) or that are checked eagerly (indices) are read
    before conversion.
    """
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = to_tensor(value)
        return np.asarray(t._value) if _concrete(t) else None
    return np.asarray(value)


def _ints(
    value,
    attr: str | None = None,
    op_name: str = "",
    rank_text: str | None = None,
    scalar_ok: bool = True,
) -> tuple:
    """A shape-like argument (list, tuple, Tensor, TensorShape) as a tuple of Python ints.

    With ``attr`` (TF's index-type attribute, "Tshape" ...), float values, and Tensors of
    integer dtypes other than int32 and int64, are TF's InvalidArgumentError instead of
    being truncated or read. With ``rank_text``, a value of rank 2 or more (or a scalar,
    unless ``scalar_ok``) is TF's InvalidArgumentError with that text, its ``{}`` replaced
    by the value's shape.
    """
    if isinstance(value, TensorShape):
        return tuple(value.as_list())
    if isinstance(value, Tensor) or getattr(value, "_is_variable", False):
        t = to_tensor(value)
        dt = np.dtype(t._v.dtype)
        # A NumPy array or list becomes int32/int64 in TF's conversion, a Tensor keeps its
        # dtype, which the op's index attribute must accept.
        if attr is not None and dt.kind in "iu" and dt not in (np.int32, np.int64):
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr '{attr}' of {tf_type_name(dt)} is not in the list of allowed "
                f"values: int32, int64 [Op:{op_name}]",
            )
        if not _concrete(t):
            raise NotImplementedError(
                f"tapejax: {op_name or 'this op'} needs the value of an argument given as a "
                "traced tensor (inside tapejax.function or a JAX transform); XLA programs "
                "have static shapes, so shapes, axes and other structural arguments must be "
                "Python values there (ints, lists, tuples, x.shape)."
            )
        arr = np.asarray(t._value)  # a shape has no gradient: no tape warning
    else:
        arr = np.asarray(value)
    if attr is not None and arr.dtype.kind not in "iu" and arr.size:
        name = "float" if arr.dtype.kind == "f" else tf_type_name(arr.dtype)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr '{attr}' of {name} is not in the list of allowed values: "
            f"int32, int64 [Op:{op_name}]",
        )
    if rank_text is not None and (arr.ndim > 1 or (arr.ndim == 0 and not scalar_ok)):
        text = rank_text.format(_dims(arr.shape))
        raise InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")
    return tuple(int(v) for v in arr.reshape(-1))


def _check_dims(dims: tuple, op_name: str) -> None:
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, None, f"Dimension {d} must be >= 0 [Op:{op_name}]")


def _dims(shape) -> str:
    return ",".join(map(str, shape))


# -- identity and stop_gradient -------------------------------------------------------------

_identity_op = Op("Identity", lambda x: x)
_stop_gradient_op = Op("StopGradient", jax.lax.stop_gradient)


def identity(input, name=None):  # noqa: A002
    """A new tensor with the same value (``tf.identity``): a distinct source for tapes."""
    return apply(_identity_op, (to_tensor(input),))


def stop_gradient(input, name=None):  # noqa: A002
    """Identity that no tape or accumulator records (``tf.stop_gradient``): gradient ``None``."""
    return apply_unrecorded(_stop_gradient_op, (to_tensor(input),))
