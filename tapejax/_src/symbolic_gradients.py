"""``tf.gradients`` and ``tf.hessians``: TF's symbolic derivatives of a graph.

Eagerly TF refuses them (a ``RuntimeError`` pointing to ``GradientTape``), and so does
tapejax. Inside ``tapejax.function`` TF differentiates the function's graph after the
fact; tapejax has no such graph (a traced function records nothing unless a tape
watches), so there they raise ``NotImplementedError`` naming ``GradientTape``, which works
inside functions.
"""

from __future__ import annotations

from . import execution
from .tape import UnconnectedGradients

__all__ = ["gradients", "hessians", "AggregationMethod"]


class AggregationMethod:
    """How ``tf.gradients`` sums the gradients of a value used several times
    (``tf.AggregationMethod``): TF's constants, for ``gradients``' and ``hessians``'
    ``aggregation_method``.

    ``GradientTape.gradient`` takes no such argument, in TF as here: JAX sums
    contributions in the backward program it compiles.

    Example:
        >>> import tapejax as tf
        >>> tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT
        (0, 0)
    """

    ADD_N = 0
    DEFAULT = ADD_N
    # The following are experimental and may not be supported in future releases.
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_EAGER = (
    "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
)


def _refuse(name: str):
    if execution.executing_eagerly():
        raise RuntimeError(_EAGER)
    raise NotImplementedError(
        f"tapejax.{name} inside tapejax.function is not implemented: tapejax keeps no graph "
        "of the function to differentiate after the fact. Record the computation with "
        "tapejax.GradientTape inside the function instead (tape.gradient, or tape.jacobian "
        "of a gradient for Hessians)."
    )


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=UnconnectedGradients.NONE,
):
    """TF's symbolic gradients (``tf.gradients``): refused, as TF refuses them eagerly.

    Raises:
        RuntimeError: eagerly (TF's text).
        NotImplementedError: inside ``tapejax.function`` (TF computes them there).
    """
    _refuse("gradients")


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """TF's symbolic Hessians (``tf.hessians``): refused, as ``gradients``.

    Raises:
        RuntimeError: eagerly (TF's text).
        NotImplementedError: inside ``tapejax.function`` (TF computes them there).
    """
    _refuse("hessians")
