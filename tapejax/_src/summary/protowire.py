"""Protocol-buffer wire format and TFRecord framing, by hand: only what event files need.

Varints, length-delimited fields, fixed64 doubles and the masked CRC32C of TFRecord
framing. This module must never import protobuf or TensorBoard: tapejax has no runtime
dependency on them.
"""

from __future__ import annotations

import struct

__all__ = ["bytes_field", "double_field", "frame", "masked_crc32c", "varint", "varint_field"]


def varint(value: int) -> bytes:
    """A base-128 varint; a negative value is its 64-bit two's complement (10 bytes)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field: int, wire_type: int) -> bytes:
    return varint((field << 3) | wire_type)


def varint_field(field: int, value: int) -> bytes:
    """An integer or enum field (wire type 0); proto3 omits a zero."""
    return _key(field, 0) + varint(value) if value else b""


def double_field(field: int, value: float) -> bytes:
    """A ``double`` field (wire type 1, fixed64 little-endian); proto3 omits a zero."""
    return _key(field, 1) + struct.pack("<d", value) if value else b""


def bytes_field(field: int, data: bytes, keep_empty: bool = False) -> bytes:
    """A length-delimited field (string, bytes or sub-message, wire type 2). Empty data is
    omitted unless ``keep_empty`` (a present but empty sub-message, or a repeated item)."""
    if not data and not keep_empty:
        return b""
    return _key(field, 2) + varint(len(data)) + data


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the checksum of TFRecord framing."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC-32C: rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(record: bytes) -> bytes:
    """One TFRecord: length (uint64), its masked CRC, the data, the data's masked CRC."""
    length = struct.pack("<Q", len(record))
    return (
        length
        + struct.pack("<I", masked_crc32c(length))
        + record
        + struct.pack("<I", masked_crc32c(record))
    )
