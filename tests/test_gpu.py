"""tapejax on a GPU: device names, placement, memory statistics, and the core (tapes,
jacobians, ``tapejax.function`` steps, Keras) computing on the GPU what it computes on
the CPU.

Skipped where JAX sees no GPU (CI has none); ``tools/device_check.sh`` runs this module
with the rest of the device-relevant suite on a GPU machine.
"""

import os

import jax
import numpy as np
import pytest

import tapejax as tf

pytestmark = pytest.mark.skipif(
    not any(d.platform == "gpu" for d in jax.devices()), reason="JAX sees no GPU here"
)

# XLA's GPU dots take float32 inputs at TF32 precision by default, as TF's GPU matmuls do
# (tf.config.experimental.enable_tensor_float_32_execution is on by default): results
# agree with the CPU's to about 1e-3 relative, not to float32 rounding.
TF32_RTOL = 2e-2


def _platform(t) -> str:
    (dev,) = tf.convert_to_tensor(t).__jax_array__().devices()
    return dev.platform


def test_physical_and_logical_devices_name_the_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    assert gpus and gpus[0] == tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")
    assert tf.config.list_logical_devices("GPU")[0].name == "/device:GPU:0"
    assert tf.config.list_physical_devices("CPU")[0].device_type == "CPU"
    details = tf.config.experimental.get_device_details(gpus[0])
    assert details["device_name"] == jax.devices("gpu")[0].device_kind
    major, minor = details["compute_capability"]
    assert major >= 3 and minor >= 0
    assert (
        tf.config.experimental.get_device_details(tf.config.list_physical_devices("CPU")[0]) == {}
    )


def test_values_land_on_the_gpu_by_default_and_on_the_cpu_when_asked():
    t = tf.constant([1.0, 2.0]) * 2
    v = tf.Variable(tf.ones((3,)))
    assert t.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    assert v.device.endswith("device:GPU:0") and _platform(v) == "gpu"
    with tf.device("/CPU:0"):
        c = tf.constant([3.0, 4.0]) + 1
    assert c.device.endswith("device:CPU:0")
    with tf.device("/device:GPU:0"):
        g = tf.constant([1.0, 1.0]) * 5
    assert _platform(g) == "gpu"
    # TF copies between devices implicitly; so does tapejax (uncommitted JAX arrays).
    np.testing.assert_allclose((c + t).numpy(), [6.0, 9.0])
    with pytest.raises(ValueError, match="does not exist here"):
        with tf.device("/GPU:7"):
            pass


def test_memory_info_counts_gpu_allocations():
    before = tf.config.experimental.get_memory_info("GPU:0")
    assert set(before) == {"current", "peak"}
    big = tf.ones((1024, 1024, 16))  # 64 MiB of float32
    big.__jax_array__().block_until_ready()
    during = tf.config.experimental.get_memory_info("GPU:0")
    assert during["current"] >= before["current"] + 64 * 2**20
    assert during["peak"] >= during["current"]
    assert tf.config.experimental.get_memory_usage("GPU:0") >= 64 * 2**20
    del big
    with pytest.raises(ValueError, match="No matching devices found for 'GPU:9'"):
        tf.config.experimental.get_memory_info("GPU:9")


def test_memory_growth_reports_jaxs_allocator_policy():
    gpu = tf.config.list_physical_devices("GPU")[0]
    growing = os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE") == "false"
    assert tf.config.experimental.get_memory_growth(gpu) is growing
    with pytest.warns(UserWarning, match="XLA_PYTHON_CLIENT_PREALLOCATE"):
        tf.config.experimental.set_memory_growth(gpu, not growing)
    tf.config.experimental.set_memory_growth(gpu, growing)  # matches JAX's: no warning


def _mlp(seed=0):
    rng = np.random.default_rng(seed)
    w1 = rng.standard_normal((32, 64)).astype(np.float32) / 6
    w2 = rng.standard_normal((64, 16)).astype(np.float32) / 8
    x = rng.standard_normal((64, 32)).astype(np.float32)
    return w1, w2, x


def _on(device, fn):
    with tf.device(device):
        return fn()


def test_gradient_jacobian_and_batch_jacobian_on_gpu_match_the_cpu():
    w1n, w2n, xn = _mlp()

    def run():
        w1, w2, x = tf.Variable(w1n), tf.constant(w2n), tf.constant(xn)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.tanh(x @ w1) @ w2
            loss = tf.reduce_sum(y**2)
        out = [
            tape.gradient(loss, w1),
            tape.jacobian(y, w1),
            tape.batch_jacobian(y, x),
            tape.jacobian(y, w1, experimental_use_pfor=False),
        ]
        return [o.numpy() for o in out], [_platform(o) for o in out]

    gpu, places = _on("/GPU:0", run)
    cpu, _ = _on("/CPU:0", run)
    assert places == ["gpu"] * 4
    for g, c in zip(gpu, cpu, strict=True):
        assert g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=TF32_RTOL, atol=TF32_RTOL * np.abs(c).max())
    assert gpu[1].shape == (64, 16, 32, 64) and gpu[2].shape == (64, 16, 32)


def test_nested_tapes_and_forward_accumulator_on_gpu():
    x = tf.Variable([0.3, -1.2, 2.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.sin(x) * x**2)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    xn = np.array([0.3, -1.2, 2.0])
    second = 2 * np.sin(xn) + 4 * xn * np.cos(xn) - xn**2 * np.sin(xn)
    np.testing.assert_allclose(np.diag(h.numpy()), second, rtol=1e-5)
    assert _platform(h) == "gpu"
    with tf.autodiff.ForwardAccumulator(x, tf.ones(3)) as acc:
        z = x * tf.exp(x)
    np.testing.assert_allclose(acc.jvp(z).numpy(), np.exp(xn) * (1 + xn), rtol=1e-5)


def test_function_training_step_on_gpu_traces_once_and_keeps_variables_there():
    w1n, w2n, xn = _mlp(1)
    labels = np.random.default_rng(2).integers(0, 16, size=64).astype(np.int32)

    def make():
        w1, w2 = tf.Variable(w1n), tf.Variable(w2n)
        opt = tf.keras.optimizers.Adam(1e-2)

        def step(x, y):
            with tf.GradientTape() as tape:
                logits = tf.tanh(x @ w1) @ w2
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
                )
            grads = tape.gradient(loss, [w1, w2])
            opt.apply_gradients(zip(grads, [w1, w2]))
            return loss

        return step, (w1, w2)

    eager_step, _ = make()
    step, variables = make()
    compiled = tf.function(step)
    x, y = tf.constant(xn), tf.constant(labels)
    eager_losses = [float(eager_step(x, y)) for _ in range(20)]
    losses = [float(compiled(x, y)) for _ in range(20)]
    assert compiled.experimental_get_tracing_count() == 1
    assert losses[-1] < losses[0] * 0.7
    np.testing.assert_allclose(losses, eager_losses, rtol=TF32_RTOL)
    assert all(_platform(v) == "gpu" for v in variables)
    hlo = compiled.experimental_get_compiler_ir(x, y)(stage="hlo")
    assert "HloModule" in hlo


def test_function_donates_variable_buffers_on_gpu():
    """Step after step, the updated Variables reuse the donated buffers: GPU memory in use
    stays flat instead of growing by a copy of the weights per step."""
    w = tf.Variable(tf.ones((2048, 2048)))  # 16 MiB

    @tf.function
    def step(s):
        w.assign(w * s + 1.0)
        return tf.reduce_sum(w)

    for _ in range(3):
        step(tf.constant(0.5)).numpy()
    first = tf.config.experimental.get_memory_info("GPU:0")["current"]
    for _ in range(20):
        step(tf.constant(0.5)).numpy()
    after = tf.config.experimental.get_memory_info("GPU:0")["current"]
    assert after - first < 16 * 2**20
    np.testing.assert_allclose(w.numpy()[0, 0], 2.0, rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_keras_model_trains_on_gpu():
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "jax":
        pytest.skip("Keras is not on its JAX backend here")
    rng = np.random.default_rng(3)
    xn = rng.standard_normal((128, 8)).astype(np.float32)
    yn = (xn @ rng.standard_normal((8, 1))).astype(np.float32)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)]
    )
    opt = tf.keras.optimizers.SGD(0.05)
    x, y = tf.constant(xn), tf.constant(yn)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(step()) for _ in range(50)]
    assert losses[-1] < 0.5 * losses[0]
    assert all(_platform(v) == "gpu" for v in model.trainable_variables)


def test_numpy_of_a_gpu_tensor_is_a_writable_copy_of_its_own():
    t = tf.reshape(tf.range(24.0), (2, 3, 4))
    v = tf.Variable(t)
    for a, b in ((t.numpy(), t.numpy()), (v.numpy(), v.numpy())):
        assert a.flags.writeable and not np.shares_memory(a, b)
        a[0, 0, 0] = 100.0
        assert b[0, 0, 0] == 0.0
    assert t.numpy()[0, 0, 0] == 0.0 and v.numpy()[0, 0, 0] == 0.0
    np.asarray(t)  # JAX caches a read-only host copy; numpy() still hands out its own
    c = t.numpy()
    assert c.flags.writeable and not np.shares_memory(c, np.asarray(t))


def test_dlpack_hands_gpu_buffers_to_pytorch_without_copying():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU here")
    t = tf.reshape(tf.range(12.0), (3, 4)) * 2
    pt = torch.from_dlpack(tf.experimental.dlpack.to_dlpack(t))
    assert pt.is_cuda
    assert pt.data_ptr() == t.__jax_array__().unsafe_buffer_pointer()
    np.testing.assert_array_equal(pt.cpu().numpy(), t.numpy())
    back = tf.experimental.dlpack.from_dlpack(torch.arange(6.0, device="cuda").reshape(2, 3))
    assert _platform(back) == "gpu"
    np.testing.assert_array_equal(back.numpy(), np.arange(6.0).reshape(2, 3))
