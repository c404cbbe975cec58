"""The bridge: each Keras layer class gets a tapejax ``Layer`` class of the same name.

``KerasLayer`` wraps one real Keras layer: its call on Tensors is one recorded op
(``_call.KerasCall``), its weights are tapejax Variables shared with Keras
(``_shared``), and everything else (``get_config``, ``units``, ``compute_output_shape``,
...) is the Keras layer's own. ``bridged_class`` makes the wrapper class of a Keras
class, ``wrap_layer`` the wrapper of a Keras layer instance, ``unwrap`` turns wrappers
back into Keras objects where Keras receives them. This module must never compute a
layer's math itself: Keras does.
"""

from __future__ import annotations

from ._backend import keras
from ._call import KerasCall, is_symbolic
from ._layer import Layer, _context
from ._shared import tape_variable

__all__ = ["KerasLayer", "bridged_class", "wrap_layer", "unwrap"]


def unwrap(tree):
    """Replaces tapejax wrappers of Keras objects in ``tree`` by the Keras objects."""
    if isinstance(tree, KerasLayer):
        return tree._keras
    keras_object = getattr(tree, "_keras_object", None)
    if keras_object is not None:
        return keras_object
    if isinstance(tree, (list, tuple)):
        return type(tree)(unwrap(x) for x in tree) if not hasattr(tree, "_fields") else tree
    if isinstance(tree, dict):
        return {k: unwrap(v) for k, v in tree.items()}
    return tree


def _wrap_value(value):
    """A Keras object seen through a wrapper: Variables and layers as tapejax ones."""
    if isinstance(value, keras.Variable):
        return tape_variable(value)
    if isinstance(value, keras.layers.Layer):
        return wrap_layer(value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(x, (keras.Variable, keras.layers.Layer)) for x in value)
    ):
        return [_wrap_value(x) for x in value]
    return value


class KerasLayer(Layer):
    """A real Keras layer used from tapejax: one recorded op per call.

    The Keras layer itself is ``keras_layer``; attributes not defined here (``units``,
    ``kernel``, ``get_config``, ...) are the Keras layer's, with its Variables shown as
    the tapejax Variables that hold their values.
    """

    _keras_class = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        overridden = [name for name in ("call", "build") if name in cls.__dict__]
        if overridden:
            # The bridge calls the Keras layer itself, so an override would be ignored.
            raise NotImplementedError(
                f"{cls.__name__} overrides {', '.join(overridden)} of the Keras layer "
                f"{cls.__mro__[1].__name__}, which tapejax.keras runs as Keras's own layer: "
                "the override would be ignored. Subclass tapejax.keras.layers.Layer instead "
                "and hold the Keras layer as an attribute."
            )

    def __init__(self, *args, **kwargs):
        if self._keras_class is None:
            raise TypeError("KerasLayer wraps a Keras layer class: use tapejax.keras.layers.X")
        self._adopt(self._keras_class(*unwrap(args), **unwrap(kwargs)))

    def _adopt(self, keras_layer) -> None:
        d = self.__dict__
        d["_keras"] = keras_layer
        d["_caller"] = KerasCall(keras_layer)
        d["_last_losses"] = []
        d["_tracked"] = []
        d["_own_losses"] = []
        d["_regularized"] = []
        d["_name"] = keras_layer.name
        d["_scope_name"] = keras_layer.name + "/"
        keras_layer.__dict__["_tapejax_wrapper"] = self

    @property
    def keras_layer(self):
        """The Keras layer this wraps."""
        return self._keras

    @property
    def name(self) -> str:
        return self._keras.name

    @property
    def built(self) -> bool:
        return self._keras.built

    @property
    def trainable(self) -> bool:
        return self._keras.trainable

    @trainable.setter
    def trainable(self, value) -> None:
        self._keras.trainable = value

    @property
    def dtype(self):
        return self._keras.dtype

    @property
    def variables(self) -> list:
        return [tape_variable(v) for v in self._keras.variables]

    @property
    def weights(self) -> list:
        return [tape_variable(v) for v in self._keras.weights]

    @property
    def trainable_variables(self) -> list:
        return [tape_variable(v) for v in self._keras.trainable_variables]

    @property
    def non_trainable_variables(self) -> list:
        return [tape_variable(v) for v in self._keras.non_trainable_variables]

    @property
    def trainable_weights(self) -> list:
        return [tape_variable(v) for v in self._keras.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        return [tape_variable(v) for v in self._keras.non_trainable_weights]

    @property
    def layers(self) -> list:
        return [wrap_layer(x) for x in getattr(self._keras, "layers", [])]

    @property
    def _layers(self) -> list:
        return []

    @property
    def losses(self) -> list:
        return list(self._last_losses)

    def _clear_losses(self) -> None:
        self._last_losses = []

    def build(self, input_shape=None) -> None:
        self._keras.build(input_shape)

    def count_params(self) -> int:
        return self._keras.count_params()

    def get_config(self) -> dict:
        return self._keras.get_config()

    @classmethod
    def from_config(cls, config):
        obj = cls.__new__(cls)
        obj._adopt(cls._keras_class.from_config(config))
        return obj

    def __call__(self, *args, **kwargs):
        if is_symbolic(args, kwargs):
            return self._keras(*unwrap(args), **unwrap(kwargs))
        if kwargs.get("training") is None and _context.training is not None:
            kwargs["training"] = _context.training
        outputs, losses = self._caller(args, kwargs)
        self.__dict__["_last_losses"] = losses
        return outputs

    def __getattr__(self, name):
        keras_layer = self.__dict__.get("_keras")
        if keras_layer is None or name.startswith("__"):
            raise AttributeError(name)
        return _wrap_value(getattr(keras_layer, name))

    def __setattr__(self, name, value):
        if name.startswith("_") or name in self.__dict__ or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            setattr(self._keras, name, unwrap(value))

    def __repr__(self) -> str:
        return f"<tapejax.keras.layers.{type(self).__name__} name={self.name}, built={self.built}>"


_classes: dict = {}


def bridged_class(keras_class):
    """The tapejax wrapper class of a Keras layer class (made once, same name)."""
    cls = _classes.get(keras_class)
    if cls is None:
        cls = _classes[keras_class] = type(
            keras_class.__name__,
            (KerasLayer,),
            {
                "_keras_class": keras_class,
                "__doc__": keras_class.__doc__,
                "__module__": "tapejax.keras.layers",
                "__qualname__": keras_class.__name__,
            },
        )
    return cls


def wrap_layer(keras_layer) -> KerasLayer:
    """The tapejax wrapper of a Keras layer instance (the same one each time)."""
    wrapper = keras_layer.__dict__.get("_tapejax_wrapper")
    if wrapper is None:
        cls = bridged_class(type(keras_layer))
        wrapper = cls.__new__(cls)
        wrapper._adopt(keras_layer)
    return wrapper
