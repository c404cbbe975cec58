"""Reading tapejax's checkpoint directories: ``get_checkpoint_state``, ``load_checkpoint``,
``checkpoints_iterator`` (``tf.train``'s names).

They read what ``Checkpoint.save`` and ``CheckpointManager`` write: ``.npz`` files and
the ``checkpoint`` state file in TF's text format (see ``tapejax/_src/checkpoint.py``).
This module must never write or delete a checkpoint.
"""

from __future__ import annotations

import os
import time

from . import dtypes
from .checkpoint import (
    _STATE_FILE,
    _STATE_LINE,
    _absolute,
    _checkpoint_file,
    _read_file,
    _read_state,
    latest_checkpoint,
)
from .errors import NotFoundError
from .tf_logging import logger

__all__ = [
    "CheckpointReader",
    "CheckpointState",
    "checkpoints_iterator",
    "get_checkpoint_state",
    "load_checkpoint",
]

_STATE_FIELDS = frozenset(
    {
        "model_checkpoint_path",
        "all_model_checkpoint_paths",
        "all_model_checkpoint_timestamps",
        "last_preserved_timestamp",
    }
)


class CheckpointState:
    """The contents of a ``checkpoint`` state file (the fields of TF's ``CheckpointState`` proto).

    Attributes:
      model_checkpoint_path: the latest checkpoint's path.
      all_model_checkpoint_paths: the paths of the checkpoints kept, oldest first.
      all_model_checkpoint_timestamps: when each was saved (seconds since the epoch).
      last_preserved_timestamp: the last time a checkpoint was kept for
        ``keep_checkpoint_every_n_hours`` (0.0 if never recorded).
    """

    __slots__ = (
        "model_checkpoint_path",
        "all_model_checkpoint_paths",
        "all_model_checkpoint_timestamps",
        "last_preserved_timestamp",
    )

    def __init__(
        self,
        model_checkpoint_path="",
        all_model_checkpoint_paths=(),
        all_model_checkpoint_timestamps=(),
        last_preserved_timestamp=0.0,
    ):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and all(
            getattr(self, f) == getattr(other, f) for f in self.__slots__
        )

    def __repr__(self) -> str:
        lines = [f'model_checkpoint_path: "{self.model_checkpoint_path}"']
        lines += [f'all_model_checkpoint_paths: "{p}"' for p in self.all_model_checkpoint_paths]
        lines += [
            f"all_model_checkpoint_timestamps: {t!r}" for t in self.all_model_checkpoint_timestamps
        ]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"


def _parses(path) -> bool:
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            m = _STATE_LINE.match(line)
            if not m or m.group(1) not in _STATE_FIELDS:
                logger.warning("ParseError: cannot parse %r", line)
                logger.warning("%s: Checkpoint ignored", path)
                return False
    return True


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """The state file of ``checkpoint_dir``, paths made absolute (``tf.train.get_checkpoint_state``).

    Args:
      checkpoint_dir: a directory ``Checkpoint.save`` or ``CheckpointManager`` wrote to.
      latest_filename: the state file's name; default ``"checkpoint"``.

    Returns:
      A ``CheckpointState``, or None when there is no state file or it does not parse
      (a warning is logged, as TF's).

    Raises:
      ValueError: the state file names no latest checkpoint (TF's text).

    Example:
        >>> import tempfile, tapejax as tf
        >>> import tapejax.train
        >>> directory = tempfile.mkdtemp()
        >>> manager = tf.train.CheckpointManager(
        ...     tf.train.Checkpoint(v=tf.Variable(1.0)), directory, max_to_keep=2)
        >>> paths = [manager.save() for _ in range(3)]
        >>> state = tf.train.get_checkpoint_state(directory)
        >>> state.model_checkpoint_path == paths[-1], state.all_model_checkpoint_paths == paths[1:]
        (True, True)
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = os.path.join(checkpoint_dir, latest_filename or _STATE_FILE)
    if not os.path.isfile(path) or not _parses(path):
        return None
    state = _read_state(checkpoint_dir, latest_filename)
    if not state["latest"]:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    return CheckpointState(
        _absolute(checkpoint_dir, state["latest"]),
        [_absolute(checkpoint_dir, p) for p in state["paths"]],
        state["timestamps"],
        state["last_preserved"] or 0.0,
    )


class CheckpointReader:
    """The saved values of one checkpoint, by key (what ``tf.train.load_checkpoint`` returns).

    Keys are the object paths tapejax's ``Checkpoint`` writes (``model/w``,
    ``save_counter``), not TF's ``.../.ATTRIBUTES/VARIABLE_VALUE`` keys.
    """

    def __init__(self, path):
        self._path = os.fspath(path)
        self._values = _read_file(self._path)

    def has_tensor(self, name) -> bool:
        """Whether the checkpoint holds a value under ``name``."""
        return name in self._values

    def get_tensor(self, name):
        """The value saved under ``name``: a NumPy array (a NumPy scalar when 0-d).

        Raises:
          NotFoundError: no such key (TF's text).
        """
        if name not in self._values:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        value = self._values[name]
        return value[()] if value.ndim == 0 else value.copy()

    def get_variable_to_shape_map(self) -> dict:
        """``{key: shape as a list of ints}``."""
        return {k: list(v.shape) for k, v in self._values.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """``{key: tapejax DType}``."""
        return {k: dtypes.as_dtype(v.dtype) for k, v in self._values.items()}


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A ``CheckpointReader`` of a checkpoint, or of a directory's latest (``tf.train.load_checkpoint``).

    Args:
      ckpt_dir_or_file: a checkpoint's path (as ``save`` returned it, with or without
        ``.npz``), or a directory with a ``checkpoint`` state file.

    Raises:
      ValueError: a directory with no checkpoint (TF's text).
      NotFoundError: no such checkpoint file (TF's text).

    Example:
        >>> import os, tempfile, tapejax as tf
        >>> import tapejax.train
        >>> ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
        >>> path = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
        >>> reader = tf.train.load_checkpoint(path)
        >>> reader.get_tensor("v").tolist(), reader.get_variable_to_shape_map()["v"]
        ([1.0, 2.0], [2])
    """
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}"
            )
        path = latest
    if not os.path.exists(_checkpoint_file(path)):
        raise NotFoundError(
            None,
            None,
            "Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {path}",
        )
    return CheckpointReader(path)


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint, seconds_to_sleep=1, timeout=None):
    logger.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = latest_checkpoint(checkpoint_dir)
        if checkpoint_path is None or checkpoint_path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            logger.info("Found new checkpoint at %s", checkpoint_path)
            return checkpoint_path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new latest checkpoint of ``checkpoint_dir`` as it appears (``tf.train.checkpoints_iterator``).

    As TF's: the directory is polled once a second; after a yield, the next check
    waits until ``min_interval_secs`` have passed since it. When ``timeout`` seconds
    pass with no new checkpoint (a wait that would overrun ``timeout`` ends at once),
    the iterator stops if there is no ``timeout_fn``; otherwise it stops when
    ``timeout_fn()`` is true and keeps waiting when it is false. ``timeout_fn`` is
    also consulted after each yield.

    Example:
        >>> import tempfile, tapejax as tf
        >>> import tapejax.train
        >>> directory = tempfile.mkdtemp()
        >>> manager = tf.train.CheckpointManager(
        ...     tf.train.Checkpoint(v=tf.Variable(1.0)), directory, max_to_keep=1)
        >>> path = manager.save()
        >>> list(tf.train.checkpoints_iterator(directory, timeout=0.1)) == [path]
        True
    """
    checkpoint_path = None
    while True:
        new_checkpoint_path = _wait_for_new_checkpoint(
            checkpoint_dir, checkpoint_path, timeout=timeout
        )
        if new_checkpoint_path:
            start = time.time()
            checkpoint_path = new_checkpoint_path
            yield checkpoint_path
            time_to_next_eval = start + min_interval_secs - time.time()
            if time_to_next_eval > 0:
                time.sleep(time_to_next_eval)
        elif timeout_fn is None:
            logger.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            logger.info("Done. No new checkpoints will be generated.")
            return
