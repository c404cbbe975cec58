"""``tf.train.CheckpointOptions`` for tapejax's ``.npz`` checkpoints.

Which options act: ``experimental_write_callbacks`` run after every ``write``/``save``
(as TF's). Which change nothing, by design: ``experimental_io_device`` (one host
process writes the ``.npz``; there is no IO device to pick) and ``enable_async`` /
``experimental_enable_async_checkpoint`` (saving is synchronous: the file is complete
when ``save`` returns, which is what TF's ``sync()`` waits for). Which raise
``NotImplementedError``, because a user would expect an effect tapejax cannot give:
``experimental_skip_slot_variables=True`` (tapejax's checkpoints do not tell slot
variables apart) and any ``experimental_sharding_callback`` (a checkpoint is one file).
This module must never change what is written or restored.
"""

from __future__ import annotations

import copy
import inspect

__all__ = ["CheckpointOptions"]


class CheckpointOptions:
    """Options for ``Checkpoint.save``/``write``/``restore``/``read`` (``tf.train.CheckpointOptions``).

    Args:
      experimental_io_device: accepted, no effect (one process writes one file).
      experimental_enable_async_checkpoint: deprecated spelling of ``enable_async``.
      experimental_write_callbacks: callables of 0 or 1 argument, called in order
        after each checkpoint file is written, with its path when they take one.
      enable_async: accepted, no effect: saving is synchronous.
      experimental_skip_slot_variables: must be False (NotImplementedError otherwise).
      experimental_sharding_callback: must be None (NotImplementedError otherwise).

    Example:
        >>> import os, tempfile, tapejax as tf
        >>> import tapejax.train
        >>> written = []
        >>> options = tf.train.CheckpointOptions(experimental_write_callbacks=[written.append])
        >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        >>> path = ckpt.write(os.path.join(tempfile.mkdtemp(), "c"), options=options)
        >>> written == [path]
        True

    .. warning::
       ``enable_async`` and ``experimental_io_device`` change nothing;
       ``experimental_skip_slot_variables`` and ``experimental_sharding_callback``
       raise ``NotImplementedError``.
    """

    __slots__ = (
        "experimental_io_device",
        "experimental_enable_async_checkpoint",
        "experimental_write_callbacks",
        "enable_async",
        "experimental_sharding_callback",
        "experimental_skip_slot_variables",
    )

    def __init__(
        self,
        experimental_io_device=None,
        experimental_enable_async_checkpoint=False,
        experimental_write_callbacks=None,
        enable_async=False,
        experimental_skip_slot_variables=False,
        experimental_sharding_callback=None,
    ):
        if experimental_skip_slot_variables:
            raise NotImplementedError(
                "CheckpointOptions(experimental_skip_slot_variables=True): tapejax's "
                "checkpoints do not mark optimizer slot variables, so they cannot be skipped "
                "on restore. Restore into a Checkpoint that does not hold the optimizer."
            )
        if experimental_sharding_callback is not None:
            raise NotImplementedError(
                "CheckpointOptions(experimental_sharding_callback=...): a tapejax checkpoint "
                "is one .npz file and is not sharded on disk, so TF's sharding policies "
                "(tf.train.experimental.MaxShardSizePolicy, ShardByTaskPolicy, "
                "ShardingCallback) are not provided."
            )
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(experimental_enable_async_checkpoint or enable_async)
        self.experimental_enable_async_checkpoint = self.enable_async
        if experimental_write_callbacks is not None:
            for callback in experimental_write_callbacks:
                assert len(inspect.signature(callback).parameters) <= 1
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = None
        self.experimental_skip_slot_variables = False

    def __copy__(self):
        result = CheckpointOptions.__new__(CheckpointOptions)
        for name in self.__slots__:
            setattr(result, name, getattr(self, name))
        result.experimental_write_callbacks = copy.copy(self.experimental_write_callbacks)
        return result


def check_options(options) -> CheckpointOptions | None:
    """``options`` if it is None or a CheckpointOptions, else a TypeError naming the fix."""
    if options is None or isinstance(options, CheckpointOptions):
        return options
    raise TypeError(
        f"`options` must be a tapejax.train.CheckpointOptions or None, got {type(options).__name__}."
    )


def run_write_callbacks(options, save_path: str) -> None:
    """Calls ``options.experimental_write_callbacks`` after a checkpoint was written (TF's rule)."""
    if options is None or not options.experimental_write_callbacks:
        return
    for callback in options.experimental_write_callbacks:
        num_params = len(inspect.signature(callback).parameters)
        if num_params == 0:
            callback()
        elif num_params == 1:
            callback(save_path)
        else:
            raise AssertionError(
                "Callback functions for checkpoint are required to have 0 or 1"
                f"parameters, but this has {num_params} parameters: {callback}"
            )
