"""Keras's training API for tapejax models: ``compile``, ``fit``, ``evaluate``, ``predict``.

The train step is a GradientTape over the model's call and loss followed by the
optimizer's update, compiled with ``tapejax.function`` (one XLA program per batch
shape). Metrics, the loss tracker, callbacks (``History``, ``EarlyStopping``, ...) and
the progress bar are Keras's own objects, updated eagerly from the step's outputs.
Data goes through Keras's own ``EpochIterator``: NumPy arrays and Tensors, Python
generators, ``keras.utils.PyDataset``, ``tapejax.data.Dataset`` (an adapter of Keras's
kind, ``_DatasetAdapter``), and ``tf.data`` or a torch ``DataLoader`` where those are
installed, with Keras's batching, shuffling, ``class_weight`` and
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
_CompileLoss = keras.src.trainers.compile_utils.CompileLoss
_CompileMetrics = keras.src.trainers.compile_utils.CompileMetrics
tree = keras.src.tree
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


class Trainer:
    """``compile``/``fit``/``evaluate``/``predict`` for a tapejax ``Model``."""

    optimizer = None
    stop_training = False
    history = None
    compiled = False

    def __init__(self):
        self._compile_loss = None
        self._loss_parts = None  # ``_compiled_loss``'s per-output losses, for the step's outputs
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
        if (
            auto_scale_loss
            and self.dtype_policy.name == "mixed_float16"
            and not isinstance(optimizer.keras_optimizer, keras.optimizers.LossScaleOptimizer)
        ):
            # As Keras's compile: float16 gradients need loss scaling.
            optimizer = wrap_optimizer(
                keras.optimizers.LossScaleOptimizer(
                    optimizer.keras_optimizer, name="loss_scale_optimizer"
                )
            )
        self.optimizer = optimizer
        output_names = getattr(self, "output_names", None)
        # Keras's own CompileLoss resolves the losses' structure (one loss, a list, a dict
        # by output name, `loss_weights`) and names the per-output loss metrics; the
        # losses themselves run as tapejax ops (``_compiled_loss``).
        self._compile_loss = (
            None
            if loss is None
            else _CompileLoss(
                tree.map_structure(_unwrap_loss, loss), loss_weights, output_names=output_names
            )
        )
        unwrap = lambda m: getattr(m, "_keras_object", m)  # noqa: E731
        metrics = jax.tree_util.tree_map(unwrap, metrics) if metrics else None
        weighted = jax.tree_util.tree_map(unwrap, weighted_metrics) if weighted_metrics else None
        self._compile_metrics = (
            _CompileMetrics(metrics, weighted, output_names=output_names)
            if metrics or weighted
            else None
        )
        self._loss_tracker = keras.metrics.Mean(name="loss")
        self._run_eagerly = bool(run_eagerly)
        self._train_function = self._test_function = self._predict_function = None
        self.compiled = True

    @property
    def metrics(self) -> list:
        """Keras's order: the loss tracker, the compiled metrics, one loss tracker per
        output when there are several losses."""
        out = [] if self._loss_tracker is None else [self._loss_tracker]
        if self._compile_metrics is not None:
            out.append(self._compile_metrics)
        if self._compile_loss is not None:
            out.extend(self._compile_loss.metrics)
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
        if self._compile_loss is not None and y is not None:
            total, parts = _compiled_loss(self._compile_loss, y, y_pred, sample_weight)
            if total is not None:
                losses.append(total)
            if self._loss_parts is not None:  # inside the default steps: they update the metrics
                self._loss_parts.extend(parts)
            else:  # an overridden train_step calling compute_loss, eagerly
                _update_loss_metrics(self._compile_loss, parts)
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
        """Returns the loss, the predictions and the per-output losses (``_loss_parts``)."""
        self._loss_parts = parts = []
        try:
            with GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
                scaled_loss = self.optimizer.scale_loss(loss)
        finally:
            self._loss_parts = None
        variables = self.trainable_variables
        grads = tape.gradient(scaled_loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss, y_pred, parts

    def _test_step(self, x, y=None, sample_weight=None):
        self._loss_parts = parts = []
        try:
            y_pred = self(x, training=False)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        finally:
            self._loss_parts = None
        return loss, y_pred, parts

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
        loss, y_pred, parts = self._compiled(name, step)(x, y, sample_weight)
        self._loss_tracker.update_state(_arrays(loss), sample_weight=_num_samples(x))
        _update_loss_metrics(self._compile_loss, parts)
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
        return logs if return_dict else _flat_logs(self, logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._require_compiled()
        self.reset_metrics()  # as Keras: the logs are this batch's
        logs = _logs(self.test_step(_packed(x, y, sample_weight)))
        return logs if return_dict else _flat_logs(self, logs)

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

        ``x`` is what Keras's ``fit`` takes: arrays or Tensors (with ``y``), a generator,
        a ``keras.utils.PyDataset`` or a ``tapejax.data.Dataset`` yielding ``(x, y)`` or
        ``(x, y, sample_weight)`` batches.
        """
        self._require_compiled()
        x, y, sample_weight = _plain(x), _plain(y), _plain(sample_weight)
        verbose = 1 if verbose == "auto" else verbose
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = array_slicing.train_validation_split(
                (x, y, sample_weight), validation_split=validation_split
            )
        dataset = _dataset_input(x, y, sample_weight, shuffle, class_weight)
        epochs_data = EpochIterator(
            x=dataset,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps_per_epoch,
            shuffle=shuffle and dataset is x,
            class_weight=class_weight if dataset is x else None,
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
        return logs if return_dict else _flat_logs(self, logs)

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


def _unwrap_loss(identifier):
    """A loss as Keras's CompileLoss resolves it: tapejax's wrappers of Keras losses give
    their Keras object; a tapejax ``Loss`` stays itself (``_use_tapejax_losses``)."""
    if identifier is None:
        return None
    return getattr(identifier, "_keras_object", identifier)


def _use_tapejax_losses(compile_loss) -> None:
    """After Keras's build: a tapejax ``Loss`` that Keras wrapped as a function is called as
    itself, as ``_apply_loss`` calls it."""
    from ._wrappers import Loss

    for i, entry in enumerate(compile_loss._flat_losses):
        fn = entry.loss
        if isinstance(fn, _LossFunctionWrapper) and isinstance(fn.fn, Loss):
            compile_loss._flat_losses[i] = entry._replace(loss=fn.fn)


def _matched_labels(compile_loss, y_true, y_pred):
    """``y_true`` in ``y_pred``'s structure, as Keras's ``CompileLoss.call`` matches them:
    a single label for a one-output list, a dict by output name for a list of outputs,
    another container of the same paths. Anything else is Keras's ValueError."""
    try:
        tree.assert_same_structure(y_pred, y_true)
        return y_true
    except ValueError:
        pass
    if not tree.is_nested(y_true) and hasattr(y_pred, "__len__") and len(y_pred) == 1:
        y_true = [y_true]
    elif isinstance(y_pred, (list, tuple)) and isinstance(y_true, dict):
        names = compile_loss.output_names
        if names and set(names) == set(y_true):
            y_true = [y_true[name] for name in names]
    try:
        return tree.pack_sequence_as(y_pred, y_true)
    except Exception:
        pass
    try:
        tree.assert_same_paths(y_true, y_pred)
        return tree.pack_sequence_as(y_pred, tree.flatten(y_true))
    except Exception:
        pass
    flat_loss = tree.flatten(compile_loss._user_loss)
    given = [i for i, loss in enumerate(flat_loss) if loss is not None]
    flat_true = tree.flatten(y_true)
    if len(flat_true) == len(given) and len(given) < len(flat_loss):
        # Labels only for the outputs that have a loss.
        labels = [None] * len(flat_loss)
        for y_t, i in zip(flat_true, given):
            labels[i] = y_t
        return tree.pack_sequence_as(compile_loss._user_loss, labels)
    raise ValueError(
        "y_true and y_pred have different structures.\n"
        f"y_true: {tree.map_structure(lambda _: '*', y_true)}\n"
        f"y_pred: {tree.map_structure(lambda _: '*', y_pred)}\n"
    )


def _compiled_loss(compile_loss, y_true, y_pred, sample_weight):
    """``(total, per_output)``: Keras's ``CompileLoss.call`` with each loss run as a
    tapejax op, so that tapes record it. ``per_output`` holds the unweighted losses when
    there are several (they have their own metrics), else nothing."""
    y_true = _matched_labels(compile_loss, y_true, y_pred)
    if not compile_loss.built:
        compile_loss.build(y_true, y_pred)
        _use_tapejax_losses(compile_loss)
    y_pred = _as_built(compile_loss._y_pred_build_structure, y_pred)
    y_true = _as_built(compile_loss._y_true_build_structure, y_true)
    import tapejax as tf

    total, parts = None, []
    for path, fn, weight, _ in compile_loss._flat_losses:
        y_t, y_p, sw = y_true, y_pred, sample_weight
        for key in path:
            y_t, y_p = y_t[key], y_p[key]
        if sample_weight is not None and tree.is_nested(sample_weight):
            for key in path:
                sw = sw[key]
        value = tf.cast(_apply_loss(fn, y_t, y_p, sw), compile_loss.dtype)
        parts.append(value)
        if weight is not None:
            value = value * weight
        total = value if total is None else total + value  # Keras's ``sum``, in order
    return total, parts if compile_loss.metrics else []


def _as_built(structure, values):
    """``values`` in the container types the losses were built for (Keras's repacking)."""
    try:
        tree.assert_same_structure(structure, values)
        return values
    except ValueError:
        return tree.pack_sequence_as(structure, tree.flatten(values))


def _update_loss_metrics(compile_loss, parts) -> None:
    """Updates the per-output loss metrics with a step's unweighted losses.

    Each batch counts once, whatever its size, as in TensorFlow's Keras: its CompileLoss
    weighs by the static batch size, which TF's batched datasets leave unknown. (The
    total loss is weighted by the batch size, there and here.)"""
    if compile_loss is None or not parts:
        return
    for metric, value in zip(compile_loss.metrics, parts):
        metric.update_state(_arrays(value))


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


def _flat_logs(model, logs):
    """``logs`` as a list (or one value), in Keras's ``_flatten_metrics_in_order``: the
    metrics' names in order where the logs have them, then the other keys sorted."""
    names = []
    for metric in model.metrics:
        if isinstance(metric, _CompileMetrics):
            names += [sub.name for sub in metric.metrics]
        else:
            names.append(metric.name)
    values = [logs[name] for name in names if name in logs]
    values += [logs[key] for key in sorted(logs) if key not in names]
    return values[0] if len(values) == 1 else values


def _one_pass(model, data, batch_size, steps, verbose, callbacks):
    """``(EpochIterator, callbacks)`` of one unshuffled pass (evaluate, predict), with
    Keras's CallbackList and a progress bar unless silent."""
    x, y, sample_weight = (_plain(d) for d in data)
    epoch = EpochIterator(
        x=_dataset_input(x, y, sample_weight),
        y=y,
        sample_weight=sample_weight,
        batch_size=batch_size,
        steps_per_epoch=steps,
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


class _DatasetAdapter(keras.src.trainers.data_adapters.data_adapter.DataAdapter):
    """A ``tapejax.data.Dataset`` for Keras's ``EpochIterator``, as Keras's adapter for
    ``tf.data``: its elements are the batches (``x``, ``(x, y)`` or ``(x, y,
    sample_weight)``), each epoch iterates it afresh, and its known cardinality is the
    number of steps. ``class_weight`` becomes the batches' sample weights, as
    ``tf.keras`` maps it over a dataset."""

    def __init__(self, dataset, class_weight=None):
        self._dataset = dataset
        self._class_weight = class_weight

    def _weighted(self, batch):
        x, y, sw = data_adapter_utils.unpack_x_y_sample_weight(batch)
        if sw is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if tree.is_nested(y):
            raise ValueError("`class_weight` is only supported for Models with a single output.")
        return x, y, data_adapter_utils.class_weight_to_sample_weights(y, self._class_weight)

    def get_numpy_iterator(self):
        for batch in self._dataset.as_numpy_iterator():
            yield self._weighted(batch) if self._class_weight else batch

    def get_jax_iterator(self):
        return data_adapter_utils.get_jax_iterator(self.get_numpy_iterator())

    def get_tf_dataset(self):
        raise NotImplementedError("a tapejax.data.Dataset is not a tf.data.Dataset")

    def get_torch_dataloader(self):
        return data_adapter_utils.get_torch_dataloader(self.get_numpy_iterator())

    @property
    def num_batches(self):
        n = int(self._dataset.cardinality())
        return n if n >= 0 else None  # infinite or unknown: Keras's None

    @property
    def batch_size(self):
        return None

    @property
    def has_partial_batch(self):
        return None

    @property
    def partial_batch_size(self):
        return None


def _dataset_input(x, y, sample_weight, shuffle=False, class_weight=None):
    """``x`` as Keras's adapter when it is a ``tapejax.data.Dataset``, with Keras's errors
    for arguments a dataset carries itself; anything else as it is."""
    from tapejax._src.data.dataset import Dataset

    if not isinstance(x, Dataset):
        return x
    unsupported = keras.src.trainers.data_adapters.raise_unsupported_arg
    if y is not None:
        unsupported("y", "the targets", "tf.data.Dataset")
    if sample_weight is not None:
        unsupported("sample_weights", "the sample weights", "tf.data.Dataset")
    if shuffle:
        warnings.warn(
            "`shuffle=True` was passed, but will be ignored since the data `x` was "
            "provided as a tf.data.Dataset. The Dataset is expected to already be "
            "shuffled (via `.shuffle(buffer_size)`).",
            stacklevel=3,
        )
    return _DatasetAdapter(x, class_weight)


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
