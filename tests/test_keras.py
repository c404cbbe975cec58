"""tapejax.keras: the bridge's own guarantees (numbers against TF's Keras are in compat_tests).

Keras picks its backend once per process, when ``keras`` is first imported, and
``import tensorflow`` imports it: this module asks for JAX before anything can import
TensorFlow, and the import-order tests run in subprocesses.
"""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")

import subprocess  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tapejax as tf  # noqa: E402
from tapejax import keras  # noqa: E402
from tapejax._src import recorder  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(np.float32)


class OpCounter:
    """A recorder that counts the ops offered to tapes."""

    def __init__(self):
        self.ops = []

    def record(self, op, static, args, outs):
        self.ops.append(op.name)

    def variable_read(self, var, tensor):
        pass

    def variable_accessed(self, var):
        pass


def counting(fn):
    counter = OpCounter()
    recorder.push(counter)
    try:
        result = fn()
    finally:
        recorder.remove(counter)
    return counter.ops, result


def dense(units=2, **kwargs):
    layer = keras.layers.Dense(units, **kwargs)
    layer.build((None, 3))
    layer.set_weights(
        [RNG.standard_normal(w.shape).astype(np.float32) for w in layer.get_weights()]
    )
    return layer


# -- the backend ----------------------------------------------------------------------


def _python(code, **env):
    full_env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    full_env.update({"TF_CPP_MIN_LOG_LEVEL": "3", **env})
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=300
    )


def test_tensorflow_imported_first_gives_a_clear_error():
    pytest.importorskip("tensorflow")
    out = _python("import tensorflow\nimport tapejax.keras")
    assert out.returncode != 0
    assert "KerasBackendError" in out.stderr, out.stderr[-3000:]
    assert "KERAS_BACKEND=jax" in out.stderr


def test_tapejax_keras_imported_first_keeps_tensorflow_working():
    pytest.importorskip("tensorflow")
    out = _python(
        "import tapejax.keras, tensorflow as tf\n"
        "print(tf.keras.backend.backend(), float(tf.reduce_sum(tf.ones(3))))"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["jax", "3.0"]


def test_another_backend_requested_in_the_environment_is_refused():
    out = _python("import tapejax.keras", KERAS_BACKEND="torch")
    assert out.returncode != 0, out.stdout
    assert "the environment variable KERAS_BACKEND asks for ('torch')" in out.stderr


def test_backend_is_jax_here():
    assert keras.backend.backend() == "jax"


# -- layers ----------------------------------------------------------------------------


def test_weights_are_held_once_and_shared_with_keras():
    layer = dense()
    kernel = layer.keras_layer.kernel
    assert "_value" not in kernel.__dict__  # no second copy in the Keras variable
    assert kernel.value is layer.kernel._value
    layer.kernel.assign(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(layer.keras_layer.get_weights()[0], np.ones((3, 2)))
    layer.keras_layer.set_weights([np.zeros((3, 2), np.float32), np.ones(2, np.float32)])
    np.testing.assert_array_equal(layer.bias.numpy(), np.ones(2))
    assert [v.name for v in layer.trainable_variables] == [
        f"{layer.name}/kernel:0",
        f"{layer.name}/bias:0",
    ]


def test_a_call_is_one_recorded_op_compiled_once_per_shape():
    layer = dense(activation="tanh")
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        ops, _ = counting(lambda: layer(x))
    assert ops == ["KerasDense"]
    for _ in range(3):
        layer(x)
    (pattern,) = layer._caller._patterns.values()
    compiled = pattern.op._compiled[()]
    assert compiled._cache_size() == 1
    layer(tf.constant(np.ones((7, 3), np.float32)))
    assert compiled._cache_size() == 2
    assert len(layer._caller._patterns) == 1


def test_tape_gradients_equal_jax_gradients_of_the_same_math():
    layer = dense(activation="tanh")
    w, b = (np.asarray(v) for v in layer.trainable_variables)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.square(layer(x)))
    grads = tape.gradient(loss, [x] + layer.trainable_variables)

    def f(x, w, b):
        return jnp.sum(jnp.square(jnp.tanh(x @ w + b)))

    expected = jax.grad(f, argnums=(0, 1, 2))(X, w, b)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-5, atol=1e-6)


def test_batch_normalization_statistics_are_written_back():
    bn = keras.layers.BatchNormalization(momentum=0.5)
    x = tf.constant(X)
    bn(x, training=False)
    mean = bn.moving_mean
    np.testing.assert_array_equal(mean.numpy(), np.zeros(3))
    bn(x, training=True)
    np.testing.assert_allclose(mean.numpy(), 0.5 * X.mean(axis=0), rtol=1e-5)
    before = mean.numpy()
    bn(x, training=False)
    np.testing.assert_array_equal(mean.numpy(), before)

    step = tf.function(lambda x: bn(x, training=True))
    for _ in range(3):
        step(x)
    np.testing.assert_allclose(mean.numpy(), X.mean(axis=0) * (1 - 0.5**4), rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_dropout_draws_new_masks_eagerly_and_inside_function():
    drop = keras.layers.Dropout(0.5)
    x = tf.ones([50, 4])
    a, b = drop(x, training=True).numpy(), drop(x, training=True).numpy()
    assert set(np.unique(a)) <= {0.0, 2.0} and not np.array_equal(a, b)
    np.testing.assert_array_equal(drop(x).numpy(), np.ones((50, 4)))
    step = tf.function(lambda x: drop(x, training=True))
    c, d, e = (step(x).numpy() for _ in range(3))
    assert not np.array_equal(c, d) and not np.array_equal(d, e)
    assert step.experimental_get_tracing_count() == 1


class WithDropout(keras.Model):
    def __init__(self):
        super().__init__()
        self.drop = keras.layers.Dropout(0.9)

    def call(self, x):
        return self.drop(x)


def test_training_flag_reaches_nested_layers():
    model = WithDropout()
    x = tf.ones([20, 5])
    assert np.mean(model(x, training=True).numpy() == 0) > 0.5
    np.testing.assert_array_equal(model(x).numpy(), np.ones((20, 5)))
    np.testing.assert_array_equal(model(x, training=False).numpy(), np.ones((20, 5)))


class ScaledDense(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = keras.layers.Dense(2)

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="scale")
        self.offset = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, x):
        return self.inner(x * self.scale) + self.offset


def test_a_subclassed_layer_mixes_tapejax_ops_and_keras_layers():
    layer = ScaledDense()
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    # Keras's order: own weights first, then sublayers in assignment order.
    names = [v.name.split("/")[-1] for v in layer.trainable_variables]
    assert names == ["scale:0", "kernel:0", "bias:0"]
    assert len(layer.non_trainable_variables) == 1
    grads = tape.gradient(y, layer.trainable_variables)
    assert all(g is not None for g in grads)
    kernel = layer.inner.kernel.numpy()
    np.testing.assert_allclose(grads[0].numpy(), X.sum(0) * kernel.sum(1), rtol=1e-5)


def test_frozen_layer_has_no_trainable_variables():
    layer = dense()
    layer.trainable = False
    assert layer.trainable_variables == [] and len(layer.non_trainable_variables) == 2


def test_regularization_losses_are_differentiable():
    layer = dense(kernel_regularizer=keras.regularizers.L2(0.5))
    with tf.GradientTape() as tape:
        layer(tf.constant(X))
        (penalty,) = layer.losses
    grad = tape.gradient(penalty, layer.kernel)
    np.testing.assert_allclose(grad.numpy(), layer.kernel.numpy(), rtol=1e-5)  # 2 * 0.5 * w


def test_a_tapejax_op_works_as_a_keras_activation():
    layer = dense(activation=tf.nn.relu)
    reference = dense()
    reference.set_weights(layer.get_weights())
    x = tf.constant(X)
    np.testing.assert_allclose(layer(x).numpy(), np.maximum(reference(x).numpy(), 0), rtol=1e-6)


def test_config_round_trip():
    layer = keras.layers.Conv2D(3, 2, strides=2, name="c")
    again = keras.layers.Conv2D.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    assert type(again) is keras.layers.Conv2D


def test_functional_api_refuses_a_tapejax_layer():
    inputs = keras.Input((3,))
    with pytest.raises(NotImplementedError, match="functional API"):
        ScaledDense()(inputs)


# -- optimizers ------------------------------------------------------------------------


def _problem():
    w = tf.Variable(np.ones((3, 2), np.float32))
    b = tf.Variable(np.zeros(2, np.float32))

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant(X), w) + b))
        return loss, tape.gradient(loss, [w, b])

    return w, b, grads


def test_an_update_is_one_jitted_call_with_tapejax_slot_variables():
    w, b, grads = _problem()
    opt = keras.optimizers.Adam(0.1)
    for _ in range(3):
        opt.apply_gradients(zip(grads()[1], [w, b]))
    (update,) = opt._updates.values()
    assert update._cache_size() == 1
    assert all(isinstance(v, tf.Variable) for v in opt.variables)
    assert int(opt.iterations.numpy()) == 3
    assert len(opt.variables) == 2 + 2 * 2  # iterations, learning rate, m and v per variable


def test_optimizer_inside_function_matches_eager():
    results = []
    for compiled in (False, True):
        w, b, grads = _problem()
        opt = keras.optimizers.SGD(0.01, momentum=0.9)

        def step(opt=opt, grads=grads, variables=(w, b)):
            loss, g = grads()
            opt.apply_gradients(zip(g, variables))
            return loss

        run = tf.function(step) if compiled else step
        losses = [float(run()) for _ in range(4)]
        results.append((losses, w.numpy()))
        if compiled:
            assert run.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)


def test_none_gradients_are_skipped_with_keras_warning():
    w, b, grads = _problem()
    opt = keras.optimizers.SGD(0.1)
    g = grads()[1]
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(g[0], w), (None, b)])
    np.testing.assert_array_equal(b.numpy(), np.zeros(2))
    with pytest.raises(ValueError, match="No gradients provided for any variable."):
        opt.apply_gradients([(None, w), (None, b)])


def test_apply_gradients_needs_variables():
    with pytest.raises(TypeError, match="tapejax Variables"):
        keras.optimizers.SGD().apply_gradients([(tf.ones([2]), tf.ones([2]))])


def test_minimize_with_a_callable_and_with_a_tape():
    v = tf.Variable(3.0)
    opt = keras.optimizers.SGD(0.25)
    opt.minimize(lambda: v * v, [v])
    assert float(v) == pytest.approx(1.5)
    with tf.GradientTape() as tape:
        loss = v * v
    opt.minimize(loss, [v], tape=tape)
    assert float(v) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="`tape` is required"):
        opt.minimize(loss, [v])


# -- losses and metrics ------------------------------------------------------------------


def test_keras_losses_are_recorded_ops():
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    logits = tf.Variable(X)
    labels = tf.constant([0, 1, 2, 1])
    with tf.GradientTape() as tape:
        ops, loss = counting(lambda: loss_fn(labels, logits))
    grad = tape.gradient(loss, logits).numpy()
    softmax = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    np.testing.assert_allclose(grad, (softmax - np.eye(3)[[0, 1, 2, 1]]) / 4, rtol=1e-5)
    assert len(ops) == 1


def test_metrics_take_tensors_and_give_tensors():
    metric = keras.metrics.SparseCategoricalAccuracy()
    metric.update_state(tf.constant([0, 1]), tf.constant([[0.9, 0.1], [0.8, 0.2]]))
    result = metric.result()
    assert isinstance(result, tf.Tensor) and float(result) == 0.5
    metric.reset_state()
    assert float(metric.result()) == 0.0


# -- models ----------------------------------------------------------------------------


def _model():
    return keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)]
    )


def test_fit_traces_its_step_once_per_batch_shape():
    model = _model()
    model.compile(optimizer="adam", loss="mse")
    y = np.zeros((20, 2), np.float32)
    x = RNG.standard_normal((20, 3)).astype(np.float32)
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3
    assert history.history["loss"][-1] < history.history["loss"][0]
    # batches of 8, 8 and 4: one trace per shape (the very first call runs eagerly).
    assert model._train_function.experimental_get_tracing_count() == 2


def test_fit_takes_tensors_and_generators_and_traces_once_per_batch_shape():
    x = tf.constant(RNG.standard_normal((16, 3)).astype(np.float32))
    y = tf.zeros((16, 2))
    model = _model()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=8, epochs=2, verbose=0)  # Tensors, as arrays are

    def batches():
        while True:
            yield x.numpy()[:8], y.numpy()[:8]

    history = model.fit(batches(), steps_per_epoch=3, epochs=4, shuffle=False, verbose=0)
    assert len(history.history["loss"]) == 4
    # One batch shape throughout: the step traced once, whatever fed it.
    assert model._train_function.experimental_get_tracing_count() == 1
    assert model.evaluate(batches(), steps=2, verbose=0) == pytest.approx(
        model.evaluate(x[:8], y[:8], verbose=0), rel=1e-6
    )


def test_fit_takes_a_tf_data_dataset_where_tensorflow_is_installed():
    tensorflow = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((12, 3)).astype(np.float32)
    y = RNG.standard_normal((12, 2)).astype(np.float32)
    dataset = tensorflow.data.Dataset.from_tensor_slices((x, y)).batch(4)
    model, twin = _model(), _model()
    twin.set_weights(model.get_weights())
    for m in (model, twin):
        m.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(dataset, epochs=2, shuffle=False, verbose=0)
    same = twin.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], same.history["loss"], rtol=1e-6)


def test_a_keras_style_train_step_override_trains_as_the_default_does():
    """The guide's override (compute_loss, optimizer.apply, self.metrics) gives the
    default step's weights and losses; fit runs it eagerly, once per batch."""

    class Base(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    calls = []

    class Custom(Base):
        def train_step(self, data):
            calls.append(type(data[0]).__name__)
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x = RNG.standard_normal((16, 3)).astype(np.float32)
    y = RNG.standard_normal((16, 2)).astype(np.float32)
    plain, custom = Base(), Custom()
    plain(x[:1])
    custom(x[:1])
    custom.set_weights(plain.get_weights())
    histories = []
    for model in (plain, custom):
        model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
        histories.append(model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0))
    for a, b in zip(plain.get_weights(), custom.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for key in ("loss", "mae"):
        np.testing.assert_allclose(histories[0].history[key], histories[1].history[key], rtol=1e-6)
    assert calls == ["Tensor"] * 4  # two batches a epoch, as tapejax Tensors
    assert custom._train_function is None  # the default compiled step never ran


def _two_heads():
    inputs = keras.Input((3,))
    hidden = keras.layers.Dense(4, activation="relu", name="hid")(inputs)
    return keras.Model(
        inputs,
        [keras.layers.Dense(2, name="reg")(hidden), keras.layers.Dense(2, name="aux")(hidden)],
    )


class _AbsError(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)


def test_a_dict_of_losses_runs_tapejax_losses_as_themselves_and_logs_each_output():
    """A tapejax Loss in a dict is called as itself (Keras would wrap it as a function);
    the step's loss is the weighted sum, and each output's loss has its own metric."""
    model = _two_heads()
    x = RNG.standard_normal((8, 3)).astype(np.float32)
    ys = [RNG.standard_normal((8, 2)).astype(np.float32) for _ in range(2)]
    absolute = _AbsError()
    model.compile(
        optimizer=keras.optimizers.SGD(0.0),
        loss={"aux": absolute, "reg": "mse"},
        loss_weights={"reg": 1.0, "aux": 3.0},
    )
    logs = model.evaluate(x, ys, batch_size=8, verbose=0, return_dict=True)
    reg, aux = (np.asarray(p) for p in model(x))
    mse = np.mean((reg - ys[0]) ** 2)
    mae = np.mean(np.abs(aux - ys[1]))
    np.testing.assert_allclose(logs["loss"], mse + 3.0 * mae, rtol=1e-5)
    np.testing.assert_allclose([logs["reg_loss"], logs["aux_loss"]], [mse, mae], rtol=1e-5)
    assert any(entry.loss is absolute for entry in model._compile_loss._flat_losses)
    assert model.metrics_names == ["loss", "reg_loss", "aux_loss"]


def test_compute_loss_in_an_overridden_train_step_updates_each_outputs_loss_metric():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.reg, self.aux = keras.layers.Dense(2), keras.layers.Dense(2)

        def call(self, x):
            return [self.reg(x), self.aux(x)]

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = self.compute_loss(y=y, y_pred=self(x, training=True))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            return {m.name: m.result() for m in self.metrics if m.name != "loss"}

    model = Custom()
    x = RNG.standard_normal((8, 3)).astype(np.float32)
    ys = [RNG.standard_normal((8, 2)).astype(np.float32) for _ in range(2)]
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss=["mse", "mae"])
    logs = model.fit(x, ys, batch_size=8, epochs=1, verbose=0).history
    reg, aux = (np.asarray(p) for p in model(x))
    first, second = model.metrics_names[1:]  # Keras names them after the losses here
    np.testing.assert_allclose(logs[first], [np.mean((reg - ys[0]) ** 2)], rtol=1e-5)
    np.testing.assert_allclose(logs[second], [np.mean(np.abs(aux - ys[1]))], rtol=1e-5)


def test_fit_rejects_data_keras_does_not_take():
    model = _model()
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="Unrecognized data type"):
        model.fit({1, 2, 3}, verbose=0)

    def nothing():
        yield from ()

    with pytest.raises(ValueError, match="generator must yield at least one batch"):
        model.predict(nothing(), verbose=0)  # Keras's own check

    class Empty(keras.utils.PyDataset):
        def __len__(self):
            return 0

        def __getitem__(self, i):
            raise IndexError(i)

    with pytest.warns(UserWarning, match="ran out of data"):
        with pytest.raises(ValueError, match="got no batches"):
            model.predict(Empty(), verbose=0)
    with pytest.raises(ValueError, match="cannot be specified at the same time"):
        model.train_on_batch(
            np.zeros((2, 3), np.float32),
            np.zeros((2, 2), np.float32),
            sample_weight=np.ones(2, np.float32),
            class_weight={0: 1.0},
        )


def test_save_and_load_weights(tmp_path):
    model = _model()
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    other = _model()
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        model.save_weights(tmp_path / "m.h5")

    inputs = keras.Input((3,))
    functional = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    functional.save_weights(tmp_path / "f.weights.h5")
    copy = keras.Model(inputs2 := keras.Input((3,)), keras.layers.Dense(2)(inputs2))
    copy.load_weights(tmp_path / "f.weights.h5")
    for a, b in zip(functional.get_weights(), copy.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_summary_lists_layers_and_parameter_counts():
    lines = []
    _model().summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "Total params: 26" in text and "Dense" in text


def test_readme_demo_learns():
    from tapejax import demo

    assert demo.main(epochs=2) > 0.3  # ten classes: chance is 0.1


def test_functional_model_with_two_inputs_fits_with_a_callback_changing_the_learning_rate():
    a, b = keras.Input((3,)), keras.Input((2,))
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
    model = keras.Model([a, b], out)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    xa, xb = X[:, :3], X[:, :2]
    halve = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=1e9)
    history = model.fit([xa, xb], xa[:, :1], batch_size=2, epochs=3, verbose=0, callbacks=[halve])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1, 0.05])
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.025)
    assert model.predict([xa, xb], verbose=0).shape == (4, 1)


def test_overriding_call_of_a_bridged_layer_is_refused():
    with pytest.raises(NotImplementedError, match="would be ignored"):

        class Custom(keras.layers.Dense):
            def call(self, x):
                return x


def test_sequential_weights_files_are_keras_files(tmp_path):
    import keras as plain_keras  # Keras itself, on the same (JAX) backend

    reference = plain_keras.Sequential(
        [plain_keras.Input((3,)), plain_keras.layers.Dense(4), plain_keras.layers.Dense(2)]
    )
    reference.save_weights(tmp_path / "keras.weights.h5")
    model = _model()
    model.load_weights(tmp_path / "keras.weights.h5")
    for a, b in zip(reference.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    model.layers[0].kernel.assign(np.ones((3, 4), np.float32))
    model.save_weights(tmp_path / "ours.weights.h5")
    reference.load_weights(tmp_path / "ours.weights.h5")
    np.testing.assert_array_equal(reference.get_weights()[0], np.ones((3, 4)))


class Wrapped(keras.Model):
    def __init__(self):
        super().__init__()
        self.block = ScaledDense()

    def call(self, x):
        return self.block(x)


def test_subclassed_model_weights_round_trip(tmp_path):
    model, other = Wrapped(), Wrapped()
    model(tf.constant(X))
    other(tf.constant(X))
    model.block.scale.assign(np.full(3, 2.0, np.float32))
    model.save_weights(tmp_path / "w.weights.h5")
    other.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="holds 4 weights but the model has 0"):
        Wrapped().load_weights(tmp_path / "w.weights.h5")


def test_tf_optimizers_losses_metrics_initializers_are_the_keras_modules():
    tensorflow = pytest.importorskip("tensorflow")
    for name, cls in [
        ("optimizers", "SGD"),
        ("losses", "MeanSquaredError"),
        ("metrics", "Mean"),
        ("initializers", "GlorotUniform"),
    ]:
        # TF's are lazy loaders of its Keras modules: compare what they hold.
        assert getattr(getattr(tensorflow, name), cls) is getattr(
            getattr(tensorflow.keras, name), cls
        )
        assert getattr(tf, name) is getattr(keras, name)
    w = tf.Variable([1.0, 2.0])
    opt = tf.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.losses.MeanSquaredError()(tf.constant([0.0, 0.0]), w)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    np.testing.assert_allclose(w.numpy(), [0.9, 1.8], rtol=1e-6)  # d mean(w**2) / dw = w
    assert isinstance(tf.initializers.GlorotUniform()((2, 2)), tf.Tensor)
