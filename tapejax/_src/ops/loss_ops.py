"""Losses of ``tf.nn``: the softmax, sparse softmax, sigmoid and weighted
cross-entropies, ``l2_loss``, ``log_poisson_loss`` and ``ctc_loss``, and the averaging
of per-example losses (``compute_average_loss``, ``scale_regularization_loss``).

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
from ..sparse_tensor import SparseTensor
from ..tensor import Tensor
from . import tf_rules
from ._ctc_labels import dense_ctc_labels, length_mismatch
from ._helpers import dtype_mismatch, require, tf_type_name, to_tensor
from .activation_ops import _axis
from .array_ops import reshape as _reshape
from .division_ops import divide_no_nan
from .math_ops import cast, multiply, truediv
from .reduction_ops import reduce_sum


def _sparse_xent_fn(labels, logits):
    # Through log_softmax (max subtracted first): as precise as TF's kernel in float32.
    # The label's entry is picked by a gather, as a hand-written JAX loss does: with a
    # one-hot select instead, the MLP step of `benchmarks/mlp.py` at medium size ran
    # slower (same dots; XLA:CPU ran the program's thunks with less overlap).
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    idx = labels[..., None].astype(jnp.int32)
    return -jnp.take_along_axis(log_probs, idx, axis=-1)[..., 0]


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
    if lab._v.dtype.kind not in "iu":
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tlabels' of {tf_type_name(lab._v.dtype)} is not in the list of allowed values: int32, int64 [Op:SparseSoftmaxCrossEntropyWithLogits]",
        )
    if lab._v.ndim != lg._v.ndim - 1:
        raise ValueError(
            f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
            f"{lab.shape} of rank {lab._v.ndim} and logits.shape={lg.shape} of rank {lg._v.ndim}"
        )
    if lab._v.shape != lg._v.shape[:-1]:
        raise ValueError(
            f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
            f"labels.shape={lab.shape} and logits.shape={lg.shape}"
        )
    n = lg._v.shape[-1]
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
    ls, gs = lab._v.shape, lg._v.shape
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


def _sigmoid_xent_fn(z, x):
    # TF's formula op by op: its selects on ``x >= 0`` make the gradient at 0 the true
    # derivative ``sigmoid(0) - z``, where max/abs would give their subgradients.
    positive = x >= 0
    relu_logits = jnp.where(positive, x, jnp.zeros_like(x))
    neg_abs_logits = jnp.where(positive, -x, x)
    return relu_logits - x * z + jnp.log1p(jnp.exp(neg_abs_logits))


_sigmoid_xent_op = Op("SigmoidCrossEntropyWithLogits", _sigmoid_xent_fn)


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
    if lab._v.shape != lg._v.shape:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({lg.shape} vs {lab.shape})."
        )
    if lab._v.dtype != lg._v.dtype:
        raise dtype_mismatch("Mul", 1, lg._v.dtype, lab._v.dtype)
    require(lg, "fc", "Exp")  # where TF's formula first needs a floating type
    return apply(_sigmoid_xent_op, (lab, lg))


@jax.custom_jvp
def _l2_loss(x):
    return jnp.sum(jnp.square(x)) / 2


@_l2_loss.defjvp
def _l2_loss_jvp(primals, tangents):
    # TF's _L2LossGrad, x * grad: JAX's 2 * x overflows in a half type (bfloat16 at 3e38).
    (x,), (t,) = primals, tangents
    return _l2_loss(x), jnp.sum(x * t)


_l2_loss_op = Op("L2Loss", _l2_loss)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2`` (``tf.nn.l2_loss``)."""
    x = to_tensor(t)
    require(x, "f", "L2Loss")
    return apply(_l2_loss_op, (x,))


_weighted_xent_op = Op(
    "WeightedCrossEntropyWithLogits",
    # TF's formula with its ops' gradients: Abs's is sign(x) (``x * sign(x)``; jnp.abs's
    # is 1 at 0) and Relu's is (x > 0), both 0 at 0, so the gradient at 0 is 1 - z.
    lambda z, x, q: (
        (1 - z) * x + (1 + (q - 1) * z) * (jnp.log1p(jnp.exp(-x * jnp.sign(x))) + jax.nn.relu(-x))
    ),
)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Logistic loss with positive examples weighted by ``pos_weight``
    (``tf.nn.weighted_cross_entropy_with_logits``), in TF's stable form."""
    lg, lab = to_tensor(logits), to_tensor(labels)
    if lab._v.shape != lg._v.shape:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({lg.shape} vs {lab.shape})."
        )
    # TF computes ``1 + (pos_weight - 1) * labels`` first, then ``(1 - labels) * logits``.
    if isinstance(pos_weight, (Tensor,)) or getattr(pos_weight, "_is_variable", False):
        q = to_tensor(pos_weight)
    elif isinstance(pos_weight, float) and lab._v.dtype.kind in "iub":
        raise TypeError(
            f"Cannot convert {pos_weight - 1} to EagerTensor of dtype {tf_type_name(lab._v.dtype)}"
        )
    else:
        q = convert_to_tensor(pos_weight, dtype=lab.dtype)
    if q._v.dtype != lab._v.dtype:
        raise dtype_mismatch("Mul", 1, q._v.dtype, lab._v.dtype)
    if lab._v.dtype != lg._v.dtype:
        raise dtype_mismatch("Mul", 1, lab._v.dtype, lg._v.dtype)
    require(lg, "f", "Exp")
    return apply(_weighted_xent_op, (lab, lg, q))


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """Sum of (weighted) losses over the global batch size (``tf.nn.compute_average_loss``),
    without a distribution strategy (one replica); 0 where the batch size is 0."""
    loss = to_tensor(per_example_loss)
    if loss._v.ndim < 1:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received per_example_loss={loss} with rank 0"
        )
    dtype = loss.dtype
    if sample_weight is not None:
        w = cast(to_tensor(sample_weight), dtypes.float32)
        loss = cast(loss, dtypes.float32)
        if w._v.ndim and w._v.ndim - loss._v.ndim == 1:
            w = _reshape(w, w._v.shape[:-1])
        elif w._v.ndim and loss._v.ndim - w._v.ndim == 1:
            w = _reshape(w, w._v.shape + (1,))
        loss = cast(multiply(loss, w), dtype)
    if global_batch_size is None:
        global_batch_size = loss._v.shape[0]
    n = np.asarray(global_batch_size)
    if n.ndim:
        raise InvalidArgumentError(None, None, "global_batch_size must be scalar.")
    if n.dtype.kind not in "iu":
        raise TypeError("global_batch_size must be an integer.")
    if n < 0:
        raise InvalidArgumentError(None, None, "global_batch_size must be non-negative.")
    if dtype.is_floating:
        return apply(_average_loss_op, (loss,), (("n", int(n)),))
    # TF's div_no_nan(reduce_sum(loss), cast(n, dtype)): the sum in the loss's dtype (it
    # wraps), then true division, to float32 for 8- and 16-bit integers, float64 for wider.
    return divide_no_nan(reduce_sum(loss), convert_to_tensor(int(n), dtype=dtype))


_average_loss_op = Op(
    "ComputeAverageLoss", lambda x, *, n: jnp.sum(x) / n if n else jnp.zeros((), x.dtype)
)


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` (``tf.nn.scale_regularization_loss``, one replica),
    divided by the replica count as TF: an integer sum becomes float (``truediv``)."""
    return truediv(reduce_sum(regularization_loss), 1)


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
    if c._v.shape != z._v.shape:
        raise ValueError(
            "`log_input` and `targets` must have the same shape, received "
            f"({c.shape} vs {z.shape})."
        )
    require(c, "fc", "Exp")
    if z._v.dtype != c._v.dtype:
        raise dtype_mismatch("Mul", 1, c._v.dtype, z._v.dtype)
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
    """Connectionist temporal classification loss per sequence (``tf.nn.ctc_loss``).

    ``labels`` are dense and zero-padded with their ``label_length``, or a SparseTensor
    (``label_length`` None; ``blank_index`` then required, as in TF; checked as TF's
    ``CTCLoss`` kernel checks them). The blank class is ``blank_index`` (0 by default,
    negative counts from the end). ``unique`` (TF's precomputation for speed) does not
    change the result and is not needed.
    """
    if isinstance(labels, SparseTensor):
        return _ctc_loss_sparse(labels, logits, logit_length, logits_time_major, blank_index)
    lg = to_tensor(logits)
    require(lg, "f", "CTCLoss")
    lab, lab_len, lg_len = (to_tensor(a) for a in (labels, label_length, logit_length))
    for t, what in ((lab, "labels"), (lab_len, "label_length"), (lg_len, "logit_length")):
        if t._v.dtype.kind not in "iu":
            raise TypeError(f"`{what}` must be an integer tensor, got {t.dtype!r}")
    if lg._v.ndim != 3 or lab._v.ndim != 2:
        raise ValueError(
            f"`logits` must be rank 3 and dense `labels` rank 2, got logits.shape={lg.shape} "
            f"and labels.shape={lab.shape}"
        )
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += lg._v.shape[2]
    static = (("time_major", bool(logits_time_major)), ("blank", blank))
    return apply(_ctc_op, (lg, lab, lab_len, lg_len), static)


def _ctc_loss_sparse(labels, logits, logit_length, time_major, blank_index):
    """TF's SparseTensor-label path (``_ctc_loss_op_standard`` and the ``CTCLoss`` kernel's
    checks), computed by the dense loss."""
    if blank_index is None:
        raise ValueError(
            "Argument `blank_index` must be provided when `labels` is a `SparseTensor`."
        )
    lg = to_tensor(logits)
    require(lg, "f", "CTCLoss")
    lg_len = to_tensor(logit_length)
    if lg_len._v.dtype != np.int32:
        raise dtype_mismatch("CTCLoss", 3, np.dtype(np.int32), lg_len._v.dtype)
    if lg._v.ndim != 3:
        raise InvalidArgumentError(None, None, "inputs is not a 3-Tensor [Op:CTCLoss]")
    if lg_len._v.ndim != 1:
        raise InvalidArgumentError(None, None, "sequence_length is not a vector [Op:CTCLoss]")
    max_time, batch, classes = (
        lg._v.shape if time_major else (lg._v.shape[1], lg._v.shape[0], lg._v.shape[2])
    )
    if batch == 0:
        raise InvalidArgumentError(None, None, "batch_size must not be 0 [Op:CTCLoss]")
    if lg_len._v.shape[0] != batch:
        raise length_mismatch(InvalidArgumentError, lg_len._v.shape[0], batch, "CTCLoss")
    blank = int(blank_index) + classes if int(blank_index) < 0 else int(blank_index)
    dense, lengths = dense_ctc_labels(labels, batch, max_time, classes, blank, logit_length)
    static = (("time_major", bool(time_major)), ("blank", blank))
    return apply(_ctc_op, (lg, dense, lengths, lg_len), static)
