"""A TF-style training loop, run by ``python -m tapejax.demo``.

A two-layer classifier on generated data (two interleaved spirals), trained with a
``GradientTape`` and plain SGD written exactly as one would in TensorFlow. It prints
the loss falling and the final accuracy.
"""

from __future__ import annotations

import time

import numpy as np

import tapejax as tf


def make_spirals(n: int = 512, seed: int = 0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.25, 2.0 * np.pi, n)
    label = rng.integers(0, 2, n)
    r = t / (2.0 * np.pi)
    angle = t + np.pi * label
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1)
    x += rng.normal(scale=0.02, size=x.shape)
    return x.astype(np.float32), label.astype(np.int32)


class MLP(tf.Module):
    def __init__(self, sizes, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            w = rng.normal(scale=np.sqrt(2.0 / a), size=(a, b)).astype(np.float32)
            self.layers.append(
                (tf.Variable(w, name=f"w{i}"), tf.Variable(tf.zeros([b]), name=f"b{i}"))
            )

    def __call__(self, x):
        for i, (w, b) in enumerate(self.layers):
            x = tf.matmul(x, w) + b
            if i < len(self.layers) - 1:
                x = tf.nn.relu(x)
        return x


def main(steps: int = 1000, lr: float = 0.5) -> float:
    x_np, y_np = make_spirals()
    x, y = tf.constant(x_np), tf.constant(y_np)
    model = MLP([2, 64, 64, 2])
    start = time.perf_counter()
    for step in range(steps + 1):
        with tf.GradientTape() as tape:
            logits = model(x)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        grads = tape.gradient(loss, model.trainable_variables)
        for v, g in zip(model.trainable_variables, grads):
            v.assign_sub(lr * g)
        if step % 200 == 0:
            print(f"step {step:4d}  loss {float(loss):.4f}")
    elapsed = time.perf_counter() - start
    predicted = tf.cast(tf.argmax(model(x), axis=1), tf.int32)
    accuracy = float(tf.reduce_mean(tf.cast(predicted == y, tf.float32)))
    print(f"accuracy {accuracy:.3f} after {steps} steps ({elapsed / steps * 1e3:.2f} ms/step)")
    return accuracy


if __name__ == "__main__":
    main()
