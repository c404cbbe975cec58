"""``tf.linalg`` products, diagonals and transposes with TF's checks, values and gradients.

``matmul``, ``matvec``, ``einsum``, ``tensordot``, ``cross``, ``trace``, ``diag``,
``diag_part``, ``set_diag``, ``band_part``, ``matrix_transpose`` and ``adjoint``. Each op is
one pure JAX function behind an ``Op`` named after TF's kernel, so error texts and
``RegisterGradient`` use TF's names; derivatives are JAX's. Decompositions are in
``decomposition_ops``, inverses, solvers and determinants in ``solver_ops``, norms in
``norm_ops``.

Other modules (``operator_table``, ``tapejax``'s ``__init__``) import ``matmul`` from here, so
it stays here; its plain 2-D fast path is on the per-op overhead budget and must never grow
conversion work there.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..sparse_tensor import static_value
from ..tensor import Tensor, is_tensor
from ._helpers import (
    TF_ALLOWED,
    accepted_dtypes,
    dtype_mismatch,
    lacks_cpu_kernel,
    no_kernel,
    node_attrs,
    require,
    to_tensor,
)
from ._linalg_helpers import _diag_of, _dims, _iae, _second_operand
from .array_ops import expand_dims, squeeze, transpose
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
            av, bv = a._v, b._v
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
    sa, sb = a._v.shape, b._v.shape
    batched = len(sa) > 2 or len(sb) > 2
    out = None
    if output_type is not None:
        out = dtypes.as_dtype(output_type)
        if out == a.dtype and out == b.dtype:
            out = None
    op_name = "BatchMatMulV3" if out is not None else ("BatchMatMulV2" if batched else "MatMul")
    if out is None and a._v.dtype != b._v.dtype:
        raise dtype_mismatch(op_name, 1, a._v.dtype, b._v.dtype)
    if lacks_cpu_kernel(op_name, a._v.dtype):  # TF's text prints the node's attributes
        ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
        if op_name == "MatMul":
            attrs = node_attrs(grad_a=False, grad_b=False, transpose_a=ta, transpose_b=tb)
        else:
            attrs = node_attrs(adj_x=ta, adj_y=tb, grad_x=False, grad_y=False)
        raise no_kernel(op_name, a._v.dtype, attrs)
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


# TF's op-def type list (verbatim, checked by tests/test_ops.py::test_tf_allowed_table_is_tfs).
TF_ALLOWED.update(
    {
        "Cross": (
            "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"
        ),
    }
)


def _dims_of(x: Tensor) -> str:
    return _dims(x._v.shape)


# -- diagonals, bands, traces, transposes -----------------------------------------------------


def _trace_fn(x):
    return jnp.sum(_diag_of(x), axis=-1, dtype=x.dtype)


_trace_op = Op("Trace", _trace_fn)


def _at_least_matrix(x: Tensor, op_name: str) -> None:
    if x._v.ndim < 2:
        raise _iae(f"input must be at least 2-dim, received shape: [{_dims_of(x)}]", op_name)


def trace(x, name=None):
    """Sum of each matrix's main diagonal (``tf.linalg.trace``; non-square matrices too)."""
    x = to_tensor(x)
    require(x, NUMERIC, "Sum")
    _at_least_matrix(x, "MatrixDiagPartV3")
    return apply(_trace_op, (x,))


_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _check_align(align, op_name: str, signature: str) -> None:
    if align not in _ALIGNS:
        allowed = ", ".join(f'"{a}"' for a in _ALIGNS)
        raise _iae(
            f"Value for attr 'align' of \"{align}\" is not in the list of allowed values: "
            f"{allowed}\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}; "
            f"signature={signature}; attr=T:type; "
            f'attr=align:string,default="RIGHT_LEFT",allowed=[{allowed}]>',
            op_name,
        )


def _host(t: Tensor, what: str, op_name: str) -> np.ndarray:
    """``t``'s value on the host. A traced one (inside ``tapejax.function`` or a JAX
    transform) has none to read: ``what`` sets the result's layout, and XLA programs have
    static shapes."""
    value = static_value(t)
    if value is None:
        raise NotImplementedError(
            f"tapejax: {op_name}'s {what} given as a traced tensor (inside tapejax.function or "
            "a JAX transform) has no value to read; XLA programs have static shapes, so pass "
            "a Python value there."
        )
    return value


_INT32 = np.dtype(np.int32)
_INT32_RANGE = range(-(2**31), 2**31)
# Python scalars whose conversion to these dtypes has no check that can fail.
_EXACT_SCALARS = {
    np.dtype(np.float32): (int, float),
    np.dtype(np.float64): (int, float),
    np.dtype(np.complex64): (int, float, complex),
    np.dtype(np.complex128): (int, float, complex),
    np.dtype(np.bool_): (bool,),
}


def _host_arg(v, dtype: np.dtype, what: str, op_name: str, index: int) -> np.ndarray:
    """An argument that the program is built from (``k``, ``num_rows``/``num_cols``, the
    padding) as a host array of ``dtype``: a Tensor's value (TF's dtype error for another
    dtype), Python or NumPy data converted as TF converts it (TF's errors).

    Python ints (and exact scalars) are converted on the host: TF's conversion of anything
    else makes a device array, and reading it back would cost these ops ten times their
    dispatch."""
    if is_tensor(v):
        t = to_tensor(v)
        if t._v.dtype != dtype:
            raise dtype_mismatch(op_name, index, dtype, t._v.dtype)
        return _host(t, what, op_name)
    if dtype == _INT32:
        items = v if type(v) in (tuple, list) else (v,)
        if all(type(i) is int and i in _INT32_RANGE for i in items):
            return np.asarray(v, _INT32)
    elif type(v) in _EXACT_SCALARS.get(dtype, ()):
        return np.asarray(v, dtype)
    # Kept concrete while a program is traced: it is read on the host.
    with jax.ensure_compile_time_eval():
        t = convert_to_tensor(v, dtype=dtypes.as_dtype(dtype))
    return _host(t, what, op_name)


def _diag_range(k, op_name: str) -> tuple[int, int]:
    """TF's ``k`` input (int32, one or two elements) as ``(lower, upper)``, unchecked order."""
    ks = _host_arg(k, _INT32, "k", op_name, 1)
    if ks.ndim > 1:
        raise _iae(
            f"diag_index must be a scalar or vector, received shape: [{_dims(ks.shape)}]", op_name
        )
    if ks.size == 0:
        raise _iae("Expected diag_index to have at least 1 element", op_name)
    if ks.size > 2:
        raise _iae(
            f"diag_index must have only one or two elements, received {ks.size} elements.",
            op_name,
        )
    ks = ks.reshape(-1).tolist()
    return int(ks[0]), int(ks[-1])


def _padding(value, x, op_name: str, index: int):
    """The matrices as a Tensor and ``padding_value`` as a host array of their dtype (a
    non-Tensor ``x`` takes a Tensor padding's dtype, as TF's eager conversion does)."""
    if is_tensor(value):
        value = to_tensor(value)
        x = to_tensor(x) if is_tensor(x) else convert_to_tensor(x, dtype=value.dtype)
        if value._v.dtype != x._v.dtype:
            raise dtype_mismatch(op_name, index, x._v.dtype, value._v.dtype)
        return x, _host(value, "padding_value", op_name)
    x = to_tensor(x)
    if x._v.dtype == np.bool_:
        # TF's matrix_diag does ``bool(padding_value)`` itself: 0 is not a bool constant.
        value = bool(np.asarray(value).reshape(-1)[0])
    return x, _host_arg(value, x._v.dtype, "padding_value", op_name, index)


def _scalar_padding(value: np.ndarray, ok: bool, message: str, op_name: str) -> bytes:
    """The padding value as its bytes in the matrices' dtype: the op's static argument.

    Not a Python number: ``0.0 == 0j`` (and hashes alike), so a program compiled for a
    complex padding would be reused for a float one, and a NaN never equals itself, so
    its program would never be reused. ``_padding_value`` reads the bytes back."""
    if not ok:
        raise _iae(message, op_name)
    return value.reshape(-1)[:1].tobytes()


def _padding_value(padding: bytes, dtype):
    return np.frombuffer(padding, dtype)[0]


def _diag_len(rows: int, cols: int, k: int) -> int:
    return max(0, min(rows + min(k, 0), cols - max(k, 0)))


@functools.lru_cache(maxsize=256)
def _band_positions(rows: int, cols: int, lower: int, upper: int, width: int, align: str):
    """Where each entry of TF's compact band layout ``[upper - lower + 1, width]`` lies in a
    ``rows x cols`` matrix: row and column indices and the entry indices of the real
    (unpadded) entries, as flat NumPy arrays. Row ``i`` holds diagonal ``upper - i``;
    ``align`` says on which side a shorter super- (first part) and subdiagonal (second part)
    is padded."""
    left_super, left_sub = (part == "LEFT" for part in align.split("_"))
    r, c, i, j = [], [], [], []
    for row, d in enumerate(range(upper, lower - 1, -1)):
        length = _diag_len(rows, cols, d)
        left = (d >= 0 and left_super) or (d <= 0 and left_sub)
        offset = 0 if left else width - length
        t = np.arange(length)
        r.append(t - min(d, 0))
        c.append(t + max(d, 0))
        i.append(np.full(length, row))
        j.append(t + offset)
    return tuple(np.concatenate(a).astype(np.int32) for a in (r, c, i, j))


def _diag_positions(length: int, k: int):
    i = np.arange(length)
    return i - min(k, 0), i + max(k, 0)


def _diag_fn(d, *, k, rows, cols, padding):
    r, c = _diag_positions(d.shape[-1], k)
    out = jnp.full(d.shape[:-1] + (rows, cols), _padding_value(padding, d.dtype), d.dtype)
    return out.at[..., r, c].set(d, mode="drop")


def _band_diag_fn(d, *, lower, upper, rows, cols, padding, align):
    r, c, i, j = _band_positions(rows, cols, lower, upper, d.shape[-1], align)
    out = jnp.full(d.shape[:-2] + (rows, cols), _padding_value(padding, d.dtype), d.dtype)
    return out.at[..., r, c].set(d[..., i, j])


_diag_op = Op("MatrixDiagV3", _diag_fn)
_band_diag_op = Op("MatrixDiagV3", _band_diag_fn)


def _scalar(v):
    """A scalar argument (Python number or 0-d Tensor) as a Python number."""
    return np.asarray(v).item()


def _count(v, what: str, op_name: str) -> int:
    """``num_rows`` / ``num_cols``: an int32 scalar."""
    n = _host_arg(v, _INT32, what, op_name, 2 if what == "num_rows" else 3)
    if n.ndim != 0:
        raise _iae(f"{what} must be a scalar", op_name)
    return int(n)


_DIAG_SIGNATURE = "diagonal:T, k:int32, num_rows:int32, num_cols:int32, padding_value:T -> output:T"


def diag(
    diagonal,
    name="diag",
    k=0,
    num_rows=-1,
    num_cols=-1,
    padding_value=0,
    align="RIGHT_LEFT",
):
    """Matrices with ``diagonal`` on their ``k``-th diagonal(s), ``padding_value`` elsewhere
    (``tf.linalg.diag``).

    A single ``k`` (or ``k=(j, j)``) puts ``diagonal[..., :]`` on diagonal ``k`` of each
    ``[..., num_rows, num_cols]`` matrix. A band ``k=(lo, hi)`` reads TF's compact layout
    ``diagonal[..., hi - lo + 1, max_diag_len]``, row ``i`` holding diagonal ``hi - i``,
    shorter diagonals padded on the side ``align`` names (``"RIGHT_LEFT"``: superdiagonals
    right-aligned, subdiagonals left-aligned). ``num_rows``/``num_cols`` left at -1 are the
    smallest that fit (a square matrix when both are).

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.diag([[1, 2], [3, 4]], k=(-1, 0)).numpy()
        array([[1, 0],
               [3, 2]], dtype=int32)
    """
    op = "MatrixDiagV3"
    d, pad = _padding(padding_value, diagonal, op, 4)
    lower, upper = _diag_range(k, op)
    rows, cols = _count(num_rows, "num_rows", op), _count(num_cols, "num_cols", op)
    _check_align(align, op, _DIAG_SIGNATURE)
    padding = _scalar_padding(pad, pad.ndim == 0, "padding_value must be a scalar", op)
    shape = d._v.shape
    if d._v.ndim < 1:
        raise _iae(f"diagonal must be at least 1-dim, received shape: [{_dims(shape)}]", op)
    if lower > upper:
        raise _iae(
            f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}", op
        )
    band = lower != upper
    if band and (d._v.ndim < 2 or shape[-2] != upper - lower + 1):
        raise _iae(
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range.",
            op,
        )
    width = shape[-1]
    min_rows, min_cols = width - min(upper, 0), width + max(lower, 0)
    if rows != -1 and rows < min_rows:
        raise _iae("The number of rows is too small.", op)
    if cols != -1 and cols < min_cols:
        raise _iae("The number of columns is too small.", op)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise _iae(
            "The number of rows or columns is not consistent with the specified d_lower, "
            "d_upper, and diagonal.",
            op,
        )
    if not band:
        static = (("cols", cols), ("k", lower), ("padding", padding), ("rows", rows))
        return apply(_diag_op, (d,), static)
    static = (
        ("align", align),
        ("cols", cols),
        ("lower", lower),
        ("padding", padding),
        ("rows", rows),
        ("upper", upper),
    )
    return apply(_band_diag_op, (d,), static)


def _diag_part_fn(x, *, k):
    return jnp.diagonal(x, offset=k, axis1=-2, axis2=-1)


def _band_diag_part_fn(x, *, lower, upper, padding, align):
    rows, cols = x.shape[-2:]
    width = max(_diag_len(rows, cols, d) for d in range(lower, upper + 1))
    r, c, i, j = _band_positions(rows, cols, lower, upper, width, align)
    fill = _padding_value(padding, x.dtype)
    out = jnp.full(x.shape[:-2] + (upper - lower + 1, width), fill, x.dtype)
    return out.at[..., i, j].set(x[..., r, c])


_diag_part_op = Op("MatrixDiagPartV3", _diag_part_fn)
_band_diag_part_op = Op("MatrixDiagPartV3", _band_diag_part_fn)


def _check_bounds(lower: int, upper: int, rows: int, cols: int, op_name: str, dot: str):
    for what, k, sep in (("lower", lower, dot), ("upper", upper, "")):
        if not (-rows < k < cols or k == 0):
            raise _iae(
                f"{what}_diag_index is out of bound: {k}{sep} It must be between {-rows} "
                f"and {cols}",
                op_name,
            )
    if lower > upper:
        raise _iae(
            f"lower_diag_index must not be larger than upper_diag_index: {lower} > {upper}",
            op_name,
        )


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The ``k``-th diagonal(s) of each matrix (``tf.linalg.diag_part``).

    A single ``k`` (or ``k=(j, j)``) gives ``[..., diag_len]``. A band ``k=(lo, hi)`` gives
    TF's compact layout ``[..., hi - lo + 1, max_diag_len]``: row ``i`` is diagonal
    ``hi - i``, shorter diagonals padded with ``padding_value`` on the side ``align`` names
    (``"RIGHT_LEFT"``: superdiagonals right-aligned, subdiagonals left-aligned).

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.diag_part([[1, 2], [3, 4]], k=(-1, 0), padding_value=9).numpy()
        array([[1, 4],
               [3, 9]], dtype=int32)
    """
    op = "MatrixDiagPartV3"
    x, pad = _padding(padding_value, input, op, 2)
    lower, upper = _diag_range(k, op)
    _check_align(align, op, "input:T, k:int32, padding_value:T -> diagonal:T")
    padding = _scalar_padding(pad, pad.size == 1, "Padding must be scalar.", op)
    _at_least_matrix(x, op)
    m, n = x._v.shape[-2:]
    _check_bounds(lower, upper, m, n, op, ".")
    if lower == upper:
        return apply(_diag_part_op, (x,), (("k", lower),))
    static = (("align", align), ("lower", lower), ("padding", padding), ("upper", upper))
    return apply(_band_diag_part_op, (x,), static)


def _set_diag_fn(x, d, *, k):
    r, c = _diag_positions(d.shape[-1], k)
    return x.at[..., r, c].set(d)


def _band_set_diag_fn(x, d, *, lower, upper, align):
    r, c, i, j = _band_positions(*x.shape[-2:], lower, upper, d.shape[-1], align)
    return x.at[..., r, c].set(d[..., i, j])


_set_diag_op = Op("MatrixSetDiagV3", _set_diag_fn)
_band_set_diag_op = Op("MatrixSetDiagV3", _band_set_diag_fn)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with its ``k``-th diagonal(s) replaced by ``diagonal``
    (``tf.linalg.set_diag``).

    A single ``k`` (or ``k=(j, j)``) takes ``diagonal`` of shape ``[..., diag_len]``; a band
    ``k=(lo, hi)`` takes TF's compact layout ``[..., hi - lo + 1, max_diag_len]`` (as
    ``diag_part`` returns it for the same ``k`` and ``align``); its padding is ignored.

    Example:
        >>> import tapejax as tf
        >>> tf.linalg.set_diag(tf.zeros([2, 2], tf.int32), [[1, 2], [3, 0]], k=(-1, 0)).numpy()
        array([[1, 0],
               [3, 2]], dtype=int32)
    """
    op = "MatrixSetDiagV3"
    if is_tensor(diagonal) and not is_tensor(input):
        # TF's eager conversion: the first Tensor among the inputs sets their dtype.
        d = to_tensor(diagonal)
        x = convert_to_tensor(input, dtype=d.dtype)
    else:
        x = to_tensor(input)
        d = _second_operand(diagonal, x, op)
    lower, upper = _diag_range(k, op)
    _check_align(align, op, "input:T, diagonal:T, k:int32 -> output:T")
    _at_least_matrix(x, op)
    if d._v.ndim < 1:
        raise _iae(f"diagonal must be at least 1-dim, received shape: [{_dims_of(d)}]", op)
    m, n = x._v.shape[-2:]
    _check_bounds(lower, upper, m, n, op, "")
    num_diags = upper - lower + 1
    rank = x._v.ndim
    if num_diags > 1 and (d._v.ndim < rank or d._v.shape[rank - 2] != num_diags):
        raise _iae(
            "The number of diagonals provided in `diag` is not consistent with "
            "`lower_diag_index` and `upper_diag_index`",
            op,
        )
    length = max(0, min(m + min(upper, 0), n - max(lower, 0)))
    expected = x._v.shape[:-2] + ((num_diags,) if num_diags > 1 else ()) + (length,)
    if d._v.shape != expected:
        raise _iae(
            "Either first dimensions of diagonal don't match input.shape[:-2], or "
            "diagonal.shape[:-1] is not equal to the longests diagonal in range "
            f"[lower_diag_index:upper_diag_index].\nInput shape: [{_dims_of(x)}]\n"
            f"Diagonal shape: [{_dims_of(d)}]\nExpected diagonal shape: [{_dims(expected)}]",
            op,
        )
    if num_diags == 1:
        return apply(_set_diag_op, (x, d), (("k", lower),))
    return apply(_band_set_diag_op, (x, d), (("align", align), ("lower", lower), ("upper", upper)))


def _band_part_fn(x, *, lower, upper):
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, jnp.zeros_like(x))


_band_part_op = Op("MatrixBandPart", _band_part_fn)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """Zeros everything outside a band of each matrix (``tf.linalg.band_part``); a negative
    ``num_lower``/``num_upper`` keeps the whole lower/upper triangle."""
    x = to_tensor(input)
    _at_least_matrix(x, "MatrixBandPart")
    lower, upper = int(_scalar(num_lower)), int(_scalar(num_upper))
    m, n = x._v.shape[-2:]
    if lower > m:
        raise _iae(
            f"num_lower must be negative or less or equal to number of rows ({m}) got: {lower}",
            "MatrixBandPart",
        )
    if upper > n:
        raise _iae(
            f"num_upper must be negative or less or equal to number of columns ({n}) got: {upper}",
            "MatrixBandPart",
        )
    return apply(_band_part_op, (x,), (("lower", lower), ("upper", upper)))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the last two dimensions (``tf.linalg.matrix_transpose``), conjugating if
    ``conjugate``."""
    x = to_tensor(a)
    n = x._v.ndim
    if n < 2:
        raise ValueError(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
            f"{np.asarray(x._value)} with shape: {tuple(x._v.shape)}"
        )
    return transpose(x, perm=list(range(n - 2)) + [n - 1, n - 2], conjugate=conjugate)


def adjoint(matrix, name=None):
    """Conjugate transpose of the last two dimensions (``tf.linalg.adjoint``)."""
    return matrix_transpose(matrix, conjugate=True)


# -- products ---------------------------------------------------------------------------------


def matvec(
    a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None
):
    """Matrix-vector product ``a @ b`` over batches (``tf.linalg.matvec``): TF's
    ``squeeze(matmul(a, expand_dims(b, -1)), -1)``."""
    out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return squeeze(out, axis=-1)


_cross_op = Op("Cross", jnp.cross)


def cross(a, b, name=None):
    """Cross product of 3-element vectors over batches (``tf.linalg.cross``)."""
    a = to_tensor(a)
    b = _second_operand(b, a, "Cross")
    require(a, "fiu", "Cross")
    if a._v.shape != b._v.shape:
        raise _iae(
            f"Both inputs must be of same shape: [{_dims_of(a)}] vs. [{_dims_of(b)}]", "Cross"
        )
    if a._v.ndim < 1 or a._v.shape[-1] != 3:
        raise FailedPreconditionError(
            None, None, "Cross-products are only defined for 3-element vectors. [Op:Cross]"
        )
    return apply(_cross_op, (a, b))


def _einsum_fn(*xs, equation):
    return jnp.einsum(equation, *xs, precision=jax.lax.Precision.HIGHEST)


_einsum_op = Op("Einsum", _einsum_fn)


def _check_einsum_dims(equation: str, xs) -> None:
    """TF's message for a label whose dimension differs between inputs."""
    lhs = equation.split("->")[0].replace(" ", "").split(",")
    seen: dict = {}
    for labels, x in zip(lhs, xs):
        if "." in labels or len(labels) != x._v.ndim:
            return  # ellipses and bad ranks: left to JAX's own message
        for axis, (label, d) in enumerate(zip(labels, x._v.shape)):
            if seen.setdefault(label, d) != d:
                raise _iae(
                    f"Expected dimension {seen[label]} at axis {axis} of the input shaped "
                    f"[{_dims_of(x)}] but got dimension {d}",
                    "Einsum",
                )


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (``tf.einsum``/``tf.linalg.einsum``); inputs of one dtype, as TF."""
    unknown = [k for k in kwargs if k not in ("name", "optimize")]
    if unknown:
        raise TypeError(
            f"Invalid keyword arguments for einsum: {', '.join(unknown)}. Valid arguments: "
            "name, optimize, greedy."
        )
    if not isinstance(equation, str):
        raise TypeError(f"equation must be a string, got {type(equation).__name__}")
    xs = [to_tensor(x) for x in inputs]
    expected = equation.split("->")[0].count(",") + 1
    if len(xs) != expected:
        raise ValueError(f'Got {len(xs)} inputs for equation "{equation}", expecting {expected}')
    for i, x in enumerate(xs[1:], 1):
        if x._v.dtype != xs[0]._v.dtype:
            raise dtype_mismatch("Einsum", i, xs[0]._v.dtype, x._v.dtype)
    for x in xs:
        require(x, NUMERIC, "Einsum")
    _check_einsum_dims(equation, xs)
    return apply(_einsum_op, tuple(xs), (("equation", equation.replace(" ", "")),))


def _tensordot_axes(axes, a: Tensor):
    if isinstance(axes, Tensor) or getattr(axes, "_is_variable", False):
        axes = np.asarray(axes).tolist()
    if isinstance(axes, (int, np.integer)):
        axes = int(axes)
        ndim = a._v.ndim
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > ndim:
            raise ValueError(
                "`axes` must not be larger than the number of dimensions of tensor "
                f"{np.asarray(a._value)}.  "
                f"Received {axes}, vs tensor dimensions {ndim}."
            )
        return list(range(ndim - axes, ndim)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = list(a_axes), list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(
                f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}."
            )
        return a_axes, b_axes
    raise TypeError(f"`axes` must be an integer or a pair of lists, got {axes!r}")


def _tensordot_fn(a, b, *, axes):
    return jnp.tensordot(a, b, axes=axes, precision=jax.lax.Precision.HIGHEST)


_tensordot_op = Op("Tensordot", _tensordot_fn)


def tensordot(a, b, axes, name=None):
    """Contracts ``axes`` of ``a`` with those of ``b`` (``tf.tensordot``/``tf.linalg.tensordot``):
    ``axes`` an int (last n of ``a`` with first n of ``b``) or a pair of axis lists."""
    a = to_tensor(a)
    b = to_tensor(b)
    a_axes, b_axes = _tensordot_axes(axes, a)
    if b._v.dtype != a._v.dtype:
        raise dtype_mismatch("MatMul", 1, a._v.dtype, b._v.dtype)
    require(a, NUMERIC, "MatMul")
    sa, sb = a._v.shape, b._v.shape
    a_axes = [i % len(sa) if len(sa) else i for i in a_axes]
    b_axes = [i % len(sb) if len(sb) else i for i in b_axes]
    a_free = [d for i, d in enumerate(sa) if i not in a_axes]
    b_free = [d for i, d in enumerate(sb) if i not in b_axes]
    inner_a = [sa[i] for i in a_axes]
    inner_b = [sb[i] for i in b_axes]
    if inner_a != inner_b:
        # TF reshapes both to matrices and fails in MatMul.
        sa2 = (int(np.prod(a_free)), int(np.prod(inner_a)))
        sb2 = (int(np.prod(inner_b)), int(np.prod(b_free)))
        raise _iae(
            f"Matrix size-incompatible: In[0]: [{_dims(sa2)}], In[1]: [{_dims(sb2)}]", "MatMul"
        )
    return apply(_tensordot_op, (a, b), (("axes", (tuple(a_axes), tuple(b_axes))),))
