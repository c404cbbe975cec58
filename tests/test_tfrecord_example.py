"""``tapejax.io.TFRecordWriter``/``TFRecordOptions`` and ``tapejax.train.Example`` & co.,
checked against live TF: TF reads the files and parses the messages tapejax writes."""

import os
import zlib

import numpy as np
import pytest

import tapejax as tf
from tapejax import errors

tf_real = pytest.importorskip("tensorflow")

# Built through a library's ``train`` module (``T.Example``) by the tests below.
OTHERWISE_TESTED = {
    "train." + n
    for n in (
        "BytesList",
        "Example",
        "Feature",
        "FeatureList",
        "FeatureLists",
        "Features",
        "FloatList",
        "Int64List",
        "SequenceExample",
    )
}

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


@pytest.mark.parametrize("option", [{"compression_level": 20}, {"mem_level": 0}])
def test_bad_zlib_options(tmp_path, option):
    # Deviation (docs/compat.md): TF's writer aborts the process on these (a failed CHECK
    # logging this error), so only tapejax's side runs here.
    with pytest.raises(errors.InvalidArgumentError, match="deflateInit failed with status-2$"):
        tf.io.TFRecordWriter(str(tmp_path / "x"), tf.io.TFRecordOptions("ZLIB", **option))


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


# ---------------------------------------------------------------------------------------
# tf.train.Example & co.

NAN, INF = float("nan"), float("inf")


def _feature(T, kind, values):
    cls = {"bytes_list": T.BytesList, "float_list": T.FloatList, "int64_list": T.Int64List}
    return T.Feature(**{kind: cls[kind](value=values)})


# Each builder makes the same message with either library's ``train`` module.
MESSAGES = {
    "empty_example": lambda T: T.Example(),
    "empty_features": lambda T: T.Example(features=T.Features()),
    "empty_feature": lambda T: T.Features(feature={"x": T.Feature()}),
    "empty_key": lambda T: T.Features(feature={"": _feature(T, "int64_list", [1])}),
    "empty_int64_list": lambda T: T.Feature(int64_list=T.Int64List()),
    "empty_bytes_value": lambda T: T.BytesList(value=[b"", b""]),
    "bytes": lambda T: _feature(T, "bytes_list", [b"abc", bytes(range(256)), "é日".encode()]),
    "floats": lambda T: _feature(T, "float_list", [1.5, -0.0, 0.1, 1e-45, 3.4e38, 1e300]),
    "nan_inf": lambda T: _feature(T, "float_list", [NAN, INF, -INF]),
    "ints": lambda T: _feature(T, "int64_list", [0, 1, -1, 127, 128, 2**63 - 1, -(2**63)]),
    "bools_and_numpy": lambda T: T.FloatList(value=[True, np.float32(2.5), np.int64(3)]),
    "numpy_ints": lambda T: T.Int64List(value=np.arange(-3, 300, dtype=np.int64)),
    "many_floats": lambda T: T.FloatList(value=np.linspace(-1, 1, 1000).tolist()),
    "example": lambda T: T.Example(
        features=T.Features(
            feature={
                "x": _feature(T, "float_list", [1.0]),
                "label": _feature(T, "int64_list", [-5]),
                "name": _feature(T, "bytes_list", [b"cat"]),
            }
        )
    ),
    "unicode_keys": lambda T: T.Features(
        feature={"é": _feature(T, "int64_list", [1]), 'q"\n': _feature(T, "int64_list", [2])}
    ),
    "many_keys": lambda T: T.Features(
        feature={f"k{i:03d}": _feature(T, "int64_list", [i]) for i in range(50)}
    ),
    "dict_init": lambda T: T.Example(
        features={"feature": {"x": {"float_list": {"value": [1.0, 2.0]}}}}
    ),
    "sequence_example": lambda T: T.SequenceExample(
        context=T.Features(feature={"len": _feature(T, "int64_list", [3])}),
        feature_lists=T.FeatureLists(
            feature_list={
                "tokens": T.FeatureList(
                    feature=[_feature(T, "bytes_list", [b"a"]), _feature(T, "bytes_list", [])]
                ),
                "empty": T.FeatureList(),
                "scores": T.FeatureList(feature=[{"float_list": {"value": [0.5]}}]),
            }
        ),
    ),
}


def _serialize_tf(message):
    # TF's default map order is its hash table's (it changes between processes);
    # tapejax writes TF's deterministic order.
    return message.SerializeToString(deterministic=True)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_serialize_equals_tf(name):
    ours, theirs = MESSAGES[name](tf.train), MESSAGES[name](tf_real.train)
    assert ours.SerializeToString() == _serialize_tf(theirs)
    assert ours.ByteSize() == theirs.ByteSize()


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_parse_round_trips_both_ways(name):
    ours, theirs = MESSAGES[name](tf.train), MESSAGES[name](tf_real.train)
    cls_ours, cls_theirs = type(ours), type(theirs)
    # TF parses tapejax's bytes into the same message, and tapejax parses TF's.
    assert cls_theirs.FromString(ours.SerializeToString()) == theirs
    parsed = cls_ours()
    assert parsed.ParseFromString(theirs.SerializeToString()) == theirs.ByteSize()
    assert parsed == ours
    assert parsed.SerializeToString() == _serialize_tf(theirs)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_text_format_equals_tf(name):
    ours, theirs = MESSAGES[name](tf.train), MESSAGES[name](tf_real.train)
    assert str(ours) == str(theirs)
    assert repr(ours) == repr(theirs)


def test_float_values_read_back_as_float32():
    for values in ([0.1, 1e300, -1e300, 1e-50], [16777217.0, 2.5e38]):
        ours = list(tf.train.FloatList(value=values).value)
        assert ours == list(tf_real.train.FloatList(value=values).value)
    assert tf.train.FloatList(value=[0.1]).value[0] == 0.10000000149011612


def test_parse_unpacked_and_unknown_fields():
    # Unpacked repeated scalars (proto2 writers) parse; unknown fields are kept and
    # written back at the end, as TF's protobuf does.
    for cls, data in [
        ("Int64List", b"\x08\x01\x08\x7f"),
        ("FloatList", b"\x0d\x00\x00\x80\x3f\x0d\x00\x00\x00\x40"),
        ("Int64List", b"\x10\x01\x0a\x01\x05"),
        ("Features", b"\x0a\x03\x0a\x01x\x0a\x03\x0a\x01x\x12\x00"),
    ]:
        ours = getattr(tf.train, cls).FromString(data)
        theirs = getattr(tf_real.train, cls).FromString(data)
        assert ours.SerializeToString() == theirs.SerializeToString(), data
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("data", [b"\x0a\x02\x01", b"\x0a", b"\x0b", b"\x08\xff"])
def test_parse_corrupt_raises(data):
    with pytest.raises(Exception) as theirs:
        tf_real.train.Int64List.FromString(data)
    with pytest.raises(Exception, match="^Error parsing message") as ours:
        tf.train.Int64List.FromString(data)
    assert type(ours.value).__name__ == type(theirs.value).__name__ == "DecodeError"
    assert str(ours.value) == str(theirs.value)


def _both(fn):
    """Runs ``fn`` with each library's ``train`` module; their results or errors."""
    out = []
    for T in (tf.train, tf_real.train):
        try:
            out.append(("ok", fn(T)))
        except Exception as err:
            # Class reprs name the defining module; compare the rest of the text.
            text = str(err).replace("tapejax._src.example_proto", "MODULE")
            text = text.replace("tensorflow.core.example.feature_pb2", "MODULE")
            text = text.replace("tensorflow.core.example.example_pb2", "MODULE")
            out.append((type(err).__name__, text))
    return out


def test_presence_and_oneof():
    def steps(T):
        f = T.Feature()
        log = [f.HasField("int64_list"), f.WhichOneof("kind"), list(f.int64_list.value)]
        log += [f.HasField("int64_list"), f.SerializeToString()]
        f.int64_list.value.append(3)
        log += [f.HasField("int64_list"), f.WhichOneof("kind"), f.HasField("kind")]
        f.float_list.value.extend([1.0])
        log += [f.WhichOneof("kind"), f.HasField("int64_list"), f.SerializeToString()]
        f.bytes_list.SetInParent()
        log += [f.WhichOneof("kind"), f.SerializeToString()]
        f.ClearField("kind")
        log += [f.WhichOneof("kind")]
        e = T.Example()
        e.features.feature["k"].bytes_list.value.append(b"v")
        log += [e.HasField("features"), e.SerializeToString(), str(e)]
        e.Clear()
        log += [e.HasField("features"), e.SerializeToString()]
        return log

    ours, theirs = _both(steps)
    assert ours == theirs


def test_containers():
    def steps(T):
        ex = T.Int64List(value=[3, 1, 2])
        v = ex.value
        log = [len(v), v[0], v[-1], v[1:], list(v), 2 in v]
        v.append(9)
        v.extend([7, 8])
        v[0] = 5
        del v[1]
        log += [list(v), v.pop(), list(v), v == T.Int64List(value=list(v)).value]
        del v[:]
        log += [len(v), ex.SerializeToString()]
        fs = T.Features(feature={"a": {"int64_list": {"value": [1]}}})
        log += ["a" in fs.feature, "b" in fs.feature, len(fs.feature), fs.feature.get("b")]
        fs.feature["b"]
        log += [sorted(fs.feature), sorted(fs.feature.keys()), fs.feature[b"a"] == fs.feature["a"]]
        del fs.feature["a"]
        log += [sorted(fs.feature), fs.SerializeToString()]
        fl = T.FeatureList()
        added = fl.feature.add(int64_list=T.Int64List(value=[4]))
        added.int64_list.value.append(5)
        fl.feature.append(T.Feature(float_list=T.FloatList(value=[1.0])))
        fl.feature.extend([T.Feature()])
        log += [len(fl.feature), fl.feature[0].int64_list.value[1], fl.SerializeToString()]
        return log

    ours, theirs = _both(steps)
    assert ours == theirs


def test_copy_merge_equality():
    def steps(T):
        a = T.Example(features={"feature": {"x": {"int64_list": {"value": [1]}}}})
        b = T.Example()
        b.CopyFrom(a)
        log = [a == b, a != b, b.SerializeToString()]
        b.features.feature["x"].int64_list.value.append(2)
        log += [a == b, list(a.features.feature["x"].int64_list.value)]
        b.MergeFrom(a)
        log += [list(b.features.feature["x"].int64_list.value)]
        log += [T.FloatList(value=[NAN]) == T.FloatList(value=[NAN])]
        log += [T.Int64List() == T.FloatList(), T.Int64List() == 1]
        log += [T.Features(feature={"a": {}, "b": {}}) == T.Features(feature={"b": {}, "a": {}})]
        log += [T.FloatList(value=[0.0]) == T.FloatList(value=[-0.0])]
        log += [T.BytesList(value=[np.bytes_(b"a")]).SerializeToString()]
        log += [T.Int64List(value=np.array([1, 2])).SerializeToString()]
        log += [T.Example.FromString(memoryview(b"\x0a\x00")).HasField("features")]
        log += [T.Example.FromString(bytearray(b"\x0a\x00")).SerializeToString()]
        log += [T.Feature(int64_list={}).HasField("int64_list"), T.Example(features={}).ByteSize()]
        return log

    ours, theirs = _both(steps)
    assert ours == theirs


@pytest.mark.parametrize(
    "code",
    [
        "T.Int64List(value=[1.5])",
        "T.Int64List(value=['1'])",
        "T.Int64List(value=[True])",
        "T.Int64List(value=[2**63])",
        "T.Int64List(value=[-2**63 - 1])",
        "T.Int64List(value=1)",
        "T.FloatList(value=['x'])",
        "T.BytesList(value=['abc'])",
        "T.BytesList(value=[1])",
        "T.BytesList(value=[bytearray(b'a')])",
        "T.Feature(foo=1)",
        "T.Feature(int64_list=[1])",
        "T.Feature(float_list=T.Int64List())",
        "T.Feature().WhichOneof('foo')",
        "T.Feature().HasField('foo')",
        "T.Int64List().HasField('value')",
        "setattr(T.Feature(), 'int64_list', T.Int64List())",
        "setattr(T.Int64List(), 'value', [1])",
        "setattr(T.Feature(), 'foo', 1)",
        "T.Features().feature.__setitem__('a', T.Feature())",
        "T.Features().feature[1]",
        "T.FeatureList().feature.append(1)",
        "T.FeatureList(feature=[{}]).feature.__setitem__(0, T.Feature())",
        "T.Feature().CopyFrom(T.Int64List())",
        "hash(T.Int64List())",
        "T.Features(feature={'a': T.Int64List()})",
        "T.Features(feature={'a': 1})",
        "T.FeatureList(feature=[1])",
        "T.FeatureList(feature=[T.Int64List()])",
        "T.FeatureList().feature.extend([T.Int64List()])",
        "T.Int64List(value=[np.bool_(True)])",
        "T.Int64List(value=[np.uint64(2**64 - 1)])",
        "T.FloatList(value=[np.array([1.5])])",
        "T.FloatList(value=[None])",
        "T.Example.FromString('')",
        "T.Example().ParseFromString(1)",
        "T.Features.FromString(b'\\x0a\\x04\\x0a\\x02\\xff\\xfe')",
        "T.Int64List(value=[1]).value[5]",
    ],
)
def test_errors_match_tf(code):
    ours, theirs = _both(lambda T: eval(code, {"T": T, "np": np}))
    assert ours[0] != "ok"
    assert ours == theirs


def test_pickle_and_deepcopy():
    import copy
    import pickle

    ex = MESSAGES["sequence_example"](tf.train)
    assert pickle.loads(pickle.dumps(ex)) == ex
    clone = copy.deepcopy(ex)
    assert clone == ex and clone is not ex
    clone.context.feature["len"].int64_list.value.append(4)
    assert clone != ex


def test_example_written_to_tfrecord_parses_in_tf(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path, "GZIP") as writer:
        for i in range(3):
            ex = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2])),
                        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[-i])),
                    }
                )
            )
            writer.write(ex.SerializeToString())
    spec = {
        "x": tf_real.io.FixedLenFeature([], tf_real.float32),
        "y": tf_real.io.FixedLenFeature([], tf_real.int64),
    }
    got = [
        (float(p["x"]), int(p["y"]))
        for p in tf_real.data.TFRecordDataset(path, "GZIP").map(
            lambda r: tf_real.io.parse_single_example(r, spec)
        )
    ]
    assert got == [(0.0, 0), (0.5, -1), (1.0, -2)]


def test_reflection_is_absent():
    # Deviation (docs/compat.md): no descriptors behind these classes.
    ex = tf.train.Example()
    for name in ["DESCRIPTOR", "ListFields", "DiscardUnknownFields"]:
        assert hasattr(tf_real.train.Example(), name)
        assert not hasattr(ex, name), name


def test_which_calls_set_a_lazy_sub_message():
    def steps(T):
        log = []
        for change in [
            lambda e: e.features.Clear(),
            lambda e: e.features.ClearField("feature"),
            lambda e: e.features.CopyFrom(T.Features()),
            lambda e: e.features.MergeFrom(T.Features()),
            lambda e: e.features.ParseFromString(b""),
            lambda e: e.features.MergeFromString(b""),
            lambda e: e.features.feature.get("x"),
            lambda e: (len(e.features.feature), "x" in e.features.feature),
        ]:
            e = T.Example()
            change(e)
            log.append(e.HasField("features"))
        f = T.Feature()
        f.int64_list.value.extend([])
        log.append(f.WhichOneof("kind"))
        return log

    ours, theirs = _both(steps)
    assert ours == theirs
    assert ours[1][-3:-1] == [False, False]
