"""An equinox MLP trained with a tapejax ``GradientTape`` loop, through ``tapejax.lift``.

The model is plain equinox; its arrays live in tapejax Variables, and ``tapejax.lift``
makes the equinox forward pass one recorded op, so the tape differentiates through it
and ``tapejax.function`` compiles the whole step. ``jax_loss_and_grads`` is the same
loss with ``jax.grad``, for comparison (``tests/test_examples.py``).

Run: ``python examples/equinox_mlp.py`` (needs ``pip install equinox``).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

import tapejax as tf


def make_data(n=128, seed=0):
    """A 1-D regression problem: y = sin(3x) + noise."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, (n, 1)).astype(np.float32)
    y = (np.sin(3.0 * x) + 0.05 * rng.standard_normal((n, 1))).astype(np.float32)
    return x, y


def init_model(seed=0):
    """An equinox MLP, split into its arrays (``params``) and the rest (``static``)."""
    model = eqx.nn.MLP(1, 1, width_size=32, depth=2, key=jax.random.PRNGKey(seed))
    return eqx.partition(model, eqx.is_array)


class TapeTrainer:
    """Holds the equinox arrays as tapejax Variables and trains them with a tape."""

    def __init__(self, params, static, learning_rate=0.1):
        self.static = static
        # The same pytree, with a tapejax Variable in place of each array.
        self.variables = jax.tree_util.tree_map(tf.Variable, params)
        self.leaves = jax.tree_util.tree_leaves(self.variables, is_leaf=_is_variable)
        self.learning_rate = learning_rate

        @tf.lift
        def forward(params, x):
            return jax.vmap(eqx.combine(params, static))(x)

        self.forward = forward
        self.step = tf.function(self._step)

    def loss_and_grads(self, x, y):
        """The loss and its gradients w.r.t. every Variable, from a GradientTape."""
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self.forward(self.variables, x) - y) ** 2)
        return loss, tape.gradient(loss, self.leaves)

    def _step(self, x, y):
        loss, grads = self.loss_and_grads(x, y)
        for v, g in zip(self.leaves, grads):
            v.assign_sub(self.learning_rate * g)
        return loss

    def params(self):
        """The trained arrays, as the equinox pytree (for ``eqx.combine``)."""
        return jax.tree_util.tree_map(jnp.asarray, self.variables, is_leaf=_is_variable)


def _is_variable(x) -> bool:
    return isinstance(x, tf.Variable)


def jax_loss_and_grads(params, static, x, y):
    """The same loss and gradients with ``jax.value_and_grad`` (the reference)."""

    def loss(p):
        return jnp.mean((jax.vmap(eqx.combine(p, static))(x) - y) ** 2)

    return jax.value_and_grad(loss)(params)


def jax_train(params, static, x, y, steps, learning_rate=0.1):
    """Plain-JAX SGD on the same loss: what the tape loop must reproduce."""

    @jax.jit
    def step(p):
        loss, g = jax_loss_and_grads(p, static, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - learning_rate * b, p, g), loss

    losses = []
    for _ in range(steps):
        params, loss = step(params)
        losses.append(float(loss))
    return params, losses


def main(steps=200):
    x, y = make_data()
    params, static = init_model()
    trainer = TapeTrainer(params, static)
    xt, yt = tf.constant(x), tf.constant(y)
    losses = [float(trainer.step(xt, yt)) for _ in range(steps)]
    print(f"equinox MLP, tape loop: loss {losses[0]:.4f} -> {losses[-1]:.4f} in {steps} steps")
    return losses


if __name__ == "__main__":
    main()
