"""A flax ``nnx`` model trained with a tapejax ``GradientTape`` loop, through ``tapejax.lift``.

``nnx.split`` separates the model's structure (``graphdef``) from its arrays
(``state``); the arrays live in tapejax Variables, and the lifted forward pass
``nnx.merge``\\ s them back for each call, so the tape differentiates through flax code.
``jax_loss_and_grads`` is the same loss with ``jax.grad``, for comparison
(``tests/test_examples.py``).

Run: ``python examples/flax_mlp.py`` (needs ``pip install flax``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

import tapejax as tf


class MLP(nnx.Module):
    """Two-layer classifier with layer norm."""

    def __init__(self, n_in, n_hidden, n_out, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(n_in, n_hidden, rngs=rngs)
        self.norm = nnx.LayerNorm(n_hidden, rngs=rngs)
        self.out = nnx.Linear(n_hidden, n_out, rngs=rngs)

    def __call__(self, x):
        return self.out(nnx.gelu(self.norm(self.hidden(x))))


def make_data(n=128, seed=0):
    """Three Gaussian blobs in 2-D; labels 0..2."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n).astype(np.int32)
    centers = np.array([[0.0, 1.5], [1.3, -0.8], [-1.3, -0.8]], np.float32)
    x = centers[labels] + 0.5 * rng.standard_normal((n, 2)).astype(np.float32)
    return x.astype(np.float32), labels


def init_model(seed=0):
    """The model split into its structure and its arrays."""
    return nnx.split(MLP(2, 16, 3, rngs=nnx.Rngs(seed)))


def _is_variable(x) -> bool:
    return isinstance(x, tf.Variable)


def _cross_entropy(logits, labels):
    log_p = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(log_p, labels[:, None], axis=1))


class TapeTrainer:
    """The flax arrays as tapejax Variables, trained with a tape."""

    def __init__(self, graphdef, state, learning_rate=0.5):
        self.variables = jax.tree_util.tree_map(tf.Variable, state)
        self.leaves = jax.tree_util.tree_leaves(self.variables, is_leaf=_is_variable)
        self.learning_rate = learning_rate

        @tf.lift
        def forward(state, x):
            return nnx.merge(graphdef, state)(x)

        self.forward = forward
        self.step = tf.function(self._step)

    def loss_and_grads(self, x, labels):
        with tf.GradientTape() as tape:
            logits = self.forward(self.variables, x)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            )
        return loss, tape.gradient(loss, self.leaves)

    def _step(self, x, labels):
        loss, grads = self.loss_and_grads(x, labels)
        for v, g in zip(self.leaves, grads):
            v.assign_sub(self.learning_rate * g)
        return loss

    def state(self):
        """The trained arrays as the flax state (for ``nnx.merge``)."""
        return jax.tree_util.tree_map(jnp.asarray, self.variables, is_leaf=_is_variable)


def jax_loss_and_grads(graphdef, state, x, labels):
    """The same loss and gradients with ``jax.value_and_grad`` (the reference)."""

    def loss(s):
        return _cross_entropy(nnx.merge(graphdef, s)(x), labels)

    return jax.value_and_grad(loss)(state)


def main(steps=100):
    x, labels = make_data()
    graphdef, state = init_model()
    trainer = TapeTrainer(graphdef, state)
    xt, lt = tf.constant(x), tf.constant(labels)
    losses = [float(trainer.step(xt, lt)) for _ in range(steps)]
    model = nnx.merge(graphdef, trainer.state())
    accuracy = float(jnp.mean(jnp.argmax(model(x), axis=1) == labels))
    print(
        f"flax nnx MLP, tape loop: loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
        f"accuracy {accuracy:.2f} after {steps} steps"
    )
    return losses, accuracy


if __name__ == "__main__":
    main()
