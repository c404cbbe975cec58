"""Neural-network ops of ``tf.nn`` needed for a TF-style training step.

Losses check labels the way TF's CPU kernels do (range and shape), because JAX's
gather would otherwise return a silently wrong loss for a bad label.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import tf_rules
from ._helpers import binary_operands, dtype_mismatch, require, tf_type_name, to_tensor
from .math_ops import _unary, cast, sigmoid, tanh  # noqa: F401 - tf.nn's are tf.math's


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


_bias_add_op = Op("BiasAdd", lambda x, b: x + b)


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` along the last dimension (``tf.nn.bias_add``, NHWC)."""
    x, b = binary_operands(value, bias, "BiasAdd")
    if data_format not in (None, "NHWC", "N...C"):
        raise NotImplementedError(
            f"tapejax.nn.bias_add supports channels-last only, got data_format={data_format!r}"
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
    if b._value.shape[0] != x._value.shape[-1]:
        raise InvalidArgumentError(
            None,
            None,
            f"Must provide as many biases as the last dimension of the input tensor: [{','.join(map(str, b._value.shape))}] vs. [{','.join(map(str, x._value.shape))}] [Op:BiasAdd]",
        )
    return apply(_bias_add_op, (x, b))


_l2_loss_op = Op("L2Loss", lambda x: jnp.sum(jnp.square(x)) / 2)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``)."""
    x = to_tensor(t)
    require(x, "f", "L2Loss")
    return apply(_l2_loss_op, (x,))
