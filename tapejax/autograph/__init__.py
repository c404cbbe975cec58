"""``tf.autograph``: TF's AutoGraph names for ported code; tapejax converts no source.

``set_verbosity``, ``trace`` and ``experimental`` behave as in TF; ``to_code`` and
``to_graph`` raise ``NotImplementedError`` (``docs/compat.md``, "``tapejax.autograph``").
"""

from tapejax._src.autograph import set_verbosity, to_code, to_graph, trace
from tapejax.autograph import experimental

__all__ = [
    "experimental",
    "set_verbosity",
    "to_code",
    "to_graph",
    "trace",
]
