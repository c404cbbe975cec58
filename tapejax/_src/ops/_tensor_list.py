"""The traced ``TensorArray``: TF's graph-mode one (``_GraphTensorArrayV2``, a TensorList),
which ``tapejax.TensorArray`` is inside ``tapejax.function`` and JAX transforms.

Every operation returns a new array and leaves the old one as it was. Elements written at
indices known while tracing are kept as a Python list of Tensors, so an element shape may
stay unknown until the first write and ``split``/``concat`` may hold elements of different
lengths. An operation at an index known only at run time, or a ``while_loop``/``cond``
carrying the array, needs one **buffer** Tensor ``[n, *element_shape]`` (unwritten
elements zero, as TF reads them), which recorded ops (``dynamic_update_slice`` and
friends) update: tapes differentiate from ``stack``/``read`` back to the written values.

A ``dynamic_size`` array has a traced length next to its buffer once a loop carries it;
its buffer cannot grow inside the loop, so the loop's ``maximum_iterations`` sizes it.

This module must never check a traced index (XLA has no run-time errors): out-of-range
traced writes are dropped and traced reads give zeros. Indices known while tracing get
TF's errors, raised while tracing.
"""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from ..tensor_shape import TensorShape, as_shape
from ._array_common import _concrete
from ._helpers import tf_type_name, to_tensor
from .creation_ops import zeros
from .join_split_ops import concat, split, stack, unstack

__all__ = ["TracedArray", "static_size"]


# -- ops on the buffer ---------------------------------------------------------------------


def _in_range(i, n):
    return (i >= 0) & (i < n)


def _set_item(buf, i, v):
    n = buf.shape[0]
    j = jnp.clip(i, 0, n - 1)
    old = jax.lax.dynamic_index_in_dim(buf, j, 0, keepdims=False)
    return jax.lax.dynamic_update_index_in_dim(buf, jnp.where(_in_range(i, n), v, old), j, 0)


def _get_item(buf, i):
    n = buf.shape[0]
    row = jax.lax.dynamic_index_in_dim(buf, jnp.clip(i, 0, n - 1), 0, keepdims=False)
    return jnp.where(_in_range(i, n), row, jnp.zeros_like(row))


def _gather(buf, idx):
    n = buf.shape[0]
    rows = jnp.take(buf, jnp.clip(idx, 0, n - 1), axis=0)
    ok = _in_range(idx, n).reshape(idx.shape + (1,) * (buf.ndim - 1))
    return jnp.where(ok, rows, jnp.zeros_like(rows))


def _scatter(buf, idx, values):
    n = buf.shape[0]
    return jnp.asarray(buf).at[jnp.where(_in_range(idx, n), idx, n)].set(values, mode="drop")


def _pad(buf, *, rows):
    return jnp.concatenate([buf, jnp.zeros((rows,) + buf.shape[1:], buf.dtype)])


def _grow(length, i, *, capacity):
    return jnp.maximum(length, jnp.clip(jnp.max(i, initial=-1) + 1, 0, capacity)).astype(jnp.int32)


_set_item_op = Op("TensorListSetItem", _set_item)
_get_item_op = Op("TensorListGetItem", _get_item)
_gather_op = Op("TensorListGather", _gather)
_scatter_op = Op("TensorListScatterIntoExistingList", _scatter)
_pad_op = Op("TensorListResize", _pad)
_grow_op = Op("TensorListLength", _grow, differentiable=False)
_concat_op = Op("TensorListConcatV2", lambda buf: buf.reshape((-1,) + buf.shape[2:]))


# -- reading arguments -------------------------------------------------------------------------


def static_size(size, what: str = "size") -> int:
    """``size`` as a Python int; a size known only at run time cannot shape a buffer."""
    if isinstance(size, Tensor) or getattr(size, "_is_variable", False):
        t = to_tensor(size)
        if not _concrete(t):
            raise NotImplementedError(
                f"tapejax needs the {what} of a TensorArray inside tapejax.function as a Python "
                "int (or a tensor known while tracing): XLA buffers have static shapes. Pass "
                "the size as a Python int (e.g. from `x.shape[0]`)."
            )
        return int(np.asarray(t._value))
    return int(size)


def _index(index, op: str):
    """``(int, None)`` for an index known now, ``(None, int32 Tensor)`` for a traced one."""
    if isinstance(index, (bool, np.bool_)) or not (
        isinstance(index, (int, np.integer, Tensor)) or getattr(index, "_is_variable", False)
    ):
        arr = np.asarray(index)
        if arr.dtype.kind not in "iu" or arr.ndim:
            raise TypeError(
                f"Expected int32 passed to parameter 'index' of op '{op}', got {index!r} of type "
                f"'{type(index).__name__}' instead. Error: Expected int32, but got {index!r} of "
                f"type '{type(index).__name__}'."
            )
        return int(arr), None
    if isinstance(index, (int, np.integer)):
        return int(index), None
    t = to_tensor(index)
    if t._v.dtype.kind not in "iu" or t._v.ndim:
        raise TypeError(
            f"Expected int32 passed to parameter 'index' of op '{op}', got {t!r} instead: a "
            "TensorArray index is an integer scalar."
        )
    if _concrete(t):
        return int(np.asarray(t._value)), None
    return None, t


def _indices(indices, op: str):
    """``(list of ints, None)`` when known now, else ``(None, 1-D int32 Tensor)``; TF's
    TensorList ops take any shape and read it flattened."""
    if isinstance(indices, Tensor) or getattr(indices, "_is_variable", False):
        t = to_tensor(indices)
        if not _concrete(t):
            if t._v.dtype.kind not in "iu":
                raise TypeError(f"{op}: indices must be integers, got {t.dtype.name}")
            return None, t
        indices = np.asarray(t._value)
    arr = np.asarray(indices)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(
            f"Expected int32 passed to parameter 'indices' of op '{op}', got {indices!r} instead."
        )
    return [int(i) for i in arr.reshape(-1)], None


def _as_index_tensor(i: int) -> Tensor:
    return convert_to_tensor(np.int32(i))


# -- the array ---------------------------------------------------------------------------------


class TracedArray:
    """TF's graph-mode TensorArray (see the module docstring); ``TensorArray`` delegates here."""

    def __init__(
        self, dtype, size, dynamic_size, handle, flow, infer_shape, element_shape, name=None
    ):
        if handle is not None:
            raise AssertionError()
        if flow is not None:
            raise TypeError(
                f"Expected `flow` to be a variant tensor, but received "
                f"`{getattr(flow, 'dtype', type(flow).__name__)}` instead. (tapejax: a "
                "TensorArray cannot be rebuilt from another's `flow`; pass the TensorArray.)"
            )
        if size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._np = canonical_np_dtype(self._dtype._np)
        self._dynamic_size = dynamic_size
        self._size = static_size(size)
        self._infer_shape = infer_shape
        # Shared with every array derived from this one, as TF shares it.
        self._element_shape = [as_shape(element_shape)]
        self._items: list | None = [None] * max(self._size, 0)
        self._buffer: Tensor | None = None
        self._length: Tensor | None = None  # traced length of a dynamic array a loop carried
        self._bounded = False  # a loop gave this dynamic array its capacity
        self._seen: list | None = None  # element shapes written while discovering them
        self._shape_hint = None  # the element shape a loop found by tracing its body
        self.parent = None

    # -- state ---------------------------------------------------------------------------------

    def _derive(self, **changes) -> TracedArray:
        new = copy.copy(self)
        new.parent = None
        for k, v in changes.items():
            setattr(new, "_" + k, v)
        return new

    def _count(self) -> int:
        """The number of elements now (a dynamic array's capacity once a loop carried it)."""
        return len(self._items) if self._items is not None else self._buffer._v.shape[0]

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape[0]

    @property
    def flow(self):
        return convert_to_tensor(np.int32(0))

    @property
    def handle(self):
        return None

    def _check_element_shape(self, shape) -> None:
        shape = as_shape(shape)
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _convert(self, value, op: str) -> Tensor:
        if type(value) is not Tensor:
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value._v.dtype != self._np:
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid data types; op elements {tf_type_name(value._v.dtype)} but list "
                f"elements {tf_type_name(self._np)} [Op:{op}]",
            )
        return value

    def _fill_shape(self, hint=None):
        """The shape unwritten elements read as (zeros), or None when nothing tells it."""
        if self.element_shape.is_fully_defined():
            return tuple(self.element_shape.as_list())
        for x in self._items or ():
            if x is not None:
                return tuple(x._v.shape)
        for s in (self._shape_hint, hint):
            if s is not None:
                return tuple(s)
        return None

    def _uninitialized(self, what: str) -> Exception:
        if self._seen is not None:
            return NotImplementedError(
                "tapejax cannot tell the element shape of a TensorArray that enters a traced "
                "while_loop unwritten: the loop body reads it before writing it. Pass "
                "element_shape=... to tf.TensorArray (XLA buffers have static shapes)."
            )
        return InvalidArgumentError(None, None, what)

    def _zeros(self) -> Tensor:
        shape = self._fill_shape()
        if shape is None:
            raise self._uninitialized(
                "Trying to read an uninitialized tensor but element_shape is not fully "
                f"defined: {self.element_shape} and no list element is set."
            )
        return zeros(shape, self._dtype)

    def _materialize(self, hint=None, stacking=False) -> Tensor:
        """The buffer ``[n, *element_shape]``; unwritten elements are zeros. ``stacking``:
        for ``stack()``, with its errors.

        Not kept on ``self``: the array may belong to an enclosing trace.
        """
        if self._buffer is not None:
            return self._buffer
        shape = self._fill_shape(hint)
        if shape is None:
            raise self._uninitialized(
                "Trying to read an uninitialized tensor but element_shape is not fully "
                f"defined: {self.element_shape} and no list element is set."
                if not stacking
                else "Tried to stack list which only contains uninitialized tensors and has a "
                f"non-fully-defined element_shape: {self.element_shape}"
            )
        rows = [zeros(shape, self._dtype) if x is None else x for x in self._items]
        if stacking:
            # TF's stack: elements of different shapes are its InvalidArgumentError (Pack's).
            return stack(rows) if rows else zeros((0,) + shape, self._dtype)
        if any(tuple(r._v.shape) != shape for r in rows):
            raise NotImplementedError(
                "tapejax cannot hold TensorArray elements of different shapes "
                f"({sorted({tuple(r._v.shape) for r in rows})}) in one buffer, which an index "
                "known only at run time or a traced while_loop/cond needs. Write elements of "
                "one shape, or use indices known while tracing (Python ints)."
            )
        if not rows:
            return zeros((0,) + shape, self._dtype)
        return stack(rows)

    def _require_bound(self, what: str) -> None:
        if self._dynamic_size and not self._bounded:
            raise NotImplementedError(
                f"tapejax cannot {what} a TensorArray with dynamic_size=True at indices known "
                "only at run time outside a bounded loop: its buffer needs a static size. Give "
                "it a fixed size=..., or carry it through tf.while_loop with "
                "maximum_iterations=<Python int> (it then holds up to size + maximum_iterations "
                "elements)."
            )

    # -- reading ---------------------------------------------------------------------------

    def read(self, index, name=None) -> Tensor:
        i, traced = _index(index, "TensorListGetItem")
        if traced is not None:
            return apply(_get_item_op, (self._materialize(), traced))
        n = self._count()
        if not 0 <= i < n:
            raise InvalidArgumentError(
                None, None, f"Trying to access element {i} in a list with {n} elements."
            )
        if self._buffer is not None:
            return apply(_get_item_op, (self._buffer, _as_index_tensor(i)))
        x = self._items[i]
        return self._zeros() if x is None else x

    def _check_count(self) -> None:
        if not self._dynamic_size and self._size is not None and self._count() != self._size:
            raise InvalidArgumentError(
                None,
                None,
                f"Operation expected a list with {self._size} elements but got a list with "
                f"{self._count()} elements.",
            )

    def stack(self, name=None) -> Tensor:
        self._check_count()
        if self._buffer is not None:
            return self._buffer
        if not self._items and not self.element_shape.is_fully_defined():
            raise InvalidArgumentError(
                None,
                None,
                "Tried to stack elements of an empty list with non-fully-defined "
                f"element_shape: {self.element_shape}",
            )
        return self._materialize(stacking=True)

    def gather(self, indices, name=None) -> Tensor:
        idx, traced = _indices(indices, "TensorListGather")
        if traced is not None:
            return apply(_gather_op, (self._materialize(), traced))
        n = self._count()
        for i in idx:
            if not 0 <= i < n:
                raise InvalidArgumentError(
                    None, None, f"Index {i} out o range; list only has {n} elements."
                )
        if self._buffer is not None:
            return apply(_gather_op, (self._buffer, convert_to_tensor(np.asarray(idx, np.int32))))
        if not idx:
            shape = self._fill_shape()
            if shape is None:
                raise self._uninitialized(
                    "Trying to gather from a list with no elements set and a non-fully-defined "
                    f"element_shape: {self.element_shape}"
                )
            return zeros((0,) + shape, self._dtype)
        return stack([self.read(i) for i in idx])

    def concat(self, name=None) -> Tensor:
        if self._buffer is not None:
            if self._buffer._v.ndim < 2:
                raise InvalidArgumentError(
                    None,
                    None,
                    "Concat saw a scalar shape at index 0 but requires at least vectors.",
                )
            return apply(_concat_op, (self._buffer,))
        rows = [self.read(i) for i in range(len(self._items))]
        for k, r in enumerate(rows):
            if r._v.ndim == 0:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Concat saw a scalar shape at index {k} but requires at least vectors.",
                )
        if not rows:
            shape = self.element_shape
            if shape.rank is None or shape.rank == 0 or not shape[1:].is_fully_defined():
                raise InvalidArgumentError(
                    None,
                    None,
                    "All except the first dimension must be fully defined when concating an "
                    f"empty tensor list. element_shape: {shape}",
                )
            return zeros([0] + shape[1:].as_list(), self._dtype)
        return concat(rows, 0)

    def size(self, name=None) -> Tensor:
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(np.int32(self._size))
        if self._length is not None:
            return self._length
        return convert_to_tensor(np.int32(self._count()))

    # -- writing ---------------------------------------------------------------------------

    def write(self, index, value, name=None) -> TracedArray:
        value = self._convert(value, "TensorListSetItem")
        self._check_element_shape(value.shape)
        if self._seen is not None:
            self._seen.append(tuple(value._v.shape))
        i, traced = _index(index, "TensorListSetItem")
        if traced is not None:
            self._require_bound("write")
            buffer = self._materialize(hint=value._v.shape)
            if buffer._v.shape[1:] != value._v.shape:
                raise NotImplementedError(
                    f"tapejax cannot write an element of shape {value.shape} into a TensorArray "
                    f"holding elements of shape {TensorShape(buffer._v.shape[1:])} at an index "
                    "known only at run time (XLA buffers have static shapes)."
                )
            if not buffer._v.shape[0]:
                return self._derive(buffer=buffer, items=None)  # nowhere to write: dropped
            return self._set(buffer, traced, value)
        n = self._count()
        if i < 0 or (i >= n and not self._dynamic_size):
            raise InvalidArgumentError(
                None, None, f"Trying to modify element {i} in a list with {n} elements."
            )
        if self._buffer is None:
            items = list(self._items)
            items.extend([None] * (i + 1 - n))
            items[i] = value
            return self._derive(items=items)
        buffer = self._buffer
        if buffer._v.shape[1:] != value._v.shape:
            raise NotImplementedError(
                f"tapejax cannot write an element of shape {value.shape} into a TensorArray "
                f"holding elements of shape {TensorShape(buffer._v.shape[1:])} once it is one "
                "buffer (after a traced index, while_loop or cond)."
            )
        if i >= n:
            buffer = apply(_pad_op, (buffer,), (("rows", i + 1 - n),))
        return self._set(buffer, _as_index_tensor(i), value)

    def _set(self, buffer, index, value) -> TracedArray:
        new = apply(_set_item_op, (buffer, index, value))
        return self._derive(buffer=new, items=None, length=self._grown(index, new))

    def _grown(self, index, buffer):
        if self._length is None:
            return None
        capacity = buffer._v.shape[0]
        return apply(_grow_op, (self._length, index), (("capacity", capacity),))

    def unstack(self, value, name=None) -> TracedArray:
        if type(value) is not Tensor:
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value._v.dtype != self._np:
            raise ValueError(
                "Trying to read from list with wrong element dtype. List has type "
                f"{tf_type_name(value._v.dtype)} but expected type {tf_type_name(self._np)}"
            )
        if value._v.ndim == 0:
            raise ValueError(
                "Shape must be at least rank 1 but is rank 0 for 'TensorListFromTensor'"
            )
        self._check_element_shape(value.shape[1:])
        length = None
        if self._length is not None:
            length = convert_to_tensor(np.int32(value._v.shape[0]))
        return self._derive(items=None, buffer=value, length=length)

    def scatter(self, indices, value, name=None) -> TracedArray:
        value = self._convert(value, "TensorListScatterIntoExistingList")
        if value._v.ndim == 0:
            raise InvalidArgumentError(
                None, None, "Expected tensor to be at least a vector, but saw shape: []"
            )
        self._check_element_shape(value.shape[1:])
        idx, traced = _indices(indices, "TensorListScatterIntoExistingList")
        rows = value._v.shape[0]
        count = len(idx) if traced is None else traced._v.size
        if count != rows:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected len(indices) == tensor.shape[0], but saw: {count} vs. {rows}",
            )
        if traced is not None:
            self._require_bound("scatter into")
            buffer = self._materialize(hint=value._v.shape[1:])
            new = apply(_scatter_op, (buffer, traced, value))
            return self._derive(buffer=new, items=None, length=self._grown(traced, new))
        for i in idx:
            if i < 0:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Trying to modify element {i} in a list with {self._count()} elements.",
                )
        n = self._count()
        grow = max(idx, default=-1) + 1 - n
        if self._buffer is None:
            items = list(self._items) + [None] * max(grow, 0)
            for i, row in zip(idx, unstack(value) if rows else []):
                items[i] = row
            return self._derive(items=items)
        buffer = self._buffer
        if grow > 0:
            buffer = apply(_pad_op, (buffer,), (("rows", grow),))
        index = convert_to_tensor(np.asarray(idx, np.int32))
        new = apply(_scatter_op, (buffer, index, value))
        return self._derive(buffer=new, length=self._grown(index, new))

    def split(self, value, lengths, name=None) -> TracedArray:
        value = self._convert(value, "TensorListSplit")
        if isinstance(lengths, Tensor) and not _concrete(lengths):
            raise NotImplementedError(
                "tapejax needs the lengths of TensorArray.split while tracing (XLA shapes are "
                "static): pass them as Python ints."
            )
        sizes = np.asarray(lengths._value if isinstance(lengths, Tensor) else lengths)
        if sizes.ndim != 1:
            raise InvalidArgumentError(
                None, None, f"Expected lengths to be a vector, received shape: {list(sizes.shape)}"
            )
        if value._v.ndim == 0:
            raise InvalidArgumentError(
                None, None, "Expected value to be at least a vector, but received shape: []"
            )
        total, rows = int(sizes.sum()), value._v.shape[0]
        if total != rows:
            raise InvalidArgumentError(
                None,
                None,
                f"Unused values in tensor. Length of tensor: {rows} Values used: {total}"
                if total < rows
                else f"Attempting to slice [{total - int(sizes[-1])}, {total}] from tensor with "
                f"length {rows}.",
            )
        if len(sizes) and sizes.max() == sizes.min():
            self._check_element_shape(TensorShape([int(sizes[0])]).concatenate(value.shape[1:]))
        if len(sizes) > 1:
            pieces = split(value, [int(s) for s in sizes])
        else:
            pieces = [value] * len(sizes)
        length = None
        if self._length is not None:
            length = convert_to_tensor(np.int32(len(pieces)))
        return self._derive(items=list(pieces), buffer=None, length=length)

    # -- the rest --------------------------------------------------------------------------

    def identity(self) -> TracedArray:
        return self._derive()

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported in tapejax (nor by TF's TensorList-backed "
            "TensorArray): tapes differentiate through TensorArray operations without it."
        )

    def close(self, name=None):
        return None

    # -- carried by while_loop / cond ------------------------------------------------------

    def needs_shape(self) -> bool:
        """Whether it is unwritten and its element shape unknown: a loop must find it."""
        return self._buffer is None and self._fill_shape() is None and self._seen is None

    def discovering(self) -> TracedArray:
        """A copy whose writes record their shapes (in ``seen_shape``), for a probe trace."""
        return self._derive(
            seen=[], element_shape=[self.element_shape], bounded=True, items=list(self._items)
        )

    def seen_shape(self):
        shapes = set(self._seen or ())
        return shapes.pop() if len(shapes) == 1 else None

    def with_shape_hint(self, shape) -> TracedArray:
        return self._derive(shape_hint=tuple(shape))

    def loop_parts(self, grow: int | None = None) -> list:
        """The Tensors a loop or cond carries: the buffer, and a dynamic array's length.

        ``grow``: the loop's bound, the room a dynamic array gets for its writes.
        """
        if self._seen is not None:
            return []  # a probe passes through the trace as it is
        buffer = self._materialize()
        if not self._dynamic_size:
            return [buffer]
        length = self._length
        if length is None:
            length = convert_to_tensor(np.int32(self._count()))
        if grow:
            buffer = apply(_pad_op, (buffer,), (("rows", grow),))
        return [buffer, length]

    def from_loop_parts(self, parts, bounded: bool) -> TracedArray:
        """The array made of ``parts`` (from ``loop_parts``); ``bounded``: a loop's bound
        sized a dynamic array, which may then be written at traced indices."""
        if self._seen is not None:
            return self._derive()
        if not self._dynamic_size:
            return self._derive(buffer=parts[0], items=None, length=None)
        return self._derive(
            buffer=parts[0], items=None, length=parts[1], bounded=bounded or self._bounded
        )

    def bounded_to(self, capacity: int) -> TracedArray:
        """This dynamic array as a traced loop with room for ``capacity`` elements leaves it
        (the eager first call of a ``tapejax.function`` matches its traced calls so)."""
        if self._fill_shape() is None:
            return self
        buffer = self._materialize()
        rows = buffer._v.shape[0]
        length = self._length
        if length is None:
            length = convert_to_tensor(np.int32(rows))
        if rows < capacity:
            buffer = apply(_pad_op, (buffer,), (("rows", capacity - rows),))
        return self._derive(buffer=buffer, items=None, length=length, bounded=True)

    def same_kind(self, other) -> bool:
        return (
            isinstance(other, TracedArray)
            and other._np == self._np
            and bool(other._dynamic_size) == bool(self._dynamic_size)
        )
