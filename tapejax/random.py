"""``tf.random``: seeded random tensors on explicit JAX PRNG keys.

Shapes, dtypes, distributions, TF's global/op seed rules, gradients and errors are
TensorFlow's; the numbers themselves are not (JAX's threefry, not TF's Philox), so a
seed gives a different, equally reproducible, stream than in TF. The random state is
held in hidden tapejax Variables, so ``tapejax.function`` draws fresh numbers per call.
"""

from tapejax._src.ops.random_ops import (
    Algorithm,
    Generator,
    categorical,
    fold_in,
    gamma,
    get_global_generator,
    normal,
    poisson,
    set_global_generator,
    set_seed,
    shuffle,
    split,
    stateless_binomial,
    stateless_categorical,
    stateless_normal,
    stateless_truncated_normal,
    stateless_uniform,
    truncated_normal,
    uniform,
)

__all__ = [
    "Algorithm",
    "Generator",
    "categorical",
    "fold_in",
    "gamma",
    "get_global_generator",
    "normal",
    "poisson",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
]

# Names of this namespace that TF also exports at top level; ``tapejax``'s ``__init__``
# re-exports them.
TOPLEVEL: list[str] = []
