"""A built Keras layer (or model) called on tapejax Tensors: one recorded op.

The op's inputs are the layer's variable reads (trainable, then non-trainable: BatchNorm
statistics, dropout seeds) and the array arguments; its outputs are the layer's
outputs, the new non-trainable values and the layer's losses. The pure function runs
Keras's own ``__call__`` inside a ``StatelessScope`` (what ``Layer.stateless_call``
does, plus Keras's input casting, masking and activity regularization), so the op is
jitted once per layer, call structure and input shape, and a tape differentiates it
like any other op. New non-trainable values are written back to their Variables
after the call. Nothing here may hold a variable's value: values are op inputs.
"""

from __future__ import annotations

import weakref

import jax
import numpy as np

from tapejax._src import dispatch, recorder
from tapejax._src.conversion import convert_to_tensor
from tapejax._src.dispatch import Op
from tapejax._src.tensor import Tensor

from ._backend import keras
from ._shared import tape_variable

__all__ = ["KerasCall", "is_symbolic", "mask_of"]

_StatelessScope = keras.StatelessScope
_KerasTensor = keras.KerasTensor
_set_mask = keras.src.backend.set_keras_mask
_get_mask = keras.src.backend.get_keras_mask


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _is_leaf(x) -> bool:
    return type(x) is Tensor or _is_var(x)


def _is_array(x) -> bool:
    return type(x) is Tensor or _is_var(x) or isinstance(x, (jax.Array, np.ndarray))


def is_symbolic(args, kwargs) -> bool:
    """Whether a call carries Keras symbolic tensors (``keras.Input``): the functional API."""
    leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=_is_leaf)
    return any(isinstance(x, _KerasTensor) for x in leaves)


class _Pattern:
    """One call structure of a layer: its Op and where the op's outputs go.

    Op inputs: trainable values, state values, array arguments, then the Keras masks
    of the array arguments at ``masked`` (positions among the array arguments). Op
    outputs: the layer's outputs, the masks Keras attached to them (at
    ``out_masked``), the new state values, the losses.
    """

    def __init__(self, layer, treedef, template, positions, masked, n_train, n_state):
        self.out_tree = None
        self.n_out = 0
        self.out_masked = ()
        n_args = len(positions)

        def pure(*arrays):
            train = arrays[:n_train]
            state = arrays[n_train : n_train + n_state]
            values = arrays[n_train + n_state : n_train + n_state + n_args]
            for i, mask in zip(masked, arrays[n_train + n_state + n_args :]):
                _set_mask(values[i], mask)
            leaves = list(template)
            for p, a in zip(positions, values):
                leaves[p] = a
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
            mapping = list(zip(layer.trainable_variables, train)) + list(
                zip(layer.non_trainable_variables, state)
            )
            # Keras's internals (and any tapejax op a user passed it, e.g. an activation)
            # run on tracers here: no tape may record them.
            with (
                recorder.only(()),
                _StatelessScope(state_mapping=mapping, collect_losses=True) as scope,
            ):
                out = layer(*args, **kwargs)
                losses = layer.losses
            new_state = [scope.get_current_value(v) for v in layer.non_trainable_variables]
            flat, self.out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_leaf)
            flat = [x._value if type(x) is Tensor else x for x in flat]
            masks = [_get_mask(x) for x in flat]
            self.out_masked = tuple(i for i, m in enumerate(masks) if m is not None)
            losses = [x._value if type(x) is Tensor else x for x in losses]
            self.n_out = len(flat)
            return (
                tuple(flat)
                + tuple(masks[i] for i in self.out_masked)
                + tuple(new_state)
                + tuple(losses)
            )

        self.op = Op(
            f"Keras{type(layer).__name__}", pure, multiple_outputs=True, runs_user_code=True
        )


# Keras masks of tapejax Tensors (``Embedding(mask_zero=True)``, ``Masking``), by tensor
# id: a Tensor has no room for Keras's ``_keras_mask`` attribute.
_masks: dict = {}


def mask_of(t):
    """The Keras mask a bridged layer attached to Tensor ``t``, or None."""
    return _masks.get(t._id) if type(t) is Tensor else None


def _attach_mask(t, mask) -> None:
    _masks[t._id] = mask
    weakref.finalize(t, _masks.pop, t._id, None)


class KerasCall:
    """Calls one Keras layer on tapejax values as a recorded op (see the module docstring)."""

    def __init__(self, layer):
        self.layer = layer
        self._patterns: dict = {}
        self._variables = None  # (trainable flag, trainable Variables, state Variables)

    def variables(self):
        """The layer's (trainable, non-trainable) tapejax Variables, in Keras's order."""
        layer = self.layer
        cached = self._variables
        if cached is None or cached[0] is not layer.trainable:
            train = [tape_variable(v) for v in layer.trainable_variables]
            state = [tape_variable(v) for v in layer.non_trainable_variables]
            cached = self._variables = (layer.trainable, train, state)
        return cached[1], cached[2]

    def build(self, args, kwargs) -> None:
        """Builds the layer by a symbolic call (no values computed, no state changed)."""

        def spec(x):
            if _is_array(x):
                t = x if type(x) is Tensor else convert_to_tensor(x)
                return _KerasTensor(tuple(t.shape.as_list()), dtype=str(t._v.dtype))
            return x

        sargs, skwargs = jax.tree_util.tree_map(spec, (args, kwargs), is_leaf=_is_leaf)
        self.layer(*sargs, **skwargs)
        self._variables = None

    def __call__(self, args, kwargs):
        layer = self.layer
        if not layer.built:
            self.build(args, kwargs)
        train, state = self.variables()
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_leaf)
        positions = []
        inputs = [v._dense_read() for v in train]
        inputs += [v._dense_read() for v in state]
        template = list(leaves)
        masks, masked = [], []
        for i, x in enumerate(leaves):
            if type(x) is Tensor:
                mask = _masks.get(x._id) if _masks else None
                if mask is not None:
                    masked.append(len(positions))
                    masks.append(mask)
                inputs.append(x)
            elif _is_var(x):
                inputs.append(x._dense_read())
            elif isinstance(x, (jax.Array, np.ndarray)):
                inputs.append(convert_to_tensor(x))
            else:
                continue
            positions.append(i)
            template[i] = None
        inputs += masks
        template = tuple(template)
        masked = tuple(masked)
        key = (treedef, template, masked, len(train), len(state))
        try:
            pattern = self._patterns.get(key)
        except TypeError:  # unhashable static arguments: a new op for this call
            key, pattern = None, None
        if pattern is None:
            pattern = _Pattern(layer, treedef, template, positions, masked, len(train), len(state))
            if key is not None:
                self._patterns[key] = pattern
        outs = dispatch.apply(pattern.op, tuple(inputs))
        n_out, n_state = pattern.n_out, len(state)
        out_masked = pattern.out_masked
        for i, mask in zip(out_masked, outs[n_out : n_out + len(out_masked)]):
            _attach_mask(outs[i], mask)
        first_state = n_out + len(out_masked)
        for v, new in zip(state, outs[first_state : first_state + n_state]):
            v._accessed()
            v._value = new._value
        losses = list(outs[first_state + n_state :])
        return jax.tree_util.tree_unflatten(pattern.out_tree, list(outs[:n_out])), losses
