"""SavedModels (``tf.saved_model``): a Module's Variables and compiled functions on disk.

``save`` writes the Variables and every traced ``tapejax.function`` (exported with
``jax.export``) of an object; ``load`` gives back an object with the same attributes,
callable without the original Python code. The directory is tapejax's own format: TF
cannot load it and tapejax cannot load TF's ``saved_model.pb``; see
``tapejax/_src/saved_model.py``.
"""

from tapejax._src.saved_model import (
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    SERVING,
    LoadOptions,
    SaveOptions,
    contains_saved_model,
    load,
    save,
)

__all__ = [
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "SERVING",
    "LoadOptions",
    "SaveOptions",
    "contains_saved_model",
    "load",
    "save",
]
