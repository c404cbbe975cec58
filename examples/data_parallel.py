"""Data-parallel training with ``tapejax.distribute.MirroredStrategy``, checkpointed.

TF-style code: Variables created in ``strategy.scope()`` are replicated on every
device, each batch from ``experimental_distribute_dataset`` is split over the devices,
and the step (``strategy.run`` inside a ``tapejax.function``) is compiled once for all
of them; XLA reduces the gradients. The script trains the same model on one device
too and prints how far the two results are apart (they are the same numbers, up to
the order of floating-point sums), then saves and restores with ``CheckpointManager``.

On a machine with only a CPU, JAX is given 8 CPU devices (``XLA_FLAGS``) so there is
something to split over; with GPUs, all of them are used.

Run: ``python examples/data_parallel.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

if "jax" not in sys.modules:  # must be set before JAX starts
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import numpy as np  # noqa: E402

import tapejax as tf  # noqa: E402
import tapejax.distribute  # noqa: E402, F401
import tapejax.train  # noqa: E402, F401

GLOBAL_BATCH = 64


class MLP(tf.Module):
    def __init__(self, sizes, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.weights = [
            tf.Variable((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), name="w")
            for a, b in zip(sizes[:-1], sizes[1:])
        ]
        self.biases = [tf.Variable(np.zeros(b, np.float32), name="b") for b in sizes[1:]]

    def __call__(self, x):
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = tf.matmul(x, w) + b
            if i < len(self.weights) - 1:
                x = tf.nn.relu(x)
        return x


def make_dataset(n_batches=8, seed=0):
    """Batches of (x, y) NumPy arrays: a random linear map plus noise."""
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal((16, 4)).astype(np.float32)
    out = []
    for _ in range(n_batches):
        x = rng.standard_normal((GLOBAL_BATCH, 16)).astype(np.float32)
        y = np.tanh(x @ true_w) + 0.01 * rng.standard_normal((GLOBAL_BATCH, 4))
        out.append((x, y.astype(np.float32)))
    return out


def train(strategy, dataset, epochs=3, learning_rate=0.05):
    """Trains a fresh model under ``strategy``; returns (model, losses per step)."""
    with strategy.scope():
        model = MLP([16, 64, 64, 4])

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((model(x) - y) ** 2, axis=1)
            # TF's recommended loss: the sum over the batch / the *global* batch size.
            loss = tf.reduce_sum(per_example) / GLOBAL_BATCH
        grads = tape.gradient(loss, model.trainable_variables)
        for v, g in zip(model.trainable_variables, grads):
            v.assign_sub(learning_rate * g)
        return loss

    @tf.function
    def step(x, y):
        per_replica_loss = strategy.run(replica_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_loss, axis=None)

    losses = []
    for _ in range(epochs):
        for x, y in strategy.experimental_distribute_dataset(dataset):
            losses.append(float(step(x, y)))
    return model, losses


def main():
    dataset = make_dataset()
    strategy = tf.distribute.MirroredStrategy()
    print(
        f"devices: {len(jax.devices())} x {jax.devices()[0].platform}, "
        f"replicas in sync: {strategy.num_replicas_in_sync}"
    )
    start = time.perf_counter()
    model, losses = train(strategy, dataset)
    elapsed = time.perf_counter() - start
    print(f"data parallel: loss {losses[0]:.4f} -> {losses[-1]:.4f} ({elapsed:.2f} s)")

    one_device = tf.distribute.MirroredStrategy(devices=[jax.devices()[0]])
    reference, ref_losses = train(one_device, dataset)
    diff = max(
        float(np.max(np.abs(a.numpy() - b.numpy())))
        for a, b in zip(model.variables, reference.variables)
    )
    loss_diff = max(abs(a - b) for a, b in zip(losses, ref_losses))
    print(f"vs one device: max weight difference {diff:.2e}, max loss difference {loss_diff:.2e}")

    # Save the replicated model, restore it into a model placed on one device.
    with tempfile.TemporaryDirectory() as directory:
        manager = tf.train.CheckpointManager(
            tf.train.Checkpoint(model=model), directory, max_to_keep=2
        )
        path = manager.save()
        fresh = MLP([16, 64, 64, 4], seed=1)
        tf.train.Checkpoint(model=fresh).restore(path).assert_consumed()
        restored = max(
            float(np.max(np.abs(a.numpy() - b.numpy())))
            for a, b in zip(model.variables, fresh.variables)
        )
    print(f"checkpoint restored onto one device: max difference {restored:.2e}")
    return {"losses": losses, "weight_diff": diff, "loss_diff": loss_diff, "restored": restored}


if __name__ == "__main__":
    main()
