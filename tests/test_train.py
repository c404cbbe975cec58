"""tapejax.train beyond Checkpoint: ExponentialMovingAverage, CheckpointOptions, the
checkpoint readers (get_checkpoint_state, load_checkpoint, checkpoints_iterator) and
Coordinator.

Moving averages and Coordinator run side by side with real TensorFlow and must agree
(values bit for bit, names, exception types and texts); the readers are checked on the
checkpoints tapejax itself writes.
"""

import logging
import os
import shutil
import threading
import time

import numpy as np
import pytest

import tapejax as tf
import tapejax.train  # noqa: F401 - tf.train
from tapejax import errors

real_tf = pytest.importorskip("tensorflow")

FRAMEWORKS = {"tapejax": tf, "tensorflow": real_tf}


# -- ExponentialMovingAverage ---------------------------------------------------------------


def _ema_trajectory(fw, dtype, decay, num_updates, zero_debias, steps, name):
    rng = np.random.default_rng(0)
    init = rng.standard_normal(3).astype(dtype)
    v = fw.Variable(init, name=name)
    w = fw.Variable(np.asarray(2.5, dtype), name=name + "_b")
    step = fw.Variable(0, name=name + "_step") if num_updates == "variable" else None
    ema = fw.train.ExponentialMovingAverage(
        decay,
        num_updates=step if num_updates == "variable" else num_updates,
        zero_debias=zero_debias,
    )
    ema.apply([v, w])
    out = [(ema.average(v).numpy(), ema.average(w).numpy())]
    for _ in range(steps):
        v.assign(rng.standard_normal(3).astype(dtype))
        w.assign_add(np.asarray(1.0, dtype))
        if step is not None:
            step.assign_add(1)
        ema.apply([v, w])
        out.append((ema.average(v).numpy(), ema.average(w).numpy()))
    return out, ema.average(v)


@pytest.mark.parametrize(
    "decay, num_updates, zero_debias",
    [(0.9, None, False), (0.99, "variable", False), (0.999, 3, True), (0.7, None, True)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_ema_trajectory_matches_tensorflow_bit_for_bit(dtype, decay, num_updates, zero_debias):
    name = f"traj_{np.dtype(dtype).name}_{decay}_{num_updates}_{zero_debias}"
    got, avg = _ema_trajectory(tf, dtype, decay, num_updates, zero_debias, 6, name)
    want, tf_avg = _ema_trajectory(real_tf, dtype, decay, num_updates, zero_debias, 6, name)
    for (gv, gw), (wv, ww) in zip(got, want):
        assert gv.dtype == wv.dtype
        np.testing.assert_array_equal(gv, wv)
        np.testing.assert_array_equal(gw, ww)
    assert not avg.trainable and not tf_avg.trainable
    # the averages moved: a formula that ignored the variables would fail above, this
    # checks the test itself is not comparing constants
    assert not np.array_equal(got[0][0], got[-1][0])


def test_ema_float64_casts_float32_decay_as_tensorflow(x64):
    got, _ = _ema_trajectory(tf, np.float64, 0.9, "variable", False, 4, "traj_f64")
    want, _ = _ema_trajectory(real_tf, np.float64, 0.9, "variable", False, 4, "traj_f64")
    for (gv, gw), (wv, ww) in zip(got, want):
        assert gv.dtype == np.float64
        np.testing.assert_array_equal(gv, wv)
        np.testing.assert_array_equal(gw, ww)


def test_ema_decay_variable_is_read_at_each_apply():
    results = {}
    for key, fw in FRAMEWORKS.items():
        decay = fw.Variable(0.5)
        y = fw.Variable(0.0, name="decay_var_y")
        ema = fw.train.ExponentialMovingAverage(decay)
        ema.apply([y])
        y.assign(1.0)
        ema.apply([y])
        first = float(ema.average(y).numpy())
        decay.assign(0.0)
        ema.apply([y])
        results[key] = (first, float(ema.average(y).numpy()))
    assert results["tapejax"] == results["tensorflow"] == (0.5, 1.0)


def _sgd_with_ema(fw, steps=5):
    rng = np.random.default_rng(1)
    w = fw.Variable(rng.standard_normal((3, 2)).astype(np.float32), name="ema_sgd_w")
    x = rng.standard_normal((4, 3)).astype(np.float32)
    ema = fw.train.ExponentialMovingAverage(0.8)
    ema.apply([w])
    for _ in range(steps):
        with fw.GradientTape() as tape:
            loss = fw.reduce_sum(fw.square(fw.matmul(x, w)))
        w.assign_sub(0.01 * tape.gradient(loss, w))
        ema.apply([w])
    return ema.average(w).numpy(), w.numpy()


def test_ema_after_tape_updates_matches_tensorflow():
    """The usual loop: a gradient step (deferred by tapejax from step 2 on), then apply."""
    got, want = _sgd_with_ema(tf), _sgd_with_ema(real_tf)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert not np.allclose(got[0], got[1])


def test_ema_in_function_creates_shadows_on_first_call_and_traces_once():
    v = tf.Variable([1.0, 2.0], name="ema_fn_v")
    step = tf.Variable(0, name="ema_fn_step")
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)

    @tf.function
    def train_step():
        v.assign_add([1.0, 0.5])
        step.assign_add(1)
        ema.apply([v])

    train_step()
    shadow = ema.average(v)
    assert shadow is not None
    for _ in range(4):
        train_step()
    assert ema.average(v) is shadow
    assert train_step.experimental_get_tracing_count() == 1

    # The same steps run eagerly in TF give the same numbers bit for bit.
    rv = real_tf.Variable([1.0, 2.0])
    rstep = real_tf.Variable(0)
    rema = real_tf.train.ExponentialMovingAverage(0.9, num_updates=rstep)
    for _ in range(5):
        rv.assign_add([1.0, 0.5])
        rstep.assign_add(1)
        rema.apply([rv])
    np.testing.assert_array_equal(shadow.numpy(), rema.average(rv).numpy())
    np.testing.assert_array_equal(v.numpy(), rv.numpy())


def test_ema_in_function_shadow_starts_from_the_value_at_apply_not_at_trace():
    """Deliberate difference (docs/compat.md): TF's tf.function creates the shadow at trace
    time, from the value before the step's own updates; tapejax's first call is eager."""
    results = {}
    for key, fw in FRAMEWORKS.items():
        v = fw.Variable([1.0, 2.0], name="ema_fn_start_v")
        ema = fw.train.ExponentialMovingAverage(0.5)

        @fw.function
        def train_step(v=v, ema=ema):
            v.assign_add([2.0, 2.0])
            ema.apply([v])

        train_step()
        results[key] = ema.average(v).numpy().tolist()
    assert results == {"tapejax": [3.0, 4.0], "tensorflow": [2.0, 3.0]}


def test_ema_names_match_tensorflow():
    names = {}
    for key, fw in FRAMEWORKS.items():
        w = fw.Variable([1.0], name="ema_names_w")
        e1 = fw.train.ExponentialMovingAverage(0.9)
        before = e1.average_name(w)
        e1.apply([w])
        e2 = fw.train.ExponentialMovingAverage(0.9)
        before_second = e2.average_name(w)
        e2.apply([w])
        with fw.name_scope("ema_names_outer"):
            c = fw.Variable(1.0, name="c")
            e2.apply([c])
        e3 = fw.train.ExponentialMovingAverage(0.5, name="ema_names_custom")
        names[key] = (
            before,
            e1.average(w).name,
            e1.average_name(w),
            before_second,
            e2.average(w).name,
            e2.average_name(w),
            e2.average(c).name,
            e3.name,
            e3.average_name(w),
            e3.average(w),
        )
    assert names["tapejax"] == names["tensorflow"]
    assert names["tapejax"][4] == "ema_names_w/ExponentialMovingAverage_1:0"


def test_ema_variables_to_restore_matches_tensorflow():
    maps = {}
    for key, fw in FRAMEWORKS.items():
        a = fw.Variable(1.0, name="ema_vtr_a")
        b = fw.Variable(2.0, name="ema_vtr_b")
        ema = fw.train.ExponentialMovingAverage(0.9, name="ema_vtr")
        ema.apply([a])
        explicit = ema.variables_to_restore([a, b])
        default = ema.variables_to_restore()
        maps[key] = (
            sorted((k, v.name) for k, v in explicit.items()),
            ("ema_vtr_a/ema_vtr", "ema_vtr_a:0") in [(k, v.name) for k, v in default.items()],
            ("ema_vtr_b/ema_vtr", "ema_vtr_b:0") in [(k, v.name) for k, v in default.items()],
        )
    assert maps["tapejax"] == maps["tensorflow"]
    assert maps["tapejax"][0] == [
        ("ema_vtr_a/ema_vtr", "ema_vtr_a:0"),
        ("ema_vtr_b/ema_vtr", "ema_vtr_b:0"),
    ]
    assert maps["tapejax"][1:] == (True, False)


def test_ema_apply_without_var_list_changes_nothing_as_tensorflow():
    for fw in FRAMEWORKS.values():
        v = fw.Variable(1.0, name="ema_none_v")
        ema = fw.train.ExponentialMovingAverage(0.5)
        ema.apply([v])
        v.assign(3.0)
        assert ema.apply() is None
        assert float(ema.average(v).numpy()) == 1.0


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e).split(" <tf.Tensor")[0].split(": Tensor(")[0]
    return None


@pytest.mark.parametrize(
    "case",
    [
        "tensor",
        "int_variable",
        "complex_variable",
        "scalar_variable",
        "vector_variable",
        "float64_decay",
    ],
)
def test_ema_errors_match_tensorflow(case, request):
    if case == "float64_decay":
        request.getfixturevalue("x64")  # a float64 tensor exists only with x64

    def make(fw):
        ema = fw.train.ExponentialMovingAverage(
            fw.constant(0.9, fw.float64) if case == "float64_decay" else 0.9
        )
        arg = {
            "tensor": lambda: [fw.constant([1.0])],
            "int_variable": lambda: [fw.Variable([1], name="ema_err_i")],
            "complex_variable": lambda: [fw.Variable(np.complex64(1 + 1j), name="ema_err_c")],
            "scalar_variable": lambda: fw.Variable(1.0),
            "vector_variable": lambda: fw.Variable([1.0, 2.0]),
            "float64_decay": lambda: [fw.Variable(1.0)],
        }[case]()
        return lambda: ema.apply(arg)

    got, want = _error(make(tf)), _error(make(real_tf))
    assert got is not None
    if case == "float64_decay":
        assert got[0] == want[0] == "ValueError"
        assert got[1].startswith("decay: Tensor conversion requested dtype float32")
        assert want[1].startswith("decay: Tensor conversion requested dtype float32")
    else:
        assert got == want


def test_ema_is_not_trackable_but_its_averages_are_checkpointed(tmp_path):
    v = tf.Variable([1.0, 2.0], name="ema_ckpt_v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply([v])
    v.assign([3.0, 4.0])
    ema.apply([v])
    with pytest.raises(ValueError, match="was expecting a trackable object"):
        tf.train.Checkpoint(ema=ema)
    with pytest.raises(ValueError, match="was expecting ema to be a trackable object"):
        real_tf.train.Checkpoint(ema=real_tf.train.ExponentialMovingAverage(0.5))
    ckpt = tf.train.Checkpoint(model=v, averages=[ema.average(v)])
    path = ckpt.save(str(tmp_path / "ckpt"))
    ema.average(v).assign([0.0, 0.0])
    ckpt.restore(path).assert_consumed()
    assert ema.average(v).numpy().tolist() == [2.0, 3.0]
    assert tf.train.load_checkpoint(path).get_tensor("averages/0").tolist() == [2.0, 3.0]


# -- CheckpointOptions --------------------------------------------------------------------


def test_checkpoint_options_write_callbacks_run_after_every_write(tmp_path):
    calls = []
    options = tf.train.CheckpointOptions(
        experimental_write_callbacks=[
            lambda path: calls.append(("one", path, os.path.exists(path + ".npz"))),
            lambda: calls.append(("none",)),
        ]
    )
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    written = ckpt.write(str(tmp_path / "w"), options=options)
    saved = ckpt.save(str(tmp_path / "s"), options=options)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "m"), max_to_keep=1)
    managed = manager.save(options=options)
    assert calls == [
        ("one", written, True),
        ("none",),
        ("one", saved, True),
        ("none",),
        ("one", managed, True),
        ("none",),
    ]
    with pytest.raises(AssertionError):
        tf.train.CheckpointOptions(experimental_write_callbacks=[lambda a, b: None])
    with pytest.raises(AssertionError):
        real_tf.train.CheckpointOptions(experimental_write_callbacks=[lambda a, b: None])


def test_checkpoint_options_attributes_match_tensorflow():
    for kwargs in [{}, {"enable_async": True}, {"experimental_io_device": "/job:localhost"}]:
        got = tf.train.CheckpointOptions(**kwargs)
        want = real_tf.train.CheckpointOptions(**kwargs)
        for name in (
            "experimental_io_device",
            "enable_async",
            "experimental_enable_async_checkpoint",
            "experimental_write_callbacks",
            "experimental_skip_slot_variables",
            "experimental_sharding_callback",
        ):
            assert getattr(got, name) == getattr(want, name), (kwargs, name)


def test_checkpoint_options_without_meaning_here_change_nothing(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    plain = ckpt.write(str(tmp_path / "plain"))
    for i, options in enumerate(
        [
            tf.train.CheckpointOptions(experimental_io_device="/job:localhost"),
            tf.train.CheckpointOptions(enable_async=True),
            tf.train.CheckpointOptions(experimental_enable_async_checkpoint=True),
        ]
    ):
        path = ckpt.write(str(tmp_path / f"opt{i}"), options=options)
        with np.load(plain + ".npz") as a, np.load(path + ".npz") as b:  # complete on return
            assert a.files == b.files
            for key in a.files:
                np.testing.assert_array_equal(a[key], b[key])
        v.assign([5.0, 6.0])
        ckpt.read(path, options=options).assert_consumed()
        assert v.numpy().tolist() == [1.0, 2.0]


def test_checkpoint_options_that_would_need_an_effect_raise():
    with pytest.raises(NotImplementedError, match="experimental_skip_slot_variables"):
        tf.train.CheckpointOptions(experimental_skip_slot_variables=True)
    with pytest.raises(NotImplementedError, match="experimental_sharding_callback"):
        tf.train.CheckpointOptions(experimental_sharding_callback=object())
    with pytest.raises(TypeError, match="CheckpointOptions or None"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).write("unused", options={"enable_async": True})


# -- get_checkpoint_state, load_checkpoint, checkpoints_iterator -------------------------------


def _managed(tmp_path, saves=3, max_to_keep=2):
    directory = str(tmp_path / "run")
    ckpt = tf.train.Checkpoint(
        w=tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3)),
        n=tf.Variable(7, trainable=False),
    )
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=max_to_keep)
    paths = [manager.save() for _ in range(saves)]
    return directory, paths


def test_get_checkpoint_state_reads_the_managers_record(tmp_path):
    directory, paths = _managed(tmp_path)
    state = tf.train.get_checkpoint_state(directory)
    assert state.model_checkpoint_path == paths[-1] == os.path.join(directory, "ckpt-3")
    assert state.all_model_checkpoint_paths == paths[1:]
    assert len(state.all_model_checkpoint_timestamps) == 2
    assert state.all_model_checkpoint_timestamps[0] <= state.all_model_checkpoint_timestamps[1]
    assert state.last_preserved_timestamp > 0
    # relative paths in the file, absolute in the result (TF's rule)
    with open(os.path.join(directory, "checkpoint")) as f:
        assert f.readline() == 'model_checkpoint_path: "ckpt-3"\n'
    # another state file name
    shutil.copy(os.path.join(directory, "checkpoint"), os.path.join(directory, "other"))
    assert tf.train.get_checkpoint_state(directory, latest_filename="other") == state
    assert tf.train.latest_checkpoint(directory, latest_filename="other") == paths[-1]
    assert tf.train.get_checkpoint_state(directory, latest_filename="missing") is None
    assert tf.train.get_checkpoint_state(str(tmp_path / "empty")) is None


def test_get_checkpoint_state_bad_files_as_tensorflow(tmp_path, caplog):
    directory = str(tmp_path)
    with open(os.path.join(directory, "nolatest"), "w") as f:
        f.write('all_model_checkpoint_paths: "x"\n')
    with open(os.path.join(directory, "garbage"), "w") as f:
        f.write("garbage here\n")
    for fw in FRAMEWORKS.values():
        with pytest.raises(ValueError, match=f"^Invalid checkpoint state loaded from {directory}$"):
            fw.train.get_checkpoint_state(directory, "nolatest")
    with caplog.at_level(logging.WARNING, logger="tapejax"):
        assert tf.train.get_checkpoint_state(directory, "garbage") is None
    assert "Checkpoint ignored" in caplog.text
    assert real_tf.train.get_checkpoint_state(directory, "garbage") is None


def test_load_checkpoint_reads_a_file_or_a_directorys_latest(tmp_path):
    directory, paths = _managed(tmp_path)
    for target in (directory, paths[-1], paths[-1] + ".npz"):
        reader = tf.train.load_checkpoint(target)
        assert reader.get_variable_to_shape_map() == {"w": [2, 3], "n": [], "save_counter": []}
        dtype_map = reader.get_variable_to_dtype_map()
        assert dtype_map["w"] == tf.float32 and dtype_map["n"] == tf.int32
        assert reader.has_tensor("w") and not reader.has_tensor("nope")
        np.testing.assert_array_equal(reader.get_tensor("w"), np.arange(6).reshape(2, 3))
        counter = reader.get_tensor("save_counter")
        assert isinstance(counter, np.generic) and int(counter) == 3  # a NumPy scalar, as TF's
    # the returned arrays are copies: changing one does not change the reader
    reader.get_tensor("w")[0, 0] = 100.0
    assert reader.get_tensor("w")[0, 0] == 0.0
    assert tf.train.load_checkpoint(paths[1]).get_tensor("save_counter") == 2


def test_load_checkpoint_errors_as_tensorflow(tmp_path):
    directory, paths = _managed(tmp_path, saves=1)
    reader = tf.train.load_checkpoint(directory)
    with pytest.raises(errors.NotFoundError, match="^Key nope not found in checkpoint$"):
        reader.get_tensor("nope")
    empty = str(tmp_path / "empty")
    os.makedirs(empty)
    missing = os.path.join(directory, "zzz")
    for fw in FRAMEWORKS.values():
        with pytest.raises(
            ValueError,
            match=f"^Couldn't find 'checkpoint' file or checkpoints in given directory {empty}$",
        ):
            fw.train.load_checkpoint(empty)
        with pytest.raises(
            fw.errors.NotFoundError,
            match=f"^Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {missing}$",
        ):
            fw.train.load_checkpoint(missing)


def test_checkpoints_iterator_yields_the_latest_then_stops_on_timeout(tmp_path):
    directory, paths = _managed(tmp_path)
    start = time.time()
    assert list(tf.train.checkpoints_iterator(directory, timeout=0.1)) == [paths[-1]]
    assert list(tf.train.checkpoints_iterator(str(tmp_path / "none"), timeout=0.1)) == []
    assert time.time() - start < 0.5  # a wait that would overrun the timeout ends at once


def test_checkpoints_iterator_asks_timeout_fn_and_sees_new_checkpoints(tmp_path):
    directory = str(tmp_path / "run")
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=3)
    first = manager.save()
    asked = []

    def timeout_fn():
        asked.append(manager.latest_checkpoint)
        if len(asked) == 2:
            manager.save()  # a new checkpoint while the iterator waits
        return len(asked) >= 4

    seen = list(tf.train.checkpoints_iterator(directory, timeout=0.01, timeout_fn=timeout_fn))
    assert seen == [first, os.path.join(directory, "ckpt-2")]
    # consulted after each yield and after each timed-out wait, as TF's loop does
    assert len(asked) == 4


# -- Coordinator ----------------------------------------------------------------------------


def _coordinator_story(fw):
    """The same sequence of Coordinator calls; returns what each framework observed."""
    seen = []
    coord = fw.train.Coordinator()
    seen.append(("fresh", coord.should_stop(), coord.joined, coord.wait_for_stop(0.001)))

    def worker(fail):
        with coord.stop_on_exception():
            if fail:
                raise ValueError("worker failed")
            coord.wait_for_stop()

    threads = [threading.Thread(target=worker, args=(i == 1,)) for i in range(3)]
    for t in threads:
        coord.register_thread(t) if t is threads[0] else None
        t.start()
    try:
        coord.join(threads[1:])
    except Exception as e:  # noqa: BLE001
        seen.append(("join", type(e).__name__, str(e)))
    seen.append(
        ("after", coord.should_stop(), coord.joined, all(not t.is_alive() for t in threads))
    )
    try:
        coord.raise_requested_exception()
    except Exception as e:  # noqa: BLE001
        seen.append(("raise_requested", type(e).__name__, str(e)))
    try:  # after join, a reported exception is raised at once
        raise KeyError("late")
    except KeyError as e:
        try:
            coord.request_stop(e)
        except Exception as e2:  # noqa: BLE001
            seen.append(("late", type(e2).__name__, str(e2)))
    coord.clear_stop()
    seen.append(("cleared", coord.should_stop(), coord.joined))
    coord.raise_requested_exception()

    # clean stop: OutOfRangeError stops the threads and is not re-raised
    coord.request_stop(fw.errors.OutOfRangeError(None, None, "end of input"))
    coord.join([])
    seen.append(("clean", coord.should_stop()))

    # a custom clean type; and the first exception reported wins
    coord = fw.train.Coordinator(clean_stop_exception_types=(KeyError,))
    coord.request_stop(KeyError("ignored"))
    seen.append(("custom clean", coord.should_stop()))
    coord.clear_stop()
    for message in ("first", "second"):
        try:
            raise RuntimeError(message)
        except RuntimeError as e:
            coord.request_stop(e)
    try:
        coord.join()
    except RuntimeError as e:
        seen.append(("first wins", str(e)))

    # threads still alive after the grace period
    coord = fw.train.Coordinator()
    release = threading.Event()
    straggler = threading.Thread(target=release.wait, name="straggler")
    straggler.start()
    coord.request_stop()
    try:
        coord.join([straggler], stop_grace_period_secs=0.01)
    except RuntimeError as e:
        seen.append(("straggler", str(e)))
    coord.clear_stop()
    coord.request_stop()
    coord.join([straggler], stop_grace_period_secs=0.0, ignore_live_threads=True)
    seen.append(("ignored straggler", coord.joined))
    release.set()
    straggler.join()
    return seen


def test_coordinator_matches_tensorflow():
    got = _coordinator_story(tf)
    want = _coordinator_story(real_tf)
    assert got == want
    assert ("join", "ValueError", "worker failed") in got
    assert ("straggler", "Coordinator stopped with threads still running: straggler") in got
    assert ("first wins", "first") in got


def test_coordinator_request_stop_outside_except_records_a_valueerror():
    """Deliberate difference (docs/compat.md): TF means to record a ValueError here, but its
    message formatting raises TypeError from request_stop and leaves the stop unrequested."""
    coord = tf.train.Coordinator()
    coord.request_stop(RuntimeError("not being handled"))
    assert coord.should_stop()
    with pytest.raises(
        ValueError,
        match=r"^ex must be a tuple or sys.exc_info must return the current exception: \(None, None, None\)$",
    ):
        coord.join()

    real = real_tf.train.Coordinator()
    with pytest.raises(TypeError, match="not all arguments converted"):
        real.request_stop(RuntimeError("not being handled"))
    assert not real.should_stop()
