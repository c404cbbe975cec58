"""``tf.config.experimental``: device memory, details and visibility, and TF's runtime
switches (which do nothing on XLA unless their docstring says otherwise)."""

from tapejax._src.devices import LogicalDeviceConfiguration as VirtualDeviceConfiguration
from tapejax._src.devices import (
    get_device_details,
    get_memory_growth,
    get_memory_info,
    get_memory_usage,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_memory_growth,
    set_visible_devices,
)
from tapejax._src.devices import (
    get_logical_device_configuration as get_virtual_device_configuration,
)
from tapejax._src.devices import (
    set_logical_device_configuration as set_virtual_device_configuration,
)
from tapejax._src.runtime_config import (
    disable_mlir_bridge,
    enable_mlir_bridge,
    enable_tensor_float_32_execution,
    get_device_policy,
    get_synchronous_execution,
    set_device_policy,
    set_synchronous_execution,
    tensor_float_32_execution_enabled,
)

__all__ = [
    "VirtualDeviceConfiguration",
    "disable_mlir_bridge",
    "enable_mlir_bridge",
    "enable_tensor_float_32_execution",
    "get_device_details",
    "get_device_policy",
    "get_memory_growth",
    "get_memory_info",
    "get_memory_usage",
    "get_synchronous_execution",
    "get_virtual_device_configuration",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "set_device_policy",
    "set_memory_growth",
    "set_synchronous_execution",
    "set_virtual_device_configuration",
    "set_visible_devices",
    "tensor_float_32_execution_enabled",
]
