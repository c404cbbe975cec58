"""``tf.keras.ops``: every function of Keras 3's ``keras.ops``, as recorded tapejax ops.

Each function is Keras's own on its JAX backend, made one recorded op with ``lift``:
Tensors, Variables and arrays anywhere in the arguments (lists of tensors included) are
the op's inputs; axes, dtypes and other Python values are static. Results come back as
Tensors in Keras's structure (a tuple stays a tuple), and a ``GradientTape``
differentiates through them. A function given to a control-flow op (``cond``, ``scan``,
``while_loop``, ``custom_gradient``, ...) receives Tensors and may use tapejax ops.
Functions that answer about a tensor rather than compute one (``shape``, ``dtype``,
``is_tensor``, ``ndim``, ``convert_to_numpy``) return what Keras returns.
``image``, ``linalg``, ``nn`` and ``numpy`` are Keras's sub-namespaces, bridged alike.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import sys
import types

import jax

from tapejax._src.interop import lift
from tapejax._src.tensor import Tensor, wrap

from ._backend import keras as _keras

# ``globals().update`` below shadows ``any``, ``map``, ``sum``...: use ``builtins.`` for them.
# Keras's answers about a tensor, not tensors: computed on the arrays, returned as is.
_METADATA = frozenset({"shape", "dtype", "is_tensor", "ndim", "convert_to_numpy"})


def _is_tapejax(x) -> bool:
    return type(x) is Tensor or getattr(x, "_is_variable", False)


def _to_array(x):
    if type(x) is Tensor:
        return x._value
    if getattr(x, "_is_variable", False):
        return x._dense_read()._value
    return x


def _has_tapejax(tree) -> bool:
    leaves = jax.tree_util.tree_leaves(tree, is_leaf=_is_tapejax)
    return builtins.any(_is_tapejax(x) for x in leaves)


class _TensorFunction:
    """A user function given to a Keras control-flow op: Tensors in, arrays out.

    Equal (and hashing equal) for the same function, so that ``lift`` compiles a
    control-flow op once per user function rather than once per call.
    """

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        args, kwargs = jax.tree_util.tree_map(
            lambda x: wrap(x) if isinstance(x, jax.Array) else x, (args, kwargs)
        )
        return _arrays_out(self.fn(*args, **kwargs))

    def __eq__(self, other):
        return type(other) is _TensorFunction and other.fn == self.fn

    def __hash__(self):
        return hash((_TensorFunction, self.fn))


def _arrays_out(tree):
    """A user function's result as Keras's JAX backend takes it."""

    def leaf(x):
        if _is_tapejax(x):
            return _to_array(x)
        if callable(x) and not isinstance(x, (type, jax.Array)):
            return _TensorFunction(x)  # custom_gradient's returned gradient function
        return x

    return jax.tree_util.tree_map(leaf, tree, is_leaf=lambda x: _is_tapejax(x) or callable(x))


def _functions_in(tree):
    """User callables among the arguments, each wrapped as a ``_TensorFunction``."""
    return jax.tree_util.tree_map(
        lambda x: _TensorFunction(x) if callable(x) and not _is_tapejax(x) else x,
        tree,
        is_leaf=lambda x: _is_tapejax(x) or callable(x),
    )


def _tensors_out(tree):
    return jax.tree_util.tree_map(lambda x: wrap(x) if isinstance(x, jax.Array) else x, tree)


def bridge_function(keras_fn, module: str, name: str, metadata=_METADATA):
    """``keras_fn`` (a function of ``keras.ops``) taking and returning tapejax Tensors.

    Names in ``metadata`` answer about a tensor: they get arrays and return Keras's answer.
    """
    if name in metadata:

        def bridged(*args, **kwargs):
            args, kwargs = jax.tree_util.tree_map(_to_array, (args, kwargs), is_leaf=_is_tapejax)
            return keras_fn(*args, **kwargs)

    elif name == "cond":

        def bridged(pred, true_fn, false_fn):
            if not getattr(pred, "_is_variable", False) and not _is_traced(pred):
                # A known predicate runs its branch as tapejax ops, as TF's eager cond does,
                # so that tensors the branch closes over stay on the tape.
                return true_fn() if bool(pred) else false_fn()
            return lifted(pred, _TensorFunction(true_fn), _TensorFunction(false_fn))

        lifted = lift(keras_fn)

    elif name == "custom_gradient":

        def bridged(f):
            return _op_function(keras_fn(_TensorFunction(f)))

    else:
        lifted = lift(keras_fn)

        def bridged(*args, **kwargs):
            args, kwargs = _functions_in((args, kwargs))
            if not _has_tapejax((args, kwargs)):
                # Nothing to record (``ops.ones((2, 3))``, NumPy inputs): Keras computes
                # on its own and the arrays come back as Tensors.
                return _tensors_out(keras_fn(*args, **kwargs))
            return lifted(*args, **kwargs)

    functools.update_wrapper(bridged, keras_fn)
    bridged.__module__ = module
    bridged._keras_object = keras_fn
    return bridged


def _is_traced(x) -> bool:
    value = x._value if type(x) is Tensor else x
    return isinstance(value, jax.core.Tracer)


def _op_function(jax_fn):
    """A function of JAX arrays (Keras's ``custom_gradient`` result) as a recorded op."""
    lifted = lift(jax_fn)

    @functools.wraps(jax_fn)
    def call(*args, **kwargs):
        if not _has_tapejax((args, kwargs)):
            return _tensors_out(jax_fn(*args, **kwargs))
        return lifted(*args, **kwargs)

    return call


_bridged: dict = {}  # Keras function -> bridged function, shared by the sub-namespaces


def _bridge_module(keras_module, module: str) -> dict:
    names = {}
    for name in dir(keras_module):
        obj = getattr(keras_module, name)
        if name.startswith("_") or not inspect.isfunction(obj):
            continue
        if obj not in _bridged:
            _bridged[obj] = bridge_function(obj, module, name)
        names[name] = _bridged[obj]
    return names


_NAMES = _bridge_module(_keras.ops, __name__)
globals().update(_NAMES)


def _submodule(name: str) -> types.ModuleType:
    full = f"{__name__}.{name}"
    module = types.ModuleType(full, f"``tf.keras.ops.{name}``: Keras's, as recorded tapejax ops.")
    members = _bridge_module(getattr(_keras.ops, name), full)
    vars(module).update(members)
    module.__all__ = sorted(members)
    sys.modules[full] = module
    return module


image = _submodule("image")
linalg = _submodule("linalg")
nn = _submodule("nn")
numpy = _submodule("numpy")


__all__ = sorted(list(_NAMES) + ["image", "linalg", "nn", "numpy"])
