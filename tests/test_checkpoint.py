"""tapejax.train: Checkpoint and CheckpointManager, the .npz format, across processes and layouts.

The cross-process checks run this file as a script in a child process (with 8 CPU
devices, so the child can hold replicated and sharded Variables): the child restores
what this process saved onto its layouts, and saves from them for this process to
restore on one device.
"""

import json
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import tapejax as tf
import tapejax.train  # noqa: F401 - tf.train
from tapejax import errors


class Dense(tf.Module):
    def __init__(self, n_in, n_out, seed, name=None):
        super().__init__(name=name)
        rng = np.random.default_rng(seed)
        self.w = tf.Variable(rng.standard_normal((n_in, n_out)).astype(np.float32), name="w")
        self.b = tf.Variable(np.zeros(n_out, np.float32), name="b")


class Net(tf.Module):
    def __init__(self, seed=0):
        super().__init__()
        self.layers = [Dense(4, 8, seed), Dense(8, 2, seed + 1)]
        self.scale = {"gain": tf.Variable(1.5), "bias.v/x": tf.Variable([0.0, 1.0])}
        self.tied = self.layers[0].w  # the same Variable under a second path
        self.steps = tf.Variable(0, trainable=False)


class Momentum:
    """An optimizer-like object: Checkpoint saves what its ``variables`` lists."""

    def __init__(self, params):
        self.slots = [tf.Variable(np.zeros(p.shape, np.float32)) for p in params]
        self.iterations = tf.Variable(0)

    @property
    def variables(self):
        return [self.iterations, *self.slots]


def _values(variables):
    return [np.array(v.numpy()) for v in variables]


def _scramble(variables):
    for v in variables:
        v.assign(np.zeros(v.shape, v.dtype.as_numpy_dtype) + 7)


EXPECTED_KEYS = {
    "model/layers/0/b",
    "model/layers/0/w",
    "model/layers/1/b",
    "model/layers/1/w",
    "model/scale/bias..v.Sx",
    "model/scale/gain",
    "model/steps",
    "save_counter",
} | {f"opt/variables/{i}" for i in range(7)}  # iterations and 6 slots


def _model_and_optimizer(seed=0):
    net = Net(seed)
    opt = Momentum(net.trainable_variables)
    return net, opt


def test_roundtrip_keys_and_format(tmp_path):
    net, opt = _model_and_optimizer()
    opt.slots[0].assign_add(np.ones(opt.slots[0].shape, np.float32))
    ckpt = tf.train.Checkpoint(model=net, opt=opt)
    before = _values(list(net.variables) + opt.variables)
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1") and os.path.exists(path + ".npz")
    _scramble(list(net.variables) + opt.variables)
    status = ckpt.restore(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    for a, b in zip(before, _values(list(net.variables) + opt.variables)):
        np.testing.assert_array_equal(a, b)
    # The documented format: plain NumPy, keyed by object path, read without tapejax.
    with np.load(path + ".npz", allow_pickle=False) as data:
        assert set(data.files) == EXPECTED_KEYS | {"__tapejax_checkpoint__"}
        np.testing.assert_array_equal(data["model/layers/1/w"], net.layers[1].w.numpy())
        meta = json.loads(str(data["__tapejax_checkpoint__"]))
    assert meta["format"] == "tapejax-npz" and meta["version"] == 1
    assert meta["names"]["model/layers/0/w"] == "w:0"
    assert dict(tf.train.list_variables(path))["model/layers/0/w"] == [4, 8]
    np.testing.assert_array_equal(
        tf.train.load_variable(str(tmp_path), "model/scale/gain"), np.float32(1.5)
    )


class Wrapper:
    """An object that names its own state, whatever its attributes hold."""

    def __init__(self):
        self._internals = {"cache": [tf.Variable(1.0)]}
        self.layer = Dense(2, 2, seed=3)

    def _checkpoint_children(self):
        return {"kernel": self.layer.w, "bias": self.layer.b}


def test_objects_can_name_their_children(tmp_path):
    wrapper = Wrapper()
    path = tf.train.Checkpoint(net=wrapper).write(str(tmp_path / "c"))
    assert [k for k, _ in tf.train.list_variables(path)] == ["net/bias", "net/kernel"]
    expected = wrapper.layer.w.numpy()
    wrapper.layer.w.assign(np.zeros((2, 2), np.float32))
    tf.train.Checkpoint(net=wrapper).restore(path).assert_consumed()
    np.testing.assert_array_equal(wrapper.layer.w.numpy(), expected)


def test_bfloat16_and_int_values_roundtrip(tmp_path):
    v = tf.Variable(tf.constant([1.5, -2.25, 3.0], dtype=tf.bfloat16))
    n = tf.Variable([1, 2, 3])
    ckpt = tf.train.Checkpoint(v=v, n=n)
    path = ckpt.write(str(tmp_path / "w"))
    v.assign(tf.zeros([3], tf.bfloat16))
    n.assign([0, 0, 0])
    ckpt.read(path).assert_consumed()
    assert v.dtype == tf.bfloat16 and v.numpy().tolist() == [1.5, -2.25, 3.0]
    assert n.numpy().tolist() == [1, 2, 3]
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # write records no state


def test_save_numbering_state_file_and_counter_restore(tmp_path):
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    p1 = ckpt.save(str(tmp_path / "ckpt"))
    v.assign(2.0)
    p2 = ckpt.save(str(tmp_path / "ckpt"))
    assert (os.path.basename(p1), os.path.basename(p2)) == ("ckpt-1", "ckpt-2")
    assert tf.train.latest_checkpoint(str(tmp_path)) == p2
    # TF's text format, paths relative to the directory.
    state = (tmp_path / "checkpoint").read_text().splitlines()
    assert state[:2] == ['model_checkpoint_path: "ckpt-2"', 'all_model_checkpoint_paths: "ckpt-2"']
    fresh = tf.train.Checkpoint(v=tf.Variable(0.0))
    fresh.restore(p1 + ".npz").assert_consumed()  # with or without the suffix
    assert float(fresh.v) == 1.0 and int(fresh.save_counter.numpy()) == 1
    assert os.path.basename(fresh.save(str(tmp_path / "again"))) == "again-2"
    # Attributes set later are tracked too.
    fresh.extra = tf.Variable(3.0)
    fresh.write(str(tmp_path / "extra"))
    assert "extra" in dict(tf.train.list_variables(str(tmp_path / "extra")))


def test_shared_variable_saved_once_and_partial_restores(tmp_path):
    net = Net()
    path = tf.train.Checkpoint(model=net).write(str(tmp_path / "m"))
    keys = dict(tf.train.list_variables(path))
    assert "model/tied" not in keys and "model/layers/0/w" in keys
    # A program with fewer objects: values left over.
    small = tf.train.Checkpoint(model=Dense(4, 8, seed=5))
    status = small.restore(path)
    with pytest.raises(AssertionError, match="not bound to checkpointed values"):
        status.assert_consumed()
    status.expect_partial()
    # A program with more objects: Variables left without a value.
    bigger = tf.train.Checkpoint(model=Net(), other=tf.Variable(1.0))
    status = bigger.restore(path)
    with pytest.raises(AssertionError, match="Found 1 Python objects"):
        status.assert_existing_objects_matched()
    np.testing.assert_array_equal(bigger.model.layers[1].w.numpy(), net.layers[1].w.numpy())
    none = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        none.assert_consumed()


def test_errors_match_tf(tmp_path):
    with pytest.raises(errors.NotFoundError, match="Failed to find any matching files for"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nope-1"))
    path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(str(tmp_path / "a"))
    with pytest.raises(
        ValueError,
        match=r"Received incompatible tensor with shape \(2,\) when attempting to restore "
        r"variable with shape \(3,\) and name Variable:0\.",
    ):
        tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0])).restore(path)
    with pytest.raises(ValueError, match="Received a float32 value"):
        tf.train.Checkpoint(v=tf.Variable([1, 2])).restore(path)
    with pytest.raises(ValueError, match="`Checkpoint` was expecting a trackable object"):
        tf.train.Checkpoint(v=3.0)
    np.savez(tmp_path / "plain.npz", v=np.ones(2))
    with pytest.raises(ValueError, match="is not a tapejax checkpoint"):
        tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).restore(str(tmp_path / "plain"))


def test_manager_keeps_the_last_n_and_recovers_its_state(tmp_path):
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.restore_or_initialize() is None
    for i in range(4):
        v.assign(float(i))
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4"]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.npz", "ckpt-4.npz"]
    assert manager.latest_checkpoint == tf.train.latest_checkpoint(str(tmp_path))
    # A new manager (a restarted job) finds them, restores the latest, keeps numbering.
    v2 = tf.Variable(-1.0)
    ckpt2 = tf.train.Checkpoint(v=v2)
    manager2 = tf.train.CheckpointManager(ckpt2, str(tmp_path), max_to_keep=2)
    assert manager2.checkpoints == manager.checkpoints
    assert manager2.restore_or_initialize() == manager.latest_checkpoint
    assert float(v2) == 3.0 and int(ckpt2.save_counter.numpy()) == 4
    assert os.path.basename(manager2.save()) == "ckpt-5"
    assert os.path.basename(manager2.save(checkpoint_number=100)) == "ckpt-100"
    assert [os.path.basename(p) for p in manager2.checkpoints] == ["ckpt-5", "ckpt-100"]


def test_manager_interval_init_fn_and_hourly_keep(tmp_path, monkeypatch):
    step = tf.Variable(0)
    called = []
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(step=step),
        str(tmp_path / "a"),
        max_to_keep=None,
        step_counter=step,
        checkpoint_interval=3,
        init_fn=lambda: called.append(1),
    )
    assert manager.restore_or_initialize() is None and called == [1]
    saved = []
    for _ in range(7):
        saved.append(manager.save() is not None)
        step.assign_add(1)
    assert saved == [True, False, False, True, False, False, True]
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), 1, checkpoint_interval=1)

    from tapejax._src import checkpoint as impl

    clock = [1000.0]
    monkeypatch.setattr(impl.time, "time", lambda: clock[0])
    hourly = tf.train.CheckpointManager(
        tf.train.Checkpoint(v=tf.Variable(1.0)),
        str(tmp_path / "b"),
        max_to_keep=1,
        keep_checkpoint_every_n_hours=1,
    )
    for _ in range(4):
        clock[0] += 1800.0  # half an hour between saves
        hourly.save()
    # ckpt-1 (at 0.5 h) is not an hour past the start; ckpt-2 (1 h) is kept; ckpt-3 is not.
    assert sorted(os.listdir(tmp_path / "b")) == ["checkpoint", "ckpt-2.npz", "ckpt-4.npz"]


# -- across processes and device layouts --------------------------------------------------


def _child_restore_onto_layouts(path, out_path):
    """In the 8-device child: restore a one-device save onto replicated and split Variables."""
    from jax.sharding import NamedSharding, PartitionSpec

    import tapejax.distribute as dist

    strategy = dist.MirroredStrategy()
    with strategy.scope():
        net, opt = _model_and_optimizer(seed=42)  # other initial values
    strategy.shard(net.layers[0].w, PartitionSpec(None, "batch"))
    ckpt = tf.train.Checkpoint(model=net, opt=opt)
    ckpt.restore(path).assert_consumed()
    split = NamedSharding(strategy.mesh, PartitionSpec(None, "batch"))
    replicated = NamedSharding(strategy.mesh, PartitionSpec())
    w = net.layers[0].w._value
    assert w.sharding.is_equivalent_to(split, 2), w.sharding
    assert {s.data.shape for s in w.addressable_shards} == {(4, 1)}
    b = net.layers[1].b._value
    assert b.sharding.is_equivalent_to(replicated, 1), b.sharding
    values = {v.name + str(i): v.numpy().tolist() for i, v in enumerate(net.variables)}
    # Now train-ish (change the values) and save from these layouts for the parent.
    for v in net.trainable_variables:
        v.assign_add(np.ones(v.shape, np.float32))
    ckpt.save(out_path)
    return values


def _child_main(path, out_path):
    results = {}
    try:
        results["restored"] = _child_restore_onto_layouts(path, out_path)
        results["error"] = None
    except Exception:
        results["error"] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))


def test_restore_across_processes_and_layouts(tmp_path):
    net, opt = _model_and_optimizer(seed=0)
    ckpt = tf.train.Checkpoint(model=net, opt=opt)
    path = ckpt.save(str(tmp_path / "one_device"))

    env = dict(os.environ)
    env["XLA_FLAGS"] = env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run(
        [sys.executable, __file__, path, str(tmp_path / "eight_devices")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS ")]
    assert lines, f"child failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    results = json.loads(lines[0][len("RESULTS ") :])
    assert results["error"] is None, results["error"]
    expected = {v.name + str(i): v.numpy().tolist() for i, v in enumerate(net.variables)}
    assert results["restored"] == expected

    # What the child saved from its sharded layout restores here, on one device.
    before = _values(net.trainable_variables)
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert os.path.basename(latest) == "eight_devices-2"  # the restored counter went on
    ckpt.restore(latest).assert_consumed()
    for a, v in zip(before, net.trainable_variables):
        np.testing.assert_allclose(v.numpy(), a + 1.0)
        assert len(v._value.sharding.device_set) == 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    _child_main(sys.argv[1], sys.argv[2])
