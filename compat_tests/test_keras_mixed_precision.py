"""Mixed precision in tapejax.keras against TensorFlow's Keras: dtypes, values, training.

Each case sets Keras's global dtype policy (``mixed_float16`` or ``mixed_bfloat16``),
builds the same model from the same weights and returns the dtypes (outputs, variables,
compute dtype, gradients) with the values; the policy is reset to ``float32`` after
every case, on both sides. TensorFlow's side runs in a subprocess
(``test_keras_harness``). Half-precision values are compared at half precision.
"""

from __future__ import annotations

import numpy as np
import pytest

from compat_tests import harness
from compat_tests.test_keras_harness import keras_case

_RNG = np.random.default_rng(3)
_IMAGES = _RNG.standard_normal((8, 6, 6, 2)).astype(np.float32)
_TARGETS = _RNG.standard_normal((8, 3)).astype(np.float32)

HALF = {"rtol": 2e-2, "atol": 2e-2}


@pytest.fixture(autouse=True)
def _float32_policy_after_each_test():
    yield
    import keras

    keras.mixed_precision.set_global_policy("float32")


def _model(tf, policy, final_float32=True):
    tf.keras.mixed_precision.set_global_policy(policy)
    L = tf.keras.layers
    layers = [
        tf.keras.Input((6, 6, 2)),
        L.Conv2D(4, 3, activation="relu"),
        L.BatchNormalization(),
        L.Flatten(),
        L.Dense(8),
        L.LayerNormalization(),
        L.Dense(3),
    ]
    if final_float32:
        layers.append(L.Activation("linear", dtype="float32"))
    model = tf.keras.Sequential(layers)
    rng = np.random.default_rng(1)
    weights = [(rng.standard_normal(w.shape) * 0.3).astype(w.dtype) for w in model.get_weights()]
    weights[5] = np.abs(weights[5]) + 0.5  # a positive moving variance
    model.set_weights(weights)
    return model


def _dtypes_values_grads(tf, policy):
    try:
        model = _model(tf, policy, final_float32=False)
        x = tf.constant(_IMAGES)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = model(x, training=True)
            loss = tf.reduce_mean(tf.square(tf.cast(y, "float32")))
        grads = tape.gradient(loss, [x] + model.trainable_variables)
        return {
            "policy": tf.keras.mixed_precision.global_policy().name,
            "output_dtype": y.dtype.name,
            "variable_dtypes": [tf.as_dtype(v.dtype).name for v in model.variables],
            "compute_dtypes": [layer.compute_dtype for layer in model.layers],
            "variable_dtypes_of_layers": [layer.variable_dtype for layer in model.layers],
            "grad_dtypes": [g.dtype.name for g in grads],
            "y": tf.cast(y, "float32"),
            "loss": loss,
            "grads": grads,
            "moving_mean": model.layers[1].moving_mean,
            "inference": tf.cast(model(x, training=False), "float32"),
        }
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")


@keras_case(**HALF)
def case_mixed_float16_dtypes_values_and_gradients(tf):
    return _dtypes_values_grads(tf, "mixed_float16")


@keras_case(**HALF)
def case_mixed_bfloat16_dtypes_values_and_gradients(tf):
    return _dtypes_values_grads(tf, "mixed_bfloat16")


def _fit(tf, policy):
    try:
        model = _model(tf, policy)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        history = model.fit(_IMAGES, _TARGETS, batch_size=4, epochs=2, shuffle=False, verbose=0)
        return {
            "optimizer": type(model.optimizer).__name__,
            "history": {k: history.history[k] for k in sorted(history.history)},
            "weights": model.get_weights(),
            "evaluate": model.evaluate(_IMAGES, _TARGETS, verbose=0),
            "predict_dtype": model.predict(_IMAGES[:2], verbose=0).dtype.name,
        }
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")


@keras_case(**HALF)
def case_mixed_float16_fit_wraps_the_optimizer_in_loss_scaling(tf):
    return _fit(tf, "mixed_float16")


@keras_case(**HALF)
def case_mixed_bfloat16_fit(tf):
    return _fit(tf, "mixed_bfloat16")


@keras_case(**HALF)
def case_mixed_float16_custom_loop_with_loss_scale_optimizer(tf):
    """TF's mixed-precision guide loop: scale the loss, differentiate, apply (unscales)."""
    try:
        model = _model(tf, "mixed_float16")
        opt = tf.keras.optimizers.LossScaleOptimizer(
            tf.keras.optimizers.SGD(0.05), initial_scale=2.0**10, dynamic_growth_steps=2
        )
        losses, scaled, scales = [], [], []
        for step in range(4):
            x = tf.constant(_IMAGES[2 * step : 2 * step + 4])
            with tf.GradientTape() as tape:
                y = model(x, training=True)
                loss = tf.reduce_mean(tf.square(y - _TARGETS[2 * step : 2 * step + 4]))
                scaled_loss = opt.scale_loss(loss)
            grads = tape.gradient(scaled_loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            losses.append(loss)
            scaled.append(scaled_loss)
            scales.append(tf.identity(opt.dynamic_scale))
        return {
            "losses": losses,
            "scaled": scaled,
            "scales": scales,
            "iterations": int(opt.iterations.numpy()),
            "weights": model.get_weights(),
            "variables": len(opt.variables),
        }
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")


@keras_case(**HALF)
def case_loss_scale_optimizer_skips_a_step_with_nonfinite_gradients(tf):
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), initial_scale=8.0)
    opt.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    after_inf = (tf.identity(v), tf.identity(opt.dynamic_scale), int(opt.iterations.numpy()))
    opt.apply_gradients([(tf.constant([4.0, 8.0]), v)])
    return {"after_inf": after_inf, "v": v, "scale": opt.dynamic_scale}


@keras_case()
def case_loss_subclass_compares_a_float16_prediction_in_float32(tf):
    class SquaredError(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    y_pred = tf.constant([[2048.0, 2.5], [0.33325195, -4.0]], dtype="float16")
    y_true = np.array([[2048.5, 2.5009], [0.3333, -4.0001]], dtype=np.float32)
    loss_fn = SquaredError()
    loss = loss_fn(y_true, y_pred)
    return {"loss": loss, "dtype": loss.dtype.name, "loss_dtype": loss_fn.dtype}


@keras_case(**HALF)
def case_mixed_float16_fit_with_a_growing_loss_scale(tf):
    """The compiled step reads the current scale: it doubles after every step here."""
    try:
        model = _model(tf, "mixed_float16")
        opt = tf.keras.optimizers.LossScaleOptimizer(
            tf.keras.optimizers.SGD(0.05), initial_scale=2.0**4, dynamic_growth_steps=1
        )
        model.compile(optimizer=opt, loss="mse")
        history = model.fit(_IMAGES, _TARGETS, batch_size=2, epochs=2, shuffle=False, verbose=0)
        return {
            "loss": history.history["loss"],
            "scale": opt.dynamic_scale,
            "weights": model.get_weights(),
        }
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")


test_matches_tensorflow = harness.compat_test(globals())
