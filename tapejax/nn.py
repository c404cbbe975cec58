"""``tf.nn``: activations and losses."""

from tapejax._src.ops.nn_ops import (
    bias_add,
    elu,
    l2_loss,
    log_softmax,
    relu,
    relu6,
    selu,
    sigmoid,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    softsign,
    sparse_softmax_cross_entropy_with_logits,
    tanh,
)

__all__ = [
    "bias_add",
    "elu",
    "l2_loss",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
]

# Names of this namespace that TF also exports at top level and that tapejax's
# ``__init__`` does not import by name; it re-exports them.
TOPLEVEL: list[str] = []
