"""``tf.summary.experimental``: the default step and ``summary_scope`` for custom summaries."""

from tapejax._src.summary.recording import get_step, set_step, summary_scope

__all__ = ["get_step", "set_step", "summary_scope"]
