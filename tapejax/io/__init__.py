"""``tf.io``: the file API ``gfile``.

TF's string-tensor ops of ``tf.io`` (``read_file``, ``write_file``, ``decode_*``,
``parse_*``, …) are not provided: tapejax has no string tensors.
"""

from tapejax.io import gfile

__all__ = ["gfile"]
