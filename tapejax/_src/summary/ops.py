"""TensorBoard's summary functions: ``scalar``, ``histogram``, ``image``, ``text`` and
``audio``, writing the records TensorBoard 2.21's ``summary_v2`` modules write.

Shape checks run when the call is made (as TF's eager asserts); the payload (histogram
buckets, PNG and WAV encodings) is computed on the host from NumPy when the record is made,
never inside a traced program.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..execution import inside_function
from ..tensor import Tensor
from ..tensor_shape import TensorShape
from . import records
from .recording import host_array, record, summary_scope

__all__ = ["audio", "histogram", "image", "scalar", "text"]

DEFAULT_BUCKET_COUNT = 30


def _shape(value) -> tuple:
    return tuple(value.shape)


def _check_rank(value, rank: int) -> None:
    """TF's ``assert_rank`` text, as its image and audio summaries raise it."""
    shape = _shape(value)
    if len(shape) != rank:
        raise ValueError(
            f"Tensor  must have rank {rank}.  Received rank {len(shape)}, "
            f"shape {TensorShape(shape)}"
        )


def scalar(name, data, step=None, description=None) -> Tensor:
    """Writes a scalar summary, stored as float32 (``tf.summary.scalar``).

    Args:
        name: the summary's name; its tag is this under the enclosing name scopes.
        data: a real scalar (Python number, Tensor or Variable).
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        description: the summary's Markdown description.

    Returns:
        A bool Tensor: True if recorded (see ``tapejax.summary.write``).

    Example:
        >>> import tapejax as tf
        >>> bool(tf.summary.scalar("loss", 0.25, step=1))  # no default writer
        False
    """
    metadata = records.summary_metadata("scalars", description=description)
    with summary_scope(name, "scalar_summary") as (tag, _):
        value = host_array(data)
        if _shape(value) != ():
            raise ValueError(f"Expected scalar shape, saw shape: {TensorShape(_shape(value))}.")

        def make():
            return [value], lambda a: np.asarray(a).astype(np.float32)

        return record(tag, make, step, metadata)


def _buckets(data: np.ndarray, bucket_count: int) -> np.ndarray:
    """TensorBoard 2.21's ``_buckets``: ``[k, 3]`` float64 rows ``[left, right, count]``."""
    bucket_count = max(0, bucket_count)
    data = data.reshape(-1).astype(np.float64)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    min_, max_ = data.min(), data.max()
    range_ = max_ - min_
    if range_ == 0:
        edges = np.full(bucket_count, max_)
        counts = np.zeros(bucket_count)
        counts[-1] = data.size
        return np.stack([edges, edges, counts]).T.copy()
    # NaN and inf data give NaN indices and edges, as in TF, silently.
    with np.errstate(invalid="ignore"):
        bucket_width = range_ / np.float64(bucket_count)
        indices = np.floor((data - min_) / bucket_width)
        # TF casts to int32 and one-hot encodes: an index outside [0, count) counts nowhere.
        indices = np.minimum(indices, bucket_count - 1)
        valid = (indices >= 0) & np.isfinite(indices)
        counts = np.bincount(indices[valid].astype(np.int64), minlength=bucket_count)
        # tf.linspace(min, max, count + 1): start + delta * i, the last edge max itself.
        delta = range_ / np.float64(bucket_count)
        edges = min_ + delta * np.arange(bucket_count + 1, dtype=np.float64)
        edges[0], edges[-1] = min_, max_
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)]).T.copy()


def histogram(name, data, step=None, buckets=None, description=None) -> Tensor:
    """Writes a histogram of ``data``'s elements (``tf.summary.histogram``).

    The buckets are TensorBoard 2.21's: ``buckets`` (default 30) equal-width buckets
    between the minimum and the maximum; all-zero buckets for empty data; for constant
    data, every edge at the value and all the count in the last bucket.

    Args:
        name: the summary's name; its tag is this under the enclosing name scopes.
        data: a Tensor of any shape, castable to float64.
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        buckets: the number of buckets (a non-negative int).
        description: the summary's Markdown description.

    Returns:
        A bool Tensor: True if recorded (see ``tapejax.summary.write``).

    Example:
        >>> import tapejax as tf
        >>> bool(tf.summary.histogram("w", [1.0, 2.0], step=0))  # no default writer
        False
    """
    metadata = records.summary_metadata("histograms", description=description)
    if inside_function() and isinstance(buckets, Tensor):
        # Refused on the eager first call too, not only from the trace of the second.
        raise NotImplementedError(
            "tapejax.summary.histogram: `buckets` is a Tensor inside tapejax.function; the "
            "bucket count sets the record's shape, which must be known when the function is "
            "traced. Pass a Python int."
        )
    if buckets is not None and np.asarray(buckets).dtype.kind not in "iu":
        kind = np.asarray(buckets).dtype
        given = "float32" if kind.kind == "f" and not isinstance(buckets, np.ndarray) else kind
        raise TypeError(f"tensor must be of type tf.int32; got tf.{given}")
    bucket_count = DEFAULT_BUCKET_COUNT if buckets is None else int(np.asarray(buckets))
    with summary_scope(name, "histogram_summary") as (tag, _):

        def make():
            return [host_array(data)], lambda a: _buckets(a, bucket_count)

        return record(tag, make, step, metadata)


def _to_uint8(images: np.ndarray) -> np.ndarray:
    """``tf.image.convert_image_dtype(images, tf.uint8, saturate=True)``."""
    dtype = images.dtype
    if dtype == np.uint8:
        return images
    if dtype.kind == "f" or dtype == dtypes.bfloat16._np:  # in the image's dtype, as TF
        scaled = images * dtype.type(255.5)
        return np.trunc(np.clip(scaled, 0, 255)).astype(np.uint8)
    if dtype.kind in "iu":
        scale_in = int(np.iinfo(dtype).max)
        if scale_in > 255:
            scaled = images // ((scale_in + 1) // 256)
            return np.clip(scaled, 0, 255).astype(np.uint8)
        return (images.astype(np.uint8) * np.uint8(256 // (scale_in + 1))).astype(np.uint8)
    raise TypeError(f"Cannot write an image of dtype {dtype.name}.")


def image(name, data, step=None, max_outputs=3, description=None) -> Tensor:
    """Writes up to ``max_outputs`` images as PNG (``tf.summary.image``).

    Args:
        name: the summary's name; its tag is this under the enclosing name scopes.
        data: a ``[k, height, width, channels]`` Tensor, 1 to 4 channels; floats in [0, 1]
            (scaled by 255.5 and saturated, as ``convert_image_dtype``) or integers.
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        max_outputs: the most images written (the first ones).
        description: the summary's Markdown description.

    Returns:
        A bool Tensor: True if recorded (see ``tapejax.summary.write``).

    .. warning:: The PNG bytes differ from TF's (another zlib stream); the pixels are the
       same.

    Example:
        >>> import numpy as np, tapejax as tf
        >>> bool(tf.summary.image("x", np.zeros((1, 2, 2, 3), np.uint8), step=0))
        False
    """
    metadata = records.summary_metadata("images", description=description)
    with summary_scope(name, "image_summary") as (tag, _):

        def make():
            value = host_array(data)
            _check_rank(value, 4)
            if int(max_outputs) < 0:
                raise InvalidArgumentError(
                    None,
                    None,
                    "\nCondition x >= 0 did not hold element-wise:\n"
                    f"x (shape=() dtype=int32) = \n{int(max_outputs)}",
                )
            if not 1 <= value.shape[3] <= 4:
                raise InvalidArgumentError(
                    None, None, f"image must have 1, 2, 3, or 4 channels, got {value.shape[3]}"
                )

            def encode(images):
                images = _to_uint8(images)
                dims = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
                pngs = [records.encode_png(im) for im in images[: int(max_outputs)]]
                return np.asarray(dims + pngs, dtype=object)

            return [value], encode

        return record(tag, make, step, metadata)


def text(name, data, step=None, description=None) -> Tensor:
    """Writes text (``tf.summary.text``): a ``str`` or bytes, or nested lists or a NumPy
    array of them (tapejax has no string Tensors).

    Args:
        name: the summary's name; its tag is this under the enclosing name scopes.
        data: the text; strings are stored UTF-8 encoded.
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        description: the summary's Markdown description.

    Returns:
        A bool Tensor: True if recorded (see ``tapejax.summary.write``).

    Raises:
        TypeError: ``data`` is a numeric Tensor or array (TF's text).

    Example:
        >>> import tapejax as tf
        >>> bool(tf.summary.text("note", "hello", step=0))  # no default writer
        False
    """
    metadata = records.summary_metadata("text", description=description)
    with summary_scope(name, "text_summary") as (tag, _):
        value = host_array(data)
        if not (isinstance(value, np.ndarray) and value.dtype == object):
            raise TypeError(f"tensor must be of type tf.string; got tf.{value.dtype.name}")
        return record(tag, lambda: ([], lambda: value), step, metadata)


def audio(
    name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None
) -> Tensor:
    """Writes up to ``max_outputs`` clips as 16-bit PCM WAV (``tf.summary.audio``).

    Args:
        name: the summary's name; its tag is this under the enclosing name scopes.
        data: a ``[k, frames, channels]`` float Tensor of samples in [-1, 1].
        sample_rate: the sample rate in Hz (an int).
        step: an int64-castable scalar; by default ``tapejax.summary.experimental.get_step()``.
        max_outputs: the most clips written (the first ones).
        encoding: ``"wav"`` or None.
        description: the summary's Markdown description.

    Returns:
        A bool Tensor: True if recorded (see ``tapejax.summary.write``).

    Example:
        >>> import numpy as np, tapejax as tf
        >>> bool(tf.summary.audio("a", np.zeros((1, 8, 1), np.float32), 8000, step=0))
        False
    """
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    # AudioPluginData{encoding: WAV (11)}: field 2, varint.
    metadata = records.summary_metadata("audio", b"\x10\x0b", description=description)
    rate = int(np.asarray(sample_rate))
    with summary_scope(name, "audio_summary") as (tag, _):

        def make():
            value = host_array(data)
            _check_rank(value, 3)

            def encode(clips):
                wavs = [records.encode_wav(c, rate) for c in clips[: int(max_outputs)]]
                return np.asarray([[w, b""] for w in wavs], dtype=object).reshape(-1, 2)

            return [value], encode

        return record(tag, make, step, metadata)
