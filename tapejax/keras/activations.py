"""``tf.keras.activations``: Keras 3's activations as recorded tapejax ops."""

from ._backend import keras as _keras
from ._wrappers import lifted_function

_MODULE = "tapejax.keras.activations"
_NAMES = {
    name: lifted_function(obj, _MODULE)
    for name, obj in vars(_keras.activations).items()
    if not name.startswith("_")
    and callable(obj)
    and name not in ("get", "serialize", "deserialize")
}
globals().update(_NAMES)


def get(identifier):
    """An activation from a name or a callable (Keras's ``get``)."""
    if identifier is None or hasattr(identifier, "_keras_object"):
        return identifier
    obj = _keras.activations.get(identifier)
    return _NAMES.get(getattr(obj, "__name__", ""), lifted_function(obj, _MODULE))


def serialize(activation):
    return _keras.activations.serialize(getattr(activation, "_keras_object", activation))


def deserialize(config, custom_objects=None):
    return get(_keras.activations.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(list(_NAMES) + ["deserialize", "get", "serialize"])
