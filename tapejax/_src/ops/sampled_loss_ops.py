"""``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``: TF's ``_compute_sampled_logits``
and the losses on its logits, as one pure JAX function per loss.

The class embeddings (a tensor, or a list of shards in TF 2's "div" partitioning) and
biases are looked up for the true and the sampled classes, the logits of each example
against both are formed as TF forms them (accidental hits pushed to ``-FLT_MAX`` at the
last position of a repeated sampled class, the log expected counts subtracted), and the
sigmoid (NCE) or softmax cross-entropy summed per example. The sampled values are
constants of the loss (TF stops their gradients); by default they come from
``log_uniform_candidate_sampler(unique=True)``.

Shapes that TF would refuse, ids outside the embeddings (concrete ones) and dtypes are
checked first, with TF's texts, so that the JAX function only ever sees valid inputs.

This module must never sample by itself: the sampled values come from
``candidate_sampling_ops``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import tf_rules
from ._array_common import stop_gradient
from ._helpers import dtype_mismatch, require, to_tensor
from .candidate_samplers import accidental_hit_mask
from .candidate_sampling_ops import _ids_dtype, log_uniform_candidate_sampler
from .layer_ops import _div_partition
from .loss_ops import _sigmoid_xent_op
from .math_ops import cast
from .selection_ops import _check_indices

__all__ = ["nce_loss", "sampled_softmax_loss"]

_FLT_MAX = np.finfo(np.float32).max


def _shape_text(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


def _incompatible(a, b, op_name: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        None, None, f"Incompatible shapes: {_shape_text(a)} vs. {_shape_text(b)} [Op:{op_name}]"
    )


def _broadcast(a: tuple, b: tuple, op_name: str) -> tuple:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        raise _incompatible(a, b, op_name) from None


# -- the pure function ------------------------------------------------------------------------


def _lookup(shards, ids, sizes):
    """Rows ``ids`` of the table split into ``shards`` by TF 2's "div" strategy."""
    if len(shards) == 1:
        return jnp.take(shards[0], ids, axis=0)
    n, total = len(sizes), sum(sizes)
    per, extras = total // n, total % n
    part = jnp.maximum(ids // (per + 1), (ids - extras) // max(per, 1))
    local = jnp.where(part < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    offsets = jnp.asarray(np.concatenate([[0], np.cumsum(sizes)[:-1]]), ids.dtype)
    return jnp.take(jnp.concatenate(shards, 0), offsets[jnp.clip(part, 0, n - 1)] + local, axis=0)


def _sampled_logits(inputs, labels, sampled, true_count, sampled_count, params, static):
    """TF's ``_compute_sampled_logits``: ``(logits, labels)`` of ``[batch, num_true +
    num_sampled]``, the true classes first."""
    w_sizes, b_sizes, num_true, hit_cols = static
    weights, biases = params[: len(w_sizes)], params[len(w_sizes) :]
    ids = jnp.concatenate([labels.reshape(-1), sampled])
    n_true = labels.size
    all_w = _lookup(weights, ids, w_sizes).astype(inputs.dtype)
    all_b = _lookup(biases, ids, b_sizes).astype(inputs.dtype)
    sampled_logits = inputs @ all_w[n_true:].T + all_b[n_true:]
    true_w = all_w[:n_true].reshape(-1, num_true, all_w.shape[1])
    true_logits = jnp.sum(inputs[:, None, :] * true_w, axis=-1) + all_b[:n_true].reshape(
        -1, num_true
    )
    if hit_cols is not None:  # TF adds a dense [rows, num_sampled] of -FLT_MAX at the hits
        mask = accidental_hit_mask(labels, sampled)
        width = mask.shape[1]
        mask = (
            mask[:, :hit_cols]
            if hit_cols <= width
            else jnp.pad(mask, ((0, 0), (0, hit_cols - width)))
        )
        with np.errstate(over="ignore"):  # -FLT_MAX is -inf in float16, as in TF's cast
            hit = np.float32(-_FLT_MAX).astype(inputs.dtype)
        sampled_logits = sampled_logits + jnp.where(mask, hit, jnp.zeros((), inputs.dtype))
    true_logits = true_logits - jnp.log(true_count)
    sampled_logits = sampled_logits - jnp.log(sampled_count)
    logits = jnp.concatenate([true_logits, sampled_logits], axis=1)
    targets = jnp.concatenate(
        [jnp.ones_like(true_logits) / num_true, jnp.zeros_like(sampled_logits)], axis=1
    )
    return logits, targets


def _nce_fn(inputs, labels, sampled, true_count, sampled_count, *params, static):
    x, z = _sampled_logits(inputs, labels, sampled, true_count, sampled_count, params, static)
    # TF's sigmoid_cross_entropy_with_logits, summed over each example's classes.
    return jnp.sum(_sigmoid_xent_op.fn(z, x), axis=1)


def _softmax_fn(inputs, labels, sampled, true_count, sampled_count, *params, static):
    logits, targets = _sampled_logits(
        inputs, labels, sampled, true_count, sampled_count, params, static
    )
    return tf_rules.softmax_xent(targets, logits, 1)


_nce_op = Op("NceLoss", _nce_fn)
_softmax_op = Op("SampledSoftmaxLoss", _softmax_fn)


# -- TF's checks --------------------------------------------------------------------------------


def _shards(value) -> list:
    """TF's rule: a list is a list of shards; anything else (a tuple too) one tensor."""
    if value is None:
        raise ValueError("params must be specified")
    shards = value if isinstance(value, list) else [value]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    return [to_tensor(s) for s in shards]


def _check_ids(ids, shards: list) -> None:
    """TF's CPU checks of concrete ids (None when traced) against the table, with its
    gather's texts."""
    if ids is None:
        return
    if len(shards) == 1:
        _check_indices(ids, shards[0]._v.shape[0])
    else:
        _div_partition(ids, [s._v.shape[0] for s in shards])


def _check_hits(labels: Tensor, sampled: Tensor, num_true: int, num_sampled: int) -> None:
    if labels._v.ndim != 2 or labels._v.shape[1] != num_true:
        raise InvalidArgumentError(
            None,
            None,
            "true_candidates must be a batch_size * num_true matrix [Op:ComputeAccidentalHits]",
        )
    traced = isinstance(labels._value, jax.core.Tracer) or isinstance(
        sampled._value, jax.core.Tracer
    )
    if traced or num_sampled >= sampled._v.shape[0]:
        return  # TF's SparseToDense check: a hit at a position past num_sampled
    mask = np.asarray(accidental_hit_mask(np.asarray(labels._value), np.asarray(sampled._value)))
    if np.any(mask[:, num_sampled:]):
        raise InvalidArgumentError(
            None,
            None,
            "Indices are not valid (out of bounds).  Shape: "
            f"{_shape_text((labels._v.shape[0], num_sampled))} [Op:SparseToDense]",
        )


def _sampled_loss(
    op,
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true,
    sampled_values,
    remove_accidental_hits,
    seed,
):
    w_shards = _shards(weights)
    labels.dtype  # noqa: B018 - TF reads labels.dtype first: a list raises AttributeError
    lab = to_tensor(labels)
    ids_dt = dtypes.as_dtype(_ids_dtype())
    if lab.dtype != ids_dt:
        lab = cast(lab, ids_dt)
    x = to_tensor(inputs)
    num_true = int(num_true)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            lab, num_true, num_sampled, True, num_classes, seed=seed
        )
    sampled, true_count, sampled_count = (stop_gradient(to_tensor(s)) for s in sampled_values)
    if sampled.dtype != ids_dt:
        sampled = cast(sampled, ids_dt)
    if sampled._v.ndim != 1:
        raise InvalidArgumentError(
            None,
            None,
            "ConcatOp : Ranks of all input tensors should match: shape[0] = "
            f"[{int(np.prod(lab._v.shape))}] vs. shape[1] = {_shape_text(sampled._v.shape)} [Op:ConcatV2] "
            "name: concat",
        )
    n_labels, n_sampled = int(np.prod(lab._v.shape)), sampled._v.shape[0]
    traced = isinstance(lab._value, jax.core.Tracer) or isinstance(sampled._value, jax.core.Tracer)
    all_ids = (
        None
        if traced
        else np.concatenate([np.asarray(lab._value).reshape(-1), np.asarray(sampled._value)])
    )
    _check_ids(all_ids, w_shards)
    dim = w_shards[0]._v.shape[1:]
    if x._v.ndim != 2 or len(dim) != 1 or x._v.shape[1] != dim[0]:
        raise InvalidArgumentError(
            None,
            None,
            f"Matrix size-incompatible: In[0]: {_shape_text(x._v.shape)}, In[1]: "
            f"{_shape_text((n_sampled, *dim))} [Op:MatMul]",
        )
    b_shards = _shards(biases)
    _check_ids(all_ids, b_shards)
    dim = dim[0]
    if n_labels % num_true:
        raise InvalidArgumentError(
            None,
            None,
            f"Input to reshape is a tensor with {n_labels * dim} values, but the requested "
            f"shape requires a multiple of {num_true * dim} [Op:Reshape]",
        )
    batch = x._v.shape[0]
    rows = _broadcast((batch, 1, dim), (n_labels // num_true, num_true, dim), "Mul")[0]
    true_shape = (rows, num_true)
    sampled_shape = (batch, n_sampled)
    num_sampled = int(num_sampled)
    if remove_accidental_hits:
        _check_hits(lab, sampled, num_true, num_sampled)
        sampled_shape = _broadcast(sampled_shape, (lab._v.shape[0], num_sampled), "AddV2")
    for count, shape in ((true_count, true_shape), (sampled_count, sampled_shape)):
        require(count, "fc", "Log")
        if count._v.dtype != x._v.dtype:
            raise dtype_mismatch("Sub", 1, x._v.dtype, count._v.dtype)
        _broadcast(shape, count._v.shape, "Sub")
    true_shape = _broadcast(true_shape, true_count._v.shape, "Sub")
    sampled_shape = _broadcast(sampled_shape, sampled_count._v.shape, "Sub")
    if true_shape[0] != sampled_shape[0]:
        raise InvalidArgumentError(
            None,
            None,
            "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = "
            f"{_shape_text(true_shape)} vs. shape[1] = {_shape_text(sampled_shape)} "
            "[Op:ConcatV2] name: concat",
        )
    static = (
        tuple(s._v.shape[0] for s in w_shards),
        tuple(s._v.shape[0] for s in b_shards),
        num_true,
        num_sampled if remove_accidental_hits else None,
    )
    args = (x, lab, sampled, true_count, sampled_count, *w_shards, *b_shards)
    return apply(op, args, (("static", static),))


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=False,
    name="nce_loss",
):
    """The noise-contrastive estimation loss of each example (``tf.nn.nce_loss``).

    Args:
      weights: the class embeddings ``[num_classes, dim]``, or a list of shards of them
        (TF 2's "div" partitioning: contiguous blocks, the first ones one row longer).
      biases: the class biases ``[num_classes]`` (or a list of shards).
      labels: int ``[batch_size, num_true]``: the target classes (cast to int64 as TF).
      inputs: ``[batch_size, dim]``: the activations.
      num_sampled: the number of classes sampled per batch.
      num_classes: the number of classes.
      num_true: the number of targets per example.
      sampled_values: ``(sampled_candidates, true_expected_count,
        sampled_expected_count)`` from a candidate sampler; by default
        ``tf.random.log_uniform_candidate_sampler(unique=True)``. No gradient flows to them.
      remove_accidental_hits: push the logit of a sampled class that is one of the
        example's targets to ``-FLT_MAX`` ("Sampled Logistic").
      name: unused (TF's name scope).

    Returns:
      ``[batch_size]``: the sum of the sigmoid cross-entropies of each example against its
      targets (label ``1 / num_true``) and the sampled classes (label 0), with the log
      expected counts subtracted from the logits.

    Example:
        >>> import tapejax as tf
        >>> w, b = tf.ones([10, 4]), tf.zeros([10])
        >>> sampled = ([4, 2, 7], [[0.5], [0.3]], [0.3, 0.4, 0.1])
        >>> loss = tf.nn.nce_loss(w, b, tf.constant([[1], [4]]), tf.ones([2, 4]), 3, 10,
        ...                       sampled_values=sampled)
        >>> loss.shape
        TensorShape([2])
    """
    data = (weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values)
    return _sampled_loss(_nce_op, *data, remove_accidental_hits, seed=None)


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=True,
    seed=None,
    name="sampled_softmax_loss",
):
    """The sampled softmax loss of each example (``tf.nn.sampled_softmax_loss``): the
    softmax cross-entropy over the example's targets (``1 / num_true`` each) and the
    sampled classes, their logits less the log expected counts.

    Arguments as ``nce_loss``'s, with accidental hits removed by default and ``seed``, the
    op seed of the default sampler (TF's seed rules; the classes it draws are not TF's).

    Example:
        >>> import tapejax as tf
        >>> labels = tf.constant([[1, 2], [4, 0], [3, 3]])  # 2 targets per example
        >>> loss = tf.nn.sampled_softmax_loss(
        ...     tf.ones([10, 4]), tf.zeros([10]), labels, tf.ones([3, 4]), 5, 10, num_true=2)
        >>> loss.shape, loss.dtype
        (TensorShape([3]), tf.float32)
    """
    data = (weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values)
    return _sampled_loss(_softmax_op, *data, remove_accidental_hits, seed=seed)
