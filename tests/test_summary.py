"""tapejax.summary writes the event files TF 2.21 + TensorBoard 2.21 write.

Each case runs the same summary calls under live TF and under tapejax, each into its own
directory; both files are read back with TF's ``summary_iterator`` (which checks the
TFRecord CRCs) and compared event by event, field by field, except ``wall_time`` (and PNG
bytes, compared as decoded pixels).
"""

import glob
import os
import struct

import numpy as np
import pytest

import tapejax
from tapejax._src.summary import protowire

tf_real = pytest.importorskip("tensorflow")
pytest.importorskip("tensorboard")


def _events(logdir):
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    return list(tf_real.compat.v1.train.summary_iterator(path))


def _decoded(value):
    """A summary value's tensor as comparable data (PNG strings decoded to pixels)."""
    array = tf_real.make_ndarray(value.tensor)
    if value.metadata.plugin_data.plugin_name == "images":
        return [array[0], array[1]] + [tf_real.io.decode_png(p).numpy() for p in array[2:]]
    return array


def _assert_same_events(tf_dir, tj_dir):
    theirs, ours = _events(tf_dir), _events(tj_dir)
    assert [e.WhichOneof("what") for e in ours] == [e.WhichOneof("what") for e in theirs]
    assert ours[0].file_version == theirs[0].file_version == "brain.Event:2"
    assert ours[0].source_metadata == theirs[0].source_metadata
    assert len(ours) == len(theirs)
    for a, b in zip(ours[1:], theirs[1:]):
        assert a.step == b.step
        assert len(a.summary.value) == len(b.summary.value) == 1
        va, vb = a.summary.value[0], b.summary.value[0]
        assert va.tag == vb.tag
        assert va.metadata == vb.metadata
        assert va.tensor.dtype == vb.tensor.dtype
        assert va.tensor.tensor_shape == vb.tensor.tensor_shape
        xa, xb = _decoded(va), _decoded(vb)
        if isinstance(xb, list):
            assert len(xa) == len(xb)
            for pa, pb in zip(xa, xb):
                np.testing.assert_array_equal(pa, pb)
        else:
            assert xa.dtype == xb.dtype
            np.testing.assert_array_equal(xa, xb)
        if va.metadata.plugin_data.plugin_name != "images":
            assert va.tensor == vb.tensor
    return ours


def _both(tmp_path, body):
    """Runs ``body(tf, writer)`` under TF and under tapejax; compares the files."""
    tf_dir, tj_dir = str(tmp_path / "tf"), str(tmp_path / "tapejax")
    for tf, logdir in ((tf_real, tf_dir), (tapejax, tj_dir)):
        writer = tf.summary.create_file_writer(logdir)
        body(tf, writer)
        writer.close()
    return _assert_same_events(tf_dir, tj_dir)


def test_scalars(tmp_path):
    def body(tf, writer):
        v = tf.Variable(2.5)
        with writer.as_default():
            for step in range(3):
                tf.summary.scalar("loss", 0.5 * step, step=step)
                tf.summary.scalar("count", step, step=step)
                tf.summary.scalar("t", tf.constant(3.25) * step, step=step)
                tf.summary.scalar("i64", np.int64(2**40 + 1), step=step)
                tf.summary.scalar("bf16", tf.constant(2.5, tf.bfloat16), step=step)
                tf.summary.scalar("v", v, step=step, description="a *variable*")
                v.assign_add(1.0)
            with tf.name_scope("outer"):
                tf.summary.scalar("x/y z", 1.0, step=-3)
            tf.summary.scalar("big_step", np.float64(0.1), step=2**40)

    events = _both(tmp_path, body)
    assert len(events) == 1 + 3 * 6 + 2
    assert events[-2].summary.value[0].tag == "outer/x/y z"


@pytest.mark.parametrize("buckets", [None, 1, 3, 7, 0])
def test_histograms(tmp_path, buckets):
    rng = np.random.default_rng(0)
    normal = rng.normal(size=(50, 3)).astype(np.float32)
    f64 = rng.normal(size=40)

    def body(tf, writer):
        with writer.as_default(step=4):
            tf.summary.histogram("normal", normal, buckets=buckets)
            tf.summary.histogram("f64", f64, buckets=buckets)
            tf.summary.histogram("tensor", tf.constant(normal), buckets=buckets)
            tf.summary.histogram("f16", tf.constant(normal.astype(np.float16)), buckets=buckets)
            tf.summary.histogram("bf16", tf.constant(normal, tf.bfloat16), buckets=buckets)
            tf.summary.histogram("ints", tf.constant([1, 5, 5, 9, -2]), buckets=buckets)
            tf.summary.histogram("const", [2.0, 2.0, 2.0], buckets=buckets)
            tf.summary.histogram("empty", np.zeros((0,), np.float32), buckets=buckets)
            tf.summary.histogram("one", [7.0], buckets=buckets, description="d")
            tf.summary.histogram("nan", [1.0, np.nan, 3.0, 2.0], buckets=buckets)
            tf.summary.histogram("inf", [1.0, np.inf, 3.0], buckets=buckets)

    _both(tmp_path, body)


def test_histogram_buckets_are_tensorboards():
    # Edges up to rounding of TF's linspace, counts with the last edge inclusive.
    got = tapejax._src.summary.ops._buckets(np.array([0.0, 1.0, 2.0, 3.0]), 3)
    np.testing.assert_array_equal(got, [[0, 1, 1], [1, 2, 1], [2, 3, 2]])


def test_images(tmp_path):
    rng = np.random.default_rng(1)
    u8 = rng.integers(0, 256, size=(4, 5, 6, 3), dtype=np.uint8)
    floats = rng.uniform(-0.2, 1.2, size=(2, 3, 4, 1)).astype(np.float32)
    rgba = rng.integers(0, 256, size=(1, 2, 3, 4), dtype=np.uint8)
    f64 = rng.uniform(0, 1, size=(3, 4, 4, 3))

    def body(tf, writer):
        with writer.as_default(step=1):
            tf.summary.image("u8", u8)  # max_outputs 3 of 4
            tf.summary.image("u8_all", u8, max_outputs=10)
            tf.summary.image("none", u8, max_outputs=0)
            tf.summary.image("grey", floats, description="g")
            tf.summary.image("rgba", tf.constant(rgba))
            tf.summary.image("f64", f64, max_outputs=2)
            tf.summary.image("bf16", tf.constant(floats, tf.bfloat16))  # scaled in bfloat16
            tf.summary.image("f16", tf.constant(floats, tf.float16))

    _both(tmp_path, body)


def test_text(tmp_path):
    def body(tf, writer):
        with writer.as_default(step=2):
            tf.summary.text("scalar", "hello *world*")
            tf.summary.text("bytes", b"raw")
            tf.summary.text("unicode", "\u00e9t\u00e9")
            tf.summary.text("table", [["a", "b"], ["c", "d"]])
            tf.summary.text("array", np.array(["x", "yz", ""]))

    _both(tmp_path, body)


def test_audio(tmp_path):
    rng = np.random.default_rng(2)
    clips = rng.uniform(-1.2, 1.2, size=(4, 30, 2)).astype(np.float32)
    clips[0, :6, 0] = [1.0, -1.0, 0.5 / 32768, -0.5 / 32768, 1.5 / 32768, 0.49999997 / 32768]

    def body(tf, writer):
        with writer.as_default(step=1):
            tf.summary.audio("stereo", clips, 16000)
            tf.summary.audio("mono", clips[:1, :, :1], 8000, max_outputs=1)
            tf.summary.audio("none", clips, 8000, max_outputs=0, description="d")

    _both(tmp_path, body)


def test_write_with_metadata_and_values(tmp_path):
    from tensorboard.compat.proto import summary_pb2

    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = "custom"
    metadata.plugin_data.content = b"\x01\x02"
    metadata.display_name = "shown"

    def body(tf, writer):
        with writer.as_default(step=9):
            tf.summary.write("ints", [[1, 2], [3, 4]], metadata=metadata)
            tf.summary.write("serialized", 1.5, metadata=metadata.SerializeToString())
            tf.summary.write("bools", tf.constant([True, False]))
            tf.summary.write("lazy", lambda: tf.constant([0.5, 1.5]), step=10)
            tf.summary.write("str", "s")

    _both(tmp_path, body)


def test_record_if(tmp_path, x64):
    def body(tf, writer):
        step = tf.Variable(0, dtype=tf.int64)
        with writer.as_default(step=step):
            for i in range(4):
                with tf.summary.record_if(True):
                    tf.summary.scalar("always", float(i))
                with tf.summary.record_if(False):
                    assert not bool(tf.summary.scalar("never", float(i)))
                    assert not bool(tf.summary.should_record_summaries())
                with tf.summary.record_if(lambda: step % 2 == 0):
                    tf.summary.scalar("even", float(i))
                with tf.summary.record_if(tf.constant(i == 3)):
                    tf.summary.scalar("last", float(i))
                step.assign_add(1)

    events = _both(tmp_path, body)
    assert [e.summary.value[0].tag for e in events[1:]].count("even") == 2


def test_steps_as_default_set_step(tmp_path, x64):
    def body(tf, writer):
        tf.summary.experimental.set_step(5)
        with writer.as_default():
            tf.summary.scalar("a", 1.0)
            with writer.as_default(step=7):
                tf.summary.scalar("b", 1.0)
                assert tf.summary.experimental.get_step() == 7
            tf.summary.scalar("c", 1.0)
            tf.summary.scalar("d", 1.0, step=tf.constant(11, tf.int64))
        tf.summary.experimental.set_step(None)
        writer.set_as_default(step=3)
        tf.summary.scalar("e", 1.0)
        tf.summary.flush()
        tf.summary.experimental.set_step(None)

    try:
        events = _both(tmp_path, body)
    finally:  # set_as_default has no undo: the test clears both default writers
        from tensorflow.python.ops import summary_ops_v2

        summary_ops_v2._summary_state.writer = None
        tapejax._src.summary.writer._state.writer = None
        tf_real.summary.experimental.set_step(None)
        tapejax.summary.experimental.set_step(None)
    assert [e.step for e in events[1:]] == [5, 7, 5, 11, 3]


def test_no_writer_returns_false_and_writes_nothing(tmp_path):
    assert tapejax._src.summary.writer._state.writer is None
    for tf in (tf_real, tapejax):
        assert bool(tf.summary.scalar("x", 1.0, step=1)) is False
        assert bool(tf.summary.should_record_summaries()) is False
        assert tf.summary.flush() is None
    noop = tapejax.summary.create_noop_writer()
    with noop.as_default():
        assert tapejax.summary.experimental.get_step() is None
    writer = tapejax.summary.create_file_writer(str(tmp_path))
    writer.close()
    assert len(_events(str(tmp_path))) == 1


def test_errors(tmp_path):
    writer = tapejax.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(
            ValueError,
            match=r"^No step set\. Please specify one either through the `step` argument or through tf\.summary\.experimental\.set_step\(\)$",
        ):
            tapejax.summary.scalar("x", 1.0)
        with pytest.raises(
            ValueError,
            match=r"Argument `step` must be a scalar\. Received step with shape \(2,\)\.",
        ):
            tapejax.summary.scalar("x", 1.0, step=[1, 2])
        with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(1,\)\."):
            tapejax.summary.scalar("x", [1.0], step=1)
        with pytest.raises(TypeError, match="tensor must be of type tf.string; got tf.float32"):
            tapejax.summary.text("x", tapejax.constant(1.0), step=1)
        with pytest.raises(ValueError, match=r"Tensor  must have rank 4\.  Received rank 3"):
            tapejax.summary.image("x", np.zeros((2, 2, 1)), step=1)
        with pytest.raises(
            tapejax.errors.InvalidArgumentError, match=r"Condition x >= 0 did not hold"
        ):
            tapejax.summary.image("x", np.zeros((1, 2, 2, 3), np.uint8), step=1, max_outputs=-1)
        with pytest.raises(
            tapejax.errors.InvalidArgumentError,
            match=r"image must have 1, 2, 3, or 4 channels, got 5",
        ):
            tapejax.summary.image("x", np.zeros((1, 2, 2, 5), np.uint8), step=1)
        with pytest.raises(
            ValueError, match=r"^Tensor  must have rank 3\.  Received rank 2, shape \(1, 2\)$"
        ):
            tapejax.summary.audio("x", np.zeros((1, 2)), 100, step=1)
        with pytest.raises(TypeError, match=r"^tensor must be of type tf\.int32; got tf\.float32$"):
            tapejax.summary.histogram("x", [1.0], step=1, buckets=2.5)
        with pytest.raises(TypeError, match=r"^Cannot convert 1\.5 to EagerTensor of dtype int64$"):
            tapejax.summary.scalar("x", 1.0, step=1.5)
        with pytest.raises(
            ValueError,
            match=r"^Tensor conversion requested dtype int64 for Tensor with dtype float32: ",
        ):
            tapejax.summary.scalar("x", 1.0, step=tapejax.constant(1.5))
        with pytest.raises(
            ValueError,
            match=r"^Incompatible type conversion requested to type int64 for `tf\.Variable of type float32\. \(Variable: <tf\.Variable",
        ):
            tapejax.summary.scalar("x", 1.0, step=tapejax.Variable(1.5))
    with pytest.raises(NotImplementedError, match="experimental_mesh"):
        tapejax.summary.create_file_writer(str(tmp_path), experimental_mesh=object())
    trackable = tapejax.summary.create_file_writer(str(tmp_path / "t"), experimental_trackable=True)
    with trackable.as_default(step=0):
        assert bool(tapejax.summary.scalar("x", 1.0))
    trackable.close()
    with pytest.raises(ValueError, match="Argument `logdir` cannot be None"):
        tapejax.summary.create_file_writer(None)
    with pytest.raises(ValueError, match=r"Invalid argument to flush\(\): 3"):
        tapejax.summary.flush(3)
    writer.close()
    writer.close()  # a second close does nothing, as TF's
    writer.flush()
    with pytest.raises(RuntimeError, match="is already closed"):
        writer.as_default()
    with pytest.raises(RuntimeError, match="is already closed"):
        writer.set_as_default()


def test_flush_writes_queued_events(tmp_path):
    writer = tapejax.summary.create_file_writer(str(tmp_path), max_queue=100)
    with writer.as_default(step=0):
        for i in range(3):
            tapejax.summary.scalar("x", float(i))
        assert len(_events(str(tmp_path))) == 1  # queued, not yet written
        tapejax.summary.flush()
        assert len(_events(str(tmp_path))) == 4
    small = tapejax.summary.create_file_writer(str(tmp_path / "small"), max_queue=1)
    with small.as_default(step=0):
        for i in range(2):
            tapejax.summary.scalar("x", float(i))
        assert len(_events(str(tmp_path / "small"))) == 3  # queue longer than 1: flushed
    small.close()
    writer.close()


def test_file_name_and_framing(tmp_path):
    writer = tapejax.summary.create_file_writer(str(tmp_path / "a"), filename_suffix="foo")
    writer.close()
    (path,) = glob.glob(str(tmp_path / "a" / "*"))
    parts = os.path.basename(path).split(".")
    assert parts[:3] == ["events", "out", "tfevents"]
    assert parts[-3] == str(os.getpid()) and parts[-1] == "foo"
    assert int(parts[3]) > 1_600_000_000
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    assert struct.unpack("<I", data[8:12])[0] == protowire.masked_crc32c(data[:8])
    assert struct.unpack("<I", data[12 + length : 16 + length])[0] == protowire.masked_crc32c(
        data[12 : 12 + length]
    )
    # CRC-32C's check value; TensorBoard's own masked CRC of the same bytes; and the
    # length CRC TF wrote for its 62-byte header record.
    from tensorboard.compat.tensorflow_stub import pywrap_tensorflow

    assert protowire.crc32c(b"123456789") == 0xE3069283
    for sample in (data[:8], data[12 : 12 + length], bytes(range(256)) * 3):
        assert protowire.masked_crc32c(sample) == pywrap_tensorflow.masked_crc32c(sample)
    assert protowire.masked_crc32c(struct.pack("<Q", 62)) == 0xE740D2D9
    corrupt = bytearray(data)
    corrupt[14] ^= 1
    bad = tmp_path / "bad" / "events.out.tfevents.1.h.1.0.v2"
    bad.parent.mkdir()
    bad.write_bytes(bytes(corrupt))
    with pytest.raises(Exception, match="(?i)corrupt|crc|checksum"):
        list(tf_real.compat.v1.train.summary_iterator(str(bad)))


def test_summary_scope():
    with tapejax.summary.experimental.summary_scope("a b", "dflt") as (tag, scope):
        assert (tag, scope) == ("a b", "ab/")
    with tapejax.name_scope("outer"):
        with tapejax.summary.experimental.summary_scope(None, "dflt") as (tag, scope):
            assert (tag, scope) == ("outer/dflt", "outer/dflt/")


def test_inside_function_writes_on_every_call(tmp_path, x64):
    def make(tf):
        step = tf.Variable(0, dtype=tf.int64)

        @tf.function
        def train(x):
            tf.summary.scalar("x", x, step=step)
            tf.summary.histogram("h", x * tf.constant([1.0, 2.0, 3.0]), step=step)
            tf.summary.scalar("const", 1.0, step=step)
            tf.summary.scalar("static", 1.0, step=7)  # nothing traced: still every call
            with tf.summary.record_if(x > 1.5):
                tf.summary.scalar("big", x, step=step)
            tf.summary.image("im", tf.reshape(tf.range(6.0) / 5.0 * x, [1, 2, 3, 1]), step=step)
            tf.summary.text("note", "hi", step=step)
            tf.summary.write("f64", np.float64(0.1), step=step)  # host data keeps its dtype
            step.assign_add(1)
            return x * 2

        return train

    trains = {}

    def body(tf, writer):
        trains[tf.__name__] = train = make(tf)
        with writer.as_default():
            for i in range(3):
                train(tf.constant(float(i)))

    events = _both(tmp_path, body)
    assert len(events) == 1 + 3 * 7 + 1
    assert [e.step for e in events[1:] if e.summary.value[0].tag == "x"] == [0, 1, 2]
    assert trains["tapejax"].experimental_get_tracing_count() == 1


def test_int32_step_tensors_are_accepted(tmp_path):
    # docs/compat.md: TF wants an int64 step Tensor; without JAX's 64-bit mode tapejax
    # holds int64 as int32, so integer steps of any width are taken.
    writer = tf_real.summary.create_file_writer(str(tmp_path / "tf"))
    with writer.as_default():
        with pytest.raises(ValueError, match="requested dtype int64 for Tensor with dtype int32"):
            tf_real.summary.scalar("x", 1.0, step=tf_real.constant(3))
    writer.close()
    writer = tapejax.summary.create_file_writer(str(tmp_path / "tapejax"))
    with writer.as_default():
        assert bool(tapejax.summary.scalar("x", 1.0, step=tapejax.constant(3)))
        assert bool(tapejax.summary.scalar("x", 1.0, step=tapejax.Variable(4)))
    writer.close()
    assert [e.step for e in _events(str(tmp_path / "tapejax"))[1:]] == [3, 4]


def test_tensorboard_reads_the_file(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator

    writer = tapejax.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tapejax.summary.scalar("loss", 1.0 / (step + 1), step=step)
            tapejax.summary.histogram("w", [0.0, 1.0, 1.0, 3.0], step=step, buckets=3)
            tapejax.summary.image("im", np.full((1, 2, 3, 3), 200, np.uint8), step=step)
    writer.close()
    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    acc.Reload()
    assert sorted(acc.Tags()["tensors"]) == ["im", "loss", "w"]
    loss = acc.Tensors("loss")
    assert [e.step for e in loss] == [0, 1, 2]
    assert [tf_real.make_ndarray(e.tensor_proto).item() for e in loss] == [
        1.0,
        0.5,
        np.float32(1 / 3),
    ]
    assert acc.SummaryMetadata("w").plugin_data.plugin_name == "histograms"
    buckets = tf_real.make_ndarray(acc.Tensors("w")[0].tensor_proto)
    np.testing.assert_array_equal(buckets, [[0, 1, 1], [1, 2, 2], [2, 3, 1]])
    (png,) = tf_real.make_ndarray(acc.Tensors("im")[-1].tensor_proto)[2:]
    np.testing.assert_array_equal(tf_real.io.decode_png(png).numpy(), np.full((2, 3, 3), 200))


def test_writing_to_a_closed_default_writer_raises(tmp_path):
    for tf in (tf_real, tapejax):
        writer = tf.summary.create_file_writer(str(tmp_path / tf.__name__))
        with writer.as_default(step=1):
            writer.close()
            with pytest.raises(tf.errors.NotFoundError, match="does not exist"):
                tf.summary.scalar("x", 1.0)
        assert len(_events(str(tmp_path / tf.__name__))) == 1
    # Inside a compiled tapejax function the event is dropped (docs/compat.md).
    writer = tapejax.summary.create_file_writer(str(tmp_path / "function"))
    f = tapejax.function(lambda x: tapejax.summary.scalar("x", x, step=1))
    with writer.as_default():
        assert bool(f(tapejax.constant(1.0)))
        writer.close()
        f(tapejax.constant(2.0))
    assert len(_events(str(tmp_path / "function"))) == 2  # the header and the first call


def test_queued_events_are_written_at_exit(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys, tapejax as tf\n"
        "tf.summary.create_file_writer(sys.argv[1]).set_as_default(step=2)\n"
        "tf.summary.scalar('x', 1.0)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, env=env)
    events = _events(str(tmp_path))
    assert [e.step for e in events] == [0, 2]


def test_a_function_flushes_on_every_call(tmp_path):
    writer = tapejax.summary.create_file_writer(str(tmp_path), max_queue=100)

    @tapejax.function
    def f(x, step):
        with writer.as_default():  # its exit flushes, as TF's, on every call
            tapejax.summary.scalar("x", x, step=step)
        return x

    for i in range(3):
        f(tapejax.constant(float(i)), tapejax.constant(i))
        assert [e.step for e in _events(str(tmp_path))] == [0, *range(i + 1)]
    assert f.experimental_get_tracing_count() == 1
    writer.close()


def test_host_data_in_a_function_keeps_its_dtype(tmp_path):
    # Without JAX's 64-bit mode a float64 passed through the program would be float32.
    writer = tapejax.summary.create_file_writer(str(tmp_path))
    f = tapejax.function(lambda s: tapejax.summary.write("f64", np.float64(0.1), step=s))
    with writer.as_default():
        f(tapejax.constant(1))
    writer.close()
    (event,) = _events(str(tmp_path))[1:]
    assert tf_real.make_ndarray(event.summary.value[0].tensor).dtype == np.float64
    assert tf_real.make_ndarray(event.summary.value[0].tensor) == 0.1


def test_writers_are_summary_writers(tmp_path):
    for tf in (tf_real, tapejax):
        writer = tf.summary.create_file_writer(str(tmp_path / tf.__name__))
        assert isinstance(writer, tf.summary.SummaryWriter)
        assert isinstance(tf.summary.create_noop_writer(), tf.summary.SummaryWriter)
        for method in ("init", "flush", "close"):
            with pytest.raises(NotImplementedError):
                getattr(tf.summary.SummaryWriter(), method)()
        writer.close()


def test_histogram_buckets_from_a_function_argument_are_refused(tmp_path):
    writer = tapejax.summary.create_file_writer(str(tmp_path))
    f = tapejax.function(lambda x, n: tapejax.summary.histogram("h", x, step=0, buckets=n))
    with writer.as_default():
        with pytest.raises(NotImplementedError, match="Pass a Python int"):
            f(tapejax.constant([1.0, 2.0]), tapejax.constant(3))
    writer.close()
