"""``DeviceSpec``: TF's parsed, immutable device name (``/job:…/replica:…/task:…/device:…``).

A port of TF 2's ``DeviceSpecV2`` (``tensorflow/python/framework/device_spec.py``): the
same parser, string form, merge rules and errors. It only describes a device; placing
work is ``tapejax.device``'s job, which accepts a DeviceSpec. This module must never
look at JAX's devices: a spec may name a device this process does not have, as in TF.
"""

from __future__ import annotations

__all__ = ["DeviceSpec"]

# TF adds the types of pluggable devices it has loaded; tapejax loads none.
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _as_str_or_none(value):
    return None if value is None else str(value)


def _as_int_or_none(value):
    return None if value is None else int(value)


def _as_device_str_or_none(device_type):
    # TF accepts lowercase "cpu" and "gpu" for backwards compatibility.
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _as_str_or_none(device_type)


def _string_to_components(spec):
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for part in spec.split("/"):
        y = part.split(":")
        n = len(y)
        if n == 2 and y[0] == "job":
            job = y[1]
        elif n == 2 and y[0] == "replica":
            replica = y[1]
        elif n == 2 and y[0] == "task":
            task = y[1]
        elif n in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[0].upper()
            if n == 2 and y[1] != "*":
                device_index = int(y[1])
        elif n == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif y[0] != "":
            raise ValueError(
                f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: "
                f"'{spec}'."
            )
    return job, replica, task, device_type, device_index


def _components_to_string(job, replica, task, device_type, device_index) -> str:
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append("/replica:" + str(replica))
    if task is not None:
        out.append("/task:" + str(task))
    if device_type is not None:
        index = "*" if device_index is None else str(device_index)
        out.append(f"/device:{device_type}:{index}")
    return "".join(out)


class DeviceSpec:
    """A (possibly partial) device specification (``tf.DeviceSpec``, TF's ``DeviceSpecV2``).

    Immutable: ``replace`` and ``make_merged_spec`` return new specs.

    Example:
        >>> import tapejax as tf
        >>> spec = tf.DeviceSpec.from_string("/job:ps/GPU:1")
        >>> spec.job, spec.device_type, spec.device_index, spec.to_string()
        ('ps', 'GPU', 1, '/job:ps/device:GPU:1')
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = _as_str_or_none(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_str_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)
        self._as_string = _components_to_string(
            self._job, self._replica, self._task, self._device_type, self._device_index
        )

    def to_string(self) -> str:
        """``/job:<name>/replica:<id>/task:<id>/device:<type>:<id>``, with the parts set."""
        return self._as_string

    @classmethod
    def from_string(cls, spec) -> DeviceSpec:
        """Parses a device string; every part is optional.

        Raises:
            ValueError: an unknown part, or two device types (TF's texts).
        """
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec) -> DeviceSpec:
        """``from_string`` (TF 2 returns a new spec; this one is unchanged)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev) -> DeviceSpec:
        """A new spec: ``dev``'s parts where set, this spec's elsewhere."""
        return self.__class__(
            *(
                theirs if theirs is not None else mine
                for mine, theirs in zip(self._parts(), dev._parts(), strict=True)
            )
        )

    def replace(self, **kwargs) -> DeviceSpec:
        """A new spec with the given constructor arguments overriding this spec's parts."""
        init = dict(
            job=self.job,
            replica=self.replica,
            task=self.task,
            device_type=self.device_type,
            device_index=self.device_index,
        )
        init.update(kwargs)
        return self.__class__(**init)

    def _parts(self) -> tuple:
        return (self.job, self.replica, self.task, self.device_type, self.device_index)

    @property
    def job(self):
        return self._job

    @property
    def replica(self):
        return self._replica

    @property
    def task(self):
        return self._task

    @property
    def device_type(self):
        return self._device_type

    @property
    def device_index(self):
        return self._device_index

    def __eq__(self, other) -> bool:
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self._as_string)

    def __repr__(self) -> str:
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )
