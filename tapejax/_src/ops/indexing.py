"""``Tensor.__getitem__``, ``tf.strided_slice`` and ``tf.slice``: slicing with TF's rules.

Ints, slices (negative steps included), ``...``, ``tf.newaxis`` and scalar int tensors;
a list index is read as a tuple, as TF does; a bool tensor or array as the whole index
is ``tf.boolean_mask``, as in TF. An out-of-range integer index is TF's
InvalidArgumentError where JAX would clamp silently. Traced scalar indices become op
inputs (dynamic), so indexing works inside ``tapejax.function``. ``strided_slice``
translates its masks into the same index spec, so both share one op and one check.
"""

from __future__ import annotations

import builtins

import jax
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ._helpers import to_tensor


def _concrete(x) -> bool:
    return not isinstance(getattr(x, "_value", x), jax.core.Tracer)


def _slice_fn(x, *dynamic, spec):
    idx = []
    for e in spec:
        tag = e[0]
        if tag == "i":
            idx.append(e[1])
        elif tag == "s":
            idx.append(slice(e[1], e[2], e[3]))
        elif tag == "n":
            idx.append(None)
        elif tag == "e":
            idx.append(Ellipsis)
        else:  # "t": a traced scalar index
            idx.append(dynamic[e[1]])
    return x[tuple(idx)]


_slice_op = Op("StridedSlice", _slice_fn)

_BAD_INDEX = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices, got {!r}"
)


def _slice_part(v):
    if v is None:
        return None
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        v = to_tensor(v)
        if v._v.ndim == 0 and v._v.dtype.kind in "iu":
            return int(v._value)
    elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    raise TypeError(_BAD_INDEX.format(v))


def _simple_spec(key):
    """The spec of a key made of ints, slices of ints and ``None``, ``tf.newaxis`` and at
    most one ``...`` (what most code indexes with), as ``getitem``'s general path would
    build it; None for any other key."""
    if type(key) is not tuple:
        key = (key,)
    spec = []
    ellipsis = False
    for k in key:
        tk = type(k)
        if tk is slice:
            a, b, c = k.start, k.stop, k.step
            if (
                (a is None or type(a) is int)
                and (b is None or type(b) is int)
                and (c is None or (type(c) is int and c != 0))
            ):
                spec.append(("s", a, b, c))
            else:
                return None
        elif tk is int:
            spec.append(("i", k))
        elif k is None:
            spec.append(("n",))
        elif k is Ellipsis and not ellipsis:
            ellipsis = True
            spec.append(("e",))
        else:
            return None
    return tuple(spec)


def getitem(tensor, key):
    """``tensor[key]`` with TF's rules: out-of-range integer indices raise."""
    if type(tensor) is Tensor:
        spec = _simple_spec(key)
        if spec is not None:
            _check_spec(spec, tensor._v.shape)
            return apply(_slice_op, (tensor,), (("spec", spec),))
    x = to_tensor(tensor)
    if _is_bool_mask(key):
        from .scatter_ops import boolean_mask

        return boolean_mask(x, key)
    if not isinstance(key, tuple):
        key = tuple(key) if isinstance(key, list) else (key,)
    spec = []
    dynamic = []
    for k in key:
        if k is None:
            spec.append(("n",))
        elif k is Ellipsis:
            if ("e",) in spec:
                raise InvalidArgumentError(
                    None, None, "Multiple ellipses in slice spec not allowed [Op:StridedSlice]"
                )
            spec.append(("e",))
        elif isinstance(k, slice):
            step = _slice_part(k.step)
            if step == 0:
                raise InvalidArgumentError(
                    None, None, f"strides[{len(spec)}] must be non-zero [Op:StridedSlice]"
                )
            spec.append(("s", _slice_part(k.start), _slice_part(k.stop), step))
        elif isinstance(k, (bool, np.bool_)):
            # TF reads a Python bool as a boolean mask, which cannot be a scalar.
            raise ValueError("mask cannot be scalar.")
        elif isinstance(k, (int, np.integer)) or (
            isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu"
        ):
            spec.append(("i", int(k)))
        elif isinstance(k, Tensor) or getattr(k, "_is_variable", False):
            k = to_tensor(k)
            if k._v.ndim != 0 or k._v.dtype.kind not in "iu":
                raise TypeError(_BAD_INDEX.format(k))
            if _concrete(k):
                spec.append(("i", int(k._value)))
            else:
                spec.append(("t", len(dynamic)))
                dynamic.append(k)
        else:
            raise TypeError(_BAD_INDEX.format(k))
    _check_spec(spec, x._v.shape)
    return apply(_slice_op, (x, *dynamic), (("spec", tuple(spec)),))


def _check_spec(spec, shp):
    consumed = 0
    for e in spec:
        if e[0] in "ist":
            consumed += 1
    if not shp and consumed:
        raise InvalidArgumentError(
            None, None, "Attempting to slice scalar input. [Op:StridedSlice]"
        )
    if consumed > len(shp):
        raise InvalidArgumentError(
            None,
            None,
            f"Index out of range using input dim {len(shp)}; input has only {len(shp)} dims [Op:StridedSlice]",
        )
    dim = 0
    for e in spec:
        tag = e[0]
        if tag == "e":
            dim += len(shp) - consumed
        elif tag == "i":
            n = shp[dim]
            if not -n <= e[1] < n:
                # TF reports a negative index after adding the dimension's size.
                shown = e[1] + n if e[1] < 0 else e[1]
                raise InvalidArgumentError(
                    None,
                    None,
                    f"slice index {shown} of dimension {dim} out of bounds. [Op:StridedSlice]",
                )
            dim += 1
        elif tag in "st":
            dim += 1


def _is_bool_mask(key) -> bool:
    if isinstance(key, (bool, np.bool_)):
        return True
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    if isinstance(key, Tensor) or getattr(key, "_is_variable", False):
        return key.dtype.name == "bool"
    return False


# -- tf.strided_slice -------------------------------------------------------------------------


def _index_vector(v, op_name: str, allowed: str = "int16, int32, int64"):
    """``begin``/``end``/``strides``: a 1-D vector of ints (TF's attr error for floats)."""
    if isinstance(v, Tensor) or getattr(v, "_is_variable", False):
        v = to_tensor(v)
        if not _concrete(v):
            raise NotImplementedError(
                f"tapejax.{op_name}: traced begin/end/strides give a result whose shape "
                "depends on their values; pass Python ints (or index with a traced scalar)."
            )
        v = v._value
    arr = np.asarray(v)
    if arr.size and arr.dtype.kind not in "iu":
        from ._helpers import tf_type_name

        name = "float" if arr.dtype.kind == "f" else tf_type_name(arr.dtype)
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Index' of {name} is not in the list of allowed values: "
            f"{allowed} [Op:{op_name}]",
        )
    return arr


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """``input_[begin:end:strides]`` per dimension, with TF's masks (``tf.strided_slice``).

    Bit ``i`` of ``begin_mask``/``end_mask`` ignores ``begin[i]``/``end[i]`` (the widest
    range); of ``ellipsis_mask`` makes entry ``i`` an ``...``; of ``new_axis_mask`` a
    ``tf.newaxis``; of ``shrink_axis_mask`` an integer index ``begin[i]``. This is what
    ``tensor[...]`` computes.

    >>> import tapejax as tf
    >>> tf.strided_slice(tf.constant([1, 2, 3, 4]), [3], [0], [-1]).numpy()
    array([4, 3, 2], dtype=int32)
    """
    x = to_tensor(input_)
    b = _index_vector(begin, "StridedSlice")
    e = _index_vector(end, "StridedSlice")
    s = np.ones_like(b) if strides is None else _index_vector(strides, "StridedSlice")
    if not (b.ndim == e.ndim == s.ndim == 1 and b.shape == e.shape == s.shape):
        raise InvalidArgumentError(
            None,
            None,
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"[{','.join(map(str, b.shape))}], [{','.join(map(str, e.shape))}], and "
            f"[{','.join(map(str, s.shape))}] instead. [Op:StridedSlice]",
        )
    spec = []
    for i in builtins.range(b.shape[0]):
        bit = 1 << i
        if ellipsis_mask & bit:
            if ("e",) in spec:
                raise InvalidArgumentError(
                    None, None, "Multiple ellipses in slice spec not allowed [Op:StridedSlice]"
                )
            spec.append(("e",))
            continue
        if new_axis_mask & bit:
            spec.append(("n",))
            continue
        if s[i] == 0:
            raise InvalidArgumentError(
                None, None, f"strides[{i}] must be non-zero [Op:StridedSlice]"
            )
        if shrink_axis_mask & bit:
            if s[i] < 0:
                raise InvalidArgumentError(
                    None, None, "only stride 1 allowed on non-range indexing. [Op:StridedSlice]"
                )
            spec.append(("i", int(b[i])))
            continue
        spec.append(
            (
                "s",
                None if begin_mask & bit else int(b[i]),
                None if end_mask & bit else int(e[i]),
                int(s[i]),
            )
        )
    _check_spec(spec, x._v.shape)
    return apply(_slice_op, (x,), (("spec", tuple(spec)),))


# -- tf.slice -------------------------------------------------------------------------------


def _slice_static_fn(x, *, begin, size):
    return jax.lax.slice(x, begin, tuple(b + n for b, n in zip(begin, size, strict=True)))


def _slice_dynamic_fn(x, begin, *, size):
    return jax.lax.dynamic_slice(x, tuple(begin), size)


_static_slice_op = Op("Slice", _slice_static_fn)
_dynamic_slice_op = Op("Slice", _slice_dynamic_fn)


def tf_slice(input_, begin, size, name=None):
    """The block of ``input_`` starting at ``begin`` of shape ``size`` (``tf.slice``);
    a size of -1 takes everything to the end of that dimension.

    ``begin`` may be a traced tensor inside ``tapejax.function`` when every ``size`` is
    known and non-negative; XLA then clamps the block into range, where TF would raise.

    >>> import tapejax as tf
    >>> tf.slice(tf.constant([[1, 2, 3], [4, 5, 6]]), [1, 0], [1, -1]).numpy()
    array([[4, 5, 6]], dtype=int32)
    """
    x = to_tensor(input_)
    shp = x._v.shape
    n = _index_vector(size, "Slice", "int32, int64")
    traced = (isinstance(begin, Tensor) or getattr(begin, "_is_variable", False)) and (
        not _concrete(to_tensor(begin))
    )
    b = None if traced else _index_vector(begin, "Slice", "int32, int64")
    b_len = to_tensor(begin)._v.shape[0] if traced else b.reshape(-1).shape[0]
    if b_len != len(shp) or n.reshape(-1).shape[0] != len(shp):
        raise InvalidArgumentError(
            None,
            None,
            f"Expected begin and size arguments to be 1-D tensors of size {len(shp)}, but got "
            f"shapes [{b_len}] and [{n.reshape(-1).shape[0]}] instead. [Op:Slice]",
        )
    n = [int(v) for v in n.reshape(-1)]
    if traced:
        if any(v < 0 for v in n):
            raise NotImplementedError(
                "tapejax.slice with a traced begin needs every size known and >= 0."
            )
        return apply(_dynamic_slice_op, (x, to_tensor(begin)), (("size", tuple(n)),))
    b = [int(v) for v in b.reshape(-1)]
    for i, (start, dim) in enumerate(zip(b, shp, strict=True)):
        if not 0 <= start <= dim:
            raise InvalidArgumentError(
                None, None, f"Expected begin[{i}] in [0, {dim}], but got {start} [Op:Slice]"
            )
        if n[i] == -1:
            n[i] = dim - start
        if not 0 <= n[i] <= dim - start:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected size[{i}] in [0, {dim - start}], but got {n[i]} [Op:Slice]",
            )
    return apply(_static_slice_op, (x,), (("begin", tuple(b)), ("size", tuple(n))))
