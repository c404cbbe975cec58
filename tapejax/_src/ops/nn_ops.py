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
from ._helpers import binary_operands, require, to_tensor
from .math_ops import _unary

relu = _unary("Relu", jax.nn.relu, "fiu")
relu6 = _unary("Relu6", jax.nn.relu6, "fiu")
elu = _unary("Elu", jax.nn.elu, "f")
selu = _unary("Selu", jax.nn.selu, "f")
softplus = _unary("Softplus", jax.nn.softplus, "f")
softsign = _unary("Softsign", jax.nn.soft_sign, "f")
sigmoid = _unary("Sigmoid", jax.nn.sigmoid, "f")
tanh = _unary("Tanh", jnp.tanh, "fc")

_softmax_op = Op("Softmax", lambda x, *, axis: jax.nn.softmax(x, axis=axis))
_log_softmax_op = Op("LogSoftmax", lambda x, *, axis: jax.nn.log_softmax(x, axis=axis))


def _axis(x: Tensor, axis) -> int:
    n = x._value.ndim
    axis = -1 if axis is None else int(axis)
    if not -n <= axis < n:
        raise InvalidArgumentError(
            None, None, f"`axis` must be in the range [{-n}, {n}) where {n} is the number of dimensions in the input. Received: axis={axis}"
        )
    return axis % n


def softmax(logits, axis=None, name=None):
    """Softmax along ``axis`` (last by default), as ``tf.nn.softmax``."""
    x = to_tensor(logits)
    require(x, "f", "Softmax")
    return apply(_softmax_op, (x,), (("axis", _axis(x, axis)),))


def log_softmax(logits, axis=None, name=None):
    """Log-softmax along ``axis`` (last by default), as ``tf.nn.log_softmax``."""
    x = to_tensor(logits)
    require(x, "f", "LogSoftmax")
    return apply(_log_softmax_op, (x,), (("axis", _axis(x, axis)),))


def _sparse_xent_fn(labels, logits):
    lse = jax.scipy.special.logsumexp(logits, axis=-1)
    picked = jnp.take_along_axis(logits, labels[..., None].astype(jnp.int32), axis=-1)[..., 0]
    return lse - picked


_sparse_xent_op = Op("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_fn)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-example cross-entropy of integer ``labels`` against ``logits`` (last axis: classes).

    Raises:
      ValueError: shapes do not match (``labels.shape == logits.shape[:-1]``).
      InvalidArgumentError: a label outside ``[0, num_classes)`` (checked when eager).
    """
    if labels is None or logits is None:
        raise ValueError(
            "Only call `sparse_softmax_cross_entropy_with_logits` with named arguments "
            "(labels=..., logits=..., ...). "
        )
    lab = to_tensor(labels)
    lg = to_tensor(logits)
    require(lg, "f", "SparseSoftmaxCrossEntropyWithLogits")
    if lab._value.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None, None, f"Value for attr 'Tlabels' of {lab.dtype.name} is not in the list of allowed values: int32, int64 [Op:SparseSoftmaxCrossEntropyWithLogits]"
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
    if not isinstance(lab._value, jax.core.Tracer):
        arr = np.asarray(lab._value)
        n = lg._value.shape[-1]
        bad = np.argwhere((arr < 0) | (arr >= n))
        if bad.size:
            raise InvalidArgumentError(
                None,
                None,
                f"Received a label value of {arr[tuple(bad[0])]} which is outside the valid range of "
                f"[0, {n}).  Label values: {' '.join(map(str, arr.reshape(-1)))} "
                "[Op:SparseSoftmaxCrossEntropyWithLogits]",
            )
    return apply(_sparse_xent_op, (lab, lg))


_xent_op = Op(
    "SoftmaxCrossEntropyWithLogits",
    lambda labels, logits, *, axis: -jnp.sum(labels * jax.nn.log_softmax(logits, axis=axis), axis=axis),
)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross-entropy between a label distribution and ``logits`` (``tf.nn.softmax_cross_entropy_with_logits``)."""
    lab, lg = binary_operands(labels, logits, "SoftmaxCrossEntropyWithLogits")
    require(lg, "f", "SoftmaxCrossEntropyWithLogits")
    if lab._value.shape != lg._value.shape:
        raise InvalidArgumentError(
            None, None, f"logits and labels must be broadcastable: logits_size=[{','.join(map(str, lg._value.shape))}] labels_size=[{','.join(map(str, lab._value.shape))}] [Op:SoftmaxCrossEntropyWithLogits]"
        )
    return apply(_xent_op, (lab, lg), (("axis", _axis(lg, axis)),))


_sigmoid_xent_op = Op(
    "SigmoidCrossEntropyWithLogits",
    lambda z, x: jnp.maximum(x, 0) - x * z + jnp.log1p(jnp.exp(-jnp.abs(x))),
)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss, computed stably (``tf.nn.sigmoid_cross_entropy_with_logits``)."""
    lab, lg = binary_operands(labels, logits, "SigmoidCrossEntropyWithLogits")
    if lab._value.shape != lg._value.shape:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({lg.shape} vs {lab.shape})."
        )
    return apply(_sigmoid_xent_op, (lab, lg))


_bias_add_op = Op("BiasAdd", lambda x, b: x + b)


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` along the last dimension (``tf.nn.bias_add``, NHWC)."""
    x, b = binary_operands(value, bias, "BiasAdd")
    if data_format not in (None, "NHWC", "N...C"):
        raise NotImplementedError(f"tapejax.nn.bias_add supports channels-last only, got data_format={data_format!r}")
    if b._value.ndim != 1 or b._value.shape[0] != x._value.shape[-1]:
        raise InvalidArgumentError(
            None, None, f"Must provide as many biases as the last dimension of the input tensor: [{','.join(map(str, b._value.shape))}] vs. [{','.join(map(str, x._value.shape))}] [Op:BiasAdd]"
        )
    return apply(_bias_add_op, (x, b))


_l2_loss_op = Op("L2Loss", lambda x: jnp.sum(jnp.square(x)) / 2)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``)."""
    x = to_tensor(t)
    require(x, "f", "L2Loss")
    return apply(_l2_loss_op, (x,))
