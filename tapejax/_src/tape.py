"""``GradientTape``: TF's recording API over the recorder stack, with TF's exact rules.

A tape's recording (``_Trace``) is a list of nodes plus a dict of the tensor ids it
watches or produced. ``gradient``/``jacobian``/``batch_jacobian`` hand the recording to
``lowering`` and apply the resulting program as an op, so an enclosing tape records it.
TF's texts for errors and warnings are kept verbatim (including its typos) because
ported code and its users search for them.
"""

from __future__ import annotations

import contextlib
import enum
import math

import jax.numpy as jnp

from . import lazy, nest, recorder
from .composite import CompositeTensor
from .conversion import convert_to_tensor
from .lowering import DIFF_DTYPES
from .tape_derivatives import (
    _batch_jacobian,
    _check_parallel_iterations,
    _gradient,
    _jacobian,
    _unique_sources,
)
from .tensor import Tensor, wrap
from .tensor_shape import TensorShape
from .tf_logging import warn_first_n

__all__ = ["GradientTape", "UnconnectedGradients"]


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source with no path to the target (``tf.UnconnectedGradients``)."""

    NONE = "none"
    ZERO = "zero"


def _unconnected_mode(value) -> UnconnectedGradients:
    if type(value) is UnconnectedGradients:
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


_PERSISTENT_IN_CONTEXT = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly "
    "less efficient than calling it outside the context (it causes the gradient ops to be "
    "recorded on the tape, leading to increased CPU and memory usage). Only call "
    "GradientTape.gradient inside the context if you actually want to trace the gradient in "
    "order to compute higher order derivatives."
)
_CONSUMED = (
    "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
)


class _Trace:
    """One tape's recording. It is a recorder: ``record`` is called for every op."""

    __slots__ = (
        "nodes",
        "live",
        "var_reads",
        "watched_vars",
        "watch_accessed",
        "lazy_nodes",
        "sig",
        "leaves",
        "leaf_avals",
        "leaf_of",
        "single_use",
        "open_after",
        "after_outs",
        "__weakref__",
    )

    def __init__(self, watch_accessed: bool):
        self.nodes: list = []
        # id -> (node index, output position) for produced tensors, None for watched leaves.
        self.live: dict = {}
        self.var_reads: dict = {}  # variable id -> [read Tensors]
        self.watched_vars: dict = {}  # variable id -> Variable
        self.watch_accessed = watch_accessed
        # Deferred nodes (lazy.py): the nodes, their wiring (one entry per node: op, static
        # arguments, and per input a leaf number or a (node, output) pair) and the leaves'
        # values and avals.
        self.lazy_nodes: list = []
        self.sig: list = []
        self.leaves: list = []
        self.leaf_avals: list = []
        self.leaf_of: dict = {}
        # A non-persistent tape's derivative may be deferred (``plans.Plan.defer``): the
        # recording then stays open to ops outside any tape that read its pending values
        # (``open_after``), and ``after_outs`` holds their outputs until it is computed.
        self.single_use = False
        self.open_after = False
        self.after_outs: list = []

    def record(self, op, static, args, outs):
        live = self.live
        for a in args:
            if type(a) is Tensor and a._id in live:
                break
        else:
            return
        idx = len(self.nodes)
        self.nodes.append((op, static, args, outs))
        for pos, o in enumerate(outs):
            live[o._id] = (idx, pos)

    def variable_read(self, var, tensor):
        vid = var._id
        if vid in self.watched_vars or (self.watch_accessed and var.trainable):
            self.watched_vars[vid] = var
            reads = self.var_reads.get(vid)
            if reads is None:
                self.var_reads[vid] = [tensor]
            else:
                reads.append(tensor)
            self.live[tensor._id] = None

    def variable_accessed(self, var):
        if self.watch_accessed and var.trainable:
            self.watched_vars[var._id] = var

    def watch_tensor(self, t):
        if t._id not in self.live:
            self.live[t._id] = None

    def watch_variable(self, var):
        self.watched_vars[var._id] = var


lazy.TRACE = _Trace


def _is_var(x) -> bool:
    return getattr(x, "_is_variable", False)


def _dims(x) -> tuple:
    """``x.shape`` as a tuple of ints, without building a TensorShape for a Tensor (a
    list raises AttributeError, as in TF)."""
    return tuple(x._v.shape) if type(x) is Tensor else tuple(x.shape.as_list())


def _check_watchable(leaf):
    if not (isinstance(leaf, Tensor) or _is_var(leaf)):
        raise ValueError(
            f"Passed in object {leaf} of type {type(leaf).__name__!r}, not tf.Tensor or "
            "tf.Variable or ExtensionType."
        )


def _check_target_or_source(x, attr: str):
    if isinstance(x, Tensor) or _is_var(x):
        return
    if x is None:
        raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
    if attr == "_id" and isinstance(x, (int, float, complex, bool)):
        attr = "dtype"
    module = type(x).__module__
    name = type(x).__name__ if module == "builtins" else f"{module}.{type(x).__name__}"
    raise AttributeError(f"'{name}' object has no attribute '{attr}'")


def _check_composites(flat) -> None:
    """TF's errors for composite targets and sources: a SparseTensor has no gradient
    components (ValueError); an IndexedSlices gets as far as TF's tape, which fails on it."""
    for x in flat:
        if isinstance(x, CompositeTensor):
            name = type(x).__name__
            if x._gradient_components() is None:
                raise ValueError(
                    f"Type {name} is not supported as a gradient source or gradient target."
                )
            raise AttributeError(f"'{name}' object has no attribute '_id'")


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``).

    Ops run inside the ``with`` block whose inputs are watched (explicitly, or trainable
    Variables read while the tape is active) are recorded; ``gradient`` then computes the
    gradient of the (summed) targets with one compiled XLA program per trace structure.

    Args:
      persistent: allow more than one ``gradient``/``jacobian`` call.
      watch_accessed_variables: watch trainable Variables automatically when read.

    Example:
        >>> import tapejax as tf
        >>> x = tf.constant(3.0)
        >>> with tf.GradientTape() as g:
        ...     g.watch(x)
        ...     y = x * x
        >>> float(g.gradient(y, x))
        6.0
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._tape = None
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._watched_variables = ()

    # -- context ---------------------------------------------------------------------

    def __enter__(self):
        self._push_tape()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_tape()

    def _push_tape(self):
        if self._recording:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape."
            )
        if self._tape is None:
            self._tape = _Trace(self._watch_accessed_variables)
        recorder.push(self._tape)
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        recorder.remove(self._tape)
        self._recording = False

    # -- watching ----------------------------------------------------------------------

    def watch(self, tensor):
        """Ensures that ``tensor`` (any nested structure of Tensors/Variables) is traced."""
        if type(tensor) is Tensor and self._recording and tensor._v.dtype in DIFF_DTYPES:
            self._tape.watch_tensor(tensor)  # the common case, with nothing to check
            return
        # A SparseTensor (or IndexedSlices) is watched as its components, as in TF.
        leaves = nest.flatten(tensor, expand_composites=True)
        for leaf in leaves:
            _check_watchable(leaf)
        for leaf in leaves:
            dtype = leaf.dtype
            if not dtype.is_differentiable:
                warn_first_n(
                    f"The dtype of the watched tensor must be floating (e.g. tf.float32), "
                    f"got {dtype!r}",
                    5,
                )
            if self._tape is None:
                raise AttributeError(
                    "'NoneType' object has no attribute '_tape' (tapejax: watch() was called on "
                    "a GradientTape that was never entered; call it inside `with tape:`)"
                )
            if not self._recording:
                continue  # TF: a watch between two `with` blocks has no effect
            if _is_var(leaf):
                self._tape.watch_variable(leaf)
            else:
                self._tape.watch_tensor(leaf)

    def watched_variables(self) -> tuple:
        """The Variables watched by this tape, in creation order."""
        source = self._tape.watched_vars if self._tape is not None else self._watched_variables
        if isinstance(source, dict):
            source = tuple(sorted(source.values(), key=lambda v: v._id))
            if self._tape is None:
                self._watched_variables = source
        return source

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stops recording on this tape only (other tapes keep recording)."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self):
        """Clears everything recorded and watched; must be called while recording."""
        self._pop_tape()
        self._tape = None
        self._push_tape()

    # -- derivatives --------------------------------------------------------------------

    def _begin_derivative(self, consumed_message: str = _CONSUMED):
        if self._tape is None:
            raise RuntimeError(consumed_message)
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                warn_first_n(_PERSISTENT_IN_CONTEXT, 1)
        trace = self._tape
        if not self._persistent:
            trace.single_use = True
            # Kept unsorted: sorting is paid only if watched_variables() is asked for.
            self._watched_variables = trace.watched_vars
            self._tape = None
        return trace

    def gradient(
        self,
        target,
        sources,
        output_gradients=None,
        unconnected_gradients=UnconnectedGradients.NONE,
    ):
        """Computes the gradient of ``target`` (summed) with respect to ``sources``.

        Args:
          target: a Tensor/Variable or nested structure of them; all are summed.
          sources: a Tensor/Variable or nested structure of them.
          output_gradients: upstream gradients, one per flattened target.
          unconnected_gradients: ``'none'`` (``None`` for unconnected sources) or
            ``'zero'`` (zeros of the source's shape and dtype).

        Returns:
          The gradients, in the structure of ``sources``.

        Raises:
          RuntimeError: a non-persistent tape is used a second time.
          TypeError: ``target`` is None.
          ValueError: unknown ``unconnected_gradients``.
        """
        trace = self._begin_derivative()
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, Variables "
                "or CompositeTensors to be differentiated, but received None."
            )
        flat_targets = nest.flatten(target)
        _check_composites(flat_targets)
        for t in flat_targets:
            _check_target_or_source(t, "dtype")
        flat_sources = nest.flatten(sources)
        _check_composites(flat_sources)
        for s in flat_sources:
            _check_target_or_source(s, "_id")
        flat_out_grads = None
        if output_gradients is not None:
            flat_out_grads = [convert_to_tensor(g) for g in nest.flatten(output_gradients)]
        mode = _unconnected_mode(unconnected_gradients)

        unique, positions = _unique_sources(flat_sources)
        grads = _gradient(trace, flat_targets, unique, flat_out_grads)
        flat = [_finish(grads[p], flat_sources[i], mode) for i, p in enumerate(positions)]
        return nest.pack_sequence_as(sources, flat)

    def jacobian(
        self,
        target,
        sources,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """The Jacobian of ``target`` w.r.t. each source: shape ``target.shape + source.shape``.

        Computed by one compiled program (a vmap of VJPs, or of JVPs when the sources are
        smaller than the target) that is cached across calls: repeated calls never retrace.
        ``parallel_iterations`` bounds how many rows are computed at once; it never changes
        results. Left as None on CPU, rows go in blocks of about 2 MB of target and sources
        each, which keeps the intermediates in cache; elsewhere all at once.
        """
        if self._tape is None:
            raise RuntimeError(_CONSUMED)
        target_shape = target.shape  # a list target: AttributeError, as in TF
        _check_parallel_iterations(parallel_iterations, "jacobian")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the jacobian "
                "with eager execution enabled and with  experimental_use_pfor set to False."
            )
        trace = self._begin_derivative()
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            _check_target_or_source(s, "_id")
        mode = _unconnected_mode(unconnected_gradients)
        unique, positions = _unique_sources(flat_sources)
        jac = _jacobian(trace, target, unique, parallel_iterations)
        flat = []
        for i, p in enumerate(positions):
            j = jac[p]
            if j is None and mode is UnconnectedGradients.ZERO:
                s = flat_sources[i]
                j = wrap(jnp.zeros(tuple(target_shape) + tuple(s.shape), s._v.dtype))
            flat.append(j)
        return nest.pack_sequence_as(sources, flat)

    def batch_jacobian(
        self,
        target,
        source,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """Per-example Jacobians: ``d(sum_b target[b, y...]) / d source[i, x...]``.

        Exactly TF's semantics, shape ``(batch,) + target.shape[1:] + source.shape[1:]``;
        unconnected sources give zeros (TF ignores ``unconnected_gradients`` here).
        """
        if self._tape is None:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used tocompute one set of gradients "
                "(or jacobians)"
            )
        target_shape, source_shape = _dims(target), _dims(source)
        if len(target_shape) < 2 or len(source_shape) < 2:  # TF's error texts
            TensorShape(target_shape).with_rank_at_least(2)
            TensorShape(source_shape).with_rank_at_least(2)
        if target_shape[0] != source_shape[0]:
            raise ValueError(
                f"Need first dimension of target shape ({TensorShape(target_shape)}) and "
                f"source shape ({TensorShape(source_shape)}) to match."
            )
        if type(unconnected_gradients) is not UnconnectedGradients:
            _unconnected_mode(unconnected_gradients)
        if parallel_iterations is not None:
            _check_parallel_iterations(parallel_iterations, "batch_jacobian")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the batch_jacobian "
                "with eager execution enabled and  with experimental_use_pfor set to False."
            )
        if parallel_iterations is not None and not self._persistent:
            rows = math.prod(target_shape[1:]) if target_shape[0] else 0
            if parallel_iterations < rows:
                # TF's loop body runs once per chunk, and a non-persistent tape only once.
                raise RuntimeError(
                    "GradientTape must be created with persistent=True to compute the "
                    "batch_jacobian with parallel_iterations."
                )
        trace = self._begin_derivative()
        if type(source) is not Tensor:
            _check_target_or_source(source, "_id")
        out = _batch_jacobian(trace, target, source, parallel_iterations)
        if out is None:
            out = wrap(jnp.zeros(target_shape + source_shape[1:], target._v.dtype))
        return out


def _finish(grad, source, mode):
    if grad is None and mode is UnconnectedGradients.ZERO:
        return wrap(jnp.zeros(source._v.shape, source._v.dtype))
    return grad
