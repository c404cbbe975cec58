"""Keras's training API for tapejax models: ``compile``, ``fit``, ``evaluate``, ``predict``.

The train step is a GradientTape over the model's call and loss followed by the
optimizer's update, compiled with ``tapejax.function`` (one XLA program per batch
shape). Metrics, the loss tracker, callbacks (``History``, ``EarlyStopping``, ...) and
the progress bar are Keras's own objects, updated eagerly from the step's outputs.
Data goes through Keras's own ``EpochIterator``: NumPy arrays and Tensors, Python
generators, ``keras.utils.PyDataset`` (and ``tf.data`` or a torch ``DataLoader`` where
those are installed), with Keras's batching, shuffling, ``class_weight`` and
``steps_per_epoch``; each batch reaches the step as tapejax Tensors. This module must
never hold a copy of a model's weights.
"""

from __future__ import annotations

import warnings

import h5py
import jax
import numpy as np

from tapejax._src.conversion import convert_to_tensor
from tapejax._src.function import function
from tapejax._src.tape import GradientTape
from tapejax._src.tensor import Tensor

from ._backend import keras
from ._layer import _is_tensor_like
from ._optimizer import Optimizer, wrap_optimizer

__all__ = ["Trainer"]

_LossFunctionWrapper = keras.src.losses.losses.LossFunctionWrapper
_CompileMetrics = keras.src.trainers.compile_utils.CompileMetrics
# Keras's data handling, as its own trainers use it.
array_slicing = keras.src.trainers.data_adapters.array_slicing
data_adapter_utils = keras.src.trainers.data_adapters.data_adapter_utils
EpochIterator = keras.src.trainers.epoch_iterator.EpochIterator


def _numpy_tree(tree):
    return jax.tree_util.tree_map(
        lambda x: np.asarray(x),
        tree,
        is_leaf=lambda x: type(x) is Tensor or getattr(x, "_is_variable", False),
    )


def _arrays(tree):
    return jax.tree_util.tree_map(
        lambda x: x._value if type(x) is Tensor else x,
        tree,
        is_leaf=lambda x: type(x) is Tensor,
    )


def _num_samples(x) -> int:
    leaves = jax.tree_util.tree_leaves(x, is_leaf=_is_tensor_like)
    if not leaves:
        raise ValueError("Expected input data `x`, got None.")
    return int(np.shape(leaves[0])[0])


def _keras_loss(identifier):
    """A Keras loss object from what ``compile`` accepts (name, function, object, wrapper)."""
    if identifier is None:
        return None
    identifier = getattr(identifier, "_keras_object", identifier)
    if isinstance(identifier, keras.losses.Loss):
        return identifier
    from ._wrappers import Loss

    if isinstance(identifier, Loss):
        return identifier
    obj = keras.losses.get(identifier)
    if isinstance(obj, keras.losses.Loss):
        return obj
    return _LossFunctionWrapper(obj, name=getattr(obj, "__name__", None))


class Trainer:
    """``compile``/``fit``/``evaluate``/``predict`` for a tapejax ``Model``."""

    optimizer = None
    stop_training = False
    history = None
    compiled = False

    def __init__(self):
        self._loss_fns = None
        self._loss_weights = None
        self._compile_metrics = None
        self._loss_tracker = None
        self._run_eagerly = False
        self._train_function = None
        self._test_function = None
        self._predict_function = None

    # -- compile -------------------------------------------------------------------------

    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        loss_weights=None,
        metrics=None,
        weighted_metrics=None,
        run_eagerly=False,
        steps_per_execution=1,
        jit_compile="auto",
        auto_scale_loss=True,
    ):
        """Configures the model for training (Keras's ``compile``)."""
        if not isinstance(optimizer, Optimizer):
            optimizer = wrap_optimizer(
                keras.optimizers.get(getattr(optimizer, "_keras_object", optimizer))
            )
        self.optimizer = optimizer
        if isinstance(loss, (list, tuple)):
            self._loss_fns = [_keras_loss(x) for x in loss]
        elif isinstance(loss, dict):
            raise NotImplementedError(
                "tapejax.keras: a dict of losses per output name is not supported yet; pass a "
                "list in the order of the model's outputs."
            )
        else:
            self._loss_fns = None if loss is None else _keras_loss(loss)
        self._loss_weights = loss_weights
        unwrap = lambda m: getattr(m, "_keras_object", m)  # noqa: E731
        metrics = jax.tree_util.tree_map(unwrap, metrics) if metrics else None
        weighted = jax.tree_util.tree_map(unwrap, weighted_metrics) if weighted_metrics else None
        self._compile_metrics = (
            _CompileMetrics(metrics, weighted, output_names=None) if metrics or weighted else None
        )
        self._loss_tracker = keras.metrics.Mean(name="loss")
        self._run_eagerly = bool(run_eagerly)
        self._train_function = self._test_function = self._predict_function = None
        self.compiled = True

    @property
    def metrics(self) -> list:
        out = [] if self._loss_tracker is None else [self._loss_tracker]
        if self._compile_metrics is not None:
            out.append(self._compile_metrics)
        return out

    @property
    def metrics_names(self) -> list:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        for m in self.metrics:
            m.reset_state()

    # -- the steps ----------------------------------------------------------------------

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss plus every loss in ``self.losses`` (Keras's ``compute_loss``)."""
        import tapejax as tf

        losses = []
        if self._loss_fns is not None and y is not None:
            fns = self._loss_fns if isinstance(self._loss_fns, list) else [self._loss_fns]
            ys = y if isinstance(self._loss_fns, list) else [y]
            preds = y_pred if isinstance(self._loss_fns, list) else [y_pred]
            weights = self._loss_weights or [1.0] * len(fns)
            for fn, yt, yp, w in zip(fns, ys, preds, weights):
                value = _apply_loss(fn, yt, yp, sample_weight)
                losses.append(value if w == 1.0 else value * w)
        for extra in self.losses:
            losses.append(tf.reduce_sum(tf.cast(extra, "float32")))
        if not losses:
            return tf.zeros([])
        return losses[0] if len(losses) == 1 else tf.add_n(losses)

    def train_step(self, data):
        """One training step on a batch (Keras's ``train_step``): ``data`` is ``x``,
        ``(x, y)`` or ``(x, y, sample_weight)`` as the data yields it; returns the logs.

        The default runs the compiled step (the model's call and ``compute_loss`` under a
        tape, then the optimizer) and updates the metrics eagerly. An override, as in
        Keras's "customizing what happens in fit" guide, is called by ``fit`` and
        ``train_on_batch`` with each batch as Tensors, eagerly (Keras metric objects
        update only eagerly); its returned dict of results is the batch's logs.
        """
        return self._step_logs("_train_function", self._train_step, data)

    def test_step(self, data):
        """One evaluation step (Keras's ``test_step``); overridable as ``train_step``."""
        return self._step_logs("_test_function", self._test_step, data)

    def predict_step(self, data):
        """The model's outputs on a batch (Keras's ``predict_step``)."""
        x, _, _ = data_adapter_utils.unpack_x_y_sample_weight(data)
        return self._compiled("_predict_function", self._predict_step)(x)

    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        """Updates the compiled metrics and returns every metric's result (Keras's
        ``compute_metrics``; the loss tracker is updated by the step, not here)."""
        if self._compile_metrics is not None and y is not None:
            self._compile_metrics.update_state(
                _arrays(y),
                _arrays(y_pred),
                None if sample_weight is None else _arrays(sample_weight),
            )
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict:
        """Every metric's result, a dict's entries flattened into the logs (Keras's)."""
        return _logs({m.name: m.result() for m in self.metrics})

    def _train_step(self, x, y=None, sample_weight=None):
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss, y_pred

    def _test_step(self, x, y=None, sample_weight=None):
        y_pred = self(x, training=False)
        return self.compute_loss(x, y, y_pred, sample_weight, training=False), y_pred

    def _predict_step(self, x):
        return self(x, training=False)

    def _compiled(self, name, step):
        fn = getattr(self, name)
        if fn is None:
            fn = step if self._run_eagerly else function(step)
            setattr(self, name, fn)
        return fn

    def _step_logs(self, name, step, data) -> dict:
        """Runs the compiled ``step`` (cached as ``self.<name>``) on a batch, then updates
        the loss tracker and the compiled metrics eagerly: the default steps' logs."""
        x, y, sample_weight = data_adapter_utils.unpack_x_y_sample_weight(data)
        loss, y_pred = self._compiled(name, step)(x, y, sample_weight)
        self._loss_tracker.update_state(_arrays(loss), sample_weight=_num_samples(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        self._require_compiled()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "Arguments `sample_weight` and `class_weight` cannot be specified at the "
                    f"same time. Received: sample_weight={sample_weight}, "
                    f"class_weight={class_weight}"
                )
            sample_weight = data_adapter_utils.class_weight_to_sample_weights(
                _plain(y), class_weight
            )
        self.reset_metrics()  # as Keras: the logs are this batch's
        logs = _logs(self.train_step(_packed(x, y, sample_weight)))
        return logs if return_dict else _flat_logs(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._require_compiled()
        self.reset_metrics()  # as Keras: the logs are this batch's
        logs = _logs(self.test_step(_packed(x, y, sample_weight)))
        return logs if return_dict else _flat_logs(logs)

    def predict_on_batch(self, x):
        return _numpy_tree(self.predict_step((_as_tensors(x),)))

    def _require_compiled(self) -> None:
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    # -- loops -------------------------------------------------------------------------

    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs=1,
        verbose="auto",
        callbacks=None,
        validation_split=0.0,
        validation_data=None,
        shuffle=True,
        class_weight=None,
        sample_weight=None,
        initial_epoch=0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_batch_size=None,
        validation_freq=1,
    ):
        """Trains for ``epochs`` (Keras's ``fit``); returns the ``History``.

        ``x`` is what Keras's ``fit`` takes: arrays or Tensors (with ``y``), a generator
        or a ``keras.utils.PyDataset`` yielding ``(x, y)`` or ``(x, y, sample_weight)``.
        """
        self._require_compiled()
        x, y, sample_weight = _plain(x), _plain(y), _plain(sample_weight)
        verbose = 1 if verbose == "auto" else verbose
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = array_slicing.train_validation_split(
                (x, y, sample_weight), validation_split=validation_split
            )
        epochs_data = EpochIterator(
            x=x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps_per_epoch,
            shuffle=shuffle,
            class_weight=class_weight,
        )
        cbks = keras.callbacks.CallbackList(
            callbacks,
            add_history=True,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=epochs_data.num_batches,
        )
        self.stop_training = False
        cbks.on_train_begin()
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbks.on_epoch_begin(epoch)
            for step, data in _batches(epochs_data):
                cbks.on_train_batch_begin(step)
                logs = _logs(self.train_step(data))
                cbks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                vx, vy, vw = data_adapter_utils.unpack_x_y_sample_weight(validation_data)
                val_logs = self.evaluate(
                    vx,
                    vy,
                    sample_weight=vw,
                    batch_size=validation_batch_size or batch_size,
                    steps=validation_steps,
                    verbose=0,
                    return_dict=True,
                )
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            cbks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cbks.on_train_end(logs)
        return self.history

    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        steps=None,
        callbacks=None,
        return_dict=False,
        **kwargs,
    ):
        """Loss and metrics over the data (Keras's ``evaluate``; data as for ``fit``)."""
        self._require_compiled()
        data, cbks = _one_pass(self, (x, y, sample_weight), batch_size, steps, verbose, callbacks)
        self.reset_metrics()
        cbks.on_test_begin()
        logs = {}
        for step, batch in _batches(data):
            cbks.on_test_batch_begin(step)
            logs = _logs(self.test_step(batch))
            cbks.on_test_batch_end(step, logs)
        cbks.on_test_end(logs)
        return logs if return_dict else _flat_logs(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs, batched, as NumPy arrays (Keras's ``predict``; a generator
        or ``PyDataset`` may yield ``x`` alone or ``(x, ...)``)."""
        data, cbks = _one_pass(self, (x, None, None), batch_size, steps, verbose, callbacks)
        cbks.on_predict_begin()
        outputs = []
        for step, batch in _batches(data):
            cbks.on_predict_batch_begin(step)
            outputs.append(_numpy_tree(self.predict_step(batch)))
            cbks.on_predict_batch_end(step, {"outputs": outputs[-1]})
        cbks.on_predict_end()
        if not outputs:  # Keras itself fails here with an UnboundLocalError
            raise ValueError("`predict` got no batches: its data `x` yielded nothing")
        return jax.tree_util.tree_map(lambda *parts: np.concatenate(parts), *outputs)

    # -- weights files ----------------------------------------------------------------

    def save_weights(self, filepath, overwrite=True) -> None:
        """Writes ``self.weights`` to an HDF5 file ending in ``.weights.h5``, in order."""
        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(
                f"The filename must end in `.weights.h5`. Received: filepath={filepath}"
            )
        import os

        if os.path.exists(filepath) and not overwrite:
            raise FileExistsError(f"{filepath} exists and overwrite=False")
        with h5py.File(filepath, "w") as f:
            group = f.create_group("tapejax_weights")
            for i, v in enumerate(self.weights):
                dataset = group.create_dataset(f"{i:05d}", data=np.asarray(v))
                dataset.attrs["name"] = v.name

    def load_weights(self, filepath, skip_mismatch=False, **kwargs) -> None:
        """Reads weights written by ``save_weights`` into ``self.weights``, in order."""
        filepath = str(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(
                f"The filename must end in `.weights.h5`. Received: filepath={filepath}"
            )
        with h5py.File(filepath, "r") as f:
            if "tapejax_weights" not in f:
                raise ValueError(
                    f"{filepath} was not written by a tapejax Model's save_weights (functional "
                    "models read and write Keras's own format)."
                )
            group = f["tapejax_weights"]
            values = [group[k][()] for k in sorted(group)]
        weights = self.weights
        if len(values) != len(weights):
            if skip_mismatch:
                warnings.warn(
                    f"{filepath} holds {len(values)} weights, the model has {len(weights)}",
                    stacklevel=2,
                )
                return
            raise ValueError(
                f"Weights file {filepath} holds {len(values)} weights but the model has "
                f"{len(weights)}."
            )
        self.set_weights(values)


def _apply_loss(fn, y_true, y_pred, sample_weight):
    if hasattr(fn, "call") and not isinstance(fn, keras.losses.Loss):
        return fn(y_true, y_pred, sample_weight)  # a tapejax Loss subclass
    from tapejax._src.interop import lift

    lifted = _lifted_losses.get(id(fn))
    if lifted is None:

        def keras_loss(yt, yp, sw):
            return fn(yt, yp, sample_weight=sw)

        lifted = _lifted_losses[id(fn)] = (fn, lift(keras_loss))
    return lifted[1](y_true, y_pred, sample_weight)


_lifted_losses: dict = {}


def _as_tensors(tree):
    if tree is None:
        return None
    return jax.tree_util.tree_map(
        lambda a: a if type(a) is Tensor else convert_to_tensor(a),
        tree,
        is_leaf=lambda a: type(a) is Tensor,
    )


def _flat_logs(logs):
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def _one_pass(model, data, batch_size, steps, verbose, callbacks):
    """``(EpochIterator, callbacks)`` of one unshuffled pass (evaluate, predict), with
    Keras's CallbackList and a progress bar unless silent."""
    x, y, sample_weight = (_plain(d) for d in data)
    epoch = EpochIterator(
        x=x, y=y, sample_weight=sample_weight, batch_size=batch_size, steps_per_epoch=steps
    )
    verbose = 1 if verbose == "auto" else verbose
    cbks = keras.callbacks.CallbackList(
        callbacks,
        add_progbar=verbose != 0,
        model=model,
        verbose=verbose,
        epochs=1,
        steps=epoch.num_batches,
    )
    return epoch, cbks


def _plain(tree):
    """``tree`` with tapejax Tensors and Variables as NumPy arrays, for Keras's data
    adapters; anything else (arrays, generators, datasets) as it is."""
    if tree is None:
        return None
    return jax.tree_util.tree_map(
        lambda a: np.asarray(a) if type(a) is Tensor or getattr(a, "_is_variable", False) else a,
        tree,
        is_leaf=lambda a: type(a) is Tensor or getattr(a, "_is_variable", False),
    )


def _batches(epoch):
    """One epoch of ``epoch`` (an EpochIterator): ``(step, data)`` per batch, ``data``
    as the data yields it (``x``, ``(x, y)`` or ``(x, y, sample_weight)``) with its arrays
    as tapejax Tensors. A generator that runs out ends the epoch with Keras's warning."""
    with epoch.catch_stop_iteration():
        for step, _, (data,) in epoch.enumerate_epoch():
            yield step, _as_tensors(data)


def _packed(x, y, sample_weight):
    """A batch as ``train_on_batch``/``test_on_batch`` hand it to the step: always
    ``(x, y, sample_weight)``, as Keras does, with arrays as Tensors."""
    return (_as_tensors(x), _as_tensors(y), _as_tensors(sample_weight))


def _logs(results) -> dict:
    """A step's returned results as logs: floats, a nested dict's entries flattened in
    (Keras's compiled metrics return one dict)."""
    logs = {}
    for name, value in results.items():
        if isinstance(value, dict):
            logs.update(_logs(value))
        else:
            value = np.asarray(value)
            logs[name] = float(value) if value.ndim == 0 else value
    return logs
