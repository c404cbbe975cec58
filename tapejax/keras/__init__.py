"""``tf.keras`` for tapejax: Keras 3's own layers, losses and optimizers on its JAX backend.

Importing this module brings Keras up on its JAX backend (``_backend.py`` says how and
what it refuses). Layers are Keras's, called as single recorded ops with their weights
held in tapejax Variables; optimizers are Keras's, updating tapejax Variables in one
jitted call; ``Model``/``Sequential`` are tapejax classes with Keras's ``fit``.
``ops`` and ``random`` are Keras's functions as recorded tapejax ops. Keras's pure
Python and NumPy parts (``config``, ``datasets``, ``dtype_policies``, ``tree``, ...) are
Keras's own modules. What ``tf.keras`` has and this module does not is listed, with
the reason, in ``tapejax/_src/not_provided.py`` (reading it raises that reason).
"""

from tapejax._src.not_provided import attribute_hook
from tapejax.keras import (
    activations,
    backend,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    random,
    regularizers,
)
from tapejax.keras._backend import keras as _keras
from tapejax.keras._layer import Layer
from tapejax.keras._model import Model, Sequential

_api = _keras._tf_keras.keras
callbacks = _api.callbacks
constraints = _api.constraints
utils = _api.utils
Input = _api.Input
InputSpec = _api.InputSpec

# Keras's own: configuration and pure Python or NumPy, with no tensor of tapejax's in them.
config = _api.config
datasets = _api.datasets
dtype_policies = _api.dtype_policies
DTypePolicy = _api.DTypePolicy
FloatDTypePolicy = _api.FloatDTypePolicy
mixed_precision = _api.mixed_precision
preprocessing = _api.preprocessing
tree = _api.tree
visualization = _api.visualization
name_scope = _api.name_scope
device = _api.device
version = _api.version
# A KerasTensor is what Input returns: the symbolic input of a functional Model.
KerasTensor = _api.KerasTensor

# The base classes, as tf.keras has them at the top level.
Initializer = initializers.Initializer
Loss = losses.Loss
Metric = metrics.Metric
Optimizer = optimizers.Optimizer
Regularizer = regularizers.Regularizer

__getattr__ = attribute_hook(__name__, "keras")

__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Initializer",
    "KerasTensor",
    "Loss",
    "Metric",
    "Optimizer",
    "Regularizer",
    "config",
    "datasets",
    "device",
    "dtype_policies",
    "mixed_precision",
    "name_scope",
    "ops",
    "preprocessing",
    "random",
    "tree",
    "version",
    "visualization",
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
