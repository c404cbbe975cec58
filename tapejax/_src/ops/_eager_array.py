"""The eager ``TensorArray``: TF's ``_EagerTensorArray``, a Python list of Tensors changed in
place, with TF eager's checks, error texts and quirks (``clear_after_read``, negative
``gather`` indices). Its operations are ordinary ops on the element Tensors, so tapes
differentiate through it as through any op.

It must never hold a tracer of a program being traced (it would outlive the trace):
``tracing()`` tells where TF would build a graph instead, and ``TensorArray`` makes the
traced array there.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..errors import InvalidArgumentError, OpError, OutOfRangeError
from ..function import building
from ..tensor import Tensor
from ..tensor_shape import TensorShape, as_shape
from ._array_common import _concrete
from ._helpers import to_tensor
from .creation_ops import zeros
from .join_split_ops import concat, split, stack, unstack
from .math_ops import cast
from .reduction_ops import reduce_sum

__all__ = ["EagerArray", "tracing"]


def tracing() -> bool:
    """Whether TF would build a graph here: inside ``tapejax.function`` or a JAX trace."""
    return building() or isinstance(jnp.zeros((), jnp.bool_), jax.core.Tracer)


def _numpy(x):
    """TF eager's ``x.numpy()`` for EagerTensors (tapejax Tensors); other values unchanged."""
    if isinstance(x, Tensor):
        _refuse_staged(x)
        return x.numpy()
    return x


def _refuse_staged(*tensors) -> None:
    """Raises if an eager array meets a tensor of a program being traced (it would keep a
    tracer past its trace). Tracers of ``jax.grad``/``jax.vmap`` are fine: a list holds them
    as TF eager's list would."""
    if not all(_concrete(t) for t in tensors) and tracing():
        raise _captured()


def _captured() -> NotImplementedError:
    return NotImplementedError(
        "Attempting to build a graph-mode TF2-style TensorArray from either an eager-mode "
        "TensorArray or a TF1-style TensorArray.  This is not currently supported.  You may "
        "be attempting to capture a TensorArray inside a tf.function or tf.data map "
        "function. Instead, construct a new TensorArray inside the function."
    )


class EagerArray:
    """TF's ``_EagerTensorArray``: a Python list of Tensors (None where unwritten)."""

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        handle=None,
        infer_shape=True,
        element_shape=None,
    ):
        if handle is not None:
            raise ValueError(
                "TensorArray handles are not supported when eager execution is enabled."
            )
        if size is None:
            raise ValueError(
                "Size must be declared for TensorArrays when eager execution is enabled."
            )
        self._flow = convert_to_tensor(np.int32(0))
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._np = canonical_np_dtype(self._dtype._np)
        self._dynamic_size = dynamic_size or False
        self._clear_after_read = True if clear_after_read is None else clear_after_read
        self._previously_read_indices: list = []
        self._tensor_array = [None for _ in range(_numpy(size))]
        self.parent = None

    @property
    def flow(self):
        return self._flow

    @property
    def handle(self):
        return None

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    def identity(self):
        return self.parent()

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient "
            "implementation does not use/need this function to compute gradients of "
            "operations that use TensorArrays."
        )

    def read(self, index, name=None):
        index = _numpy(index)
        if index < 0:
            raise OutOfRangeError(
                None, None, f"Reading from negative indices (index {int(index)}) is not allowed."
            )
        if index >= len(self._tensor_array):
            raise OutOfRangeError(
                None,
                None,
                f"Tried to read from index {int(index)} but array size is: "
                f"{len(self._tensor_array)} ",
            )
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read_indices:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Could not read index {int(index)} twice because it was cleared after a "
                    "previous read (perhaps try setting clear_after_read = false?)",
                )
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read_indices.append(index)
        return tensor

    def _write(self, index, value):
        index = _numpy(index)
        if index < 0:
            raise OutOfRangeError(
                None, None, f"Writing to negative indices (index {int(index)}) is not allowed."
            )
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(
                    None,
                    None,
                    f"Tried to write to index {int(index)} but array is not resizeable and "
                    f"size is: {size} ",
                )
            self._tensor_array.extend(None for _ in range(index - size + 1))
        if type(value) is not Tensor:
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        _refuse_staged(value)
        if self._np != value._v.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                f"{value.dtype.name} ",
            )
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})"
            )
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value

    def write(self, index, value, name=None):
        self._write(index, value)
        return self.parent()

    def _maybe_zero(self, ix):
        val = self._tensor_array[ix]
        if val is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(
                    f"Cannot convert a partially known TensorShape {self._element_shape} to a "
                    "Tensor."
                )
            val = self._tensor_array[ix] = zeros(self._element_shape.as_list(), self._dtype)
        return val

    def stack(self, name=None):
        if self._tensor_array:
            for ix in range(len(self._tensor_array)):
                self._maybe_zero(ix)
        if not self._tensor_array and self._element_shape.is_fully_defined():
            return zeros([0] + self._element_shape.as_list(), self._dtype)
        if not self._tensor_array:
            return zeros([0], self._dtype)
        # As TF's conversion of a list: elements of another dtype are cast.
        return stack([_cast_to(t, self._dtype) for t in self._tensor_array])

    def gather(self, indices, name=None):
        indices = _numpy(indices)
        return stack([self._maybe_zero(i) for i in indices])

    def concat(self, name=None):
        values = [self._maybe_zero(ix) for ix in range(len(self._tensor_array))]
        if not values:
            raise InvalidArgumentError(
                None, None, "ConcatOp : Expected at least one input to concatenate [Op:ConcatV2]"
            )
        try:
            return concat(values, 0)
        except OpError:
            ndims = [t.ndim for t in self._tensor_array]
            if 0 in ndims:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Concat saw a scalar shape at index {ndims.index(0)} but requires at least "
                    "vectors.",
                ) from None
            raise

    def unstack(self, value, name=None):
        tensors = unstack(value)
        _refuse_staged(*tensors)
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(
                f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                f"{len(self._tensor_array)} "
            )
        self._tensor_array = tensors
        return self.parent()

    def scatter(self, indices, value, name=None):
        indices = _numpy(indices)
        for index, val in zip(indices, unstack(value)):
            self._write(index, val)
        return self.parent()

    def split(self, value, lengths, name=None):
        if type(value) is not Tensor:
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = to_tensor(lengths)
        sum_lengths = reduce_sum(lengths)
        if lengths.shape.ndims != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected lengths to be a vector, received shape: {lengths.shape.as_list()} ",
            )
        elif value.shape.ndims == 0:
            raise InvalidArgumentError(
                None,
                None,
                "Expected value to be at least a vector, but received shape: "
                f"{value.shape.as_list()} ",
            )
        elif sum_lengths.numpy() != value.shape.as_list()[0]:
            raise InvalidArgumentError(
                None,
                None,
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{int(sum_lengths.numpy())} and value's shape is: {value.shape.as_list()} ",
            )
        elif not self._dynamic_size and lengths.shape[0] != len(self._tensor_array):
            raise InvalidArgumentError(
                None,
                None,
                "TensorArray's size is not equal to the size of lengths "
                f"({len(self._tensor_array)} vs. {lengths.shape[0]}), and the TensorArray is "
                "not marked as dynamically resizeable.",
            )
        pieces = split(value, lengths)
        _refuse_staged(*pieces)
        self._tensor_array = pieces
        return self.parent()

    def size(self, name=None):
        return convert_to_tensor(np.int32(len(self._tensor_array)))

    def close(self, name=None):
        del self._tensor_array[:]


def _cast_to(t: Tensor, dtype) -> Tensor:
    return t if t._v.dtype == canonical_np_dtype(dtype._np) else cast(t, dtype)
