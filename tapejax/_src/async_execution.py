"""TF's eager executor controls (``tf.experimental.async_scope``, ``async_clear_error``,
``function_executor_type``). JAX already dispatches every op asynchronously and tapejax
checks inputs at the call, so there is no executor to switch; these keep TF's guarantees
and nothing else. This module must never change JAX's configuration.
"""

from __future__ import annotations

import contextlib

import jax

__all__ = ["async_scope", "async_clear_error", "function_executor_type"]


@contextlib.contextmanager
def async_scope():
    """A scope whose ops may run asynchronously (``tf.experimental.async_scope``).

    TF guarantees that every op in the scope has finished, and its error raised, when the
    scope exits normally. In tapejax every op is asynchronous already and bad inputs
    raise at the call, so exiting waits only for pending effects (host callbacks,
    ``tapejax.print`` inside a function) with ``jax.effects_barrier()``.

    Example:
        >>> import tapejax as tf
        >>> with tf.experimental.async_scope():
        ...     x = tf.constant(1.0) + 1.0
        >>> x.numpy()
        np.float32(2.0)

    .. warning::
        Difference from TF: TF 2.21 also sets the environment variable
        ``TF_ENABLE_EAGER_CLIENT_STREAMING_ENQUEUE`` (for remote workers) inside the
        scope; tapejax has no remote workers and leaves the environment alone.
    """
    yield
    # As TF: synchronize only when the block did not raise.
    jax.effects_barrier()


def async_clear_error() -> None:
    """Clears the error of a failed async op (``tf.experimental.async_clear_error``).

    Nothing to clear in tapejax: an error raises where it happens and leaves no pending
    state behind.
    """
    return None


@contextlib.contextmanager
def function_executor_type(executor_type):
    """Names the executor that runs functions in the scope
    (``tf.experimental.function_executor_type``).

    Accepted and without effect: a ``tapejax.function`` is one XLA program, run by JAX's
    runtime; there is no per-function executor to choose. Yields None, as TF.
    """
    yield None
