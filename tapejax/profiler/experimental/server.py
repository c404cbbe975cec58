"""``tf.profiler.experimental.server``: the on-demand profiler server."""

from tapejax._src.profiler import start_server as start

__all__ = ["start"]
