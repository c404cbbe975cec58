"""``tf.config``: devices mapped onto JAX's, function execution mode, and TF's runtime
switches (``tf.config.experimental``, ``tf.config.optimizer``, ``tf.config.threading``).

Switches that steer parts of TF's runtime XLA does not have are kept and returned by
their getters but do nothing; each says so (and ``docs/compat.md``, "``tapejax.config``").
"""

from tapejax._src.devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)
from tapejax._src.function import functions_run_eagerly, run_functions_eagerly
from tapejax._src.not_provided import attribute_hook as _attribute_hook
from tapejax._src.runtime_config import get_soft_device_placement, set_soft_device_placement
from tapejax.config import experimental, optimizer, threading

experimental_functions_run_eagerly = functions_run_eagerly  # TF's deprecated names
experimental_run_functions_eagerly = run_functions_eagerly

__getattr__ = _attribute_hook("tapejax.config", "config")

__all__ = [
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "PhysicalDevice",
    "experimental",
    "experimental_functions_run_eagerly",
    "experimental_run_functions_eagerly",
    "functions_run_eagerly",
    "get_logical_device_configuration",
    "get_soft_device_placement",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "optimizer",
    "run_functions_eagerly",
    "set_logical_device_configuration",
    "set_soft_device_placement",
    "set_visible_devices",
    "threading",
]
