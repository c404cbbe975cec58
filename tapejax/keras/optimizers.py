"""``tf.keras.optimizers``: Keras 3's optimizers, updating tapejax Variables.

Each class has the name and constructor of the Keras optimizer it wraps (see
``_optimizer.py``); ``schedules`` is Keras's own module of learning-rate schedules.
"""

from ._backend import keras as _keras
from ._optimizer import Optimizer, optimizer_class, wrap_optimizer

schedules = _keras.optimizers.schedules

_LEFT_OUT = frozenset({"Optimizer"})


def _bridge_all() -> list:
    names = []
    for name in dir(_keras.optimizers):
        obj = getattr(_keras.optimizers, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, _keras.optimizers.Optimizer)
            and name not in _LEFT_OUT
        ):
            globals()[name] = optimizer_class(obj)
            names.append(name)
    return names


_BRIDGED = _bridge_all()


def get(identifier):
    """An optimizer from a name (``"adam"``), a config dict or an optimizer (Keras's ``get``)."""
    if isinstance(identifier, Optimizer):
        return identifier
    return wrap_optimizer(_keras.optimizers.get(identifier))


def serialize(optimizer):
    return _keras.optimizers.serialize(optimizer.keras_optimizer)


def deserialize(config, custom_objects=None):
    return wrap_optimizer(_keras.optimizers.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(_BRIDGED + ["Optimizer", "deserialize", "get", "schedules", "serialize"])

from tapejax._src.not_provided import attribute_hook as _attribute_hook  # noqa: E402

__getattr__ = _attribute_hook(__name__, "keras.optimizers")
