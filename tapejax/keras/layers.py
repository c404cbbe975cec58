"""``tf.keras.layers``: every Keras layer, bridged to tapejax, plus tapejax's ``Layer`` base.

Each class here has the name and constructor of the Keras 3 layer it wraps
(``tapejax.keras.layers.Dense`` wraps ``keras.layers.Dense``); see ``_layer.py`` for
what a bridged layer is. ``Layer`` is tapejax's base class for layers with their own
``call``. Layers that need TensorFlow, PyTorch or Flax objects are left out.
"""

from ._backend import keras as _keras
from ._bridged import KerasLayer, bridged_class  # noqa: F401 - re-exported
from ._layer import Layer  # noqa: F401 - re-exported

Input = _keras.Input
InputSpec = _keras.InputSpec

# Layers that wrap another framework's objects, and Keras's own base classes.
_LEFT_OUT = frozenset(
    {"Layer", "Wrapper", "TFSMLayer", "TorchModuleWrapper", "FlaxLayer", "JaxLayer"}
)


def _bridge_all() -> list:
    names = []
    for name in dir(_keras.layers):
        obj = getattr(_keras.layers, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, _keras.layers.Layer)
            and name not in _LEFT_OUT
            and not name.startswith("_")
        ):
            globals()[name] = bridged_class(obj)
            names.append(name)
    return names


_BRIDGED = _bridge_all()


def _merge_function(layer_name):
    def merge(inputs, **kwargs):
        return globals()[layer_name](**kwargs)(inputs)

    merge.__name__ = layer_name.lower()
    merge.__doc__ = f"Functional interface to the ``{layer_name}`` layer."
    return merge


add = _merge_function("Add")
subtract = _merge_function("Subtract")
multiply = _merge_function("Multiply")
average = _merge_function("Average")
maximum = _merge_function("Maximum")
minimum = _merge_function("Minimum")
concatenate = _merge_function("Concatenate")
dot = _merge_function("Dot")

__all__ = sorted(
    _BRIDGED
    + [
        "Input",
        "InputSpec",
        "KerasLayer",
        "Layer",
        "add",
        "average",
        "concatenate",
        "dot",
        "maximum",
        "minimum",
        "multiply",
        "subtract",
    ]
)

from tapejax._src.not_provided import attribute_hook as _attribute_hook  # noqa: E402

__getattr__ = _attribute_hook(__name__, "keras.layers")
