"""``tf.keras.models``: ``Model`` and ``Sequential`` (see ``_model.py``)."""

from ._model import Model, Sequential

__all__ = ["Model", "Sequential"]
