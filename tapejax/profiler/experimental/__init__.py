"""``tf.profiler.experimental``: profiling sessions, trace spans and the profiler server."""

from tapejax._src.profiler import Profile, ProfilerOptions, Trace, start, stop
from tapejax.profiler.experimental import client, server

__all__ = ["Profile", "ProfilerOptions", "Trace", "client", "server", "start", "stop"]
