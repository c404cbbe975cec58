"""DLPack exchange (``tf.experimental.dlpack``): a Tensor's buffer handed to another
framework, or another framework's buffer taken as a Tensor, without a copy, through
JAX's own DLPack support. A capsule is consumed once, as DLPack requires. This module
never copies a buffer itself.
"""

from __future__ import annotations

import ctypes
import datetime

import jax.dlpack

from .errors import InvalidArgumentError
from .tensor import Tensor, wrap

__all__ = ["to_dlpack", "from_dlpack"]

_CAPSULE_NAME = b"dltensor"

_pythonapi = ctypes.pythonapi
_pythonapi.PyCapsule_IsValid.restype = ctypes.c_int
_pythonapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
_pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
# Python < 3.13 does not name the capsule type; the datetime module's C API is one.
_CAPSULE_TYPE = type(datetime.datetime_CAPI)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLTensorHead(ctypes.Structure):
    # The start of DLPack's ``DLTensor`` (the first member of ``DLManagedTensor``).
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice)]


class _Capsule:
    """A DLPack capsule dressed as an array-API producer, which ``jax.dlpack.from_dlpack``
    takes (JAX no longer takes bare capsules)."""

    def __init__(self, capsule):
        self._capsule = capsule
        head = _DLTensorHead.from_address(_pythonapi.PyCapsule_GetPointer(capsule, _CAPSULE_NAME))
        self._device = (head.device.device_type, head.device.device_id)

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def to_dlpack(tf_tensor):
    """A DLPack capsule sharing ``tf_tensor``'s buffer (``tf.experimental.dlpack.to_dlpack``).

    The capsule may be consumed once, by any DLPack consumer (``from_dlpack`` here, TF's,
    PyTorch's ...).

    Raises:
        InvalidArgumentError: ``tf_tensor`` is not an eager Tensor (TF's text).

    Example:
        >>> import tapejax as tf
        >>> capsule = tf.experimental.dlpack.to_dlpack(tf.constant([1.0, 2.0]))
        >>> tf.experimental.dlpack.from_dlpack(capsule).numpy()
        array([1., 2.], dtype=float32)
    """
    if type(tf_tensor) is not Tensor or isinstance(tf_tensor._value, jax.core.Tracer):
        raise InvalidArgumentError(
            None, None, "The argument to `to_dlpack` must be a TF tensor, not Python object"
        )
    return tf_tensor._value.__dlpack__()


def from_dlpack(dlcapsule):
    """The Tensor a DLPack capsule holds, sharing its buffer
    (``tf.experimental.dlpack.from_dlpack``).

    Raises:
        TypeError: ``dlcapsule`` is not a capsule (TF's text, less the address TF prints).
        InvalidArgumentError: the capsule was consumed already (TF's text).

    .. warning::
        Difference from TF: JAX copies a CPU buffer that is not 64-byte aligned (NumPy's
        often are not); TF's and JAX's own buffers are shared.
    """
    if type(dlcapsule) is not _CAPSULE_TYPE:
        raise TypeError(
            "TFE_FromDlpackCapsule(): incompatible function arguments. The following "
            "argument types are supported:\n    1. (arg0: capsule, arg1: object) -> object"
            f"\n\nInvoked with: {dlcapsule!r}"
        )
    if not _pythonapi.PyCapsule_IsValid(dlcapsule, _CAPSULE_NAME):
        # TF's text, its unfilled "%s" and the capsule's name appended included.
        name = (_pythonapi.PyCapsule_GetName(dlcapsule) or b"").decode()
        raise InvalidArgumentError(
            None,
            None,
            'DLPack tensor must be a capsule with name "dltensor", got "%s". Note that a '
            f"DLPack tensor may be consumed at most once.{name}",
        )
    return wrap(jax.dlpack.from_dlpack(_Capsule(dlcapsule)))
