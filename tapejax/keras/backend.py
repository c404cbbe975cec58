"""``tf.keras.backend``: Keras 3's backend utilities (``floatx``, ``epsilon``, ...).

TF's ``tf.keras.backend`` also keeps Keras 2's tensor functions (``mean``, ``dot``,
``variable``, ...), written with TensorFlow ops (``keras.src.legacy.backend``); they do
not run on JAX, and reading one raises ``NotImplementedError`` pointing to
``tapejax.keras.ops``.
"""

from __future__ import annotations

from tapejax._src.compat import NamespaceNotProvidedError

from ._backend import keras as _keras

_NAMES = {n: getattr(_keras.backend, n) for n in dir(_keras.backend) if not n.startswith("_")}
globals().update(_NAMES)
_LEGACY = frozenset(dir(_keras._tf_keras.keras.backend)) - frozenset(_NAMES)


def __getattr__(name):
    if name in _LEGACY and not name.startswith("_"):
        raise NamespaceNotProvidedError(
            f"tf.keras.backend.{name} is not provided by tapejax: it is one of Keras 2's "
            "backend functions that tf.keras keeps, written with TensorFlow ops, which do "
            "not run on JAX. Use tapejax.keras.ops (or tapejax's own ops and Variables). "
            'See docs/compat.md, "Coverage of TensorFlow\'s namespaces".'
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_NAMES)
