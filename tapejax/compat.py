"""``tf.compat``: string and path conversions, Python type tuples, dimension helpers and
the forward-compatibility date, as TF 2.21's.

``v2`` is ``tapejax`` itself (TF 2's API). ``v1``, TF 1's graph API (sessions,
placeholders, ``tf.compat.v1.Dimension``, ...), is not provided: reading it raises a
``NotImplementedError`` that is also an ``AttributeError``, so ``hasattr`` says False.
See ``docs/compat.md``, "``tapejax.compat`` and ``tapejax.types``".
"""

import tapejax as v2
from tapejax._src.compat import (
    NamespaceNotProvidedError as _NamespaceNotProvidedError,
)
from tapejax._src.compat import (
    as_bytes,
    as_str,
    as_str_any,
    as_text,
    bytes_or_text_types,
    complex_types,
    dimension_at_index,
    dimension_value,
    forward_compatibility_horizon,
    forward_compatible,
    integral_types,
    path_to_str,
    real_types,
)


def __getattr__(name):
    if name == "v1":
        raise _NamespaceNotProvidedError(
            "tf.compat.v1 (TensorFlow 1's graph API: Session, placeholder, "
            "get_variable, Dimension, ...) is not provided by tapejax, which gives TF 2's "
            "eager API. Port the code to TF 2 first (https://www.tensorflow.org/guide/migrate): "
            "tapejax.compat.v2 is tapejax itself."
        )
    raise AttributeError(f"module 'tapejax.compat' has no attribute {name!r}")


__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
    "v2",
]
