"""Keras 3 on its JAX backend: the one place that imports ``keras`` for tapejax.

Keras picks its backend once per process, when ``keras`` is first imported (and
``import tensorflow`` imports it). tapejax needs the JAX backend, so this module sets
``KERAS_BACKEND=jax`` when nothing has chosen yet and refuses, with the fix, when Keras
is already running another backend. It must never reload Keras behind a user's back:
objects made with the other backend would silently stop working.
"""

from __future__ import annotations

import os
import sys

__all__ = ["keras", "KerasBackendError"]

_ENV = "KERAS_BACKEND"


class KerasBackendError(ImportError):
    """Keras is (or is about to be) running a backend other than JAX."""


def _wrong_backend(backend: str, why: str) -> KerasBackendError:
    return KerasBackendError(
        f"tapejax.keras needs Keras on its JAX backend, but {why} ('{backend}'). Keras "
        "chooses its backend once per process, when `keras` is first imported (`import "
        "tensorflow` imports it too). Fix: set the environment variable KERAS_BACKEND=jax "
        "before Python starts (or `os.environ['KERAS_BACKEND'] = 'jax'` before importing "
        "tensorflow or keras), or import tapejax.keras before tensorflow and keras."
    )


def _import_keras():
    loaded = sys.modules.get("keras")
    if loaded is None:
        wanted = os.environ.get(_ENV)
        if wanted and wanted != "jax":
            raise _wrong_backend(wanted, "the environment variable KERAS_BACKEND asks for")
        os.environ[_ENV] = "jax"
    try:
        import keras as module
    except ImportError as e:
        raise ImportError(
            "tapejax.keras needs Keras 3: install it with `pip install tapejax[keras]` "
            "(or `pip install keras`)."
        ) from e
    backend = module.backend.backend()
    if backend != "jax":
        raise _wrong_backend(backend, "Keras was already imported with another backend")
    return module


keras = _import_keras()
