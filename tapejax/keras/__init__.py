"""``tf.keras`` for tapejax: Keras 3's own layers, losses and optimizers on its JAX backend.

Importing this module brings Keras up on its JAX backend (``_backend.py`` says how and
what it refuses). Layers are Keras's, called as single recorded ops with their weights
held in tapejax Variables; optimizers are Keras's, updating tapejax Variables in one
jitted call; ``Model``/``Sequential`` are tapejax classes with Keras's ``fit``.
"""

from tapejax.keras import (
    activations,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
)
from tapejax.keras._backend import keras as _keras
from tapejax.keras._layer import Layer
from tapejax.keras._model import Model, Sequential

backend = _keras.backend
callbacks = _keras.callbacks
constraints = _keras.constraints
utils = _keras.utils
Input = _keras.Input
InputSpec = _keras.InputSpec

__all__ = [
    "Input",
    "InputSpec",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "regularizers",
    "utils",
]
