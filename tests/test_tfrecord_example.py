"""``tapejax.io.TFRecordWriter``/``TFRecordOptions`` and ``tapejax.train.Example`` & co.,
checked against live TF: TF reads the files and parses the messages tapejax writes."""

import os
import zlib

import pytest

import tapejax as tf
from tapejax import errors

tf_real = pytest.importorskip("tensorflow")

RECORDS = [b"abc", b"", bytes(range(256)) * 40, "unicode é".encode()]


def _write(path, options, records, writer_module):
    with writer_module.io.TFRecordWriter(path, options) as writer:
        for record in records:
            writer.write(record)


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP", None, 1, 2])
def test_tf_reads_tapejax_files(tmp_path, compression):
    path = str(tmp_path / "data.tfrecord")
    _write(path, compression, RECORDS, tf)
    kind = tf_real.io.TFRecordOptions.get_compression_type_string(compression)
    got = [r.numpy() for r in tf_real.data.TFRecordDataset(path, compression_type=kind)]
    assert got == RECORDS
    it = tf_real.compat.v1.io.tf_record_iterator(path, tf_real.io.TFRecordOptions(kind))
    assert list(it) == RECORDS


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_file_bytes_equal_tf(tmp_path, compression):
    # Uncompressed: same framing; compressed: same zlib stream (TF's default parameters).
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    _write(ours, compression, RECORDS, tf)
    _write(theirs, compression, RECORDS, tf_real)
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        assert a.read() == b.read()


def test_zlib_options_reach_the_stream(tmp_path):
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    _write(ours, tf.io.TFRecordOptions("ZLIB", compression_level=9, mem_level=5), RECORDS, tf)
    _write(
        theirs,
        tf_real.io.TFRecordOptions("ZLIB", compression_level=9, mem_level=5),
        RECORDS,
        tf_real,
    )
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        data = a.read()
        assert data == b.read()
    assert data[:2] == b"\x78\xda"  # level 9's zlib header
    assert zlib.decompress(data)


def test_empty_files_equal_tf(tmp_path):
    for compression in ["", "ZLIB", "GZIP"]:
        ours, theirs = str(tmp_path / "o"), str(tmp_path / "t")
        _write(ours, compression, [], tf)
        _write(theirs, compression, [], tf_real)
        with open(ours, "rb") as a, open(theirs, "rb") as b:
            assert a.read() == b.read(), compression


def test_str_record_written_utf8_and_flush(tmp_path):
    path = str(tmp_path / "f")
    writer = tf.io.TFRecordWriter(path.encode())
    writer.write("é")
    writer.write(bytearray(b"xy"))
    writer.flush()
    assert os.path.getsize(path) == 2 * 16 + 2 + 2  # flushed before close
    writer.close()
    writer.close()
    assert [r.numpy() for r in tf_real.data.TFRecordDataset(path)] == ["é".encode(), b"xy"]


def test_flush_mode_sync_makes_records_readable_before_close(tmp_path):
    path = str(tmp_path / "f")
    writer = tf.io.TFRecordWriter(path, tf.io.TFRecordOptions("ZLIB", flush_mode=zlib.Z_SYNC_FLUSH))
    writer.write(b"abc")
    writer.flush()
    with open(path, "rb") as f:
        partial = zlib.decompressobj().decompress(f.read())
    assert partial[12:15] == b"abc"
    writer.close()


@pytest.mark.parametrize("value", ["", "ZLIB", "GZIP", None, 0, 1, 2])
def test_get_compression_type_string(value):
    ours = tf.io.TFRecordOptions.get_compression_type_string(value)
    assert ours == tf_real.io.TFRecordOptions.get_compression_type_string(value)
    assert tf.io.TFRecordOptions.get_compression_type_string(tf.io.TFRecordOptions(value)) == ours


def test_options_attributes():
    opts = tf.io.TFRecordOptions(1, window_bits=15, compression_level=3, mem_level=7)
    assert (opts.compression_type, opts.window_bits, opts.compression_level) == (1, 15, 3)
    assert (opts.mem_level, opts.flush_mode, opts.input_buffer_size) == (7, None, None)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize("bad", ["BAD", "zlib", 7])
def test_bad_compression_type(tmp_path, bad):
    want = _error(lambda: tf_real.io.TFRecordOptions(bad))
    assert _error(lambda: tf.io.TFRecordOptions(bad)) == want == ("ValueError", want[1])
    assert _error(lambda: tf.io.TFRecordWriter(str(tmp_path / "x"), bad)) == want


def test_open_errors(tmp_path):
    for path in [str(tmp_path / "nodir" / "x"), str(tmp_path)]:
        want = _error(lambda p=path: tf_real.io.TFRecordWriter(p))
        assert _error(lambda p=path: tf.io.TFRecordWriter(p)) == want
    import pathlib

    want = _error(lambda: tf_real.io.TFRecordWriter(pathlib.Path(tmp_path / "p")))
    assert _error(lambda: tf.io.TFRecordWriter(pathlib.Path(tmp_path / "p"))) == want


@pytest.mark.parametrize("bad", [3, None, memoryview(b"y")], ids=["int", "None", "memoryview"])
def test_write_non_bytes(tmp_path, bad):
    theirs = tf_real.io.TFRecordWriter(str(tmp_path / "t"))
    ours = tf.io.TFRecordWriter(str(tmp_path / "o"))
    name_t, text_t = _error(lambda: theirs.write(bad))
    name_o, text_o = _error(lambda: ours.write(bad))
    # The texts differ only in the writer's repr (module path and address).
    assert (name_o, text_o.split("Invoked with:")[0]) == (name_t, text_t.split("Invoked with:")[0])
    assert text_o.endswith(f", {bad!r}") and text_t.endswith(f", {bad!r}")
    theirs.close()
    ours.close()


def test_closed_writer(tmp_path):
    theirs = tf_real.io.TFRecordWriter(str(tmp_path / "t"))
    ours = tf.io.TFRecordWriter(str(tmp_path / "o"))
    theirs.close()
    ours.close()
    assert _error(lambda: ours.write(b"x")) == _error(lambda: theirs.write(b"x"))
    assert _error(lambda: ours.flush()) == _error(lambda: theirs.flush())
    with pytest.raises(errors.FailedPreconditionError, match="^Writer is closed.$"):
        ours.write(b"x")
