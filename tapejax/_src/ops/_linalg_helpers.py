"""Checks and JAX helpers shared by the ``tf.linalg`` op modules (``linalg_ops``,
``decomposition_ops``, ``solver_ops``, ``norm_ops``).

Private to those modules: TF's error format for linalg kernels, operand conversion, the
float32 widening of half and bfloat16 inputs that LAPACK lacks, and small matrix helpers.
Defines no ops and registers nothing.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import dtype_mismatch, require, to_tensor

# TF's op-def type list of its LAPACK-backed kernels (verbatim, checked by
# tests/test_ops.py::test_tf_allowed_table_is_tfs).
_LAPACK = "double, float, half, complex64, complex128"
_NARROW = (np.dtype(np.float16), np.dtype(dtypes.bfloat16._np))


def _dims(shape) -> str:
    return ",".join(map(str, shape))


def _iae(message: str, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def _matrix_input(
    x, op_name: str, square: bool = True, kinds: str = "fc", attrs: str = ""
) -> Tensor:
    """``x`` as a Tensor that TF's kernel ``op_name`` accepts: dtype, rank >= 2, square
    (``attrs``: the node's other attributes, for TF's NotFoundError; see ``no_kernel``)."""
    x = to_tensor(x)
    require(x, kinds, op_name, attrs)
    shape = x._v.shape
    if len(shape) < 2:
        raise _iae(f"Input tensor 0 must have rank >= 2, got {len(shape)}", op_name)
    if square and shape[-1] != shape[-2]:
        raise _iae("Input matrix must be square.", op_name)
    return x


def _second_operand(y, x: Tensor, op_name: str) -> Tensor:
    """A kernel's second input: converted with ``x``'s dtype as a hint; dtypes must match."""
    if type(y) is Tensor or getattr(y, "_is_variable", False):
        y = to_tensor(y)
    else:
        try:
            y = convert_to_tensor(y, dtype=x.dtype)
        except (TypeError, ValueError):
            y = convert_to_tensor(y)
    if y._v.dtype != x._v.dtype:
        raise dtype_mismatch(op_name, 1, x._v.dtype, y._v.dtype)
    return y


def _wide(fn):
    """``fn`` computed in float32 for half and bfloat16 inputs (LAPACK has no such kernels;
    TF's Eigen kernels do), its outputs cast back."""

    @functools.wraps(fn)
    def wrapped(*args, **static):
        dt = args[0].dtype
        if dt not in _NARROW:
            return fn(*args, **static)
        args = [a.astype(jnp.float32) if getattr(a, "dtype", None) == dt else a for a in args]
        return jax.tree.map(lambda o: o.astype(dt), fn(*args, **static))

    return wrapped


def _H(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _diag_of(x):
    return jnp.diagonal(x, axis1=-2, axis2=-1)
