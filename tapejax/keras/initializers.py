"""``tf.keras.initializers``: Keras 3's initializers, returning tapejax Tensors."""

from ._backend import keras as _keras
from ._wrappers import namespace, wrap_object

_MODULE = "tapejax.keras.initializers"
_NAMES = {
    name: obj
    for name, obj in namespace(_keras.initializers, _MODULE, "initializer").items()
    if isinstance(obj, type)
}
globals().update(_NAMES)


def get(identifier):
    """An initializer from a name, a config or a callable (Keras's ``get``)."""
    if identifier is None or hasattr(identifier, "_keras_object"):
        return identifier
    obj = _keras.initializers.get(identifier)
    if isinstance(obj, _keras.initializers.Initializer):
        return wrap_object(obj, _MODULE, "initializer")
    return obj


def serialize(initializer):
    return _keras.initializers.serialize(getattr(initializer, "_keras_object", initializer))


def deserialize(config, custom_objects=None):
    return get(_keras.initializers.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(list(_NAMES) + ["deserialize", "get", "serialize"])
