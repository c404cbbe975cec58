"""``tf.profiler.experimental.client``: capturing a profile from a remote server.

Not provided: JAX's Python API has no client. Capture from TensorBoard's profile tab
("capture profile") or with ``python -m jax.collect_profile`` (needs ``xprof``).
"""

__all__ = ["monitor", "trace"]


def _not_provided(name):
    return NotImplementedError(
        f"tf.profiler.experimental.client.{name} is not provided by tapejax: JAX's "
        "profiler has no Python client. Capture from a server started with "
        "tapejax.profiler.experimental.server.start(port) using TensorBoard's profile "
        "tab (capture profile) or `python -m jax.collect_profile` (needs xprof)."
    )


def trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3,
          options=None):  # fmt: skip
    """``tf.profiler.experimental.client.trace``: raises ``NotImplementedError``."""
    raise _not_provided("trace")


def monitor(service_addr, duration_ms, level=1):
    """``tf.profiler.experimental.client.monitor``: raises ``NotImplementedError``."""
    raise _not_provided("monitor")
