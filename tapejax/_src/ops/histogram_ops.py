"""Fixed-width histograms: ``histogram_fixed_width`` (TF's kernel) and
``histogram_fixed_width_bins`` (TF's Python composite, op for op).

TF's kernel bins in double precision: eagerly tapejax does the same on the host (the
counts are not differentiable, as TF's); traced, it bins in float64 under
``jax_enable_x64`` and in the values' precision otherwise. Its value checks (NaN values,
an empty range) run eagerly, and as run-time checks of a traced program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes, execution
from ..conversion import canonical_np_dtype, convert_to_tensor
from ..dispatch import Op, apply
from ..errors import InvalidArgumentError
from ..tensor import wrap
from ._array_common import _host
from ._helpers import tf_type_name
from .join_split_ops import _same_dtype

__all__ = ["histogram_fixed_width", "histogram_fixed_width_bins"]

_TYPES = "int32, int64, float, double"


def _bins(values, lo, hi, nbins, xp, wide):
    """TF's kernel: ``(clip(v, lo, hi) - lo) / (hi / nbins - lo / nbins)`` in ``wide``
    precision, capped at ``nbins - 1``; one bin holds everything. The range's ends are
    widened before they are subtracted, so an integer range as wide as its dtype does not
    wrap (TF's kernel since its overflow fix)."""
    if nbins == 1:
        return xp.zeros(values.shape, np.int32)
    lo, hi = xp.asarray(lo), xp.asarray(hi)
    step = hi.astype(wide) / nbins - lo.astype(wide) / nbins
    scaled = (xp.minimum(xp.maximum(values, lo), hi).astype(wide) - lo.astype(wide)) / step
    return xp.minimum(scaled, nbins - 1).astype(np.int32)


def _histogram_fn(values, value_range, *, nbins, dtype):
    if jax.config.jax_enable_x64:
        wide = jnp.float64
    else:
        wide = values.dtype if values.dtype.kind == "f" else jnp.float32
    idx = _bins(values.reshape(-1), value_range[0], value_range[1], nbins, jnp, wide)
    return jnp.zeros(nbins, dtype).at[idx].add(1)


_histogram_op = Op("HistogramFixedWidth", _histogram_fn, differentiable=False)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts ``values`` in ``nbins`` equal bins over ``value_range``
    (``tf.histogram_fixed_width``); values below or above the range count in the first or
    last bin.

    Args:
        values: int32, int64, float32 or float64 values of any shape, no NaN.
        value_range: ``[lo, hi]`` with ``lo < hi``, of ``values``' dtype.
        nbins: a positive int32 scalar, known now (it sets the result's shape).
        dtype: int32 or int64, the counts' dtype.
        name: ignored (TF's op name).

    Returns:
        A 1-D ``dtype`` tensor of ``nbins`` counts; not differentiable.

    Example:
        >>> import tapejax as tf
        >>> tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], nbins=5).numpy()
        array([2, 1, 1, 0, 2], dtype=int32)
    """
    v, r = _same_dtype([values, value_range], "HistogramFixedWidth")
    n = convert_to_tensor(nbins, dtype=dtypes.int32)
    out_dt = dtypes.as_dtype(dtype)
    for attr, dt, allowed in (("T", v._v.dtype, _TYPES), ("dtype", out_dt._np, "int32, int64")):
        if tf_type_name(dt) not in allowed.split(", "):
            name = "float" if dt == np.float32 else tf_type_name(dt)
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr '{attr}' of {name} is not in the list of allowed values: "
                f"{allowed} [Op:HistogramFixedWidth]",
            )
    if r._v.shape != (2,):
        raise InvalidArgumentError(
            None, None, "value_range should be a vector of 2 elements. [Op:HistogramFixedWidth]"
        )
    if n._v.shape != ():
        raise InvalidArgumentError(None, None, "nbins should be a scalar. [Op:HistogramFixedWidth]")
    count = _host(nbins)
    if count is None:
        raise NotImplementedError(
            "tapejax.histogram_fixed_width: `nbins` sets the result's shape, so it cannot be "
            "traced (inside tapejax.function or a JAX transform); pass a Python int."
        )
    count = int(count)
    if count <= 0:
        raise InvalidArgumentError(
            None,
            None,
            f"nbins should be a positive number, but got '{count}' [Op:HistogramFixedWidth]",
        )
    npd = canonical_np_dtype(out_dt._np)
    hv, hr = _host(v), _host(r)
    if hv is not None and hr is not None:
        _check_range(hr)
        if hv.dtype.kind == "f" and np.isnan(hv).any():
            raise InvalidArgumentError(
                None, None, "Histogram values must not contain NaN [Op:HistogramFixedWidth]"
            )
        idx = _bins(hv.reshape(-1), hr[0], hr[1], count, np, np.float64)
        return wrap(jnp.asarray(np.bincount(idx, minlength=count).astype(npd)))
    rv = r._value
    execution.runtime_check(rv[0] < rv[1], (rv,), _range_text)
    if v._v.dtype.kind == "f":
        execution.runtime_check(
            ~jnp.isnan(v._value).any(),
            (),
            lambda: "Histogram values must not contain NaN [Op:HistogramFixedWidth]",
        )
    return apply(_histogram_op, (v, r), (("dtype", npd.name), ("nbins", count)))


def _range_text(r) -> str:
    shown = ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in r.tolist())
    return (
        "value_range should satisfy value_range[0] < value_range[1], but got "
        f"'[{shown}]' [Op:HistogramFixedWidth]"
    )


def _check_range(r) -> None:
    if not r[0] < r[1]:
        raise InvalidArgumentError(None, None, _range_text(r))


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each of ``values`` in ``nbins`` equal bins over ``value_range``
    (``tf.histogram_fixed_width_bins``); values outside go to the first or last bin.

    As TF's: computed with tensor ops (so ``nbins`` may be traced), ``dtype`` is ignored
    (the bins are int32), ``nbins <= 0`` fails TF's ``Assert``, and there is no gradient.

    Example:
        >>> import tapejax as tf
        >>> tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], nbins=5).numpy()
        array([0, 0, 1, 2, 4, 4], dtype=int32)
    """
    from ..asserts import Assert
    from .array_ops import reshape
    from .math_ops import cast, clip_by_value, floor, greater, multiply, subtract, truediv

    values = convert_to_tensor(values)
    out_shape = list(values._v.shape)  # static, traced or not
    values = reshape(values, [-1])
    value_range = convert_to_tensor(value_range)
    nbins = convert_to_tensor(nbins, dtype=dtypes.int32)
    Assert(greater(nbins, 0), [f"nbins {nbins!s} must > 0"])
    nbins_float = cast(nbins, values.dtype)
    scaled = truediv(subtract(values, value_range[0]), subtract(value_range[1], value_range[0]))
    indices = floor(multiply(nbins_float, scaled))
    indices = cast(clip_by_value(indices, 0, subtract(nbins_float, 1)), dtypes.int32)
    return reshape(indices, out_shape)
