"""``tapejax.profiler.experimental`` against TF's: sessions, their errors, options, spans."""

import glob
import os

import pytest

import tapejax
from tapejax.profiler import experimental as profiler

tf_ = pytest.importorskip("tensorflow")

# Used below through the ``profiler`` alias of tapejax.profiler.experimental.
OTHERWISE_TESTED = {
    "profiler.experimental.Profile",
    "profiler.experimental.ProfilerOptions",
    "profiler.experimental.Trace",
}


def _traces(logdir):
    return glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb"))


def test_a_session_writes_an_xplane_trace_where_tfs_does(tmp_path):
    profiler.start(str(tmp_path))
    with profiler.Trace("train", step_num=1, _r=1) as span:
        span.set_metadata(batch=32)
        tapejax.function(lambda x: tapejax.reduce_sum(x * x))(tapejax.ones([8])).numpy()
    profiler.stop()
    assert len(_traces(str(tmp_path))) == 1
    # A run's directory is named by the second it ends in: a second session gets its own.
    with profiler.Profile(str(tmp_path / "second")):
        tapejax.reduce_sum(tapejax.ones([4])).numpy()
    assert len(_traces(str(tmp_path / "second"))) == 1


def test_stop_without_save_leaves_nothing(tmp_path):
    profiler.start(str(tmp_path), profiler.ProfilerOptions(host_tracer_level=3))
    tapejax.ones([4]).numpy()
    profiler.stop(save=False)
    assert _traces(str(tmp_path)) == []


@pytest.mark.parametrize("lib", ["tf", "tapejax"])
def test_session_errors_are_tfs(lib, tmp_path):
    tf = tf_ if lib == "tf" else tapejax
    with pytest.raises(tf.errors.UnavailableError, match=r"^Cannot export profiling results\. "
                       r"No profiler is running\.$"):  # fmt: skip
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(str(tmp_path))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError, match=r"^Another profiler is running\.$"):
            tf.profiler.experimental.start(str(tmp_path))
    finally:
        tf.profiler.experimental.stop()


def test_a_session_started_through_jax_is_an_already_running_profiler(tmp_path):
    import jax

    jax.profiler.start_trace(str(tmp_path))
    try:
        with pytest.raises(tapejax.errors.AlreadyExistsError):
            profiler.start(str(tmp_path))
    finally:
        jax.profiler.stop_trace()


def test_options_are_tfs_namedtuple():
    ours, theirs = profiler.ProfilerOptions(), tf_.profiler.experimental.ProfilerOptions()
    assert ours._fields == theirs._fields and tuple(ours) == tuple(theirs)
    assert profiler.ProfilerOptions(3, 1)._asdict() == (
        tf_.profiler.experimental.ProfilerOptions(3, 1)._asdict()
    )


@pytest.mark.parametrize(
    "options, match",
    [
        (profiler.ProfilerOptions(device_tracer_level=0), "device_tracer_level"),
        (profiler.ProfilerOptions(delay_ms=100), "delay_ms"),
    ],
)
def test_options_jax_cannot_honour_raise(options, match, tmp_path):
    with pytest.raises(NotImplementedError, match=match):
        profiler.start(str(tmp_path), options)
    profiler.start(str(tmp_path))  # the refused start left no session behind
    profiler.stop(save=False)


def test_names_are_tfs_and_the_client_says_how_to_capture():
    for ours, theirs in [
        (profiler, tf_.profiler.experimental),
        (profiler.server, tf_.profiler.experimental.server),
        (profiler.client, tf_.profiler.experimental.client),
    ]:
        assert {n for n in dir(ours) if not n.startswith("_")} >= {
            n for n in dir(theirs) if not n.startswith("_")
        }
    with pytest.raises(NotImplementedError, match="jax.collect_profile"):
        profiler.client.trace("localhost:6009", "/tmp/x", 100)
