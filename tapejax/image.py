"""``tf.image``: resizing, flips, crops and colour conversions."""

__all__: list[str] = []
