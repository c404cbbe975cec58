"""``tapejax.data``'s implementation: a host-side ``tf.data.Dataset``."""
