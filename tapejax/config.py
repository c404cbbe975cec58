"""``tf.config``: function execution mode and devices."""

from tapejax._src.devices import list_logical_devices, list_physical_devices
from tapejax._src.function import functions_run_eagerly, run_functions_eagerly

__all__ = [
    "functions_run_eagerly",
    "list_logical_devices",
    "list_physical_devices",
    "run_functions_eagerly",
]
