"""TF device names mapped onto JAX devices: ``tapejax.device`` and ``config.list_*_devices``.

``'/GPU:0'`` means JAX's first GPU (or CUDA/ROCm) device, ``'/CPU:0'`` its first CPU
device, ``'/TPU:0'`` its first TPU. Placement is JAX's: ``tapejax.device`` sets
``jax.default_device`` for the block, so new arrays and computations land there.
"""

from __future__ import annotations

import collections
import contextlib
import re

import jax

__all__ = ["device", "list_physical_devices", "list_logical_devices", "PhysicalDevice"]

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
    """As ``list_physical_devices``, with TF's logical names (``/device:GPU:0``)."""
    return [
        LogicalDevice(p.name.replace("/physical_device:", "/device:"), p.device_type)
        for p in list_physical_devices(device_type)
    ]


_SPEC = re.compile(
    r"^(?:/job:[^/]*)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?([A-Za-z]+):(\d+)$"
)


@contextlib.contextmanager
def device(device_name: str):
    """Places the ops of a block on a device (``tf.device``), through ``jax.default_device``.

    Raises:
      ValueError: the name does not parse, or no such device exists here.
    """
    m = _SPEC.match(device_name.strip())
    if not m:
        raise ValueError(f"Invalid device specification: {device_name!r}")
    kind, index = m.group(1).upper(), int(m.group(2))
    devices = [d for k, d in _jax_devices(kind)]
    if index >= len(devices):
        raise ValueError(
            f"Device {device_name!r} does not exist here: JAX sees "
            f"{[p.name for p in list_logical_devices()]}."
        )
    with jax.default_device(devices[index]):
        yield
