"""Keras losses, metrics, regularizers, initializers and activations made tapejax-callable.

Keras's own objects compute on JAX arrays. To be differentiated by a tape a loss, a
regularizer or an activation must be one recorded op, so each is wrapped with
``lift``: same name, constructor, config and numbers, with tapejax Tensors in and out.
Metrics are stateful and not differentiated: their Keras state updates eagerly from
the arrays inside the Tensors, and ``result()`` is a Tensor. Initializers return
Tensors. Each wrapper keeps the Keras object as ``_keras_object``, which is what a
Keras layer receives when the wrapper is passed to it. Nothing here computes a loss
or a metric itself.
"""

from __future__ import annotations

import jax

from tapejax._src.interop import lift
from tapejax._src.tensor import Tensor, wrap

from ._backend import keras

__all__ = [
    "lifted_function",
    "callable_class",
    "namespace",
    "Loss",
]


def _arrays(tree):
    """Tensors and Variables as JAX arrays (for Keras's stateful objects)."""

    def leaf(x):
        if type(x) is Tensor:
            return x._value
        if getattr(x, "_is_variable", False):
            return x._dense_read()._value
        return x

    return jax.tree_util.tree_map(
        leaf,
        tree,
        is_leaf=lambda x: type(x) is Tensor or getattr(x, "_is_variable", False),
    )


def _wrap_out(tree):
    return jax.tree_util.tree_map(lambda x: wrap(x) if isinstance(x, jax.Array) else x, tree)


def lifted_function(keras_fn, module: str):
    """A Keras function of arrays as a recorded tapejax op (same name and doc)."""
    lifted = lift(keras_fn)
    lifted.__module__ = module
    lifted._keras_object = keras_fn
    return lifted


class _Wrapper:
    """A Keras object (``_keras_object``) seen from tapejax."""

    _keras_class = None
    _kind = "differentiable"  # "differentiable" | "metric" | "initializer"

    def __init__(self, *args, **kwargs):
        if self._keras_class is None:
            raise TypeError(f"{type(self).__name__} wraps a Keras class: use a concrete class")
        self._adopt(self._keras_class(*_unwrap_all(args), **_unwrap_all(kwargs)))

    def _adopt(self, keras_object):
        self.__dict__["_keras_object"] = keras_object
        if self._kind == "differentiable":
            self.__dict__["_lifted"] = lift(_call_of(keras_object))

    def __call__(self, *args, **kwargs):
        kind = self._kind
        if kind == "differentiable":
            return self._lifted(*args, **kwargs)
        if kind == "initializer":
            return wrap(self._keras_object(*args, **kwargs))
        # A metric: update its Keras state, return the result as a Tensor.
        return _wrap_out(self._keras_object(*_arrays(args), **_arrays(kwargs)))

    def get_config(self):
        return self._keras_object.get_config()

    @classmethod
    def from_config(cls, config):
        obj = cls.__new__(cls)
        obj._adopt(cls._keras_class.from_config(config))
        return obj

    def __getattr__(self, name):
        obj = self.__dict__.get("_keras_object")
        if obj is None or name.startswith("__"):
            raise AttributeError(name)
        value = getattr(obj, name)
        if self._kind == "metric" and callable(value) and name in _METRIC_METHODS:
            return _metric_method(value)
        return value

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._keras_object, name, value)

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} (Keras {self._keras_object!r})>"


_METRIC_METHODS = frozenset({"update_state", "result", "reset_state", "reset_states"})


def _metric_method(method):
    def call(*args, **kwargs):
        return _wrap_out(method(*_arrays(args), **_arrays(kwargs)))

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


def _call_of(keras_object):
    def call(*args, **kwargs):
        return keras_object(*args, **kwargs)

    call.__name__ = type(keras_object).__name__
    return call


def _unwrap_all(tree):
    if isinstance(tree, dict):
        return {k: _unwrap_all(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        return type(tree)(_unwrap_all(x) for x in tree)
    obj = getattr(tree, "_keras_object", None)
    return tree if obj is None else obj


_classes: dict = {}


def callable_class(keras_class, module: str, kind: str):
    """The tapejax wrapper class of a Keras loss/metric/regularizer/initializer class."""
    key = (keras_class, kind)
    cls = _classes.get(key)
    if cls is None:
        cls = _classes[key] = type(
            keras_class.__name__,
            (_Wrapper,),
            {
                "_keras_class": keras_class,
                "_kind": kind,
                "__doc__": keras_class.__doc__,
                "__module__": module,
                "__qualname__": keras_class.__name__,
            },
        )
    return cls


def wrap_object(keras_object, module: str, kind: str):
    cls = callable_class(type(keras_object), module, kind)
    obj = cls.__new__(cls)
    obj._adopt(keras_object)
    return obj


def namespace(keras_module, module: str, kind: str, base=None, skip=frozenset()) -> dict:
    """Wrappers for every public class (subclass of ``base``) and function of a Keras module.

    Functions are lifted to recorded ops; classes get wrapper classes of ``kind``.
    """
    out = {}
    for name in dir(keras_module):
        if name.startswith("_") or name in skip or name in ("get", "serialize", "deserialize"):
            continue
        obj = getattr(keras_module, name)
        if isinstance(obj, type):
            if base is None or issubclass(obj, base):
                out[name] = callable_class(obj, module, kind)
        elif callable(obj):
            out[name] = lifted_function(obj, module)
    return out


class Loss:
    """Base class for losses written with tapejax ops (``tf.keras.losses.Loss``).

    Subclasses define ``call(y_true, y_pred)`` returning per-sample losses; calling the
    loss applies ``sample_weight`` and the ``reduction`` (``"sum_over_batch_size"``,
    ``"sum"``, ``"mean"`` or ``None``/``"none"``) with tapejax ops, as Keras does.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in ("sum_over_batch_size", "sum", "mean", "none", None):
            raise ValueError(
                'Invalid value for argument `reduction`. Expected one of (None, "none", "sum", '
                f'"sum_over_batch_size", "mean", "mean_with_sample_weight"). Received: '
                f"reduction={reduction}"
            )
        self.name = name or keras.src.utils.naming.to_snake_case(type(self).__name__)
        self.reduction = reduction
        self.dtype = dtype or "float32"

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        import tapejax as tf

        # As Keras's Loss: both converted to the loss's dtype (float32 under a mixed
        # policy), so a float16 prediction is compared in float32.
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self.dtype)
        y_true = tf.cast(tf.convert_to_tensor(y_true), self.dtype)
        losses = tf.cast(self.call(y_true, y_pred), self.dtype)
        if sample_weight is not None:
            losses = losses * tf.cast(sample_weight, losses.dtype)
        if self.reduction in (None, "none"):
            return losses
        total = tf.reduce_sum(losses)
        if self.reduction == "sum":
            return total
        return total / tf.cast(tf.size(losses), total.dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
