"""``tf.types``: the abstract types of TF's API, for annotations and ``isinstance``.

TF 2.21's ``tf.types`` holds only ``experimental``.
"""

from tapejax.types import experimental

__all__ = ["experimental"]
