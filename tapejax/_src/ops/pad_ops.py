"""Padding and rearranging elements along axes: ``pad``, ``reverse``,
``reverse_sequence``, ``roll`` and ``repeat``, with TF's checks.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, execution
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError, UnimplementedError
from ..tensor import Tensor
from ._array_common import _concrete, _dims, _host, _identity_op, _ints
from ._helpers import axis_ints, dtype_mismatch, to_tensor
from .array_ops import reshape

# -- pad ------------------------------------------------------------------------------------


def _pad_fn(x, *, paddings, mode, constant):
    if mode == "CONSTANT":
        # Static arguments equal in value share one cache entry (``0j == 0.0``), so a real
        # tensor may arrive here with a complex constant whose imaginary part is zero.
        if isinstance(constant, complex) and not jnp.iscomplexobj(x):
            constant = constant.real
        return jnp.pad(x, paddings, constant_values=jnp.asarray(constant, x.dtype))
    return jnp.pad(x, paddings, mode=mode.lower())


_pad_ops = {n: Op(n, _pad_fn) for n in ("Pad", "PadV2", "MirrorPad")}
_NAN = float("nan")


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads ``tensor`` (``tf.pad``): ``paddings[d] = [before, after]`` per dimension;
    ``mode`` is CONSTANT (with ``constant_values``), REFLECT or SYMMETRIC, in any case.

    As in TF, the gradient with respect to ``constant_values`` is ``None``.

    >>> import tapejax as tf
    >>> tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 1]]).numpy()
    array([[0, 0, 0],
           [1, 2, 0]], dtype=int32)
    """
    x = to_tensor(tensor)
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
            f'"SYMMETRIC". Received `mode` = {mode}'
        )
    is_tensor = isinstance(constant_values, Tensor) or getattr(
        constant_values, "_is_variable", False
    )
    if mode != "CONSTANT":
        op_name = "MirrorPad"
    elif not is_tensor and np.ndim(constant_values) == 0 and constant_values == 0:
        op_name = "Pad"
    else:
        op_name = "PadV2"
    arr = np.asarray(paddings._value if isinstance(paddings, Tensor) else paddings)
    flat = _ints(arr, "Tpaddings", op_name)
    shp = x._v.shape
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidArgumentError(
            None,
            None,
            f"paddings must be a matrix with 2 columns: [{_dims(arr.shape)}] [Op:{op_name}]",
        )
    if arr.shape[0] != len(shp):
        raise InvalidArgumentError(
            None,
            None,
            f"The first dimension of paddings must be the rank of inputs[{_dims(arr.shape)}] "
            f"[{_dims(shp)}] [Op:{op_name}]",
        )
    pads = tuple((flat[2 * i], flat[2 * i + 1]) for i in builtins.range(len(shp)))
    for i, (lo, hi) in enumerate(pads):
        if lo < 0 or hi < 0:
            which = "paddings" if op_name == "MirrorPad" else "Paddings"
            raise InvalidArgumentError(
                None, None, f"{which} must be non-negative: {lo} {hi} [Op:{op_name}]"
            )
        if mode == "REFLECT" and (lo >= shp[i] or hi >= shp[i]):
            raise InvalidArgumentError(
                None,
                None,
                f"paddings must be less than the dimension size: {lo}, {hi} not less than "
                f"{shp[i]} [Op:{op_name}]",
            )
        if mode == "SYMMETRIC" and (lo > shp[i] or hi > shp[i]):
            raise InvalidArgumentError(
                None,
                None,
                f"paddings must be no greater than the dimension size: {lo}, {hi} greater "
                f"than {shp[i]} [Op:{op_name}]",
            )
    constant = 0
    if mode == "CONSTANT":
        if is_tensor:
            c = to_tensor(constant_values)
            if c._v.dtype != x._v.dtype:
                raise dtype_mismatch("PadV2", 2, x._v.dtype, c._v.dtype)
        else:
            c = convert_to_tensor(constant_values, dtype=x.dtype)
        if c._v.ndim != 0:
            raise InvalidArgumentError(
                None,
                None,
                f"constant_values must be a scalar. Found: [{_dims(c._v.shape)}] [Op:PadV2]",
            )
        host = _host(constant_values)
        if host is None:
            raise NotImplementedError(
                "tapejax.pad: a traced constant_values is not supported; pass a Python scalar."
            )
        # A static attribute, so that tapes see no input: TF's gradient for it is None.
        constant = host.astype(c._v.dtype).item()
        if constant != constant:  # NaN: one object, so the compiled-op cache still hits
            constant = _NAN
    if not pads:
        return apply(_identity_op, (x,))
    return apply(
        _pad_ops[op_name], (x,), (("constant", constant), ("mode", mode), ("paddings", pads))
    )


# -- reverse, roll, repeat ------------------------------------------------------------------

_reverse_op = Op("ReverseV2", lambda x, *, axis: jnp.flip(x, axis))


def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along each dimension in the 1-D ``axis`` (``tf.reverse``)."""
    x = to_tensor(tensor)
    if np.ndim(axis) != 1:
        raise InvalidArgumentError(
            None, None, f"'dims' must be 1-dimension, not {np.ndim(axis)} [Op:ReverseV2]"
        )
    axes = _ints(axis, "Tidx", "ReverseV2")
    n = x._v.ndim
    seen = []
    for i, a in enumerate(axes):
        if not -n <= a < n:
            raise InvalidArgumentError(
                None,
                None,
                f"'axis'[{i}] = {a} is out of valid range [0, {n - 1} [Op:ReverseV2]",
            )
        if a % n in seen:
            raise InvalidArgumentError(
                None, None, f"axis {a % n} specified more than once. [Op:ReverseV2]"
            )
        seen.append(a % n)
    if n > 8:
        raise UnimplementedError(
            None, None, "reverse is not implemented for tensors of rank > 8. [Op:ReverseV2]"
        )
    return apply(_reverse_op, (x,), (("axis", tuple(seen)),))


def _reverse_sequence_fn(x, lengths, *, seq_axis, batch_axis):
    # Position t of batch row b along seq_axis reads position lengths[b] - 1 - t, for t
    # below lengths[b]: a gather, whose gradient is the same reversal (TF's rule).
    t = jax.lax.broadcasted_iota(lengths.dtype, x.shape, seq_axis)
    shape = [1] * x.ndim
    shape[batch_axis] = x.shape[batch_axis]
    n = lengths.reshape(shape)
    return jnp.take_along_axis(x, jnp.where(t < n, n - 1 - t, t), axis=seq_axis)


_reverse_sequence_op = Op("ReverseSequence", _reverse_sequence_fn)


def _sequence_error(text: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, f"{text} [Op:ReverseSequence]")


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each slice ``b``
    along ``batch_axis`` (``tf.reverse_sequence``); the rest stays in place.

    Args:
        input: a tensor.
        seq_lengths: a vector of int32/int64 lengths, one per ``batch_axis`` entry, each at
            most ``input.shape[seq_axis]``.
        seq_axis: the axis to reverse (required, non-negative).
        batch_axis: the axis the lengths index (0 if None, non-negative).
        name: ignored (TF's op name).

    Returns:
        A tensor of ``input``'s shape and dtype. The gradient is the upstream gradient
        reversed the same way, as TF's.

    Example:
        >>> import tapejax as tf
        >>> tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1).numpy()
        array([[2, 1, 3],
               [6, 5, 4]], dtype=int32)
    """
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    batch_axis = 0 if batch_axis is None else batch_axis
    x = to_tensor(input)
    lengths = to_tensor(seq_lengths)
    if lengths._v.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        name = "float" if lengths._v.dtype == np.float32 else lengths.dtype.name
        raise _sequence_error(
            f"Value for attr 'Tlen' of {name} is not in the list of allowed values: int32, int64"
        )
    n = x._v.ndim
    if batch_axis < 0:
        raise _sequence_error(f"Invalid batch_dim {batch_axis}")
    if seq_axis < 0:
        raise _sequence_error(f"Invalid seq_dim {seq_axis}")
    if lengths._v.ndim != 1:
        raise _sequence_error(f"seq_lengths must be 1-dim, not {lengths._v.ndim}")
    if batch_axis == seq_axis:
        raise _sequence_error(f"batch_dim == seq_dim == {seq_axis}")
    if seq_axis >= n:
        raise _sequence_error(f"seq_dim must be < input rank ( {seq_axis} vs. {n})")
    if batch_axis >= n:
        raise _sequence_error(f"batch_dim must be < input rank ( {batch_axis} vs. {n})")
    batch, steps = x._v.shape[batch_axis], x._v.shape[seq_axis]
    if lengths._v.shape[0] != batch:
        raise _sequence_error(
            f"Length of seq_lengths != input.dims({batch_axis}), "
            f"({lengths._v.shape[0]} vs. {batch})"
        )
    host = _host(lengths)
    if host is not None:
        for b, length in enumerate(host.tolist()):
            if length < 0:
                raise _sequence_error(f"seq_lens({b}) < 0")
            if length > steps:
                raise _sequence_error(f"seq_lens({b}) > input.dims({seq_axis})")
    else:
        lv = lengths._value
        execution.runtime_check(
            jnp.all((lv >= 0) & (lv <= steps)),
            (lv,),
            lambda got: (
                _sequence_error(
                    next(
                        f"seq_lens({b}) < 0" if v < 0 else f"seq_lens({b}) > input.dims({seq_axis})"
                        for b, v in enumerate(got.tolist())
                        if not 0 <= v <= steps
                    )
                ).message
            ),
        )
    static = (("batch_axis", batch_axis), ("seq_axis", seq_axis))
    return apply(_reverse_sequence_op, (x, lengths), static)


_roll_op = Op("Roll", lambda x, *, shift, axis: jnp.roll(x, shift, axis))


def roll(input, shift, axis, name=None):  # noqa: A002
    """Rolls elements along ``axis`` by ``shift`` (``tf.roll``); shifts on the same axis
    add up. ``shift`` and ``axis`` must be concrete."""
    x = to_tensor(input)
    for what, v in (("shift", shift), ("axis", axis)):
        if np.ndim(v) > 1:
            raise InvalidArgumentError(
                None,
                None,
                f"{what} must be a scalar or a 1-D vector. Found: [{_dims(np.shape(v))}] [Op:Roll]",
            )
    if x._v.ndim == 0:
        raise InvalidArgumentError(None, None, "input must be 1-D or higher [Op:Roll]")
    if (isinstance(shift, Tensor) and not _concrete(shift)) or (
        isinstance(axis, Tensor) and not _concrete(axis)
    ):
        raise NotImplementedError("tapejax.roll: shift and axis must be concrete, not traced.")
    shifts = _ints(shift, "Tshift", "Roll")
    axes = _ints(axis, "Taxis", "Roll")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(None, None, "shift and axis must have the same size [Op:Roll]")
    n = x._v.ndim
    for a in axes:
        if not -n <= a < n:
            raise InvalidArgumentError(None, None, f"axis {a} is out of range [Op:Roll]")
    return apply(_roll_op, (x,), (("axis", tuple(a % n for a in axes)), ("shift", shifts)))


_repeat_op = Op(
    "Repeat",
    lambda x, *, repeats, axis, total: jnp.repeat(
        x, np.asarray(repeats), axis=axis, total_repeat_length=total
    ),
)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeats elements of ``input`` (flattened when ``axis`` is None) ``repeats`` times
    (``tf.repeat``); ``repeats`` is an int or one int per element along ``axis`` and must
    be concrete: it sets the result's shape."""
    x = to_tensor(input)
    r = repeats
    if isinstance(r, Tensor) or getattr(r, "_is_variable", False):
        r = to_tensor(r)
        if not _concrete(r):
            raise NotImplementedError(
                "tapejax.repeat: traced repeats give a data-dependent shape; pass them concretely."
            )
        r = r._value
    arr = np.asarray(r)
    if arr.dtype.kind not in "iu":
        dt = dtypes.as_dtype(canonical_np_dtype(arr.dtype) if arr.dtype.kind == "f" else arr.dtype)
        if isinstance(repeats, float):
            dt = dtypes.float32
        raise TypeError(
            "Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = "
            f"{repeats} of dtype: {dt!r}"
        )
    if arr.ndim > 1:
        raise ValueError(f"Shape {arr.shape} must have rank at most 1")
    if axis is None or x._v.ndim == 0:
        x = reshape(x, [-1])
        axis = 0
    n = x._v.ndim
    (axis,) = axis_ints(axis)
    if not -n <= axis < n:
        raise ValueError(f"axis={axis} out of bounds: expected {-n}<=axis<{n}")
    axis %= n
    dim = x._v.shape[axis]
    if arr.ndim == 0 or arr.size == 1:
        k = int(arr.reshape(-1)[0]) if arr.size else 0
        if k < 0:
            raise InvalidArgumentError(
                None, None, f"Expected multiples[{axis + 1}] >= 0, but got {k} [Op:Tile]"
            )
        reps = (k,) * dim
    else:
        if arr.size != dim:
            raise ValueError(f"Dimensions {dim} and {arr.size} are not compatible")
        reps = tuple(int(v) for v in arr)
        if any(v < 0 for v in reps):
            raise InvalidArgumentError(
                None, None, f"repeats must be non-negative, got {list(reps)} [Op:Repeat]"
            )
    return apply(_repeat_op, (x,), (("axis", axis), ("repeats", reps), ("total", sum(reps))))
