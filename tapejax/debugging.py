"""``tf.debugging``: TF 2's assertions."""

from tapejax._src.asserts import Assert, assert_equal, assert_greater, assert_less, assert_rank

__all__ = ["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"]
