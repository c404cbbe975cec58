"""tapejax.distribute's TF API around the strategies: contexts, input functions, options.

Numbers are compared with live TensorFlow: TF's ``MirroredStrategy`` on two logical CPUs
against tapejax's on two CPU devices, in one child process (this file run as a script,
as ``tests/test_distribute.py`` does, since JAX and TF fix their device counts when they
start); one-device checks (``OneDeviceStrategy``, the default strategy) run here.
"""

import json
import os
import sys
import traceback

import numpy as np
import pytest

N_DEVICES = 2
GLOBAL_BATCH = 16

# Names the tests reach through a variable (``d = lib.distribute``), for
# tools/tf_coverage.py.
OTHERWISE_TESTED = {
    "distribute." + n
    for n in (
        "CrossDeviceOps",
        "DistributedDataset",
        "DistributedIterator",
        "HierarchicalCopyAllReduce",
        "InputContext",
        "InputOptions",
        "InputReplicationMode",
        "NcclAllReduce",
        "ReductionToOneDevice",
        "ReplicaContext",
        "RunOptions",
        "StrategyExtended",
        "experimental_set_strategy",
        "has_strategy",
        "in_cross_replica_context",
        "get_replica_context",
        "OneDeviceStrategy",
        "Strategy",
        "DistributedValues",
        "experimental.CollectiveCommunication",
        "experimental.CommunicationImplementation",
        "experimental.CommunicationOptions",
        "experimental.ValueContext",
    )
}


def _data():
    rng = np.random.default_rng(0)
    # 40 examples: per-replica batches of 8, the last global batch has one replica's only.
    x = rng.standard_normal((40, 6)).astype(np.float32)
    y = rng.standard_normal((40, 2)).astype(np.float32)
    return x, y


def _init():
    rng = np.random.default_rng(1)
    return {
        "w1": rng.standard_normal((6, 8)).astype(np.float32) * 0.5,
        "b1": np.zeros(8, np.float32),
        "w2": rng.standard_normal((8, 2)).astype(np.float32) * 0.5,
    }


def _train_with_all_reduce(tf, strategy):
    """A TF custom loop: per-replica batches from ``distribute_datasets_from_function``,
    ``loss = sum / GLOBAL_BATCH``, gradients all-reduced by the replica context.

    Runs with real TensorFlow or with tapejax (``tf``), so both execute the same code.
    """
    with strategy.scope():
        params = {
            k: tf.Variable(v, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
            for k, v in _init().items()
        }
    names = sorted(params)
    contexts = []

    def dataset_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        x, y = _data()
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(
            ctx.get_per_replica_batch_size(GLOBAL_BATCH)
        )

    def replica_step(x, y):
        ctx = tf.distribute.get_replica_context()
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, params["w1"]) + params["b1"])
            per_example = tf.reduce_sum((tf.matmul(h, params["w2"]) - y) ** 2, axis=1)
            loss = tf.reduce_sum(per_example) / GLOBAL_BATCH
        grads = ctx.all_reduce(
            tf.distribute.ReduceOp.SUM, tape.gradient(loss, [params[k] for k in names])
        )
        for k, g in zip(names, grads):
            params[k].assign_sub(0.1 * g)
        count = ctx.all_reduce("SUM", tf.cast(tf.shape(x)[0], tf.float32))
        return loss, count

    @tf.function
    def step(x, y):
        loss, count = strategy.run(replica_step, args=(x, y))
        return strategy.reduce("SUM", loss, axis=None), strategy.experimental_local_results(count)[
            0
        ]

    dist = strategy.distribute_datasets_from_function(dataset_fn)
    out = [[float(v) for v in step(x, y)] for x, y in dist]
    return out, {k: v.numpy() for k, v in params.items()}, contexts


_TF_STRATEGY = []


def _tf_strategy(real_tf):
    """One TF MirroredStrategy for all checks: a second one would reuse the first one's
    collective instance keys in the same process, and TF's collectives then abort."""
    if not _TF_STRATEGY:
        _TF_STRATEGY.append(real_tf.distribute.MirroredStrategy())
    return _TF_STRATEGY[0]


def check_datasets_from_function_and_all_reduce_match_tensorflow():
    import tensorflow as real_tf

    import tapejax as tf

    expected = _train_with_all_reduce(real_tf, _tf_strategy(real_tf))
    got = _train_with_all_reduce(tf, tf.distribute.MirroredStrategy())
    assert got[2] == expected[2] == [(1, 0, 2)], (got[2], expected[2])
    # Steps: two full global batches, then one replica's 8 examples (TF: and an empty one).
    assert [s[1] for s in expected[0]] == [16.0, 16.0, 8.0], expected[0]
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5)
    for k in expected[1]:
        np.testing.assert_allclose(got[1][k], expected[1][k], rtol=1e-5, atol=1e-6)


def _replica_values(tf, strategy, global_value):
    """``global_value(v)``: the value every replica holds (TF: its first local result;
    tapejax: the value itself, which keeps the batch's sharding)."""
    x = np.arange(8, dtype=np.float32)

    def fn(v):
        ctx = tf.distribute.get_replica_context()
        return (
            ctx.all_reduce("SUM", tf.reduce_sum(v)),
            ctx.all_reduce(tf.distribute.ReduceOp.MEAN, tf.reduce_mean(v)),
            ctx.all_gather(v, 0),
            tf.reduce_sum(v) / ctx.num_replicas_in_sync,
            ctx.all_reduce("SUM", tf.constant(1.0)),
        )

    (batch,) = list(
        strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(8))
    )
    # Compiled, as TF orders the replicas' collectives in a function only.
    results = tf.function(lambda b: strategy.run(fn, args=(b,)))(batch)
    sums = strategy.run(lambda v: v * v, args=(batch,))
    from_values = strategy.experimental_distribute_values_from_function(
        lambda c: np.array([c.replica_id_in_sync_group, 0.5], np.float32)
    )
    gathered = tf.function(
        lambda b: strategy.run(
            lambda v: tf.distribute.get_replica_context().all_gather(v, 0), args=(b,)
        )
    )(from_values)
    doubled = strategy.gather(strategy.run(lambda v: 2 * v, args=(batch,)), axis=0)
    return (
        [global_value(r).numpy().tolist() for r in results] + [doubled.numpy().tolist()],
        [t.numpy().tolist() for t in strategy.experimental_local_results(sums)],
        global_value(gathered).numpy().tolist(),
        [t.numpy().tolist() for t in strategy.experimental_local_results(gathered)],
        strategy.extended.worker_devices,
    )


def check_replica_context_matches_tensorflow():
    import tensorflow as real_tf

    import tapejax as tf

    theirs = _tf_strategy(real_tf)
    expected = _replica_values(real_tf, theirs, lambda r: theirs.experimental_local_results(r)[0])
    got = _replica_values(tf, tf.distribute.MirroredStrategy(), lambda r: r)
    assert got[0][:3] == expected[0][:3], (got, expected)
    assert got[0][5] == expected[0][5] == [2.0 * i for i in range(8)], (got, expected)
    # A sum over the batch divided by the replica count: TF's per-replica sums / 2 are
    # [3, 11]; in global view, the global sum / 2 (documented in docs/compat.md).
    assert expected[0][3] == 3.0 and got[0][3] == 14.0, (got, expected)
    # A value independent of the batch: TF adds one per replica; global view has one.
    assert expected[0][4] == 2.0 and got[0][4] == 1.0, (got, expected)
    # all_gather keeps the global value's sharding: its per-device pieces are slices,
    # where TF gives each replica the whole.
    assert expected[3] == [[0.0, 0.5, 1.0, 0.5]] * 2, expected
    assert got[3] == [[0.0, 0.5], [1.0, 0.5]], got
    assert got[4] == expected[4], (got, expected)
    # The per-device pieces of a batch-split value are TF's per-replica values.
    assert got[1] == expected[1], (got, expected)
    assert got[2] == expected[2] == [0.0, 0.5, 1.0, 0.5], (got, expected)


def check_per_replica_apis_refuse_with_several_replicas():
    import tapejax as tf

    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == N_DEVICES
    assert len(strategy.extended.worker_devices) == N_DEVICES

    def fn(v):
        ctx = tf.distribute.get_replica_context()
        for call in (
            lambda: ctx.replica_id_in_sync_group,
            lambda: ctx.merge_call(lambda s: s),
            lambda: ctx.all_gather(tf.reshape(v, [2, -1]), 1),
            lambda: strategy.gather(tf.reshape(v, [2, -1]), axis=1),
        ):
            with pytest.raises(NotImplementedError, match="global"):
                call()
        return ctx.num_replicas_in_sync

    assert strategy.run(fn, args=(tf.constant(np.zeros(8, np.float32)),)) == N_DEVICES
    with pytest.raises(NotImplementedError, match="scalars, one per replica"):
        strategy.experimental_distribute_values_from_function(lambda c: 1.0)
    dist = strategy.distribute_datasets_from_function(
        lambda c: tf.data.Dataset.from_tensor_slices(np.zeros((12, 3), np.float32)).batch(
            c.get_per_replica_batch_size(8), drop_remainder=True
        )
    )
    # The global batch's spec: its first dim is unknown (the last may hold fewer batches).
    assert dist.element_spec.shape.as_list() == [None, 3]
    assert [b.shape.as_list() for b in dist] == [[8, 3], [4, 3]]
    options = tf.distribute.InputOptions(
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA
    )
    with pytest.raises(NotImplementedError, match="PER_REPLICA"):
        strategy.distribute_datasets_from_function(lambda c: [], options)


CHECKS = [
    check_datasets_from_function_and_all_reduce_match_tensorflow,
    check_replica_context_matches_tensorflow,
    check_per_replica_apis_refuse_with_several_replicas,
]


def _run_checks():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    os.environ.setdefault("KERAS_BACKEND", "jax")
    try:
        import tensorflow as real_tf
    except ImportError:
        print("RESULTS " + json.dumps({c.__name__: "SKIP: no tensorflow" for c in CHECKS}))
        return
    cpu = real_tf.config.list_physical_devices("CPU")[0]
    real_tf.config.set_logical_device_configuration(
        cpu, [real_tf.config.LogicalDeviceConfiguration()] * N_DEVICES
    )
    results = {}
    for check in CHECKS:
        try:
            results[check.__name__] = check()
        except Exception:
            results[check.__name__] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))


# -- the tests, in this process ----------------------------------------------------------


@pytest.fixture(scope="module")
def results():
    from test_distribute import run_child

    return run_child(__file__, n_devices=N_DEVICES)


@pytest.mark.parametrize("check", [c.__name__ for c in CHECKS])
def test_on_two_devices(results, check):
    assert check in results
    outcome = results[check]
    if outcome and outcome.startswith("SKIP: "):
        pytest.skip(outcome[len("SKIP: ") :])
    assert outcome is None, outcome


def _contexts(tf, strategy):
    """What the context functions answer outside, in a scope, in run and in merge_call."""
    d = tf.distribute
    out = []

    def seen():
        ctx = d.get_replica_context()
        if ctx is None:
            return (None, d.in_cross_replica_context(), d.has_strategy())
        rid = ctx.replica_id_in_sync_group
        return (
            isinstance(ctx, d.ReplicaContext),
            ctx.num_replicas_in_sync,
            int(rid),
            type(rid).__name__ == "int",
            d.in_cross_replica_context(),
            d.has_strategy(),
            ctx.strategy is d.get_strategy(),
        )

    out.append(seen())
    with d.get_strategy().scope():
        out.append(seen())
    with strategy.scope():
        out.append(seen())
    out.append(strategy.run(seen))
    out.append(strategy.run(lambda: d.get_replica_context().merge_call(lambda s: seen())))
    d.experimental_set_strategy(strategy)
    try:
        out.append((d.get_strategy() is strategy, seen()))
        with strategy.scope():
            out.append(seen())
    finally:
        d.experimental_set_strategy(None)
    out.append(seen())
    with pytest.raises(RuntimeError, match="Must not be called inside a `tf.distribute"):
        with strategy.scope():
            d.experimental_set_strategy(strategy)
    return out


def test_contexts_are_tfs():
    tf_ = pytest.importorskip("tensorflow")
    import tapejax as tf

    expected = _contexts(tf_, tf_.distribute.OneDeviceStrategy("/cpu:0"))
    assert _contexts(tf, tf.distribute.OneDeviceStrategy("/cpu:0")) == expected
    assert expected[0] == (True, 1, 0, True, False, False, True)  # the default context


def _one_device(tf, strategy):
    d = tf.distribute
    with strategy.scope():
        w = tf.Variable(np.ones((3, 1), np.float32))
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
    ds = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(4))

    @tf.function
    def step(b):
        def replica(b):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.matmul(b, w) ** 2)
            g = d.get_replica_context().all_reduce("SUM", tape.gradient(loss, w))
            w.assign_sub(0.1 * g)
            return loss

        return strategy.reduce("MEAN", strategy.run(replica, args=(b,)), axis=None)

    it = iter(ds)
    losses = [float(step(it.get_next())), float(step(it.get_next()))]
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    optional = iter(ds).get_next_as_optional()
    return (
        losses,
        w.numpy().tolist(),
        w.device,
        isinstance(strategy, d.Strategy),
        isinstance(it, d.DistributedIterator),
        isinstance(ds, d.DistributedDataset),
        isinstance(strategy.extended, d.StrategyExtended),
        bool(optional.has_value()),
        optional.get_value().numpy().tolist(),
        bool(ds.__iter__().__class__ is it.__class__),
        str(ds.element_spec),
        strategy.extended.worker_devices,
        strategy.extended.parameter_devices,
        strategy.extended.experimental_require_static_shapes,
        strategy.extended.should_checkpoint,
        strategy.num_replicas_in_sync,
        float(strategy.reduce("SUM", tf.constant([1.0, 2.0]), axis=0)),
        float(strategy.reduce(d.ReduceOp.MEAN, tf.constant([1.0, 2.0]), axis=0)),
        isinstance(tf.constant(1.0), d.DistributedValues),
    )


def test_one_device_strategy_is_tfs():
    tf_ = pytest.importorskip("tensorflow")
    import tapejax as tf

    expected = _one_device(tf_, tf_.distribute.OneDeviceStrategy("/cpu:0"))
    got = _one_device(tf, tf.distribute.OneDeviceStrategy("/cpu:0"))
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)
    assert got[2:] == expected[2:]
    empty = iter(
        tf.distribute.OneDeviceStrategy("/cpu:0").experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices(np.zeros(2, np.float32)).batch(2)
        )
    )
    next(empty)
    assert not empty.get_next_as_optional().has_value()


def test_default_strategy_is_a_strategy_and_its_extended_is_tfs():
    tf_ = pytest.importorskip("tensorflow")
    import tapejax as tf

    for lib in (tf_, tf):
        default = lib.distribute.get_strategy()
        assert isinstance(default, lib.distribute.Strategy)
        assert not isinstance(default, lib.distribute.MirroredStrategy)
        with pytest.raises(RuntimeError, match="unsupported by default tf.distribute.Strategy"):
            default.extended.worker_devices  # noqa: B018 - the access is the test
        assert default.extended.should_checkpoint
    assert isinstance(tf.distribute.MirroredStrategy(), tf.distribute.Strategy)
    with pytest.raises(NotImplementedError, match="MirroredStrategy"):
        tf.distribute.Strategy(tf.distribute.get_strategy().extended)
    with pytest.raises(NotImplementedError, match="no DistributedValues"):
        tf.distribute.DistributedValues(())


def test_options_and_cross_device_ops_are_tfs():
    tf_ = pytest.importorskip("tensorflow")
    import tapejax as tf

    for lib in (tf_, tf):
        d = lib.distribute
        assert isinstance(d.NcclAllReduce(num_packs=2), d.CrossDeviceOps)
        assert isinstance(d.HierarchicalCopyAllReduce(), d.CrossDeviceOps)
        assert isinstance(d.ReductionToOneDevice(reduce_to_device="/cpu:0"), d.CrossDeviceOps)
        lib.distribute.MirroredStrategy(cross_device_ops=d.HierarchicalCopyAllReduce())
    for name in ("NcclAllReduce", "HierarchicalCopyAllReduce"):
        with pytest.raises(ValueError) as theirs:
            getattr(tf_.distribute, name)(num_packs=-1)
        with pytest.raises(ValueError) as ours:
            getattr(tf.distribute, name)(num_packs=-1)
        assert str(ours.value) == str(theirs.value)
    for make in (
        lambda d: d.InputOptions(),
        lambda d: d.InputOptions(experimental_fetch_to_device=False),
        lambda d: d.RunOptions(),
        lambda d: d.InputContext(2, 1, 4),
        lambda d: d.InputContext(1, 0, 2).get_per_replica_batch_size(8),
        lambda d: d.experimental.CommunicationOptions(implementation="nccl"),
        lambda d: d.experimental.ValueContext(1, 2),
        lambda d: list(d.InputReplicationMode),
        lambda d: d.experimental.CollectiveCommunication.RING.value,
    ):
        assert str(make(tf.distribute)) == str(make(tf_.distribute))
    for bad in (
        lambda d: d.InputContext(1, 0, 2).get_per_replica_batch_size(7),
        lambda d: d.experimental.CommunicationOptions(bytes_per_pack=-1),
        lambda d: d.experimental.CommunicationOptions(implementation=3),
    ):
        with pytest.raises(ValueError) as theirs:
            bad(tf_.distribute)
        with pytest.raises(ValueError) as ours:
            bad(tf.distribute)
        assert str(ours.value) == str(theirs.value)
    ctx = tf.distribute.get_replica_context()
    options = tf.distribute.experimental.CommunicationOptions()
    assert float(ctx.all_reduce("SUM", 2.0, options=options)) == 2.0
    with pytest.raises(ValueError, match="reduce_op must be"):
        ctx.all_reduce("MAX", 1.0)


def test_names_not_provided_say_why():
    import tapejax as tf

    with pytest.raises(NotImplementedError, match="jax.distributed.initialize"):
        tf.distribute.MultiWorkerMirroredStrategy  # noqa: B018 - the access is the test
    with pytest.raises(NotImplementedError, match="parameter servers"):
        tf.distribute.experimental.ParameterServerStrategy  # noqa: B018
    assert not hasattr(tf.distribute, "TPUStrategy")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    _run_checks()
