"""The old import path of ``tf.nn``'s activations and losses, kept for the modules that
still import from here (``tapejax/math.py``, ``clip_ops``); it defines nothing.

``tf.nn``'s ops live in ``activation_ops``, ``loss_ops``, ``normalization_ops``,
``layer_ops``, ``conv_ops``, ``conv_transpose_ops`` and ``pool_ops``: new code imports
from those, and this module goes once its last importer has moved.
"""

from __future__ import annotations

from .activation_ops import log_softmax as log_softmax
from .activation_ops import softmax as softmax
from .activation_ops import softplus as softplus
from .activation_ops import softsign as softsign
from .loss_ops import l2_loss as l2_loss
