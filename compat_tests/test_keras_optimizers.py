"""Keras optimizers on tapejax Variables against TensorFlow's Keras: 50-step trajectories.

Every case minimizes the same small least-squares problem (plus a non-convex term so
momentum and adaptive rules are exercised) from the same initial values with a
``GradientTape`` loop and ``apply_gradients``, and returns the loss at every step, the
final variables and the iteration count. TensorFlow's side runs in a subprocess (see
``test_keras_harness``).
"""

from __future__ import annotations

import numpy as np

from compat_tests import harness
from compat_tests.test_keras_harness import keras_case

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((16, 3)).astype(np.float32)
_Y = _RNG.standard_normal((16, 2)).astype(np.float32)
_W0 = (_RNG.standard_normal((3, 2)) * 0.5).astype(np.float32)
_B0 = np.array([0.3, -0.2], np.float32)

STEPS = 50
TOL = {"rtol": 2e-4, "atol": 2e-5}


def _train(tf, optimizer, steps=STEPS, extra_unused=False, callback=None):
    w = tf.Variable(_W0, name="w")
    b = tf.Variable(_B0, name="b")
    variables = [w, b]
    if extra_unused:
        variables.append(tf.Variable([1.0, 2.0], name="unused"))
    x, y = tf.constant(_X), tf.constant(_Y)
    losses = []
    for i in range(steps):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y)) + 0.1 * tf.reduce_sum(tf.sin(3.0 * w))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        losses.append(loss)
        if callback is not None:
            callback(i, optimizer)
    return {
        "losses": tf.stack(losses),
        "variables": [v.numpy() for v in variables],
        "iterations": int(optimizer.iterations.numpy()),
    }


@keras_case(**TOL)
def case_sgd(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.05))


@keras_case(**TOL)
def case_sgd_momentum(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.02, momentum=0.9))


@keras_case(**TOL)
def case_sgd_nesterov(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.02, momentum=0.9, nesterov=True))


@keras_case(**TOL)
def case_adam(tf):
    return _train(tf, tf.keras.optimizers.Adam(0.05))


@keras_case(**TOL)
def case_adam_amsgrad(tf):
    return _train(tf, tf.keras.optimizers.Adam(0.05, beta_1=0.8, amsgrad=True))


@keras_case(**TOL)
def case_adamw(tf):
    return _train(tf, tf.keras.optimizers.AdamW(0.05, weight_decay=0.1))


@keras_case(**TOL)
def case_rmsprop(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(0.003))


@keras_case(**TOL)
def case_rmsprop_centered_momentum(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(0.002, momentum=0.5, centered=True))


@keras_case(**TOL)
def case_adagrad(tf):
    return _train(tf, tf.keras.optimizers.Adagrad(0.1))


@keras_case(**TOL)
def case_adadelta(tf):
    return _train(tf, tf.keras.optimizers.Adadelta(1.0))


@keras_case(**TOL)
def case_adamax(tf):
    return _train(tf, tf.keras.optimizers.Adamax(0.05))


@keras_case(**TOL)
def case_nadam(tf):
    return _train(tf, tf.keras.optimizers.Nadam(0.05))


@keras_case(**TOL)
def case_lion(tf):
    return _train(tf, tf.keras.optimizers.Lion(0.01))


@keras_case(**TOL)
def case_ftrl(tf):
    return _train(tf, tf.keras.optimizers.Ftrl(0.1, l1_regularization_strength=0.01))


@keras_case(**TOL)
def case_clipnorm(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.1, clipnorm=0.5))


@keras_case(**TOL)
def case_clipvalue(tf):
    return _train(tf, tf.keras.optimizers.Adam(0.05, clipvalue=0.1))


@keras_case(**TOL)
def case_global_clipnorm(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.1, momentum=0.5, global_clipnorm=0.3))


@keras_case(**TOL)
def case_weight_decay_sgd(tf):
    return _train(tf, tf.keras.optimizers.SGD(0.05, weight_decay=0.01))


@keras_case(**TOL)
def case_exponential_decay_schedule(tf):
    lr = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    return _train(tf, tf.keras.optimizers.SGD(lr, momentum=0.5))


@keras_case(**TOL)
def case_piecewise_and_cosine_schedules(tf):
    S = tf.keras.optimizers.schedules
    piecewise = S.PiecewiseConstantDecay([10, 30], [0.1, 0.05, 0.01])
    cosine = S.CosineDecay(0.0, decay_steps=40, warmup_target=0.05, warmup_steps=10)
    return [
        _train(tf, tf.keras.optimizers.SGD(piecewise)),
        _train(tf, tf.keras.optimizers.Adam(cosine)),
    ]


@keras_case(**TOL)
def case_learning_rate_set_mid_training(tf):
    def halve(i, opt):
        if i == 20:
            opt.learning_rate = 0.01

    result = _train(tf, tf.keras.optimizers.Adam(0.05), callback=halve)
    return result


@keras_case(**TOL)
def case_ema(tf):
    opt = tf.keras.optimizers.SGD(0.05, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=7)
    return _train(tf, opt, steps=20)


@keras_case(**TOL)
def case_none_gradient_is_skipped(tf):
    """The third variable gets no gradient: Keras warns and updates the others."""
    return _train(tf, tf.keras.optimizers.Adam(0.05), steps=5, extra_unused=True)


@keras_case(error=True, match_message=True)
def case_all_gradients_none(tf):
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.SGD(0.1)
    opt.apply_gradients([(None, v)])


@keras_case()
def case_optimizer_variables_and_config(tf):
    opt = tf.keras.optimizers.Adam(0.01, beta_1=0.8)
    w = tf.Variable(np.ones((2, 3), np.float32))
    opt.build([w])
    cfg = opt.get_config()
    return {
        "n_variables": len(opt.variables),
        "shapes": [list(v.shape) for v in opt.variables],
        "config": sorted(cfg),
        "beta_1": cfg["beta_1"],
        "learning_rate": float(cfg["learning_rate"]),
    }


test_matches_tensorflow = harness.compat_test(globals())
