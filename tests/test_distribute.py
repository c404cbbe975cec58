"""tapejax.distribute: data and tensor parallelism on 8 CPU devices, against one device.

JAX fixes its device count when it starts, so the multi-device checks run in one child
process (this file run as a script, with ``--xla_force_host_platform_device_count=8``)
and report back as JSON; each ``test_*`` below asserts one check's outcome. Checks that
need one device only run here directly.
"""

import json
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

N_DEVICES = 8


# -- the checks, run in the 8-device child -----------------------------------------------


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 6)).astype(np.float32)
    y = rng.standard_normal((64, 2)).astype(np.float32)
    return [(x[i : i + 16], y[i : i + 16]) for i in range(0, 64, 16)]


def _init():
    rng = np.random.default_rng(1)
    return {
        "w1": rng.standard_normal((6, 8)).astype(np.float32) * 0.5,
        "b1": np.zeros(8, np.float32),
        "w2": rng.standard_normal((8, 2)).astype(np.float32) * 0.5,
    }


def _train(strategy=None, *, compiled=True, use_run=True, shard=None, steps=None):
    """Trains the small MLP on ``_data()``; returns (losses, final weights, variables, step)."""
    import tapejax as tf

    def make():
        return {k: tf.Variable(v, name=k) for k, v in _init().items()}

    if strategy is None:
        params = make()
        batches = [tuple(tf.constant(a) for a in b) for b in _data()]
    else:
        with strategy.scope():
            params = make()
        for name, spec in (shard or {}).items():
            strategy.shard(params[name], spec)
        batches = list(strategy.experimental_distribute_dataset(_data()))

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, params["w1"]) + params["b1"])
            loss = tf.reduce_mean((tf.matmul(h, params["w2"]) - y) ** 2)
        names = sorted(params)
        grads = tape.gradient(loss, [params[k] for k in names])
        for k, g in zip(names, grads):
            params[k].assign_sub(0.1 * g)
        return loss

    def step(x, y):
        if strategy is not None and use_run:
            loss = strategy.run(replica_step, args=(x, y))
            return strategy.reduce("SUM", loss, axis=None)
        return replica_step(x, y)

    if compiled:
        step = tf.function(step)
    losses = [float(step(x, y)) for x, y in batches[:steps]]
    return losses, {k: v.numpy() for k, v in params.items()}, params, step


def _assert_same_training(reference, got):
    np.testing.assert_allclose(got[0], reference[0], rtol=1e-5)
    for k in reference[1]:
        np.testing.assert_allclose(got[1][k], reference[1][k], rtol=1e-5, atol=1e-6)


def _assert_sharding(variable, sharding):
    value = variable._value
    assert value.sharding.is_equivalent_to(sharding, value.ndim), (value.sharding, sharding)


def check_data_parallel_matches_one_device():
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    import tapejax.distribute as dist

    assert len(jax.devices()) == N_DEVICES
    reference = _train()
    strategy = dist.MirroredStrategy()
    assert strategy.num_replicas_in_sync == N_DEVICES
    got = _train(strategy)
    _assert_same_training(reference, got)
    replicated = NamedSharding(strategy.mesh, PartitionSpec())
    for v in got[2].values():
        _assert_sharding(v, replicated)
    step = got[3]
    assert step.experimental_get_tracing_count() == 1  # traced once, at the second call
    x, y = strategy.distribute_batch(_data()[0])
    hlo = step.experimental_get_compiler_ir(x, y)(stage="optimized_hlo")
    assert "all-reduce" in hlo, "XLA should reduce the gradients across devices"


def check_without_run_and_eagerly():
    import tapejax.distribute as dist

    reference = _train()
    strategy = dist.MirroredStrategy()
    # A compiled step that does not go through strategy.run still keeps the layout.
    _assert_same_training(reference, _train(strategy, use_run=False))
    # Eager steps (no tapejax.function): the tape's program runs on sharded arrays.
    losses, weights, params, _ = _train(strategy, compiled=False, steps=2)
    eager_ref = _train(compiled=False, steps=2)
    _assert_same_training(eager_ref[:2], (losses, weights))
    from jax.sharding import NamedSharding, PartitionSpec

    for v in params.values():
        _assert_sharding(v, NamedSharding(strategy.mesh, PartitionSpec()))


def check_assignments_keep_the_layout():
    from jax.sharding import NamedSharding, PartitionSpec

    import tapejax as tf
    import tapejax.distribute as dist
    from tapejax._src.distribute import placement

    strategy = dist.MirroredStrategy()
    replicated = NamedSharding(strategy.mesh, PartitionSpec())
    with strategy.scope():
        v = tf.Variable(np.arange(16, dtype=np.float32).reshape(8, 2))
    outside = tf.Variable(1.0)
    assert len(outside._value.sharding.device_set) == 1  # only Variables made in scope move
    _assert_sharding(v, replicated)
    v.assign(np.ones((8, 2), np.float32))
    _assert_sharding(v, replicated)
    v.assign_add(tf.ones([8, 2]))
    _assert_sharding(v, replicated)
    np.testing.assert_array_equal(v.numpy(), np.full((8, 2), 2.0, np.float32))
    strategy.shard(v, PartitionSpec("batch", None))
    split = NamedSharding(strategy.mesh, PartitionSpec("batch", None))
    _assert_sharding(v, split)
    v.assign_sub(tf.ones([8, 2]))
    _assert_sharding(v, split)
    np.testing.assert_array_equal(v.numpy(), np.ones((8, 2), np.float32))
    assert v.name == "Variable:0" and isinstance(v, tf.Variable)
    # A spec that does not divide the shape is refused and changes nothing.
    try:
        strategy.shard(v, PartitionSpec(None, "batch"))
    except ValueError as e:
        assert "must be divisible by the size of its mesh axes" in str(e), e
    else:
        raise AssertionError("an indivisible PartitionSpec should raise")
    _assert_sharding(v, split)
    v.assign_add(tf.ones([8, 2]))
    _assert_sharding(v, split)
    plain = tf.Variable(np.ones((6, 3), np.float32))
    try:
        strategy.shard(plain, PartitionSpec("batch"))
    except ValueError:
        pass
    assert type(plain) is tf.Variable and placement.sharding_of(plain) is None


def check_tensor_parallel_matches_one_device():
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    import tapejax.distribute as dist

    reference = _train()
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("batch", "model"))
    strategy = dist.MirroredStrategy(
        mesh=mesh, partition_rules=[(r"^w2", PartitionSpec("model", None))]
    )
    assert strategy.num_replicas_in_sync == 4
    got = _train(strategy, shard={"w1": PartitionSpec(None, "model")})
    _assert_same_training(reference, got)
    params = got[2]
    _assert_sharding(params["w1"], NamedSharding(mesh, PartitionSpec(None, "model")))
    _assert_sharding(params["w2"], NamedSharding(mesh, PartitionSpec("model", None)))
    _assert_sharding(params["b1"], NamedSharding(mesh, PartitionSpec()))
    # Each device holds half of w1's columns.
    shard_shapes = {s.data.shape for s in params["w1"]._value.addressable_shards}
    assert shard_shapes == {(6, 4)}, shard_shapes


def check_datasets_reduce_and_local_results():
    import tapejax as tf
    import tapejax.distribute as dist

    strategy = dist.MirroredStrategy()
    x = np.arange(48, dtype=np.float32).reshape(16, 3)
    batches = [
        {"x": x, "n": np.arange(16, dtype=np.int32), "lr": 0.5},
        {"x": x[:10], "n": np.arange(10, dtype=np.int32), "lr": 0.5},  # uneven: replicated
    ]
    full, uneven = list(strategy.experimental_distribute_dataset(batches))
    assert isinstance(full["x"], tf.Tensor) and full["x"].dtype == tf.float32
    assert full["n"].dtype == tf.int32
    assert full["lr"].dtype == tf.float32 and full["lr"]._value.sharding.is_fully_replicated
    (half,) = strategy.distribute_batch([tf.cast(tf.constant(x), tf.bfloat16)])
    assert half.dtype == tf.bfloat16 and half._value.sharding.spec == strategy.batch_sharding.spec
    assert full["x"]._value.sharding.spec == strategy.batch_sharding.spec
    assert len(uneven["x"]._value.sharding.device_set) == N_DEVICES
    assert uneven["x"]._value.sharding.is_fully_replicated
    np.testing.assert_array_equal(uneven["x"].numpy(), x[:10])
    pieces = strategy.experimental_local_results(full["x"])
    assert len(pieces) == N_DEVICES and all(p.shape == (2, 3) for p in pieces)
    np.testing.assert_array_equal(np.concatenate([p.numpy() for p in pieces]), x)
    np.testing.assert_allclose(strategy.reduce("SUM", full["x"], axis=0).numpy(), x.sum(0))
    np.testing.assert_allclose(
        strategy.reduce(dist.ReduceOp.MEAN, full["x"], axis=0).numpy(), x.mean(0)
    )
    loss = tf.constant(2.5)
    assert strategy.reduce("MEAN", loss, axis=None) is loss
    assert strategy.experimental_local_results(3) == (3,)


def check_scopes_and_devices():
    import tapejax as tf
    import tapejax.distribute as dist

    a = dist.MirroredStrategy(["/cpu:0", "CPU:1"])
    b = dist.MirroredStrategy()
    assert a.num_replicas_in_sync == 2
    assert not dist.has_strategy()
    assert dist.get_strategy().num_replicas_in_sync == 1  # TF's default strategy
    with a.scope():
        assert dist.has_strategy() and dist.get_strategy() is a
        with a.scope():  # re-entering the same strategy is fine
            v = tf.Variable([1.0, 2.0])
        try:
            with b.scope():
                pass
        except RuntimeError as e:
            assert "Mixing different tf.distribute.Strategy objects" in str(e)
        else:
            raise AssertionError("mixing strategies should raise")
    assert len(v._value.sharding.device_set) == 2
    with dist.get_strategy().scope():  # the default strategy places nothing
        w = tf.Variable(1.0)
    assert type(w) is tf.Variable


def _train_tf_recommended_way(tf, strategy, variable_kwargs):
    """TF's documented MirroredStrategy loop: loss = sum / global batch, reduce SUM.

    Runs with real TensorFlow or with tapejax (``tf``), so both execute the same code.
    """
    with strategy.scope():
        params = {k: tf.Variable(v, **variable_kwargs) for k, v in _init().items()}
    names = sorted(params)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, params["w1"]) + params["b1"])
            per_example = tf.reduce_sum((tf.matmul(h, params["w2"]) - y) ** 2, axis=1)
            loss = tf.reduce_sum(per_example) / 16.0  # = tf.nn.compute_average_loss(.., 16)
        grads = tape.gradient(loss, [params[k] for k in names])
        for k, g in zip(names, grads):
            params[k].assign_sub(0.1 * g)
        return loss

    @tf.function
    def step(x, y):
        return strategy.reduce("SUM", strategy.run(replica_step, args=(x, y)), axis=None)

    return [float(step(x, y)) for x, y in _tf_batches(tf, strategy)], {
        k: v.numpy() for k, v in params.items()
    }


def _tf_batches(tf, strategy):
    if hasattr(tf, "data"):  # real TF: a tf.data pipeline, each batch split over replicas
        x = np.concatenate([b[0] for b in _data()])
        y = np.concatenate([b[1] for b in _data()])
        return strategy.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        )
    return strategy.experimental_distribute_dataset(_data())


def check_matches_tensorflow_mirrored_strategy():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    try:
        import tensorflow as real_tf
    except ImportError:
        return "SKIP: tensorflow is not installed"
    import tapejax as tf
    import tapejax.distribute as dist

    cpu = real_tf.config.list_physical_devices("CPU")[0]
    real_tf.config.set_logical_device_configuration(
        cpu, [real_tf.config.LogicalDeviceConfiguration()] * 2
    )
    # TF updates a MirroredVariable in replica context by aggregating the replicas' deltas.
    expected = _train_tf_recommended_way(
        real_tf,
        real_tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]),
        {"aggregation": real_tf.VariableAggregation.SUM},
    )
    got = _train_tf_recommended_way(tf, dist.MirroredStrategy(), {})
    _assert_same_training(expected, got)


CHECKS = [
    check_data_parallel_matches_one_device,
    check_without_run_and_eagerly,
    check_assignments_keep_the_layout,
    check_tensor_parallel_matches_one_device,
    check_datasets_reduce_and_local_results,
    check_scopes_and_devices,
    check_matches_tensorflow_mirrored_strategy,
]


def _run_checks():
    results = {}
    for check in CHECKS:
        try:
            results[check.__name__] = check()
        except Exception:
            results[check.__name__] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))


# -- the tests, in this process ----------------------------------------------------------


def run_child(script, n_devices=N_DEVICES, args=()):
    """Runs ``script`` with ``n_devices`` CPU devices; returns its ``RESULTS`` JSON."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={n_devices}"
    )
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run(
        [sys.executable, script, *args], env=env, capture_output=True, text=True, timeout=300
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULTS "):
            return json.loads(line[len("RESULTS ") :])
    raise AssertionError(f"child failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}")


@pytest.fixture(scope="module")
def results():
    return run_child(__file__)


@pytest.mark.parametrize("check", [c.__name__ for c in CHECKS])
def test_on_eight_devices(results, check):
    assert check in results
    outcome = results[check]
    if outcome and outcome.startswith("SKIP: "):
        pytest.skip(outcome[len("SKIP: ") :])
    assert outcome is None, outcome


def test_single_device_strategy_runs_the_step_unchanged():
    import tapejax.distribute as dist

    strategy = dist.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    _assert_same_training(_train(), _train(strategy))


def test_errors():
    import jax
    from jax.sharding import Mesh, PartitionSpec

    import tapejax as tf
    import tapejax.distribute as dist

    with pytest.raises(ValueError, match="not an axis of the mesh"):
        dist.MirroredStrategy(batch_axis="data")
    with pytest.raises(ValueError, match="does not exist here"):
        dist.MirroredStrategy(["/gpu:7"])
    with pytest.raises(ValueError, match="either `devices` or `mesh`"):
        dist.MirroredStrategy(["/cpu:0"], mesh=Mesh(np.array(jax.devices()), ("batch",)))
    strategy = dist.MirroredStrategy()
    with pytest.raises(ValueError, match="names axis 'model', which the mesh lacks"):
        strategy.shard(tf.Variable([1.0]), PartitionSpec("model"))
    with pytest.raises(ValueError, match="reduce_op must be"):
        strategy.reduce("MAX", tf.constant(1.0), axis=None)
    with pytest.raises(TypeError, match="Expected a tapejax.Variable"):
        strategy.shard(tf.constant(1.0))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    _run_checks()
