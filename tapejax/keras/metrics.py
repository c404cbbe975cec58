"""``tf.keras.metrics``: Keras 3's metrics, fed tapejax Tensors (see ``_wrappers.py``).

Metric objects keep Keras's state and update it eagerly; ``result()`` is a Tensor.
Metric functions (``sparse_categorical_accuracy``, ...) are recorded ops.
"""

from ._backend import keras as _keras
from ._wrappers import namespace, wrap_object

_MODULE = "tapejax.keras.metrics"
# tf.keras.metrics is Keras's ``_tf_keras`` API: Keras 3's metrics plus the short aliases.
_NAMES = namespace(
    _keras._tf_keras.keras.metrics,
    _MODULE,
    "metric",
    base=_keras.metrics.Metric,
    skip=frozenset({"Metric"}),
)
globals().update(_NAMES)
# The base class is Keras's own: a subclass's ``update_state`` and ``result`` run on the
# arrays ``compile``/``fit`` hand Keras's metrics (tapejax ops take them too).
Metric = _keras.metrics.Metric


def get(identifier):
    """A metric from a name, a config or a callable (Keras's ``get``)."""
    if hasattr(identifier, "_keras_object"):
        return identifier
    obj = _keras.metrics.get(identifier)
    if isinstance(obj, _keras.metrics.Metric):
        return wrap_object(obj, _MODULE, "metric")
    return _NAMES.get(getattr(obj, "__name__", ""), obj)


def serialize(metric):
    return _keras.metrics.serialize(getattr(metric, "_keras_object", metric))


def deserialize(config, custom_objects=None):
    return get(_keras.metrics.deserialize(config, custom_objects=custom_objects))


__all__ = sorted(list(_NAMES) + ["Metric", "deserialize", "get", "serialize"])
