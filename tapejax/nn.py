"""``tf.nn``: activations, losses, normalization, convolutions and pooling."""

from tapejax._src.ops.activation_ops import (
    crelu,
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    softmax,
    softplus,
    softsign,
    swish,
    tanh,
)
from tapejax._src.ops.conv_ops import (
    atrous_conv2d,
    conv1d,
    conv2d,
    conv3d,
    convolution,
    depthwise_conv2d,
    separable_conv2d,
)
from tapejax._src.ops.conv_transpose_ops import (
    conv1d_transpose,
    conv2d_transpose,
    conv3d_transpose,
    conv_transpose,
)
from tapejax._src.ops.ctc_decoder_ops import ctc_beam_search_decoder, ctc_greedy_decoder
from tapejax._src.ops.embedding_sparse_ops import (
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from tapejax._src.ops.layer_ops import bias_add, embedding_lookup
from tapejax._src.ops.loss_ops import (
    compute_average_loss,
    ctc_loss,
    l2_loss,
    log_poisson_loss,
    scale_regularization_loss,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
    weighted_cross_entropy_with_logits,
)
from tapejax._src.ops.normalization_ops import (
    batch_normalization,
    local_response_normalization,
    lrn,
    moments,
    normalize_moments,
    sufficient_statistics,
    weighted_moments,
)
from tapejax._src.ops.pool_ops import (
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    pool,
)
from tapejax._src.ops.random_ops import dropout
from tapejax._src.ops.reduction_ops import l2_normalize, zero_fraction  # tf.nn's are tf.math's
from tapejax._src.ops.space_ops import depth_to_space, space_to_batch, space_to_depth
from tapejax._src.ops.top_k_ops import approx_max_k, approx_min_k, in_top_k, top_k  # tf.math's

__all__ = [
    "approx_max_k",
    "approx_min_k",
    "atrous_conv2d",
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_normalization",
    "bias_add",
    "compute_average_loss",
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "conv_transpose",
    "convolution",
    "crelu",
    "ctc_beam_search_decoder",
    "ctc_greedy_decoder",
    "ctc_loss",
    "depth_to_space",
    "depthwise_conv2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "embedding_lookup_sparse",
    "gelu",
    "in_top_k",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "local_response_normalization",
    "log_poisson_loss",
    "log_softmax",
    "lrn",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "moments",
    "normalize_moments",
    "pool",
    "relu",
    "relu6",
    "safe_embedding_lookup_sparse",
    "scale_regularization_loss",
    "selu",
    "separable_conv2d",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "softsign",
    "space_to_batch",
    "space_to_depth",
    "sparse_softmax_cross_entropy_with_logits",
    "sufficient_statistics",
    "swish",
    "tanh",
    "top_k",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "zero_fraction",
]

# Names of this namespace that TF also exports at top level and that tapejax's
# ``__init__`` does not import by name; it re-exports them.
TOPLEVEL: list[str] = []
