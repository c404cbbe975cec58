"""Keras models from tapejax.keras against TensorFlow's Keras: training gives the same numbers.

Sequential, functional and subclassed models start from the same weights (set from a
fixed NumPy generator) and train on the same fixed data without shuffling; the cases
return losses per step or per epoch, metrics, final weights and predictions.
TensorFlow's side runs in a subprocess (see ``test_keras_harness``).
"""

from __future__ import annotations

import numpy as np

from compat_tests import harness
from compat_tests.test_keras_harness import keras_case

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((40, 4)).astype(np.float32)
_Y = (np.argmax(_X[:, :3] + 0.3 * _RNG.standard_normal((40, 3)), axis=1)).astype(np.int32)
_IMAGES = _RNG.standard_normal((32, 8, 8, 1)).astype(np.float32)
_LABELS = (_IMAGES[:, :4].mean(axis=(1, 2, 3)) > 0).astype(np.int32) + (
    _IMAGES[:, 4:].mean(axis=(1, 2, 3)) > 0
).astype(np.int32)

TOL = {"rtol": 2e-4, "atol": 2e-5}


def _init(model, seed=1, scale=0.3):
    rng = np.random.default_rng(seed)
    weights = []
    for w in model.get_weights():
        values = (rng.standard_normal(w.shape) * scale).astype(w.dtype)
        weights.append(values)
    model.set_weights(weights)


def _mlp(tf):
    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,)),
            L.Dense(8, activation="relu"),
            L.BatchNormalization(),
            L.Dense(3),
        ]
    )
    _init(model)
    weights = model.get_weights()
    weights[5] = np.abs(weights[5]) + 0.5  # a positive moving variance
    model.set_weights(weights)
    return model


@keras_case(**TOL)
def case_sequential_fit_evaluate_predict(tf):
    model = _mlp(tf)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    history = model.fit(
        _X[:32],
        _Y[:32],
        batch_size=8,
        epochs=3,
        shuffle=False,
        verbose=0,
        validation_data=(_X[32:], _Y[32:]),
    )
    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "evaluate": model.evaluate(_X, _Y, batch_size=16, verbose=0),
        "predict": model.predict(_X[:5], verbose=0),
        "weights": model.get_weights(),
    }


@keras_case(**TOL)
def case_sequential_fit_mse_adam_validation_split(tf):
    L = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(5, activation="tanh"), L.Dense(1)])
    _init(model)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    y = _X[:, :1] * 2.0 - _X[:, 1:2]
    history = model.fit(
        _X, y, batch_size=10, epochs=2, shuffle=False, verbose=0, validation_split=0.25
    )
    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "evaluate": model.evaluate(_X, y, verbose=0, return_dict=True),
    }


@keras_case(**TOL)
def case_functional_model(tf):
    L = tf.keras.layers
    inputs = tf.keras.Input((4,))
    a = L.Dense(6, activation="relu")(inputs)
    b = L.Dense(3, activation="tanh")(inputs)
    merged = L.Concatenate()([a, b])
    outputs = L.Dense(2)(merged)
    model = tf.keras.Model(inputs, outputs)
    _init(model)
    x = tf.constant(_X[:6])
    with tf.GradientTape() as tape:
        y = model(x)
        loss = tf.reduce_sum(y * y)
    grads = tape.gradient(loss, model.trainable_variables)
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(_X, _X[:, :2], batch_size=20, epochs=2, shuffle=False, verbose=0)
    return {"y": y, "grads": grads, "loss": history.history["loss"], "n_layers": len(model.layers)}


@keras_case(**TOL)
def case_custom_training_loop_conv_classifier_3_epochs(tf):
    """The README's loop: a small conv net, GradientTape, Adam, 3 epochs of 4 batches."""
    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((8, 8, 1)),
            L.Conv2D(4, 3, activation="relu", padding="same"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(3),
        ]
    )
    _init(model)
    optimizer = tf.keras.optimizers.Adam(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses = []
    for _epoch in range(3):
        for i in range(0, 32, 8):
            x, y = tf.constant(_IMAGES[i : i + 8]), tf.constant(_LABELS[i : i + 8])
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            losses.append(loss)
    return {"losses": tf.stack(losses), "weights": model.get_weights()}


@keras_case(**TOL)
def case_subclassed_model(tf):
    L = tf.keras.layers

    class Residual(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = L.Dense(4, activation="relu")
            self.outer = L.Dense(4)
            self.norm = L.LayerNormalization()

        def call(self, x, training=None):
            h = self.outer(self.inner(x))
            return self.norm(x + h * 0.5, training=training)

    model = Residual()
    x = tf.constant(_X[:5])
    model(x)
    _init(model)
    with tf.GradientTape() as tape:
        y = model(x)
        loss = tf.reduce_sum(tf.square(y - 1.0))
    grads = tape.gradient(loss, model.trainable_variables)
    return {
        "y": y,
        "grads": grads,
        "names": [v.name.split(":")[0].split("/")[-1] for v in model.trainable_variables],
    }


@keras_case(**TOL)
def case_regularization_losses_in_fit(tf):
    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,)),
            L.Dense(
                3,
                kernel_regularizer=tf.keras.regularizers.L2(0.05),
                activity_regularizer=tf.keras.regularizers.L1(0.01),
            ),
        ]
    )
    _init(model)
    model(tf.constant(_X[:4]))
    n_losses = len(model.losses)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(_X, _X[:, :3], batch_size=20, epochs=2, shuffle=False, verbose=0)
    return {"n_losses": n_losses, "loss": history.history["loss"], "weights": model.get_weights()}


@keras_case()
def case_early_stopping(tf):
    model = _mlp(tf)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    stop = tf.keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=10.0, patience=1)
    history = model.fit(
        _X[:32],
        np.zeros((32, 3), np.float32),
        batch_size=16,
        epochs=6,
        shuffle=False,
        verbose=0,
        validation_data=(_X[32:], np.zeros((8, 3), np.float32)),
        callbacks=[stop],
    )
    return {"epochs": len(history.history["loss"]), "stopped_epoch": stop.stopped_epoch}


@keras_case(rtol=1e-4, atol=1e-5)
def case_batch_jacobian_batch_normalization_caveat(tf):
    """TF's advanced autodiff guide: BatchNorm in training couples the batch, so the
    full jacobian has off-diagonal blocks that batch_jacobian does not report."""
    L = tf.keras.layers
    x = tf.constant(_X[:7, :4])
    layer1 = L.Dense(8, activation="elu")
    bn = L.BatchNormalization()
    layer2 = L.Dense(6, activation="elu")
    layer1.build((None, 4))
    bn.build((None, 8))
    layer2.build((None, 8))
    for i, layer in enumerate([layer1, layer2]):
        _init(layer, seed=5 + i)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer2(bn(layer1(x), training=True))
    j = tape.jacobian(y, x)
    jb = tape.batch_jacobian(y, x)
    off_diagonal = tf.reduce_max(tf.abs(j[0, :, 1]))
    return {"jb": jb, "j_shape": j.shape.as_list(), "off_diagonal_nonzero": bool(off_diagonal > 0)}


def _compiled_mlp(tf):
    model = _mlp(tf)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def _batches_of(n, x=_X, y=_Y, size=8):
    """A generator over ``(x, y)`` batches, repeated without end."""
    while True:
        for i in range(0, n, size):
            yield x[i : i + size], y[i : i + size]


@keras_case(**TOL)
def case_fit_class_weight(tf):
    model = _compiled_mlp(tf)
    history = model.fit(
        _X,
        _Y,
        batch_size=8,
        epochs=2,
        shuffle=False,
        verbose=0,
        class_weight={0: 0.5, 1: 2.0, 2: 1.5},
    )
    return {"loss": history.history["loss"], "weights": model.get_weights()}


@keras_case(**TOL)
def case_train_and_test_on_batch_class_weight(tf):
    """Each call's logs are its own batch's (Keras resets the metrics first)."""
    model = _compiled_mlp(tf)
    logs = []
    for i in range(0, 24, 8):
        logs.append(model.train_on_batch(_X[i : i + 8], _Y[i : i + 8]))
        logs.append(
            model.train_on_batch(_X[i : i + 8], _Y[i : i + 8], class_weight={0: 3.0, 2: 0.25})
        )
        logs.append(model.test_on_batch(_X[i + 8 : i + 16], _Y[i + 8 : i + 16]))
    return {"logs": logs, "weights": model.get_weights()}


@keras_case(error=True)
def case_class_weight_with_sample_weight_raises(tf):
    model = _compiled_mlp(tf)
    model.train_on_batch(
        _X[:8], _Y[:8], sample_weight=np.ones(8, np.float32), class_weight={0: 2.0}
    )


@keras_case(**TOL)
def case_fit_generator_steps_per_epoch(tf):
    """A repeating generator with steps_per_epoch, generator validation data, and
    evaluate and predict on generators with ``steps``."""
    model = _compiled_mlp(tf)
    history = model.fit(
        _batches_of(32),
        steps_per_epoch=4,
        epochs=2,
        verbose=0,
        validation_data=_batches_of(8, _X[32:], _Y[32:], size=4),
        validation_steps=2,
    )

    def inputs():
        for i in range(0, 16, 8):
            yield (_X[i : i + 8],)

    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "evaluate": model.evaluate(_batches_of(16), steps=2, verbose=0, return_dict=True),
        "predict": model.predict(inputs(), verbose=0),
        "weights": model.get_weights(),
    }


@keras_case(**TOL)
def case_fit_py_dataset(tf):
    class Batches(tf.keras.utils.PyDataset):
        def __init__(self, x, y, size):
            super().__init__()
            self.x, self.y, self.size = x, y, size

        def __len__(self):
            return -(-len(self.x) // self.size)

        def __getitem__(self, i):
            part = slice(i * self.size, (i + 1) * self.size)
            return self.x[part], self.y[part]

    model = _compiled_mlp(tf)
    history = model.fit(Batches(_X[:32], _Y[:32], 8), epochs=2, shuffle=False, verbose=0)
    return {
        "loss": history.history["loss"],
        "evaluate": model.evaluate(Batches(_X, _Y, 16), verbose=0),
        "predict": model.predict(Batches(_X[:12], _Y[:12], 5), verbose=0),
        "weights": model.get_weights(),
    }


@keras_case(**TOL)
def case_custom_train_step_and_test_step(tf):
    """Keras's "customizing what happens in fit" guide: a model overriding train_step
    and test_step with its own metric objects."""

    class CustomModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(8, activation="relu")
            self.out = tf.keras.layers.Dense(1)
            self.loss_tracker = tf.keras.metrics.Mean(name="loss")
            self.mae_metric = tf.keras.metrics.MeanAbsoluteError(name="mae")

        def call(self, x):
            return self.out(self.hidden(x))

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            self.loss_tracker.update_state(tf.reduce_mean(tf.square(y - y_pred)))
            self.mae_metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    model = CustomModel()
    model(tf.constant(_X[:2]))
    _init(model)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05))
    y = _X[:, :1] - 0.5 * _X[:, 1:2]
    history = model.fit(
        _X[:32],
        y[:32],
        batch_size=8,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(_X[32:], y[32:]),
    )
    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "evaluate": model.evaluate(_X, y, batch_size=10, verbose=0, return_dict=True),
        "weights": model.get_weights(),
    }


@keras_case(error=True)
def case_guide_train_step_on_train_on_batch_raises(tf):
    """Keras hands train_on_batch's step ``(x, y, sample_weight)``, so the guide's
    ``x, y = data`` fails there, in Keras and in tapejax alike."""

    class CustomModel(tf.keras.Sequential):
        def train_step(self, data):
            x, y = data
            return {}

    model = CustomModel([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.train_on_batch(_X[:8], _X[:8, :1])


def _two_outputs(tf, as_dict=False):
    """A functional model with a regression head ``reg`` and a 3-class head ``cls``."""
    L = tf.keras.layers
    inputs = tf.keras.Input((4,))
    hidden = L.Dense(8, activation="relu", name="hid")(inputs)
    reg = L.Dense(2, name="reg")(hidden)
    cls = L.Dense(3, name="cls")(hidden)
    model = tf.keras.Model(inputs, {"reg": reg, "cls": cls} if as_dict else [reg, cls])
    _init(model)
    return model


_REG = _X[:, :2] * 0.5 - _X[:, 2:]


def _fit_two_outputs(model, y, validation_y):
    history = model.fit(
        _X[:32],
        y,
        batch_size=8,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(_X[32:], validation_y),
    )
    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "metrics_names": model.metrics_names,
        "weights": model.get_weights(),
    }


@keras_case(**TOL)
def case_two_outputs_list_of_losses_and_weights(tf):
    """One loss per output, weighted: the logs hold each output's unweighted loss."""
    model = _two_outputs(tf)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.05),
        loss=["mse", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)],
        loss_weights=[1.0, 0.5],
        metrics=[["mae"], ["accuracy"]],
    )
    out = _fit_two_outputs(model, [_REG[:32], _Y[:32]], [_REG[32:], _Y[32:]])
    out["evaluate"] = model.evaluate(_X, [_REG, _Y], batch_size=16, verbose=0)
    return out


@keras_case(**TOL)
def case_two_outputs_dict_of_losses_by_output_name(tf):
    """A dict of losses and weights keyed by the output layers' names, labels as a dict."""
    model = _two_outputs(tf)
    model.compile(
        optimizer=tf.keras.optimizers.Adam(0.01),
        loss={"cls": tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), "reg": "mse"},
        loss_weights={"reg": 2.0, "cls": 1.0},
    )
    out = _fit_two_outputs(
        model, {"reg": _REG[:32], "cls": _Y[:32]}, {"reg": _REG[32:], "cls": _Y[32:]}
    )
    out["evaluate"] = model.evaluate(
        _X, {"reg": _REG, "cls": _Y}, batch_size=16, verbose=0, return_dict=True
    )
    out["train_on_batch"] = model.train_on_batch(_X[:8], [_REG[:8], _Y[:8]])
    return out


@keras_case(**TOL)
def case_dict_outputs_dict_of_losses(tf):
    """A model returning a dict, losses keyed as its outputs, one loss left out (None)."""
    model = _two_outputs(tf, as_dict=True)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss={"reg": "mse", "cls": None},
    )
    out = _fit_two_outputs(
        model, {"reg": _REG[:32], "cls": _Y[:32]}, {"reg": _REG[32:], "cls": _Y[32:]}
    )
    out["evaluate"] = model.evaluate(_X, {"reg": _REG, "cls": _Y}, verbose=0, return_dict=True)
    return out


@keras_case(**TOL)
def case_one_loss_for_two_outputs(tf):
    """One loss for a two-output model applies to each output, with a metric for each."""
    model = _two_outputs(tf)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    three = np.eye(3, dtype=np.float32)[_Y]
    return _fit_two_outputs(model, [_REG[:32], three[:32]], [_REG[32:], three[32:]])


@keras_case(error=True)
def case_dict_of_losses_with_unknown_output_name_raises(tf):
    model = _two_outputs(tf)
    model.compile(optimizer="sgd", loss={"reg": "mse", "other": "mse"})
    model.fit(_X[:8], [_REG[:8], _Y[:8]], verbose=0)


def _subclasses(tf, loss_base, metric_base):
    class ScaledSquare(loss_base):
        def __init__(self, scale=0.5, name="scaled_square", **kwargs):
            super().__init__(name=name, **kwargs)
            self.scale = scale

        def call(self, y_true, y_pred):
            return self.scale * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    class MeanAbsMax(metric_base):
        """The mean over samples of the largest absolute error of each."""

        def __init__(self, name="mean_abs_max", **kwargs):
            super().__init__(name=name, **kwargs)
            self.total = self.add_variable(shape=(), initializer="zeros", name="total")
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")

        def update_state(self, y_true, y_pred, sample_weight=None):
            err = tf.reduce_max(tf.abs(tf.cast(y_true, "float32") - y_pred), axis=-1)
            self.total.assign_add(tf.reduce_sum(err))
            self.count.assign_add(tf.cast(tf.shape(err)[0], "float32"))

        def result(self):
            return self.total / self.count

        def reset_state(self):
            self.total.assign(0.0)
            self.count.assign(0.0)

    return ScaledSquare, MeanAbsMax


def _fit_with_subclasses(tf, loss_base, metric_base):
    ScaledSquare, MeanAbsMax = _subclasses(tf, loss_base, metric_base)
    L = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(5, activation="tanh"), L.Dense(2)])
    _init(model)
    y = np.stack([_X[:, 0] - _X[:, 1], _X[:, 2] * 0.5], axis=1)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1), loss=ScaledSquare(), metrics=[MeanAbsMax()]
    )
    history = model.fit(
        _X[:32],
        y[:32],
        batch_size=8,
        epochs=2,
        shuffle=False,
        verbose=0,
        validation_data=(_X[32:], y[32:]),
    )
    return {
        "history": {k: history.history[k] for k in sorted(history.history)},
        "evaluate": model.evaluate(_X, y, batch_size=16, verbose=0, return_dict=True),
        "weights": model.get_weights(),
    }


@keras_case(**TOL)
def case_loss_and_metric_subclasses_in_compile_fit_evaluate(tf):
    """``tf.keras.Loss``/``tf.keras.Metric`` subclasses written with TF ops, in ``compile``."""
    return _fit_with_subclasses(tf, tf.keras.Loss, tf.keras.Metric)


@keras_case(**TOL)
def case_losses_loss_and_metrics_metric_subclasses_in_fit(tf):
    return _fit_with_subclasses(tf, tf.keras.losses.Loss, tf.keras.metrics.Metric)


@keras_case(**TOL)
def case_loss_subclass_under_a_gradient_tape(tf):
    ScaledSquare, _ = _subclasses(tf, tf.keras.losses.Loss, tf.keras.metrics.Metric)
    w = tf.Variable(_X[:3, :2])
    x = tf.constant(_X[:6, 2:])
    weights = tf.constant([1.0, 0.0, 2.0, 1.0, 0.5, 1.0])
    out = {}
    for reduction in ("sum_over_batch_size", "sum", "mean", "none"):
        loss_fn = ScaledSquare(reduction=reduction)
        with tf.GradientTape() as tape:
            loss = loss_fn(_X[:6, :2], tf.matmul(x, w[:2]), sample_weight=weights)
        out[reduction] = (loss, tape.gradient(loss, w))
    return out


@keras_case(**TOL)
def case_metric_subclass_update_state_and_result_eagerly(tf):
    _, MeanAbsMax = _subclasses(tf, tf.keras.Loss, tf.keras.Metric)
    metric = MeanAbsMax()
    metric.update_state(tf.constant(_X[:4, :2]), tf.constant(_X[4:8, :2]))
    first = metric.result()
    metric.update_state(tf.constant(_X[8:10, :2]), tf.constant(_X[10:12, :2]))
    second = metric.result()
    metric.reset_state()
    metric.update_state(tf.constant(_X[:1, :2]), tf.constant(_X[1:2, :2]))
    return {
        "first": first,
        "second": second,
        "after_reset": metric.result(),
        "variables": [tf.identity(v) for v in metric.variables],
    }


test_matches_tensorflow = harness.compat_test(globals())
