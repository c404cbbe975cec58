"""``tf.keras.losses``: Keras 3's losses as recorded tapejax ops (see ``_wrappers.py``).

Every loss class and function of ``keras.losses`` under its own name; ``Loss`` is the
base class for losses written with tapejax ops.
"""

from ._backend import keras as _keras
from ._wrappers import Loss, namespace, wrap_object

_MODULE = "tapejax.keras.losses"
_NAMES = namespace(_keras.losses, _MODULE, "differentiable", skip=frozenset({"Loss"}))
globals().update(_NAMES)
Reduction = None  # Keras 3 has no Reduction enum: pass reduction strings
del Reduction


def get(identifier):
    """A loss from a name (``"mse"``), a config or a callable (Keras's ``get``)."""
    if identifier is None or isinstance(identifier, Loss) or hasattr(identifier, "_keras_object"):
        return identifier
    obj = _keras.losses.get(identifier)
    if isinstance(obj, _keras.losses.Loss):
        return wrap_object(obj, _MODULE, "differentiable")
    return _NAMES.get(getattr(obj, "__name__", ""), obj)


def serialize(loss):
    return _keras.losses.serialize(getattr(loss, "_keras_object", loss))


def deserialize(config, custom_objects=None):
    return get(_keras.losses.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(list(_NAMES) + ["Loss", "deserialize", "get", "serialize"])
