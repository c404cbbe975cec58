"""``Tensor.__getitem__``: Python indexing and slicing with TF's rules.

Ints, slices (negative steps included), ``...``, ``tf.newaxis`` and scalar int tensors;
a list index is read as a tuple, as TF does. An out-of-range integer index is TF's
InvalidArgumentError where JAX would clamp silently. Traced scalar indices become op
inputs (dynamic), so indexing works inside ``tapejax.function``.
"""

from __future__ import annotations

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
        if v._value.ndim == 0 and v._value.dtype.kind in "iu":
            return int(v._value)
    elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    raise TypeError(_BAD_INDEX.format(v))


def getitem(tensor, key):
    """``tensor[key]`` with TF's rules: out-of-range integer indices raise."""
    x = to_tensor(tensor)
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
            if k._value.ndim != 0 or k._value.dtype.kind not in "iu":
                raise TypeError(_BAD_INDEX.format(k))
            if _concrete(k):
                spec.append(("i", int(k._value)))
            else:
                spec.append(("t", len(dynamic)))
                dynamic.append(k)
        else:
            raise TypeError(_BAD_INDEX.format(k))
    _check_spec(spec, x._value.shape)
    return apply(_slice_op, (x, *dynamic), (("spec", tuple(spec)),))


def _check_spec(spec, shp):
    if not shp and any(e[0] in "ist" for e in spec):
        raise InvalidArgumentError(
            None, None, "Attempting to slice scalar input. [Op:StridedSlice]"
        )
    consumed = sum(1 for e in spec if e[0] in "ist")
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
