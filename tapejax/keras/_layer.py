"""``tapejax.keras.Layer``: tapejax's own base class for Keras-style layers and models.

``Layer`` sits on ``tapejax.Module``: a subclass's ``call`` runs tapejax ops, so Tensors
flow through the tape. It follows Keras's layer protocol: ``build(input_shape)`` on the
first call, ``add_weight``, ``add_loss``/``losses``, the ``training`` argument passed
down to nested layers (``training_context``), and Keras's variable order (own weights,
then sublayers in the order they were assigned). Keras's own layers are bridged onto
it in ``_bridged.py``. This module must never import the bridge.
"""

from __future__ import annotations

import inspect
import threading

import jax
import numpy as np

from tapejax._src.conversion import convert_to_tensor
from tapejax._src.interop import lift
from tapejax._src.module import Module
from tapejax._src.tensor import Tensor
from tapejax._src.variables import Variable

from ._backend import keras
from ._call import is_symbolic

__all__ = ["Layer", "training_context"]


_naming = keras.src.utils.naming


class _Context(threading.local):
    def __init__(self):
        self.training = None  # the training flag an outer layer's call was given
        self.depth = 0


_context = _Context()


class training_context:  # noqa: N801 - used like a function
    """Runs a block as if inside a layer called with ``training`` (``None``: unchanged)."""

    def __init__(self, training):
        self._training = training

    def __enter__(self):
        self._saved = _context.training
        if self._training is not None:
            _context.training = bool(self._training)

    def __exit__(self, *exc):
        _context.training = self._saved


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _is_tensor_like(x) -> bool:
    """Tensors and Variables are leaves (flattening them would warn under a tape)."""
    return type(x) is Tensor or _is_var(x)


def _unique(items):
    seen, out = set(), []
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


class Layer(Module):
    """Base class of tapejax Keras layers and models (``tf.keras.layers.Layer``).

    Subclass it, create weights with ``add_weight`` in ``build(input_shape)`` (or
    ``__init__``), hold other layers as attributes, and write ``call`` with tapejax ops.

    Example:
        >>> import tapejax as tf
        >>> from tapejax import keras
        >>> class Scale(keras.layers.Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
        ...     def call(self, x):
        ...         return x * self.w
        >>> layer = Scale()
        >>> with tf.GradientTape() as tape:
        ...     y = tf.reduce_sum(layer(tf.constant([[1.0, 2.0]])))
        >>> [float(g) for g in tape.gradient(y, layer.trainable_variables)[0]]
        [1.0, 2.0]
    """

    def __init__(self, trainable=True, name=None, dtype=None, autocast=True, **kwargs):
        allowed = {"input_shape", "input_dim", "batch_input_shape", "batch_size"}
        unknown = set(kwargs) - allowed
        if unknown:
            raise ValueError(
                f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                f"{ {k: kwargs[k] for k in sorted(unknown)} }"
            )
        object.__setattr__(self, "_tracked", [])
        object.__setattr__(self, "_own_losses", [])
        object.__setattr__(self, "_regularized", [])
        object.__setattr__(self, "_trainable", bool(trainable))
        object.__setattr__(self, "built", False)
        self._dtype = "float32" if dtype is None else keras.backend.standardize_dtype(dtype)
        # As Keras's layers: without a dtype, the global policy when the layer is made
        # (``compile`` wraps a mixed_float16 model's optimizer in loss scaling).
        object.__setattr__(
            self, "_dtype_policy", keras.config.dtype_policy() if dtype is None else None
        )
        if name is None:
            name = _naming.auto_name(type(self).__name__)
        Module.__init__(self, name)
        shape = kwargs.get("batch_input_shape")
        if shape is None and "input_shape" in kwargs:
            shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
        if shape is None and "input_dim" in kwargs:
            shape = (kwargs.get("batch_size"), kwargs["input_dim"])
        self._declared_input_shape = None if shape is None else tuple(shape)

    # -- tracking ------------------------------------------------------------------------

    def __setattr__(self, name, value):
        tracked = self.__dict__.get("_tracked")
        if tracked is not None and name != "_tracked":
            for leaf in _flat_objects(value):
                if (isinstance(leaf, Layer) and leaf is not self) or _is_var(leaf):
                    if not any(leaf is t for t in tracked):
                        tracked.append(leaf)
        object.__setattr__(self, name, value)

    @property
    def _layers(self) -> list:
        return [t for t in self._tracked if isinstance(t, Layer)]

    def _own_weights(self) -> list:
        own = [t for t in self._tracked if _is_var(t)]
        return [v for v in own if v.trainable] + [v for v in own if not v.trainable]

    # -- Keras's variable views ----------------------------------------------------------

    @property
    def variables(self) -> list:
        out = list(self._own_weights())
        for layer in self._layers:
            out.extend(layer.variables)
        return _unique(out)

    @property
    def weights(self) -> list:
        out = list(self._own_weights())
        for layer in self._layers:
            out.extend(layer.weights)
        return _unique(out)

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable] if self.trainable else []

    @property
    def non_trainable_variables(self) -> list:
        if not self.trainable:
            return self.variables
        return [v for v in self.variables if not v.trainable]

    @property
    def trainable_weights(self) -> list:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value) -> None:
        object.__setattr__(self, "_trainable", bool(value))
        for layer in self._layers:
            layer.trainable = value

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def dtype_policy(self):
        """Keras's ``DTypePolicy`` of the layer: the global one when it was made, or its
        ``dtype``'s."""
        return self._dtype_policy or keras.dtype_policies.get(self._dtype)

    @property
    def layers(self) -> list:
        return self._layers

    def get_weights(self) -> list:
        return [np.asarray(v) for v in self.weights]

    def set_weights(self, weights) -> None:
        """Sets ``self.weights`` from a list of arrays (Keras's checks and messages)."""
        own = self.weights
        if len(own) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self.name}' with a weight "
                f"list of length {len(weights)}, but the layer was expecting {len(own)} "
                "weights."
            )
        for v, w in zip(own, weights):
            w = np.asarray(w)
            if tuple(v.shape) != w.shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(v.shape)} is not compatible "
                    f"with provided weight shape {w.shape}."
                )
            v.assign(w.astype(v.dtype.as_numpy_dtype))

    def count_params(self) -> int:
        return int(sum(np.prod(v.shape.as_list(), dtype=np.int64) for v in self.weights))

    # -- weights and losses --------------------------------------------------------------

    def add_weight(
        self,
        shape=None,
        initializer=None,
        dtype=None,
        trainable=True,
        autocast=True,
        regularizer=None,
        constraint=None,
        aggregation="none",
        overwrite_with_gradient=False,
        name=None,
    ) -> Variable:
        """Creates a tapejax Variable owned by this layer (Keras's ``add_weight``)."""
        shape = () if shape is None else tuple(shape)
        dtype = keras.backend.standardize_dtype(dtype or self._dtype)
        if initializer is None:
            floating = "float" in dtype
            initializer = "glorot_uniform" if floating else "zeros"
        initializer = keras.initializers.get(initializer)
        value = initializer(shape, dtype=dtype)
        name = name or _naming.auto_name("variable")
        v = Variable(
            np.asarray(value),
            trainable=trainable,
            name=f"{self._scope_name}{name}/",
            constraint=keras.constraints.get(constraint),
        )
        if regularizer is not None:
            self._regularized.append((v, _lifted_regularizer(keras.regularizers.get(regularizer))))
        self._tracked.append(v)
        return v

    add_variable = add_weight

    def add_loss(self, loss) -> None:
        """Adds a scalar loss from ``call`` (collected in ``losses``)."""
        for x in jax.tree_util.tree_leaves(loss, is_leaf=_is_tensor_like):
            self._own_losses.append(x if type(x) is Tensor else convert_to_tensor(x))

    @property
    def losses(self) -> list:
        """Losses from ``add_loss`` in the last call, then weight regularization, per layer."""
        out = list(self._own_losses)
        for v, reg in self._regularized:
            out.append(reg(v))
        for layer in self._layers:
            out.extend(layer.losses)
        return out

    def _clear_losses(self) -> None:
        self._own_losses.clear()
        for layer in self._layers:
            layer._clear_losses()

    # -- calling -------------------------------------------------------------------------

    def build(self, input_shape) -> None:
        """Creates the layer's weights; called once, before the first ``call``."""
        object.__setattr__(self, "built", True)

    def call(self, *args, **kwargs):
        raise NotImplementedError(
            f"Layer {type(self).__name__} does not have a `call()` method implemented."
        )

    def _call_takes_training(self) -> bool:
        cls = type(self)
        cached = cls.__dict__.get("_tapejax_takes_training")
        if cached is None:
            params = inspect.signature(self.call).parameters
            cached = "training" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
            type.__setattr__(cls, "_tapejax_takes_training", cached)
        return cached

    def _maybe_build(self, args) -> None:
        if self.built:
            return
        first = args[0] if args else None
        shape = None
        if first is not None:
            leaves = jax.tree_util.tree_leaves(first, is_leaf=_is_tensor_like)
            shapes = [tuple(np.shape(x)) for x in leaves]
            shape = shapes[0] if len(shapes) == 1 else shapes
        with self.name_scope:
            self.build(shape)
        object.__setattr__(self, "built", True)

    def __call__(self, *args, **kwargs):
        if is_symbolic(args, kwargs):
            raise NotImplementedError(
                f"{type(self).__name__} is a tapejax layer with its own `call`: it cannot be "
                "called on `keras.Input` (the functional API works with Keras's built-in "
                "layers only). Subclass tapejax.keras.Model instead."
            )
        training = kwargs.get("training")
        if training is None:
            training = _context.training
            if training is not None and self._call_takes_training():
                kwargs["training"] = training
        elif not self._call_takes_training():
            kwargs.pop("training")
        self._maybe_build(args)
        saved = _context.training
        if training is not None:
            _context.training = bool(training)
        if _context.depth == 0:
            self._clear_losses()
        _context.depth += 1
        try:
            return self.call(*args, **kwargs)
        finally:
            _context.depth -= 1
            _context.training = saved

    # -- config ----------------------------------------------------------------------------

    def get_config(self) -> dict:
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _flat_objects(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat_objects(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _flat_objects(v)
    else:
        yield value


def _lifted_regularizer(regularizer):
    @lift
    def penalty(x):
        return regularizer(x)

    return penalty
