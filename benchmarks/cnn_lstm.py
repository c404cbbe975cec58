"""Scenarios `cnn` and `lstm`: a small convolutional classifier's and an LSTM
classifier's SGD training step, TF-style, six ways (as `mlp`).

The TF-style steps are written once (`make_cnn_step`, `make_lstm_step`) and run with
`tf = tapejax` and `tf = tensorflow`, eagerly and wrapped in each library's `function`;
hand-written `jax.jit(jax.value_and_grad)` and PyTorch eager do the same math from the
same numpy weights and data, in float32.

- cnn: images (32, 16, 16, 3) -> conv 3x3x8 SAME, relu, 2x2 max pool -> conv 3x3x16 SAME,
  relu, 2x2 max pool -> dense 10, sparse softmax cross-entropy.
- lstm: sequences (32, 16 steps, 8 features) -> one LSTM layer of 32 units (the
  Keras/TF gate order i, f, c, o; one fused matmul per step) -> dense 10 on the last
  hidden state; the time loop is a Python loop (unrolled when compiled).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import frameworks
from benchmarks.harness import Case, Contender, Skip, register
from benchmarks.mlp import CHECK_STEPS, LEARNING_RATE, _tapejax_waiter, check_losses

BATCH, IMAGE, CLASSES = 32, 16, 10
STEPS, FEATURES, UNITS = 16, 8, 32


# ----------------------------------------------------------------------------
# Problems: weights and data, identical for every contender.


def cnn_problem(seed: int = 0):
    rng = np.random.default_rng(seed)

    def he(*shape, fan_in):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    init = [
        he(3, 3, 3, 8, fan_in=27),
        np.zeros(8, np.float32),
        he(3, 3, 8, 16, fan_in=72),
        np.zeros(16, np.float32),
        he(4 * 4 * 16, CLASSES, fan_in=256),
        np.zeros(CLASSES, np.float32),
    ]
    x = rng.standard_normal((BATCH, IMAGE, IMAGE, 3)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    return init, x, y


def lstm_problem(seed: int = 0):
    rng = np.random.default_rng(seed)
    s = 1.0 / np.sqrt(UNITS)
    init = [
        rng.uniform(-s, s, (FEATURES + UNITS, 4 * UNITS)).astype(np.float32),
        np.zeros(4 * UNITS, np.float32),
        rng.uniform(-s, s, (UNITS, CLASSES)).astype(np.float32),
        np.zeros(CLASSES, np.float32),
    ]
    x = rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    return init, x, y


# ----------------------------------------------------------------------------
# The TF-style steps, shared by tapejax and TensorFlow.


def _sgd_step(tf: Any, variables, forward: Callable) -> Callable:
    def step(x, y):
        with tf.GradientTape() as tape:
            logits = forward(x)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads, strict=True):
            v.assign_sub(LEARNING_RATE * g)
        return loss

    return step


def make_cnn_step(tf: Any, init):
    variables = [tf.Variable(w) for w in init]
    k1, b1, k2, b2, w, b = variables

    def forward(x):
        h = tf.nn.relu(tf.nn.conv2d(x, k1, strides=1, padding="SAME") + b1)
        h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
        h = tf.nn.relu(tf.nn.conv2d(h, k2, strides=1, padding="SAME") + b2)
        h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
        return tf.matmul(tf.reshape(h, [BATCH, -1]), w) + b

    return _sgd_step(tf, variables, forward), variables


def make_lstm_step(tf: Any, init):
    variables = [tf.Variable(w) for w in init]
    kernel, bias, w, b = variables

    def forward(x):
        h = tf.zeros([BATCH, UNITS])
        c = tf.zeros([BATCH, UNITS])
        for t in range(STEPS):
            z = tf.matmul(tf.concat([x[:, t, :], h], axis=1), kernel) + bias
            i = tf.sigmoid(z[:, :UNITS])
            f = tf.sigmoid(z[:, UNITS : 2 * UNITS])
            g = tf.tanh(z[:, 2 * UNITS : 3 * UNITS])
            o = tf.sigmoid(z[:, 3 * UNITS :])
            c = f * c + i * g
            h = o * tf.tanh(c)
        return tf.matmul(h, w) + b

    return _sgd_step(tf, variables, forward), variables


# ----------------------------------------------------------------------------
# Contenders.


def _tf_style(module, make_step, wrap, problem):
    tf = module()
    if wrap is not None and not hasattr(tf, wrap):
        raise Skip(f"{tf.__name__} has no `{wrap}` yet")
    if make_step is make_cnn_step and not hasattr(tf.nn, "conv2d"):
        raise Skip(f"{tf.__name__} has no nn.conv2d yet")
    init, x, y = problem
    step, variables = make_step(tf, init)
    if wrap is not None:
        step = getattr(tf, wrap)(step)
    xt, yt = tf.constant(x), tf.constant(y)
    if tf.__name__ == "tensorflow":
        return lambda: step(xt, yt).numpy()
    wait = _tapejax_waiter(variables)

    def run():
        loss = step(xt, yt)
        wait()
        return loss.numpy()

    return run


def _jax_forward(kind: str):
    jax = frameworks.jax()
    import jax.numpy as jnp

    def cnn(params, x):
        k1, b1, k2, b2, w, b = params

        def conv(h, k):
            return jax.lax.conv_general_dilated(
                h, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )

        def pool(h):
            return jax.lax.reduce_window(
                h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
            )

        h = pool(jax.nn.relu(conv(x, k1) + b1))
        h = pool(jax.nn.relu(conv(h, k2) + b2))
        return h.reshape(BATCH, -1) @ w + b

    def lstm(params, x):
        kernel, bias, w, b = params
        h = jnp.zeros((BATCH, UNITS))
        c = jnp.zeros((BATCH, UNITS))
        for t in range(STEPS):
            z = jnp.concatenate([x[:, t, :], h], axis=1) @ kernel + bias
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return h @ w + b

    return cnn if kind == "cnn" else lstm


def _jax_jit(kind: str, problem):
    jax = frameworks.jax()
    import jax.numpy as jnp

    forward = _jax_forward(kind)
    init, x, y = problem

    def loss_fn(params, x, y):
        logp = jax.nn.log_softmax(forward(params, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @functools.partial(jax.jit, donate_argnums=0)
    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss

    state = {"params": [jnp.asarray(w) for w in init]}
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def run():
        state["params"], loss = train_step(state["params"], xj, yj)
        jax.block_until_ready(state["params"])
        return np.asarray(loss)  # the loss on the host, as every contender returns it

    return run


def _torch_eager(kind: str, problem):
    torch = frameworks.torch()
    F = torch.nn.functional
    init, x, y = problem
    if kind == "cnn":  # PyTorch's layouts: NCHW images, OIHW kernels
        init = [np.ascontiguousarray(w.transpose(3, 2, 0, 1)) if w.ndim == 4 else w for w in init]
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    device = frameworks.torch_device()
    params = [torch.tensor(w, requires_grad=True, device=device) for w in init]
    xt, yt = torch.from_numpy(x).to(device), torch.from_numpy(y.astype(np.int64)).to(device)

    def cnn():
        k1, b1, k2, b2, w, b = params
        h = F.max_pool2d(torch.relu(F.conv2d(xt, k1, b1, padding=1)), 2)
        h = F.max_pool2d(torch.relu(F.conv2d(h, k2, b2, padding=1)), 2)
        # Flatten in NHWC order, as the TF-style models do.
        return h.permute(0, 2, 3, 1).reshape(BATCH, -1) @ w + b

    def lstm():
        kernel, bias, w, b = params
        h = torch.zeros(BATCH, UNITS, device=device)
        c = torch.zeros(BATCH, UNITS, device=device)
        for t in range(STEPS):
            z = torch.cat([xt[:, t, :], h], dim=1) @ kernel + bias
            i, f, g, o = z.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return h @ w + b

    forward = cnn if kind == "cnn" else lstm

    def run():
        loss = F.cross_entropy(forward(), yt)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LEARNING_RATE * p.grad
                p.grad = None
        return loss.detach().cpu().numpy()  # on a GPU, waits for the step

    return run


def contenders(kind: str, problem) -> list[Contender]:
    make = make_cnn_step if kind == "cnn" else make_lstm_step
    tj, tfm = frameworks.tapejax, frameworks.tensorflow
    return [
        Contender("tapejax eager", lambda: _tf_style(tj, make, None, problem), uses_jax=True),
        Contender(
            "tapejax.function", lambda: _tf_style(tj, make, "function", problem), uses_jax=True
        ),
        Contender("tf eager", lambda: _tf_style(tfm, make, None, problem)),
        Contender("tf.function", lambda: _tf_style(tfm, make, "function", problem)),
        Contender("jax jit", lambda: _jax_jit(kind, problem), uses_jax=True),
        Contender("torch eager", lambda: _torch_eager(kind, problem)),
    ]


def _cases(kind: str, quick: bool) -> list[Case]:
    problem = cnn_problem() if kind == "cnn" else lstm_problem()
    label = (
        f"batch {BATCH}, {IMAGE}x{IMAGE}x3, conv8-conv16-dense{CLASSES}"
        if kind == "cnn"
        else f"batch {BATCH}, {STEPS} steps x {FEATURES}, {UNITS} units"
    )
    return [
        Case(
            scenario=kind,
            size=label,
            contenders=contenders(kind, problem),
            baselines=("jax jit", "tf eager"),
            unit="step",
            warmup=2 if quick else 10,
            min_repeats=3 if quick else 10,
            max_repeats=5 if quick else 1000,
            budget_s=2.0 if quick else 30.0,
            check_calls=CHECK_STEPS,
            check=check_losses,
        )
    ]


@register("cnn")
def cnn_cases(quick: bool) -> list[Case]:
    return _cases("cnn", quick)


@register("lstm")
def lstm_cases(quick: bool) -> list[Case]:
    return _cases("lstm", quick)
