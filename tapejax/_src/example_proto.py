"""``tf.train.Example`` and its messages (``example.proto``, ``feature.proto``), by hand.

Python classes with the protobuf message API TF users use (keyword construction,
repeated and map fields, ``WhichOneof``, ``SerializeToString``, ``ParseFromString``,
text format), whose bytes are those of TF's protobuf for the same message. The wire
format comes from ``summary/protowire.py``. This module must never import protobuf or
TensorFlow: tapejax has no runtime dependency on them.
"""

from __future__ import annotations

import operator
import struct

import numpy as np

from tapejax._src.summary.protowire import bytes_field, varint

__all__ = [
    "BytesList",
    "DecodeError",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
]


class DecodeError(Exception):
    """Bytes that are not a serialized message of the type (protobuf's ``DecodeError``)."""


# ---------------------------------------------------------------------------------------
# Scalar conversions: each raises the error protobuf's upb backend raises.


def _check_int64(field: str, value) -> int:
    if isinstance(value, bool):
        raise TypeError(f"Field {field}: Expected an int, got a boolean.")
    value = operator.index(value)
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"Value out of range: {value}")
    return value


def _check_float(field: str, value) -> float:
    if isinstance(value, np.ndarray):
        raise TypeError(f"{value} has type ndarray, but expected one of: float")
    if isinstance(value, (str, bytes, bytearray)) or not hasattr(type(value), "__float__"):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    # The field is a float32: the value read back is the float32 nearest (inf past it).
    with np.errstate(over="ignore"):
        return float(np.float32(float(value)))


def _check_bytes(field: str, value) -> bytes:
    if not isinstance(value, bytes):
        raise TypeError(f"expected bytes, {type(value).__name__} found")
    return bytes(value)


def _map_key(key) -> str:
    if isinstance(key, bytes):
        return key.decode("utf-8")
    if isinstance(key, str):
        return key
    raise TypeError("bad argument type for built-in operation")


# ---------------------------------------------------------------------------------------
# Text format, as upb's text encoder (``str(message)`` in TF).


_ESCAPES = {ord("\n"): b"\\n", ord("\r"): b"\\r", ord("\t"): b"\\t"}
_ESCAPES.update({ord(c): b"\\" + c.encode() for c in "\"'\\"})


def _escape(data: bytes, raw_utf8: bool) -> str:
    # Control bytes in octal; bytes past ASCII too, except in a string (UTF-8) field.
    out = bytearray()
    for byte in data:
        if byte in _ESCAPES:
            out += _ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7F or (byte >= 0x80 and not raw_utf8):
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return out.decode("utf-8")


def _format_float(value: float) -> str:
    # Shortest of %.6g and %.9g that reads back as the same float32 (upb's choice).
    if value != value:
        return "nan"
    text = f"{value:.6g}"
    if float(np.float32(float(text))) != value:
        text = f"{value:.9g}"
    return text


# ---------------------------------------------------------------------------------------
# Wire decoding.


class _Reader:
    def __init__(self, data: bytes, type_name: str):
        self.data = data
        self.pos = 0
        self.type_name = type_name

    def corrupt(self) -> DecodeError:
        return DecodeError(
            f"Error parsing message with type '{self.type_name}': Wire format was corrupt"
        )

    def varint(self) -> int:
        result = shift = 0
        data = self.data
        for _ in range(10):
            if self.pos >= len(data):
                raise self.corrupt()
            byte = data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result & ((1 << 64) - 1)
            shift += 7
        raise self.corrupt()

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.corrupt()
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def fields(self):
        """(number, wire type, payload, raw bytes of the whole field) until the end."""
        while self.pos < len(self.data):
            start = self.pos
            key = self.varint()
            number, wire = key >> 3, key & 7
            if number == 0:
                raise self.corrupt()
            if wire == 0:
                payload = self.varint()
            elif wire == 1:
                payload = self.take(8)
            elif wire == 2:
                payload = self.take(self.varint())
            elif wire == 5:
                payload = self.take(4)
            else:
                raise self.corrupt()
            yield number, wire, payload, self.data[start : self.pos]


def _as_data(serialized) -> bytes:
    try:
        return bytes(memoryview(serialized))
    except TypeError:
        raise TypeError(f"expected bytes, {type(serialized).__name__} found") from None


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= (1 << 63) else value


# ---------------------------------------------------------------------------------------
# Containers.


class RepeatedScalarContainer:
    """A repeated ``bytes``, ``float`` or ``int64`` field: a list that checks each value."""

    def __init__(self, owner: _Message, field: _Field):
        self._owner = owner
        self._field = field
        self._values: list = []

    def _check(self, value):
        return self._field.check(self._field.full_name, value)

    def append(self, value) -> None:
        self._values.append(self._check(value))
        self._owner._modified()

    def extend(self, values) -> None:
        self._values.extend([self._check(v) for v in values])
        self._owner._modified()

    def insert(self, index: int, value) -> None:
        self._values.insert(index, self._check(value))
        self._owner._modified()

    def pop(self, index: int = -1):
        value = self._values.pop(index)
        self._owner._modified()
        return value

    def remove(self, value) -> None:
        self._values.remove(value)
        self._owner._modified()

    def sort(self, *args, **kwargs) -> None:
        self._values.sort(*args, **kwargs)

    def reverse(self) -> None:
        self._values.reverse()

    def __getitem__(self, index):
        return self._values[index]

    def __setitem__(self, index, value) -> None:
        if isinstance(index, slice):
            self._values[index] = [self._check(v) for v in value]
        else:
            self._values[index] = self._check(value)
        self._owner._modified()

    def __delitem__(self, index) -> None:
        del self._values[index]
        self._owner._modified()

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __eq__(self, other) -> bool:
        if isinstance(other, RepeatedScalarContainer):
            return self._values == other._values
        return isinstance(other, list) and self._values == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self._values)


class RepeatedCompositeContainer:
    """A repeated message field: ``add(**fields)``, ``append``/``extend`` copy messages."""

    def __init__(self, owner: _Message, field: _Field):
        self._owner = owner
        self._field = field
        self._values: list = []

    def _copy_in(self, message):
        cls = self._field.message_type()
        if not isinstance(message, _Message):
            raise TypeError(f"Expected a message object, but got {message!r}.")
        if type(message) is not cls:
            raise TypeError(
                f"Parameter to MergeFrom() must be instance of same class: expected {cls} "
                f"got {type(message)}."
            )
        copy = cls()
        copy.MergeFrom(message)
        return copy

    def add(self, **fields):
        message = self._field.message_type()(**fields)
        self._values.append(message)
        self._owner._modified()
        return message

    def append(self, message) -> None:
        self._values.append(self._copy_in(message))
        self._owner._modified()

    def extend(self, messages) -> None:
        self._values.extend([self._copy_in(m) for m in messages])
        self._owner._modified()

    def pop(self, index: int = -1):
        value = self._values.pop(index)
        self._owner._modified()
        return value

    def remove(self, message) -> None:
        self._values.remove(message)
        self._owner._modified()

    def __getitem__(self, index):
        return self._values[index]

    def __setitem__(self, index, value) -> None:
        raise TypeError("does not support assignment")

    def __delitem__(self, index) -> None:
        del self._values[index]
        self._owner._modified()

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __eq__(self, other) -> bool:
        if isinstance(other, RepeatedCompositeContainer):
            return self._values == other._values
        return isinstance(other, list) and self._values == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self._values)


class MessageMap:
    """A ``map<string, Message>`` field: reading a missing key adds an empty message."""

    def __init__(self, owner: _Message, field: _Field):
        self._owner = owner
        self._field = field
        self._values: dict = {}

    def __getitem__(self, key):
        key = _map_key(key)
        if key not in self._values:
            self._values[key] = self._field.message_type()()
            self._owner._modified()
        return self._values[key]

    def get_or_create(self, key):
        return self[key]

    def get(self, key, default=None):
        return self._values.get(_map_key(key), default)

    def __setitem__(self, key, value) -> None:
        raise ValueError("Message objects may not be assigned")

    def __delitem__(self, key) -> None:
        del self._values[_map_key(key)]
        self._owner._modified()

    def __contains__(self, key) -> bool:
        return _map_key(key) in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def keys(self):
        return self._values.keys()

    def values(self):
        return self._values.values()

    def items(self):
        return self._values.items()

    def clear(self) -> None:
        self._values.clear()
        self._owner._modified()

    def __eq__(self, other) -> bool:
        if isinstance(other, MessageMap):
            return self._values == other._values
        return isinstance(other, dict) and self._values == other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self._values)


# ---------------------------------------------------------------------------------------
# Messages.


class _Field:
    """One field: its name, number, kind and (for messages) the class of its values."""

    def __init__(self, name, number, kind, message=None, check=None, oneof=None):
        self.name = name
        self.number = number
        self.kind = kind  # "message", "repeated_message", "map", "bytes", "float", "int64"
        self._message = message
        self.check = check
        self.oneof = oneof
        self.full_name = ""

    def message_type(self):
        return globals()[self._message]


class _Message:
    """The message API shared by the classes below; ``_FIELDS`` says what each holds."""

    _FIELDS: tuple = ()
    _FULL_NAME = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._BY_NAME = {f.name: f for f in cls._FIELDS}
        cls._BY_NUMBER = {f.number: f for f in cls._FIELDS}
        cls._ONEOFS = {f.oneof for f in cls._FIELDS if f.oneof}
        for f in cls._FIELDS:
            f.full_name = f"{cls._FULL_NAME}.{f.name}"

    def __init__(self, **kwargs):
        object.__setattr__(self, "_state", {})
        self._reset()
        for name, value in kwargs.items():
            field = self._field(name)
            if value is None:
                continue
            if field.kind == "message":
                cls = field.message_type()
                if isinstance(value, dict):
                    value = cls(**value)
                elif type(value) is not cls:
                    raise TypeError(
                        "Parameter to initialize message field must be dict or instance of "
                        f"same class: expected {cls} got {type(value)}."
                    )
                getattr(self, name).MergeFrom(value)
                getattr(self, name).SetInParent()
            elif field.kind == "map":
                if not isinstance(value, dict):
                    raise TypeError("bad argument type for built-in operation")
                container = self._state["values"][name]
                cls = field.message_type()
                for key, item in value.items():
                    item = cls(**item) if isinstance(item, dict) else item
                    if type(item) is not cls:
                        raise TypeError(
                            "Parameter to CopyFrom() must be instance of same class: "
                            f"expected {cls} got {type(item)}."
                        )
                    container[key].MergeFrom(item)
            elif field.kind == "repeated_message":
                container = self._state["values"][name]
                cls = field.message_type()
                for item in value:
                    if isinstance(item, dict):
                        container.add(**item)
                    elif type(item) is cls:
                        container.append(item)
                    else:
                        raise TypeError(
                            "Parameter to initialize message field must be dict or instance of "
                            f"same class: expected {cls} got {type(item)}."
                        )
            else:
                if not hasattr(value, "__iter__") or isinstance(value, (str, bytes)):
                    raise TypeError("must assign iterable")
                self._state["values"][name].extend(value)

    def _reset(self) -> None:
        state = self._state
        state.setdefault("on_modify", None)
        state["present"] = {}
        state["lazy"] = {}
        state["unknown"] = b""
        values = {}
        for f in self._FIELDS:
            if f.kind == "map":
                values[f.name] = MessageMap(self, f)
            elif f.kind == "repeated_message":
                values[f.name] = RepeatedCompositeContainer(self, f)
            elif f.kind != "message":
                values[f.name] = RepeatedScalarContainer(self, f)
        state["values"] = values

    @classmethod
    def _field(cls, name: str) -> _Field:
        if name not in cls._BY_NAME:
            raise ValueError(f'Protocol message {cls.__name__} has no "{name}" field.')
        return cls._BY_NAME[name]

    # Presence: a sub-message read but never changed stays unset in its parent.

    def _modified(self) -> None:
        callback = self._state["on_modify"]
        if callback is not None:
            self._state["on_modify"] = None
            callback(self)

    def _adopt(self, field: _Field, child: _Message) -> None:
        state = self._state
        if field.oneof:
            for other in self._FIELDS:
                if other.oneof == field.oneof and other is not field:
                    state["present"].pop(other.name, None)
                    state["lazy"].pop(other.name, None)
        state["lazy"].pop(field.name, None)
        state["present"][field.name] = child
        self._modified()

    def __getattr__(self, name):
        state = self.__dict__.get("_state")
        if state is None or name not in type(self)._BY_NAME:
            raise AttributeError(name)
        field = self._BY_NAME[name]
        if field.kind != "message":
            return state["values"][name]
        if name in state["present"]:
            return state["present"][name]
        if name not in state["lazy"]:
            child = field.message_type()()
            child._state["on_modify"] = lambda c, f=field: self._adopt(f, c)
            state["lazy"][name] = child
        return state["lazy"][name]

    def __setattr__(self, name, value) -> None:
        field = self._field_for_set(name)
        if field.kind == "message":
            raise AttributeError(
                f'Assignment not allowed to message field "{name}" in protocol message object.'
            )
        raise AttributeError(
            f'Assignment not allowed to map, or repeated field "{name}" in protocol message object.'
        )

    def _field_for_set(self, name: str) -> _Field:
        if name not in self._BY_NAME:
            raise AttributeError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        return self._BY_NAME[name]

    # The message API.

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether a singular message field or a oneof is set."""
        if name in self._ONEOFS:
            return self.WhichOneof(name) is not None
        field = self._field(name)
        if field.kind != "message":
            raise ValueError(f"Field {field.full_name} does not have presence.")
        return name in self._state["present"]

    def WhichOneof(self, oneof_group: str):  # noqa: N802 - protobuf's name
        """The name of the set field of the oneof, or ``None``."""
        if oneof_group not in self._ONEOFS:
            raise ValueError(
                f'Protocol message {type(self).__name__} has no "{oneof_group}" field.'
            )
        for f in self._FIELDS:
            if f.oneof == oneof_group and f.name in self._state["present"]:
                return f.name
        return None

    def ClearField(self, name: str) -> None:  # noqa: N802 - protobuf's name
        """Clears a field (or the set field of a oneof)."""
        if name in self._ONEOFS:
            name = self.WhichOneof(name)
            if name is None:
                return
        field = self._field(name)
        state = self._state
        if field.kind == "message":
            state["present"].pop(name, None)
            state["lazy"].pop(name, None)
        else:
            cls = type(state["values"][name])
            state["values"][name] = cls(self, field)
        self._modified()

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Clears every field."""
        self._reset()
        self._modified()

    def SetInParent(self) -> None:  # noqa: N802 - protobuf's name
        """Marks this (possibly empty) sub-message as set in its parent."""
        self._modified()

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf's name
        """Always ``True``: these messages have no required fields."""
        return True

    def MergeFrom(self, other: _Message) -> None:  # noqa: N802 - protobuf's name
        """Merges ``other`` in: repeated fields append, map entries and sub-messages merge."""
        if type(other) is not type(self):
            raise TypeError(
                "Parameter to MergeFrom() must be instance of same class: expected "
                f"{type(self)} got {type(other)}."
            )
        self.MergeFromString(other.SerializeToString())

    def CopyFrom(self, other: _Message) -> None:  # noqa: N802 - protobuf's name
        """Replaces this message's content with a copy of ``other``'s."""
        if type(other) is not type(self):
            raise TypeError(
                "Parameter to CopyFrom() must be instance of same class: expected "
                f"{type(self)} got {type(other)}."
            )
        if other is self:
            return
        data = other.SerializeToString()
        self._reset()
        self.MergeFromString(data)
        self._modified()

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802, ARG002
        """The message's wire-format bytes, as TF's protobuf serializes it.

        Map entries are written sorted by key: the order of TF's ``deterministic=True``
        (TF's default order is its hash table's, which changes from process to process).
        """
        state = self._state
        out = []
        for f in self._FIELDS:
            if f.kind == "message":
                if f.name in state["present"]:
                    body = state["present"][f.name].SerializeToString()
                    out.append(bytes_field(f.number, body, keep_empty=True))
                continue
            values = state["values"][f.name]._values
            if f.kind == "bytes":
                out.extend(bytes_field(f.number, v, keep_empty=True) for v in values)
            elif f.kind == "float":
                out.append(bytes_field(f.number, struct.pack(f"<{len(values)}f", *values)))
            elif f.kind == "int64":
                out.append(bytes_field(f.number, b"".join(varint(v) for v in values)))
            elif f.kind == "repeated_message":
                out.extend(
                    bytes_field(f.number, v.SerializeToString(), keep_empty=True) for v in values
                )
            else:
                for key in sorted(values, key=lambda k: k.encode("utf-8")):
                    entry = bytes_field(1, key.encode("utf-8"), keep_empty=True) + bytes_field(
                        2, values[key].SerializeToString(), keep_empty=True
                    )
                    out.append(bytes_field(f.number, entry, keep_empty=True))
        out.append(state["unknown"])
        return b"".join(out)

    SerializePartialToString = SerializeToString

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of ``SerializeToString()``."""
        return len(self.SerializeToString())

    def MergeFromString(self, serialized) -> int:  # noqa: N802 - protobuf's name
        """Merges a serialized message in; returns the number of bytes read.

        Raises:
          DecodeError: If ``serialized`` is not a serialized message of this type.
        """
        data = _as_data(serialized)
        self._merge_wire(data)
        self._modified()
        return len(data)

    def ParseFromString(self, serialized) -> int:  # noqa: N802 - protobuf's name
        """Replaces this message's content with the parsed ``serialized``.

        Raises:
          DecodeError: If ``serialized`` is not a serialized message of this type.
        """
        data = _as_data(serialized)
        self._reset()
        return self.MergeFromString(data)

    @classmethod
    def FromString(cls, serialized):  # noqa: N802 - protobuf's name
        """A new message parsed from ``serialized``."""
        message = cls()
        message.MergeFromString(serialized)
        return message

    def _merge_wire(self, data: bytes) -> None:
        reader = _Reader(data, self._FULL_NAME)
        state = self._state
        unknown = []
        for number, wire, payload, raw in reader.fields():
            f = self._BY_NUMBER.get(number)
            if f is None:
                unknown.append(raw)
                continue
            if f.kind in ("message", "repeated_message", "map", "bytes") and wire != 2:
                unknown.append(raw)
                continue
            if f.kind == "message":
                child = getattr(self, f.name)
                child._merge_wire(payload)
                child._modified()
            elif f.kind == "repeated_message":
                child = f.message_type()()
                child._merge_wire(payload)
                state["values"][f.name]._values.append(child)
            elif f.kind == "map":
                key, value = "", b""
                for n, w, p, _ in _Reader(payload, self._FULL_NAME).fields():
                    if n == 1 and w == 2:
                        try:
                            key = p.decode("utf-8")
                        except UnicodeDecodeError:
                            raise DecodeError(
                                f"Error parsing message with type '{self._FULL_NAME}': "
                                "String field had bad UTF-8"
                            ) from None
                    elif n == 2 and w == 2:
                        value = p
                entry = f.message_type()()
                entry._merge_wire(value)
                state["values"][f.name]._values[key] = entry
            elif f.kind == "bytes":
                state["values"][f.name]._values.append(payload)
            elif f.kind == "float":
                values = state["values"][f.name]._values
                if wire == 5:
                    values.append(struct.unpack("<f", payload)[0])
                elif wire == 2 and len(payload) % 4 == 0:
                    values.extend(struct.unpack(f"<{len(payload) // 4}f", payload))
                elif wire == 2:
                    raise reader.corrupt()
                else:
                    unknown.append(raw)
            else:
                values = state["values"][f.name]._values
                if wire == 0:
                    values.append(_signed64(payload))
                elif wire == 2:
                    inner = _Reader(payload, self._FULL_NAME)
                    while inner.pos < len(payload):
                        values.append(_signed64(inner.varint()))
                else:
                    unknown.append(raw)
        state["unknown"] += b"".join(unknown)

    def _text_lines(self, indent: str) -> list[str]:
        state = self._state
        lines = []
        for f in self._FIELDS:
            if f.kind == "message":
                if f.name in state["present"]:
                    lines.append(f"{indent}{f.name} {{")
                    lines.extend(state["present"][f.name]._text_lines(indent + "  "))
                    lines.append(f"{indent}}}")
                continue
            values = state["values"][f.name]._values
            if f.kind == "bytes":
                lines.extend(f'{indent}{f.name}: "{_escape(v, False)}"' for v in values)
            elif f.kind == "float":
                lines.extend(f"{indent}{f.name}: {_format_float(v)}" for v in values)
            elif f.kind == "int64":
                lines.extend(f"{indent}{f.name}: {v}" for v in values)
            elif f.kind == "repeated_message":
                for v in values:
                    lines.append(f"{indent}{f.name} {{")
                    lines.extend(v._text_lines(indent + "  "))
                    lines.append(f"{indent}}}")
            else:
                # upb's text encoder prints map entries by key, descending.
                for key in sorted(values, key=lambda k: k.encode("utf-8"), reverse=True):
                    lines.append(f"{indent}{f.name} {{")
                    lines.append(f'{indent}  key: "{_escape(key.encode("utf-8"), True)}"')
                    lines.append(f"{indent}  value {{")
                    lines.extend(values[key]._text_lines(indent + "    "))
                    lines.append(f"{indent}  }}")
                    lines.append(f"{indent}}}")
        return lines

    def __str__(self) -> str:
        return "".join(line + "\n" for line in self._text_lines(""))

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented if not isinstance(other, _Message) else False
        return self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __reduce__(self):
        return type(self).FromString, (self.SerializeToString(),)

    def __deepcopy__(self, memo):
        return type(self).FromString(self.SerializeToString())


class BytesList(_Message):
    """``tf.train.BytesList``: ``value``, a repeated ``bytes`` field.

    Example:

    >>> import tapejax as tf
    >>> tf.train.BytesList(value=[b"a", b"b"]).SerializeToString()
    b'\\n\\x01a\\n\\x01b'
    """

    _FULL_NAME = "tensorflow.BytesList"
    _FIELDS = (_Field("value", 1, "bytes", check=_check_bytes),)


class FloatList(_Message):
    """``tf.train.FloatList``: ``value``, a repeated (packed) ``float`` field.

    Values are stored as float32, as TF's: ``FloatList(value=[0.1]).value[0]`` is
    ``0.10000000149011612``.
    """

    _FULL_NAME = "tensorflow.FloatList"
    _FIELDS = (_Field("value", 1, "float", check=_check_float),)


class Int64List(_Message):
    """``tf.train.Int64List``: ``value``, a repeated (packed) ``int64`` field."""

    _FULL_NAME = "tensorflow.Int64List"
    _FIELDS = (_Field("value", 1, "int64", check=_check_int64),)


class Feature(_Message):
    """``tf.train.Feature``: one of ``bytes_list``, ``float_list``, ``int64_list`` (oneof
    ``kind``)."""

    _FULL_NAME = "tensorflow.Feature"
    _FIELDS = (
        _Field("bytes_list", 1, "message", "BytesList", oneof="kind"),
        _Field("float_list", 2, "message", "FloatList", oneof="kind"),
        _Field("int64_list", 3, "message", "Int64List", oneof="kind"),
    )


class Features(_Message):
    """``tf.train.Features``: ``feature``, a map from name to ``Feature``.

    Example:

    >>> import tapejax as tf
    >>> features = tf.train.Features(
    ...     feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0]))})
    >>> features.feature["x"].WhichOneof("kind")
    'float_list'
    """

    _FULL_NAME = "tensorflow.Features"
    _FIELDS = (_Field("feature", 1, "map", "Feature"),)


class FeatureList(_Message):
    """``tf.train.FeatureList``: ``feature``, a repeated ``Feature``."""

    _FULL_NAME = "tensorflow.FeatureList"
    _FIELDS = (_Field("feature", 1, "repeated_message", "Feature"),)


class FeatureLists(_Message):
    """``tf.train.FeatureLists``: ``feature_list``, a map from name to ``FeatureList``."""

    _FULL_NAME = "tensorflow.FeatureLists"
    _FIELDS = (_Field("feature_list", 1, "map", "FeatureList"),)


class Example(_Message):
    """``tf.train.Example``: ``features``, a ``Features`` message.

    Example:

    >>> import tapejax as tf
    >>> example = tf.train.Example(features=tf.train.Features(feature={
    ...     "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[-1]))}))
    >>> tf.train.Example.FromString(example.SerializeToString()) == example
    True

    .. warning::
       Map entries serialize sorted by key (TF's ``deterministic=True`` order); TF's
       default order is its hash table's and differs between processes. Parse errors
       raise a ``DecodeError`` of tapejax's own (an ``Exception``, as
       protobuf's), not protobuf's class.
    """

    _FULL_NAME = "tensorflow.Example"
    _FIELDS = (_Field("features", 1, "message", "Features"),)


class SequenceExample(_Message):
    """``tf.train.SequenceExample``: ``context`` (``Features``) and ``feature_lists``
    (``FeatureLists``)."""

    _FULL_NAME = "tensorflow.SequenceExample"
    _FIELDS = (
        _Field("context", 1, "message", "Features"),
        _Field("feature_lists", 2, "message", "FeatureLists"),
    )
