"""Neural-network ops of ``tf.nn`` other than convolutions and pooling (``conv_ops``):
activations, losses, normalization, embeddings, CTC.

Losses check labels the way TF's CPU kernels do (range and shape), because JAX's
gather would otherwise return a silently wrong loss for a bad label.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import tf_rules
from ._helpers import (
    TF_ALLOWED,
    binary_operands,
    check_broadcast,
    dtype_mismatch,
    normalize_axis,
    require,
    tf_type_name,
    to_tensor,
)
from .array_ops import concat, gather, squeeze
from .array_ops import reshape as _reshape
from .math_ops import (  # noqa: F401 - tf.nn's sigmoid and tanh are tf.math's
    _unary,
    cast,
    multiply,
    sigmoid,
    square,
    squared_difference,
    subtract,
    tanh,
)
from .reduction_ops import reduce_mean, reduce_sum


def _activation(tf_name: str, fn, kinds: str):
    """A unary op whose argument is TF's ``features`` (``tf.nn.relu(features=x)`` works)."""
    unary = _unary(tf_name, fn, kinds)

    def public(features, name=None):
        return unary(features)

    public.__name__ = unary.__name__
    public.__doc__ = f"``tf.nn.{tf_name.lower()}``: elementwise ``{tf_name}``, differentiable."
    public.op = unary.op
    return public


relu = _activation("Relu", jax.nn.relu, "fiu")
# jax.nn.relu6 returns floats for ints; TF keeps the dtype.
relu6 = _activation(
    "Relu6", lambda x: jax.nn.relu6(x) if x.dtype.kind == "f" else jnp.clip(x, 0, 6), "fiu"
)
elu = _activation("Elu", jax.nn.elu, "f")
selu = _activation("Selu", jax.nn.selu, "f")
softplus = _activation("Softplus", jax.nn.softplus, "f")
softsign = _activation("Softsign", jax.nn.soft_sign, "f")
# ``tf.nn.sigmoid`` and ``tf.nn.tanh`` are ``tf.math``'s (complex included), imported above.

_softmax_op = Op("Softmax", lambda x, *, axis: jax.nn.softmax(x, axis=axis))
_log_softmax_op = Op("LogSoftmax", lambda x, *, axis: jax.nn.log_softmax(x, axis=axis))


def _axis(x: Tensor, axis, op_name: str) -> int:
    n = x._value.ndim
    if n == 0:
        raise InvalidArgumentError(
            None, None, f"logits must have >= 1 dimension, got [] [Op:{op_name}]"
        )
    axis = -1 if axis is None else int(axis)
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-n}, {n}) where {n} is the number of dimensions in "
            f"the input. Received: dim={axis}",
        )
    return axis % n


def softmax(logits, axis=None, name=None):
    """Softmax along ``axis`` (last by default), as ``tf.nn.softmax``."""
    x = to_tensor(logits)
    require(x, "f", "Softmax")
    return apply(_softmax_op, (x,), (("axis", _axis(x, axis, "Softmax")),))


def log_softmax(logits, axis=None, name=None):
    """Log-softmax along ``axis`` (last by default), as ``tf.nn.log_softmax``."""
    x = to_tensor(logits)
    require(x, "f", "LogSoftmax")
    return apply(_log_softmax_op, (x,), (("axis", _axis(x, axis, "LogSoftmax")),))


def _sparse_xent_fn(labels, logits):
    # Through log_softmax (max subtracted first): as precise as TF's kernel in float32.
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(log_probs, labels[..., None].astype(jnp.int32), axis=-1)[..., 0]


_checked_labels: dict = {}  # labels tensor id -> number of classes it was checked against
_sparse_xent_op = Op("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_fn)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-example cross-entropy of integer ``labels`` against ``logits`` (last axis: classes).

    TF 2's signature: both arguments are required and may be passed by position.

    Raises:
      ValueError: shapes do not match (``labels.shape == logits.shape[:-1]``).
      InvalidArgumentError: a label outside ``[0, num_classes)`` (checked when eager).
    """
    lab = to_tensor(labels)
    lg = to_tensor(logits)
    require(lg, "f", "SparseSoftmaxCrossEntropyWithLogits")
    if lab._value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tlabels' of {tf_type_name(lab._value.dtype)} is not in the list of allowed values: int32, int64 [Op:SparseSoftmaxCrossEntropyWithLogits]",
        )
    if lab._value.ndim != lg._value.ndim - 1:
        raise ValueError(
            f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
            f"{lab.shape} of rank {lab._value.ndim} and logits.shape={lg.shape} of rank {lg._value.ndim}"
        )
    if lab._value.shape != lg._value.shape[:-1]:
        raise ValueError(
            f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
            f"labels.shape={lab.shape} and logits.shape={lg.shape}"
        )
    n = lg._value.shape[-1]
    if not isinstance(lab._value, jax.core.Tracer) and _checked_labels.get(lab._id) != n:
        # TF's CPU kernel rejects out-of-range labels; JAX would silently give a wrong loss.
        # Tensors are immutable, so a labels tensor checked once stays checked.
        arr = np.asarray(lab._value)
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            bad = np.argwhere((arr < 0) | (arr >= n))
            raise InvalidArgumentError(
                None,
                None,
                f"Received a label value of {arr[tuple(bad[0])]} which is outside the valid range of "
                f"[0, {n}).  Label values: {' '.join(map(str, arr.reshape(-1)))} "
                "[Op:SparseSoftmaxCrossEntropyWithLogits]",
            )
        if len(_checked_labels) > 64:
            _checked_labels.clear()
        _checked_labels[lab._id] = n
    return apply(_sparse_xent_op, (lab, lg))


_xent_op = Op(
    "SoftmaxCrossEntropyWithLogits",
    lambda labels, logits, *, axis: tf_rules.softmax_xent(labels, logits, axis),
)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross-entropy between a label distribution and ``logits`` (``tf.nn.softmax_cross_entropy_with_logits``).

    As TF: ``labels`` are cast to ``logits``' dtype and may broadcast against them; the
    gradient flows into both.
    """
    lg = to_tensor(logits)
    require(lg, "f", "SoftmaxCrossEntropyWithLogits")
    lab = cast(to_tensor(labels), lg.dtype)
    ax = _axis(lg, axis, "SoftmaxCrossEntropyWithLogits")
    ls, gs = lab._value.shape, lg._value.shape
    try:
        fits = len(ls) == len(gs) and np.broadcast_shapes(ls, gs) == gs
    except ValueError:
        fits = False
    if not fits:
        raise InvalidArgumentError(
            None,
            None,
            "logits and labels must be broadcastable: "
            f"logits_size=[{','.join(map(str, _flat2d(gs, ax)))}] "
            f"labels_size=[{','.join(map(str, _flat2d(ls, ax)))}] "
            "[Op:SoftmaxCrossEntropyWithLogits]",
        )
    return apply(_xent_op, (lab, lg), (("axis", ax),))


def _flat2d(shape, axis):
    # TF's kernel sees [batch, classes]: the class axis last, the others flattened.
    if not shape:
        return (1, 1)
    axis = min(axis, len(shape) - 1)
    rest = [d for i, d in enumerate(shape) if i != axis]
    return (int(np.prod(rest)), shape[axis])


_sigmoid_xent_op = Op(
    "SigmoidCrossEntropyWithLogits",
    lambda z, x: jnp.maximum(x, 0) - x * z + jnp.log1p(jnp.exp(-jnp.abs(x))),
)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss, computed stably (``tf.nn.sigmoid_cross_entropy_with_logits``).

    As TF: ``labels`` and ``logits`` are converted separately, so int labels are an error
    (TF's text names the ``Mul`` inside its formula).
    """
    if labels is None or logits is None:
        raise ValueError(
            "Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
            f"Received: labels={labels} and logits={logits}"
        )
    lg, lab = to_tensor(logits), to_tensor(labels)
    if lab._value.shape != lg._value.shape:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({lg.shape} vs {lab.shape})."
        )
    if lab._value.dtype != lg._value.dtype:
        raise dtype_mismatch("Mul", 1, lg._value.dtype, lab._value.dtype)
    require(lg, "fc", "Exp")  # where TF's formula first needs a floating type
    return apply(_sigmoid_xent_op, (lab, lg))


_bias_add_op = Op(
    "BiasAdd",
    lambda x, b, *, channel_axis: x + jnp.expand_dims(b, tuple(range(1, x.ndim - channel_axis))),
)


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` along the channel dimension (``tf.nn.bias_add``): the last for
    ``N...C`` formats (the default), the second for ``NC...`` ones."""
    x, b = binary_operands(value, bias, "BiasAdd")
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        channels_first = False
    elif data_format.startswith("NC"):
        channels_first = True
    else:
        raise ValueError(
            "`data_format` must be of the form `N...C` or `NC...`. "
            f"Received: data_format={data_format}"
        )
    require(x, "fciu", "BiasAdd")
    if x._value.ndim < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Input tensor must be at least 2D: [{','.join(map(str, x._value.shape))}] [Op:BiasAdd]",
        )
    if b._value.ndim != 1:
        raise InvalidArgumentError(
            None, None, f"Biases must be 1D: [{','.join(map(str, b._value.shape))}] [Op:BiasAdd]"
        )
    axis = 1 if channels_first and x._value.ndim > 2 else x._value.ndim - 1
    if b._value.shape[0] != x._value.shape[axis]:
        raise InvalidArgumentError(
            None,
            None,
            f"Must provide as many biases as the last dimension of the input tensor: [{','.join(map(str, b._value.shape))}] vs. [{','.join(map(str, x._value.shape))}] [Op:BiasAdd]",
        )
    return apply(_bias_add_op, (x, b), (("channel_axis", axis),))


_l2_loss_op = Op("L2Loss", lambda x: jnp.sum(jnp.square(x)) / 2)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``)."""
    x = to_tensor(t)
    require(x, "f", "L2Loss")
    return apply(_l2_loss_op, (x,))


# -- more activations -------------------------------------------------------------------------

TF_ALLOWED.update({"LeakyRelu": "half, bfloat16, float, double", "LRN": "half, bfloat16, float"})


def _gelu_fn(x, *, approximate):
    if approximate:
        return jax.nn.gelu(x, approximate=True)
    # TF's exact form, through erfc: no cancellation for large negative x.
    return 0.5 * x * jax.lax.erfc(-x * jnp.asarray(0.7071067811865476, x.dtype))


_gelu_op = Op("Gelu", _gelu_fn)


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit (``tf.nn.gelu``): ``x * P(X <= x)``, X ~ N(0, 1).

    ``approximate=False`` (TF's default) is the exact erf form; ``True`` the tanh
    approximation.

    Example:
        >>> import tapejax as tf
        >>> tf.nn.gelu([0.0, 1.0]).numpy().round(4)
        array([0.    , 0.8413], dtype=float32)
    """
    x = to_tensor(features)
    if x._value.dtype.kind != "f" and x._value.dtype != dtypes.bfloat16._np:
        raise ValueError(
            f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype!r}"
        )
    return apply(_gelu_op, (x,), (("approximate", bool(approximate)),))


_swish_op = Op("Swish", lambda x, beta: x * jax.nn.sigmoid(beta * x))


def silu(features, beta=1.0):
    """``features * sigmoid(beta * features)`` (``tf.nn.silu``, alias ``swish``).

    ``beta`` is cast to ``features``' dtype and is differentiable, as in TF.
    """
    x = to_tensor(features)
    require(x, "fc", "Sigmoid")
    b = cast(to_tensor(beta), x.dtype)
    return apply(_swish_op, (x, b))


swish = silu


# TF's LeakyReluGrad takes alpha at 0 (features > 0 is the test); jax.nn.leaky_relu gives 1.
_leaky_relu_op = Op("LeakyRelu", lambda x, *, alpha: jnp.where(x > 0, x, x * alpha))


def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0`` else ``alpha * x`` (``tf.nn.leaky_relu``); integers become float32.

    Its gradient at 0 is ``alpha``, as TF's.
    """
    x = to_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, dtypes.float32)
    if isinstance(alpha, Tensor) or getattr(alpha, "_is_variable", False):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    require(x, "f", "LeakyRelu")
    return apply(_leaky_relu_op, (x,), (("alpha", float(np.asarray(alpha))),))


_crelu_op = Op("CRelu", lambda x, *, axis: jax.nn.relu(jnp.concatenate([x, -x], axis=axis)))


def crelu(features, axis=-1, name=None):
    """Concatenated ReLU (``tf.nn.crelu``): ``relu(concat([x, -x], axis))``."""
    x = to_tensor(features)
    require(x, "fiu", "Relu")
    n = x._value.ndim
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None,
            None,
            f"ConcatOp : Expected concatenating dimensions in the range [{-n}, {n}), but got "
            f"{axis} [Op:ConcatV2]",
        )
    return apply(_crelu_op, (x,), (("axis", axis % n),))


# -- losses -----------------------------------------------------------------------------------

_weighted_xent_op = Op(
    "WeightedCrossEntropyWithLogits",
    lambda z, x, q: (
        (1 - z) * x + (1 + (q - 1) * z) * (jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(-x, 0))
    ),
)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Logistic loss with positive examples weighted by ``pos_weight``
    (``tf.nn.weighted_cross_entropy_with_logits``), in TF's stable form."""
    lg, lab = to_tensor(logits), to_tensor(labels)
    if lab._value.shape != lg._value.shape:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({lg.shape} vs {lab.shape})."
        )
    # TF computes ``1 + (pos_weight - 1) * labels`` first, then ``(1 - labels) * logits``.
    if isinstance(pos_weight, (Tensor,)) or getattr(pos_weight, "_is_variable", False):
        q = to_tensor(pos_weight)
    elif isinstance(pos_weight, float) and lab._value.dtype.kind in "iub":
        raise TypeError(
            f"Cannot convert {pos_weight - 1} to EagerTensor of dtype {tf_type_name(lab._value.dtype)}"
        )
    else:
        q = convert_to_tensor(pos_weight, dtype=lab.dtype)
    if q._value.dtype != lab._value.dtype:
        raise dtype_mismatch("Mul", 1, q._value.dtype, lab._value.dtype)
    if lab._value.dtype != lg._value.dtype:
        raise dtype_mismatch("Mul", 1, lab._value.dtype, lg._value.dtype)
    require(lg, "f", "Exp")
    return apply(_weighted_xent_op, (lab, lg, q))


def _moments_fn(x, *, axes, keepdims):
    # As TF: float16 is computed in float32; the variance is centred on a mean held
    # constant (its gradient flows through the mean's first use only).
    y = x.astype(jnp.float32) if x.dtype == jnp.float16 else x
    mean = jnp.mean(y, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(y - jax.lax.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
    return mean.astype(x.dtype), variance.astype(x.dtype)


_moments_op = Op("Moments", _moments_fn, multiple_outputs=True)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance of ``x`` over ``axes`` (``tf.nn.moments``); ``shift`` is ignored,
    as in TF 2.

    Example:
        >>> import tapejax as tf
        >>> mean, variance = tf.nn.moments(tf.constant([1.0, 2.0, 3.0]), axes=[0])
        >>> float(mean), round(float(variance), 4)
        (2.0, 0.6667)
    """
    t = to_tensor(x)
    require(t, "fiu", "Mean")
    ax = normalize_axis(axes, t._value.ndim, "Mean")
    if t._value.dtype.kind in "iu":
        # TF's integer path: integer means (truncating), through TF's own ops.
        mean = reduce_mean(t, ax, keepdims=True)
        variance = reduce_mean(squared_difference(t, mean), ax, keepdims=True)
        if not keepdims:
            mean, variance = squeeze(mean, ax), squeeze(variance, ax)
        return mean, variance
    return apply(_moments_op, (t,), (("axes", ax), ("keepdims", bool(keepdims))))


def _batch_norm_fn(x, mean, variance, *rest, epsilon, has_offset, has_scale):
    offset = rest[0] if has_offset else None
    scale = rest[-1] if has_scale else None
    inv = jax.lax.rsqrt(variance + jnp.asarray(epsilon, variance.dtype))
    if scale is not None:
        inv = inv * scale
    shift = -mean * inv if offset is None else offset - mean * inv
    return x * inv.astype(x.dtype) + shift.astype(x.dtype)


_batch_norm_op = Op("BatchNormalization", _batch_norm_fn)


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``
    (``tf.nn.batch_normalization``), in TF's order of operations; ``offset`` and ``scale``
    may be None."""
    t = to_tensor(x)
    # A Python variance is added to the epsilon in Python, then converted: float32.
    v = to_tensor(float(variance) if isinstance(variance, (int, float)) else variance)

    def operand(a):  # Python numbers take the variance's dtype, as in TF's arithmetic
        if a is None or isinstance(a, Tensor) or getattr(a, "_is_variable", False):
            return None if a is None else to_tensor(a)
        return convert_to_tensor(a, dtype=v.dtype)

    m, off, sc = operand(mean), operand(offset), operand(scale)
    # TF: inv = rsqrt(variance + eps) * scale; offset - mean * inv; both cast to x's dtype.
    vdt = v._value.dtype
    if sc is not None and sc._value.dtype != vdt:
        raise dtype_mismatch("Mul", 1, vdt, sc._value.dtype)
    if m._value.dtype != vdt:
        raise dtype_mismatch("Mul", 1, m._value.dtype, vdt)
    if off is not None and off._value.dtype != vdt:
        raise dtype_mismatch("Sub", 1, off._value.dtype, vdt)
    for a in (v, m, off, sc):
        if a is not None:
            check_broadcast(t, a, "Mul")
    args = (t, m, v) + tuple(a for a in (off, sc) if a is not None)
    static = (
        ("epsilon", float(variance_epsilon)),
        ("has_offset", off is not None),
        ("has_scale", sc is not None),
    )
    return apply(_batch_norm_op, args, static)


_normalize_moments_op = Op(
    "NormalizeMoments",
    lambda counts, mean_ss, variance_ss, *shift: (
        mean_ss / counts + (shift[0] if shift else 0),
        variance_ss / counts - jnp.square(mean_ss / counts),
    ),
    multiple_outputs=True,
)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from sufficient statistics (``tf.nn.normalize_moments``)."""
    c, m, v = (to_tensor(a) for a in (counts, mean_ss, variance_ss))
    s = None if shift is None else to_tensor(shift)
    for a in (m, v, s):
        if a is not None and a._value.dtype != c._value.dtype:
            raise dtype_mismatch("Mul", 1, c._value.dtype, a._value.dtype)
    return apply(_normalize_moments_op, (c, m, v) + ((s,) if s is not None else ()))


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """Sum of (weighted) losses over the global batch size (``tf.nn.compute_average_loss``),
    without a distribution strategy (one replica); 0 where the batch size is 0."""
    loss = to_tensor(per_example_loss)
    if loss._value.ndim < 1:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received per_example_loss={loss} with rank 0"
        )
    if loss._value.dtype.kind not in "f" and loss._value.dtype != dtypes.bfloat16._np:
        raise NotImplementedError(
            "tapejax.nn.compute_average_loss of an integer per_example_loss is not implemented"
        )
    dtype = loss.dtype
    if sample_weight is not None:
        w = cast(to_tensor(sample_weight), dtypes.float32)
        loss = cast(loss, dtypes.float32)
        if w._value.ndim and w._value.ndim - loss._value.ndim == 1:
            w = _reshape(w, w._value.shape[:-1])
        elif w._value.ndim and loss._value.ndim - w._value.ndim == 1:
            w = _reshape(w, w._value.shape + (1,))
        loss = cast(multiply(loss, w), dtype)
    if global_batch_size is None:
        global_batch_size = loss._value.shape[0]
    n = np.asarray(global_batch_size)
    if n.ndim:
        raise InvalidArgumentError(None, None, "global_batch_size must be scalar.")
    if n.dtype.kind not in "iu":
        raise TypeError("global_batch_size must be an integer.")
    if n < 0:
        raise InvalidArgumentError(None, None, "global_batch_size must be non-negative.")
    return apply(_average_loss_op, (loss,), (("n", int(n)),))


_average_loss_op = Op(
    "ComputeAverageLoss", lambda x, *, n: jnp.sum(x) / n if n else jnp.zeros((), x.dtype)
)


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` (``tf.nn.scale_regularization_loss``, one replica)."""
    return reduce_sum(regularization_loss)


# -- embeddings and normalization -------------------------------------------------------------


def _clip_rows_fn(x, *, axes, max_norm):
    # TF's clip_by_norm over each embedding: zero rows stay zero, without a NaN gradient.
    l2sum = jnp.sum(x * x, axis=axes, keepdims=True)
    positive = l2sum > 0
    l2norm = jnp.where(positive, jnp.sqrt(jnp.where(positive, l2sum, 1)), l2sum)
    clip = jnp.asarray(max_norm, x.dtype)
    return x * clip / jnp.maximum(l2norm, clip)


_clip_rows_op = Op("ClipByNorm", _clip_rows_fn)


def _div_partition(ids: np.ndarray, sizes: list) -> np.ndarray:
    """TF 2's "div" partitioning: ids as rows of the concatenated partitions, checked."""
    n, total = len(sizes), sum(sizes)
    per, extras = total // n, total % n
    part = np.maximum(ids // (per + 1), (ids - extras) // max(per, 1))
    local = np.where(part < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    bad = np.argwhere((part < 0) | (part >= n)).reshape(-1)
    if bad.size:
        raise InvalidArgumentError(
            None,
            None,
            f"partitions[{bad[0]}] = {part[bad[0]]} is not in [0, {n}) [Op:DynamicPartition]",
        )
    for p, size in enumerate(sizes):
        mine = local[part == p]
        over = np.argwhere(mine >= size).reshape(-1)
        if over.size:
            raise InvalidArgumentError(
                None,
                None,
                f"indices[{over[0]}] = {mine[over[0]]} is not in [0, {size}) [Op:GatherV2]",
            )
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(ids.dtype)
    return offsets[part] + local


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` at ``ids`` (``tf.nn.embedding_lookup``).

    ``params`` is a tensor or a list of tensors sharded with TF 2's "div" strategy (ids
    are assigned to the shards in contiguous blocks); ``max_norm`` clips each embedding's
    L2 norm. With a list, ``ids`` must be concrete (eager).
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    shards = [to_tensor(p) for p in params] if isinstance(params, (list, tuple)) else None
    ind = to_tensor(ids)
    if shards is None or len(shards) == 1:
        out = gather(shards[0] if shards else params, ind)
    else:
        if isinstance(ind._value, jax.core.Tracer):
            raise NotImplementedError(
                "tapejax.nn.embedding_lookup of a list of params needs concrete ids"
            )
        if ind._value.dtype.kind not in "iu":
            return gather(shards[0], ind)  # TF's Tindices error
        rows = _div_partition(np.asarray(ind._value), [s._value.shape[0] for s in shards])
        out = gather(concat(shards, 0), rows)
    if max_norm is None:
        return out
    axes = tuple(range(ind._value.ndim, out._value.ndim))
    return apply(_clip_rows_op, (out,), (("axes", axes), ("max_norm", float(max_norm))))


def _lrn_fn(x, *, depth_radius, bias, alpha, beta):
    r = depth_radius
    window = (1, 1, 1, 2 * r + 1)
    sqr_sum = jax.lax.reduce_window(
        jnp.square(x),
        np.array(0, x.dtype),  # concrete: JAX's differentiable add-window primitive
        jax.lax.add,
        window,
        (1, 1, 1, 1),
        ((0, 0), (0, 0), (0, 0), (r, r)),
    )
    return x / jnp.power(bias + alpha * sqr_sum, beta)


_lrn_op = Op("LRN", _lrn_fn)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """Local response normalization over the last axis of a 4-D tensor (``tf.nn.lrn``):
    ``input / (bias + alpha * sum(input[..., d - r : d + r + 1] ** 2)) ** beta``."""
    x = to_tensor(input)
    require(x, "f", "LRN")
    if x._value.ndim != 4:
        raise InvalidArgumentError(None, None, "in must be 4-dimensional [Op:LRN]")
    static = (
        ("depth_radius", int(depth_radius)),
        ("bias", float(bias)),
        ("alpha", float(alpha)),
        ("beta", float(beta)),
    )
    return apply(_lrn_op, (x,), static)


lrn = local_response_normalization


# -- more statistics and losses ---------------------------------------------------------------


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``(count, sum(x - shift), sum((x - shift) ** 2), shift)`` over ``axes``
    (``tf.nn.sufficient_statistics``); ``count`` has ``x``'s dtype."""
    t = to_tensor(x)
    ax = tuple(sorted(set(normalize_axis(axes, t._value.ndim, "Sum"))))
    counts = convert_to_tensor(
        np.prod([t._value.shape[a] for a in ax], dtype=np.int64), dtype=t.dtype
    )
    if shift is None:
        m_ss, v_ss = t, square(t)
    else:
        shift = to_tensor(shift)
        m_ss, v_ss = subtract(t, shift), squared_difference(t, shift)
    m_ss = reduce_sum(m_ss, ax, keepdims=keepdims)
    v_ss = reduce_sum(v_ss, ax, keepdims=keepdims)
    return counts, m_ss, v_ss, shift


def _weighted_moments_fn(x, w, *, axes, keepdims):
    dtype = x.dtype
    if x.dtype == jnp.float16:
        x = x.astype(jnp.float32)
    w = w.astype(x.dtype)
    total = jnp.sum(w * x, axis=axes, keepdims=True)
    weight = jnp.sum(w + jnp.zeros_like(x), axis=axes, keepdims=True)
    safe = jnp.where(weight == 0, 1, weight)
    mean = jnp.where(weight == 0, 0, total / safe)  # TF's div_no_nan
    dist = jnp.sum(w * jnp.square(x - mean), axis=axes, keepdims=True)
    variance = jnp.where(weight == 0, 0, dist / safe)
    if not keepdims:
        mean, variance = jnp.squeeze(mean, axes), jnp.squeeze(variance, axes)
    return mean.astype(dtype), variance.astype(dtype)


_weighted_moments_op = Op("WeightedMoments", _weighted_moments_fn, multiple_outputs=True)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Frequency-weighted mean and variance over ``axes`` (``tf.nn.weighted_moments``);
    0 where the weights sum to 0, as TF's ``div_no_nan``."""
    t, w = to_tensor(x), to_tensor(frequency_weights)
    require(t, "f", "Mean")
    check_broadcast(t, w, "Mul")
    ax = normalize_axis(axes, t._value.ndim, "Sum")
    return apply(_weighted_moments_op, (t, w), (("axes", ax), ("keepdims", bool(keepdims))))


def _log_poisson_fn(z, c, *, full):
    loss = jnp.exp(c) - c * z
    if full:
        stirling = z * jnp.log(z) - z + 0.5 * jnp.log(2 * np.pi * z)
        loss = loss + jnp.where((z >= 0) & (z <= 1), jnp.zeros_like(z), stirling)
    return loss


_log_poisson_op = Op("LogPoissonLoss", _log_poisson_fn)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """Poisson negative log-likelihood with log-rate ``log_input`` (``tf.nn.log_poisson_loss``);
    ``compute_full_loss`` adds Stirling's term for targets above 1."""
    c, z = to_tensor(log_input), to_tensor(targets)
    if c._value.shape != z._value.shape:
        raise ValueError(
            "`log_input` and `targets` must have the same shape, received "
            f"({c.shape} vs {z.shape})."
        )
    require(c, "fc", "Exp")
    if z._value.dtype != c._value.dtype:
        raise dtype_mismatch("Mul", 1, c._value.dtype, z._value.dtype)
    return apply(_log_poisson_op, (z, c), (("full", bool(compute_full_loss)),))


# -- CTC --------------------------------------------------------------------------------------

_NEG = -1e30  # log(0) that keeps logaddexp's gradient finite


def _ctc_fn(logits, labels, label_length, logit_length, *, time_major, blank):
    """Per-sequence CTC loss by the forward algorithm in log space (blank class 0 after
    TF's rotation of ``blank``)."""
    dtype = logits.dtype
    logits = logits.astype(jnp.float32) if dtype in (jnp.float16, jnp.bfloat16) else logits
    if not time_major:
        logits = jnp.swapaxes(logits, 0, 1)
    if blank != 0:
        logits = jnp.concatenate(
            [logits[..., blank : blank + 1], logits[..., :blank], logits[..., blank + 1 :]], -1
        )
        labels = jnp.where(labels < blank, labels + 1, labels)
    logp = jax.nn.log_softmax(logits, axis=-1)  # [T, B, K]
    n_time, batch, _ = logp.shape
    n_states = 2 * labels.shape[1] + 1
    states = jnp.arange(n_states)
    if labels.shape[1]:
        ext = jnp.where(states % 2 == 1, labels[:, (states - 1) // 2], 0).astype(jnp.int32)
    else:
        ext = jnp.zeros((batch, 1), jnp.int32)
    prev2 = jnp.concatenate([jnp.full((batch, 2), -1, jnp.int32), ext], axis=1)[:, :n_states]
    can_skip = (states % 2 == 1) & (states >= 2) & (ext != prev2)
    last = 2 * label_length.astype(jnp.int32)
    live = states[None, :] <= last[:, None]
    neg = jnp.asarray(_NEG, logp.dtype)

    def emissions(t):
        return jnp.where(live, jnp.take_along_axis(logp[t], ext, axis=1), neg)

    alpha0 = jnp.where(states[None, :] < 2, emissions(0), neg)

    def step(alpha, t):
        shift1 = jnp.concatenate([jnp.full((batch, 1), neg), alpha], axis=1)[:, :n_states]
        shift2 = jnp.concatenate([jnp.full((batch, 2), neg), alpha], axis=1)[:, :n_states]
        shift2 = jnp.where(can_skip, shift2, neg)
        new = jax.nn.logsumexp(jnp.stack([alpha, shift1, shift2]), axis=0) + emissions(t)
        new = jnp.maximum(new, neg)
        return jnp.where((t < logit_length)[:, None], new, alpha), None

    alpha, _ = jax.lax.scan(step, alpha0, jnp.arange(1, n_time))
    end = jnp.take_along_axis(alpha, last[:, None], axis=1)[:, 0]
    before = jnp.take_along_axis(alpha, jnp.maximum(last - 1, 0)[:, None], axis=1)[:, 0]
    before = jnp.where(last > 0, before, neg)
    loss = -jnp.logaddexp(end, before)
    return jnp.where(loss > -_NEG / 2, jnp.inf, loss).astype(dtype)


_ctc_op = Op("CTCLossDense", _ctc_fn)


def ctc_loss(
    labels,
    logits,
    label_length,
    logit_length,
    logits_time_major=True,
    unique=None,
    blank_index=None,
    name=None,
):
    """Connectionist temporal classification loss per sequence (``tf.nn.ctc_loss``), with
    dense zero-padded ``labels``; the blank class is ``blank_index`` (0 by default, negative
    counts from the end). ``unique`` (TF's precomputation for speed) does not change the
    result and is not needed.

    Raises:
      NotImplementedError: ``labels`` is a SparseTensor (tapejax has none).
    """
    if hasattr(labels, "indices") and hasattr(labels, "dense_shape"):
        raise NotImplementedError("tapejax.nn.ctc_loss with SparseTensor labels is not implemented")
    lg = to_tensor(logits)
    require(lg, "f", "CTCLoss")
    lab, lab_len, lg_len = (to_tensor(a) for a in (labels, label_length, logit_length))
    for t, what in ((lab, "labels"), (lab_len, "label_length"), (lg_len, "logit_length")):
        if t._value.dtype.kind not in "iu":
            raise TypeError(f"`{what}` must be an integer tensor, got {t.dtype!r}")
    if lg._value.ndim != 3 or lab._value.ndim != 2:
        raise ValueError(
            f"`logits` must be rank 3 and dense `labels` rank 2, got logits.shape={lg.shape} "
            f"and labels.shape={lab.shape}"
        )
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += lg._value.shape[2]
    static = (("time_major", bool(logits_time_major)), ("blank", blank))
    return apply(_ctc_op, (lg, lab, lab_len, lg_len), static)
