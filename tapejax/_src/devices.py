"""TF device names mapped onto JAX devices: ``tapejax.device`` and ``tf.config``'s device
functions (listing, visibility, logical configurations, memory).

``'/GPU:0'`` means JAX's first GPU (or CUDA/ROCm) device, ``'/CPU:0'`` its first CPU
device, ``'/TPU:0'`` its first TPU. Placement is JAX's: ``tapejax.device`` sets
``jax.default_device`` for the block, so new arrays and computations land there. JAX
fixes its devices and their memory policy when its backend starts; what TF lets a
program change before its runtime starts is accepted here where JAX already matches it,
and otherwise raises or warns with the JAX setting that does it. This module must never
change JAX's configuration except on an explicit call (``set_visible_devices``).
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import warnings

import jax

__all__ = [
    "device",
    "list_physical_devices",
    "list_logical_devices",
    "PhysicalDevice",
    "LogicalDevice",
    "LogicalDeviceConfiguration",
    "get_visible_devices",
    "set_visible_devices",
    "get_logical_device_configuration",
    "set_logical_device_configuration",
    "get_memory_growth",
    "set_memory_growth",
    "get_memory_info",
    "get_memory_usage",
    "get_device_details",
]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_PLATFORMS = {"CPU": ("cpu",), "GPU": ("gpu", "cuda", "rocm"), "TPU": ("tpu",)}


def _jax_devices(device_type):
    out = []
    for kind, platforms in _PLATFORMS.items():
        if device_type is not None and kind != device_type.upper():
            continue
        for platform in platforms:
            try:
                devices = jax.devices(platform)
            except RuntimeError:
                continue
            out.extend((kind, d) for d in devices)
            break
    return out


def list_physical_devices(device_type=None) -> list:
    """The devices JAX sees, named as TF names them (``tf.config.list_physical_devices``)."""
    found = _jax_devices(device_type)
    counts: dict = {}
    result = []
    for kind, _ in found:
        i = counts.get(kind, 0)
        counts[kind] = i + 1
        result.append(PhysicalDevice(f"/physical_device:{kind}:{i}", kind))
    return result


def list_logical_devices(device_type=None) -> list:
    """The visible devices (``get_visible_devices``), with TF's logical names
    (``/device:GPU:0``, numbered among the visible ones) (``tf.config.list_logical_devices``)."""
    counts: dict = {}
    result = []
    for p in get_visible_devices(device_type):
        i = counts.get(p.device_type, 0)
        counts[p.device_type] = i + 1
        result.append(LogicalDevice(f"/device:{p.device_type}:{i}", p.device_type))
    return result


_SPEC = re.compile(
    r"^(?:/job:[^/]*)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?([A-Za-z]+):(\d+)$"
)


@contextlib.contextmanager
def device(device_name: str):
    """Places the ops of a block on a device (``tf.device``), through ``jax.default_device``.

    Args:
      device_name: a device string, or a ``DeviceSpec``.

    Raises:
      ValueError: the name does not parse, or no such device exists here.
    """
    from .device_spec import DeviceSpec

    if isinstance(device_name, DeviceSpec):
        device_name = device_name.to_string()
    m = _SPEC.match(device_name.strip())
    if not m:
        raise ValueError(f"Invalid device specification: {device_name!r}")
    kind, index = m.group(1).upper(), int(m.group(2))
    devices = _visible_jax_devices(kind)
    if index >= len(devices):
        raise ValueError(
            f"Device {device_name!r} does not exist here: JAX sees "
            f"{[p.name for p in list_logical_devices()]}."
        )
    with jax.default_device(devices[index]):
        yield


# -- visibility, logical configurations, memory (tf.config) ----------------------------------

LogicalDeviceConfiguration = collections.namedtuple(
    "LogicalDeviceConfiguration",
    ["memory_limit", "experimental_priority", "experimental_device_ordinal"],
    defaults=(None, None, None),
)
_hidden: set = set()  # names of the physical devices set_visible_devices hid
_logical_configs: dict = {}
_memory_growth: dict = {}


def _physical(device) -> tuple:
    """The ``(kind, jax device)`` of a PhysicalDevice (ValueError if JAX has no such one)."""
    found = dict(zip(list_physical_devices(), _jax_devices(None), strict=True))
    if device not in found:
        raise ValueError(f"Unrecognized device: {device!r}")
    return found[device]


def get_visible_devices(device_type=None) -> list:
    """The physical devices tapejax places values on (``tf.config.get_visible_devices``):
    all of JAX's, less those ``set_visible_devices`` hid."""
    return [d for d in list_physical_devices(device_type) if d.name not in _hidden]


def set_visible_devices(devices, device_type=None) -> None:
    """Restricts the devices tapejax uses (``tf.config.set_visible_devices``).

    JAX's devices stay as JAX started them; tapejax hides the others from
    ``list_logical_devices``, ``get_visible_devices`` and ``tapejax.device``, and when
    JAX's default device is hidden, makes the first visible device the default
    (``jax.config.update("jax_default_device", ...)``), so new values land there. Unlike
    TF, it can be called at any time (TF refuses once its runtime has started).

    Args:
        devices: a PhysicalDevice or a list of them.
        device_type: if given, only devices of this type ("CPU", "GPU") change.

    Raises:
        ValueError: a device JAX does not have, or no device would stay visible.
    """
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        _physical(d)
        if device_type is not None and d.device_type != device_type.upper():
            raise ValueError(f"{d!r} is not of device_type {device_type!r}")
    scope = list_physical_devices(device_type)
    hidden = {d.name for d in scope if d not in devices}
    hidden |= {h for h in _hidden if h not in {d.name for d in scope}}
    if len(hidden) == len(list_physical_devices()):
        raise ValueError("set_visible_devices: at least one device must stay visible.")
    _hidden.clear()
    _hidden.update(hidden)
    default = jax.config.jax_default_device or jax.devices()[0]
    by_name = dict(zip([p.name for p in list_physical_devices()], _jax_devices(None), strict=True))
    visible = [dev for name, (_, dev) in by_name.items() if name not in _hidden]
    if default not in visible:
        jax.config.update("jax_default_device", visible[0])
    elif jax.config.jax_default_device is not None and not _hidden:
        jax.config.update("jax_default_device", None)


def _visible_jax_devices(kind):
    names = [p.name for p in list_physical_devices(kind)]
    return [
        d for name, (_, d) in zip(names, _jax_devices(kind), strict=True) if name not in _hidden
    ]


def get_logical_device_configuration(device):
    """What ``set_logical_device_configuration`` set for ``device``, or None
    (``tf.config.get_logical_device_configuration``)."""
    _physical(device)
    return _logical_configs.get(device)


def set_logical_device_configuration(device, logical_devices) -> None:
    """Splits a physical device into logical ones (``tf.config.set_logical_device_configuration``).

    JAX fixes its devices when its backend starts, which has happened once a
    PhysicalDevice exists: only the configuration JAX already has (one logical device per
    physical one, no memory limit) is accepted; any other raises TF's error for a
    started runtime. To get several CPU devices, set ``jax_num_cpu_devices`` (or
    ``XLA_FLAGS=--xla_force_host_platform_device_count=N``) before JAX starts.

    Raises:
        RuntimeError: another configuration (TF's text, with the JAX way to get it).
    """
    _physical(device)
    logical_devices = list(logical_devices)
    if len(logical_devices) != 1 or any(c.memory_limit is not None for c in logical_devices):
        raise RuntimeError(
            "Virtual devices cannot be modified after being initialized (JAX's devices are "
            "fixed when its backend starts: set jax_num_cpu_devices or XLA_FLAGS="
            "--xla_force_host_platform_device_count=N before the first JAX call)"
        )
    _logical_configs[device] = logical_devices


def get_memory_growth(device) -> bool:
    """What ``set_memory_growth`` set for a GPU (``tf.config.experimental.get_memory_growth``).

    Raises:
        KeyError: not a GPU (TF raises the same for a CPU).
    """
    _physical(device)
    if device.device_type != "GPU":
        raise KeyError(device)
    return _memory_growth.get(device, os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE") == "false")


def set_memory_growth(device, enable) -> None:
    """Records memory growth for a GPU (``tf.config.experimental.set_memory_growth``).

    JAX chooses between preallocating most of a GPU's memory and growing on demand when
    its backend starts (``XLA_PYTHON_CLIENT_PREALLOCATE=false`` in the environment
    before the first JAX call), which has happened once a PhysicalDevice exists. The
    setting is kept for ``get_memory_growth``, and a ``UserWarning`` says how to get it
    when JAX's running policy differs.

    Raises:
        ValueError: not a GPU (TF's text).
    """
    _physical(device)
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    running = os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE") == "false"
    if bool(enable) != running:
        warnings.warn(
            "tapejax: JAX fixed its GPU memory policy when it started ("
            f"{'growing on demand' if running else 'preallocating'}); to "
            f"{'grow memory on demand' if enable else 'preallocate'}, set "
            f"XLA_PYTHON_CLIENT_PREALLOCATE={'false' if enable else 'true'} in the "
            "environment before the first JAX call.",
            UserWarning,
            stacklevel=2,
        )
    _memory_growth[device] = bool(enable)


def _device_by_spec(device: str):
    m = _SPEC.match(str(device).strip())
    found = _visible_jax_devices(m.group(1).upper()) if m else []
    if not m or int(m.group(2)) >= len(found):
        raise ValueError(f"No matching devices found for '{device}'")
    return found[int(m.group(2))]


def get_memory_info(device) -> dict:
    """``{"current": bytes, "peak": bytes}`` in use on a device, from JAX's
    ``memory_stats`` (``tf.config.experimental.get_memory_info``); zeros where JAX keeps
    no statistics (the CPU), as TF reports for its CPU.

    Raises:
        ValueError: no such device (TF's text).
    """
    stats = _device_by_spec(device).memory_stats() or {}
    return {"current": stats.get("bytes_in_use", 0), "peak": stats.get("peak_bytes_in_use", 0)}


def get_memory_usage(device) -> int:
    """The bytes in use on a device (``tf.config.experimental.get_memory_usage``)."""
    return get_memory_info(device)["current"]


def get_device_details(device) -> dict:
    """A GPU's ``device_name`` and ``compute_capability`` (an empty dict for other
    devices), from JAX's device (``tf.config.experimental.get_device_details``)."""
    kind, dev = _physical(device)
    if kind != "GPU":
        return {}
    details = {"device_name": dev.device_kind}
    capability = getattr(dev, "compute_capability", None)
    if capability:
        details["compute_capability"] = tuple(int(p) for p in str(capability).split("."))
    return details
