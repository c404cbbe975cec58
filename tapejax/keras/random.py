"""``tf.keras.random``: Keras 3's random functions on its JAX backend, returning Tensors.

The draws are Keras's own (the same numbers as ``keras.random`` under
``KERAS_BACKEND=jax`` for the same seed). Keras's seed (an int, a ``SeedGenerator`` or
``None`` for Keras's global generator) is drawn first, as Keras draws it, so a
``SeedGenerator`` advances once per call exactly as in Keras; the draw itself is then a
recorded op (``dropout`` differentiates through its input). A ``SeedGenerator``'s
state is a Keras variable, not a tapejax Variable, so a compiled ``tapejax.function``
could not advance it between calls: there, only an int seed is accepted.
"""

from __future__ import annotations

import functools
import inspect

from tapejax._src.execution import executing_eagerly

from ._backend import keras as _keras
from .ops import bridge_function

SeedGenerator = _keras.random.SeedGenerator

_draw_seed = _keras.src.random.seed_generator.draw_seed


def _with_drawn_seed(keras_fn, name: str):
    bridged = bridge_function(keras_fn, __name__, name)
    signature = inspect.signature(keras_fn)

    @functools.wraps(keras_fn)
    def call(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        seed = bound.arguments.get("seed")
        if not isinstance(seed, int) and not executing_eagerly():
            raise NotImplementedError(
                f"tapejax.keras.random.{name} inside a tapejax.function needs an int seed: "
                "a SeedGenerator (or seed=None, Keras's global one) keeps its state in a "
                "Keras variable that a compiled call cannot advance, so every call would "
                "repeat the first draw. Pass seed=<int> (varied by you), or use a "
                "tapejax.keras.layers.Dropout / GaussianNoise layer, whose seed state "
                "is a tapejax Variable"
            )
        bound.arguments["seed"] = _draw_seed(seed)
        return bridged(*bound.args, **bound.kwargs)

    call.__module__ = __name__
    call._keras_object = keras_fn
    return call


_NAMES = {
    name: _with_drawn_seed(getattr(_keras.random, name), name)
    for name in dir(_keras.random)
    if not name.startswith("_") and inspect.isfunction(getattr(_keras.random, name))
}
globals().update(_NAMES)

__all__ = sorted(list(_NAMES) + ["SeedGenerator"])
