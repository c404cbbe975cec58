"""``tf.edit_distance``: the Levenshtein distance between the sequences of two
SparseTensors, group by group, with TF's kernel's output shape, normalization and errors.

The last dimension holds each sequence; the others pick a group. How long each sequence
is depends on the indices, so, as TF's CPU-only kernel does, this module computes on the
host from concrete inputs: inside a traced program (``tapejax.function``, a JAX
transform) it raises ``NotImplementedError``. The result is a new Tensor, unconnected to
the inputs (TF registers ``EditDistance`` as not differentiable). Nothing here may run on
traced values.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..sparse_tensor import SparseTensor, SparseTensorValue
from ..tensor import wrap
from ._helpers import dtype_mismatch
from ._sparse_common import host_array, iae, known_indices, needs_concrete

__all__ = ["edit_distance"]

_OP = "EditDistance"


def _host(sp: SparseTensor):
    """``(indices, values, dense shape)`` of ``sp`` as NumPy."""
    indices = known_indices(sp)
    if indices is None:
        raise needs_concrete("tapejax.edit_distance")
    dims = np.asarray(host_array(sp.dense_shape, "tapejax.edit_distance"), np.int64).reshape(-1)
    values = np.asarray(host_array(sp.values, "tapejax.edit_distance"))
    return np.asarray(indices, np.int64).reshape(-1, dims.shape[0]), values, dims


def _sequences(indices: np.ndarray, values: np.ndarray) -> dict:
    """``{group index: [values in index order]}``: TF reorders both inputs row-major."""
    order = np.lexsort(indices.T[::-1]) if indices.shape[0] else np.zeros(0, np.int64)
    groups: dict = {}
    for i in order.tolist():
        groups.setdefault(tuple(indices[i, :-1].tolist()), []).append(values[i].item())
    return groups


def _levenshtein(a: list, b: list) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distances between the sequences of two SparseTensors (``tf.edit_distance``).

    Each group (the indices but the last) of ``hypothesis`` is compared with the same
    group of ``truth``. The result has rank ``R - 1``, each dimension the larger of the
    two dense shapes'. With ``normalize`` the distance is divided by the truth's length:
    a group only the hypothesis has gives ``inf``, one only the truth has gives 1.0;
    groups neither has give 0.

    Args:
        hypothesis: a SparseTensor (or SparseTensorValue) of rank R >= 2.
        truth: a SparseTensor of the same rank and values' dtype.
        normalize: divide each distance by the truth sequence's length.
        name: unused (TF's op name).

    Returns:
        A float32 Tensor of rank R - 1.

    Raises:
        TypeError: an argument is not a SparseTensor (TF's text).
        InvalidArgumentError: the values' dtypes or the ranks differ, or the rank is
            below 2 (TF's texts).
        NotImplementedError: inside a traced program (the sequences' lengths must be
            known). String sequences need string tensors, which tapejax does not have.

    Example:
        >>> import tapejax as tf
        >>> h = tf.SparseTensor([[0, 0], [0, 1]], [1, 2], [1, 2])
        >>> t = tf.SparseTensor([[0, 0], [0, 1], [0, 2]], [1, 3, 2], [1, 3])
        >>> tf.edit_distance(h, t).numpy()
        array([0.33333334], dtype=float32)
    """
    del name
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hypothesis, truth = (
        SparseTensor.from_value(x) if isinstance(x, SparseTensorValue) else x
        for x in (hypothesis, truth)
    )
    if hypothesis.values.dtype != truth.values.dtype:
        raise dtype_mismatch(_OP, 4, hypothesis.values._v.dtype, truth.values._v.dtype)
    h_idx, h_val, h_dims = _host(hypothesis)
    t_idx, t_val, t_dims = _host(truth)
    if t_dims.shape[0] < 2:
        raise iae(
            f"Input SparseTensors must have rank at least 2, but truth_shape rank is: "
            f"{t_dims.shape[0]}",
            _OP,
        )
    if t_dims.shape[0] != h_dims.shape[0]:
        raise iae(
            "Expected truth and hypothesis to have matching ranks, but their shapes are: "
            f"[{t_dims.shape[0]}] and [{h_dims.shape[0]}]",
            _OP,
        )
    out_shape = tuple(int(d) for d in np.maximum(h_dims[:-1], t_dims[:-1]))
    out = np.zeros(out_shape, np.float32)
    hyp, tru = _sequences(h_idx, h_val), _sequences(t_idx, t_val)
    for key in hyp.keys() | tru.keys():
        h, t = hyp.get(key), tru.get(key)
        if t is None:
            out[key] = np.inf if normalize else len(h)
        elif h is None:
            out[key] = 1.0 if normalize else len(t)
        else:
            d = _levenshtein(h, t)
            out[key] = d / len(t) if normalize else d
    return wrap(jnp.asarray(out))
