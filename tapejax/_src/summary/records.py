"""The records of an event file: ``Event``, ``TensorProto`` and ``SummaryMetadata`` as TF
2.21's summary writer serializes them, and the PNG and WAV payloads of images and audio.

Field numbers are those of ``tensorflow/core/util/event.proto``, ``framework/summary.proto``,
``tensor.proto`` and ``tensor_shape.proto``. Only host NumPy data comes in here: this
module must never see a tracer.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from ..dtypes import _ENUMS
from .protowire import bytes_field, double_field, varint_field

__all__ = [
    "encode_png",
    "encode_wav",
    "file_version_event",
    "summary_event",
    "summary_metadata",
    "tensor_proto",
]

# DataType enum values (tensorflow/core/framework/types.proto), as ``DType`` numbers them.
_DTYPE_ENUM = _ENUMS
_DT_STRING = _ENUMS["string"]


def _shape_proto(shape) -> bytes:
    # Each dimension is a Dim message (size = field 1); a zero size leaves it empty.
    return b"".join(bytes_field(2, varint_field(1, int(d)), keep_empty=True) for d in shape)


def tensor_proto(array: np.ndarray) -> bytes:
    """A ``TensorProto`` as TF's ``WriteSummary`` kernel makes it: numbers in
    ``tensor_content`` (little-endian), strings (an object array of bytes) in ``string_val``."""
    shape = bytes_field(2, _shape_proto(array.shape), keep_empty=True)
    if array.dtype == object:
        strings = b"".join(bytes_field(8, s, keep_empty=True) for s in array.reshape(-1))
        return varint_field(1, _DT_STRING) + shape + strings
    name = array.dtype.name
    if name not in _DTYPE_ENUM:
        raise TypeError(f"Cannot write a summary of dtype {name}.")
    content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return varint_field(1, _DTYPE_ENUM[name]) + shape + bytes_field(4, content)


def summary_metadata(plugin_name: str, content: bytes = b"", description=None) -> bytes:
    """A serialized ``SummaryMetadata``: ``plugin_data {plugin_name, content}`` and the
    ``summary_description`` TensorBoard's summary functions set."""
    plugin_data = bytes_field(1, plugin_name.encode()) + bytes_field(2, content)
    return bytes_field(1, plugin_data, keep_empty=True) + bytes_field(
        3, (description or "").encode()
    )


def _event(wall_time: float, step: int, body: bytes) -> bytes:
    return double_field(1, wall_time) + varint_field(2, step) + body


def file_version_event(wall_time: float) -> bytes:
    """The first record of every event file: ``file_version: "brain.Event:2"`` and the
    ``source_metadata`` TF's ``EventsWriter`` adds."""
    source = bytes_field(1, b"tensorflow.core.util.events_writer")
    return _event(wall_time, 0, bytes_field(3, b"brain.Event:2") + bytes_field(10, source))


def summary_event(wall_time: float, step: int, tag: str, array: np.ndarray, metadata: bytes):
    """An ``Event`` holding one ``Summary.Value``: tag, tensor and (if any) metadata."""
    value = (
        bytes_field(1, tag.encode())
        + bytes_field(8, tensor_proto(array), keep_empty=True)
        + bytes_field(9, metadata)
    )
    return _event(wall_time, step, bytes_field(5, bytes_field(1, value, keep_empty=True)))


_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # grey, grey+alpha, RGB, RGBA


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def encode_png(image: np.ndarray) -> bytes:
    """An 8-bit PNG of a ``[height, width, channels]`` uint8 image (1 to 4 channels)."""
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPE[channels], 0, 0, 0)
    rows = np.concatenate(
        [np.zeros((height, 1), np.uint8), image.reshape(height, width * channels)], axis=1
    )
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(rows.tobytes()))
        + _png_chunk(b"IEND", b"")
    )


def encode_wav(audio: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV of ``[frames, channels]`` float samples in [-1, 1], as TF's
    ``encode_wav``: each sample times 2**15, rounded half away from zero, clamped."""
    frames, channels = audio.shape
    scaled = audio.astype(np.float32) * np.float32(32768.0)
    whole = np.trunc(scaled)
    # roundf: halves away from zero (x + 0.5 would round 0.49999997 up in float32).
    rounded = whole + np.where(np.abs(scaled - whole) >= 0.5, np.sign(scaled), 0)
    samples = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(samples),
        b"WAVE",
        b"fmt ",
        16,
        1,
        channels,
        sample_rate,
        sample_rate * channels * 2,
        channels * 2,
        16,
        b"data",
        len(samples),
    )
    return header + samples
