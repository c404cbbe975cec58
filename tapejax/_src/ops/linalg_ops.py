"""``matmul`` with TF's checks: ranks, dtypes, inner and batch dimensions, transpose flags."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import (
    accepted_dtypes,
    dtype_mismatch,
    require,
    to_tensor,
)
from .math_ops import NUMERIC

# -- matmul ---------------------------------------------------------------------------------


def _matmul_fn(a, b, *, ta, tb, ca, cb, out=None):
    if out is not None:
        a, b = a.astype(out), b.astype(out)
    if ta:
        a = jnp.swapaxes(a, -1, -2)
    if ca:
        a = jnp.conj(a)
    if tb:
        b = jnp.swapaxes(b, -1, -2)
    if cb:
        b = jnp.conj(b)
    return jnp.matmul(a, b)


# TF's kernels by rank and output type: rank-2 MatMul, batched BatchMatMulV2, and
# BatchMatMulV3 when ``output_type`` differs from the inputs'. Their names are what errors
# and RegisterGradient use.
_matmul_ops = {name: Op(name, _matmul_fn) for name in ("MatMul", "BatchMatMulV2", "BatchMatMulV3")}
_MATMUL_STATIC: dict = {}


def _dims(shape) -> str:
    return ",".join(map(str, shape))


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product of the inner two dimensions, batched over the rest (``tf.linalg.matmul``).

    ``output_type`` (e.g. int32 for int8 inputs) computes in that dtype, as TF's
    BatchMatMulV3. ``a_is_sparse``/``b_is_sparse`` are hints TF may ignore; so does tapejax.

    Raises:
      ValueError: both ``transpose_a`` and ``adjoint_a`` (or ``_b``) are set.
      InvalidArgumentError: bad ranks, different dtypes, or incompatible dimensions.
    """
    if not (transpose_a or transpose_b or adjoint_a or adjoint_b or output_type is not None):
        # The per-op budget: a plain 2-D product of one accepted dtype skips the general
        # path (a Variable operand is read as usual).
        if type(b) is not Tensor and getattr(b, "_is_variable", False):
            b = b._dense_read()
        if type(a) is not Tensor and getattr(a, "_is_variable", False):
            a = a._dense_read()
        if type(a) is Tensor and type(b) is Tensor:
            av, bv = a._value, b._value
            sa, sb = av.shape, bv.shape
            if (
                av.dtype == bv.dtype
                and av.dtype in _MATMUL_ACCEPTED
                and len(sa) == 2
                and len(sb) == 2
                and sa[1] == sb[0]
            ):
                return apply(_matmul_ops["MatMul"], (a, b), _PLAIN_MATMUL)
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        a_bad = transpose_a and adjoint_a
        side, t, adj = ("a", transpose_a, adjoint_a) if a_bad else ("b", transpose_b, adjoint_b)
        raise ValueError(
            f"Only one of `transpose_{side}` and `adjoint_{side}` can be True. "
            f"Received `transpose_{side}`={t}, `adjoint_{side}`={adj}."
        )
    a = to_tensor(a)
    if type(b) is Tensor or getattr(b, "_is_variable", False):
        b = to_tensor(b)
    else:
        try:  # ``a``'s dtype is only a hint for ``b``, as in TF
            b = convert_to_tensor(b, dtype=a.dtype)
        except (TypeError, ValueError):
            b = convert_to_tensor(b)
    sa, sb = a._value.shape, b._value.shape
    batched = len(sa) > 2 or len(sb) > 2
    out = None
    if output_type is not None:
        out = dtypes.as_dtype(output_type)
        if out == a.dtype and out == b.dtype:
            out = None
    op_name = "BatchMatMulV3" if out is not None else ("BatchMatMulV2" if batched else "MatMul")
    if out is None and a._value.dtype != b._value.dtype:
        raise dtype_mismatch(op_name, 1, a._value.dtype, b._value.dtype)
    require(a, NUMERIC, op_name)
    if out is not None:  # otherwise b has a's dtype
        require(b, NUMERIC, op_name)
    if batched or out is not None:
        for i, s_ in enumerate((sa, sb)):
            if len(s_) < 2:
                raise InvalidArgumentError(
                    None, None, f"In[{i}] ndims must be >= 2: {len(s_)} [Op:{op_name}]"
                )
    elif len(sa) != len(sb):
        raise InvalidArgumentError(
            None,
            None,
            f"In[0] and In[1] has different ndims: [{_dims(sa)}] vs. [{_dims(sb)}] [Op:{op_name}]",
        )
    elif len(sa) != 2:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] ndims must be == 2: {len(sa)} [Op:{op_name}]"
        )
    ta = bool(transpose_a or adjoint_a)
    tb = bool(transpose_b or adjoint_b)
    if (sa[-2] if ta else sa[-1]) != (sb[-1] if tb else sb[-2]):
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: [{_dims(sa)}], In[1]: [{_dims(sb)}] [Op:{op_name}]",
        )
    if batched:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None,
                None,
                f"In[0] and In[1] must have compatible batch dimensions: [{_dims(sa)}] vs. "
                f"[{_dims(sb)}] [Op:{op_name}]",
            ) from None
    out_np = None if out is None else canonical_np_dtype(out._np)
    key = (bool(adjoint_a), bool(adjoint_b), ta, tb, out_np)
    static = _MATMUL_STATIC.get(key)
    if static is None:
        static = (("ca", key[0]), ("cb", key[1]), ("ta", ta), ("tb", tb))
        if out_np is not None:
            static += (("out", out_np),)
        _MATMUL_STATIC[key] = static
    return apply(_matmul_ops[op_name], (a, b), static)


_PLAIN_MATMUL = (("ca", False), ("cb", False), ("ta", False), ("tb", False))
_MATMUL_ACCEPTED = accepted_dtypes(NUMERIC, "MatMul")
