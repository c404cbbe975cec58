"""Keras optimizers updating tapejax Variables: one jitted update per call.

``Optimizer`` wraps a real Keras optimizer. Its slot variables (momentums, the
iteration count, the learning rate) are tapejax Variables shared with Keras
(``_shared``), so ``tapejax.function`` binds and writes them back like any Variable.
``apply_gradients`` runs Keras's own ``apply`` (clipping, weight decay, EMA, gradient
accumulation, schedules, ...) inside a ``StatelessScope``, jitted once per set of
updated variables: the update of every variable is one XLA call in eager mode. This
module must never re-implement an update rule: Keras's code is the rule.
"""

from __future__ import annotations

import jax

from tapejax._src import lazy, recorder
from tapejax._src.tape import GradientTape
from tapejax._src.tensor import Pending, Tensor, wrap
from tapejax._src.variables import Variable

from ._backend import keras
from ._shared import keras_variable, tape_variable

__all__ = ["Optimizer", "optimizer_class"]


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


class Optimizer:
    """A Keras optimizer applied to tapejax Variables (``tf.keras.optimizers.Optimizer``).

    Construct it with the Keras optimizer's own arguments; ``keras_optimizer`` is the
    Keras object, and its other attributes (``get_config``, ``clipnorm``, ...) are
    reachable here too.
    """

    _keras_class = None

    def __init__(self, *args, **kwargs):
        if self._keras_class is None:
            raise TypeError("Optimizer wraps a Keras optimizer: use tapejax.keras.optimizers.X")
        self._adopt(self._keras_class(*_unwrap(args), **_unwrap(kwargs)))

    def _adopt(self, keras_optimizer) -> None:
        d = self.__dict__
        d["_keras"] = keras_optimizer
        d["_updates"] = {}
        d["_update_ops"] = {}  # the same updates as deferrable ops (``_deferred``)
        d["_state"] = None  # the optimizer's own Variables, once built

    @property
    def keras_optimizer(self):
        """The Keras optimizer this wraps."""
        return self._keras

    @property
    def _keras_object(self):
        return self._keras

    # -- state -----------------------------------------------------------------------------

    def build(self, var_list) -> None:
        """Creates the slot variables for ``var_list`` (tapejax Variables)."""
        opt = self._keras
        if not opt.built:
            kvars = [keras_variable(v) for v in var_list]
            with keras.name_scope(opt.name, caller=opt):
                opt.build(kvars)
            opt.built = True
        self._share_state()

    def _share_state(self) -> None:
        self.__dict__["_state"] = [tape_variable(v) for v in self._keras.variables]

    @property
    def variables(self) -> list:
        if self._state is None:
            self._share_state()
        return list(self._state)

    @property
    def iterations(self):
        return tape_variable(self._keras.iterations)

    @property
    def learning_rate(self):
        lr = self._keras._learning_rate
        if isinstance(lr, keras.Variable):
            return tape_variable(lr)
        return self._keras.learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self._keras.learning_rate = value

    # -- updates -----------------------------------------------------------------------

    def apply_gradients(self, grads_and_vars, name=None, **kwargs):
        """Applies ``(gradient, variable)`` pairs; ``None`` gradients are skipped.

        Returns the iteration count Variable. Raises Keras's ``ValueError("No gradients
        provided for any variable.")`` when every gradient is ``None``.
        """
        pairs = list(grads_and_vars)
        if not pairs:
            return self.iterations
        grads, variables = zip(*pairs)
        self.apply(grads, variables)
        return self.iterations

    def apply(self, grads, trainable_variables=None):
        """Keras's ``apply``: gradients for ``trainable_variables`` (or the built list)."""
        opt = self._keras
        if trainable_variables is None:
            if not opt.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first. "
                )
            kvars = list(opt._trainable_variables)
        else:
            trainable_variables = list(trainable_variables)
            for v in trainable_variables:
                if not _is_var(v):
                    raise TypeError(
                        f"apply_gradients expects tapejax Variables, got {type(v).__name__}: {v!r}"
                    )
            if not opt.built or self._state is None:
                self.build(trainable_variables)
            kvars = [keras_variable(v) for v in trainable_variables]
        grads = list(grads)
        if len(grads) == 0:
            return
        grads, kvars = opt._filter_empty_gradients(grads, kvars)
        key = tuple(id(v) for v in kvars)
        update = self._updates.get(key)
        if update is None:
            update = self._updates[key] = _jitted_update(opt, kvars)
        targets = [tape_variable(v) for v in kvars]
        state = self._state
        if self._deferred(key, update, grads, targets, state):
            return
        grad_values = [g._value if type(g) is Tensor else _as_array(g) for g in grads]
        var_values = [v._dense_read()._value for v in targets]
        state_values = [v._dense_read()._value for v in state]
        new_vars, new_state = update(state_values, grad_values, var_values)
        for v, value in zip(targets, new_vars):
            v._accessed()
            v._value = value
        for v, value in zip(state, new_state):
            v._accessed()
            v._value = value

    def _deferred(self, key, update, grads, targets, state) -> bool:
        """Defers the update with the gradient it applies (``lazy.record_after``): the
        training step is then one program. False when it must run now."""
        if recorder._state.recorders or not any(
            type(g) is Tensor and type(g._v) is Pending for g in grads
        ):
            return False
        if not all(type(g) is Tensor for g in grads) or not all(
            type(v) is Variable for v in (*targets, *state)
        ):
            return False
        op = self._update_ops.get(key)
        if op is None:
            op = self._update_ops[key] = _deferrable(update, len(state), len(grads))
        args = (*(wrap(v._val) for v in state), *grads, *(wrap(v._val) for v in targets))
        outs = lazy.record_after(op, (), args)
        if outs is None:
            return False
        for v, o in zip((*targets, *state), outs):
            v._accessed()
            v._val = o._v
        return True

    def scale_loss(self, loss):
        """The loss times the loss scale (Keras's ``scale_loss``), as a recorded op.

        A ``LossScaleOptimizer`` multiplies by its current ``dynamic_scale`` (its
        ``initial_scale`` before it is built); another optimizer by its
        ``loss_scale_factor``, or returns ``loss`` unchanged when that is ``None``.
        """
        import tapejax as tf

        opt = self._keras
        if isinstance(opt, keras.optimizers.LossScaleOptimizer):
            scale = tape_variable(opt.dynamic_scale) if opt.built else opt.initial_scale
        elif opt.loss_scale_factor is not None:
            scale = opt.loss_scale_factor
        else:
            return loss
        loss = tf.convert_to_tensor(loss)
        # Keras multiplies with its type promotion: a float16 loss times the float32
        # scale is float32.
        dtype = keras.backend.result_type(loss.dtype.name, "float32")
        return tf.cast(loss, dtype) * tf.cast(scale, dtype)

    def minimize(self, loss, var_list, tape=None):
        """Computes gradients of ``loss`` for ``var_list`` and applies them (TF Keras 2's).

        ``loss`` is a tensor (then ``tape`` must be the tape that recorded it) or a
        zero-argument callable; ``var_list`` a list or a callable returning one.
        """
        if not callable(loss) and tape is None:
            raise ValueError(
                f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, "
                f"tape={tape}."
            )
        if tape is None:
            tape = GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    # -- Keras's other attributes ---------------------------------------------------------

    def get_config(self) -> dict:
        return self._keras.get_config()

    @classmethod
    def from_config(cls, config, custom_objects=None):
        obj = cls.__new__(cls)
        obj._adopt(cls._keras_class.from_config(config, custom_objects=custom_objects))
        return obj

    def __getattr__(self, name):
        opt = self.__dict__.get("_keras")
        if opt is None or name.startswith("__"):
            raise AttributeError(name)
        value = getattr(opt, name)
        if isinstance(value, keras.Variable):
            return tape_variable(value)
        return value

    def __setattr__(self, name, value):
        if name.startswith("_") or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            setattr(self._keras, name, value)

    def __repr__(self) -> str:
        return f"<tapejax.keras.optimizers.{type(self).__name__} name={self._keras.name}>"


def _unwrap(tree):
    """tapejax wrappers of Keras objects (optimizers, layers, ...) in ``tree`` as the Keras ones."""
    if isinstance(tree, dict):
        return {k: _unwrap(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(_unwrap(x) for x in tree)
    keras_layer = tree.__dict__.get("_keras") if hasattr(tree, "__dict__") else None
    if keras_layer is not None and not isinstance(tree, Optimizer):
        return keras_layer
    return getattr(tree, "_keras_object", tree)


def _as_array(g):
    if _is_var(g):
        return g._dense_read()._value
    return jax.numpy.asarray(g)


def _jitted_update(opt, kvars):
    """Keras's ``apply`` for exactly ``kvars``, as one pure jitted function of values."""

    if isinstance(opt, keras.optimizers.LossScaleOptimizer):
        return _jitted_loss_scale_update(opt, kvars)

    def update(state_values, grads, var_values):
        mapping = list(zip(kvars, var_values)) + list(zip(opt.variables, state_values))
        with recorder.only(()), keras.StatelessScope(state_mapping=mapping) as scope:
            opt.apply(grads, kvars)
        new_vars = [scope.get_current_value(v) for v in kvars]
        new_state = [scope.get_current_value(v) for v in opt.variables]
        return new_vars, new_state

    return jax.jit(update)


def _jitted_loss_scale_update(opt, kvars):
    """``LossScaleOptimizer``'s update, through Keras's ``stateless_apply``: its ``apply``
    assigns variables inside ``ops.cond`` branches, which on JAX leaks the branches'
    tracers. ``stateless_apply`` takes the variables it was built on, in their order."""
    built = list(opt._trainable_variables)
    index = {id(v): i for i, v in enumerate(kvars)}
    if sorted(index) != sorted(id(v) for v in built):
        raise NotImplementedError(
            "tapejax.keras.optimizers.LossScaleOptimizer applies gradients to the variables "
            "it was built on, all of them: build a LossScaleOptimizer per variable list"
        )
    order = [index[id(v)] for v in built]
    position = {i: k for k, i in enumerate(order)}

    def update(state_values, grads, var_values):
        with recorder.only(()):
            new_built, new_state = opt.stateless_apply(
                list(state_values), [grads[i] for i in order], [var_values[i] for i in order]
            )
        return [new_built[position[i]] for i in range(len(kvars))], list(new_state)

    return jax.jit(update)


def _deferrable(update, n_state, n_grads) -> lazy.FnOp:
    """The jitted ``update`` as one op ``lazy.record_after`` can defer: flat arrays in and
    out (state, gradients, variables in; new variables, new state out)."""

    def flat(*arrays):
        state = list(arrays[:n_state])
        grads = list(arrays[n_state : n_state + n_grads])
        new_vars, new_state = update(state, grads, list(arrays[n_state + n_grads :]))
        return (*new_vars, *new_state)

    return lazy.FnOp(flat)


_classes: dict = {}


def optimizer_class(keras_class):
    """The tapejax wrapper class of a Keras optimizer class (made once, same name)."""
    cls = _classes.get(keras_class)
    if cls is None:
        cls = _classes[keras_class] = type(
            keras_class.__name__,
            (Optimizer,),
            {
                "_keras_class": keras_class,
                "__doc__": keras_class.__doc__,
                "__module__": "tapejax.keras.optimizers",
                "__qualname__": keras_class.__name__,
            },
        )
    return cls


def wrap_optimizer(keras_optimizer) -> Optimizer:
    cls = optimizer_class(type(keras_optimizer))
    obj = cls.__new__(cls)
    obj._adopt(keras_optimizer)
    return obj
