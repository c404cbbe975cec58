"""``tf.signal``'s mel-scale features: ``linear_to_mel_weight_matrix`` (HTK's triangular
filterbank from linear to mel frequencies) and ``mfccs_from_log_mel_spectrograms`` (HTK's
scaled DCT-II of log-mel spectrograms), computed with TF's formulas op for op.

This module must never validate differently from TF: its ``ValueError`` texts are TF's.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes
from ..conversion import convert_to_tensor
from ..dispatch import Op, apply
from ..tensor import Tensor
from .math_ops import cast
from .signal_dct_ops import _validate as _validate_dct
from .signal_dct_ops import dct_array
from .signal_frame_ops import frame_array

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz):
    return _MEL_HIGH_FREQUENCY_Q * jnp.log(1.0 + (frequencies_hertz / _MEL_BREAK_FREQUENCY_HERTZ))


def _linspace(start, stop, num: int):
    """TF's ``LinSpace`` kernel: ``start + i * (stop - start) / (num - 1)``."""
    if num == 1:
        return jnp.reshape(start, [1])
    step = (stop - start) / (num - 1)
    return start + jnp.arange(num).astype(start.dtype) * step


def _mel_matrix_fn(sample_rate, *, num_mel_bins, num_spectrogram_bins, lower, upper, dtype):
    """TF's filterbank formula, op for op, in ``dtype``."""
    zero = jnp.zeros([], dtype)
    bands_to_zero = 1  # HTK excludes the spectrogram's DC bin.
    nyquist_hertz = sample_rate / 2.0
    linear_frequencies = _linspace(zero, nyquist_hertz, num_spectrogram_bins)[bands_to_zero:]
    spectrogram_bins_mel = _hertz_to_mel(linear_frequencies)[:, None]
    # Each band's (lower edge, center, upper edge): a center is its neighbours' edge.
    edges = _linspace(
        _hertz_to_mel(jnp.asarray(lower, dtype)),
        _hertz_to_mel(jnp.asarray(upper, dtype)),
        num_mel_bins + 2,
    )
    band_edges_mel = frame_array(edges, 3, 1)
    lower_edge_mel, center_mel, upper_edge_mel = (
        band_edges_mel[:, i].reshape([1, num_mel_bins]) for i in range(3)
    )
    # Line segments are linear in the mel domain, not in Hertz.
    lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
    upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
    weights = jnp.maximum(zero, jnp.minimum(lower_slopes, upper_slopes))
    return jnp.pad(weights, [(bands_to_zero, 0), (0, 0)])


def _mfcc_fn(x):
    # HTK scales every DCT-II basis vector by sqrt(2 / N), the 0th too (unlike "ortho").
    dct2 = dct_array(x, 2)
    return dct2 * jax.lax.rsqrt(jnp.asarray(x.shape[-1], dct2.dtype) * 2.0)


_mel_matrix_op = Op("SignalLinearToMelWeightMatrix", _mel_matrix_fn)
_mfcc_op = Op("SignalMFCCs", _mfcc_fn)


def _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype) -> None:
    """TF's ``_validate_arguments``, in its order (a Tensor ``sample_rate`` skips its
    checks, as in TF)."""
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(
            f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}"
        )
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError(
                "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate "
                f"/ 2). Got {upper_edge_hertz} for sample_rate: {sample_rate}"
            )
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sample_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
    dtype=dtypes.float32,
    name=None,
):
    """A ``[num_spectrogram_bins, num_mel_bins]`` matrix taking linear-frequency spectra
    to the mel scale (``tf.signal.linear_to_mel_weight_matrix``, HTK's convention).

    Each column is a triangle of peak 1 in mel frequency; the DC bin's row is zero.

    Args:
      num_mel_bins: Python int, the number of mel bands.
      num_spectrogram_bins: int, the spectrogram's bins (``fft_length // 2 + 1``).
      sample_rate: int or float, samples per second of the signal.
      lower_edge_hertz: Python float, the lowest band's lower edge.
      upper_edge_hertz: Python float, the highest band's upper edge (at most the Nyquist
        frequency).
      dtype: a floating point dtype.
      name: ignored (TF's op name).

    Returns:
      A ``[num_spectrogram_bins, num_mel_bins]`` tensor of ``dtype``.

    Raises:
      ValueError: TF's, for a non-positive count or rate, or misordered edges.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 4000.0).shape
        TensorShape([9, 4])
    """
    if getattr(sample_rate, "_is_variable", False):
        sample_rate = sample_rate._dense_read()
    if isinstance(sample_rate, Tensor) and not isinstance(sample_rate._value, jax.core.Tracer):
        sample_rate = np.asarray(sample_rate._value)[()]  # TF's constant_value
    dtype = dtypes.as_dtype(dtype)
    _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
    sample_rate = cast(sample_rate, dtype)
    num_bins = num_spectrogram_bins
    if getattr(num_bins, "_is_variable", False) or isinstance(num_bins, Tensor):
        num_bins = num_bins._dense_read() if getattr(num_bins, "_is_variable", False) else num_bins
        if isinstance(num_bins._value, jax.core.Tracer):
            raise NotImplementedError(
                "tapejax.signal.linear_to_mel_weight_matrix: `num_spectrogram_bins` sets the "
                "output's shape, so it must be known when the op runs; inside "
                "tapejax.function pass a Python int."
            )
        num_bins = np.asarray(num_bins._value).item()
    static = (
        ("dtype", dtype._np),
        ("lower", float(lower_edge_hertz)),
        ("num_mel_bins", int(num_mel_bins)),
        ("num_spectrogram_bins", int(num_bins)),
        ("upper", float(upper_edge_hertz)),
    )
    return apply(_mel_matrix_op, (sample_rate,), static)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients of log-mel spectrograms
    (``tf.signal.mfccs_from_log_mel_spectrograms``): HTK's DCT-II, scaled by
    ``sqrt(2 / num_mel_bins) / 2`` in every bin.

    Args:
      log_mel_spectrograms: a ``[..., num_mel_bins]`` float32 or float64 tensor.
      name: ignored (TF's op name).

    Returns:
      A ``[..., num_mel_bins]`` tensor of the same dtype.

    Raises:
      ValueError: TF's, for an empty last dimension.

    Example:
        >>> import tapejax as tf
        >>> tf.signal.mfccs_from_log_mel_spectrograms([[1.0, 2.0, 3.0, 4.0]]).shape
        TensorShape([1, 4])
    """
    x = log_mel_spectrograms
    if getattr(x, "_is_variable", False):
        x = x._dense_read()
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x._v.ndim == 0:
        raise ValueError("slice index -1 of dimension 0 out of bounds.")
    num_mel_bins = x._v.shape[-1]
    if num_mel_bins == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x!s}")
    _validate_dct(x, 2, None, -1, None)
    return apply(_mfcc_op, (x,))
