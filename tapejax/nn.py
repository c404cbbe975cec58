"""``tf.nn``: activations, losses (sampled ones too), normalization, convolutions, pooling
and the candidate samplers TF also exports here."""

import sys as _sys

from tapejax import nn_experimental as experimental
from tapejax._src.not_provided import attribute_hook as _attribute_hook
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
from tapejax._src.ops.argmax_pool_ops import max_pool_with_argmax
from tapejax._src.ops.atrous_ops import atrous_conv2d_transpose, with_space_to_batch
from tapejax._src.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
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
from tapejax._src.ops.ctc_label_ops import collapse_repeated, ctc_unique_labels
from tapejax._src.ops.depthwise_backprop_ops import (
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
)
from tapejax._src.ops.embedding_sparse_ops import (
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from tapejax._src.ops.fractional_pool_ops import fractional_avg_pool, fractional_max_pool
from tapejax._src.ops.isotonic_ops import isotonic_regression
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
from tapejax._src.ops.morphology_ops import dilation2d, erosion2d
from tapejax._src.ops.normalization_ops import (
    batch_norm_with_global_normalization,
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
from tapejax._src.ops.sampled_loss_ops import nce_loss, sampled_softmax_loss
from tapejax._src.ops.space_ops import depth_to_space, space_to_batch, space_to_depth
from tapejax._src.ops.top_k_ops import approx_max_k, approx_min_k, in_top_k, top_k  # tf.math's

__getattr__ = _attribute_hook("tapejax.nn", "nn")

__all__ = [
    "all_candidate_sampler",
    "approx_max_k",
    "approx_min_k",
    "atrous_conv2d",
    "atrous_conv2d_transpose",
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm_with_global_normalization",
    "batch_normalization",
    "bias_add",
    "collapse_repeated",
    "compute_accidental_hits",
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
    "ctc_unique_labels",
    "depth_to_space",
    "depthwise_conv2d",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
    "dilation2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "embedding_lookup_sparse",
    "erosion2d",
    "experimental",
    "fixed_unigram_candidate_sampler",
    "fractional_avg_pool",
    "fractional_max_pool",
    "gelu",
    "in_top_k",
    "isotonic_regression",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "learned_unigram_candidate_sampler",
    "local_response_normalization",
    "log_poisson_loss",
    "log_softmax",
    "lrn",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool_with_argmax",
    "moments",
    "nce_loss",
    "normalize_moments",
    "pool",
    "relu",
    "relu6",
    "safe_embedding_lookup_sparse",
    "sampled_softmax_loss",
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
    "with_space_to_batch",
    "zero_fraction",
]

# Names of this namespace that TF also exports at top level and that tapejax's
# ``__init__`` does not import by name; it re-exports them.
TOPLEVEL: list[str] = []

# tapejax.nn is a module, not a package: registered so that ``import
# tapejax.nn.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental
