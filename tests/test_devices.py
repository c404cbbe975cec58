"""TF device names mapped onto JAX devices."""

import contextlib
import os

import jax
import numpy as np
import pytest

import tapejax as tf


def test_list_physical_devices_names_jax_devices():
    cpus = tf.config.list_physical_devices("CPU")
    assert cpus and cpus[0].name == "/physical_device:CPU:0" and cpus[0].device_type == "CPU"
    assert len(tf.config.list_physical_devices()) >= len(cpus)
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"


def test_device_places_new_values():
    with tf.device("/CPU:0"):
        t = tf.constant([1.0, 2.0]) * 2
    assert t.device.endswith("CPU:0")
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        pass


def test_bad_device_names():
    with pytest.raises(ValueError, match="Invalid device specification"):
        with tf.device("nonsense"):
            pass
    if not any(d.platform == "gpu" for d in jax.devices()):
        with pytest.raises(ValueError, match="does not exist here"):
            with tf.device("/GPU:0"):
                pass


# -- tf.config, side by side with TF where TF runs here ---------------------------------------

tensorflow = pytest.importorskip("tensorflow")

# Left out of tapejax.config (docs/compat.md, "tapejax.config"): TF's cluster runtime.
LEFT_OUT = {
    "": {"experimental_connect_to_cluster", "experimental_connect_to_host"},
    "experimental": {"ClusterDeviceFilters", "enable_op_determinism", "reset_memory_stats"},
}


@pytest.mark.parametrize("ns", ["", "experimental", "optimizer", "threading"])
def test_config_namespaces_have_tfs_names_and_signatures(ns):
    import inspect

    ours = tf.config if not ns else getattr(tf.config, ns)
    theirs = tensorflow.config if not ns else getattr(tensorflow.config, ns)
    names = {n for n in dir(theirs) if not n.startswith("_")}
    assert set(ours.__all__) == names - LEFT_OUT.get(ns, set())
    for n in ours.__all__:
        a, b = getattr(ours, n), getattr(theirs, n)
        if callable(a) and not inspect.ismodule(a):
            assert list(inspect.signature(a).parameters) == list(inspect.signature(b).parameters), n


def test_visible_devices_and_logical_configuration_on_this_machine():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_visible_devices("CPU") == [cpu]
    assert tf.config.get_visible_devices() == tf.config.list_physical_devices()
    tf.config.set_visible_devices([cpu], "CPU")  # a no-change call, as TF allows
    tf.config.set_visible_devices(cpu, "CPU")
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"
    with pytest.raises(ValueError, match="at least one device must stay visible"):
        tf.config.set_visible_devices([])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:CPU:9", "CPU")])
    assert tf.config.get_logical_device_configuration(cpu) is None
    one = [tf.config.LogicalDeviceConfiguration()]
    tf.config.set_logical_device_configuration(cpu, one)
    assert tf.config.experimental.get_virtual_device_configuration(cpu) == one
    with pytest.raises(RuntimeError, match="^Virtual devices cannot be modified after being init"):
        tf.config.set_logical_device_configuration(cpu, one * 2)
    assert tf.config.LogicalDeviceConfiguration() == tensorflow.config.LogicalDeviceConfiguration()


def test_hiding_a_device_moves_new_values(tmp_path):
    """Two CPU devices (JAX's host device count, set before JAX starts, in a fresh
    process): hiding the first makes the second the default and the only one named."""
    import subprocess
    import sys

    script = tmp_path / "hide.py"
    script.write_text(
        "import tapejax as tf\n"
        "cpus = tf.config.list_physical_devices('CPU')\n"
        "assert len(cpus) == 2, cpus\n"
        "tf.config.set_visible_devices(cpus[1:])\n"
        "assert tf.config.get_visible_devices() == cpus[1:]\n"
        "assert [d.name for d in tf.config.list_logical_devices()] == ['/device:CPU:0']\n"
        "t = tf.constant([1.0]) * 2\n"
        "assert list(t._value.devices())[0].id == 1, t._value.devices()\n"
        "tf.config.set_visible_devices(cpus)\n"
        "assert list((tf.constant([1.0]) * 2)._value.devices())[0].id == 0\n"
        "print('ok')\n"
    )
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.mark.parametrize("fw", ["tapejax", "tensorflow"])
def test_memory_and_details_of_a_cpu_are_tfs(fw):
    cfg = {"tapejax": tf, "tensorflow": tensorflow}[fw].config
    cpu = cfg.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="^Cannot set memory growth on non-GPU"):
        cfg.experimental.set_memory_growth(cpu, True)
    with pytest.raises(KeyError):
        cfg.experimental.get_memory_growth(cpu)
    # TF reports zeros for its default CPU allocator, and no stats at all for the one it
    # uses with oneDNN off (as the tests run it); tapejax gives TF's default answer.
    if fw == "tapejax" or os.environ.get("TF_ENABLE_ONEDNN_OPTS") != "0":
        assert cfg.experimental.get_memory_info("CPU:0") == {"current": 0, "peak": 0}
        assert cfg.experimental.get_memory_usage("CPU:0") == 0
    assert cfg.experimental.get_device_details(cpu) == {}
    if not cfg.list_physical_devices("GPU"):
        with pytest.raises(ValueError, match="^No matching devices found for 'GPU:0'$"):
            cfg.experimental.get_memory_info("GPU:0")


@pytest.mark.skipif(not tf.config.list_physical_devices("GPU"), reason="needs a GPU")
def test_gpu_memory_and_details():
    gpu = tf.config.list_physical_devices("GPU")[0]
    details = tf.config.experimental.get_device_details(gpu)
    assert details["device_name"] and len(details.get("compute_capability", (0, 0))) == 2
    with tf.device("/GPU:0"):
        x = tf.ones([1024, 1024])
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] >= x.numpy().nbytes
    with (
        pytest.warns(UserWarning, match="XLA_PYTHON_CLIENT_PREALLOCATE")
        if not (tf.config.experimental.get_memory_growth(gpu))
        else contextlib.nullcontext()
    ):
        tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True


def test_switch_defaults_are_tfs():
    pairs = [
        ("get_soft_device_placement", ""),
        ("get_jit", "optimizer"),
        ("get_experimental_options", "optimizer"),
        ("get_inter_op_parallelism_threads", "threading"),
        ("get_intra_op_parallelism_threads", "threading"),
        ("get_device_policy", "experimental"),
        ("get_synchronous_execution", "experimental"),
        ("tensor_float_32_execution_enabled", "experimental"),
        ("functions_run_eagerly", ""),
    ]
    for name, ns in pairs:
        ours = getattr(getattr(tf.config, ns) if ns else tf.config, name)()
        theirs = getattr(getattr(tensorflow.config, ns) if ns else tensorflow.config, name)()
        assert ours == theirs, name


def test_switches_round_trip_and_do_nothing_on_xla():
    """The switches that steer TF's own runtime are kept but change nothing: the same
    function gives the same values with one trace, and a matmul is unchanged."""
    cfg = tf.config

    @tf.function
    def step(x):
        return tf.reduce_sum(tf.matmul(x, x))

    x = tf.constant(np.arange(16.0, dtype=np.float32).reshape(4, 4))
    before = float(step(x))
    setters = [
        (cfg.set_soft_device_placement, cfg.get_soft_device_placement, False, True),
        (cfg.optimizer.set_jit, cfg.optimizer.get_jit, "autoclustering", False),
        (
            cfg.threading.set_inter_op_parallelism_threads,
            cfg.threading.get_inter_op_parallelism_threads,
            1,
            0,
        ),
        (
            cfg.threading.set_intra_op_parallelism_threads,
            cfg.threading.get_intra_op_parallelism_threads,
            2,
            0,
        ),
        (cfg.experimental.set_device_policy, cfg.experimental.get_device_policy, "explicit", None),
        (
            cfg.experimental.set_synchronous_execution,
            cfg.experimental.get_synchronous_execution,
            False,
            True,
        ),
    ]
    try:
        for set_, get, value, _ in setters:
            set_(value)
            assert get() == value
        cfg.optimizer.set_experimental_options({"constant_folding": False})
        assert cfg.optimizer.get_experimental_options()["constant_folding"] is False
        cfg.experimental.disable_mlir_bridge()
        assert float(step(x)) == before and float(step(x + 0.0)) == before
        assert step.experimental_get_tracing_count() == 1
    finally:
        for set_, _, _, default in setters:
            set_(default)
        cfg.experimental.enable_mlir_bridge()
        from tapejax._src import runtime_config

        runtime_config._optimizer_options.pop("constant_folding")
    assert cfg.optimizer.get_jit() == "" and cfg.experimental.get_device_policy() == "silent"
    with pytest.raises(ValueError, match=r"^Invalid argument `device_policy`: 'bogus'. Please"):
        cfg.experimental.set_device_policy("bogus")
    with pytest.raises(ValueError, match=r"^Invalid argument `device_policy`: 'bogus'. Please"):
        tensorflow.config.experimental.set_device_policy("bogus")


def test_tensor_float_32_switch_is_jaxs_matmul_precision():
    assert jax.config.jax_default_matmul_precision is None
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        assert jax.config.jax_default_matmul_precision == "highest"
        assert tf.config.experimental.tensor_float_32_execution_enabled() is False
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(True)
    assert jax.config.jax_default_matmul_precision is None


def test_run_functions_eagerly_aliases():
    assert tf.config.experimental_run_functions_eagerly is tf.config.run_functions_eagerly
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.experimental_functions_run_eagerly() is True
    finally:
        tf.config.run_functions_eagerly(False)


# Checked above through a namespace variable (tools/tf_coverage.py).
OTHERWISE_TESTED = {
    "config.LogicalDevice",
    "config.get_soft_device_placement",
    "config.set_soft_device_placement",
}
