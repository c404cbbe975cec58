"""``tf.io``: the file API ``gfile`` and TFRecord files (``TFRecordWriter``, ``TFRecordOptions``).

TF's string-tensor ops of ``tf.io`` (``read_file``, ``write_file``, ``decode_*``,
``parse_*``, …) and the TFRecord readers are not provided: tapejax has no string tensors.
"""

from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.tfrecord import TFRecordOptions, TFRecordWriter
from tapejax.io import gfile

__getattr__ = _attribute_hook("tapejax.io", "io")

__all__ = [
    "TFRecordOptions",
    "TFRecordWriter",
    "gfile",
]
