"""pytest setup for the unit tests: TF's C++ logging quiet, and the ``x64`` fixture.

TF reads its log level and oneDNN switch when it is first imported (some test modules
compare against real TensorFlow), so they are set here, before any test module loads.
JAX's rank-promotion check is deliberately left at its default: TF broadcasting must work.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# Keras picks its backend once, on first import, and `import tensorflow` imports it;
# tapejax.keras needs Keras on JAX (the Keras compat cases run TF's side in a subprocess).
os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def x64():
    """Turns on JAX's 64-bit mode for one test, and restores the previous setting."""
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", previous)


@pytest.fixture(autouse=True)
def _tensorflow_variable_scope_reset():
    """TF's graph-mode ``while_loop`` sets a caching device on the global variable scope and
    does not unset it when the loop body raises (as some error tests make it do); later
    eager code that copies the scope (``tf.recompute_grad``) then fails with "Caching
    devices is not yet supported". Each test starts from TF's default scope."""
    yield
    import sys

    tf = sys.modules.get("tensorflow")
    if tf is not None:
        # set_caching_device() itself refuses to run eagerly: reset the attribute.
        tf.compat.v1.get_variable_scope()._caching_device = None
