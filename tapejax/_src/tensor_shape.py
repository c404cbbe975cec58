"""``TensorShape``: TF's shape object, a sequence of ``int`` or ``None`` dimensions.

Only what eager code and error messages need: known or partially known shapes,
``as_list``, ``rank``, compatibility and the ``with_rank*`` checks with TF's texts.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["TensorShape", "as_shape"]


def _dimension(d) -> int | None:
    """TF's ``Dimension(d).value``: None, or a non-negative int (anything with __index__)."""
    if d is None:
        return None
    if not isinstance(d, int):
        try:
            d = int(d.__index__())
        except (AttributeError, TypeError):
            raise TypeError(
                "Dimension value must be integer or None or have an __index__ method, got "
                f"value '{d!r}' with type '{type(d)!r}'"
            ) from None
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


class TensorShape:
    """The shape of a tensor, as ``tf.TensorShape``.

    Example:
        >>> import tapejax as tf
        >>> s = tf.TensorShape([2, None])
        >>> s.rank, s.as_list(), s.is_fully_defined()
        (2, [2, None], False)
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable | int | None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (list, tuple)):
            self._dims = tuple(_dimension(d) for d in dims)
        else:
            try:
                items = iter(dims)
            except TypeError:  # a single dimension, as TF reads TensorShape(3)
                self._dims = (_dimension(dims),)
                return
            out = []
            for d in items:
                try:
                    out.append(_dimension(d))
                except TypeError as e:
                    raise TypeError(
                        f"Failed to convert '{dims!r}' to a shape: '{d!r}'could not be converted "
                        "to a dimension. A shape should either be single dimension (e.g. 10), or "
                        "an iterable of dimensions (e.g. [1, 10, None])."
                    ) from e
            self._dims = tuple(out)

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def most_specific_compatible_shape(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        pairs = zip(self._dims, other._dims, strict=True)
        return TensorShape([a if a == b else None for a, b in pairs])

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:  # TF: an unknown shape becomes one of that rank
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> bool:
        return self._dims is not None

    def __eq__(self, other) -> bool:
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __add__(self, other) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other) -> TensorShape:
        return as_shape(other).concatenate(self)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def as_shape(shape) -> TensorShape:
    """Converts anything ``TensorShape`` accepts (list, tuple, int, None ...)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)
