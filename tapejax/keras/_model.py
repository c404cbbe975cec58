"""``Model``, ``Sequential`` and the functional API for tapejax Keras layers.

``Model`` is a tapejax ``Layer`` with Keras's training API (``_training.Trainer``).
``Model(inputs, outputs)`` on ``keras.Input`` tensors makes a ``Functional`` model: a
real Keras functional model bridged like a layer, whose whole graph is one recorded op.
``Sequential`` calls its layers in order, each one its own op (a tapejax layer may sit
between Keras layers). This module must never run a layer's math itself.
"""

from __future__ import annotations

import jax
import numpy as np

from tapejax._src import recorder

from ._backend import keras
from ._bridged import KerasLayer, unwrap, wrap_layer
from ._layer import Layer, _is_tensor_like
from ._training import Trainer

__all__ = ["Model", "Functional", "Sequential"]

_KerasTensor = keras.KerasTensor


def _is_functional_call(args, kwargs) -> bool:
    if "inputs" in kwargs and "outputs" in kwargs:
        return True
    if len(args) >= 2:
        leaves = jax.tree_util.tree_leaves(args[:2], is_leaf=_is_tensor_like)
        return bool(leaves) and all(isinstance(x, _KerasTensor) for x in leaves)
    return False


class Model(Trainer, Layer):
    """A layer with Keras's training API (``tf.keras.Model``).

    Subclass it (layers as attributes, ``call`` with tapejax ops), or call it as
    ``Model(inputs, outputs)`` on ``keras.Input`` tensors for a functional model.

    Example:
        >>> import numpy as np, tapejax as tf
        >>> from tapejax import keras
        >>> class MLP(keras.Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = keras.layers.Dense(4, activation="relu")
        ...         self.out = keras.layers.Dense(1)
        ...     def call(self, x):
        ...         return self.out(self.hidden(x))
        >>> model = MLP()
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> x, y = np.ones((8, 3), np.float32), np.zeros((8, 1), np.float32)
        >>> len(model.fit(x, y, epochs=2, verbose=0).history["loss"])
        2
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and _is_functional_call(args, kwargs):
            return object.__new__(Functional)
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__ takes keyword arguments only (trainable, "
                f"name, dtype), got positional {args!r}"
            )
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self)

    def get_layer(self, name=None, index=None):
        """A layer by ``name`` or ``index`` (Keras's errors when neither or not found)."""
        if index is not None and name is not None:
            raise ValueError(
                f"Provide only a layer name or a layer index. Received: index={index}, name={name}."
            )
        layers = self.layers
        if index is not None:
            if len(layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(layers)} layers."
                )
            return layers[index]
        if name is not None:
            for layer in layers:
                if layer.name == name:
                    return layer
            raise ValueError(
                f"No such layer: {name}. Existing layers are: {[x.name for x in layers]}."
            )
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def summary(self, line_length=None, positions=None, print_fn=None, **kwargs) -> None:
        """Prints each layer's name, type and parameter count, then the totals."""
        print_fn = print_fn or print
        rows = [
            (f"{layer.name} ({type(layer).__name__})", layer.count_params())
            for layer in self.layers
        ]
        width = max([len(r[0]) for r in rows] + [20]) + 2
        lines = [f'Model: "{self.name}"', "-" * (width + 12)]
        lines.append(f"{'Layer (type)':<{width}}{'Param #':>12}")
        lines.append("=" * (width + 12))
        for text, count in rows:
            lines.append(f"{text:<{width}}{count:>12,}")
        trainable = sum(int(np.prod(v.shape.as_list())) for v in self.trainable_weights)
        non_trainable = sum(int(np.prod(v.shape.as_list())) for v in self.non_trainable_weights)
        lines.append("=" * (width + 12))
        lines.append(f"Total params: {trainable + non_trainable:,}")
        lines.append(f"Trainable params: {trainable:,}")
        lines.append(f"Non-trainable params: {non_trainable:,}")
        print_fn("\n".join(lines))


class Functional(KerasLayer, Model):
    """A Keras functional model (``Model(inputs, outputs)``), bridged as one op per call."""

    def __init__(self, inputs=None, outputs=None, name=None, **kwargs):
        model = keras.Model(inputs=inputs, outputs=unwrap(outputs), name=name, **kwargs)
        self._adopt(model)
        Trainer.__init__(self)

    def summary(self, *args, **kwargs) -> None:
        self._keras.summary(*args, **kwargs)

    @property
    def inputs(self):
        return self._keras.inputs

    @property
    def outputs(self):
        return self._keras.outputs

    @property
    def output_names(self) -> list:
        """The output layers' names: how ``compile`` matches a dict of losses or metrics."""
        return self._keras.output_names

    def save_weights(self, filepath, overwrite=True) -> None:
        """Keras's own weights file (readable by TensorFlow's Keras for the same model)."""
        self._keras.save_weights(filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs) -> None:
        self._keras.load_weights(filepath, skip_mismatch=skip_mismatch, **kwargs)


class Sequential(Model):
    """A linear stack of layers (``tf.keras.Sequential``).

    Example:
        >>> import tapejax as tf
        >>> from tapejax import keras
        >>> model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
        >>> model(tf.ones([4, 3])).shape.as_list(), len(model.weights)
        ([4, 2], 2)
    """

    def __init__(self, layers=None, trainable=True, name=None):
        Model.__init__(self, trainable=trainable, name=name)
        self._stack = []
        self._input_spec = None  # (shape, dtype) once known from keras.Input/InputLayer
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_from_input()

    def add(self, layer, rebuild=True) -> None:
        """Appends a layer (or sets the input, for ``keras.Input`` / ``InputLayer``)."""
        if isinstance(layer, _KerasTensor):
            self._set_input(layer.shape, layer.dtype)
            return
        if isinstance(layer, keras.layers.Layer):
            layer = wrap_layer(layer)
        if isinstance(layer, KerasLayer) and isinstance(layer._keras, keras.layers.InputLayer):
            self._set_input(layer._keras.batch_shape, layer._keras.dtype)
            return
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only instances of `keras.Layer` can be added to a Sequential model. "
                f"Received: {layer} (of type {type(layer)})"
            )
        if not self._stack and self._input_spec is None:
            declared = _declared_input_shape(layer)
            if declared is not None:
                self._set_input(declared, "float32")
        self._stack.append(layer)
        self._tracked.append(layer)
        object.__setattr__(self, "built", False)
        if rebuild:
            self._maybe_build_from_input()

    def pop(self, rebuild=True):
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        self._tracked.remove(layer)
        return layer

    def _set_input(self, shape, dtype) -> None:
        self._input_spec = (tuple(shape), dtype)

    def _maybe_build_from_input(self) -> None:
        if self._input_spec is not None and self._stack:
            self.build(self._input_spec[0])

    @property
    def layers(self) -> list:
        return list(self._stack)

    def build(self, input_shape=None) -> None:
        """Builds every layer for ``input_shape`` (symbolically for Keras's own layers)."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        dtype = self._input_spec[1] if self._input_spec else "float32"
        if self._input_spec is None:
            self._input_spec = (tuple(input_shape), dtype)
        if all(isinstance(layer, KerasLayer) for layer in self._stack):
            x = _KerasTensor(tuple(input_shape), dtype=dtype)
            for layer in self._stack:
                x = layer._keras(x)
        else:
            shape = tuple(1 if d is None else d for d in input_shape)
            with recorder.paused():
                self.call(np.zeros(shape, dtype), training=False)
        object.__setattr__(self, "built", True)

    def _maybe_build(self, args) -> None:
        if self._input_spec is None and args:
            leaves = jax.tree_util.tree_leaves(args[0], is_leaf=_is_tensor_like)
            if len(leaves) == 1:
                x = leaves[0]
                dtype = str(getattr(x, "_value", np.asarray(x)).dtype)
                self._input_spec = ((None,) + tuple(np.shape(x))[1:], dtype)
        object.__setattr__(self, "built", True)

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self._stack:
            x = layer(x) if training is None else layer(x, training=training)
        return x

    def _as_keras(self):
        """This stack as a Keras ``Sequential`` of the same (shared) layers, or None."""
        if not self._stack or not all(isinstance(x, KerasLayer) for x in self._stack):
            return None
        layers = [x._keras for x in self._stack]
        if self._input_spec is not None:
            shape, dtype = self._input_spec
            layers.insert(0, keras.Input(batch_shape=shape, dtype=dtype))
        return keras.Sequential(layers, name=self.name)

    def save_weights(self, filepath, overwrite=True) -> None:
        """Keras's own weights file when every layer is a Keras layer (readable by
        TensorFlow's Keras for the same stack), else the weights in order."""
        model = self._as_keras()
        if model is None:
            return Model.save_weights(self, filepath, overwrite=overwrite)
        model.save_weights(filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs) -> None:
        model = self._as_keras()
        if model is None:
            return Model.load_weights(self, filepath, skip_mismatch=skip_mismatch)
        model.load_weights(filepath, skip_mismatch=skip_mismatch, **kwargs)

    def get_config(self) -> dict:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": [
                {"class_name": type(layer).__name__, "config": layer.get_config()}
                for layer in self._stack
            ],
        }


def _declared_input_shape(layer):
    if isinstance(layer, KerasLayer):
        shape = getattr(layer._keras, "_input_shape_arg", None)
        return None if shape is None else (None,) + tuple(shape)
    return getattr(layer, "_declared_input_shape", None)
