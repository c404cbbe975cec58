"""``tf.train.ExponentialMovingAverage``: shadow Variables that follow other Variables.

The update is TF's, op for op, so that trajectories match TF's bit for bit: the decay
is a float32 tensor (capped by ``(1 + num_updates) / (10 + num_updates)`` in float32),
``1 - decay`` is cast to each Variable's dtype, and the shadow is updated with
``shadow.assign_sub((shadow - var) * (1 - decay))``. This module must never hold a
reference to a value read inside a trace beyond the call that read it: shadows are
Variables, so ``tapejax.function`` carries them as state.
"""

from __future__ import annotations

import threading
import weakref

from . import dtypes
from .conversion import convert_to_tensor
from .ops import math_ops
from .tensor import Tensor
from .variables import Variable

__all__ = ["ExponentialMovingAverage"]

_FLOAT_DTYPES = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64)

# TF names a shadow "<var>/<ema name>", uniquified per process by its variable-scope
# counter: a second average of the same Variable is "<var>/<ema name>_1".
_scope_counts: dict = {}
_scope_lock = threading.Lock()
# TF's MOVING_AVERAGE_VARIABLES collection: every Variable any average was created for.
_averaged_variables: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _unique_scope(base: str) -> str:
    with _scope_lock:
        count = _scope_counts.get(base, 0)
        _scope_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def _op_name(var) -> str:
    name = var.name
    return name[:-2] if name.endswith(":0") else name


class ExponentialMovingAverage:
    """Maintains moving averages of Variables (``tf.train.ExponentialMovingAverage``).

    ``apply(var_list)`` creates a shadow Variable for each Variable the first time it
    sees it (initialised to the Variable's current value, ``trainable=False``) and
    updates every shadow in the list on each call::

        shadow -= (1 - decay) * (shadow - variable)

    With ``num_updates``, the decay used is ``min(decay, (1 + num_updates) / (10 +
    num_updates))``. ``decay`` and ``num_updates`` may be Variables: they are read at
    each ``apply``. Inside ``tapejax.function``, shadows are created on the first
    (eager) call and updated in the compiled program on later calls.

    The object itself is not saved by ``tapejax.train.Checkpoint`` (as in TF, it is
    not trackable): checkpoint the shadows, e.g. ``Checkpoint(averages=[ema.average(v)
    for v in model.trainable_variables])``.

    Args:
      decay: a float, float32 Tensor or float32 Variable.
      num_updates: optional count of updates (a number, Tensor or Variable).
      zero_debias: as TF's; it only concerns moving averages of non-Variable tensors,
        which TF 2 (and tapejax) refuse, so it changes nothing.
      name: the suffix of the shadow Variables' names.

    Example:
        >>> import tapejax as tf
        >>> import tapejax.train
        >>> v = tf.Variable(1.0)
        >>> ema = tf.train.ExponentialMovingAverage(decay=0.5)
        >>> ema.apply([v])
        >>> _ = v.assign(3.0)
        >>> ema.apply([v])
        >>> float(ema.average(v)), ema.average_name(v)
        (2.0, 'Variable/ExponentialMovingAverage')
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    @property
    def name(self) -> str:
        """The name of this ExponentialMovingAverage object."""
        return self._name

    def apply(self, var_list=None) -> None:
        """Creates shadows for new Variables of ``var_list`` and updates all of them.

        Args:
          var_list: Variables of dtype bfloat16, float16, float32 or float64. None is
            TF 2's default: the global collection of trainable variables, which is
            empty outside TF 1 graphs, so nothing is updated.

        Returns:
          None (TF 2 returns None as well when executing eagerly).

        Raises:
          TypeError: an element is not a Variable (TF's text for Tensors), or a
            Variable is not of a floating dtype.
          ValueError: ``decay`` is not convertible to float32.
        """
        if var_list is None:
            var_list = []
        if isinstance(var_list, (Tensor, Variable)) and var_list.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        var_list = list(var_list)
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError(
                    "tf.train.ExponentialMovingAverage does not support non-Variable"
                    " tensors when eager execution is enabled."
                )
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_DTYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            key = var.ref()
            if key not in self._averages:
                self._averages[key] = self._create_shadow(var)
                _averaged_variables[var._id] = var
        try:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32)
        except ValueError as e:
            raise ValueError(f"decay: {e}") from None
        if self._num_updates is not None:
            n = math_ops.cast(self._num_updates, dtypes.float32)
            decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
        one_minus_decay = 1.0 - decay
        for var in var_list:
            average = self._averages[var.ref()]
            rate = one_minus_decay
            if rate.dtype != average.dtype:
                rate = math_ops.cast(rate, average.dtype)
            average.assign_sub((average - var) * rate)

    def _create_shadow(self, var) -> Variable:
        scope = _unique_scope(f"{_op_name(var)}/{self._name}")
        # A name ending in "/" is absolute: the shadow lives under the Variable's own
        # name, whatever name scope apply() runs in (as TF's slot variables).
        return Variable(var.read_value(), trainable=False, name=scope + "/")

    def average(self, var):
        """The shadow Variable of ``var``, or None if ``apply`` has not seen ``var``."""
        return self._averages.get(var.ref(), None)

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow (without ``:0``), as TF computes it.

        Before ``apply`` has seen ``var`` this is ``<var name>/<ema name>``, which is
        TF's answer too, even when ``apply`` will then add a ``_1`` suffix because
        another average of ``var`` exists.
        """
        average = self._averages.get(var.ref())
        if average is not None:
            return _op_name(average)
        return f"{_op_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{average_name(v): v}`` for ``moving_avg_variables`` (a TF 1 ``Saver`` map).

        Args:
          moving_avg_variables: the Variables to map; None means every Variable that
            any ExponentialMovingAverage has created a shadow for (TF's
            ``MOVING_AVERAGE_VARIABLES`` collection; its trainable and global
            collections are empty when executing eagerly, and tapejax has none).

        Returns:
          A dict from the name of each Variable's shadow (by this object's naming) to
          the Variable.
        """
        if moving_avg_variables is None:
            moving_avg_variables = list(_averaged_variables.values())
        name_map = {}
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        return name_map
