"""``tf.keras.regularizers``: Keras 3's regularizers as recorded tapejax ops."""

from ._backend import keras as _keras
from ._wrappers import namespace, wrap_object

_MODULE = "tapejax.keras.regularizers"
_NAMES = namespace(_keras.regularizers, _MODULE, "differentiable")
globals().update(_NAMES)


def get(identifier):
    """A regularizer from a name, a config or a callable (Keras's ``get``)."""
    if identifier is None or hasattr(identifier, "_keras_object"):
        return identifier
    obj = _keras.regularizers.get(identifier)
    if isinstance(obj, _keras.regularizers.Regularizer):
        return wrap_object(obj, _MODULE, "differentiable")
    return obj


def serialize(regularizer):
    return _keras.regularizers.serialize(getattr(regularizer, "_keras_object", regularizer))


def deserialize(config, custom_objects=None):
    return get(_keras.regularizers.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(list(_NAMES) + ["deserialize", "get", "serialize"])
