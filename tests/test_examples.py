"""The examples in ``examples/``: tape-trained equinox and flax models agree with ``jax.grad``.

equinox and flax are optional (``pip install tapejax[examples]``): their tests skip when
the library is missing. The data-parallel example runs in a child process with 8 CPU
devices and must reproduce the one-device result it computes alongside.
"""

import importlib.util
import os
import re
import subprocess
import sys

import jax
import numpy as np
import pytest

import tapejax as tf

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", os.path.join(EXAMPLES, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_trees_close(got, expected, rtol=1e-5, atol=1e-6):
    got_leaves = jax.tree_util.tree_leaves(got)
    expected_leaves = jax.tree_util.tree_leaves(expected)
    assert len(got_leaves) == len(expected_leaves) > 0
    for a, b in zip(got_leaves, expected_leaves):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def test_equinox_tape_gradients_and_training_match_jax():
    pytest.importorskip("equinox")
    ex = load_example("equinox_mlp.py")
    x, y = ex.make_data(n=32)
    params, static = ex.init_model(seed=3)
    trainer = ex.TapeTrainer(params, static, learning_rate=0.1)
    loss, grads = trainer.loss_and_grads(tf.constant(x), tf.constant(y))
    ref_loss, ref_grads = ex.jax_loss_and_grads(params, static, x, y)
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-6)
    assert_trees_close(grads, jax.tree_util.tree_leaves(ref_grads))

    steps = 15
    losses = [float(trainer.step(tf.constant(x), tf.constant(y))) for _ in range(steps)]
    ref_params, ref_losses = ex.jax_train(params, static, x, y, steps, learning_rate=0.1)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    assert_trees_close(trainer.params(), ref_params)
    assert trainer.step.experimental_get_tracing_count() == 1  # one compiled step
    assert losses[-1] < losses[0]


def test_flax_nnx_tape_gradients_and_training_match_jax():
    pytest.importorskip("flax")
    ex = load_example("flax_mlp.py")
    x, labels = ex.make_data(n=48)
    graphdef, state = ex.init_model(seed=2)
    trainer = ex.TapeTrainer(graphdef, state, learning_rate=0.5)
    loss, grads = trainer.loss_and_grads(tf.constant(x), tf.constant(labels))
    ref_loss, ref_grads = ex.jax_loss_and_grads(graphdef, state, x, labels)
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-6)
    assert_trees_close(grads, jax.tree_util.tree_leaves(ref_grads))

    @jax.jit
    def sgd(s):
        value, g = ex.jax_loss_and_grads(graphdef, s, x, labels)
        return jax.tree_util.tree_map(lambda a, b: a - 0.5 * b, s, g), value

    ref_losses = []
    for _ in range(10):
        state, value = sgd(state)
        ref_losses.append(float(value))
    losses = [float(trainer.step(tf.constant(x), tf.constant(labels))) for _ in range(10)]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    assert_trees_close(trainer.state(), state)
    assert trainer.step.experimental_get_tracing_count() == 1


def test_example_mains_run():
    pytest.importorskip("equinox")
    pytest.importorskip("flax")
    eqx_losses = load_example("equinox_mlp.py").main(steps=30)
    assert eqx_losses[-1] < 0.5 * eqx_losses[0]
    flax_losses, accuracy = load_example("flax_mlp.py").main(steps=30)
    assert flax_losses[-1] < 0.5 * flax_losses[0] and accuracy > 0.9


def test_data_parallel_example_matches_one_device():
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, "data_parallel.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "devices: 8 x cpu, replicas in sync: 8" in out, out
    weight_diff, loss_diff = map(
        float, re.search(r"max weight difference (\S+), max loss difference (\S+)", out).groups()
    )
    assert weight_diff < 1e-5 and loss_diff < 1e-5, out
    first, last = map(float, re.search(r"loss (\S+) -> (\S+)", out).groups())
    assert last < 0.5 * first, out
    assert float(re.search(r"onto one device: max difference (\S+)", out).group(1)) == 0.0
