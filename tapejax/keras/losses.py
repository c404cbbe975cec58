"""``tf.keras.losses``: Keras 3's losses as recorded tapejax ops (see ``_wrappers.py``).

Every loss class and function of ``keras.losses`` under its own name; ``Loss`` is the
base class for losses written with tapejax ops.
"""

from ._backend import keras as _keras
from ._wrappers import Loss, namespace, wrap_object

_MODULE = "tapejax.keras.losses"
# tf.keras.losses is Keras's ``_tf_keras`` API: Keras 3's losses plus the short aliases
# (``mse``, ``KLD``, ...). Its ``Reduction`` is Keras 2's enum: pass reduction strings.
_NAMES = namespace(
    _keras._tf_keras.keras.losses,
    _MODULE,
    "differentiable",
    skip=frozenset({"Loss", "Reduction"}),
)
globals().update(_NAMES)


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

from tapejax._src.not_provided import attribute_hook as _attribute_hook  # noqa: E402

__getattr__ = _attribute_hook(__name__, "keras.losses")
