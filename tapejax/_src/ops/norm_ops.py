"""``tf.linalg`` norms with TF's checks, values and gradients: ``norm`` (``tf.norm``),
``normalize`` and ``global_norm``.

Each is TF's Python composite, op for op, as one pure JAX function behind one ``Op``.
Derivatives are JAX's except that the Euclidean norms take TF's ``Sqrt`` gradient at 0 (a
registered reverse rule): NaN where a gradient flows in, never where none does.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..registry import register_reverse_rule
from . import tf_rules
from ._helpers import dtype_mismatch, normalize_axis, require, to_tensor
from ._linalg_helpers import _wide
from .math_ops import NUMERIC, cast, divide
from .reduction_ops import tf_max

# -- norms ------------------------------------------------------------------------------------


def _tf_abs(x):
    # TF's Abs gradient at 0 is sign(0) = 0.
    return jnp.abs(x) if jnp.iscomplexobj(x) else x * jnp.sign(x)


def _norm_fn(x, *, ord, axis, keepdims, matrix, sqrt=jnp.sqrt):  # noqa: A002 - TF's name
    # TF's composite (linalg_ops.norm), op for op.
    if ord in ("fro", "euclidean", 2.0) and not (matrix and ord == 2.0):
        r = sqrt(jnp.sum(x * jnp.conj(x), axis=axis, keepdims=True, dtype=x.dtype))
    elif ord == 2.0:  # the matrix 2-norm: the largest singular value
        moved = jnp.moveaxis(x, axis, (-2, -1))
        s = _wide(lambda m: jnp.linalg.svd(m, compute_uv=False))(moved)
        r = tf_max(_tf_abs(s), axis=-1, keepdims=True)[..., None]
        r = jnp.moveaxis(r, (-2, -1), axis)
    else:
        r = _tf_abs(x)
        if ord == 1.0:
            r = jnp.sum(r, axis=None if axis is None else axis[0], keepdims=True, dtype=r.dtype)
            if matrix:
                r = tf_max(r, axis=axis[1], keepdims=True)
        elif ord == np.inf:
            if matrix:
                r = jnp.sum(r, axis=axis[1], keepdims=True, dtype=r.dtype)
            r = tf_max(r, axis=None if axis is None else axis[0], keepdims=True)
        else:
            r = jnp.power(jnp.sum(jnp.power(r, ord), axis=axis, keepdims=True), 1.0 / ord)
    if not keepdims:
        r = jnp.squeeze(r, axis)
    return r


_norm_op = Op("Norm", _norm_fn)
# TF's SqrtGrad: a zero upstream gives a zero gradient even where the norm is 0.
register_reverse_rule(
    "Norm", lambda static: functools.partial(_norm_fn, sqrt=tf_rules.sqrt_reverse, **dict(static))
)

_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector or matrix norm (``tf.norm``/``tf.linalg.norm``), TF's composite op for op.

    ``ord``: 'euclidean' (default), 'fro', 1, 2, ``np.inf``, or (vectors) any p > 0. ``axis``:
    None (the whole tensor as one vector), an int, or a pair of ints (matrix norms). The
    Euclidean norm of a complex tensor is complex, as TF; its gradient at 0 is TF's NaN
    (and 0 where no gradient flows in).
    """
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        if (not np.isreal(ord) or ord <= 0) and ord not in ["euclidean", 1, 2, np.inf]:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    x = to_tensor(tensor)
    if x._v.dtype == np.bool_:  # TF's first op on it is a numeric-only Python check
        raise TypeError("Expected numeric or variant tensor, got dtype tf.bool.")
    if is_matrix and ord == 2:
        require(x, "fc", "Svd")
    elif isinstance(ord, str) or ord == 2:
        require(x, "fc", "Sqrt")
    elif ord in (1, np.inf):
        require(x, NUMERIC, "ComplexAbs" if x._v.dtype.kind == "c" else "Abs")
    else:
        require(x, "fc", "Pow")
    if axis is not None:
        axis = normalize_axis(list(axis), x._v.ndim, "Sum")
    static = (
        ("axis", axis),
        ("keepdims", bool(keepdims)),
        ("matrix", is_matrix),
        ("ord", ord if isinstance(ord, str) else float(ord)),
    )
    return apply(_norm_op, (x,), static)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept as dims (``tf.linalg.normalize``)."""
    x = to_tensor(tensor)
    n = cast(norm(x, ord, axis, keepdims=True), x.dtype)
    return divide(x, n), n


def _global_norm_fn(*ts, sqrt=jnp.sqrt):
    half_squared = jnp.sum(jnp.stack([jnp.sum(jnp.square(t)) / 2 for t in ts]))
    return sqrt(half_squared * 2.0)


_global_norm_op = Op("GlobalNorm", _global_norm_fn)
register_reverse_rule(
    "GlobalNorm", lambda static: functools.partial(_global_norm_fn, sqrt=tf_rules.sqrt_reverse)
)


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``, skipping ``None`` entries
    (``tf.linalg.global_norm``)."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    ts = [to_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm needs at least one tensor that is not None.")
    for t in ts:
        require(t, "f", "L2Loss")
    for i, t in enumerate(ts[1:], 1):
        if t._v.dtype != ts[0]._v.dtype:
            raise dtype_mismatch("Pack", i, ts[0]._v.dtype, t._v.dtype)
    return apply(_global_norm_op, tuple(ts))
