"""One storage for each weight: a tapejax ``Variable``, with the Keras variable a view of it.

A Keras variable that tapejax touches (a layer's weight, an optimizer's slot) has its
value moved into a tapejax ``Variable``; the Keras variable's class is switched to a
subclass whose ``_value`` reads and writes that Variable's array. So the array is held
once, Keras code (``get_weights``, ``set_weights``, ``summary``, saving) sees current
values, tapes see ordinary Variable reads, and ``tapejax.function`` binds the Variable
to a tracer exactly as for any other Variable. This module must never copy a value
into a second place.
"""

from __future__ import annotations

import weakref

import numpy as np

from tapejax._src.variables import Variable

from ._backend import keras

__all__ = ["tape_variable", "keras_variable", "is_shared"]

_classes: dict = {}
# tapejax Variable id -> its Keras view. Weak: the view lives as long as a layer or an
# optimizer holds it; the view holds the Variable.
_views: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _get(self):
    return self.__dict__["_tapejax_variable"]._value


def _set(self, value):
    self.__dict__["_tapejax_variable"]._value = value


def _shared_class(cls):
    shared = _classes.get(cls)
    if shared is None:
        shared = _classes[cls] = type(
            cls.__name__,
            (cls,),
            {
                "_value": property(_get, _set),
                "__module__": cls.__module__,
                "__doc__": cls.__doc__,
            },
        )
    return shared


def is_shared(kv) -> bool:
    return "_tapejax_variable" in kv.__dict__


def tape_variable(kv) -> Variable:
    """The tapejax Variable holding Keras variable ``kv``'s value (made on first use)."""
    tv = kv.__dict__.get("_tapejax_variable")
    if tv is not None:
        return tv
    value = kv.__dict__.get("_value")
    if value is None:
        raise ValueError(
            f"The Keras variable {kv.path!r} has no value yet (it was created inside a "
            "stateless scope); build the layer before calling it with tapejax tensors."
        )
    tv = Variable(value, trainable=kv.trainable, name=kv.path + "/")
    del kv.__dict__["_value"]
    kv.__dict__["_tapejax_variable"] = tv
    kv.__class__ = _shared_class(type(kv))
    _views[tv._id] = kv
    return tv


def keras_variable(tv: Variable):
    """The Keras view of tapejax Variable ``tv`` (made on first use, sharing its array)."""
    kv = _views.get(tv._id)
    if kv is not None:
        return kv
    base = tv.name.rsplit(":", 1)[0].replace("/", "_") or "variable"
    kv = keras.Variable(
        np.zeros((), tv._v.dtype),  # a placeholder value, replaced below
        dtype=str(tv._v.dtype),
        trainable=tv.trainable,
        name=base,
    )
    kv._shape = tuple(tv._v.shape)
    kv._ndim = len(kv._shape)
    del kv.__dict__["_value"]
    kv.__dict__["_tapejax_variable"] = tv
    kv.__class__ = _shared_class(type(kv))
    _views[tv._id] = kv
    return kv
