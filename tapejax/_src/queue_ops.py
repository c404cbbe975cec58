"""``tf.queue``: TF's eager queues, kept on the host and shared between Python threads.

A queue holds whole elements (one NumPy array per component) under a
``threading.Condition``: a dequeue waits until enough elements are there, an enqueue
until there is room, and ``close`` wakes every waiter. The errors are TF's types with
TF's texts; the name in them is a per-process counter, as TF's resource names are.
Nothing here may run inside a ``tapejax.function``: a compiled program cannot wait on
Python threads, so every queue op there raises ``NotImplementedError``.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from . import execution
from .conversion import convert_to_tensor
from .dtypes import as_dtype, bool_, int32, int64
from .errors import CancelledError, InvalidArgumentError, OutOfRangeError
from .tensor_shape import TensorShape

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

_IDS = itertools.count()
# TF's DataTypeString for the dtypes whose TF name differs from the Python one.
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _dtype_list(dtypes) -> list:
    if isinstance(dtypes, (list, tuple)):
        return [as_dtype(d) for d in dtypes]
    return [as_dtype(dtypes)]


def _shape_list(shapes, unknown_dim_allowed: bool = False):
    if unknown_dim_allowed and (
        not isinstance(shapes, (list, tuple))
        or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            "Shapes must be a TensorShape or a list or tuple of TensorShapes, "
            f"got {type(shapes)} instead."
        )
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [TensorShape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    return shapes


def _name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError(
            "List of names must have the same length as the list of dtypes, "
            f"received len(names)={len(names)},len(dtypes)={len(dtypes)}"
        )
    return list(names)


def _no_function(op: str) -> None:
    if not execution.executing_eagerly():
        raise NotImplementedError(
            f"tapejax.queue's {op} cannot run inside a tapejax.function: a compiled program "
            "cannot wait on other Python threads. Call the queue outside the function and "
            "pass the values in."
        )


class QueueBase:
    """The base class of TF's queues (``tf.queue.QueueBase``): elements of fixed dtypes.

    Each element is one tensor per component; ``enqueue``/``dequeue`` take and give a
    single tensor (one component), a list (several) or a dict (when ``names`` is given).
    Dequeues on an empty queue wait for another thread's enqueue; enqueues on a full
    queue wait for room.

    .. warning::
       There is no ``queue_ref`` (a queue here is a Python object, not a resource
       handle), ``shared_name`` is not supported, and ``name`` is TF's eager name,
       ``"Empty"``. The queue name inside error texts is a per-process counter, as TF's.
    """

    _kind = "QueueBase"

    def __init__(self, dtypes, shapes, names, capacity: int = -1, shared_name=None):
        """Builds the queue's state (subclasses pass their checked arguments)."""
        if shared_name is not None:
            raise NotImplementedError(
                "tapejax.queue does not share queues by shared_name; pass the queue object "
                "to the threads that use it."
            )
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(self._dtypes):
                types = ", ".join(_tf_name(d) for d in self._dtypes)
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Different number of component types.  Types: {types}, "
                    f"Shapes: {[TensorShape(s).as_list() for s in shapes]}",
                )
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None:
            if len(names) != len(self._dtypes):
                raise ValueError(
                    "Queue names must have the same length as dtypes,"
                    f"received len(names)={len(names)},len {len(self._dtypes)}"
                )
            self._names = names
        else:
            self._names = None
        self._capacity = capacity
        self._elements: list = []
        self._closed = False
        self._cancelled = False
        self._cond = threading.Condition()
        self._id = str(next(_IDS))
        self._name = "Empty"

    @property
    def name(self) -> str:
        """The queue's name (TF's eager queues are all named ``"Empty"``)."""
        return self._name

    @property
    def dtypes(self) -> list:
        """The list of the components' dtypes."""
        return self._dtypes

    @property
    def shapes(self) -> list:
        """The list of the components' static shapes."""
        return self._shapes

    @property
    def names(self):
        """The list of the components' names, or ``None``."""
        return self._names

    # -- element storage (the subclasses' orders) ------------------------------------
    def _put(self, element: list) -> None:
        self._elements.append(element)

    def _take(self) -> list:
        return self._elements.pop(0)

    def _available(self) -> int:
        return len(self._elements)

    # -- conversion ------------------------------------------------------------------
    def _components(self, vals) -> list:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match "
                    f"names of Queue.  Dictionary: {sorted(vals.keys())},"
                    f"Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        tensors = [
            convert_to_tensor(v, dtype=d, name=f"component_{i}")
            for i, (v, d) in enumerate(zip(vals, self._dtypes))
        ]
        if len(tensors) != len(self._dtypes):
            have = ", ".join(["resource"] + [_tf_name(t.dtype) for t in tensors])
            want = ", ".join(["resource"] + [_tf_name(d) for d in self._dtypes])
            raise InvalidArgumentError(
                None, None, f"Signature mismatch, have: {have}-> expected: {want}->"
            )
        return tensors

    def _result(self, arrays: list):
        tensors = [convert_to_tensor(a, dtype=d) for a, d in zip(arrays, self._dtypes)]
        if self._names:
            return dict(zip(self._names, tensors))
        return tensors[0] if len(tensors) == 1 else tensors

    # -- ops -------------------------------------------------------------------------
    def enqueue(self, vals, name=None) -> None:
        """Enqueues one element, waiting while the queue is full.

        Args:
          vals: a tensor, a list or tuple of tensors, or a dict by ``names``.
          name: ignored (TF's op name).

        Raises:
          CancelledError: the queue is closed, or is closed with
            ``cancel_pending_enqueues=True`` while this waits.
          ValueError: a component's shape does not fit the queue's shapes.

        >>> q = FIFOQueue(3, "int32")
        >>> q.enqueue(1)
        >>> int(q.size())
        1
        """
        del name
        _no_function("enqueue")
        tensors = self._components(vals)
        for t, shape in zip(tensors, self._shapes):
            t.shape.assert_is_compatible_with(shape)
        self._enqueue_elements([[np.asarray(t) for t in tensors]])

    def enqueue_many(self, vals, name=None) -> None:
        """Enqueues the slices along axis 0 of each component, waiting for room.

        Args:
          vals: a tensor, a list or tuple of tensors, or a dict by ``names``; every
            component has the same size in its first dimension.
          name: ignored (TF's op name).

        Raises:
          CancelledError: as ``enqueue``.
          ValueError: a component of rank 0, batch sizes that differ, or element shapes
            that do not fit the queue's shapes.
        """
        del name
        _no_function("enqueue_many")
        tensors = self._components(vals)
        batch = tensors[0].shape.with_rank_at_least(1)[0]
        for t, shape in zip(tensors, self._shapes):
            size = t.shape.with_rank_at_least(1)[0]
            if size != batch:
                raise ValueError(f"Dimensions {batch} and {size} are not compatible")
            t.shape[1:].assert_is_compatible_with(shape)
        arrays = [np.asarray(t) for t in tensors]
        self._enqueue_elements([[a[i] for a in arrays] for i in range(batch)])

    def _closed_error(self):
        return CancelledError(None, None, f"{self._kind} '{self._id}' is closed.")

    def _enqueue_elements(self, elements: list) -> None:
        with self._cond:
            if self._closed:
                raise self._closed_error()
            for element in elements:
                while 0 <= self._capacity <= len(self._elements):
                    if self._cancelled:
                        raise self._closed_error()
                    self._cond.wait()
                if self._cancelled:
                    raise self._closed_error()
                self._put(element)
                self._cond.notify_all()

    def _dequeue_elements(self, n: int, up_to: bool) -> list:
        with self._cond:
            while True:
                if self._closed:
                    size = len(self._elements)
                    if size >= n or (up_to and size > 0):
                        break
                    raise OutOfRangeError(
                        None,
                        None,
                        f"{self._kind} '{self._id}' is closed and has insufficient elements "
                        f"(requested {n}, current size {size})",
                    )
                if self._available() >= n:
                    break
                self._cond.wait()
            taken = [self._take() for _ in range(min(n, len(self._elements)))]
            self._cond.notify_all()
            return taken

    def dequeue(self, name=None):
        """Dequeues one element, waiting while the queue is empty.

        Returns:
          A tensor (one component), a list of tensors, or a dict by ``names``.

        Raises:
          OutOfRangeError: the queue is closed and empty.
        """
        del name
        _no_function("dequeue")
        (element,) = self._dequeue_elements(1, up_to=False)
        return self._result(element)

    def _batch_shapes_known(self) -> None:
        if any(not s.is_fully_defined() for s in self._shapes):
            raise InvalidArgumentError(
                None,
                None,
                f"{self._kind}'s DequeueMany and DequeueUpTo require the components to have "
                "specified shapes.",
            )

    def _stack(self, elements: list) -> list:
        return [
            np.stack([e[i] for e in elements])
            if elements
            else np.zeros((0, *s.as_list()), d.as_numpy_dtype)
            for i, (s, d) in enumerate(zip(self._shapes, self._dtypes))
        ]

    def _dequeue_batch(self, n, up_to: bool, op: str):
        _no_function(op)
        self._batch_shapes_known()
        n = int(np.asarray(n))
        if n < 0:
            op_name = "DequeueUpToOp" if up_to else "DequeueManyOp"
            raise InvalidArgumentError(None, None, f"{op_name} requested {n} < 0 elements")
        return self._result(self._stack(self._dequeue_elements(n, up_to)))

    def dequeue_many(self, n, name=None):
        """Dequeues ``n`` elements, stacked along a new first axis; waits for all ``n``.

        Raises:
          OutOfRangeError: the queue is closed with fewer than ``n`` elements.
          InvalidArgumentError: a component's shape is not fully known.
        """
        del name
        return self._dequeue_batch(n, False, "dequeue_many")

    def dequeue_up_to(self, n, name=None):
        """Dequeues ``n`` elements, or what is left (at least one) once the queue is closed.

        Raises:
          OutOfRangeError: the queue is closed and empty.
          InvalidArgumentError: a component's shape is not fully known.
        """
        del name
        return self._dequeue_batch(n, True, "dequeue_up_to")

    def close(self, cancel_pending_enqueues: bool = False, name=None) -> None:
        """Closes the queue: enqueues fail, dequeues take what is left, then fail.

        Args:
          cancel_pending_enqueues: also fail the enqueues now waiting for room.
          name: ignored (TF's op name).
        """
        del name
        _no_function("close")
        with self._cond:
            self._closed = True
            self._cancelled = self._cancelled or cancel_pending_enqueues
            self._cond.notify_all()

    def is_closed(self, name=None):
        """A scalar bool tensor: whether the queue is closed."""
        del name
        _no_function("is_closed")
        return convert_to_tensor(self._closed, dtype=bool_)

    def size(self, name=None):
        """A scalar int32 tensor: the number of elements in the queue."""
        del name
        _no_function("size")
        with self._cond:
            return convert_to_tensor(len(self._elements), dtype=int32)


def _tf_name(dtype) -> str:
    return _TF_TYPE_NAMES.get(dtype.name, dtype.name)


class FIFOQueue(QueueBase):
    """A queue that gives its elements in the order they came (``tf.queue.FIFOQueue``).

    >>> q = FIFOQueue(3, "int32", shapes=[[]])
    >>> q.enqueue_many(([1, 2, 3],))
    >>> q.dequeue_many(2).numpy().tolist()
    [1, 2]
    """

    _kind = "FIFOQueue"

    def __init__(
        self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"
    ):
        del name
        dtypes = _dtype_list(dtypes)
        names = _name_list(names, dtypes)
        super().__init__(dtypes, _shape_list(shapes), names, capacity, shared_name)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads ``None`` dimensions with zeros.

    ``shapes`` is a list of one shape per component; a ``None`` dimension takes each
    batch's largest size, shorter elements padded with zeros at the end.
    """

    _kind = "FIFOQueue"  # TF's texts name it so

    def __init__(
        self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"
    ):
        del name
        dtypes = _dtype_list(dtypes)
        names = _name_list(names, dtypes)
        shapes = _shape_list(shapes, unknown_dim_allowed=True)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, "
                f"but received {len(dtypes)} dtypes and {len(shapes)} shapes."
            )
        super().__init__(dtypes, shapes, names, capacity, shared_name)

    def _batch_shapes_known(self) -> None:
        if any(s.rank is None for s in self._shapes):
            super()._batch_shapes_known()

    def _stack(self, elements: list) -> list:
        out = []
        for i, (s, d) in enumerate(zip(self._shapes, self._dtypes)):
            parts = [e[i] for e in elements]
            dims = [
                max([p.shape[k] for p in parts], default=0) if dim is None else dim
                for k, dim in enumerate(s.as_list())
            ]
            batch = np.zeros((len(parts), *dims), d.as_numpy_dtype)
            for j, p in enumerate(parts):
                batch[(j, *(slice(0, n) for n in p.shape))] = p
            out.append(batch)
        return out


class PriorityQueue(QueueBase):
    """A queue that gives the element of least int64 priority first (``tf.queue.PriorityQueue``).

    Every element's first component is its scalar int64 priority, ahead of ``types``.
    Ties come out in the order of TF's heap (libstdc++'s ``std::priority_queue``),
    reproduced here step for step, not in insertion order.
    """

    _kind = "PriorityQueue"

    def __init__(
        self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"
    ):
        del name
        types = _dtype_list(types)
        shapes = _shape_list(shapes)
        dtypes = [int64, *types]
        shapes = [TensorShape([]), *shapes] if shapes is not None else None
        super().__init__(dtypes, shapes, names, capacity, shared_name)

    # libstdc++'s push_heap / pop_heap with TF's comparison (greater priority sinks).
    @staticmethod
    def _below(a, b) -> bool:
        return int(a[0]) > int(b[0])

    def _sift_up(self, hole: int, top: int, value) -> None:
        heap = self._elements
        parent = (hole - 1) // 2
        while hole > top and self._below(heap[parent], value):
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = value

    def _put(self, element: list) -> None:
        self._elements.append(element)
        self._sift_up(len(self._elements) - 1, 0, element)

    def _take(self) -> list:
        heap = self._elements
        top = heap[0]
        n = len(heap) - 1
        if n > 0:
            value = heap[-1]
            heap[-1] = top
            hole = second = 0
            while second < (n - 1) // 2:
                second = 2 * (second + 1)
                if self._below(heap[second], heap[second - 1]):
                    second -= 1
                heap[hole] = heap[second]
                hole = second
            if n % 2 == 0 and second == (n - 2) // 2:
                second = 2 * (second + 1)
                heap[hole] = heap[second - 1]
                hole = second - 1
            self._sift_up(hole, 0, value)
        heap.pop()
        return top


class RandomShuffleQueue(QueueBase):
    """A queue that gives its elements in a random order (``tf.queue.RandomShuffleQueue``).

    Until the queue is closed, a dequeue leaves at least ``min_after_dequeue`` elements.

    .. warning::
       TF draws with its kernel's Philox generator, which cannot be reproduced: the
       order here comes from ``numpy.random.default_rng`` seeded from ``seed`` (and
       ``seed2``). Every element still comes out exactly once.
    """

    _kind = "RandomShuffleQueue"

    def __init__(
        self,
        capacity,
        min_after_dequeue,
        dtypes,
        shapes=None,
        names=None,
        seed=None,
        shared_name=None,
        name="random_shuffle_queue",
    ):
        del name
        dtypes = _dtype_list(dtypes)
        names = _name_list(names, dtypes)
        super().__init__(dtypes, _shape_list(shapes), names, capacity, shared_name)
        if min_after_dequeue >= capacity:
            raise InvalidArgumentError(
                None,
                None,
                f"min_after_dequeue {min_after_dequeue} must be < capacity {capacity}",
            )
        self._min_after_dequeue = min_after_dequeue
        self._rng = np.random.default_rng(seed)

    def _available(self) -> int:
        return len(self._elements) - self._min_after_dequeue

    def _take(self) -> list:
        i = int(self._rng.integers(len(self._elements)))
        self._elements[i], self._elements[-1] = self._elements[-1], self._elements[i]
        return self._elements.pop()
