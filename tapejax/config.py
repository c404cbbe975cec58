"""``tf.config``: function execution mode and devices."""

from tapejax._src.function import functions_run_eagerly, run_functions_eagerly

__all__ = ["functions_run_eagerly", "run_functions_eagerly"]
