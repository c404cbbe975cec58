"""``tf.autodiff``: tapes and forward-mode accumulators."""

from tapejax._src.tape import GradientTape

__all__ = ["GradientTape"]
