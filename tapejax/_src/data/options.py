"""``tf.data.Options``: accepted and kept, so that TF code setting them runs; tapejax's
host pipeline has nothing they could change (no threads, no graph rewrites)."""

from __future__ import annotations

import enum

_OPTION_NAMES = (
    "autotune",
    "dataset_name",
    "deterministic",
    "experimental_deterministic",
    "experimental_distribute",
    "experimental_external_state_policy",
    "experimental_optimization",
    "experimental_service",
    "experimental_slack",
    "experimental_symbolic_checkpoint",
    "experimental_threading",
    "experimental_warm_start",
    "framework_type",
    "threading",
)


class _Group:
    """A group of sub-options without a TF class here (``options.experimental_service``):
    any attribute may be set, and reads None until it is."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded (``tf.data.experimental.AutoShardPolicy``)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """What to do with external state when a dataset is serialized
    (``tf.data.experimental.ExternalStatePolicy``)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithm (``tf.data.experimental.AutotuneAlgorithm``)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionGroup:
    """TF's ``OptionsBase``: a fixed set of typed properties, each None (or its default)
    until set; other names are TF's ``AttributeError``, values of other types its
    ``TypeError``."""

    _properties: dict = {}  # name -> (type, default)

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._properties:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return self._values.get(name, self._properties[name][1])

    def __setattr__(self, name, value):
        if name not in self._properties:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        ty = self._properties[name][0]
        if value is not None and not isinstance(value, ty):
            raise TypeError(
                f'Property "{name}" must be of type {ty}, got: {value} (type: {type(value)})'
            )
        self._values[name] = value

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._properties)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None


class OptimizationOptions(_OptionGroup):
    """Graph rewrites of a dataset (``tf.data.experimental.OptimizationOptions``); kept,
    and nothing in tapejax's host pipeline reads them."""

    _properties = {
        name: (bool, None)
        for name in (
            "apply_default_optimizations", "filter_fusion", "filter_parallelization",
            "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
            "map_parallelization", "noop_elimination", "parallel_batch",
            "seq_interleave_prefetch", "shuffle_and_repeat_fusion",
        )
    }  # fmt: skip


class ThreadingOptions(_OptionGroup):
    """Threads of a dataset (``tf.data.ThreadingOptions``); kept, and unused: tapejax's
    pipeline runs on the calling thread."""

    _properties = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class DistributeOptions(_OptionGroup):
    """Sharding of a distributed dataset (``tf.data.experimental.DistributeOptions``); kept."""

    _properties = {
        "auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO),
        "num_devices": (int, None),
    }


class AutotuneOptions(_OptionGroup):
    """Autotuning of a dataset (``tf.data.experimental.AutotuneOptions``); kept, and unused."""

    _properties = {
        "autotune_algorithm": (AutotuneAlgorithm, None),
        "cpu_budget": (int, None),
        "enabled": (bool, None),
        "initial_parallelism": (int, None),
        "min_parallelism": (int, None),
        "ram_budget": (int, None),
    }


_GROUP_CLASSES = {
    "autotune": AutotuneOptions,
    "experimental_distribute": DistributeOptions,
    "experimental_optimization": OptimizationOptions,
    "threading": ThreadingOptions,
    "experimental_threading": ThreadingOptions,
}


class Options:
    """Options of a Dataset (``tf.data.Options``), set with ``Dataset.with_options``.

    Every option of TF's can be set and read back; none changes how tapejax runs the
    pipeline (it runs in order, in Python, on one thread).

    Example:
        >>> import tapejax as tf
        >>> options = tf.data.Options()
        >>> options.deterministic = False
        >>> tf.data.Dataset.range(3).with_options(options).options().deterministic
        False
    """

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name):
        if name.startswith("_") or name not in _OPTION_NAMES:
            raise AttributeError(f"'Options' object has no attribute '{name}'")
        values = self._values
        if name not in values and name in _GROUP_CLASSES:
            values[name] = _GROUP_CLASSES[name]()
        elif name not in values and name == "experimental_service":
            values[name] = _Group()
        return values.get(name)

    def __setattr__(self, name, value):
        if name not in _OPTION_NAMES:
            raise AttributeError(f"Cannot set the property {name} on Options.")
        group = _GROUP_CLASSES.get(name)
        if group is not None and value is not None and not isinstance(value, group):
            raise TypeError(
                f'Property "{name}" must be of type {group}, got: {value} (type: {type(value)})'
            )
        self._values[name] = value

    def merge(self, options) -> Options:
        """These options with those set in ``options`` over them."""
        if not isinstance(options, Options):
            raise TypeError(
                f"Options.merge() expects a tf.data.Options argument, got {type(options)}."
            )
        merged = Options()
        merged._values.update(self._values)
        merged._values.update(options._values)
        return merged

    def __eq__(self, other):
        return isinstance(other, Options) and self._values == other._values

    __hash__ = None
