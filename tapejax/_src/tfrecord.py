"""TFRecord files (``tf.io.TFRecordWriter``, ``tf.io.TFRecordOptions``), written by hand.

The framing (length, masked CRC-32C, data, masked CRC-32C) is the summary writer's;
compression is the standard library's ``zlib`` with the parameters of TF's
``ZlibCompressionOptions``, so TF's readers read these files and an uncompressed file
is byte-identical to TF's. This module must never import protobuf or TensorFlow.
"""

from __future__ import annotations

import zlib

from tapejax._src import errors
from tapejax._src.gfile import _local, _os_error
from tapejax._src.summary.protowire import frame

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter"]


class TFRecordCompressionType:
    """The type of compression for the record (TF's v1 enum, accepted by the options)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options used for manipulating TFRecord files.

    The zlib options only matter when ``compression_type`` is ``"ZLIB"`` or ``"GZIP"``;
    ``None`` keeps TF's default (level 6, window bits 15, memory level 9, the default
    strategy; ``flush_mode`` ``Z_NO_FLUSH``). The buffer sizes are accepted and kept, as
    TF's attributes; they do not change the bytes written.

    Args:
      compression_type: ``"GZIP"``, ``"ZLIB"``, ``""`` or ``None`` (no compression), or a
        ``TFRecordCompressionType`` value.
      flush_mode: zlib flush mode applied by ``flush()``, or ``None``.
      input_buffer_size: int or ``None``.
      output_buffer_size: int or ``None``.
      window_bits: int or ``None``.
      compression_level: 0 to 9, or ``None``.
      compression_method: compression method or ``None``.
      mem_level: 1 to 9, or ``None``.
      compression_strategy: strategy or ``None``.

    Raises:
      ValueError: If ``compression_type`` is invalid (TF's text).

    Example:

    >>> import tapejax as tf
    >>> tf.io.TFRecordOptions.get_compression_type_string(tf.io.TFRecordOptions("GZIP"))
    'GZIP'
    """

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        # Validated now, kept as given (TF keeps it unconverted too).
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """Convert various option types to a unified string.

        Args:
          options: ``TFRecordOptions``, ``TFRecordCompressionType`` value, or string.

        Returns:
          Compression type as string (``'ZLIB'``, ``'GZIP'``, or ``''``).

        Raises:
          ValueError: If compression_type is invalid.
        """
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in TFRecordOptions.compression_type_map:
            return cls.compression_type_map[options]
        if options in TFRecordOptions.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _compressor(self):
        """A zlib compressor with TF's defaults for this compression type, or ``None``."""
        kind = self.get_compression_type_string(self.compression_type)
        if not kind:
            return None

        def pick(value, default):
            return default if value is None else value

        wbits = pick(self.window_bits, zlib.MAX_WBITS)
        # TF's GZIP options are its ZLIB options with 16 added to the window bits.
        if kind == "GZIP" and self.window_bits is None:
            wbits += 16
        try:
            return zlib.compressobj(
                pick(self.compression_level, zlib.Z_DEFAULT_COMPRESSION),
                pick(self.compression_method, zlib.DEFLATED),
                wbits,
                pick(self.mem_level, 9),
                pick(self.compression_strategy, zlib.Z_DEFAULT_STRATEGY),
            )
        except (zlib.error, ValueError):
            # TF aborts the process here (a failed CHECK); this is its log line's error.
            raise errors.InvalidArgumentError(
                None,
                None,
                "Failed to initialize Zlib inputbuffer. Error: INVALID_ARGUMENT: "
                "deflateInit failed with status-2",  # Z_STREAM_ERROR
            ) from None


def _path_bytes_or_str(path) -> str:
    # TF's writer takes str or bytes only (``compat.as_bytes``): no os.PathLike.
    if isinstance(path, (bytes, bytearray)):
        return bytes(path).decode("utf-8")
    if isinstance(path, str):
        return path
    raise TypeError(f"Expected binary or unicode string, got {path!r}")


class TFRecordWriter:
    """A class to write records to a TFRecords file.

    Each record is framed as TF frames it (length, masked CRC-32C of the length, data,
    masked CRC-32C of the data) and, with ``"ZLIB"`` or ``"GZIP"`` options, the stream is
    compressed as TF's ``ZlibOutputBuffer`` compresses it. ``tf.data.TFRecordDataset``
    reads the files; an uncompressed file is byte-identical to TF's.

    Args:
      path: The path to the TFRecords file (str or bytes; ``file://`` URLs too).
      options: (optional) String specifying compression type,
        ``TFRecordCompressionType``, or ``TFRecordOptions`` object.

    Raises:
      TypeError: If ``path`` is not a string (TF's text).
      ValueError: If valid compression_type can't be determined from ``options``.
      InvalidArgumentError: If zlib rejects the options (TF aborts the process).
      NotFoundError, FailedPreconditionError, ...: If ``path`` cannot be opened for
        writing, as TF (``"<path>; No such file or directory"``).

    Example:

    >>> import os, tempfile
    >>> import tapejax as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
    >>> with tf.io.TFRecordWriter(path, "GZIP") as writer:
    ...     writer.write(b"record")
    """

    def __init__(self, path, options=None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        local = _local(_path_bytes_or_str(path))
        self._options = options
        self._compressor = options._compressor()
        try:
            self._file = open(local, "wb")  # noqa: SIM115 -- closed by close()
        except OSError as err:
            raise _os_error(err, local) from None

    def _check_open(self) -> None:
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")

    def _emit(self, data: bytes) -> None:
        if self._compressor is not None:
            data = self._compressor.compress(data)
        self._file.write(data)

    def write(self, record) -> None:
        """Write a string record to the file.

        Args:
          record: bytes (a str is written UTF-8 encoded, as TF writes it).

        Raises:
          TypeError: If ``record`` is not bytes or str.
          FailedPreconditionError: If the writer is closed.
        """
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif isinstance(record, bytearray):
            record = bytes(record)
        elif not isinstance(record, bytes):
            raise TypeError(
                "write(): incompatible function arguments. The following argument types "
                "are supported:\n    1. (self: tensorflow.python.lib.io._pywrap_record_io."
                f"RecordWriter, record: str) -> None\n\nInvoked with: {self!r}, {record!r}"
            )
        self._check_open()
        self._emit(frame(record))

    def flush(self) -> None:
        """Flush the file.

        Raises:
          FailedPreconditionError: If the writer is closed.
        """
        self._check_open()
        if self._compressor is not None:
            mode = self._options.flush_mode
            if mode is not None and mode != zlib.Z_NO_FLUSH:
                self._file.write(self._compressor.flush(mode))
        self._file.flush()

    def close(self) -> None:
        """Close the file; closing a closed writer does nothing."""
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self):
        # An unclosed writer still finishes its file, as TF's destructor does.
        if getattr(self, "_file", None) is not None:
            self.close()
