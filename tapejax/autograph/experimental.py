"""``tf.autograph.experimental``: ``do_not_convert``, ``set_loop_options`` and ``Feature``."""

from tapejax._src.autograph import Feature, do_not_convert, set_loop_options

__all__ = [
    "Feature",
    "do_not_convert",
    "set_loop_options",
]
