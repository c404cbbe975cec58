"""``tf.keras.models``: ``Model`` and ``Sequential`` (see ``_model.py``)."""

from ._model import Model, Sequential

__all__ = ["Model", "Sequential"]

from tapejax._src.not_provided import attribute_hook as _attribute_hook  # noqa: E402

__getattr__ = _attribute_hook(__name__, "keras.models")
