"""``tf.profiler``: TF 2's profiler API, ``tf.profiler.experimental``, on JAX's profiler."""

from tapejax.profiler import experimental

__all__ = ["experimental"]
