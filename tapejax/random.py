"""``tf.random``: seeded random tensors on explicit JAX PRNG keys.

Shapes, dtypes, distributions, TF's global/op seed rules, gradients and errors are
TensorFlow's; the numbers themselves are not (JAX's threefry, not TF's Philox), so a
seed gives a different, equally reproducible, stream than in TF. The random state is
held in hidden tapejax Variables, so ``tapejax.function`` draws fresh numbers per call.
"""

import sys as _sys

from tapejax import random_experimental as experimental
from tapejax._src.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
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
from tapejax._src.ops.rng_state_ops import create_rng_state
from tapejax._src.ops.stateless_distribution_ops import (
    stateless_gamma,
    stateless_parameterized_truncated_normal,
    stateless_poisson,
)

__all__ = [
    "Algorithm",
    "Generator",
    "all_candidate_sampler",
    "categorical",
    "create_rng_state",
    "experimental",
    "fixed_unigram_candidate_sampler",
    "fold_in",
    "gamma",
    "get_global_generator",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "normal",
    "poisson",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]

# Names of this namespace that TF also exports at top level; ``tapejax``'s ``__init__``
# re-exports them.
TOPLEVEL: list[str] = []

# tapejax.random is a module, not a package: registered so that ``import
# tapejax.random.experimental`` works as with TF's submodule.
_sys.modules[f"{__name__}.experimental"] = experimental
