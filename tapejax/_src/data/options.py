"""``tf.data.Options``: accepted and kept, so that TF code setting them runs; tapejax's
host pipeline has nothing they could change (no threads, no graph rewrites)."""

from __future__ import annotations

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
    """A group of sub-options (``options.threading``, ``options.experimental_optimization``
    ...): any attribute may be set, and reads None until it is."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


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
        if name not in values and name in ("autotune", "experimental_distribute",
                                           "experimental_optimization", "threading",
                                           "experimental_threading", "experimental_service"):  # fmt: skip
            values[name] = _Group()
        return values.get(name)

    def __setattr__(self, name, value):
        if name not in _OPTION_NAMES:
            raise AttributeError(f"Cannot set the property {name} on Options.")
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
