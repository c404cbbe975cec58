"""``tf.summary``: write scalars, histograms, images, text and audio to event files that
TensorBoard reads, the same records TF 2.21 with TensorBoard 2.21 writes.

Graph tracing and profiling (``trace_on``, ``trace_off``, ``trace_export``, ``graph``) and
``experimental.write_raw_pb`` are not provided (``docs/compat.md``).
"""

import sys as _sys

from tapejax import summary_experimental as experimental
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.summary.ops import audio, histogram, image, scalar, text
from tapejax._src.summary.recording import record_if, should_record_summaries, write
from tapejax._src.summary.writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
)

# A module, not a package: registered so that ``import tapejax.summary.experimental`` works.
_sys.modules[f"{__name__}.experimental"] = experimental

__getattr__ = _attribute_hook("tapejax.summary", "summary")

__all__ = [
    "SummaryWriter",
    "audio",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "write",
]
