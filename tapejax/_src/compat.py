"""TF's ``tf.compat`` helpers: string and path conversions, the Python type tuples,
``dimension_value``/``dimension_at_index`` and the forward-compatibility date.

Ported from TF 2.21's ``python/util/compat.py``, ``python/compat/compat.py`` and
``python/framework/tensor_shape.py`` so that results, exception types and texts are TF's,
including TF's quirks (``as_text`` formats a tuple argument with ``%``). It must never
import TensorFlow, nor anything of tapejax but ``TensorShape`` and the logger.
"""

from __future__ import annotations

import codecs
import contextlib
import datetime
import numbers
import os
from typing import Any

import numpy as np

from .tensor_shape import TensorShape
from .tf_logging import logger

__all__ = [
    "NamespaceNotProvidedError",
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
]

# TF's tuples: they hold Python's abstract number classes and NumPy's, no TF class, so
# tapejax's are the same objects.
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """Converts a ``bytearray``, ``bytes`` or ``str`` to ``bytes`` (``tf.compat.as_bytes``).

    Args:
        bytes_or_text: A ``bytearray``, ``bytes`` or ``str``.
        encoding: The codec for ``str`` input.

    Returns:
        ``bytes`` (a ``bytes`` subclass, such as ``numpy.bytes_``, is returned as it is).

    Raises:
        TypeError: ``bytes_or_text`` is none of those types.
        LookupError: ``encoding`` is not a codec.

    Example:
        >>> import tapejax as tf
        >>> tf.compat.as_bytes("é"), tf.compat.as_bytes(bytearray(b"ab"))
        (b'\\xc3\\xa9', b'ab')
    """
    encoding = codecs.lookup(encoding).name  # a bad encoding raises even for bytes input
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """Converts ``bytes`` or ``str`` to ``str`` (``tf.compat.as_text``).

    Args:
        bytes_or_text: A ``bytes`` or ``str``.
        encoding: The codec for ``bytes`` input.

    Returns:
        ``str`` (a ``str`` subclass, such as ``numpy.str_``, is returned as it is).

    Raises:
        TypeError: ``bytes_or_text`` is neither (a ``bytearray`` included, as in TF).
        UnicodeDecodeError: the bytes are not valid in ``encoding``.
        LookupError: ``encoding`` is not a codec.

    Example:
        >>> import tapejax as tf
        >>> tf.compat.as_text(b"\\xc3\\xa9")
        'é'
    """
    encoding = codecs.lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    # TF formats the value itself with ``%``: a tuple argument gives Python's formatting
    # error, or its one element, and tapejax gives the same.
    raise TypeError("Expected binary or unicode string, got %r" % bytes_or_text)  # noqa: UP031


def as_str(bytes_or_text, encoding: str = "utf-8") -> str:
    """``as_text`` under TF's other name (``tf.compat.as_str``).

    Example:
        >>> import tapejax as tf
        >>> tf.compat.as_str(b"abc")
        'abc'
    """
    return as_text(bytes_or_text, encoding)


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """``as_str`` for ``bytes``, ``str(value)`` for anything else (``tf.compat.as_str_any``).

    Example:
        >>> import tapejax as tf
        >>> tf.compat.as_str_any(b"abc"), tf.compat.as_str_any([1])
        ('abc', '[1]')
    """
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path: Any) -> Any:
    """An ``os.PathLike``'s path as ``str``; any other value is returned as it is
    (``tf.compat.path_to_str``).

    Example:
        >>> import pathlib
        >>> import tapejax as tf
        >>> tf.compat.path_to_str(pathlib.PurePosixPath("./a/b")), tf.compat.path_to_str(3)
        ('a/b', 3)
    """
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


def dimension_value(dimension: int | None) -> int | None:
    """The plain value of a shape's dimension (``tf.compat.dimension_value``).

    tapejax's ``TensorShape`` holds its dimensions as ``int`` or ``None`` (it has no
    ``Dimension`` class, TF 1's), so this returns its argument.

    Args:
        dimension: An ``int`` or ``None``, e.g. ``shape[i]`` or ``shape.dims[i]``.

    Returns:
        ``dimension``.

    Example:
        >>> import tapejax as tf
        >>> shape = tf.TensorShape([2, None])
        >>> tf.compat.dimension_value(shape.dims[0]), tf.compat.dimension_value(shape[1])
        (2, None)

    .. warning:: TF's returns ``Dimension.value`` for a TF 1 ``Dimension`` object; tapejax
       has none and returns whatever it is given.
    """
    return dimension


def dimension_at_index(shape: TensorShape, index: int) -> int | None:
    """The dimension of ``shape`` at ``index``, ``None`` if the rank is unknown
    (``tf.compat.dimension_at_index``).

    Args:
        shape: A ``tapejax.TensorShape``.
        index: An integer index.

    Returns:
        An ``int`` or ``None``.

    Raises:
        AssertionError: ``shape`` is not a ``TensorShape`` (TF's bare ``assert``).
        IndexError: ``index`` is out of range for a shape of known rank.

    Example:
        >>> import tapejax as tf
        >>> tf.compat.dimension_at_index(tf.TensorShape([2, 3]), 1)
        3
        >>> tf.compat.dimension_at_index(tf.TensorShape(None), 5) is None
        True

    .. warning:: TF returns a TF 1 ``Dimension`` (``Dimension(3)``, ``Dimension(None)``);
       tapejax returns its value, ``3`` or ``None`` (which compares equal to it).
    """
    if not isinstance(shape, TensorShape):
        raise AssertionError()
    if shape.rank is None:
        return None
    return shape.dims[index]


# TF 2.21.0's ``_FORWARD_COMPATIBILITY_HORIZON`` (tensorflow/python/compat/compat.py), the
# date TF's release was cut from; TF's nightly builds move it forward daily.
_FORWARD_COMPATIBILITY_HORIZON = datetime.date(2026, 1, 16)
_FORWARD_COMPATIBILITY_DELTA_DAYS_VAR_NAME = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_FORWARD_COMPATIBILITY_DATE_NUMBER = None


def _date_to_date_number(year, month, day):
    return (year << 9) | (month << 5) | day


def _update_forward_compatibility_date_number(date_to_override=None):
    """Sets the date ``forward_compatible`` compares with: the override, or the horizon
    moved by TF's environment variable; a date before the horizon is ignored, with TF's
    warning."""
    global _FORWARD_COMPATIBILITY_DATE_NUMBER
    if date_to_override:
        date = date_to_override
    else:
        date = _FORWARD_COMPATIBILITY_HORIZON
        delta_days = os.getenv(_FORWARD_COMPATIBILITY_DELTA_DAYS_VAR_NAME)
        if delta_days:
            date += datetime.timedelta(days=int(delta_days))
    if date < _FORWARD_COMPATIBILITY_HORIZON:
        logger.warning(
            f"Trying to set the forward compatibility date to the past date {date}. This will "
            "be ignored by TensorFlow."
        )
        return
    _FORWARD_COMPATIBILITY_DATE_NUMBER = _date_to_date_number(date.year, date.month, date.day)


_update_forward_compatibility_date_number()


def forward_compatible(year: int, month: int, day: int) -> bool:
    """Whether the forward-compatibility window of ``(year, month, day)`` has passed
    (``tf.compat.forward_compatible``).

    True when TF 2.21's horizon (2026-01-16, moved by ``TF_FORWARD_COMPATIBILITY_DELTA_DAYS``
    days when that is set at import, or set by ``forward_compatibility_horizon``) is after
    the date. Dates are compared as TF packs them, ``year << 9 | month << 5 | day``, so an
    out-of-range month or day is not an error.

    Example:
        >>> import tapejax as tf
        >>> tf.compat.forward_compatible(2026, 1, 15), tf.compat.forward_compatible(2026, 1, 16)
        (True, False)
    """
    return _FORWARD_COMPATIBILITY_DATE_NUMBER > _date_to_date_number(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year: int, month: int, day: int):
    """Within the block, ``forward_compatible`` compares with ``(year, month, day)``
    (``tf.compat.forward_compatibility_horizon``).

    A date before TF 2.21's horizon is ignored with TF's warning; on exit the date is the
    default again (not an enclosing block's, as in TF).

    Raises:
        ValueError: the date is not a valid ``datetime.date``.

    Example:
        >>> import tapejax as tf
        >>> with tf.compat.forward_compatibility_horizon(2030, 1, 1):
        ...     tf.compat.forward_compatible(2029, 12, 31)
        True
    """
    try:
        _update_forward_compatibility_date_number(datetime.date(year, month, day))
        yield
    finally:
        _update_forward_compatibility_date_number()


class NamespaceNotProvidedError(NotImplementedError, AttributeError):
    """A TF namespace tapejax deliberately lacks (``tf.compat.v1``).

    A ``NotImplementedError``, whose text names the TF namespace and what to use instead,
    and an ``AttributeError``, so that ``hasattr`` and ``getattr(module, name, default)``
    still answer "absent" as they do for any missing attribute.
    """
