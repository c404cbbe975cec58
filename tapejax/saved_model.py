"""SavedModels (``tf.saved_model``): a Module's Variables and compiled functions on disk.

``save`` writes the Variables and every traced ``tapejax.function`` (exported with
``jax.export``) of an object; ``load`` gives back an object with the same attributes,
callable without the original Python code. The directory is tapejax's own format: TF
cannot load it and tapejax cannot load TF's ``saved_model.pb``; see
``tapejax/_src/saved_model.py``.
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.saved_model import (
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    SERVING,
    LoadOptions,
    SaveOptions,
    contains_saved_model,
    load,
    save,
)

# TF's tag and signature-key constants (``tf.saved_model.PREDICT_INPUTS``, ...), the
# strings TF Serving's classify, predict and regress signatures use.
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
GPU = "gpu"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
TPU = "tpu"
TRAINING = "train"

__getattr__ = _attribute_hook("tapejax.saved_model", "saved_model")

__all__ = [
    "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES",
    "CLASSIFY_OUTPUT_SCORES",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "REGRESS_INPUTS",
    "REGRESS_METHOD_NAME",
    "REGRESS_OUTPUTS",
    "TPU",
    "TRAINING",
    "SERVING",
    "LoadOptions",
    "SaveOptions",
    "contains_saved_model",
    "load",
    "save",
]
