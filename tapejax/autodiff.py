"""``tf.autodiff``: tapes and forward-mode accumulators."""

from tapejax._src.forwardprop import ForwardAccumulator
from tapejax._src.tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
