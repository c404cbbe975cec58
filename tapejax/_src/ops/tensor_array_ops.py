"""``tf.TensorArray``: a list of same-dtype tensors written one index at a time, as TF 2.21
has it eagerly and inside ``tf.function``.

``TensorArray`` picks its implementation when it is made, as TF does:

* **eagerly** ``EagerArray`` (``_eager_array.py``, TF's ``_EagerTensorArray``): a Python
  list of Tensors changed in place (``write`` returns the same array);
* **inside ``tapejax.function``** (its eager first call included, so that every call
  behaves alike) **and JAX transforms**, ``TracedArray`` (``_tensor_list.py``, TF's
  TensorList-backed graph array): every operation returns a new array.

``while_loop`` and ``cond`` carry a traced array as the Tensors it is made of
(``flatten_arrays`` / ``unflatten_arrays``). This module must never read a traced value.
"""

from __future__ import annotations

import weakref

from .. import dtypes, nest
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from ._eager_array import EagerArray, tracing
from ._tensor_list import TracedArray

__all__ = ["TensorArray", "flatten_arrays", "unflatten_arrays"]


class TensorArray:
    """A list of same-dtype tensors for loops, written one index at a time (``tf.TensorArray``).

    Eagerly it is a Python list changed in place; inside ``tapejax.function`` (or a JAX
    transform) every operation returns a new ``TensorArray``: always use the one returned,
    as TF asks. Tapes differentiate from ``read``/``stack``/``gather``/``concat`` back to
    the values written, unstacked, scattered or split. As a loop variable of
    ``tapejax.while_loop`` it becomes one buffer ``[size, *element_shape]`` carried by the
    loop.

    Args:
      dtype: the elements' dtype.
      size: the number of elements (a Python int, or a tensor known while tracing).
      dynamic_size: writes past ``size`` grow the array. In a traced ``while_loop`` the
        array can only grow by the loop's ``maximum_iterations``.
      clear_after_read: eagerly, an element reads once (then ``InvalidArgumentError``),
        unless ``False``; TF ignores it inside functions, and so does tapejax.
      tensor_array_name: unused, as in TF 2.
      handle, flow: TF1's handles; not supported (TF 2 eager: ``ValueError`` for ``handle``).
      infer_shape: all elements share one shape, learnt from the first write.
      element_shape: the elements' shape (may be partial).
      colocate_with_first_write_call, name: unused, as in TF 2.

    Example:
        >>> import tapejax as tf
        >>> ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
        >>> ta = ta.write(0, 10.0).write(1, 20.0).write(2, 30.0)
        >>> ta.stack().numpy().tolist(), float(ta.read(1))
        ([10.0, 20.0, 30.0], 20.0)

    In a loop (also inside ``tapejax.function``, where the loop is one XLA loop):

        >>> def body(t, ta):
        ...     return t + 1, ta.write(t, tf.cast(t, tf.float32) ** 2)
        >>> _, ta = tf.while_loop(lambda t, ta: t < 4, body,
        ...                       [tf.constant(0), tf.TensorArray(tf.float32, size=4)])
        >>> ta.stack().numpy().tolist()
        [0.0, 1.0, 4.0, 9.0]

    .. warning::
       Inside ``tapejax.function``: ``size`` must be known while tracing;
       ``dynamic_size=True`` written at a traced index needs a ``while_loop`` with a
       Python-int ``maximum_iterations`` (the array then holds ``size +
       maximum_iterations`` elements, and ``stack`` returns them all: rows never written
       are zeros, where TF returns only the written length); an index known only at run
       time is not checked (an out-of-range write is dropped and an out-of-range read gives
       zeros, where TF raises); elements of different shapes cannot meet a traced index or
       loop. A ``tapejax.function`` cannot return a ``TensorArray`` (TF can). ``flow`` is a
       placeholder scalar, not TF's variant tensor.
    """

    _is_tensor_array = True

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        del tensor_array_name, colocate_with_first_write_call
        if tracing():
            impl = TracedArray(
                dtype, size, dynamic_size, handle, flow, infer_shape, element_shape, name
            )
        else:
            del flow  # TF eager ignores it
            impl = EagerArray(
                dtype, size, dynamic_size, clear_after_read, handle, infer_shape, element_shape
            )
        self._implementation = impl
        impl.parent = weakref.ref(self)

    @classmethod
    def _wrap(cls, impl) -> TensorArray:
        self = object.__new__(cls)
        self._implementation = impl
        impl.parent = weakref.ref(self)
        return self

    def _result(self, impl) -> TensorArray:
        return self if impl is self else TensorArray._wrap(impl)

    @property
    def flow(self):
        """A placeholder scalar (TF's is the variant tensor that orders the array's ops)."""
        return self._implementation.flow

    @property
    def dtype(self) -> dtypes.DType:
        """The elements' dtype."""
        return self._implementation._dtype

    @property
    def handle(self):
        """None, as TF 2 has it."""
        return self._implementation.handle

    @property
    def element_shape(self) -> TensorShape:
        """The elements' ``TensorShape`` (known once an element is written)."""
        return self._implementation.element_shape

    @property
    def dynamic_size(self):
        """Whether writes can grow the array."""
        return self._implementation._dynamic_size

    @property
    def _infer_shape(self) -> bool:
        return self._implementation._infer_shape

    def identity(self) -> TensorArray:
        """A TensorArray with the same content (eagerly: this one)."""
        return self._result(self._implementation.identity())

    def grad(self, source, flow=None, name=None):
        """TF1's gradient arrays: not needed by tapes (``NotImplementedError``)."""
        return self._implementation.grad(source, flow=flow, name=name)

    def read(self, index, name=None) -> Tensor:
        """The element at ``index`` (zeros when unwritten and the element shape is known)."""
        return self._implementation.read(index, name=name)

    def write(self, index, value, name=None) -> TensorArray:
        """Writes ``value`` at ``index``; returns the array to use from now on."""
        return self._result(self._implementation.write(index, value, name=name))

    def stack(self, name=None) -> Tensor:
        """All elements stacked on a new first axis."""
        return self._implementation.stack(name=name)

    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices``, stacked."""
        return self._implementation.gather(indices, name=name)

    def concat(self, name=None) -> Tensor:
        """All elements concatenated along their first axis."""
        return self._implementation.concat(name=name)

    def unstack(self, value, name=None) -> TensorArray:
        """Replaces the elements by the rows of ``value``; returns the array to use."""
        return self._result(self._implementation.unstack(value, name=name))

    def scatter(self, indices, value, name=None) -> TensorArray:
        """Writes the rows of ``value`` at ``indices``; returns the array to use."""
        return self._result(self._implementation.scatter(indices, value, name=name))

    def split(self, value, lengths, name=None) -> TensorArray:
        """Replaces the elements by ``value`` split into pieces of ``lengths`` rows."""
        return self._result(self._implementation.split(value, lengths, name=name))

    def size(self, name=None) -> Tensor:
        """The number of elements, an int32 scalar."""
        return self._implementation.size(name=name)

    def close(self, name=None):
        """Eagerly empties the array; inside a function does nothing."""
        return self._implementation.close(name=name)


# -- carried by while_loop and cond -------------------------------------------------------------


class _Slot:
    """Where a flattened structure held a TensorArray: its template, its part count, and
    whether a loop bound gave a ``dynamic_size`` array its room."""

    __slots__ = ("template", "n", "bounded")

    def __init__(self, template: TracedArray, n: int, bounded: bool):
        self.template = template
        self.n = n
        self.bounded = bounded


def has_arrays(structure) -> bool:
    return any(type(x) is TensorArray for x in nest.flatten(structure))


def _traced_impl(ta: TensorArray, what: str) -> TracedArray:
    impl = ta._implementation
    if not isinstance(impl, TracedArray):
        raise NotImplementedError(
            f"tapejax cannot carry a TensorArray made eagerly through a traced {what}: create "
            "it inside the tapejax.function (or the traced function) that loops over it."
        )
    return impl


def flatten_arrays(structure, what: str, grow: int | None = None, like=None):
    """``nest.flatten(structure)`` with each TensorArray replaced by the Tensors it is made of,
    and the layout that ``unflatten_arrays`` needs to rebuild them.

    ``grow``: a loop's bound, the room a ``dynamic_size`` array gets. ``like``: the layout
    the result must match (a loop body's output against its input), else TypeError.
    """
    leaves, layout = [], []
    for k, x in enumerate(nest.flatten(structure)):
        expected = like[k] if like is not None else None
        if type(x) is TensorArray:
            impl = _traced_impl(x, what)
            if like is not None and (expected is None or not expected.template.same_kind(impl)):
                raise TypeError(
                    f"{what}: loop var {k} changes kind or dtype in the body: a TensorArray "
                    "must stay a TensorArray of one dtype and dynamic_size."
                )
            if grow is None and like is None and impl._dynamic_size and what == "tf.while_loop":
                raise NotImplementedError(
                    "tapejax cannot carry a TensorArray with dynamic_size=True through a traced "
                    "tf.while_loop without a bound: its buffer needs a static size. Pass "
                    "maximum_iterations=<Python int> to tf.while_loop (the array then holds up "
                    "to size + maximum_iterations elements), or give it a fixed size=...."
                )
            parts = impl.loop_parts(grow)
            leaves.extend(parts)
            layout.append(_Slot(impl, len(parts), grow is not None))
        else:
            if expected is not None:
                raise TypeError(
                    f"{what}: loop var {k} is a TensorArray entering the body but the body "
                    f"returns {type(x).__name__}."
                )
            leaves.append(x)
            layout.append(None)
    return leaves, layout


def unflatten_arrays(leaves, layout) -> list:
    """The flat leaves ``flatten_arrays`` came from, TensorArrays rebuilt from ``leaves``."""
    out, i = [], 0
    for slot in layout:
        if slot is None:
            out.append(leaves[i])
            i += 1
        else:
            impl = slot.template.from_loop_parts(leaves[i : i + slot.n], slot.bounded)
            out.append(TensorArray._wrap(impl))
            i += slot.n
    return out


def needs_shapes(structure) -> bool:
    """Whether an array in ``structure`` has no element shape yet (a loop must find it)."""
    return any(
        type(x) is TensorArray
        and isinstance(x._implementation, TracedArray)
        and x._implementation.needs_shape()
        for x in nest.flatten(structure)
    )


def probe_arrays(structure):
    """``structure`` with shapeless arrays replaced by probes that record what is written."""
    return nest.map_structure(
        lambda x: (
            TensorArray._wrap(x._implementation.discovering())
            if type(x) is TensorArray
            and isinstance(x._implementation, TracedArray)
            and x._implementation.needs_shape()
            else x
        ),
        structure,
    )


def with_found_shapes(structure, probed, what: str):
    """``structure`` with each shapeless array given the shape its probe saw written."""
    out = []
    for x, p in zip(nest.flatten(structure), nest.flatten(probed)):
        if type(x) is TensorArray and p is not x:
            shape = p._implementation.seen_shape()
            if shape is None:
                raise NotImplementedError(
                    f"tapejax cannot tell the element shape of a TensorArray carried by a traced "
                    f"{what}: it is unwritten before the loop and the body writes no element "
                    "(or elements of several shapes). Pass element_shape=... to tf.TensorArray "
                    "(XLA buffers have static shapes)."
                )
            x = TensorArray._wrap(x._implementation.with_shape_hint(shape))
        out.append(x)
    return nest.pack_sequence_as(structure, out)


def stop_array_gradients(structure, stop_gradient):
    """``structure`` with ``stop_gradient`` applied to its tensors and arrays' buffers."""

    def stop(x):
        if type(x) is not TensorArray:
            return stop_gradient(x)
        impl = x._implementation
        if not isinstance(impl, TracedArray):
            return x
        return TensorArray._wrap(
            impl.from_loop_parts([stop_gradient(p) for p in impl.loop_parts()], False)
        )

    return nest.map_structure(stop, structure)


def same_layout(a, b) -> bool:
    """Whether two ``flatten_arrays`` layouts hold arrays of one kind at the same places."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return False
        if x is not None and (x.n != y.n or not x.template.same_kind(y.template)):
            return False
    return True


def as_if_traced(entering, leaving, bound: int):
    """``leaving`` (a loop's result) with each dynamic array given the room a traced loop of
    ``bound`` iterations gives it, as its buffer would have: for a ``tapejax.function``'s
    eager first call, so that it returns what the traced calls return."""
    out = []
    for before, after in zip(nest.flatten(entering), nest.flatten(leaving)):
        if (
            type(before) is TensorArray
            and type(after) is TensorArray
            and isinstance(before._implementation, TracedArray)
            and isinstance(after._implementation, TracedArray)
            and before._implementation._dynamic_size
        ):
            capacity = before._implementation._count() + bound
            after = TensorArray._wrap(after._implementation.bounded_to(capacity))
        out.append(after)
    return nest.pack_sequence_as(leaving, out)
